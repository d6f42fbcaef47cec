// The feed hands a page to its listeners in slices when their work would hold the event loop longer
// than the slice budget (a bulk intake fanned out to many subscribers), giving requests a turn
// between slices, and still delivers every event once, in order. A page within the budget goes whole.
// A burst's slices go in batches: after each, the frames it made are written (fanOutPace.writeHeld, here
// a stand-in costing WRITE_MS, as no sockets are attached) and the feed rests twice as long as the batch
// and its writes took, as long as something else wants the loop meanwhile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { ManualClock } from '../../src/domain/clock.js';
import { fanOutPace, restWhileWanted } from '../../src/events/fan-out-pace.js';
import { EventFeed, type FeedEvent, LAGGARD_PATIENCE_MS, LAGGARD_POLL_MS } from '../../src/events/feed.js';
import { eventStream } from '../../src/events/streams.js';
import { createLogger } from '../../src/logger.js';
import { addCategories } from '../../src/services/categories.js';
import { addItems } from '../../src/services/items.js';
import { BACKEND, type TestDatabase, testDatabase } from '../support/database.js';
import { TurnCounter } from '../support/loop-turns.js';

const proposer = { name: 'bulk', authenticated: false };
/** What writing a batch's frames costs in the stand-in for the socket writer. */
const WRITE_MS = 4;

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
   * counting event-loop turns as it goes (unless `spin` is false: then nothing else uses the loop). The
   * first bulks teach the feed what an event costs.
   */
  async function follow(counts: number[], perEventMs: number, backlog?: (look: number) => number, spin = true) {
    const tail = await db.openTail();
    const feed = new EventFeed(tail, createLogger('silent'), { pollIntervalMs: 1_000, sliceBudgetMs: 5 });
    await feed.start();
    const loop = new TurnCounter();
    let slices: { ids: number[]; turn: number; writesBefore: number; looksBefore: number }[] = [];
    /** The feed's looks at lagging subscribers' backlog (`backlog` answers the n-th look). */
    let looks = 0;
    let writes = 0;
    const writeHeld = fanOutPace.writeHeld;
    const lagging = fanOutPace.laggingEvents;
    if (backlog) fanOutPace.laggingEvents = () => backlog(looks++);
    fanOutPace.writeHeld = async () => {
      writes++;
      busy(WRITE_MS);
      return WRITE_MS;
    };
    let observed: { ids: number[]; slicesBefore: number }[] = [];
    feed.listen((events: readonly FeedEvent[]) => {
      busy(perEventMs * events.length);
      slices.push({ ids: events.map((event) => event.id), turn: loop.turns, writesBefore: writes, looksBefore: looks });
    });
    // The bursts are ITEM_ADDED events, which an observer is handed only when it asks.
    feed.observe(
      (events) => {
        observed.push({ ids: events.map((event) => event.id), slicesBefore: slices.length });
      },
      { itemsAdded: true },
    );
    try {
      let start = feed.sequence;
      let wallMs = 0;
      let writesBefore = 0;
      for (const count of counts) {
        start = feed.sequence;
        slices = [];
        observed = [];
        writesBefore = writes;
        await bulk(count);
        // Counting turns keeps the loop busy (it never waits for I/O), as reviewers' requests do: the
        // rests then last their whole length (see restWhileWanted).
        if (spin) loop.start();
        const began = performance.now();
        await feed.catchUp();
        wallMs = performance.now() - began;
      }
      loop.stop();
      return { start, slices, observed, wallMs, writes: writes - writesBefore, looks };
    } finally {
      fanOutPace.writeHeld = writeHeld;
      fanOutPace.laggingEvents = lagging;
      await feed.stop();
      await tail.close();
    }
  }

  it('a page that would hold the loop for 400 ms goes in slices of about the budget, a turn between each, every event once in order', async () => {
    const { start, slices, wallMs, writes } = await follow([5, 400], 1);
    const ids = slices.flatMap((slice) => slice.ids);
    expect(ids).toEqual(Array.from({ length: 400 }, (_, index) => start + 1 + index));
    expect(slices.length).toBeGreaterThanOrEqual(40);
    // One slice's work stays near the budget: 5 events of 1 ms (a slow slice may shrink the next ones).
    expect(Math.max(...slices.map((slice) => slice.ids.length))).toBeLessThanOrEqual(5);
    // Requests get a turn between slices: the event-loop counter moved between consecutive slices.
    for (let n = 1; n < slices.length; n++) expect(slices[n]?.turn).toBeGreaterThan(slices[n - 1]?.turn as number);
    // The frames are written after each batch of about 15 ms of listener work (three slices of the budget
    // on a quiet machine: ~27 writes for 400 ms of work), never more than once per slice, and once at the end.
    expect(writes).toBeGreaterThan(1);
    expect(writes).toBeLessThanOrEqual(slices.length);
    const written = slices.map((slice) => slice.writesBefore - (slices[0]?.writesBefore ?? 0));
    expect(written).toEqual([...written].sort((a, b) => a - b));
    // A burst's fan-out takes at most a third of the loop: it rests twice as long as each batch and its
    // writes took (400 ms of listener work and writes × 4 ms, so at least ~1.4 s in all).
    expect(wallMs).toBeGreaterThanOrEqual((400 + writes * WRITE_MS) * 2.5);
  });

  it('a burst rests only while something else wants the loop: with nothing else running each rest ends after one step', async () => {
    const rests = fanOutPace.rests;
    const steps = fanOutPace.restSteps;
    const { start, slices, writes } = await follow([5, 400], 1, undefined, false);
    expect(slices.flatMap((slice) => slice.ids)).toEqual(Array.from({ length: 400 }, (_, index) => start + 1 + index));
    expect(writes).toBeGreaterThan(1);
    // A rest after a batch of ~15 ms and its writes would be ~38 ms, ~10 steps of REST_STEP_MS; the loop
    // waited for I/O through the first step, which ends it. (Counted, not timed: a busy machine delays the
    // steps' timers, and a delayed step is still idle. A step now and then may find the thread busy with
    // something else, a collection, and take a second.)
    const taken = fanOutPace.rests - rests;
    expect(taken).toBeGreaterThan(1);
    expect(fanOutPace.restSteps - steps).toBeLessThanOrEqual(taken * 1.5);
  });

  it('a rest lasts its whole length while the loop is busy, and ends within a step or so once it is not', async () => {
    let spinning = true;
    const spin = () => {
      busy(1);
      if (spinning) setImmediate(spin);
    };
    setImmediate(spin);
    const busySteps = fanOutPace.restSteps;
    const busyRest = await restWhileWanted(60);
    spinning = false;
    expect(busyRest).toBeGreaterThanOrEqual(60);
    expect(fanOutPace.restSteps - busySteps).toBeGreaterThan(1);
    // 100 steps if it lasted; the first (or, on a busy machine, one of the first few) finds the loop idle.
    const idleSteps = fanOutPace.restSteps;
    await restWhileWanted(400);
    expect(fanOutPace.restSteps - idleSteps).toBeLessThanOrEqual(3);
  });

  it("the server's own observers get a burst whole and at once, before the paced fan-out to subscribers", async () => {
    const { start, slices, observed } = await follow([5, 200], 1);
    expect(slices.length).toBeGreaterThanOrEqual(20);
    expect(observed).toEqual([{ ids: Array.from({ length: 200 }, (_, index) => start + 1 + index), slicesBefore: 0 }]);
  });

  it('a burst within the budget goes to the listeners in one piece, its frames written at once', async () => {
    // The feed sizes a page's slices from what the page before cost; a collection or a preemption during
    // that (cheap) page's hand-over makes it look costly, and the burst then goes in two slices. So up to
    // three tries; without the rule every try splits it.
    let run = await follow([5, 300], 0);
    for (let tries = 1; tries < 3 && run.slices.length !== 1; tries++) run = await follow([5, 300], 0);
    const { start, slices, writes } = run;
    expect(slices.map((slice) => slice.ids.length)).toEqual([300]);
    expect(slices[0]?.ids[0]).toBe(start + 1);
    expect(writes).toBe(1);
  });

  it('a burst waits after a batch while a lagging subscriber catches up, and goes on once it has', async () => {
    // A subscriber half-way to its buffer's limit, its backlog shrinking by 100 at each look (0 from the 11th).
    const { slices, writes } = await follow([5, 200], 1, (look) => Math.max(0, 1_000 - 100 * look));
    expect(writes).toBeGreaterThan(1);
    // The first batch went at once; every slice after it came only once the backlog was gone.
    const first = slices[0]?.writesBefore ?? 0;
    const later = slices.filter((slice) => slice.writesBefore > first);
    expect(later.length).toBeGreaterThan(0);
    for (const slice of later) expect(slice.looksBefore).toBeGreaterThanOrEqual(11);
  });

  it('a burst does not wait for a subscriber that has stopped reading (its backlog does not shrink)', async () => {
    const { writes, looks } = await follow([5, 200], 1, () => 5_000);
    // Per batch: the first look, then LAGGARD_PATIENCE_MS of looks without progress, not the 2 s a reader catching up may get.
    expect(looks).toBeLessThanOrEqual(writes * (LAGGARD_PATIENCE_MS / LAGGARD_POLL_MS + 1));
  });

  it("a stream's buffer counts as lagging from half its limit until it drains below half, or is dropped for a catch-up", async () => {
    const tail = await db.openTail();
    const feed = new EventFeed(tail, createLogger('silent'), { pollIntervalMs: 1_000 });
    await feed.start();
    try {
      const stream = await eventStream(feed, tail, { filter: () => true, maxBuffered: 100 });
      const before = fanOutPace.laggingEvents();
      await bulk(49);
      await feed.catchUp();
      expect(fanOutPace.laggingEvents() - before).toBe(0);
      await bulk(11);
      await feed.catchUp();
      expect(fanOutPace.laggingEvents() - before).toBe(60);
      const taken = [];
      for (let n = 0; n < 11; n++) taken.push((await stream.next()).value as FeedEvent);
      expect(fanOutPace.laggingEvents() - before).toBe(0);
      await bulk(60);
      await feed.catchUp();
      // 109 buffered: over the limit, having read since it subscribed: the buffer is dropped (no longer
      // lagging) and the stream goes on from the history (test/events/catch-up.test.ts).
      expect(fanOutPace.laggingEvents() - before).toBe(0);
      expect((await stream.next()).value?.id).toBe((taken.at(-1) as FeedEvent).id + 1);
    } finally {
      await feed.stop();
      await tail.close();
    }
  });

  it('by default live pages go in slices of about 2 ms and bursts in slices of about 5 ms', async () => {
    const tail = await db.openTail();
    const feed = new EventFeed(tail, createLogger('silent'), { pollIntervalMs: 1_000 });
    await feed.start();
    let sizes: number[] = [];
    const unlisten = feed.listen((events) => {
      busy(1 * events.length);
      sizes.push(events.length);
    });
    try {
      await bulk(5); // teaches the feed what an event costs
      await feed.catchUp();
      sizes = [];
      await bulk(20);
      await feed.catchUp();
      const live = sizes;
      sizes = [];
      await bulk(100);
      await feed.catchUp();
      const burst = sizes;
      expect(live.reduce((sum, size) => sum + size, 0)).toBe(20);
      expect(Math.max(...live)).toBeLessThanOrEqual(2);
      expect(burst.reduce((sum, size) => sum + size, 0)).toBe(100);
      expect(Math.max(...burst)).toBeLessThanOrEqual(5);
      // A slice measured at its 1 ms an event (not slowed by the machine) sizes the next at 5.
      expect(Math.max(...burst)).toBeGreaterThan(2);
    } finally {
      unlisten();
      await feed.stop();
      await tail.close();
    }
  });

  it('one event that costs the listeners more than the budget goes to them in parts, a turn between, each listener in order', async () => {
    const tail = await db.openTail();
    const feed = new EventFeed(tail, createLogger('silent'), { pollIntervalMs: 1_000, sliceBudgetMs: 5 });
    await feed.start();
    const loop = new TurnCounter();
    // 40 subscribers at 0.5 ms each: 20 ms for one event, four times the budget.
    const received: { listener: number; id: number; turn: number }[] = [];
    const unlisten = Array.from({ length: 40 }, (_, listener) =>
      feed.listen((events) => {
        busy(0.5 * events.length);
        for (const event of events) received.push({ listener, id: event.id, turn: loop.turns });
      }),
    );
    const parts = fanOutPace.handOverParts;
    try {
      await bulk(1); // teaches the feed what an event costs
      await feed.catchUp();
      const start = feed.sequence;
      received.length = 0;
      loop.start();
      await bulk(3);
      await feed.catchUp();
      const ids = [start + 1, start + 2, start + 3];
      // Every listener had every event once, in order.
      for (let listener = 0; listener < 40; listener++) {
        expect(received.filter((entry) => entry.listener === listener).map((entry) => entry.id)).toEqual(ids);
      }
      // Every listener had an event before any had the next.
      expect(received.map((entry) => entry.id)).toEqual(ids.flatMap((id) => Array<number>(40).fill(id)));
      // Each event's 20 ms went over several turns of the loop, none holding it for much more than the budget.
      for (const id of ids) {
        const turnsTaken = new Set(received.filter((entry) => entry.id === id).map((entry) => entry.turn));
        expect(turnsTaken.size).toBeGreaterThanOrEqual(3);
      }
      expect(fanOutPace.handOverParts - parts).toBeGreaterThanOrEqual(3);
    } finally {
      loop.stop();
      for (const stop of unlisten) stop();
      await feed.stop();
      await tail.close();
    }
  });

  it('a page shorter than a burst is live traffic: its frames wait for the timed flushes', async () => {
    const { slices, writes } = await follow([5, 30], 0);
    expect(slices.map((slice) => slice.ids.length)).toEqual([30]);
    expect(writes).toBe(0);
  });
});
