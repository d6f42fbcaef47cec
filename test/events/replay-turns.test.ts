// Replays read their pages on turns of the event loop of their own (src/events/streams.ts): twenty
// streams replaying the history at once never read two pages between the same two turns, so the loop's
// longest stretch is one page, not twenty, while every stream still gets every event once, in order.
// Replays of the same stretch share the pages read (test/events/catch-up.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import type { EventTail } from '../../src/db/event-tail.js';
import { ManualClock } from '../../src/domain/clock.js';
import { EventFeed } from '../../src/events/feed.js';
import { eventStream } from '../../src/events/streams.js';
import { createLogger } from '../../src/logger.js';
import { addCategories } from '../../src/services/categories.js';
import { addItems } from '../../src/services/items.js';
import { BACKEND, type TestDatabase, testDatabase } from '../support/database.js';
import { TurnCounter } from '../support/loop-turns.js';

const proposer = { name: 'replay-setup', authenticated: false };
const STREAMS = 20;
const ITEMS = 3_000;

describe(`replays take turns reading pages (${BACKEND})`, () => {
  let database: TestDatabase;
  let db: Database;
  const clock = new ManualClock(Date.UTC(2026, 11, 1, 9));

  beforeAll(async () => {
    database = await testDatabase();
    db = await openDatabase({ location: database.location });
    await addCategories({ db, clock }, proposer, ['alpha']);
    for (let batch = 0; batch < ITEMS / 500; batch++) {
      const items = Array.from({ length: 500 }, (_, n) => ({
        batchId: `b${batch}`,
        recordId: `r${n}`,
        proposedCategory: 'alpha',
        reason: 'x',
      }));
      await addItems({ db, clock }, proposer, items);
    }
  });
  afterAll(async () => {
    await db.close();
    await database.cleanup();
  });

  it(`${STREAMS} streams replaying from the start read one page per turn between them, and each gets every event in order`, async () => {
    const tail = await db.openTail();
    const feed = new EventFeed(tail, createLogger('silent'), { pollIntervalMs: 1_000 });
    await feed.start();
    const loop = new TurnCounter();
    // The turn each page read began on.
    const pageTurns: number[] = [];
    const counted: EventTail = Object.create(tail, {
      eventsAfter: {
        value: (sequence: number, limit: number) => {
          pageTurns.push(loop.turns);
          return tail.eventsAfter(sequence, limit);
        },
      },
    });
    try {
      const last = feed.sequence;
      expect(last).toBeGreaterThanOrEqual(ITEMS);
      loop.start();
      const streams = await Promise.all(
        Array.from({ length: STREAMS }, () => eventStream(feed, counted, { after: 0, filter: () => true })),
      );
      const received = await Promise.all(
        streams.map(async (stream) => {
          const ids: number[] = [];
          while (ids.at(-1) !== last) {
            const step = await stream.next();
            if (step.done) break;
            ids.push(step.value.id);
          }
          await stream.return?.();
          return ids;
        }),
      );
      for (const ids of received) expect(ids).toEqual(Array.from({ length: last }, (_, index) => index + 1));
      // The pages (7 of 500 for 3,000-odd events) are shared: each full one read once for all twenty
      // streams, the last (the end of the history, never kept) at most once each; none two on one turn.
      const full = Math.floor(last / 500);
      expect(pageTurns.length).toBeGreaterThanOrEqual(full + 1);
      expect(pageTurns.length).toBeLessThanOrEqual(full + STREAMS);
      expect(new Set(pageTurns).size).toBe(pageTurns.length);
    } finally {
      loop.stop();
      await feed.stop();
      await tail.close();
    }
  });
});
