// The server's own followers (announcers, metrics, webhooks, key revocations) are not handed ITEM_ADDED
// events unless they ask: a bulk intake makes one per item, none of them but a webhook wanting ITEM_ADDED
// has a use for them, and while no subscriber listens either the feed does not read those rows back at
// all (the tail's changesAfter: it walks the page's ids and reads only the other rows). Every other event
// still reaches every observer once, in order, with the page's last sequence number.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, type Event, openDatabase } from '../../src/db/client.js';
import type { EventTail } from '../../src/db/event-tail.js';
import { ManualClock } from '../../src/domain/clock.js';
import { EventFeed, type FeedEvent } from '../../src/events/feed.js';
import { createLogger } from '../../src/logger.js';
import { addCategories } from '../../src/services/categories.js';
import { addItems } from '../../src/services/items.js';
import { claimItem } from '../../src/services/leases.js';
import { BACKEND, type TestDatabase, testDatabase } from '../support/database.js';

const proposer = { name: 'observers', authenticated: false };
const reviewer = { name: 'reviewer', authenticated: false };

/** What one observer was handed: its events, and the `through` of each call. */
interface Observed {
  events: Event[];
  through: number[];
}

function recorder(): [Observed, (events: readonly Event[], through: number) => void] {
  const observed: Observed = { events: [], through: [] };
  return [
    observed,
    (events, through) => {
      observed.events.push(...events);
      observed.through.push(through);
    },
  ];
}

describe(`observers and ITEM_ADDED (${BACKEND})`, () => {
  let database: TestDatabase;
  let db: Database;
  let tail: EventTail;
  const clock = new ManualClock(Date.UTC(2026, 11, 6, 9));
  /** The tail's reads, by method. */
  const reads: string[] = [];
  let batch = 0;

  /** Some items, a claim and a category: ITEM_ADDED events with others between them. */
  async function mixedHistory(): Promise<void> {
    for (let round = 0; round < 3; round++) {
      batch++;
      await addItems(
        { db, clock },
        proposer,
        Array.from({ length: 6 }, (_, index) => ({
          batchId: `o${batch}`,
          recordId: `r${index}`,
          proposedCategory: 'alpha',
          reason: 'why',
        })),
      );
      await claimItem({ db, clock }, reviewer, {});
      await addCategories({ db, clock }, proposer, [`cat-${batch}`]);
    }
  }

  /** The whole history from `after` on, read directly. */
  async function historyAfter(after: number): Promise<Event[]> {
    return tail.eventsAfter(after, 10_000, false);
  }

  beforeAll(async () => {
    database = await testDatabase();
    db = await openDatabase({ location: database.location });
    await addCategories({ db, clock }, proposer, ['alpha']);
    const real = await db.openTail();
    tail = Object.create(real, {
      eventsAfter: {
        value: (sequence: number, limit: number, items?: boolean) => {
          reads.push('eventsAfter');
          return real.eventsAfter(sequence, limit, items);
        },
      },
      changesAfter: {
        value: (sequence: number, limit: number) => {
          reads.push('changesAfter');
          return real.changesAfter(sequence, limit);
        },
      },
    });
  });

  afterAll(async () => {
    await tail?.close();
    await db?.close();
    await database?.cleanup();
  });

  it("changesAfter covers eventsAfter's page exactly, less its ITEM_ADDED events", async () => {
    const start = await tail.latestSequence();
    await mixedHistory();
    const history = await historyAfter(start);
    expect(history.filter((event) => event.type !== 'ITEM_ADDED').length).toBeGreaterThan(3);
    // Pages of 4 cut runs of ITEM_ADDED anywhere: some pages hold none of the other events.
    const kept: Event[] = [];
    let position = start;
    let emptyPages = 0;
    for (;;) {
      const page = await tail.changesAfter(position, 4);
      const whole = await tail.eventsAfter(position, 4, false);
      expect(page.covered).toBe(whole.length);
      if (page.covered === 0) {
        expect(page).toEqual({ events: [], through: position, covered: 0 });
        break;
      }
      expect(page.through).toBe(whole.at(-1)?.id);
      expect(page.events).toEqual(whole.filter((event) => event.type !== 'ITEM_ADDED'));
      if (page.events.length === 0) emptyPages++;
      kept.push(...page.events);
      position = page.through;
    }
    expect(emptyPages).toBeGreaterThan(0);
    expect(kept).toEqual(history.filter((event) => event.type !== 'ITEM_ADDED'));
  });

  it('with no subscriber, observers get every other event once and the ITEM_ADDED rows are not read', async () => {
    const feed = new EventFeed(tail, createLogger('silent'), { pollIntervalMs: 1_000, batchSize: 5 });
    await feed.start();
    const [observed, observer] = recorder();
    feed.observe(observer);
    try {
      const start = feed.sequence;
      reads.length = 0;
      await mixedHistory();
      await feed.catchUp();
      const feedReads = [...reads];
      const history = await historyAfter(start);
      expect(observed.events).toEqual(history.filter((event) => event.type !== 'ITEM_ADDED'));
      expect(observed.through.at(-1)).toBe(history.at(-1)?.id);
      expect(observed.through).toEqual([...observed.through].sort((a, b) => a - b));
      expect(feedReads.filter((read) => read === 'eventsAfter')).toEqual([]);
      expect(feedReads).toContain('changesAfter');
    } finally {
      await feed.stop();
    }
  });

  it('an observer that asks for ITEM_ADDED gets every event; the others still do not', async () => {
    const feed = new EventFeed(tail, createLogger('silent'), { pollIntervalMs: 1_000, batchSize: 5 });
    await feed.start();
    const [all, allObserver] = recorder();
    const [changes, changesObserver] = recorder();
    feed.observe(allObserver, { itemsAdded: true });
    feed.observe(changesObserver);
    try {
      const start = feed.sequence;
      reads.length = 0;
      await mixedHistory();
      await feed.catchUp();
      const history = await historyAfter(start);
      expect(all.events).toEqual(history);
      expect(changes.events).toEqual(history.filter((event) => event.type !== 'ITEM_ADDED'));
      expect(changes.through).toEqual(all.through);
      expect(reads.filter((read) => read === 'changesAfter')).toEqual([]);
    } finally {
      await feed.stop();
    }
  });

  it('with a subscriber, it gets every event and the observers the same as without one', async () => {
    const feed = new EventFeed(tail, createLogger('silent'), { pollIntervalMs: 1_000, batchSize: 5 });
    await feed.start();
    const delivered: FeedEvent[] = [];
    const [observed, observer] = recorder();
    feed.listen((events) => delivered.push(...events));
    feed.observe(observer);
    try {
      const start = feed.sequence;
      await mixedHistory();
      await feed.catchUp();
      const history = await historyAfter(start);
      expect(delivered.map((event) => event.id)).toEqual(history.map((event) => event.id));
      expect(observed.events).toEqual(history.filter((event) => event.type !== 'ITEM_ADDED'));
      expect(observed.through.at(-1)).toBe(history.at(-1)?.id);
    } finally {
      await feed.stop();
    }
  });
});
