// PostgreSQL going away under a running instance (a restart, a failover, a network cut): which errors
// mean "the server could not be reached or dropped the connection", and what a write that meets one
// becomes. Reads fail at once with DATABASE_UNAVAILABLE (src/graphql/errors.ts); a write whose
// transaction never reached COMMIT is tried again for a while, off the event loop, as a SQLite write
// waits for another process's lock (see group-commit.ts), and answers DATABASE_UNAVAILABLE if the
// server is still away.
import type { LockWait } from './group-commit.js';

/** What a client is told to wait before trying again: a restart takes a few seconds. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

/** How long, in all, a write waits for the database server to come back before it is refused. */
export const UNAVAILABLE_WAIT_MS = 2_000;

/**
 * Whether the refused write may have been committed: `not-written` when its transaction never reached
 * COMMIT (the server rolled it back), `unknown` when the connection was lost during COMMIT itself.
 */
export type WriteOutcome = 'not-written' | 'unknown';

/** A write refused because the database server could not be reached, or a read that failed for that reason. */
export class DatabaseUnavailableError extends Error {
  readonly retryAfterSeconds = UNAVAILABLE_RETRY_AFTER_SECONDS;

  constructor(
    readonly outcome: WriteOutcome,
    readonly waitedMs: number,
    options?: { cause?: unknown },
  ) {
    super(outcome === 'unknown' ? 'the database connection was lost during COMMIT' : 'the database server cannot be reached', options);
    this.name = 'DatabaseUnavailableError';
  }
}

/** PostgreSQL: the server is shutting down, starting up or in recovery, or the connection failed (class 08). */
const UNAVAILABLE_SQLSTATE = /^(57P0[123]|08...)$/;
/** Prisma's own codes for an unreachable server, a connection timeout and a closed connection. */
const PRISMA_UNAVAILABLE = new Set(['P1001', 'P1002', 'P1017']);
/** Node's socket errors, raw from pg. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH']);
/** Prisma's driver adapter kinds for the same. */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout']);
/** pg's own errors for a connection that ended under it (they carry no code). */
const PG_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|Server has closed the connection|timeout exceeded when trying to connect)/;

interface MaybeWrapped {
  code?: unknown;
  originalCode?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
}

/**
 * True for an error meaning the database server could not be reached or dropped the connection: raw
 * from pg, from the driver adapter, or from a Prisma query (which wraps it in meta.driverAdapterError).
 */
export function isConnectionFailure(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  if (error instanceof DatabaseUnavailableError) return true;
  const { code, originalCode, kind, message, cause, meta } = error as MaybeWrapped;
  if (typeof code === 'string' && (PRISMA_UNAVAILABLE.has(code) || SOCKET_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
  if (typeof originalCode === 'string' && UNAVAILABLE_SQLSTATE.test(originalCode)) return true;
  if (typeof kind === 'string' && ADAPTER_KINDS.has(kind)) return true;
  if (typeof message === 'string' && PG_MESSAGES.test(message)) return true;
  // Prisma reports some of them only in its message ("Raw query failed. Code: `N/A`. Message: `Server has closed the connection.`").
  if (typeof message === 'string' && /Message: `(Server has closed the connection|Can't reach database server)/.test(message)) return true;
  return isConnectionFailure(cause, depth + 1) || isConnectionFailure(meta?.driverAdapterError, depth + 1);
}

/** The reason alone, for a log line: Prisma's message quotes the calling source first and its cause last. */
export function failureReason(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).trim().split('\n').pop()?.slice(0, 200) ?? '';
}

/**
 * The pause after the `attempt`-th failed attempt in a row: doubling from 10 ms to 250 ms (connecting to
 * a server that is down fails at once, so the attempts cost little), each drawn between half and all of
 * that, so instances do not come back in step.
 */
export function unavailableRetryDelay(attempt: number): number {
  return Math.min(250, 10 * 2 ** Math.min(attempt - 1, 8)) * (0.5 + Math.random() / 2);
}

/**
 * How a PostgreSQL write waits for the server to come back: a batch whose transaction failed with a
 * connection failure before COMMIT wrote nothing, so it is tried again, for `totalMs` from each job's
 * submission; then the job is refused with DatabaseUnavailableError.
 */
export function postgresUnavailableWait(totalMs = UNAVAILABLE_WAIT_MS): LockWait {
  return {
    // A COMMIT whose outcome is unknown is never run again: it could then be written twice.
    isBusy: (error) => !(error instanceof DatabaseUnavailableError && error.outcome === 'unknown') && isConnectionFailure(error),
    totalMs,
    delayMs: unavailableRetryDelay,
    gaveUp: (waitedMs) => new DatabaseUnavailableError('not-written', waitedMs),
  };
}
