// Seed A's output contract: one line of compact JSON, on stdout for success and on stderr for a
// failure ({"ok":false,"error":code,"message":…}), and its exit codes.
import { DomainError, type ErrorCode } from '../domain/errors.js';

export const EXIT = {
  ok: 0,
  /** Input or business rule (argument, text, token, claim file, lease, state). */
  rejected: 2,
  /** Database or file-system failure. */
  failure: 3,
  interrupted: 130,
} as const;

/** A failure with seed A's lowercase code and exit code. */
export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: number = EXIT.rejected,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Seed A's code for each domain error (lowercase of the same name; a lease length is an argument error there). */
export function seedCode(code: ErrorCode): string {
  return code === 'LEASE_OUT_OF_RANGE' ? 'argument_error' : code.toLowerCase();
}

/** One compact JSON line, as Python's json.dumps(…, ensure_ascii=False, separators=(',', ':')) writes it. */
export function jsonLine(payload: Record<string, unknown>): string {
  return `${JSON.stringify(payload)}\n`;
}

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => {
    stream.write(text, () => resolve());
  });
}

export function emitSuccess(result: Record<string, unknown>): Promise<void> {
  return write(process.stdout, jsonLine({ ok: true, ...result }));
}

export function emitFailure(code: string, message: string, extra: Record<string, unknown> = {}): Promise<void> {
  return write(process.stderr, jsonLine({ ok: false, error: code, message, ...extra }));
}

/** Node's system errors (ENOENT, EACCES, …) carry a syscall. */
function isSystemError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string';
}

/**
 * Any error as seed A would report it: domain rules keep their code (exit 2); file-system errors
 * are io_error and everything else that escapes the database layer database_error (exit 3).
 */
export function toCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof DomainError) return new CliError(seedCode(error.code), error.message, EXIT.rejected);
  if (isSystemError(error)) return new CliError('io_error', `File operation failed: ${error.message}`, EXIT.failure);
  const message = error instanceof Error ? error.message : String(error);
  return new CliError('database_error', `SQLite operation failed: ${message}`, EXIT.failure);
}
