// The load: reviewers claiming, renewing, releasing, deciding and abandoning leases at random; a proposer adding
// items while they work; and the killer, which SIGKILLs a random server at random moments and restarts it.
import type { KeyHolder } from '../support/process.js';
import type { HttpClients } from './client.js';
import type { Cluster } from './cluster.js';
import type { Decision, Ledger } from './ledger.js';
import { sleep } from './settings.js';

/** Leases run 30–60 s: the shortest allowed, so abandoned ones lapse (and are announced and re-claimed) during the run. */
export const MIN_LEASE_SECONDS = 30;
export const MAX_LEASE_SECONDS = 60;

export interface Load {
  clients: HttpClients;
  ledger: Ledger;
  /** True once the load should wind down: the time is up and every kill is done. */
  stopping(): boolean;
  /** When the load is due to end: a reviewer meant to come back late only does so if its lease lapses before. */
  endsAt: number;
}

const leaseSeconds = (random: () => number) => MIN_LEASE_SECONDS + Math.floor(random() * (MAX_LEASE_SECONDS - MIN_LEASE_SECONDS + 1));

export function pickDecision(random: () => number): Decision {
  const roll = random();
  return roll < 0.45 ? 'ACCEPTED' : roll < 0.75 ? 'CORRECTED' : 'REJECTED';
}

/**
 * One reviewer: claim, think for a moment, maybe renew, then decide (most often), release, or abandon the lease
 * (it then lapses). A reviewer marked `late` once sits on a lease past its expiry and then tries to decide: that
 * must be refused.
 */
export async function reviewer(load: Load, who: KeyHolder, random: () => number, late: boolean): Promise<void> {
  let lateDone = !late;
  while (!load.stopping()) {
    const held = await load.clients.claim(who, leaseSeconds(random));
    if (!held) {
      await sleep(50 + random() * 150);
      continue;
    }
    await sleep(random() * 20);
    if (!lateDone && held.expiresAt + 3_000 <= load.endsAt) {
      lateDone = true;
      load.ledger.count('http decide: sent late on purpose');
      await sleep(held.expiresAt - Date.now() + 500 + random() * 2_000);
      await load.clients.decide(held, pickDecision(random), true);
      continue;
    }
    if (random() < 0.2) {
      if (!(await load.clients.renew(held, leaseSeconds(random)))) continue;
      if (random() < 0.25 && !(await load.clients.renew(held, leaseSeconds(random)))) continue;
    }
    const roll = random();
    if (roll < 0.04) {
      load.ledger.count('http lease: abandoned');
      continue;
    }
    if (roll < 0.14) await load.clients.release(held);
    else await load.clients.decide(held, pickDecision(random));
  }
}

/** A second proposer adds small batches while the reviewers work, so claims and adds interleave. */
export async function liveProposer(load: Load, who: KeyHolder, random: () => number): Promise<void> {
  for (let batch = 0; !load.stopping(); batch++) {
    const items = Array.from({ length: 20 }, (_, index) => ({
      batchId: `live-${String(batch).padStart(4, '0')}`,
      recordId: `L-${String(index).padStart(3, '0')}`,
      proposedCategory: index % 2 === 0 ? 'alpha' : 'beta',
      reason: 'added while reviewers work',
    }));
    await load.clients.addItems(who, items);
    await sleep(400 + random() * 400);
  }
}

/**
 * SIGKILLs a random running server `kills` times, spread at random over `seconds` from `startedAt`, restarting each
 * in place. A kill waits until at least two servers are up, so one always survives it (its expiry announcer keeps
 * running); with two servers that means the last one killed is back. Returns the moments of the kills.
 */
export async function killer(cluster: Cluster, ledger: Ledger, kills: number, seconds: number, startedAt: number, random: () => number) {
  const killedAt: number[] = [];
  const restarts: Promise<void>[] = [];
  for (let index = 0; index < kills; index++) {
    const target = startedAt + (seconds * 1000 * (index + random())) / kills;
    await sleep(Math.max(0, target - Date.now()));
    while (cluster.slots.filter((slot) => slot.up).length < 2) {
      if (ledger.problems.some((problem) => problem.startsWith('restart after kill'))) return killedAt;
      await sleep(20);
    }
    // Not always right after a restart became ready.
    await sleep(random() * 250);
    const slot = cluster.pick(random);
    if (!slot) continue;
    await cluster.kill(slot);
    killedAt.push(Date.now());
    restarts.push(
      cluster.boot(slot).catch((error: unknown) => {
        ledger.problem(`restart after kill ${index + 1} failed: ${String(error)}`);
      }),
    );
  }
  await Promise.all(restarts);
  return killedAt;
}
