// The only module that opens Prisma clients. One writer connection, used solely through
// interactive transactions that take SQLite's write lock first; one read-only
// connection for everything else, which can only ever see committed data.
import { type Prisma, PrismaClient } from '../generated/prisma/client.js';
import { GroupCommit } from './group-commit.js';
import { migrateDatabase } from './migrate.js';
import { sqliteAdapter } from './sqlite-adapter.js';
import { type TxSql, WriterStatements } from './tx-sql.js';

export type { ApiKey, Category, Event, ExecutionAttempt, Item, Proposal, ProposalApproval } from '../generated/prisma/client.js';
export type {
  EventType,
  ItemStatus,
  ProposalState as ProposalStateColumn,
  RiskLevel as RiskLevelColumn,
} from '../generated/prisma/enums.js';
export type { TxSql } from './tx-sql.js';

/** The client a write transaction gets. Never escapes the transaction callback. */
export type WriteTx = Prisma.TransactionClient;
/** Read-only access; it cannot write (SQLite opens the file read-only). */
export type Reader = Omit<PrismaClient, '$transaction' | '$connect' | '$disconnect' | '$extends'>;

export interface DatabaseOptions {
  file: string;
  busyTimeoutMs?: number;
  synchronous?: 'NORMAL' | 'FULL';
  /** Longest an interactive transaction may wait for this process's writer connection. */
  maxWaitMs?: number;
}

export interface Database {
  readonly file: string;
  /**
   * Runs `work` atomically inside an interactive transaction that holds SQLite's write lock from
   * its first statement, and resolves once that transaction has committed. Concurrent calls share
   * one transaction (group commit), each in its own savepoint: a `work` that throws is rolled back
   * alone. `sql` runs direct statements on the same transaction (see tx-sql.ts).
   */
  write<T>(work: (tx: WriteTx, sql: TxSql) => Promise<T>): Promise<T>;
  readonly read: Reader;
  /** Registers a callback run after each commit made by this process (e.g. to wake the event feed). */
  onCommit(listener: () => void): () => void;
  close(): Promise<void>;
}

/**
 * A write statement that changes nothing but makes SQLite take the RESERVED lock.
 * The adapter only issues a deferred BEGIN; a transaction that reads first and writes
 * later can fail with SQLITE_BUSY_SNAPSHOT when another process commits in between,
 * whatever the busy timeout. Taking the lock up front makes it wait instead.
 */
const TAKE_WRITE_LOCK = 'UPDATE "Category" SET "name" = "name" WHERE 0';

/** Creates and migrates the file if needed, then opens the writer and reader clients. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
  migrateDatabase(options.file, { busyTimeoutMs });

  const statements = new WriterStatements();
  const writer = new PrismaClient({
    adapter: sqliteAdapter({
      file: options.file,
      busyTimeoutMs,
      readonly: false,
      pragmas: ['PRAGMA foreign_keys = ON', `PRAGMA synchronous = ${options.synchronous ?? 'NORMAL'}`],
      onConnect: (prepare) => statements.attach(prepare),
    }),
  });
  const reader = new PrismaClient({
    adapter: sqliteAdapter({ file: options.file, busyTimeoutMs, readonly: true, pragmas: ['PRAGMA query_only = ON'] }),
  });
  // Open both connections now, so a broken file fails at start-up rather than on the first request.
  await Promise.all([writer.$connect(), reader.$connect()]);

  const maxWait = options.maxWaitMs ?? 15_000;
  const commitListeners = new Set<() => void>();
  const commits = new GroupCommit<WriteTx>(
    (runJobs) =>
      writer.$transaction(
        async (tx) => {
          const sql = statements.begin();
          try {
            sql.run(TAKE_WRITE_LOCK);
            return await runJobs(tx, sql);
          } finally {
            statements.end(sql);
          }
        },
        { maxWait, timeout: maxWait + busyTimeoutMs },
      ),
    64,
    () => {
      for (const listener of commitListeners) listener();
    },
  );
  return {
    file: options.file,
    read: reader,
    write: (work) => commits.submit(work),
    onCommit(listener) {
      commitListeners.add(listener);
      return () => commitListeners.delete(listener);
    },
    async close() {
      await Promise.all([writer.$disconnect(), reader.$disconnect()]);
    },
  };
}
