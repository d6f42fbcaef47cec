// The only module that opens Prisma clients, for SQLite or PostgreSQL. One writer connection,
// used solely through interactive transactions that take the database's write lock first; read-only
// connections for everything else, which can only ever see committed data.

import type pg from 'pg';
import type { DatabaseLocation, WriteMode } from '../config/database-location.js';
import type { Clock } from '../domain/clock.js';
import { type Prisma, PrismaClient } from '../generated/prisma/client.js';
import { BackgroundCheckpointer, type CheckpointResult, INLINE_AUTOCHECKPOINT_PAGES } from './checkpointer.js';
import { type EventTail, SqliteEventTail } from './event-tail.js';
import { type BatchRunner, type CallRunner, GroupCommit, type LockWait } from './group-commit.js';
import { migrateDatabase } from './migrate.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, migratePostgres } from './migrate-postgres.js';
import { type LockHoldForm, LockHolds, postgresCalls, type StampableCall } from './postgres-calls.js';
import { PostgresEventTail } from './postgres-tail.js';
import { DEADLOCK_DETECTED } from './sharded.js';
import { sqliteAdapter } from './sqlite-adapter.js';
import {
  announceLastEvent,
  numberPlaceholders,
  PostgresTxSql,
  type SqlValue,
  sqliteValue,
  type TxSql,
  WriterStatements,
} from './tx-sql.js';
import { DatabaseUnavailableError, isConnectionFailure, postgresUnavailableWait } from './unavailable.js';
import { type CallAnswer, type WriteCall, WriteCallError } from './write-calls.js';
import { sqliteLockWait } from './write-lock.js';

export type {
  ApiKey,
  Category,
  Event,
  ExecutionAttempt,
  Item,
  Proposal,
  ProposalApproval,
  TargetState,
  WebhookDelivery,
} from '../generated/prisma/client.js';
export type {
  EventType,
  ItemStatus,
  ProposalState as ProposalStateColumn,
  RiskLevel as RiskLevelColumn,
  WebhookDeliveryStatus,
} from '../generated/prisma/enums.js';
export type { TxSql } from './tx-sql.js';

/** The client a write transaction gets. Never escapes the transaction callback. */
export type WriteTx = Prisma.TransactionClient;
/** Read-only access; it cannot write (SQLite opens the file read-only; PostgreSQL sessions are read-only). */
export type Reader = Omit<PrismaClient, '$transaction' | '$connect' | '$disconnect' | '$extends'>;

export type { DatabaseLocation } from '../config/database-location.js';

export type Dialect = DatabaseLocation['dialect'];

/**
 * A write with two forms: TypeScript statements in the interactive write transaction (SQLite's path,
 * and the specification), and one call of the database's `leasehold_write` function (PostgreSQL's:
 * see write-calls.ts), which runs under the write lock without a round trip to the instance between
 * its statements. Both must give the same result, write the same rows and refuse alike.
 */
export interface WriteOperation<T> {
  work: (tx: WriteTx, sql: TxSql) => Promise<T>;
  call: {
    fields: WriteCall;
    /** The clock the operation is stamped by, read as the batch is sent. */
    clock: Clock;
    /** What the call's answer means (may throw the refusal the TypeScript form throws). */
    answer: (answer: CallAnswer) => T;
  };
}

export type { LockHoldForm } from './postgres-calls.js';

export interface DatabaseOptions {
  /** A SQLite file (kept for callers that only ever use SQLite). */
  file?: string;
  /** A SQLite file or a PostgreSQL URL; wins over `file`. */
  location?: DatabaseLocation;
  /**
   * SQLite: the longest a write waits for another process's write lock, in all (default 10 s). The
   * writer does not sleep on the lock: it retries off the event loop (see write-lock.ts); a write that
   * runs out of time fails with DatabaseBusyError.
   */
  busyTimeoutMs?: number;
  /**
   * PostgreSQL: the longest a write waits, in all, for a server that cannot be reached (restarting) to
   * come back (default UNAVAILABLE_WAIT_MS); then it fails with DatabaseUnavailableError. See unavailable.ts.
   */
  unavailableWaitMs?: number;
  synchronous?: 'NORMAL' | 'FULL';
  /** Longest an interactive transaction may wait for this process's writer connection. */
  maxWaitMs?: number;
  /** PostgreSQL: reader connections in this process's pool. */
  poolSize?: number;
  /** PostgreSQL: the longest one connection attempt may take (default DEFAULT_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
  /** PostgreSQL: PG_WRITE_MODE (default `serialized`). */
  writeMode?: WriteMode;
  /**
   * SQLite: who copies the WAL into the database file. `inline` (the default, SQLite's own): the writer, inside the
   * commit that takes the WAL past 1,000 pages. `background` (the server): a worker thread, so the event loop never
   * waits for it (checkpointer.ts).
   */
  checkpoints?: 'inline' | 'background';
  /** Told when the background checkpoints stop and the writer checkpoints for itself again. */
  logger?: { warn(details: object, message: string): void };
}

