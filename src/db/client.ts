// Opens the database, SQLite or PostgreSQL (`openDatabase`): the only place Prisma clients are made. One writer
// connection, used solely through interactive transactions (and, on PostgreSQL, write calls) that take the
// database's write lock first; read-only connections for everything else, which can only ever see committed data.
// PostgreSQL's opening is here; SQLite's is sqlite-database.ts; the Database they both return is made in assemble.ts
// and described in database.ts (its types are re-exported here, where the services import them from).

import type pg from 'pg';
import type { DatabaseLocation } from '../config/database-location.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { assemble } from './assemble.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, migratePostgres } from './migrate-postgres.js';
import { LockHolds, postgresCalls } from './postgres-calls.js';
import { PostgresEventTail } from './postgres-tail.js';
import { openSqlite } from './sqlite-database.js';
import { announceLastEvent, PostgresTxSql } from './tx-sql.js';
import { DatabaseUnavailableError, isConnectionFailure, postgresUnavailableWait } from './unavailable.js';

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

/** The client a write transaction gets. Never escapes the transaction callback. */
import type { Database, DatabaseOptions } from './database.js';

export type { DatabaseLocation } from '../config/database-location.js';
export type { Database, DatabaseOptions, Dialect, Reader, WriteOperation, WriteTx } from './database.js';
export type { LockHoldForm } from './postgres-calls.js';
export type { TxSql } from './tx-sql.js';

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
