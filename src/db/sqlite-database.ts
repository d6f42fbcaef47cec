// Opening a SQLite file: the migrations, one writer connection used only through interactive transactions that take
// the write lock first, a read-only connection for everything else, and (for the server) the WAL checkpoints on a
// worker thread. Called by client.ts's openDatabase.
import { PrismaClient } from '../generated/prisma/client.js';
import { assemble } from './assemble.js';
import { BackgroundCheckpointer, INLINE_AUTOCHECKPOINT_PAGES } from './checkpointer.js';
import type { Database, DatabaseOptions } from './database.js';
import { SqliteEventTail } from './event-tail.js';
import { migrateDatabase } from './migrate.js';
import { LockHolds } from './postgres-calls.js';
import { sqliteAdapter } from './sqlite-adapter.js';
import { announceLastEvent, WriterStatements } from './tx-sql.js';
import { sqliteLockWait } from './write-lock.js';

/**
 * A write statement that changes nothing but makes SQLite take the RESERVED lock, as BEGIN IMMEDIATE
 * would. The adapter only issues a deferred BEGIN (and cannot be made to say IMMEDIATE: when its BEGIN
 * fails it never releases its own mutex, so one busy BEGIN would stall every later write). A
 * transaction that reads first and writes later can fail with SQLITE_BUSY_SNAPSHOT when another
 * process commits in between; taking the lock first, before any job runs, means a lock held elsewhere
 * fails the batch before it has done anything, and GroupCommit tries it again.
 */
const TAKE_WRITE_LOCK = 'UPDATE "Category" SET "name" = "name" WHERE 0';

export async function openSqlite(file: string, options: DatabaseOptions): Promise<Database> {
  const busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
  migrateDatabase(file, { busyTimeoutMs });
  const background = options.checkpoints === 'background';

  const statements = new WriterStatements();
  /**
   * The writer's wal_autocheckpoint, set on every connection Prisma opens for it (a reconnect too): 0 while the
   * worker checkpoints, SQLite's default once the worker is lost; null: left as SQLite has it.
   */
  let autocheckpointPages: number | null = background ? 0 : null;
  const writer = new PrismaClient({
    adapter: sqliteAdapter({
      file,
      // Once open, a lock held elsewhere fails at once; GroupCommit waits for it without stopping the event loop.
      busyTimeoutMs,
      busyTimeoutAfterConnectMs: 0,
      readonly: false,
      pragmas: ['PRAGMA foreign_keys = ON', `PRAGMA synchronous = ${options.synchronous ?? 'NORMAL'}`],
      onConnect: (prepare, connection) => {
        statements.attach(prepare, connection);
        if (autocheckpointPages !== null) statements.setAutocheckpoint(autocheckpointPages);
      },
    }),
  });
  const reader = new PrismaClient({
    adapter: sqliteAdapter({ file, busyTimeoutMs, readonly: true, pragmas: ['PRAGMA query_only = ON'] }),
  });
  // Open both connections now, so a broken file fails at start-up rather than on the first request.
  await Promise.all([writer.$connect(), reader.$connect()]);
  const checkpointer = background
    ? new BackgroundCheckpointer(file, {
        onLost: (error) => {
          autocheckpointPages = INLINE_AUTOCHECKPOINT_PAGES;
          statements.setAutocheckpoint(autocheckpointPages);
          options.logger?.warn({ err: error }, 'background WAL checkpoints stopped: the writer checkpoints for itself again');
        },
      })
    : null;

  const maxWait = options.maxWaitMs ?? 15_000;
  let lastDataVersion = statements.dataVersion();
  const lockedListeners = new Set<(lastEventAt: Date | null) => void>();
  const holds = new LockHolds();
  const db = assemble({ dialect: 'sqlite', file }, writer, reader, holds, {
    onWriteLocked(listener) {
      lockedListeners.add(listener);
      return () => lockedListeners.delete(listener);
    },
    runBatch: async (runJobs) => {
      let lockedAt: number | null = null;
      try {
        const outcomes = await writer.$transaction(
          async (tx) => {
            const sql = statements.begin();
            try {
              await sql.run(TAKE_WRITE_LOCK);
              lockedAt = performance.now();
              if (lockedListeners.size > 0) await announceLastEvent(sql, lockedListeners);
              return await runJobs(tx, sql);
            } finally {
              statements.end(sql);
            }
          },
          { maxWait, timeout: maxWait + busyTimeoutMs },
        );
        if (lockedAt !== null) holds.record((performance.now() - lockedAt) / 1000, 'transaction', outcomes.length);
        checkpointer?.wake();
        return outcomes;
      } catch (error) {
        // Nothing of a failed batch stays: the next attempt, or the next batch, starts clean.
        statements.rollBackLeftover();
        throw error;
      }
    },
    openTail: async () => new SqliteEventTail(file, busyTimeoutMs),
    lockWait: sqliteLockWait(busyTimeoutMs),
    // After the writer and reader: the worker's connection, closed last, checkpoints what is left.
    close: async () => checkpointer?.close(),
    onCheckpoint: (listener) => checkpointer?.onCheckpoint(listener) ?? (() => {}),
    othersCommitted: () => {
      const version = statements.dataVersion();
      const changed = version !== null && lastDataVersion !== null && version !== lastDataVersion;
      lastDataVersion = version;
      return changed;
    },
  });
  // test/db/checkpoints.test.ts ends the worker as a crash would, and has Prisma open the writer's connection
  // again; nothing else reaches them.
  if (checkpointer) Object.defineProperty(db, 'internalsForTests', { value: { checkpointer, writer } });
  return db;
}