export interface Database {
  readonly dialect: Dialect;
  readonly location: DatabaseLocation;
  /**
   * PG_WRITE_MODE (`serialized` on SQLite). In `sharded` mode event ids commit out of order: a read that
   * hands out a cursor over the history stops at the feed's horizon first (settledEventId).
   */
  readonly writeMode: WriteMode;
  /**
   * Runs `work` atomically inside an interactive transaction that holds the database's write lock
   * from its first statement, and resolves once that transaction has committed. Concurrent calls
   * share one transaction (group commit), each in its own savepoint: a `work` that throws is rolled
   * back alone. `sql` runs direct statements on the same transaction (see tx-sql.ts).
   */
  write<T>(work: (tx: WriteTx, sql: TxSql) => Promise<T>): Promise<T>;
  /** Runs an operation in its backend's form (see WriteOperation), in the same group-commit queue as `write`. */
  perform<T>(operation: WriteOperation<T>): Promise<T>;
  /**
   * Called after each write transaction this process ran with how long it held the write lock, in
   * seconds: from the moment it had the lock until its COMMIT was answered (so the answer's trip back
   * is counted too), and the number of writes it held it for.
   */
  onLockHeld(listener: (seconds: number, form: LockHoldForm, writes: number) => void): () => void;
  readonly read: Reader;
  /**
   * A read-only SQL query on the reader connections, written once for both backends: `?`
   * placeholders, Date values for times (see tx-sql.ts). Rows come back as each backend returns them.
   */
  query<Row>(sql: string, ...params: SqlValue[]): Promise<Row[]>;
  /** Registers a callback run after each commit made by this process (e.g. to wake the event feed). */
  onCommit(listener: () => void): () => void;
  /** A connection of its own that follows the history (see event-tail.ts). */
  openTail(): Promise<EventTail>;
  /**
   * PostgreSQL: called at the start of every write transaction, once it holds the write lock, with the
   * time of the last event committed by any instance, so this instance's clock never stamps a change
   * earlier than one already recorded (instances' clocks agree only to within a few milliseconds).
   */
  onWriteLocked(listener: (lastEventAt: Date | null) => void): () => void;
  /**
   * SQLite: true when another process has committed a write since the last call (PRAGMA data_version on
   * the writer connection), so a long series of writes can leave it turns at the write lock (see
   * cli/import-pace.ts). PostgreSQL: always false; writers there queue on the advisory lock in order.
   */
  othersCommitted(): boolean;
  /**
   * SQLite with `checkpoints: 'background'`: calls `listener` with the result of each checkpoint the worker ran
   * (see checkpointer.ts); returns its removal. Otherwise never calls it.
   */
  onCheckpoint(listener: (result: CheckpointResult) => void): () => void;
  close(): Promise<void>;
}

/**
 * A write statement that changes nothing but makes SQLite take the RESERVED lock, as BEGIN IMMEDIATE
 * would. The adapter only issues a deferred BEGIN (and cannot be made to say IMMEDIATE: when its BEGIN
 * fails it never releases its own mutex, so one busy BEGIN would stall every later write). A
 * transaction that reads first and writes later can fail with SQLITE_BUSY_SNAPSHOT when another
 * process commits in between; taking the lock first, before any job runs, means a lock held elsewhere
 * fails the batch before it has done anything, and GroupCommit tries it again.
 */
const TAKE_WRITE_LOCK = 'UPDATE "Category" SET "name" = "name" WHERE 0';

/**
 * PostgreSQL: every write transaction, in every instance, first takes this transaction-scoped
 * advisory lock, so writers follow one another as on SQLite. That keeps every read-then-write
 * fence exact, and it makes event ids (taken from a sequence at INSERT) increase in commit order:
 * a tail that has read up to id n can never later see a smaller id commit (decision 0008).
 */
export const POSTGRES_WRITE_LOCK = 'SELECT pg_advisory_xact_lock(7415620002)';

/**
 * PG_WRITE_MODE=sharded: a write transaction's marker, taken before its first event id, which keeps the
 * feed from delivering past an id still in flight (leasehold_feed_horizon, decision 0009). Interactive
 * transactions still take the global lock as well: only the review writes (calls) run without it.
 */
