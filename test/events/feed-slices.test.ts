// The feed hands a page to its listeners in slices when their work would hold the event loop longer
// than the slice budget (a bulk intake fanned out to many subscribers), giving requests a turn
// between slices, and still delivers every event once, in order. A page within the budget goes whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { ManualClock } from '../../src/domain/clock.js';
import { fanOutPace } from '../../src/events/fan-out-pace.js';
import { EventFeed, type FeedEvent } from '../../src/events/feed.js';
import { createLogger } from '../../src/logger.js';
import { addCategories } from '../../src/services/categories.js';
import { addItems } from '../../src/services/items.js';
import { BACKEND, type TestDatabase, testDatabase } from '../support/database.js';

const proposer = { name: 'bulk', authenticated: false };

/** Holds the thread for `ms` (the fan-out's CPU work, as a listener of many subscribers does). */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

describe(`the feed spreads a costly page over turns of the event loop (${BACKEND})`, () => {
  let database: TestDatabase;
  let db: Database;
  const clock = new ManualClock(Date.UTC(2026, 11, 1, 9));
  let batch = 0;

  beforeAll(async () => {
    database = await testDatabase();
    db = await openDatabase({ location: database.location });
    await addCategories({ db, clock }, proposer, ['alpha']);
  });
  afterAll(async () => {
    await db.close();
    await database.cleanup();
  });

  /** Commits `count` items in one addItems call: one page of ITEM_ADDED events for the feed. */
  async function bulk(count: number): Promise<void> {
    batch++;
    const items = Array.from({ length: count }, (_, n) => ({
      batchId: `b${batch}`,
      recordId: `r${n}`,
      proposedCategory: 'alpha',
      reason: 'bulk',
    }));
    await addItems({ db, clock }, proposer, items);
  }

  /**
   * Follows the feed through bulks of `counts` items in turn, with a listener costing `perEventMs`,
   * counting event-loop turns as it goes. The first bulks teach the feed what an event costs.
   */
  async function follow(counts: number[], perEventMs: number) {
    const tail = await db.openTail();
    const feed = new EventFeed(tail, createLogger('silent'), { pollIntervalMs: 1_000, sliceBudgetMs: 5 });
    await feed.start();
    let turns = 0;
    let counting = true;
    const countTurn = () => {
      turns++;
      if (counting) setImmediate(countTurn);
    };
    let slices: { ids: number[]; turn: number; burst: boolean }[] = [];
    let observed: { ids: number[]; slicesBefore: number }[] = [];
    feed.listen((events: readonly FeedEvent[]) => {
      busy(perEventMs * events.length);
      slices.push({ ids: events.map((event) => event.id), turn: turns, burst: fanOutPace.burstUntil > performance.now() });
    });
    feed.observe((events: readonly FeedEvent[]) => {
      observed.push({ ids: events.map((event) => event.id), slicesBefore: slices.length });
    });
    try {
      let start = feed.sequence;
      let wallMs = 0;
      for (const count of counts) {
        start = feed.sequence;
        slices = [];
        observed = [];
        await bulk(count);
        setImmediate(countTurn);
        const began = performance.now();
        await feed.catchUp();
        wallMs = performance.now() - began;
      }
      counting = false;
      return { start, slices, observed, wallMs };
    } finally {
      await feed.stop();
      await tail.close();
    }
  }

  it('a page that would hold the loop for 400 ms goes in slices of about the budget, a turn between each, every event once in order', async () => {
    const { start, slices, wallMs } = await follow([5, 400], 1);
    const ids = slices.flatMap((slice) => slice.ids);
    expect(ids).toEqual(Array.from({ length: 400 }, (_, index) => start + 1 + index));
    expect(slices.length).toBeGreaterThanOrEqual(40);
    // One slice's work stays near the budget: 5 events of 1 ms (a slow slice may shrink the next ones).
    expect(Math.max(...slices.map((slice) => slice.ids.length))).toBeLessThanOrEqual(5);
    // Requests get a turn between slices: the event-loop counter moved between consecutive slices.
    for (let n = 1; n < slices.length; n++) expect(slices[n]?.turn).toBeGreaterThan(slices[n - 1]?.turn as number);
    // A burst's fan-out takes at most a third of the loop: it rests twice as long as each slice took
    // (400 ms of listener work, so at least ~1.2 s in all; a slower machine only lengthens it).
    expect(wallMs).toBeGreaterThanOrEqual(400 * 2.5);
    // Meanwhile the frames the slices make are held for longer writes.
    expect(slices.every((slice) => slice.burst)).toBe(true);
  });

  it("the server's own observers get a burst whole and at once, before the paced fan-out to subscribers", async () => {
    const { start, slices, observed } = await follow([5, 200], 1);
    expect(slices.length).toBeGreaterThanOrEqual(20);
    expect(observed).toEqual([{ ids: Array.from({ length: 200 }, (_, index) => start + 1 + index), slicesBefore: 0 }]);
  });

  it('a page within the budget goes to the listeners in one piece', async () => {
    const { start, slices } = await follow([5, 300], 0);
    expect(slices.map((slice) => slice.ids.length)).toEqual([300]);
    expect(slices[0]?.ids[0]).toBe(start + 1);
  });

  it('a page shorter than a burst is live traffic: its frames are not held longer', async () => {
    fanOutPace.burstUntil = 0;
    const { slices } = await follow([5, 30], 0);
    expect(slices.map((slice) => slice.ids.length)).toEqual([30]);
    expect(slices[0]?.burst).toBe(false);
  });
});
