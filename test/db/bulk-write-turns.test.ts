// A bulk write gives the event loop turns: SQLite's statements are synchronous, and an `addItems` of 500
// held the loop 55–200 ms in one go, with no request, live stream or health probe served meanwhile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { systemClock } from '../../src/domain/clock.js';
import { addCategories } from '../../src/services/categories.js';
import type { Actor } from '../../src/services/context.js';
import { addItems, WRITE_SLICE_MS } from '../../src/services/items.js';
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

  it(`addItems of 500 never works more than about ${WRITE_SLICE_MS} ms without a turn of the event loop`, async () => {
    const deps = { db, clock: systemClock };
    const items = (batchId: string) =>
      Array.from({ length: 500 }, (_, index) => ({ batchId, recordId: String(index), proposedCategory: 'c', reason: 'r' }));
    // A first call compiles the code paths: the compiler's threads count in the process's CPU time (a clean
    // clone once measured 5 turns for ~150 ms of it) but never hold the loop.
    await addItems(deps, ACTOR, items('warm-up'));
    // Turns of the event loop while it runs.
    let turns = 0;
    let running = true;
    const turn = () => {
      turns++;
      if (running) setImmediate(turn);
    };
    setImmediate(turn);
    const cpu = process.cpuUsage();
    const outcomes = await addItems(deps, ACTOR, items('bulk'));
    const { user, system } = process.cpuUsage(cpu);
    running = false;
    const cpuMs = (user + system) / 1000;
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    // A turn for every few ms of work, counted in CPU time: on a loaded machine the process is also
    // descheduled, which stretches wall time but not the work between two turns. The process's CPU time
    // also counts its other threads (garbage collection), hence the slack. (Without the slices: 1 turn for
    // 45+ ms of work.)
    expect(turns).toBeGreaterThanOrEqual(Math.max(2, Math.floor(cpuMs / (6 * WRITE_SLICE_MS))));
  });
});
