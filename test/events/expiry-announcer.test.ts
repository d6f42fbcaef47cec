// The expiry announcer looks the earliest unrecorded expiry up again only when a change may bring it
// forward (a lease granted or renewed to end sooner), not on every page of changes: on a busy queue that
// was a read per commit. Leases that end early leave the timer armed for them; it fires, finds nothing
// lapsed, and arms again. Every lease that does lapse is still recorded, once, when it lapses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { deferredTail, type EventTail } from '../../src/db/event-tail.js';
import { ManualClock } from '../../src/domain/clock.js';
import { ExpiryAnnouncer } from '../../src/events/expiry-announcer.js';
import { EventFeed } from '../../src/events/feed.js';
import { createLogger } from '../../src/logger.js';
import { addCategories } from '../../src/services/categories.js';
import type { Actor } from '../../src/services/context.js';
import { decideItem } from '../../src/services/decisions.js';
import { addItems } from '../../src/services/items.js';
import { claimItem, renewLease } from '../../src/services/leases.js';
import { BACKEND, type TestDatabase, testDatabase } from '../support/database.js';

const SECOND = 1_000;
const agent: Actor = { name: 'agent', authenticated: false };
const reviewer = (n: number): Actor => ({ name: `reviewer-${n}`, authenticated: true });

describe(`the expiry announcer on a busy queue (${BACKEND})`, () => {
  let database: TestDatabase;
  let db: Database;
  let tail: EventTail;
  let feed: EventFeed;
  let announcer: ExpiryAnnouncer;
  const clock = new ManualClock(Date.UTC(2026, 11, 3, 12));
  let lookups = 0;

  beforeAll(async () => {
    database = await testDatabase();
    db = await openDatabase({ location: database.location });
    const deps = { db, clock };
    await addCategories(deps, agent, ['alpha']);
    await addItems(
      deps,
      agent,
      Array.from({ length: 30 }, (_, n) => ({
        batchId: 'busy',
        recordId: `r${String(n).padStart(2, '0')}`,
        proposedCategory: 'alpha',
        reason: 'r',
      })),
    );
    const real = await db.openTail();
    const counted: EventTail = Object.create(real, {
      nextUnrecordedExpiry: {
        value: (now: Date) => {
          lookups++;
          return real.nextUnrecordedExpiry(now);
        },
      },
    });
    tail = deferredTail(Promise.resolve(counted));
    feed = new EventFeed(tail, createLogger('silent'), { pollIntervalMs: 60_000 });
    announcer = new ExpiryAnnouncer(deps, tail, createLogger('silent'));
    feed.observe(announcer.onEvents);
    await feed.start();
    announcer.start();
  });

  afterAll(async () => {
    announcer?.stop();
    await feed?.stop();
    await tail?.close();
    await db?.close();
    await database?.cleanup();
  });

  /** Lets the feed deliver what committed and the announcer finish what that started. */
  const settle = async () => {
    for (let round = 0; round < 3; round++) {
      await feed.catchUp();
      await announcer.settled();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };

  const lapsed = async () =>
    (await db.query<{ itemId: number }>(`SELECT "itemId" FROM "Event" WHERE "type" = 'LEASE_EXPIRED' ORDER BY "id"`)).map(
      (row) => row.itemId,
    );

  it('looks up again only when a lease may end sooner, and records every lapse once', async () => {
    const deps = { db, clock };
    await settle();
    const claims: { token: string; id: number }[] = [];
    const claim = async (n: number, leaseSeconds: number) => {
      const claimed = await claimItem(deps, reviewer(n), { leaseSeconds });
      claims[n] = { token: claimed?.token as string, id: claimed?.item.id as number };
    };

    // The first lease arms the timer: one look-up.
    let before = lookups;
    await claim(0, 300);
    await settle();
    expect(lookups - before).toBe(1);

    // Later leases that end later, leases decided, renewed for longer, a page of changes each: none.
    before = lookups;
    for (let n = 1; n <= 20; n++) {
      clock.advance(SECOND);
      await claim(n, 300);
      if (n % 2 === 0) await decideItem(deps, reviewer(n), { token: claims[n]?.token as string, decision: 'ACCEPTED' });
      if (n % 10 === 0) await renewLease(deps, reviewer(n - 1), { token: claims[n - 1]?.token as string, leaseSeconds: 600 });
      await settle();
    }
    expect(lookups - before).toBe(0);

    // A lease that ends before the armed one: looked up, and recorded when it lapses.
    before = lookups;
    await claim(21, 60);
    await settle();
    expect(lookups - before).toBe(1);
    // A renewal that brings a lease forward too (reviewer 3's, to 30 s from now).
    await renewLease(deps, reviewer(3), { token: claims[3]?.token as string, leaseSeconds: 30 });
    await settle();
    expect(lookups - before).toBe(2);
    clock.advance(31 * SECOND);
    await settle();
    expect(await lapsed()).toEqual([claims[3]?.id]);
    clock.advance(30 * SECOND);
    await settle();
    expect(await lapsed()).toEqual([claims[3]?.id, claims[21]?.id]);

    // The timer now waits for reviewer 0's lease, which is decided first: it fires, finds nothing, arms again.
    await decideItem(deps, reviewer(0), { token: claims[0]?.token as string, decision: 'REJECTED' });
    await settle();
    clock.set(Date.UTC(2026, 11, 3, 12) + 300 * SECOND + 500);
    await settle();
    expect(await lapsed()).toEqual([claims[3]?.id, claims[21]?.id]);

    // Every lease still running lapses in its time, each recorded once: the odd ones not renewed, then the renewed.
    clock.set(Date.UTC(2026, 11, 3, 12) + 330 * SECOND);
    await settle();
    const shortLeases = [1, 5, 7, 11, 13, 15, 17].map((n) => claims[n]?.id);
    expect(await lapsed()).toEqual([claims[3]?.id, claims[21]?.id, ...shortLeases]);
    clock.set(Date.UTC(2026, 11, 3, 12) + 1_000 * SECOND);
    await settle();
    expect(await lapsed()).toEqual([claims[3]?.id, claims[21]?.id, ...shortLeases, ...[9, 19].map((n) => claims[n]?.id)]);
  });
});
