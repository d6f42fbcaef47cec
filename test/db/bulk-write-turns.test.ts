// A bulk write gives the event loop turns: SQLite's statements are synchronous, and an `addItems` of 500
// held the loop 55–200 ms in one go, with no request, live stream or health probe served meanwhile.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { systemClock } from '../../src/domain/clock.js';
import { addCategories } from '../../src/services/categories.js';
import type { Actor } from '../../src/services/context.js';
import { addItems, WRITE_SLICE_MS, writeSlicing } from '../../src/services/items.js';
import { type TestDatabase, testDatabase } from '../support/database.js';

const ACTOR: Actor = { name: 'bulk', authenticated: true };

describe('bulk writes and the event loop', () => {
  let scratch: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    scratch = await testDatabase();
    db = await openDatabase({ location: scratch.location });
    await addCategories({ db, clock: systemClock }, ACTOR, ['c']);
  });
  afterAll(async () => {
    await db.close();
    await scratch.cleanup();
  });

  afterEach(() => {
    writeSlicing.budgetMs = WRITE_SLICE_MS;
  });

  it('addItems of 500 gives the event loop a turn between its statements once its slice is spent', async () => {
    const deps = { db, clock: systemClock };
    const items = (batchId: string) =>
      Array.from({ length: 500 }, (_, index) => ({ batchId, recordId: String(index), proposedCategory: 'c', reason: 'r' }));
    // A spent slice at every check: how many turns the code gives does not hang on the machine's speed.
    // (How long each slice holds the loop on a real file is measured by the bench: server loop delay.)
    writeSlicing.budgetMs = 0;
    let turns = 0;
    let running = true;
    const turn = () => {
      turns++;
      if (running) setImmediate(turn);
    };
    setImmediate(turn);
    const outcomes = await addItems(deps, ACTOR, items('bulk'));
    running = false;
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    // 500 items are inserted by five statements of 100, each after a turn. (Without the slices: one turn,
    // when the write was queued.)
    expect(turns).toBeGreaterThanOrEqual(5);
  });
});
