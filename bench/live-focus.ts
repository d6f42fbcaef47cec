// The live-at-scale part's three live phases alone, on a small file, for comparing variants quickly (a few
// minutes a run instead of the whole part): one reviewer looping claim → decide with 1,000 subscribers of the
// dashboard's queueEvents document watching; 300 addItem events at 100/s to them; then 20 addItems of 500
// while the reviewer loops, until the last subscriber has the last ITEM_ADDED. PROFILE=1 profiles the server
// over each phase (top functions printed, .cpuprofile files left in the temp folder); SUBS=N changes the
// subscribers (LEASEHOLD_BENCH_SERVER_FLAGS adds flags to the server's node, see bench/server.ts). Each phase
// prints the server's event-loop delay p99 and its GC pauses, from /metrics, and an idle bystander process's.
// `npx tsx bench/live-focus.ts` (builds dist/ first, as npm run bench does).
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventsSubscription } from '../web/dashboard/documents.js';
import { Bystander } from './bystander.js';
import { processCpuMs } from './fanout.js';
import { gqlBody, graphqlClient } from './http.js';
import { keysNamed, makeKeys, principals } from './keys.js';
import { cycleUntil } from './live-scale.js';
import { LoopDelayProbe } from './live-scale-loop.js';
import { SubscriberGroup } from './live-scale-subscribers.js';
import { cycleCell, noErrors, seedItems } from './load.js';
import { sqliteStore } from './postgres.js';
import { type CpuProfile, connectProfiler, inspectorUrl, summariseProfile } from './profile.js';
import { build, startServer } from './server.js';

const SUBSCRIBERS = Number(process.env.SUBS ?? 1000);
const CATEGORY = 'bench-live-scale';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'leasehold-live-focus-'));
build();
const store = await sqliteStore(tmp, 'focus');
const subscriberNames = principals('lf-sub', SUBSCRIBERS, ['VIEWER']).map((principal) => principal.name);
const keys = await makeKeys(store.location, [
  { name: 'lf-admin', roles: ['ADMIN'] },
  { name: 'lf-proposer', roles: ['PROPOSER'] },
  { name: 'lf-reviewer', roles: ['REVIEWER'] },
  ...subscriberNames.map((name) => ({ name, roles: ['VIEWER' as const] })),
]);
const [admin, proposer, reviewer] = keysNamed(keys, ['lf-admin', 'lf-proposer', 'lf-reviewer']) as [
  (typeof keys)[number],
  (typeof keys)[number],
  (typeof keys)[number],
];
await store.seed({ items: 20_000, category: CATEGORY, admin: admin.name, proposer: proposer.name, prefix: 'lf' });
const server = await startServer({
  databaseFile: path.join(tmp, 'focus.db'),
  synchronous: 'NORMAL',
  nodeFlags: process.env.PROFILE === '1' ? ['--inspect=127.0.0.1:0'] : [],
});
const profiler = process.env.PROFILE === '1' ? await connectProfiler(inspectorUrl(server.logs) as string) : null;
const claimed = new Set<string>();
const bystander = Bystander.start();

async function profiled<T>(label: string, phase: () => Promise<T>): Promise<T> {
  const loop = new LoopDelayProbe(server.port, admin);
  await loop.start();
  await bystander.mark();
  await profiler?.start();
  const result = await phase();
  const delay = await loop.stop();
  const idle = await bystander.read();
  console.log(
    `   ${label}: loop delay p99 ${delay.p99.toFixed(1)} ms (an idle bystander process's: p50 ${idle.p50.toFixed(1)} / p99 ${idle.p99.toFixed(1)} / max ${idle.max.toFixed(1)} ms); GC ${delay.gc?.count ?? '?'} pauses, ${delay.gc?.over10ms ?? '?'} ≥ 10 ms, ${delay.gc?.totalMs.toFixed(0) ?? '?'} ms in all`,
  );
  if (profiler) {
    const profile: CpuProfile = await profiler.stop();
    writeFileSync(path.join(tmp, `${label}.cpuprofile`), JSON.stringify(profile));
    const summary = summariseProfile(profile, 15);
    for (const entry of summary.functions) console.log(`   ${(entry.share * 100).toFixed(1)}% ${entry.name} ${entry.where}`);
  }
  return result;
}

