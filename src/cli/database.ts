// Opening the database file the way seed A does — an existing file for every command, a new one for
// init — but through openDatabase, so the command line writes exactly what the server writes.
import { randomBytes } from 'node:crypto';
import { linkSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DatabaseLocation } from '../config/database-location.js';
import type { Database } from '../db/client.js';
import { type DatabaseClock, databaseClock, flooredClock, SQLITE_MAX_LIFT_MS } from '../db/database-clock.js';
import { isLeaseholdDatabase, MigrationError } from '../db/migrate.js';
import { systemClock } from '../domain/clock.js';
import { DomainError } from '../domain/errors.js';
import type { Actor, ServiceDeps } from '../services/context.js';
import { CliError, EXIT } from './output.js';

/** Seed A waits 5 s for another process's write lock; SQLITE_BUSY_TIMEOUT_MS overrides it, as for the server. */
function busyTimeoutMs(): number {
  const value = Number(process.env.SQLITE_BUSY_TIMEOUT_MS);
  return Number.isInteger(value) && value >= 0 ? value : 5_000;
}

function synchronous(): 'NORMAL' | 'FULL' {
  return process.env.SQLITE_SYNCHRONOUS === 'FULL' ? 'FULL' : 'NORMAL';
}

/** Who the history records for changes made from the command line (a claim records its --reviewer). */
export function cliActor(): Actor {
  const given = process.env.LEASEHOLD_ACTOR;
  if (given) return { name: given, authenticated: false };
  try {
    return { name: `cli:${os.userInfo().username}`, authenticated: false };
  } catch {
    return { name: 'cli', authenticated: false };
  }
}

// pathlib's is_file()/exists() treat these as "no such file" and raise on anything else (EACCES …).
const ABSENT = new Set(['ENOENT', 'ENOTDIR', 'EBADF', 'ELOOP']);

function statOrNull(file: string) {
  try {
    return statSync(file);
  } catch (error) {
    if (ABSENT.has((error as NodeJS.ErrnoException).code ?? '')) return null;
    throw error;
  }
}

export function pathExists(file: string): boolean {
  return statOrNull(file) !== null;
}

/** The service dependencies on an open database, and how to close it. */
export interface OpenDatabase extends ServiceDeps {
  db: Database;
  close(): Promise<void>;
}

/**
 * How a command reaches the database: `lite` is better-sqlite3 alone (db/lite.ts), for commands whose
 * services only use direct statements and `db.query` — seed A's seven, which then start without loading
 * Prisma's client or its WebAssembly query compiler; `full` is the server's Prisma client (import).
 */
export type Engine = 'lite' | 'full';

async function open(file: string, engine: Engine): Promise<OpenDatabase> {
  const options = { file, busyTimeoutMs: busyTimeoutMs(), synchronous: synchronous() };
  // Loaded here, not at start-up: the database layer is the largest part of a command's start-up time.
  const db =
    engine === 'lite'
      ? (await import('../db/lite.js')).openLiteDatabase(options)
      : // A bulk write (import): its WAL checkpoints run on a worker thread, beside the inserts (checkpointer.ts).
        await (await import('../db/client.js')).openDatabase({ ...options, checkpoints: 'background' });
  // Never stamping a change before one a server (or another command) already recorded on this file.
  return { db, clock: flooredClock(db, systemClock, { maxLiftMs: SQLITE_MAX_LIFT_MS }), close: () => db.close() };
}

/**
 * Checks `file` is an existing Leasehold database (seed A: database_not_found, unsupported_schema),
 * without creating or changing anything, so the checks after it can run in seed A's order.
 */
export function checkExisting(file: string): void {
  if (!statOrNull(file)?.isFile()) throw new CliError('database_not_found', `No database file at ${file}.`);
  if (!isLeaseholdDatabase(file, { busyTimeoutMs: busyTimeoutMs() })) {
    throw new CliError('unsupported_schema', `${file} is not a Leasehold database (seed A's own files are not either).`);
  }
}

/** Opens an existing Leasehold database; pending migrations are applied as the server would. */
export async function openExisting(file: string, engine: Engine = 'full'): Promise<OpenDatabase> {
  checkExisting(file);
  try {
    return await open(file, engine);
  } catch (error) {
    if (error instanceof MigrationError) throw new CliError('unsupported_schema', error.message);
    throw error;
  }
}

