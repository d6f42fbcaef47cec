// The history is the bus (decision 0005): a feed that has delivered event n must never later find a
// smaller id committed, or a subscriber resuming "after n" would miss it for good. Three handles on
// one database — three instances on PostgreSQL, three processes' worth of connections on SQLite —
// write at once while a fourth one's feed follows; the feed must deliver exactly the stored history.
// On PostgreSQL, in both write modes: `serialized` (one global lock, ids commit in order) and `sharded`
// (decision 0009: no global lock for these writes, so ids commit out of order and the feed must hold back
// at the horizon of the writes still running).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WRITE_MODES } from '../../src/config/database-location.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { ManualClock } from '../../src/domain/clock.js';
import { EventFeed } from '../../src/events/feed.js';
import { createLogger } from '../../src/logger.js';
import { addCategories } from '../../src/services/categories.js';
import { addItem } from '../../src/services/items.js';
import { BACKEND, type TestDatabase, testDatabase } from '../support/database.js';

const setup = { name: 'setup', authenticated: false };

describe.each(BACKEND === 'postgresql' ? WRITE_MODES : (['serialized'] as const))(
  `event ids become visible in id order across writers (${BACKEND}, %s)`,
  (writeMode) => {
    let database: TestDatabase;
    let writers: Database[] = [];
    let follower: Database;
    beforeAll(async () => {
      database = await testDatabase();
      follower = await openDatabase({ location: database.location, writeMode });
      writers = await Promise.all([1, 2, 3].map(() => openDatabase({ location: database.location, writeMode })));
    });
    afterAll(async () => {
      await Promise.all([follower, ...writers].map((db) => db.close()));
      await database.cleanup();
    });

    it('a feed following while three writers commit 600 changes delivers every stored event once, in order', async () => {
      const clock = new ManualClock(Date.UTC(2026, 10, 30, 9));
      await addCategories({ db: follower, clock }, setup, ['alpha']);
      const tail = await follower.openTail();
      // Poll as fast as the backend allows: the more often it reads, the likelier it would catch a gap.
      const feed = new EventFeed(tail, createLogger('silent'), { pollIntervalMs: 1 });
      await feed.start();
      const start = feed.sequence;
      const delivered: number[] = [];
      feed.listen((events) => delivered.push(...events.map((event) => event.id)));
      try {
        await Promise.all(
          writers.map(async (db, writer) => {
            // Each writer keeps 20 changes in flight, so batches from different writers interleave.
            for (let round = 0; round < 10; round++) {
              await Promise.all(
                Array.from({ length: 20 }, (_, n) =>
                  addItem({ db, clock }, setup, {
                    batchId: `w${writer}`,
                    recordId: `r${round}-${n}`,
                    proposedCategory: 'alpha',
                    reason: 'order',
                  }),
                ),
              );
            }
          }),
        );
        await feed.catchUp();
        const stored = (await follower.query<{ id: number }>('SELECT "id" FROM "Event" WHERE "id" > ? ORDER BY "id"', start)).map((row) =>
          Number(row.id),
        );
        expect(stored).toHaveLength(600);
        expect(delivered).toEqual(stored);
      } finally {
        feed.stop();
        await tail.close();
      }
    });
  },
);
