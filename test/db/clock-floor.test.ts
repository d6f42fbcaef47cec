// Processes writing one database never stamp a change earlier than one already recorded (the clock floor,
// src/db/database-clock.ts flooredClock, read under the write lock): their clocks agree only to a few ms,
// on one machine too (a long-running server does not follow the wall clock set back; a command started
// since does). Here a writer whose clock runs 500 ms ahead records first; the next writer, on the server's
// backend and on the command line's, stamps its change no earlier. A clock more than SQLITE_MAX_LIFT_MS
// behind is a clock set back, and keeps its own time.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { flooredClock, SQLITE_MAX_LIFT_MS } from '../../src/db/database-clock.js';
import { openLiteDatabase } from '../../src/db/lite.js';
import { type Clock, systemClock } from '../../src/domain/clock.js';
import { addCategories } from '../../src/services/categories.js';
import { BACKEND, type TestDatabase, testDatabase } from '../support/database.js';

const ahead: Clock = { now: () => new Date(Date.now() + 500), setTimer: (at, callback) => systemClock.setTimer(at, callback) };
const setup = { name: 'setup', authenticated: false };

describe(`the clock floor (${BACKEND})`, () => {
  let database: TestDatabase;
  let first: Database;
  beforeEach(async () => {
    database = await testDatabase();
    first = await openDatabase({ location: database.location });
  });
  afterEach(async () => {
    await first.close();
    await database.cleanup();
  });

  const times = async () =>
    (
      await first.query<{ categoryName: string; occurredAt: Date | number }>(
        'SELECT "categoryName", "occurredAt" FROM "Event" ORDER BY "id"',
      )
    ).map((row) => [row.categoryName, new Date(row.occurredAt).getTime()] as const);

  const backends: [string, () => Promise<Database>][] = [
    ['the server’s database layer', () => openDatabase({ location: database.location })],
    ...(BACKEND === 'sqlite'
      ? ([
          [
            'the command line’s (better-sqlite3 alone)',
            async () => openLiteDatabase({ file: (database.location as { file: string }).file }),
          ],
        ] as [string, () => Promise<Database>][])
      : []),
  ];

  it.each(backends)('a change made through %s right after one stamped 500 ms ahead is stamped no earlier', async (_label, open) => {
    await addCategories({ db: first, clock: ahead }, setup, ['early']);
    const second = await open();
    const clock = flooredClock(second, systemClock, { maxLiftMs: SQLITE_MAX_LIFT_MS });
    try {
      await addCategories({ db: second, clock }, setup, ['late']);
      const [[, early], [, late]] = (await times()) as [[string, number], [string, number]];
      expect(late).toBeGreaterThanOrEqual(early);
      // Not a constant: once its own clock passes the floor, it reads its own clock again.
      expect(clock.now().getTime()).toBeGreaterThanOrEqual(early);
    } finally {
      clock.stop();
      await second.close();
    }
  });

  it('a clock further behind than the largest lift (a clock set back, not a skew) keeps its own time', async () => {
    const hourAhead: Clock = {
      now: () => new Date(Date.now() + 3_600_000),
      setTimer: (at, callback) => systemClock.setTimer(at, callback),
    };
    await addCategories({ db: first, clock: hourAhead }, setup, ['early']);
    const clock = flooredClock(first, systemClock, { maxLiftMs: SQLITE_MAX_LIFT_MS });
    try {
      await addCategories({ db: first, clock }, setup, ['late']);
      const [[, early], [, late]] = (await times()) as [[string, number], [string, number]];
      // The rules for a clock behind apply instead (test/api/hardening-clock.test.ts).
      expect(early - late).toBeGreaterThan(3_500_000);
    } finally {
      clock.stop();
    }
  });
});