export async function openPostgres(location: DatabaseLocation): Promise<OpenDatabase> {
  const { openDatabase } = await import('../db/client.js');
  try {
    const db = await openDatabase({ location });
    // The database server's clock, as every server instance on it follows (db/database-clock.ts): a command
    // run on a machine whose clock is off stamps its changes as the instances would, not hours away. Its
    // warning about a far-off machine clock is not printed (a command's output is its JSON lines).
    const { createLogger } = await import('../logger.js');
    let clock: DatabaseClock;
    try {
      clock = await databaseClock(db, createLogger('silent'));
    } catch (error) {
      await db.close();
      throw error;
    }
    return {
      db,
      clock,
      close: () => {
        clock.stop();
        return db.close();
      },
    };
  } catch (error) {
    if (error instanceof MigrationError) throw new CliError('unsupported_schema', error.message);
    const { describeDatabase } = await import('../config/database-location.js');
    // The driver's message, never the URL's password.
    const reason = error instanceof Error ? error.message : String(error);
    throw new CliError('database_error', `Could not open ${describeDatabase(location)}: ${reason}`, EXIT.failure);
  }
}

/** `db` as a PostgreSQL location when it is a postgresql:// URL (import and stats take one in place of a file), else null. */
export async function postgresLocation(db: string): Promise<DatabaseLocation | null> {
  if (!/^postgres(ql)?:\/\//i.test(db)) return null;
  const { databaseLocation } = await import('../config/database-location.js');
  return databaseLocation(db);
}

/** How a command names its database in its output: the file, or the URL without its password. */
export async function shownDatabase(location: DatabaseLocation): Promise<string> {
  const { describeDatabase } = await import('../config/database-location.js');
  return describeDatabase(location);
}

/**
 * Runs `work` on the existing Leasehold database at `file` (or at a PostgreSQL location, migrated as
 * the server would) and closes it afterwards.
 */
export async function withDatabase<T>(
  file: string | DatabaseLocation,
  work: (deps: OpenDatabase) => Promise<T>,
  engine: Engine = 'full',
): Promise<T> {
  const deps =
    typeof file === 'string'
      ? await openExisting(file, engine)
      : file.dialect === 'sqlite'
        ? await openExisting(file.file, engine)
        : await openPostgres(file);
  try {
    return await work(deps);
  } finally {
    await deps.close();
  }
}

/**
 * Creates a new database at `file` with `setUp` run on it, all or nothing: it is built under a
 * temporary name in the same directory and linked into place only when complete, and linking
 * fails if something appeared at `file` meanwhile. Seed A refuses an existing file the same way.
 */
export async function createNew(file: string, setUp: (deps: OpenDatabase) => Promise<void>): Promise<void> {
  if (pathExists(file)) throw new CliError('database_exists', `${file} already exists: init only creates a new database.`);
  const directory = path.dirname(file);
  if (!statOrNull(directory)?.isDirectory()) {
    throw new CliError(
      'database_error',
      `SQLite operation failed: unable to open database file (no directory ${directory}).`,
      EXIT.failure,
    );
  }
  const temporary = path.join(directory, `.${path.basename(file)}.${process.pid}-${randomBytes(4).toString('hex')}.init`);
  const cleanUp = () => {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${temporary}${suffix}`, { force: true });
  };
  try {
    // Only seed A's init creates a database, and its categories are written without Prisma.
    const deps = await open(temporary, 'lite');
    try {
      await setUp(deps);
    } finally {
      await deps.close();
    }
    // Closing the last connection checkpointed the WAL into the file and removed it.
    if (pathExists(`${temporary}-wal`)) throw new Error(`the new database's write-ahead log was not checkpointed (${temporary}-wal).`);
    try {
      linkSync(temporary, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new CliError('database_exists', `${file} already exists: init only creates a new database.`);
      }
      throw error;
    }
  } catch (error) {
    if (error instanceof CliError || error instanceof DomainError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError('database_error', `SQLite operation failed: ${message}`, EXIT.failure);
  } finally {
    cleanUp();
  }
}
