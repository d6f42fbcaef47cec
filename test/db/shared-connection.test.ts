// Regression test for the shared-connection hazard (stack-notes): with one Prisma client on one
// SQLite connection, a query issued while another request's interactive transaction is open runs
// inside it — it sees uncommitted rows and is lost when that transaction rolls back. db.write and
// the separate read-only db.read must prevent both.
import { describe, expect, it } from 'vitest';
import { categoryRow, gate, useTempDatabase } from '../support/gate.js';

describe('db.write and database.db.read on one SQLite file', () => {
  const database = useTempDatabase();

  it('a reader never sees an open transaction’s row, and a concurrent write survives its rollback', async () => {
    const written = gate();
    const proceed = gate();
    const order: string[] = [];

    const doomed = database.db.write(async (tx) => {
      await tx.category.create({ data: categoryRow('uncommitted') });
      order.push('doomed wrote');
      written.open();
      await proceed.promise;
      throw new Error('roll back on purpose');
    });
    const doomedOutcome = doomed.then(
      () => 'committed',
      (error: Error) => error.message,
    );

    await written.promise;
    // While the first transaction is open (its row written, not committed): a second write and a read.
    const second = database.db.write(async (tx) => {
      order.push('second started');
      await tx.category.create({ data: categoryRow('second') });
      return 'second done';
    });
    const seenMeanwhile = await database.db.read.category.findMany({ select: { name: true } });
    const countMeanwhile = await database.db.read.$queryRawUnsafe<{ n: bigint | number }[]>('SELECT count(*) AS n FROM "Category"');
    expect(seenMeanwhile).toEqual([]);
    expect(Number(countMeanwhile[0]?.n)).toBe(0);
    // The second write waits for the first transaction instead of running inside it.
    expect(order).toEqual(['doomed wrote']);

    proceed.open();
    expect(await doomedOutcome).toBe('roll back on purpose');
    expect(await second).toBe('second done');
    expect(order).toEqual(['doomed wrote', 'second started']);

    const names = (await database.db.read.category.findMany({ orderBy: { name: 'asc' } })).map((row) => row.name);
    expect(names).toEqual(['second']);
  });

  it('many overlapping writes, some rolling back, keep exactly the committed ones', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, (_, index) =>
        database.db.write(async (tx) => {
          await tx.category.create({ data: categoryRow(`bulk-${String(index).padStart(2, '0')}`) });
          await Promise.resolve();
          if (index % 3 === 0) throw new Error(`rollback ${index}`);
          return index;
        }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toHaveLength(10);
    const names = (await database.db.read.category.findMany({ where: { name: { startsWith: 'bulk-' } }, orderBy: { name: 'asc' } })).map(
      (row) => row.name,
    );
    const expected = Array.from({ length: 30 }, (_, index) => index)
      .filter((index) => index % 3 !== 0)
      .map((index) => `bulk-${String(index).padStart(2, '0')}`);
    expect(names).toEqual(expected);
  });

  it('the read client refuses every write: writes can only go through database.db.write', async () => {
    await expect(database.db.read.category.create({ data: categoryRow('through-reader') })).rejects.toThrow(
      /readonly|read-only|query_only/i,
    );
    await expect(
      database.db.read.$executeRawUnsafe(`INSERT INTO "Category" ("name", "createdAt", "createdBy") VALUES ('raw-reader', 0, 'test')`),
    ).rejects.toThrow(/readonly|read-only|query_only/i);
    await expect(database.db.read.category.deleteMany({})).rejects.toThrow(/readonly|read-only|query_only/i);
    await expect(database.db.read.$executeRawUnsafe('PRAGMA query_only = OFF')).resolves.toBeDefined();
    // Even with query_only switched off, the connection was opened read-only.
    await expect(database.db.read.category.create({ data: categoryRow('still-refused') })).rejects.toThrow(/readonly|read-only/i);
    await database.db.read.$executeRawUnsafe('PRAGMA query_only = ON');

    const rows = await database.db.read.category.findMany({ where: { name: { in: ['through-reader', 'raw-reader', 'still-refused'] } } });
    expect(rows).toEqual([]);
    expect(await database.db.read.category.count()).toBeGreaterThan(0);
    // The writer itself is fine.
    await database.db.write((tx) => tx.category.create({ data: categoryRow('through-writer') }));
    expect(await database.db.read.category.findUnique({ where: { name: 'through-writer' } })).toMatchObject({ name: 'through-writer' });
  });
});
