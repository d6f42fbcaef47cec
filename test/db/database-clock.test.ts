// Several instances on PostgreSQL follow the database server's clock, whatever their own says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { databaseClock } from '../../src/db/database-clock.js';
import { Live } from '../../src/events/live.js';
import { createLogger } from '../../src/logger.js';
import { Metrics } from '../../src/metrics.js';
import { addCategories } from '../../src/services/categories.js';
import { createPostgresDatabase, type TestDatabase } from '../support/database.js';

describe('databaseClock (PostgreSQL)', () => {
  let database: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    database = await createPostgresDatabase();
    db = await openDatabase({ location: database.location });
  });
  afterAll(async () => {
    await db.close();
    await database.cleanup();
  });

  const serverNow = async () => new Date((await db.query<{ now: Date }>('SELECT clock_timestamp() AS now'))[0]?.now as Date).getTime();

  it.each([
    ['ten minutes fast', 600_000],
    ['an hour slow', -3_600_000],
  ])('a machine whose clock is %s reads the database server’s time', async (_label, skew) => {
    const clock = await databaseClock(db, createLogger('silent'), { local: () => Date.now() + skew });
    try {
      expect(Math.abs(clock.offsetMs + skew)).toBeLessThan(1_000);
      const before = await serverNow();
      const read = clock.now().getTime();
      const after = await serverNow();
      // Within the measured uncertainty (half a round trip) plus the time between the two reads.
      expect(read).toBeGreaterThanOrEqual(before - clock.uncertaintyMs - 5);
      expect(read).toBeLessThanOrEqual(after + clock.uncertaintyMs + 5);
    } finally {
      clock.stop();
    }
  });

  it('timers fire when the database’s clock reaches them, not the skewed local one', async () => {
    const skew = -600_000;
    const clock = await databaseClock(db, createLogger('silent'), { local: () => Date.now() + skew });
    try {
      const due = new Date(clock.now().getTime() + 50);
      const fired = await new Promise<number>((resolve) => clock.setTimer(due, () => resolve(clock.now().getTime())));
      // Node's timers run on a monotonic clock; Date.now() may read a millisecond behind it.
      expect(fired).toBeGreaterThanOrEqual(due.getTime() - 2);
      // Had it followed the local clock, it would have waited ten more minutes.
      expect(fired - due.getTime()).toBeLessThan(1_000);
    } finally {
      clock.stop();
    }
  });

  it('a change is never stamped earlier than one another instance already recorded, even when its clock drifted since', async () => {
    const other = await openDatabase({ location: database.location });
    let drift = 0;
    const clockA = await databaseClock(db, createLogger('silent'));
    // B measured its offset correctly, then its clock fell 500 ms behind (no resync yet).
    const clockB = await databaseClock(other, createLogger('silent'), { local: () => Date.now() - drift });
    drift = 500;
    try {
      const setup = { name: 'setup', authenticated: false };
      const [a] = await addCategories({ db, clock: clockA }, setup, ['first']);
      const [b] = await addCategories({ db: other, clock: clockB }, setup, ['second']);
      const times = await db.query<{ categoryName: string; occurredAt: Date | number }>(
        'SELECT "categoryName", "occurredAt" FROM "Event" WHERE "categoryName" IN (?, ?) ORDER BY "id"',
        'first',
        'second',
      );
      expect(times.map((row) => row.categoryName)).toEqual(['first', 'second']);
      const [first, second] = times.map((row) => new Date(row.occurredAt).getTime());
      expect(second).toBeGreaterThanOrEqual(first as number);
      expect(b?.createdAt.getTime()).toBeGreaterThanOrEqual(a?.createdAt.getTime() as number);
    } finally {
      clockA.stop();
      clockB.stop();
      await other.close();
    }
  });

  it('/metrics reports the offset this instance applies', async () => {
    const clock = await databaseClock(db, createLogger('silent'), { local: () => Date.now() - 90_000 });
    const live = new Live({ db, clock, logger: createLogger('silent'), leaseWarningMs: 60_000 });
    try {
      const text = await new Metrics({ live, clock, webSocketConnections: () => 0 }).render();
      const line = text.split('\n').find((entry) => entry.startsWith('leasehold_database_clock_offset_seconds '));
      expect(Number(line?.split(' ')[1])).toBeCloseTo(90, 0);
    } finally {
      clock.stop();
      await live.stop();
    }
  });

  it('warns when the local clock is far off, and says by how much', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => lines.push(line) } as never);
    const clock = await databaseClock(db, logger, { local: () => Date.now() + 120_000 });
    clock.stop();
    const warning = lines.map((line) => JSON.parse(line)).find((entry) => entry.level === 40);
    expect(warning?.msg).toMatch(/far from the database server/);
    expect(Math.abs(warning?.offsetMs + 120_000)).toBeLessThan(1_000);
  });
});