export const POSTGRES_WRITE_MARKER = 'SELECT pg_advisory_xact_lock_shared(741562, leasehold_allocated_event_id())';

/** How often a call that lost a deadlock (PG_WRITE_MODE=sharded) is sent, in all. */
const MAX_CALL_ATTEMPTS = 5;

/** Longest a PostgreSQL write transaction may sit idle (waiting on its process) before the server ends it. */
export const IDLE_WRITER_TIMEOUT_MS = 30_000;

/** Creates and migrates the database if needed, then opens the writer and reader clients. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const location: DatabaseLocation =
    options.location ?? (options.file !== undefined ? { dialect: 'sqlite', file: options.file } : { dialect: 'sqlite', file: '' });
  if (location.dialect === 'postgresql') return openPostgres(location, options);
  if (location.file === '') throw new Error('openDatabase needs a SQLite file or a PostgreSQL URL.');
  return openSqlite(location.file, options);
}

async function openSqlite(file: string, options: DatabaseOptions): Promise<Database> {
  const busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
  migrateDatabase(file, { busyTimeoutMs });
  const background = options.checkpoints === 'background';

  const statements = new WriterStatements();
  const writer = new PrismaClient({
    adapter: sqliteAdapter({
      file,
      // Once open, a lock held elsewhere fails at once; GroupCommit waits for it without stopping the event loop.
      busyTimeoutMs,
      busyTimeoutAfterConnectMs: 0,
      readonly: false,
      pragmas: [
        'PRAGMA foreign_keys = ON',
        `PRAGMA synchronous = ${options.synchronous ?? 'NORMAL'}`,
        ...(background ? ['PRAGMA wal_autocheckpoint = 0'] : []),
      ],
      onConnect: (prepare, connection) => statements.attach(prepare, connection),
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
          statements.setAutocheckpoint(INLINE_AUTOCHECKPOINT_PAGES);
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
  // test/db/checkpoints.test.ts ends the worker as a crash would; nothing else reaches it.
  if (checkpointer) Object.defineProperty(db, 'checkpointerForTests', { value: checkpointer });
  return db;
}

async function openPostgres(location: { dialect: 'postgresql'; url: string }, options: DatabaseOptions): Promise<Database> {
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  await migratePostgres(location.url, { connectTimeoutMs });
  // Loaded only for PostgreSQL, so a SQLite-only process never loads the second generated client.
  const [{ PrismaClient: PostgresClient }, { PrismaPg }, { default: pg }] = await Promise.all([
    import('../generated/prisma-pg/client.js'),
    import('@prisma/adapter-pg'),
    import('pg'),
  ]);
  // Both generated clients expose the same model API (one data model); the SQLite client's types
  // stand for both.
  const client = (settings: pg.Pool | pg.PoolConfig) => new PostgresClient({ adapter: new PrismaPg(settings) }) as unknown as PrismaClient;
  // The writer is one connection, in a pool of our own so direct statements can reach it: whichever
  // connection the pool last handed out is the one Prisma's transaction holds.
  const writerPool = new pg.Pool({
    connectionString: location.url,
    max: 1,
    application_name: 'leasehold-writer',
    connectionTimeoutMillis: connectTimeoutMs,
    // Every instance waits for the write lock a transaction holds: one whose process hangs (stopped,
    // partitioned) must not hold it for ever. PostgreSQL ends such a session, releasing the lock.
    options: `-c idle_in_transaction_session_timeout=${IDLE_WRITER_TIMEOUT_MS}`,
  });
  let writerConnection: pg.PoolClient | null = null;
  writerPool.on('acquire', (connection) => {
    writerConnection = connection;
  });
  // An idle connection the server ended (restart, timeout) is replaced on the next transaction.
  writerPool.on('error', () => {});
  const writer = client(writerPool);
  const reader = client({
    connectionString: location.url,
    max: options.poolSize ?? 10,
    application_name: 'leasehold-reader',
    connectionTimeoutMillis: connectTimeoutMs,
    // The readers can only ever read, as SQLite's reader connection is opened read-only.
    options: '-c default_transaction_read_only=on',
  });
  await Promise.all([writer.$connect(), reader.$connect()]);

  const maxWait = options.maxWaitMs ?? 15_000;
  const sharded = options.writeMode === 'sharded';
  const lockedListeners = new Set<(lastEventAt: Date | null) => void>();
  const holds = new LockHolds();
  return assemble(location, writer, reader, holds, {
    onWriteLocked(listener) {
      lockedListeners.add(listener);
      return () => lockedListeners.delete(listener);
    },
    runBatch: async (runJobs) => {
      /** Every job has run: what fails from here on fails in COMMIT. */
      let committing = false;
      let lockedAt: number | null = null;
      try {
        const outcomes = await writer.$transaction(
          async (tx) => {
            if (!writerConnection) throw new Error('The writer connection is not open.');
            const sql = new PostgresTxSql(writerConnection);
            try {
              await sql.run(POSTGRES_WRITE_LOCK);
              if (sharded) await sql.run(POSTGRES_WRITE_MARKER);
              lockedAt = performance.now();
              if (lockedListeners.size > 0) await announceLastEvent(sql, lockedListeners);
              const outcomes = await runJobs(tx, sql);
              committing = true;
              return outcomes;
            } finally {
              sql.revoke();
            }
          },
          { maxWait, timeout: maxWait + (options.busyTimeoutMs ?? 10_000) },
        );
        if (lockedAt !== null) holds.record((performance.now() - lockedAt) / 1000, 'transaction', outcomes.length);
        return outcomes;
      } catch (error) {
        // The connection lost during COMMIT: the server may have committed first. Before it, the
        // server rolled the transaction back, and GroupCommit tries the batch again (see unavailable.ts).
        if (committing && isConnectionFailure(error)) throw new DatabaseUnavailableError('unknown', 0, { cause: error });
        throw error;
      }
    },
    runCalls: postgresCalls(writerPool, lockedListeners, holds, sharded),
    openTail: () => PostgresEventTail.open(location.url, connectTimeoutMs, { sharded }),
    writeMode: sharded ? 'sharded' : 'serialized',
    close: () => writerPool.end(),
    lockWait: postgresUnavailableWait(options.unavailableWaitMs),
  });
}

