// An interactive write that loses a deadlock is run again (group-commit.ts, DEADLOCK_ATTEMPTS). In
// PG_WRITE_MODE=sharded the write calls take row locks without the global lock, so an interactive
// transaction can meet them in the other order; here another session plays that part: it holds row a,
// the job takes row b and waits for a, and the session then asks for b. PostgreSQL fails the job's
// statement (40P01, the job waited first); the job is rolled back to its savepoint and run again.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { ManualClock } from '../../src/domain/clock.js';
import { addCategories } from '../../src/services/categories.js';
import { type TestDatabase, testDatabase } from '../support/database.js';

const setup = { name: 'setup', authenticated: false };
const TOUCH = 'UPDATE "Category" SET "retiredAt" = NULL WHERE "name" = $1';

describe('an interactive write that loses a deadlock is run again', () => {
  let database: TestDatabase;
  let db: Database;
  let other: pg.Client;
  let watcher: pg.Client;

  beforeAll(async () => {
    database = await testDatabase();
    db = await openDatabase({ location: database.location, writeMode: 'sharded' });
    await addCategories({ db, clock: new ManualClock(Date.UTC(2026, 11, 3, 10)) }, setup, ['a', 'b']);
    other = new pg.Client({ connectionString: database.url });
    watcher = new pg.Client({ connectionString: database.url });
    await Promise.all([other.connect(), watcher.connect()]);
  });
  afterAll(async () => {
    await Promise.all([other?.end(), watcher?.end()]);
    await db?.close();
    await database?.cleanup();
  });

  /** Resolves once `count` sessions of this database wait for a lock. */
  const lockWaits = async (count: number) => {
    for (let polls = 0; polls < 1_000; polls++) {
      const { rows } = await watcher.query<{ waiting: string }>(
        `SELECT count(*) AS "waiting" FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      if (Number(rows[0]?.waiting) >= count) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
    throw new Error(`no ${count} session(s) waiting for a lock`);
  };

  it('the job PostgreSQL fails is rolled back to its savepoint and goes through when run again', async () => {
    // PostgreSQL checks for a cycle once per wait, deadlock_timeout (1 s) after it began, and fails the
    // session whose check finds it. The job waits first, so its check finds the cycle, unless the session
    // joins more than a second later (a loaded machine): then the session's own check fails the session, the
    // job goes through at once, and the round is played again.
    const rounds: { attempts: number; outcome: unknown }[] = [];
    for (let round = 0; round < 5 && !rounds.some((played) => played.attempts > 1); round++) {
      await other.query('BEGIN');
      await other.query(TOUCH.replace('$1', "'a'"));
      let attempts = 0;
      const job = db.write(async (tx, sql) => {
        attempts++;
        await sql.run('UPDATE "Category" SET "retiredAt" = NULL WHERE "name" = ?', 'b');
        // Through Prisma, so its form of the error is the one met.
        await tx.category.update({ where: { name: 'a' }, data: { retiredAt: null } });
        return attempts;
      });
      const settled = job.then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      try {
        await lockWaits(1);
        // The session now asks for b, which the job holds: a cycle.
        await other.query(TOUCH, ['b']);
        await other.query('COMMIT');
      } catch (error) {
        await other.query('ROLLBACK');
        if ((error as { code?: string }).code !== '40P01') throw error;
      }
      const outcome = await settled;
      rounds.push({ attempts, outcome });
    }
    const retried = rounds.find((played) => played.attempts > 1);
    expect(retried).toEqual({ attempts: 2, outcome: { ok: true, value: 2 } });
    // A round the session lost is one the job went through at its first attempt.
    for (const played of rounds.filter((each) => each !== retried)) {
      expect(played).toEqual({ attempts: 1, outcome: { ok: true, value: 1 } });
    }
  });
});
