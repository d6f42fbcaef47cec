// A wall clock set back never stretches a lease: a process measures time monotonically, and a lease
// whose stored expiry lies further ahead than any lease can run (the reading clock is behind the one
// that granted it: a CLI command or a restarted server after the jump) is treated as lapsed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { ManualClock, monotonicClock, monotonicTime } from '../../src/domain/clock.js';
import { claimState } from '../../src/domain/lease.js';
import { ExpiryAnnouncer } from '../../src/events/expiry-announcer.js';
import { createLogger } from '../../src/logger.js';
import { addCategories } from '../../src/services/categories.js';
import type { Actor } from '../../src/services/context.js';
import { addItem } from '../../src/services/items.js';
import { claimItem, recordLapsedLeases, renewLease } from '../../src/services/leases.js';
import { findItemByKey, listItems } from '../../src/services/queries.js';
import { jsonLines, runLeasehold } from '../cli/support.js';
import { BACKEND, type TestDatabase, testDatabase } from '../support/database.js';

const HOUR = 3_600_000;
const setup: Actor = { name: 'setup', authenticated: false };
const tanaka: Actor = { name: 'tanaka', authenticated: false };
const suzuki: Actor = { name: 'suzuki', authenticated: false };

describe('monotonicTime', () => {
  it('does not follow a wall clock set back, follows one that gets ahead, never goes backwards', () => {
    const sources = { wall: Date.UTC(2026, 0, 1), elapsed: 0 };
    const now = monotonicTime({ wall: () => sources.wall, elapsed: () => sources.elapsed });
    const start = now();
    sources.wall -= HOUR;
    sources.elapsed += 1_000;
    sources.wall += 1_000;
    expect(now() - start).toBe(1_000);
    // Ahead by a suspend's worth of wall time that the monotonic count did not see.
    sources.wall += 2 * HOUR;
    expect(now() - start).toBe(HOUR + 1_000);
    sources.wall -= 10 * HOUR;
    expect(now() - start).toBe(HOUR + 1_000);
  });
});

