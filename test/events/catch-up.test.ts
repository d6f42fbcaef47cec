// A subscriber that falls a whole buffer behind while it still reads is not cut off: it drops its
// buffer and catches up from the stored history (src/events/streams.ts), every event once and in
// order, then goes live again. Streams catching up from the same stretch share the pages they read
// (one read per page, the same event objects). One that takes nothing while a buffer's worth arrives,
// and is not waiting for an event, is cut off with SUBSCRIBER_TOO_SLOW, as before.
import { GraphQLError } from 'graphql';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import type { EventTail } from '../../src/db/event-tail.js';
import { ManualClock } from '../../src/domain/clock.js';
import { REST_STEP_MS } from '../../src/events/fan-out-pace.js';
import { EventFeed, type FeedEvent } from '../../src/events/feed.js';
import { ATTACH_SINK, CATCH_UP_SLICE_MS, type EventSink, eventStream, type SinkableStream, streamWork } from '../../src/events/streams.js';
import { createLogger } from '../../src/logger.js';
import { addCategories } from '../../src/services/categories.js';
import { addItems } from '../../src/services/items.js';
import { BACKEND, type TestDatabase, testDatabase } from '../support/database.js';

const proposer = { name: 'catch-up', authenticated: false };
const everything = () => true;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

describe(`a subscriber that falls behind catches up from the history (${BACKEND})`, () => {
  let database: TestDatabase;
  let db: Database;
  let tail: EventTail;
  let feed: EventFeed;
  const clock = new ManualClock(Date.UTC(2026, 11, 2, 9));
  let batch = 0;
  /** eventsAfter calls on the tail the streams read their replays through. */
  let reads: number[] = [];
  /**
   * When set, a replay's read reaching the end of the history (a short page), once read, waits for it
   * before answering (the feed's own reads do not); `held` counts those.
   */
  let gate: Promise<void> | null = null;
  let held = 0;
  /** The tail the streams replay through: the feed's own, its reads counted and, when `gate` is set, held. */
  let counted: EventTail;

  beforeAll(async () => {
    database = await testDatabase();
    db = await openDatabase({ location: database.location });
    await addCategories({ db, clock }, proposer, ['alpha']);
    tail = await db.openTail();
    // Slices of one event: the feed at its most finely sliced (a loaded machine), so no test here passes
    // only because a page went to the streams whole.
    feed = new EventFeed(tail, createLogger('silent'), { pollIntervalMs: 1_000, sliceBudgetMs: 0.0001 });
    await feed.start();
    counted = Object.create(tail, {
      eventsAfter: {
        value: async (sequence: number, limit: number) => {
          reads.push(sequence);
          const events = await tail.eventsAfter(sequence, limit);
          if (gate && events.length < limit) {
            held++;
            await gate;
          }
          return events;
        },
      },
    });
  });
  afterAll(async () => {
    await feed.stop();
    await tail.close();
    await db.close();
    await database.cleanup();
  });
  beforeEach(() => {
    reads = [];
    gate = null;
    held = 0;
  });

  /**
   * Commits `count` items (addItems calls of up to 500, sent at once, so group commit writes them together)
   * and has the feed hand their events to the streams. Sent one after another, the feed could deliver
   * between the commits, and a stream whose catch-up had already ended would overflow again before the
   * test takes anything: cut off, by timing alone. For the same reason a test that takes nothing during a
   * bulk keeps it to two buffers (1,200): the feed hands pages over in time-sized slices, so the first
   * overflow may come at the 601st event, and a second one with nothing taken between is a cut-off.
   */
  async function bulk(count: number): Promise<void> {
    const calls: Promise<unknown>[] = [];
    for (let from = 0; from < count; from += 500) {
      batch++;
      const items = Array.from({ length: Math.min(500, count - from) }, (_, n) => ({
        batchId: `c${batch}`,
        recordId: `r${n}`,
        proposedCategory: 'alpha',
        reason: 'x',
      }));
      calls.push(addItems({ db, clock }, proposer, items));
    }
    await Promise.all(calls);
    await feed.catchUp();
  }
  /** Streams opened by a test, closed after it (so a failed one leaves none listening). */
  let opened: SinkableStream[] = [];
  const open = async () => {
    // A buffer larger than the feed's pages (500), as the server's 10,000 are.
    const stream = await eventStream(feed, counted, { filter: everything, maxBuffered: 600 });
    opened.push(stream);
    return stream;
  };
  afterEach(async () => {
    for (const stream of opened) await stream.return?.();
    opened = [];
  });
  const take = async (stream: SinkableStream, count: number) => {
    const taken: FeedEvent[] = [];
    for (let n = 0; n < count; n++) {
      const step = await stream.next();
      if (step.done) throw new Error(`the stream ended after ${taken.length} of ${count}`);
      taken.push(step.value);
    }
    return taken;
  };
  const ids = (events: FeedEvent[]) => events.map((event) => event.id);

  it('a reader slower than a bulk is not cut off: it catches up from the history, every event once, in order, then live', async () => {
    const stream = await open();
    const start = feed.sequence;
    const before = { ...streamWork };
    await bulk(1);
    expect(ids(await take(stream, 1))).toEqual([start + 1]);
    // 1,200 at once (three commits): past its buffer of 600, while it has read since it subscribed.
    await bulk(1_200);
    expect(streamWork.catchUps - before.catchUps).toBe(1);
    expect(streamWork.cutOffs - before.cutOffs).toBe(0);
    expect(ids(await take(stream, 1_200))).toEqual(range(start + 2, start + 1_201));
    // Replayed from the history, not from its buffer.
    expect(reads.length).toBeGreaterThan(0);
    // Live again: the next commit arrives without another read of the history.
    const readsBefore = reads.length;
    const live = stream.next();
    await bulk(3);
    expect((await live).value?.id).toBe(start + 1_202);
    expect(ids(await take(stream, 2))).toEqual([start + 1_203, start + 1_204]);
    expect(reads.length).toBe(readsBefore);
  });

  it('one that took nothing since its buffer last filled, and is not waiting, is cut off with SUBSCRIBER_TOO_SLOW', async () => {
    const stream = await open();
    const start = feed.sequence;
    const before = { ...streamWork };
    await bulk(1);
    await take(stream, 1);
    await bulk(700);
    // Past its buffer once, having read: a catch-up. Then another buffer's worth with nothing taken.
    expect(streamWork.catchUps - before.catchUps).toBe(1);
    expect(streamWork.cutOffs - before.cutOffs).toBe(0);
    await bulk(700);
    expect(streamWork.cutOffs - before.cutOffs).toBe(1);
    const error = await stream.next().then(
      () => null,
      (thrown: unknown) => thrown as GraphQLError,
    );
    expect(error).toBeInstanceOf(GraphQLError);
    expect(error?.extensions).toEqual({ code: 'SUBSCRIBER_TOO_SLOW', afterSequence: start + 1, after: start + 1 });
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });

  it('streams catching up from the same place share the pages they read: one read per page, the same event objects', async () => {
    const streams = await Promise.all([1, 2, 3].map(() => open()));
    const start = feed.sequence;
    await bulk(1);
    for (const stream of streams) await take(stream, 1);
    // At most two buffers (see `bulk`): more, and a stream could be cut off by how the feed sliced it.
    await bulk(1_200);
    const received = await Promise.all(streams.map((stream) => take(stream, 1_200)));
    for (const events of received) expect(ids(events)).toEqual(range(start + 2, start + 1_201));
    // Every page (but the end of the history, never kept) read once for the three streams.
    const full = Math.floor((start + 1_201) / 500) - Math.floor((start + 1) / 500);
    expect(reads.length).toBeLessThanOrEqual(full + 3);
    expect(reads.length).toBeGreaterThanOrEqual(full);
    const [first, second, third] = received as [FeedEvent[], FeedEvent[], FeedEvent[]];
    const sharedUpTo = Math.floor((start + 1_201) / 500) * 500 - (start + 1);
    for (let index = 0; index < sharedUpTo; index++) {
      expect(second[index]).toBe(first[index]);
      expect(third[index]).toBe(first[index]);
    }
  });

  it('a buffer dropped again while the last page is being read does not end the catch-up early: nothing committed meanwhile is lost', async () => {
    const stream = await open();
    const start = feed.sequence;
    await bulk(1);
    await take(stream, 1);
    await bulk(700);
    // The catch-up reads its way to the end of the history as it stands, and that last (short) page is
    // held; meanwhile more than a buffer commits and is dropped while the stream waits for the page
    // (waiting in next(): reading, so not cut off). Taking that page as the end would lose the second 700.
    let release = () => {};
    gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const taking = take(stream, 1_400);
    await vi.waitFor(() => expect(held).toBe(1));
    const before = { ...streamWork };
    await bulk(700);
    expect(streamWork.catchUps - before.catchUps).toBe(1);
    expect(streamWork.cutOffs - before.cutOffs).toBe(0);
    gate = null;
    release();
    expect(ids(await taking)).toEqual(range(start + 2, start + 1_401));
    const live = stream.next();
    await bulk(1);
    expect((await live).value?.id).toBe(start + 1_402);
  }, 10_000);

  it('a stream behind hands its replay and its buffer to its sink from within next(), in order, and answers with the first event the sink declines', async () => {
    const stream = await open();
    const start = feed.sequence;
    const written: number[] = [];
    let room = 0;
    const sink: EventSink = (event) => {
      if (room === 0) return 'declined';
      room--;
      written.push(event.id);
      return 'written';
    };
    stream[ATTACH_SINK](sink);
    await bulk(1);
    await take(stream, 1);
    await bulk(1_200);
    expect(streamWork.catchUps).toBeGreaterThan(0);
    // Room for 700: those go to the sink; the 701st is next()'s answer, then room for the rest.
    room = 700;
    const answer = await stream.next();
    expect(written).toEqual(range(start + 2, start + 701));
    expect(answer.value?.id).toBe(start + 702);
    room = Number.POSITIVE_INFINITY;
    // The rest go to the sink; next() then waits for a live event, which the feed hands to the sink too.
    const waiting = stream.next();
    await vi.waitFor(() => expect(written.at(-1)).toBe(start + 1_201));
    expect(written).toEqual([...range(start + 2, start + 701), ...range(start + 703, start + 1_201)]);
    await bulk(1);
    expect(written.at(-1)).toBe(start + 1_202);
    room = 0;
    await bulk(1);
    expect((await waiting).value?.id).toBe(start + 1_203);
  });

  it('streams handing a catch-up to their sinks take turns: slices of a few ms (CATCH_UP_SLICE_MS) with the event loop free between them', async () => {
    const streams = await Promise.all([1, 2, 3].map(() => open()));
    await bulk(1);
    for (const stream of streams) await take(stream, 1);
    await bulk(1_200);
    // Each written event costs 0.05 ms: a page of 500 is 25 ms, and 3,600 events ~180 ms of work.
    let delivered = 0;
    /**
     * Events written back to back (less than half a rest's step apart), and the most in such a run. Between
     * two slices the streams rest for a timer of REST_STEP_MS at least, during which the event loop is free;
     * counted between two setImmediate turns instead, a slice resumed from a shared page within the check
     * phase and the next one after its rest, in the next timers phase, would land in one count.
     */
    let run = 0;
    let most = 0;
    let lastWrittenAt = Number.NEGATIVE_INFINITY;
    for (const stream of streams)
      stream[ATTACH_SINK](() => {
        const started = performance.now();
        if (started - lastWrittenAt >= REST_STEP_MS / 2) run = 0;
        const until = started + 0.05;
        while (performance.now() < until) {
          // the socket's work
        }
        delivered++;
        most = Math.max(most, ++run);
        lastWrittenAt = performance.now();
        return 'written';
      });
    // Each waits in next() once caught up (closed after the test).
    for (const stream of streams) void stream.next();
    await vi.waitFor(() => expect(delivered).toBe(3 * 1_200), { timeout: 10_000 });
    // A slice is the budget (3 ms, at most 60 such events) plus one event per stream; counted in events,
    // not in time, so another process taking the core meanwhile does not count (it can only split a run).
    // Unpaced, each stream would write its page of 500 in one run, the three often together.
    expect(most).toBeLessThanOrEqual(Math.ceil(CATCH_UP_SLICE_MS / 0.05) + 3);
  });
});
