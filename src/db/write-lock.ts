// Waiting for a SQLite write lock another process holds, without stopping the event loop: better-sqlite3
// is synchronous, so a busy timeout on the writer connection would sleep the whole server. The writer
// gives up at once instead and GroupCommit tries again later, up to SQLITE_BUSY_TIMEOUT_MS in all.
import type { LockWait } from './group-commit.js';

/** What a client is told to wait before trying a write again: the lock's holder is another process, its length unknown. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

/** A write that waited its whole busy timeout for another process's write lock. Nothing of it was written. */
export class DatabaseBusyError extends Error {
  readonly retryAfterSeconds = BUSY_RETRY_AFTER_SECONDS;

  constructor(readonly waitedMs: number) {
    // SQLite's own words, which the command line reports as seed A does ("SQLite operation failed: database is locked").
    super('database is locked');
    this.name = 'DatabaseBusyError';
  }
}

interface MaybeWrapped {
  code?: unknown;
  originalCode?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
}

/**
 * SQLITE_BUSY in any of its extended forms (…_SNAPSHOT, …_RECOVERY, …_TIMEOUT): raw from better-sqlite3,
 * or from a Prisma query, which wraps it twice (meta.driverAdapterError.cause.originalCode).
 */
export function isSqliteBusy(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 4) return false;
  const { code, originalCode, cause, meta } = error as MaybeWrapped;
  if ([code, originalCode].some((value) => typeof value === 'string' && value.startsWith('SQLITE_BUSY'))) return true;
  return isSqliteBusy(cause, depth + 1) || isSqliteBusy(meta?.driverAdapterError, depth + 1);
}

const FIRST_DELAY_MS = 2;
/**
 * The longest pause between two attempts. SQLite's own busy handler sleeps up to 100 ms, but a failed
 * attempt costs little here (BEGIN and one statement, off the event loop), and SQLite has no queue for the
 * lock: a writer polling slowly misses the gaps a long writer leaves (cli/import-pace.ts leaves gaps a
 * little longer than this).
 */
export const LONGEST_LOCK_RETRY_MS = 10;

/**
 * The pause after the `attempt`-th failed attempt in a row: doubling from 2 ms to LONGEST_LOCK_RETRY_MS,
 * each drawn between half and all of that, so processes that wait together do not retry in step.
 */
export function lockRetryDelay(attempt: number): number {
  const ceiling = Math.min(LONGEST_LOCK_RETRY_MS, FIRST_DELAY_MS * 2 ** Math.min(attempt - 1, 16));
  return ceiling * (0.5 + Math.random() / 2);
}

/** How the SQLite writer waits for the lock: each write gives up `busyTimeoutMs` after it was submitted. */
export function sqliteLockWait(busyTimeoutMs: number): LockWait {
  return {
    isBusy: isSqliteBusy,
    totalMs: busyTimeoutMs,
    delayMs: lockRetryDelay,
    gaveUp: (waitedMs) => new DatabaseBusyError(waitedMs),
  };
}