const group = await SubscriberGroup.open(server.port, keysNamed(keys, subscriberNames), 2, EventsSubscription.toString());
const mutator = graphqlClient(server.port, 32);
const addItem = (batchId: string, recordId: string) =>
  mutator.post(
    gqlBody('mutation ($input: AddItemInput!) { addItem(input: $input) { __typename } }', {
      input: { batchId, recordId, proposedCategory: CATEGORY, reason: 'Live focus.' },
    }),
    { authorization: proposer.authorization },
  );
/** Waits until every subscriber has everything committed so far. */
async function settled(): Promise<number> {
  const end = await store.history.latestSequence();
  while ((await group.lowestHighest()) < end) await sleep(20);
  return end;
}
try {
  for (let sentinel = 0; (await group.withEvents()) < SUBSCRIBERS; sentinel++) {
    await addItem('lf-warm', `w${sentinel}`);
    await sleep(100);
  }
  await settled();

  // 1. The reviewer with the subscribers watching (its own two events a cycle reach every one).
  await profiled('watched', async () => {
    const before = processCpuMs(server.pid);
    const cell = await cycleCell(server.port, { concurrency: 1, warmupMs: 500, durationMs: 5000 }, claimed, [reviewer]);
    console.log(
      `watched: ${cell.rate.toFixed(1)} cycles/s, claim p50 ${cell.latency.claim?.p50.toFixed(2)} ms, server ${((processCpuMs(server.pid) - before) / 5500).toFixed(2)} cores`,
    );
  });

  // 2. 300 addItem events at 100/s.
  const start = await settled();
  await group.mark(start);
  await profiled('fanout', async () => {
    const before = processCpuMs(server.pid);
    const began = Date.now();
    const sends: Promise<unknown>[] = [];
    for (let index = 0; index < 300; index++) {
      const wait = began + index * 10 - Date.now();
      if (wait > 0) await sleep(wait);
      sends.push(addItem('lf-fanout', `f${index}`));
    }
    await Promise.all(sends);
    const end = await settled();
    const tally = await group.tally(end - start, end);
    const perDelivery = (ms: number) => ((ms * 1000) / Math.max(1, tally.delivered)).toFixed(1);
    console.log(
      `fan-out: ${tally.delivered} deliveries (${tally.missing} missing, ${tally.duplicates} duplicate) in ${((Date.now() - began) / 1000).toFixed(1)} s; receipt − occurredAt p50 ${tally.latency.p50} / p99 ${tally.latency.p99} ms; server ${perDelivery(processCpuMs(server.pid) - before)} µs, subscriber processes ${perDelivery(tally.workerCpuMs)} µs per delivery`,
    );
  });

  // 3. A bulk of 10,000 while the reviewer loops.
  await settled();
  await profiled('bulk', async () => {
    let stop = false;
    const cycling = cycleUntil(server.port, reviewer, claimed, noErrors(), () => stop);
    const before = processCpuMs(server.pid);
    const began = performance.now();
    const seed = { added: 0, category: CATEGORY };
    for (let call = 0; call < 20; call++) await seedItems(server.port, proposer, seed, 500, 'lfbulk');
    const addSeconds = (performance.now() - began) / 1000;
    const last = await store.count(`SELECT max("id") FROM "Event" WHERE "type" = 'ITEM_ADDED'`);
    let lastSeconds = Number.NaN;
    while (performance.now() - began < 240_000) {
      if ((await group.lowestHighest()) >= last) {
        lastSeconds = (performance.now() - began) / 1000;
        break;
      }
      await sleep(50);
    }
    const window = (performance.now() - began) / 1000;
    stop = true;
    const cycles = await cycling;
    console.log(
      `bulk: added in ${addSeconds.toFixed(1)} s; the last subscriber had the last ITEM_ADDED after ${lastSeconds.toFixed(1)} s (240 s at most); ${(cycles / window).toFixed(1)} cycles/s meanwhile (${cycles} cycles, each 2 events to every subscriber); server ${((processCpuMs(server.pid) - before) / 1000 / window).toFixed(2)} cores`,
    );
  });
} finally {
  mutator.close();
  await group.close();
  profiler?.close();
  await bystander.stop();
  await server.stop();
  await store.dispose();
}
