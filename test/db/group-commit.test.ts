// Group commit: concurrent writes share one transaction, each in its own savepoint; a failing write
// is rolled back alone; nothing is acknowledged before the shared COMMIT.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase, type TxSql } from '../../src/db/client.js';
import { GroupCommit } from '../../src/db/group-commit.js';
import { BACKEND, type TestDatabase, testDatabase } from '../support/database.js';
import { categoryRow, gate } from '../support/gate.js';

/**
 * What identifies the transaction a statement runs in: SQLite's data_version does not move inside one
 * transaction of the connection; PostgreSQL's top-level transaction id is the same in all its savepoints.
 */
const TRANSACTION_MARK =
  BACKEND === 'sqlite' ? 'SELECT data_version AS mark FROM pragma_data_version' : 'SELECT txid_current()::text AS mark';

describe(`db.write group commit on a real database (${BACKEND})`, () => {
  let testDb: TestDatabase;
  const database = {} as { db: Database };
  beforeAll(async () => {
    testDb = await testDatabase();
    database.db = await openDatabase({ location: testDb.location, synchronous: 'NORMAL' });
  });
  afterAll(async () => {
    await database.db?.close();
    await testDb?.cleanup();
  });

  it('runs queued writes in one transaction, rolls back only the one that fails, and acknowledges after COMMIT', async () => {
    const holding = gate();
    const order: string[] = [];
    // The first write holds its transaction open, so the next three queue up for one batch.
    const first = database.db.write(async (tx) => {
      await holding.promise;
      await tx.category.create({ data: categoryRow('first') });
      return 'first';
    });
    const marks: string[] = [];
    const track = async (sql: TxSql) => marks.push(String((await sql.all<{ mark: string | number }>(TRANSACTION_MARK))[0]?.mark));
    const a = database.db.write(async (tx, sql) => {
      await track(sql);
      await tx.category.create({ data: categoryRow('a') });
      order.push('a ran');
      return 'a';
    });
    const b = database.db.write(async (_tx, sql) => {
      await track(sql);
      // A direct statement on the transaction's connection: rolled back with its savepoint too.
      await sql.run(
        'INSERT INTO "Category" ("name", "createdAt", "createdBy") VALUES (?, ?, ?)',
        'b',
        new Date(Date.UTC(2026, 10, 30)),
        'test',
      );
      order.push('b ran');
      throw new Error('b fails after writing');
    });
    const c = database.db.write(async (tx, sql) => {
      await track(sql);
      await tx.category.create({ data: categoryRow('c') });
      order.push('c ran');
      return 'c';
    });
    a.then(() => order.push('a acknowledged'));
    c.then(() => order.push('c acknowledged'));

    holding.open();
    expect(await first).toBe('first');
    expect(await a).toBe('a');
    await expect(b).rejects.toThrow('b fails after writing');
    expect(await c).toBe('c');

    // All three ran before either was acknowledged: they shared one COMMIT.
    expect(order.slice(0, 3)).toEqual(['a ran', 'b ran', 'c ran']);
    expect(order.slice(3).sort()).toEqual(['a acknowledged', 'c acknowledged']);
    // All three saw the same transaction.
    expect(marks).toHaveLength(3);
    expect(marks[0]).toMatch(/^\d+$/);
    expect(new Set(marks).size).toBe(1);
    const names = (await database.db.read.category.findMany({ orderBy: { name: 'asc' } })).map((row) => row.name);
    expect(names).toEqual(['a', 'c', 'first']);
  });

  it('refuses direct statements once their transaction has ended', async () => {
    let kept: TxSql | null = null;
    await database.db.write(async (_tx, sql) => {
      kept = sql;
      return sql.all('SELECT 1');
    });
    await expect((kept as unknown as TxSql).all('SELECT 1')).rejects.toThrow(/transaction has ended/);
  });
});

describe('GroupCommit when the shared COMMIT fails', () => {
  // A real COMMIT cannot be made to fail on demand, so this runs the batching logic with a
  // transaction runner that fails after the jobs ran, as a failed COMMIT would.
  it('rejects every job of the batch and acknowledges none', async () => {
    const statements: string[] = [];
    const sql = {
      run: (text: string) => {
        statements.push(text);
        return 0;
      },
    } as unknown as TxSql;
    let batches = 0;
    const commits = new GroupCommit<null>(async (runJobs) => {
      batches += 1;
      await runJobs(null, sql);
      throw new Error('COMMIT failed: disk I/O error');
    });
    const results = await Promise.allSettled([commits.submit(async () => 'x'), commits.submit(async () => 'y')]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(results.map((result) => (result as PromiseRejectedResult).reason.message)).toEqual([
      'COMMIT failed: disk I/O error',
      'COMMIT failed: disk I/O error',
    ]);
    expect(batches).toBe(1);
    expect(statements).toEqual(['SAVEPOINT write_job', 'RELEASE write_job', 'SAVEPOINT write_job', 'RELEASE write_job']);
  });
});