function assemble(
  location: DatabaseLocation,
  writer: PrismaClient,
  reader: PrismaClient,
  holds: LockHolds,
  backend: {
    runBatch: BatchRunner<WriteTx>;
    runCalls?: CallRunner;
    openTail: () => Promise<EventTail>;
    writeMode?: WriteMode;
    close?: () => Promise<void>;
    onWriteLocked?: Database['onWriteLocked'];
    lockWait?: LockWait;
    othersCommitted?: () => boolean;
    onCheckpoint?: Database['onCheckpoint'];
  },
): Database {
  const commitListeners = new Set<() => void>();
  const commits = new GroupCommit<WriteTx>(
    backend.runBatch,
    64,
    () => {
      for (const listener of commitListeners) listener();
    },
    backend.lockWait,
    backend.runCalls ?? null,
  );
  const runCalls = backend.runCalls !== undefined;
  return {
    dialect: location.dialect,
    location,
    writeMode: backend.writeMode ?? 'serialized',
    read: reader,
    query: (sql, ...params) =>
      location.dialect === 'postgresql'
        ? reader.$queryRawUnsafe(numberPlaceholders(sql), ...params)
        : reader.$queryRawUnsafe(sql, ...params.map(sqliteValue)),
    write: (work) => commits.submit(work),
    perform: async (operation) => {
      if (!runCalls) return commits.submit(operation.work);
      const { fields, clock, answer } = operation.call;
      // Its time is read as its batch is sent (stampCall), as late as the instance can.
      const call: StampableCall = { fields, clock };
      for (let attempt = 1; ; attempt++) {
        try {
          return answer((await commits.submitCall(call)) as CallAnswer);
        } catch (error) {
          // PG_WRITE_MODE=sharded: batches on different instances lock rows in different orders, and
          // PostgreSQL breaks a deadlock by failing one operation (its subtransaction: nothing of it was
          // written). Sent again in a later batch, after the other has committed, it goes through.
          if (attempt < MAX_CALL_ATTEMPTS && error instanceof WriteCallError && error.code === DEADLOCK_DETECTED) continue;
          throw error;
        }
      }
    },
    onLockHeld: (listener) => holds.listen(listener),
    onCommit(listener) {
      commitListeners.add(listener);
      return () => commitListeners.delete(listener);
    },
    openTail: backend.openTail,
    // SQLite processes on one machine read one clock: nothing to align.
    onWriteLocked: backend.onWriteLocked ?? (() => () => {}),
    othersCommitted: backend.othersCommitted ?? (() => false),
    onCheckpoint: backend.onCheckpoint ?? (() => () => {}),
    async close() {
      await Promise.all([writer.$disconnect(), reader.$disconnect()]);
      await backend.close?.();
    },
  };
}
