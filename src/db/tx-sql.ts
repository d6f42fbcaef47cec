// Direct statements inside db.write's transaction, the same SQL on both backends. They skip
// Prisma's per-query pipeline where that is possible (SQLite) but always run in the very same
// transaction as the Prisma calls beside them. Write statements with `?` placeholders, TRUE/FALSE
// for booleans and Date values for times; each backend translates.
import type { Database as SqliteConnection, Statement } from 'better-sqlite3';
import type pg from 'pg';
import { postgresTypes, postgresValue } from './postgres-types.js';

export type SqlValue = string | number | boolean | null | Date;

export interface TxSql {
  /** Runs a statement and returns its rows (for SELECT or … RETURNING). */
  all<Row>(sql: string, ...params: SqlValue[]): Promise<Row[]>;
  /** Runs a statement that returns no rows; returns the number of rows it changed. */
  run(sql: string, ...params: SqlValue[]): Promise<number>;
}

/** SQLite stores every DATETIME as epoch milliseconds and booleans as 0/1. */
export const sqliteValue = (value: SqlValue): string | number | null =>
  value instanceof Date ? value.getTime() : typeof value === 'boolean' ? Number(value) : value;

/**
 * The SQLite writer connection's statements, shared by all transactions, one transaction at a time:
 * Prisma has issued BEGIN on this connection and holds the adapter's lock on it until COMMIT or
 * ROLLBACK, so nothing else can run on it in between.
 */
export class WriterStatements {
  private readonly statements = new Map<string, Statement>();
  private prepareOnConnection: ((sql: string) => Statement) | null = null;
  private connection: SqliteConnection | null = null;
  private current: SqliteTxSql | null = null;

  /** Called by the adapter wrapper when the writer connection opens. */
  attach(prepare: (sql: string) => Statement, connection: SqliteConnection): void {
    this.prepareOnConnection = prepare;
    this.connection = connection;
    this.statements.clear();
  }

  /**
   * Rolls back whatever a failed transaction left open. When COMMIT itself fails (a deferred
   * constraint, a full disk) SQLite keeps the transaction, and its write lock, and Prisma sends no
   * ROLLBACK: every later BEGIN would fail, and no other process could write. Called once Prisma has
   * given the transaction up, so nothing else is running on the connection.
   */
  rollBackLeftover(): void {
    if (this.connection?.inTransaction) this.connection.exec('ROLLBACK');
  }

  /**
   * Hands out the statement handle for a transaction that has just begun. A handle still open from
   * an earlier transaction is revoked: Prisma only begins a new one after ending the old (for
   * instance on its timeout), so the old callback must not reach the connection any more.
   */
  begin(): SqliteTxSql {
    this.current?.revoke();
    this.current = new SqliteTxSql(this);
    return this.current;
  }

  end(handle: SqliteTxSql): void {
    handle.revoke();
    if (this.current === handle) this.current = null;
  }

  /**
   * SQLite's PRAGMA data_version on the writer connection: it changes whenever another connection (another
   * process, or this process's readers) has committed since it was last read, never for this connection's
   * own commits.
   */
  /** Sets how many WAL pages a commit of the writer's checkpoints past (0: never; see checkpointer.ts). */
  setAutocheckpoint(pages: number): void {
    this.connection?.pragma(`wal_autocheckpoint = ${Math.trunc(pages)}`);
  }

  dataVersion(): number | null {
    if (!this.connection) return null;
    return this.connection.pragma('data_version', { simple: true }) as number;
  }

  statement(sql: string): Statement {
    if (!this.prepareOnConnection) throw new Error('The writer connection is not open.');
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.prepareOnConnection(sql);
      // Plain numbers: ids, versions and epoch-millisecond times are all far below 2^53.
      if (statement.reader) statement.safeIntegers(false);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

/** Statements for one SQLite write transaction; refused once that transaction has ended. */
export class SqliteTxSql implements TxSql {
  private open = true;

  constructor(private readonly owner: WriterStatements) {}

  revoke(): void {
    this.open = false;
  }

  private statement(sql: string): Statement {
    if (!this.open) throw new Error('This write transaction has ended: its statements can no longer run.');
    return this.owner.statement(sql);
  }

  async all<Row>(sql: string, ...params: SqlValue[]): Promise<Row[]> {
    // One array, not a spread: a multi-row insert binds hundreds of values.
    return this.statement(sql).all(params.map(sqliteValue)) as Row[];
  }

  async run(sql: string, ...params: SqlValue[]): Promise<number> {
    return this.statement(sql).run(params.map(sqliteValue)).changes;
  }
}

const numbered = new Map<string, string>();

/** `?` placeholders → PostgreSQL's `$1, $2, …` (the statements here never hold a literal `?`). */
export function numberPlaceholders(sql: string): string {
  let converted = numbered.get(sql);
  if (converted === undefined) {
    let n = 0;
    converted = sql.replace(/\?/g, () => `$${++n}`);
    if (numbered.size < 512) numbered.set(sql, converted);
  }
  return converted;
}

/** Statement names for PostgreSQL's session-level prepared statements: parsed once per connection. */
const statementNames = new Map<string, string>();

function statementName(sql: string): string | undefined {
  let name = statementNames.get(sql);
  if (name === undefined && statementNames.size < 512) {
    name = `leasehold_${statementNames.size + 1}`;
    statementNames.set(sql, name);
  }
  return name;
}

/**
 * Statements for one PostgreSQL write transaction, sent straight to the writer connection Prisma's
 * transaction holds (as on SQLite: Prisma waits for this callback, so nothing else runs on that
 * connection meanwhile), as named prepared statements. Through Prisma's `$queryRawUnsafe` each cost
 * 2.5–6× as much (measured: 1.1–3.2 ms against 0.2–0.5 ms per statement), and every one of them runs
 * while the write lock is held. Refused once the transaction has ended, with the same error as on SQLite.
 */
export class PostgresTxSql implements TxSql {
  private open = true;

  constructor(private readonly connection: pg.ClientBase) {}

  revoke(): void {
    this.open = false;
  }

  private async query(sql: string, params: SqlValue[]): Promise<pg.QueryResult> {
    if (!this.open) throw new Error('This write transaction has ended: its statements can no longer run.');
    return this.connection.query({
      name: statementName(sql),
      text: numberPlaceholders(sql),
      values: params.map(postgresValue),
      types: postgresTypes,
    });
  }

  async all<Row>(sql: string, ...params: SqlValue[]): Promise<Row[]> {
    return (await this.query(sql, params)).rows as Row[];
  }

  async run(sql: string, ...params: SqlValue[]): Promise<number> {
    return (await this.query(sql, params)).rowCount ?? 0;
  }
}

const LAST_EVENT_TIME = 'SELECT "occurredAt" FROM "Event" ORDER BY "id" DESC LIMIT 1';

/** Tells `listeners` when the last recorded event happened (one primary-key read), under the write lock. */
export async function announceLastEvent(sql: TxSql, listeners: ReadonlySet<(lastEventAt: Date | null) => void>): Promise<void> {
  const [last] = await sql.all<{ occurredAt: Date | number | string }>(LAST_EVENT_TIME);
  // SQLite keeps a DATETIME as epoch milliseconds; PostgreSQL answers a Date.
  const at = last ? new Date(last.occurredAt) : null;
  for (const listener of listeners) listener(at);
}
