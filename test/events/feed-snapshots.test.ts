// The feed reads the items its events concern only for subscribers (their events carry the item as a
// snapshot); the server's own followers (announcers, metrics, webhooks, key revocations) take the rows
// alone. A bulk intake nobody watches therefore costs one read of its events, not a second of its items
// (and, unless an observer asks for ITEM_ADDED events, not even that: feed-observers.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, type Event, openDatabase } from '../../src/db/client.js';
import { deferredTail, type EventTail } from '../../src/db/event-tail.js';
import { ManualClock } from '../../src/domain/clock.js';
import { EventFeed, type FeedEvent } from '../../src/events/feed.js';
import { createLogger } from '../../src/logger.js';
import { addCategories } from '../../src/services/categories.js';
import { addItems } from '../../src/services/items.js';
import { BACKEND, type TestDatabase, testDatabase } from '../support/database.js';

const proposer = { name: 'snapshots', authenticated: false };

describe(`the feed reads items only for subscribers (${BACKEND})`, () => {
  let database: TestDatabase;
  let db: Database;
  let tail: EventTail;
  let feed: EventFeed;
  const clock = new ManualClock(Date.UTC(2026, 11, 3, 9));
  /** The item ids each itemsById call on the feed's tail asked for. */
  const itemReads: number[][] = [];
  /** What each eventsAfter call said of items (PostgreSQL's tail reads them with the events unless told not to). */
  const withItems: (boolean | undefined)[] = [];
  let batch = 0;

  const add = (count: number) =>
    addItems(
      { db, clock },
      proposer,
      Array.from({ length: count }, (_, index) => ({
        batchId: `snap-${++batch}`,
        recordId: `r${index}`,
        proposedCategory: 'alpha',
        reason: 'why',
      })),
    );

  beforeAll(async () => {
    database = await testDatabase();
    db = await openDatabase({ location: database.location });
    await addCategories({ db, clock }, proposer, ['alpha']);
    const real = await db.openTail();
    const spied: EventTail = Object.create(real, {
      eventsAfter: {
        value: (sequence: number, limit: number, items?: boolean) => {
          withItems.push(items);
          return real.eventsAfter(sequence, limit, items);
        },
      },
      itemsById: {
        value: (ids: number[]) => {
          itemReads.push(ids);
          return real.itemsById(ids);
        },
      },
    });
    // As the server has it: the feed's tail is deferred until its connection opens (deferredTail).
    tail = deferredTail(Promise.resolve(spied));
    feed = new EventFeed(tail, createLogger('silent'), { pollIntervalMs: 1_000 });
    await feed.start();
  });

  afterAll(async () => {
    await feed?.stop();
    await tail?.close();
    await db?.close();
    await database?.cleanup();
  });

  it('hands an observer that asks for ITEM_ADDED every row without reading an item', async () => {
    const observed: Event[] = [];
    const stop = feed.observe((events) => observed.push(...events), { itemsAdded: true });
    try {
      const outcomes = await add(25);
      await feed.catchUp();
      const added = outcomes.flatMap((outcome) => (outcome.ok ? [outcome.item.id] : []));
      expect(added).toHaveLength(25);
      expect(observed.filter((event) => event.type === 'ITEM_ADDED').map((event) => event.itemId)).toEqual(added);
      expect(observed.every((event) => !('itemSnapshot' in event))).toBe(true);
      expect(itemReads).toEqual([]);
      expect(withItems.length).toBeGreaterThan(0);
      expect(withItems.every((items) => items === false)).toBe(true);
    } finally {
      stop();
    }
  });

  it('gives a subscriber each event with its item, read once per page', async () => {
    withItems.length = 0;
    const delivered: FeedEvent[] = [];
    const observed: Event[] = [];
    const unlisten = feed.listen((events) => delivered.push(...events));
    const stop = feed.observe((events) => observed.push(...events), { itemsAdded: true });
    try {
      const outcomes = await add(3);
      await feed.catchUp();
      const items = outcomes.flatMap((outcome) => (outcome.ok ? [outcome.item] : []));
      expect(delivered.map((event) => event.itemSnapshot?.id)).toEqual(items.map((item) => item.id));
      expect(delivered.map((event) => event.itemSnapshot?.recordId)).toEqual(['r0', 'r1', 'r2']);
      expect(itemReads).toEqual([items.map((item) => item.id)]);
      expect(withItems.length).toBeGreaterThan(0);
      expect(withItems.every((items) => items === true)).toBe(true);
      // The observers still get the same page, as rows.
      expect(observed.map((event) => event.id)).toEqual(delivered.map((event) => event.id));
    } finally {
      unlisten();
      stop();
    }
  });
});
