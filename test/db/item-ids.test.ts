// Item ids follow the input with no gap, as they would added one by one (seed A's ids, and the same on
// both backends): an item refused as a duplicate spends no id, whether it is already in the queue or
// earlier in the same call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { ManualClock } from '../../src/domain/clock.js';
import { addCategories } from '../../src/services/categories.js';
import { addItem, addItems } from '../../src/services/items.js';
import { BACKEND, type TestDatabase, testDatabase } from '../support/database.js';

const proposer = { name: 'ids', authenticated: false };

describe(`item ids have no gaps after refused duplicates (${BACKEND})`, () => {
  let database: TestDatabase;
  let db: Database;
  const clock = new ManualClock(Date.UTC(2026, 11, 3, 11));
  const item = (recordId: string) => ({ batchId: 'ids', recordId, proposedCategory: 'alpha', reason: 'why' });

  beforeAll(async () => {
    database = await testDatabase();
    db = await openDatabase({ location: database.location });
    await addCategories({ db, clock }, proposer, ['alpha']);
  });
  afterAll(async () => {
    await db?.close();
    await database?.cleanup();
  });

  it('numbers the added items one after another, skipping nothing for the refused ones', async () => {
    const first = await addItem({ db, clock }, proposer, item('queued'));
    // Ten rows go in one statement: the one already queued is among them.
    const more = ['d', 'e', 'f', 'g', 'h', 'i', 'j'];
    const outcomes = await addItems({ db, clock }, proposer, [
      item('a'),
      item('queued'),
      item('b'),
      item('a'),
      item('c'),
      ...more.map(item),
    ]);
    expect(outcomes.map((outcome) => (outcome.ok ? outcome.item.recordId : outcome.error.code))).toEqual([
      'a',
      'DUPLICATE_ITEM',
      'b',
      'DUPLICATE_ITEM',
      'c',
      ...more,
    ]);
    const ids = outcomes.flatMap((outcome) => (outcome.ok ? [outcome.item.id] : []));
    expect(ids).toEqual(Array.from({ length: 10 }, (_, n) => first.id + 1 + n));
    const events = await db.query<{ itemId: number }>(
      `SELECT "itemId" FROM "Event" WHERE "type" = 'ITEM_ADDED' AND "itemId" > ? ORDER BY "id"`,
      first.id,
    );
    expect(events.map((event) => Number(event.itemId))).toEqual(ids);
    const next = await addItem({ db, clock }, proposer, item('z'));
    expect(next.id).toBe(first.id + 11);
  });
});
