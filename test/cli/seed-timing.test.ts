// Differential tests that wait on the clock: a lease that runs out (the one test here that waits for
// real, 31 s, for seed A's 30-second minimum lease) and items added within one second. They run
// side by side so the wait is shared.
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { addArgs as add, jsonLines, SEED_A_MISSING, SEED_A_TESTS_RUN, scenario, useSeedScript } from './support.js';

describe.runIf(SEED_A_TESTS_RUN)(`leasehold vs seed A, on the clock${SEED_A_MISSING}`, () => {
  const seed = useSeedScript();

  // The expiry test waits 31 s for real; running the CLI from sources (a stale dist/) adds ~0.3 s a command.
  describe.concurrent('timing', { timeout: 120_000 }, () => {
    it('[waits 31 s] an expired lease: claim_expired for its token, re-claim by anyone with a new token, then claim_not_found', () =>
      scenario(seed.path, async (d) => {
        await d.expect(add('b', 'r1'), { exit: 0 });
        await d.expect(
          ['claim', 'r.db', '--reviewer', 'tanaka', '--lease-seconds', '30'],
          { exit: 0 },
          { capture: 'old', stdoutTo: 'old.json' },
        );
        await d.expect(['show', 'r.db', '--batch-id', 'b', '--record-id', 'r1'], {
          exit: 0,
          json: { claim_state: 'active', claimed_by: 'tanaka' },
        });
        await new Promise((resolve) => setTimeout(resolve, 31_000));
        await d.expect(['show', 'r.db', '--batch-id', 'b', '--record-id', 'r1'], {
          exit: 0,
          json: { claim_state: 'expired', claimed_by: 'tanaka' },
        });
        await d.expect(['renew', 'r.db', '--claim-json', 'old.json'], { exit: 2, error: 'claim_expired' });
        await d.expect(['release', 'r.db', '--token', '{token:old}'], { exit: 2, error: 'claim_expired' });
        await d.expect(['decide', 'r.db', '--token', '{token:old}', '--decision', 'accepted'], { exit: 2, error: 'claim_expired' });
        await d.expect(['decide', 'r.db', '--token', '{token:old}', '--decision', 'corrected', '--category', '未知'], {
          exit: 2,
          error: 'claim_expired',
        });
        await d.expect(
          ['claim', 'r.db', '--reviewer', 'suzuki', '--lease-seconds', '60'],
          { exit: 0, json: { record_id: 'r1', claimed_by: 'suzuki' } },
          { capture: 'new' },
        );
        expect(d.token('leasehold', 'new')).not.toBe(d.token('leasehold', 'old'));
        await d.expect(['renew', 'r.db', '--claim-json', 'old.json'], { exit: 2, error: 'claim_not_found' });
        await d.expect(['decide', 'r.db', '--token', '{token:old}', '--decision', 'accepted'], { exit: 2, error: 'claim_not_found' });
        await d.expect(['show', 'r.db', '--batch-id', 'b', '--record-id', 'r1'], {
          exit: 0,
          json: { claim_state: 'active', claimed_by: 'suzuki' },
        });
        await d.expect(['decide', 'r.db', '--token', '{token:new}', '--decision', 'accepted'], {
          exit: 0,
          json: { status: 'accepted', final_category: '配送', reviewed_by: 'suzuki' },
        });
        await d.expect(['show', 'r.db', '--batch-id', 'b', '--record-id', 'r1'], {
          exit: 0,
          json: { claim_state: 'not_applicable', claimed_by: null },
        });

        // Leasehold also kept the history seed A has no room for, the lapse included.
        const db = new Database(path.join(d.dirs.leasehold, 'r.db'), { readonly: true });
        try {
          const events = db.prepare('SELECT "type", "actor" FROM "Event" WHERE "itemId" IS NOT NULL ORDER BY "id"').all();
          expect(events).toEqual([
            { type: 'ITEM_ADDED', actor: expect.any(String) },
            { type: 'LEASE_CLAIMED', actor: 'tanaka' },
            { type: 'LEASE_EXPIRED', actor: 'system' },
            { type: 'LEASE_CLAIMED', actor: 'suzuki' },
            { type: 'ITEM_DECIDED', actor: 'suzuki' },
          ]);
        } finally {
          db.close();
        }
      }));

    it('items added in the same second are claimed in (batch_id, record_id) order; an older item first', async () => {
      const keys: [string, string][] = [
        ['b', '2'],
        ['b', '10'],
        ['a', 'x'],
        ['b', '1'],
      ];
      // The four adds run at once, in reverse order; if either side's burst straddled a second the
      // attempt proves nothing about the order, so it is made again (at most five times). Ours start at
      // the point of a second that puts their writes in its middle, going by how long one add took: on a
      // loaded machine a command takes more than a second from its start to its write.
      for (let attempt = 1; ; attempt++) {
        let straddled = false;
        await scenario(seed.path, async (d) => {
          const started = performance.now();
          await d.expect(add('z-batch', 'r1'), { exit: 0 });
          const tookMs = performance.now() - started;
          await d.burst(
            keys.map(([batch, record]) => add(batch, record)),
            { startAtMs: { leasehold: Math.round((((500 - tookMs) % 1000) + 1000) % 1000) } },
          );
          const seconds = d.creationSeconds(keys);
          if ((seconds.seed !== 1 || seconds.leasehold !== 1) && attempt < 5) {
            straddled = true;
            return;
          }
          expect(seconds).toEqual({ seed: 1, leasehold: 1 });
          const order: string[] = [];
          for (let index = 0; index < 5; index++) {
            const claim = await d.expect(['claim', 'r.db', '--reviewer', `rev${index}`], { exit: 0, json: { claimed: true } });
            const claimed = jsonLines(claim.leasehold.stdout)[0] as Record<string, string>;
            order.push(`${claimed.batch_id}/${claimed.record_id}`);
          }
          // Byte order of (batch_id, record_id): '1' < '10' < '2'; the item added a second earlier first.
          expect(order).toEqual(['z-batch/r1', 'a/x', 'b/1', 'b/10', 'b/2']);
          await d.expect(['claim', 'r.db', '--reviewer', 'a'], { exit: 0, json: { claimed: false } });
        });
        if (!straddled) break;
      }
    });
  });
});
