// A Database on better-sqlite3 alone, for the command line's seed commands (init, add, claim, renew,
// release, decide, show): those reach the database only through `db.write`'s direct statements and
// `db.query`, so they need neither Prisma's client nor its WebAssembly query compiler, which were most
// of a command's start-up time. Same file, same migration check, same pragmas and the same write-lock
// discipline as client.ts's SQLite backend: one writer connection that takes the write lock with its
// first statement and never sleeps on it (GroupCommit retries off the event loop, see write-lock.ts),
// and a read-only connection for everything else. `read` and the transaction's Prisma client are not
// there: a service that still needs them fails loudly instead of silently doing something else.
//
// Only better-sqlite3, migrate.ts, group-commit.ts and write-lock.ts load here (types aside): no
// Prisma, no pg (tx-sql.ts loads pg for PostgreSQL's statements, so its SQLite half is repeated here).
import DatabaseConnection, { type Database as SqliteConnection, type Statement } from 'better-sqlite3';
import type { Database, WriteTx } from './client.js';
import { GroupCommit } from './group-commit.js';
import { migrateDatabase } from './migrate.js';
import { announceLastEvent, type SqlValue, type TxSql } from './tx-sql.js';
import { sqliteLockWait } from './write-lock.js';

export interface LiteOptions {
  file: string;
  /** The longest a write waits, in all, for another process's write lock (default 10 s, as client.ts). */
  busyTimeoutMs?: number;
  synchronous?: 'NORMAL' | 'FULL';
}

/** As client.ts: a statement that changes nothing but takes SQLite's RESERVED lock, first thing in a transaction. */
const TAKE_WRITE_LOCK = 'UPDATE "Category" SET "name" = "name" WHERE 0';

/** SQLite stores every DATETIME as epoch milliseconds and booleans as 0/1 (tx-sql.ts's sqliteValue). */
const sqliteValue = (value: SqlValue): string | number | null =>
  value instanceof Date ? value.getTime() : typeof value === 'boolean' ? Number(value) : value;

/** Prepared statements cached per connection; reads come back as plain numbers (ids, versions, times). */
function statementCache(connection: SqliteConnection): (sql: string) => Statement {
  const cache = new Map<string, Statement>();
  return (sql) => {
    let statement = cache.get(sql);
    if (!statement) {
      statement = connection.prepare(sql);
      if (statement.reader) statement.safeIntegers(false);
      cache.set(sql, statement);
    }
    return statement;
  };
}

/** Statements for one write transaction; refused once it has ended (as tx-sql.ts's SqliteTxSql). */
class LiteTxSql implements TxSql {
  open = true;

  constructor(private readonly statement: (sql: string) => Statement) {}

  private prepared(sql: string): Statement {
    if (!this.open) throw new Error('This write transaction has ended: its statements can no longer run.');
    return this.statement(sql);
  }

  async all<Row>(sql: string, ...params: SqlValue[]): Promise<Row[]> {
    return this.prepared(sql).all(...params.map(sqliteValue)) as Row[];
  }

  async run(sql: string, ...params: SqlValue[]): Promise<number> {
    return this.prepared(sql).run(...params.map(sqliteValue)).changes;
  }
}

/** Stands for the Prisma transaction client, which this handle does not have. */
const NO_PRISMA = new Proxy({} as WriteTx, {
  get(_target, property) {
    throw new Error(
      `The command line's SQLite handle has no Prisma client (tx.${String(property)}): use the transaction's direct statements.`,
    );
  },
});

/** Migrates `file` as openDatabase does, then opens it on better-sqlite3 alone. */
export function openLiteDatabase(options: LiteOptions): Database {
  const { file } = options;
  const busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
  migrateDatabase(file, { busyTimeoutMs });

  // Opened with the busy timeout: a process closing its connection (the last one checkpoints and removes the
  // write-ahead log under an exclusive lock) makes a new connection's first read wait a moment, and without
  // a timeout that was "database is locked" for one `add` of several run at once (seen in CI). Once open, a
  // lock held elsewhere fails at once; GroupCommit waits for it without stopping the event loop.
  const writer = new DatabaseConnection(file, { timeout: busyTimeoutMs });
  writer.exec('PRAGMA foreign_keys = ON');
  writer.exec(`PRAGMA synchronous = ${options.synchronous ?? 'NORMAL'}`);
  const writerStatement = statementCache(writer);
  let reader: SqliteConnection | null = null;
  let readerStatement: ((sql: string) => Statement) | null = null;
  const read = (): ((sql: string) => Statement) => {
    if (!readerStatement) {
      reader = new DatabaseConnection(file, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs });
      reader.exec('PRAGMA query_only = ON');
      readerStatement = statementCache(reader);
    }
    return readerStatement;
  };

  const dataVersion = () => writer.pragma('data_version', { simple: true }) as number;
  let lastDataVersion = dataVersion();
  writer.pragma('busy_timeout = 0');
  const commitListeners = new Set<() => void>();
  const lockedListeners = new Set<(lastEventAt: Date | null) => void>();
  const commits = new GroupCommit<WriteTx>(
    async (runJobs) => {
      const sql = new LiteTxSql(writerStatement);
      try {
        writer.exec('BEGIN');
        await sql.run(TAKE_WRITE_LOCK);
        if (lockedListeners.size > 0) await announceLastEvent(sql, lockedListeners);
        const outcomes = await runJobs(NO_PRISMA, sql);
        sql.open = false;
        writer.exec('COMMIT');
        return outcomes;
      } catch (error) {
        // Nothing of a failed batch stays (a failed COMMIT keeps its transaction and lock otherwise).
        if (writer.inTransaction) writer.exec('ROLLBACK');
        throw error;
      } finally {
        sql.open = false;
      }
    },
    64,
    () => {
      for (const listener of commitListeners) listener();
    },
    sqliteLockWait(busyTimeoutMs),
  );

  return {
    dialect: 'sqlite',
    location: { dialect: 'sqlite', file },
    writeMode: 'serialized',
    get read(): Database['read'] {
      throw new Error("The command line's SQLite handle has no Prisma client (db.read): use db.query.");
    },
    query: async <Row>(sql: string, ...params: SqlValue[]) => read()(sql).all(...params.map(sqliteValue)) as Row[],
    write: (work) => commits.submit(work),
    perform: (operation) => commits.submit(operation.work),
    // A command has no /metrics to show lock holds on.
    onLockHeld: () => () => {},
    onCommit(listener) {
      commitListeners.add(listener);
      return () => commitListeners.delete(listener);
    },
    openTail: async () => {
      const { SqliteEventTail } = await import('./event-tail.js');
      return new SqliteEventTail(file, busyTimeoutMs);
    },
    onWriteLocked(listener) {
      lockedListeners.add(listener);
      return () => lockedListeners.delete(listener);
    },
    // A command checkpoints inline, as SQLite does by default: it has no event loop to keep free.
    onCheckpoint: () => () => {},
    othersCommitted: () => {
      const version = dataVersion();
      const changed = version !== lastDataVersion;
      lastDataVersion = version;
      return changed;
    },
    async close() {
      (reader as SqliteConnection | null)?.close();
      writer.close();
    },
  };
}
