// Runs the real server (`node --import tsx src/main.ts`) as a child process for e2e tests, and makes
// API keys for it in its database (the way an administrator would, through the key service), on
// either backend: a SQLite file, or a PostgreSQL database that several processes share.
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { DatabaseLocation } from '../../src/config/database-location.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import type { Role } from '../../src/domain/access.js';
import { systemClock } from '../../src/domain/clock.js';
import { createApiKey } from '../../src/services/api-keys.js';
import { WRITE_MODE, WRITE_MODE_ENV } from './database.js';
import type { AdvancedMessage, AdvanceMessage, StopMessage } from './fake-clock-server.js';

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
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...WRITE_MODE_ENV, ...env },
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

/**
 * A database for a child process or a helper here: a SQLite file path, a location, or anything that
 * has one (a TestDatabase from support/database.ts).
 */
export type DatabaseRef = string | DatabaseLocation | { location: DatabaseLocation };

export function locationOf(database: DatabaseRef): DatabaseLocation {
  if (typeof database === 'string') return { dialect: 'sqlite', file: database };
  return 'location' in database ? database.location : database;
}

/** DATABASE_URL for a server process on `database`. */
export function databaseUrlOf(database: DatabaseRef): string {
  const location = locationOf(database);
  return location.dialect === 'sqlite' ? `file:${location.file}` : location.url;
}

/** Opens `database` in this process (migrating it if new), runs `work`, and closes it again. */
export async function withDatabase<T>(database: DatabaseRef, work: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase({ location: locationOf(database), synchronous: 'NORMAL', writeMode: WRITE_MODE });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/**
 * Spawns the server and waits for its "Leasehold is listening" line; returns its base URL. With
 * `database`, the server runs on it (DATABASE_URL), whichever backend it is on.
 */
export async function startServerProcess(
  env: Record<string, string>,
  options: { cwd?: string; database?: DatabaseRef } = {},
): Promise<StartedServer> {
  const database: Record<string, string> = options.database === undefined ? {} : { DATABASE_URL: databaseUrlOf(options.database) };
  const server = spawnServer({ PORT: '0', LOG_LEVEL: 'info', ...database, ...env }, options);
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
 * Makes one API key per principal in `database` (a SQLite file is created and migrated if new), through
 * the real key service, as an administrator would; the history records each as API_KEY_CREATED by
 * "test-setup". Works on either backend (the `leasehold keys` command line works on SQLite files only),
 * and while servers run on the database: they see a new key on its first use.
 */
export async function createKeys(database: DatabaseRef, principals: readonly { name: string; roles: Role[] }[]): Promise<KeyHolder[]> {
  return withDatabase(database, async (db) => {
    const made: KeyHolder[] = [];
    // One at a time, so the keys (and their events) are recorded in the order asked for.
    for (const { name, roles } of principals) {
      const { key } = await createApiKey(
        { db, clock: systemClock },
        { name: 'test-setup', authenticated: false },
        // Tests may give a principal a second key (other roles, or after a revocation): the same principal.
        { name, roles, samePrincipal: true },
      );
      made.push(holder(name, roles, key));
    }
    return made;
  });
}

/** One API key for `name` with `roles` (default REVIEWER) in `database`; see createKeys. */
export async function createKey(database: DatabaseRef, name: string, roles: Role[] = ['REVIEWER']): Promise<KeyHolder> {
  const [made] = await createKeys(database, [{ name, roles }]);
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

export const FAKE_CLOCK_SERVER = path.join(ROOT, 'test', 'support', 'fake-clock-server.ts');
/** Where the fake-clock servers' clocks start unless told otherwise: 09:00 UTC on 30 November 2026. */
export const CLOCK_START = Date.UTC(2026, 10, 30, 9, 0, 0);

/** A real app on a manual clock in a process of its own (test/support/fake-clock-server.ts). */
export interface FakeClockServer {
  url: string;
  child: ChildProcess;
  /** Every complete stderr line so far (its log, at LOG_LEVEL, default warn). */
  stderr: string[];
  /** Moves this server's clock and resolves once it has recorded whatever lapsed. */
  advance(ms: number): Promise<AdvancedMessage>;
  /** A graceful stop (SIGKILL after 5 s). */
  stop(): Promise<void>;
  /** SIGKILL; resolves once it has exited. */
  kill(): Promise<void>;
}

/**
 * Starts a fake-clock server on `database` (either backend), with its clock at `clockStart`. Several on
 * one database, moved together, stand for instances that share one clock.
 */
export async function startFakeClockServer(
  database: DatabaseRef,
  options: { clockStart?: number; env?: Record<string, string> } = {},
): Promise<FakeClockServer> {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, FAKE_CLOCK_SERVER], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATABASE_URL: databaseUrlOf(database),
      CLOCK_START: String(options.clockStart ?? CLOCK_START),
      ...WRITE_MODE_ENV,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`fake-clock server did not start: ${stderr.join('\n')}`)), 30_000);
    child.stdout?.on(
      'data',
      lineSplitter(stdout, () => {
        const listening = stdout.map((line) => parse(line)).find((line) => typeof line?.url === 'string');
        if (listening) {
          clearTimeout(timer);
          resolve(String(listening.url));
        }
      }),
    );
    child.stderr?.on(
      'data',
      lineSplitter(stderr, () => undefined),
    );
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`fake-clock server exited (${code ?? signal}): ${stderr.join('\n')}`));
    });
  });
  let nextId = 0;
  return {
    url,
    child,
    stderr,
    advance(ms) {
      const id = ++nextId;
      return new Promise((resolve, reject) => {
        const onMessage = (message: AdvancedMessage) => {
          if (message.type !== 'advanced' || message.id !== id) return;
          child.off('message', onMessage);
          child.off('exit', onExit);
          resolve(message);
        };
        const onExit = () => {
          child.off('message', onMessage);
          reject(new Error(`fake-clock server exited while moving its clock: ${stderr.join('\n')}`));
        };
        child.on('message', onMessage);
        child.once('exit', onExit);
        child.send({ type: 'advance', id, ms } satisfies AdvanceMessage);
      });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null && child.connected) child.send({ type: 'stop' } satisfies StopMessage);
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
