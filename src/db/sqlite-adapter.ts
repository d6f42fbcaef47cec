// Wraps Prisma's better-sqlite3 adapter factory to add what it lacks: per-connection pragmas run
// when the connection opens, and a prepared-statement cache (the adapter prepares every statement
// anew, which was the largest single cost of a claim in profiles; see BENCHMARKS.md).
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import type { Database as SqliteConnection, Statement } from 'better-sqlite3';

type AdapterFactory = PrismaBetterSqlite3;
type Adapter = Awaited<ReturnType<AdapterFactory['connect']>>;

export interface ConnectionSettings {
  file: string;
  /** How long the connection waits for a lock another process holds, while it opens and (see below) after. */
  busyTimeoutMs: number;
  /**
   * The busy timeout once the connection is open, when it differs: the server's writer fails at once on a
   * held lock and lets GroupCommit wait without stopping the event loop, but while it opens (its pragmas
   * read the schema) it waits like any other connection, so a server starting beside another process's
   * migration or checkpoint does not fail with "database is locked" (seen in CI with two servers starting
   * on one new file).
   */
  busyTimeoutAfterConnectMs?: number;
  readonly: boolean;
  /** Statements run once on the new connection, e.g. `PRAGMA foreign_keys = ON`. */
  pragmas: string[];
  /**
   * Receives the connection's own `prepare`, for statements run inside the adapter's transactions, and
   * the connection itself (to end a transaction the adapter left open).
   */
  onConnect?: (prepare: (sql: string) => Statement, connection: SqliteConnection) => void;
}

const CACHE_LIMIT = 256;

/**
 * The adapter calls `prepare(sql).bind(args)` and then `run()`, `reader`, `columns()` or
 * `raw().all()`. better-sqlite3 allows `bind` only once per statement, so a cached statement is
 * handed out behind this view, which keeps the arguments and passes them to each call.
 */
class BoundStatement {
  private args: unknown[] = [];

  constructor(private readonly statement: Statement) {}

  bind(args: unknown[]): this {
    this.args = args;
    return this;
  }

  get reader(): boolean {
    return this.statement.reader;
  }

  columns() {
    return this.statement.columns();
  }

  raw(toggle = true): this {
    this.statement.raw(toggle);
    return this;
  }

  run() {
    return this.statement.run(this.args);
  }

  all() {
    return this.statement.all(this.args);
  }
}

function cacheStatements(connection: SqliteConnection, prepare: (sql: string) => Statement): void {
  const cache = new Map<string, Statement>();
  (connection as unknown as { prepare(sql: string): BoundStatement }).prepare = (sql: string) => {
    let statement = cache.get(sql);
    if (!statement) {
      statement = prepare(sql);
      if (cache.size < CACHE_LIMIT) cache.set(sql, statement);
    }
    return new BoundStatement(statement);
  };
}

/** A Prisma driver-adapter factory for one SQLite file with Leasehold's connection settings. */
export function sqliteAdapter(settings: ConnectionSettings): AdapterFactory {
  const inner = new PrismaBetterSqlite3(
    { url: settings.file, timeout: settings.busyTimeoutMs, readonly: settings.readonly },
    { timestampFormat: 'unixepoch-ms' },
  );
  const connect = inner.connect.bind(inner);
  inner.connect = async (): Promise<Adapter> => {
    const adapter = await connect();
    const connection = (adapter as unknown as { client: SqliteConnection }).client;
    for (const pragma of settings.pragmas) connection.exec(pragma);
    const prepare = connection.prepare.bind(connection);
    cacheStatements(connection, prepare);
    settings.onConnect?.(prepare, connection);
    if (settings.busyTimeoutAfterConnectMs !== undefined)
      connection.pragma(`busy_timeout = ${Math.trunc(settings.busyTimeoutAfterConnectMs)}`);
    return adapter;
  };
  return inner;
}
