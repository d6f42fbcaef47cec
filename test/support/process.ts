// Runs the real server (`node --import tsx src/main.ts`) as a child process for e2e tests, and makes
// API keys for it in its database file (the way an administrator would, through the key service).
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openDatabase } from '../../src/db/client.js';
import type { Role } from '../../src/domain/access.js';
import { systemClock } from '../../src/domain/clock.js';
import { createApiKey } from '../../src/services/api-keys.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const MAIN = path.join(ROOT, 'src', 'main.ts');
/** tsx's loader as a file URL, so a child can run TypeScript from any working directory. */
export const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export interface ServerProcess {
  readonly child: ChildProcess;
  /** Every complete stdout line so far, raw. */
  readonly stdout: string[];
  /** Every complete stderr line so far, raw. */
  readonly stderr: string[];
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  readonly exited: Promise<number | string>;
  /** Resolves with the first stdout line (parsed) for which `match` is true; rejects if the process exits first. */
  waitForLog(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Resolves with the first raw stderr line for which `match` is true; rejects if the process exits first. */
  waitForStderr(match: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  /** SIGKILL if still running; resolves once it has exited. */
  kill(): Promise<void>;
}

export interface StartedServer extends ServerProcess {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
}

function lineSplitter(sink: string[], onLine: () => void) {
  let partial = '';
  return (chunk: Buffer) => {
    partial += chunk.toString('utf8');
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line.length > 0) sink.push(line);
    onLine();
  };
}

function parse(line: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Spawns `node --import tsx src/main.ts` with the given environment (added to a minimal one). */
export function spawnServer(env: Record<string, string>, options: { cwd?: string } = {}): ServerProcess {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, MAIN], {
    cwd: options.cwd ?? ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  child.stdout?.on('data', lineSplitter(stdout, notify));
  child.stderr?.on('data', lineSplitter(stderr, notify));
  let hasExited = false;
  const exited = new Promise<number | string>((resolve) => {
    // 'close', not 'exit': it comes after stdout and stderr have been read to the end.
    child.once('close', (code, signal) => {
      hasExited = true;
      notify();
      resolve(code ?? signal ?? 'unknown');
    });
  });

  /** The first line of `sink` that `pick` turns into a value; rejects on exit or after `timeoutMs`. */
  const waitForLine = <T>(sink: string[], pick: (line: string) => T | null, timeoutMs: number): Promise<T> =>
    new Promise((resolve, reject) => {
      let checked = 0;
      const check = () => {
        for (; checked < sink.length; checked++) {
          const value = pick(sink[checked] as string);
          if (value !== null) {
            done();
            resolve(value);
            return;
          }
        }
        if (hasExited) {
          done();
          reject(new Error(`server exited before the expected line.\nstdout:\n${stdout.join('\n')}\nstderr:\n${stderr.join('\n')}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no matching line within ${timeoutMs} ms.\nstdout:\n${stdout.join('\n')}\nstderr:\n${stderr.join('\n')}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      listeners.add(check);
      check();
    });

  return {
    child,
    stdout,
    stderr,
    exited,
    waitForLog(match, timeoutMs = 20_000) {
      return waitForLine(
        stdout,
        (line) => {
          const parsed = parse(line);
          return parsed && match(parsed) ? parsed : null;
        },
        timeoutMs,
      );
    },
    waitForStderr(match, timeoutMs = 20_000) {
      return waitForLine(stderr, (line) => (match(line) ? line : null), timeoutMs);
    },
    async kill() {
      if (!hasExited) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Spawns the server and waits for its "Leasehold is listening" line; returns its base URL. */
export async function startServerProcess(env: Record<string, string>, options: { cwd?: string } = {}): Promise<StartedServer> {
  const server = spawnServer({ PORT: '0', LOG_LEVEL: 'info', ...env }, options);
  try {
    const listening = await server.waitForLog((line) => typeof line.msg === 'string' && line.msg.startsWith('Leasehold is listening'));
    const graphqlUrl = String(listening.url);
    return Object.assign(server, { url: graphqlUrl.replace(/\/graphql$/, '') });
  } catch (error) {
    await server.kill();
    throw error;
  }
}

/** POSTs a GraphQL operation and returns the HTTP status and the parsed body. */
export async function post(
  url: string,
  query: string,
  variables?: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: { data?: Record<string, unknown> | null; errors?: unknown[] } }> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const text = await response.text();
  let body: { data?: Record<string, unknown> | null; errors?: unknown[] };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = { errors: [`non-JSON response: ${text.slice(0, 500)}`] };
  }
  return { status: response.status, body };
}

/** A principal with its own API key, ready to send: `headers` for HTTP, or as graphql-ws connectionParams. */
export interface KeyHolder {
  name: string;
  roles: Role[];
  key: string;
  headers: { authorization: string };
}

const holder = (name: string, roles: Role[], key: string): KeyHolder => ({ name, roles, key, headers: { authorization: `Bearer ${key}` } });

/**
 * Makes one API key per principal in the database file `file` (created and migrated if new), through
 * the real key service, as an administrator would; the history records each as API_KEY_CREATED by
 * "test-setup". Works while servers run on the file: they see a new key on its first use.
 */
export async function createKeys(file: string, principals: readonly { name: string; roles: Role[] }[]): Promise<KeyHolder[]> {
  const db = await openDatabase({ file, synchronous: 'NORMAL' });
  try {
    const made: KeyHolder[] = [];
    // One at a time, so the keys (and their events) are recorded in the order asked for.
    for (const { name, roles } of principals) {
      const { key } = await createApiKey({ db, clock: systemClock }, { name: 'test-setup', authenticated: false }, { name, roles });
      made.push(holder(name, roles, key));
    }
    return made;
  } finally {
    await db.close();
  }
}

/** One API key for `name` with `roles` (default REVIEWER) in the database file `file`; see createKeys. */
export async function createKey(file: string, name: string, roles: Role[] = ['REVIEWER']): Promise<KeyHolder> {
  const [made] = await createKeys(file, [{ name, roles }]);
  return made as KeyHolder;
}

/** The lines of the first-run banner (src/main.ts) carry the new ADMIN key, indented, on a line of its own. */
const BANNER_KEY_LINE = /^\s+(lhk_[A-Za-z0-9_-]{43})\s*$/;

/**
 * Waits for the ADMIN key a server prints on stderr when it starts on a database that has never had
 * a key, and returns it as the principal "admin".
 */
export async function bootstrapAdmin(server: ServerProcess, timeoutMs = 20_000): Promise<KeyHolder> {
  const line = await server.waitForStderr((text) => BANNER_KEY_LINE.test(text), timeoutMs);
  return holder('admin', ['ADMIN'], BANNER_KEY_LINE.exec(line)?.[1] as string);
}
