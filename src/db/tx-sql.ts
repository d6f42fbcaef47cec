// Direct statements on the writer connection, usable only inside db.write's transaction. They skip
// Prisma's per-query pipeline (the largest remaining cost of a claim) but run in the very same
// interactive transaction: Prisma has issued BEGIN on this connection and holds the adapter's lock
// on it until COMMIT or ROLLBACK, so nothing else can run on it in between.
import type { Statement } from 'better-sqlite3';

export type SqlValue = string | number | null;

/** The writer connection's statements, shared by all transactions, one transaction at a time. */
export class WriterStatements {
  private readonly statements = new Map<string, Statement>();
  private prepareOnConnection: ((sql: string) => Statement) | null = null;
  private current: TxSql | null = null;

  /** Called by the adapter wrapper when the writer connection opens. */
  attach(prepare: (sql: string) => Statement): void {
    this.prepareOnConnection = prepare;
    this.statements.clear();
  }

  /**
   * Hands out the statement handle for a transaction that has just begun. A handle still open from
   * an earlier transaction is revoked: Prisma only begins a new one after ending the old (for
   * instance on its timeout), so the old callback must not reach the connection any more.
   */
  begin(): TxSql {
    this.current?.revoke();
    this.current = new TxSql(this);
    return this.current;
  }

  end(handle: TxSql): void {
    handle.revoke();
    if (this.current === handle) this.current = null;
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

/** Statements for one write transaction; refused once that transaction has ended. */
export class TxSql {
  private open = true;

  constructor(private readonly owner: WriterStatements) {}

  revoke(): void {
    this.open = false;
  }

  private statement(sql: string): Statement {
    if (!this.open) throw new Error('This write transaction has ended: its statements can no longer run.');
    return this.owner.statement(sql);
  }

  /** Runs a statement and returns its rows (for SELECT or … RETURNING). */
  all<Row>(sql: string, ...params: SqlValue[]): Row[] {
    return this.statement(sql).all(...params) as Row[];
  }

  /** Runs a statement that returns no rows; returns the number of rows it changed. */
  run(sql: string, ...params: SqlValue[]): number {
    return this.statement(sql).run(...params).changes;
  }
}
