// PG_WRITE_MODE=sharded (decision 0009): event ids commit out of order, so every read that hands out a
// cursor over the history stops at the feed's horizon, as the feed itself does. While a writer that took
// its marker is still running, a later event already committed is held back from a page of `events` and
// from a webhook's cursor; once that writer ends, both move on and nothing was skipped.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { ManualClock } from '../../src/domain/clock.js';
import { addCategories } from '../../src/services/categories.js';
import { addItem } from '../../src/services/items.js';
import { listEvents } from '../../src/services/queries.js';
import { enqueueWebhookDeliveries } from '../../src/services/webhook-deliveries.js';
import { type TestDatabase, testDatabase } from '../support/database.js';

const setup = { name: 'setup', authenticated: false };
const webhook = { name: 'horizon-hook', events: ['ITEM_ADDED'] as const };

describe('history reads stop at the horizon in PG_WRITE_MODE=sharded', () => {
  let database: TestDatabase;
  let db: Database;
  let writer: pg.Client;
  const clock = new ManualClock(Date.UTC(2026, 11, 3, 10));
  const deps = () => ({ db, clock });
  const add = (recordId: string) => addItem(deps(), setup, { batchId: 'horizon', recordId, proposedCategory: 'alpha', reason: 'order' });
  const lastId = async () => Number((await db.query<{ id: number }>('SELECT max("id") AS "id" FROM "Event"'))[0]?.id ?? 0);
  const cursor = async () =>
    Number((await db.query<{ id: number }>('SELECT "lastEventId" AS "id" FROM "WebhookCursor" WHERE "webhook" = ?', webhook.name))[0]?.id);
  const delivered = async () =>
    (await db.query<{ eventId: number }>('SELECT "eventId" FROM "WebhookDelivery" ORDER BY "eventId"')).map((row) => Number(row.eventId));
  const page = async (after: number) =>
    (await listEvents(deps(), { afterSequence: after }, { limit: 10, inverted: false })).map((event) => event.id);

  beforeAll(async () => {
    database = await testDatabase();
    db = await openDatabase({ location: database.location, writeMode: 'sharded' });
    await addCategories(deps(), setup, ['alpha']);
    writer = new pg.Client({ connectionString: database.url });
    await writer.connect();
  });
  afterAll(async () => {
    await writer?.end();
    await db?.close();
    await database?.cleanup();
  });

  it('holds a page of events and a webhook cursor back while an earlier writer runs, then lets both through', async () => {
    await add('before');
    // The webhook's cursor starts at the end of the history.
    expect(await enqueueWebhookDeliveries(deps(), webhook)).toBe(0);
    const start = await lastId();
    expect(await cursor()).toBe(start);

    // A writer that has taken its marker (as every sharded write does before its first event id) and not ended.
    await writer.query('BEGIN');
    await writer.query('SELECT pg_advisory_xact_lock_shared(741562, leasehold_allocated_event_id())');
    try {
      const later = await add('later');
      const laterEvent = await lastId();
      expect(laterEvent).toBeGreaterThan(start);
      expect(later.id).toBeGreaterThan(0);

      // Committed, yet past the horizon: neither a page nor the webhook's cursor may reach it yet.
      expect(await page(start)).toEqual([]);
      expect(await enqueueWebhookDeliveries(deps(), webhook)).toBe(0);
      expect(await cursor()).toBe(start);
      expect(await delivered()).toEqual([]);

      await writer.query('COMMIT');
      expect(await page(start)).toEqual([laterEvent]);
      expect(await enqueueWebhookDeliveries(deps(), webhook)).toBe(1);
      expect(await delivered()).toEqual([laterEvent]);
      expect(await cursor()).toBe(laterEvent);
    } finally {
      await writer.query('ROLLBACK').catch(() => undefined);
    }
  });
});
