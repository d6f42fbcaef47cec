// What a database is to the rest of Leasehold, whichever backend holds it: the options it opens with and the
// interface the services use. client.ts opens one (and re-exports these).
import type { DatabaseLocation, WriteMode } from '../config/database-location.js';
import type { Clock } from '../domain/clock.js';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import type { CheckpointResult } from './checkpointer.js';
import type { EventTail } from './event-tail.js';
import type { LockHoldForm } from './postgres-calls.js';
import type { SqlValue, TxSql } from './tx-sql.js';
import type { CallAnswer, WriteCall } from './write-calls.js';

export type WriteTx = Prisma.TransactionClient;
/** Read-only access; it cannot write (SQLite opens the file read-only; PostgreSQL sessions are read-only). */
export type Reader = Omit<PrismaClient, '$transaction' | '$connect' | '$disconnect' | '$extends'>;

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