describe(`leases under a clock set back (${BACKEND})`, () => {
  let database: TestDatabase;
  let db: Database;
  beforeEach(async () => {
    database = await testDatabase();
    db = await openDatabase({ location: database.location, synchronous: 'NORMAL' });
  });
  afterEach(async () => {
    await db.close();
    await database.cleanup();
  });

  /** The details of every LEASE_EXPIRED event. */
  async function lapses(): Promise<Record<string, unknown>[]> {
    const events = await db.query<{ details: string | object }>(`SELECT "details" FROM "Event" WHERE "type" = 'LEASE_EXPIRED'`);
    return events.map(({ details }) => (typeof details === 'string' ? JSON.parse(details) : details) as Record<string, unknown>);
  }

  async function addOne(clock: ManualClock | ReturnType<typeof monotonicClock>, recordId = 'r1'): Promise<void> {
    await addCategories({ db, clock }, setup, ['配送']).catch(() => undefined);
    await addItem({ db, clock }, setup, { batchId: 'b', recordId, proposedCategory: '配送', reason: 'check' });
  }

  it('in one process, a wall clock set back an hour does not move a lease: it lapses leaseSeconds after its claim', async () => {
    const sources = { wall: Date.UTC(2026, 10, 30, 9), elapsed: 0 };
    const clock = monotonicClock({ wall: () => sources.wall, elapsed: () => sources.elapsed });
    const deps = { db, clock };
    await addOne(clock);
    const claim = await claimItem(deps, tanaka, { leaseSeconds: 300 });
    expect(claim).not.toBeNull();

    const pass = (ms: number) => {
      sources.wall += ms;
      sources.elapsed += ms;
    };
    sources.wall -= HOUR;
    pass(299_000);
    expect(claimState(await findItemByKey(deps, 'b', 'r1'), clock.now())).toBe('ACTIVE');
    expect(await claimItem(deps, suzuki, { leaseSeconds: 300 })).toBeNull();
    pass(1_000);
    expect(claimState(await findItemByKey(deps, 'b', 'r1'), clock.now())).toBe('EXPIRED');
    await expect(renewLease(deps, tanaka, { token: claim?.token ?? '' })).rejects.toMatchObject({ code: 'CLAIM_EXPIRED' });
    const again = await claimItem(deps, suzuki, { leaseSeconds: 300 });
    expect(again?.item.claimedBy).toBe('suzuki');
  });

  it('a clock behind the one that granted a lease by more than the longest lease treats it as lapsed, and recording the lapse keeps it so', async () => {
    const granting = new ManualClock(Date.UTC(2026, 10, 30, 10));
    await addOne(granting);
    const claim = await claimItem({ db, clock: granting }, tanaka, { leaseSeconds: 300 });
    // A process started after the wall clock was set back an hour.
    const behind = new ManualClock(granting.now().getTime() - HOUR + 10_000);
    const deps = { db, clock: behind };
    expect(claimState(await findItemByKey(deps, 'b', 'r1'), behind.now())).toBe('EXPIRED');
    await expect(renewLease(deps, tanaka, { token: claim?.token ?? '' })).rejects.toMatchObject({ code: 'CLAIM_EXPIRED' });
    expect(await recordLapsedLeases(deps)).toBe(1);
    // Recorded: its expiry is now the moment of the lapse, so it stays lapsed when this clock reaches
    // the time it was granted at (where, unrecorded, it would have looked active for 300 s more).
    behind.set(granting.now().getTime() + 60_000);
    const item = await findItemByKey(deps, 'b', 'r1');
    expect(claimState(item, behind.now())).toBe('EXPIRED');
    await expect(renewLease(deps, tanaka, { token: claim?.token ?? '' })).rejects.toMatchObject({ code: 'CLAIM_EXPIRED' });
    const recorded = await lapses();
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ holder: 'tanaka', overlong: true });
  });

  it('a clock behind lists an overlong lease under EXPIRED, not ACTIVE nor its holder, and counts it expired, before and after its lapse is recorded', async () => {
    const granting = new ManualClock(Date.UTC(2026, 10, 30, 10));
    const behind = new ManualClock(granting.now().getTime() - HOUR + 10_000);
    // A lease the clock behind granted itself, running for it, and one from the clock ahead.
    await addOne(behind, 'running');
    await claimItem({ db, clock: behind }, suzuki, { leaseSeconds: 3_600 });
    await addItem({ db, clock: granting }, setup, { batchId: 'ahead', recordId: 'overlong', proposedCategory: '配送', reason: 'check' });
    await claimItem({ db, clock: granting }, tanaka, { leaseSeconds: 300, batchId: 'ahead' });
    const deps = { db, clock: behind };
    const tail = await db.openTail();
    try {
      const check = async () => {
        const page = { limit: 10, inverted: false };
        const records = async (filter: Parameters<typeof listItems>[1]) =>
          (await listItems(deps, filter, page)).map((item) => item.recordId);
        expect(await records({ claimState: 'ACTIVE' })).toEqual(['running']);
        expect(await records({ claimState: 'EXPIRED' })).toEqual(['overlong']);
        expect(await records({ holder: 'tanaka' })).toEqual([]);
        expect(await records({ holder: 'suzuki' })).toEqual(['running']);
        expect(await tail.queueStats(behind.now())).toMatchObject({ pending: 2, active: 1, expired: 1, unclaimed: 0 });
      };
      await check();
      expect(await recordLapsedLeases(deps)).toBe(1);
      // Recorded lapsed, and later within the longest lease of this clock: still not active (and the
      // hour-long lease this clock granted still running).
      behind.set(granting.now().getTime() - 60_000);
      await check();
    } finally {
      await tail.close();
    }
  });

  it('the expiry announcer of a clock behind records an overlong lease at once, with no other lease to wake it', async () => {
    const granting = new ManualClock(Date.UTC(2026, 10, 30, 10));
    await addOne(granting);
    await claimItem({ db, clock: granting }, tanaka, { leaseSeconds: 300 });
    const behind = new ManualClock(granting.now().getTime() - HOUR + 10_000);
    const tail = await db.openTail();
    const announcer = new ExpiryAnnouncer({ db, clock: behind }, tail, createLogger('silent'));
    try {
      announcer.start();
      // Its timer is due at once (the manual clock fires timers due at its time), not when this clock
      // reaches the stored expiry, an hour on.
      for (let attempt = 0; attempt < 100 && (await lapses()).length === 0; attempt++) {
        await announcer.settled();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect((await lapses())[0]).toMatchObject({ holder: 'tanaka', overlong: true });
      expect(claimState(await findItemByKey({ db, clock: behind }, 'b', 'r1'), behind.now())).toBe('EXPIRED');
    } finally {
      announcer.stop();
      await tail.close();
    }
  });

  it('a lease within the longest lease of a clock behind stays active (small steps back do not end leases)', async () => {
    const granting = new ManualClock(Date.UTC(2026, 10, 30, 10));
    await addOne(granting);
    await claimItem({ db, clock: granting }, tanaka, { leaseSeconds: 300 });
    const behind = new ManualClock(granting.now().getTime() - 60_000);
    expect(claimState(await findItemByKey({ db, clock: behind }, 'b', 'r1'), behind.now())).toBe('ACTIVE');
    expect(await claimItem({ db, clock: behind }, suzuki, { leaseSeconds: 300 })).toBeNull();
  });

  // Seed A's command line works on SQLite files.
  if (BACKEND === 'sqlite')
    it('the CLI, reading a wall clock an hour behind the server that granted the lease, shows it expired and claims it', async () => {
      const file = database.location.dialect === 'sqlite' ? database.location.file : '';
      const server = new ManualClock(Date.now() + HOUR + 30_000);
      await addOne(server);
      await claimItem({ db, clock: server }, tanaka, { leaseSeconds: 300 });
      await db.close();
      const cwd = file.replace(/\/[^/]+$/, '');
      const show = await runLeasehold(['show', file, '--batch-id', 'b', '--record-id', 'r1'], { cwd });
      expect(show.code, show.stderr).toBe(0);
      expect(jsonLines(show.stdout)[0]).toMatchObject({ claim_state: 'expired', claimed_by: 'tanaka' });
      const claimed = await runLeasehold(['claim', file, '--reviewer', 'suzuki'], { cwd });
      expect(claimed.code, claimed.stderr).toBe(0);
      expect(jsonLines(claimed.stdout)[0]).toMatchObject({ claimed: true, claimed_by: 'suzuki', record_id: 'r1' });
      db = await openDatabase({ location: database.location, synchronous: 'NORMAL' });
    });
});
