// "Live at scale" (issue 14): on one large queue, side by side in one run — review cycles/s with and without an open
// dashboard, the latency of each dashboard/operator read, fan-out CPU and latency to many subscribers of the
// dashboard's queueEvents document, the server's event-loop delay, and a bulk addItems while they all watch.
// On SQLite, and on PostgreSQL when an admin URL is set (see postgres.ts).
import { rmSync } from 'node:fs';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { SEED_BATCH } from '../test/support/seed-file.js';
import { EventsSubscription } from '../web/dashboard/documents.js';
import { processCpuMs } from './fanout.js';
import { gqlBody, graphqlClient } from './http.js';
import { type BenchKey, keysNamed, makeKeys, principals } from './keys.js';
import { CpuProbe, type CpuShares } from './live-scale-cpu.js';
import { DashboardPage, type DashboardTally, describeClose } from './live-scale-dashboard.js';
import { runImport, writeImportFile } from './live-scale-import.js';
import { LOOP_FALLBACK, type LoopDelay, LoopDelayProbe } from './live-scale-loop.js';
import { measureReads, type ReadResult } from './live-scale-reads.js';
import { SubscriberGroup, type Tally } from './live-scale-subscribers.js';
import { claimOnce, cycleCell, decideOnce, type ErrorCounts, noErrors, type SeedState, seedItems, totalErrors } from './load.js';
import { postgresAdminUrl, postgresStore, type Store, sqliteStore } from './postgres.js';
import { type RunningServer, startServer } from './server.js';
import type { Verification } from './verification.js';

export interface LiveScaleOptions {
  quick: boolean;
  /** Pending items seeded on SQLite, and on PostgreSQL. */
  items: number;
  pgItems: number;
  /** Run the PostgreSQL side when an admin URL is set. */
  postgres: boolean;
  subscribers: number;
  wsWorkers: number;
  /**
   * The subscriber processes' niceness (`--live-scale-subscriber-nice`): 0 runs them as the server runs; 10
   * lets the server and the review client have the cores first, as if the dashboards ran on other machines
   * (they still get every core the server leaves idle).
   */
  subscriberNice: number;
  /** Alternating windows without / with the dashboard, each measured this long after a warm-up. */
  cycleRounds: number;
  cycleWarmupMs: number;
  cycleWindowMs: number;
  readSamples: number;
  /** Events offered to the subscribers at FANOUT_RATE per second. */
  fanOutEvents: number;
  /** addItems calls of SEED_BATCH items, back to back. */
  bulkCalls: number;
  /** Longest wait for the last subscriber to have the bulk's last event. */
  bulkTimeoutMs: number;
  /** Items `leasehold import` adds from a file while the subscribers watch (SQLite; 0: no import phase). */
  importItems: number;
}

export const FANOUT_RATE = 100;
/** Leases held across the run, so the claim-state and holder filters have something to find. */
export const HELD_LEASES = 20;
const CATEGORY = 'bench-live-scale';
const PREFIX = 'ls';

/** What watches the queue during a review window. */
export type Watch = 'nothing' | 'queueStats' | 'dashboard';
const WATCHES: readonly Watch[] = ['nothing', 'queueStats', 'dashboard'];

export interface CycleWindow {
  watch: Watch;
  rate: number;
  claimP50: number;
  loop: LoopDelay;
}

export interface FanOutFigures {
  events: number;
  seconds: number;
  tally: Tally;
  /** Server CPU over the window ÷ deliveries (µs). */
  cpuPerDeliveryUs: number;
  serverCpuShare: number;
  loop: LoopDelay;
}

export interface BulkFigures {
  items: number;
  /** First addItems sent → last addItems answered (s). */
  addSeconds: number;
  /** First addItems sent → every subscriber has the bulk's last event (s); NaN when it did not happen in time. */
  lastSubscriberSeconds: number;
  statsUpdatesPerSecond: number;
  cyclesPerSecond: number;
  /** ÷ the review rate without a dashboard, measured earlier on the same server. */
  cyclesRatio: number;
  /**
   * The review rate with the subscribers watching and no bulk, measured just before it: the reviewer's
   * own events go to every subscriber too (two per cycle, so 2,000 deliveries a cycle with 1,000), which
   * the rate without a dashboard does not pay for. Tells what the bulk costs from what the watchers do.
   */
  watchedRate: number;
  tally: Tally;
  loop: LoopDelay;
  /** Where the machine's CPU went over the window. */
  cpu: CpuShares;
  /** The server's CPU from the bulk's start until the slowest subscriber had the window's last event, per delivery (review requests included). */
  cpuPerDeliveryUs: number;
  /** Events (mostly the review loop's) not yet at the slowest subscriber when the loop stopped. */
  backlogEvents: number;
  /** How long they took to reach every subscriber after that (s); NaN when not within the time allowed. */
  backlogSeconds: number;
}

export interface ImportFigures {
  items: number;
  /** The import process, start to exit (s). */
  seconds: number;
  /** Events the import wrote, and how many of them the slowest subscriber had when it ended. */
  events: number;
  slowestHad: number;
  statsUpdatesPerSecond: number;
  cyclesPerSecond: number;
  /** ÷ the review rate without a dashboard, measured earlier on the same server. */
  cyclesRatio: number;
  tally: Tally;
  loop: LoopDelay;
  /** Where the machine's CPU went while the import ran. */
  cpu: CpuShares;
}

export interface BackendFigures {
  backend: 'sqlite' | 'postgresql';
  items: number;
  seedSeconds: number;
  startSeconds: number;
  windows: CycleWindow[];
  withoutRate: number;
  /** With one queueStats subscription only: tells the counts' cost from the rest of the page's. */
  statsRate: number;
  withRate: number;
  dashboard: DashboardTally;
  reads: ReadResult[];
  readsLoop: LoopDelay;
  fanOut: FanOutFigures;
  bulk: BulkFigures;
  /** Null on PostgreSQL (the command line's import writes SQLite files) or when not asked for. */
  imported: ImportFigures | null;
}

export interface LiveScaleReport {
  options: LiveScaleOptions;
  loadAverage: string;
  backends: BackendFigures[];
  /** Why PostgreSQL was not measured, when it was not. */
  postgresSkipped: string | null;
  seconds: number;
  verifications: Verification[];
  serverLogLines: string[];
}

const int = (value: number) => Math.round(value).toLocaleString('en-US');
const batchId = (index: number) => `${PREFIX}-${String(index).padStart(6, '0')}`;

const CLAIM_IN_BATCH = `mutation ($batchId: String, $leaseSeconds: Int) {
  claimItem(input: { batchId: $batchId, leaseSeconds: $leaseSeconds }) { __typename ... on ClaimItemPayload { claimed } }
}`;

/** `count` claims of items of `batch` as `key`, each with a lease of `leaseSeconds`. */
async function holdLeases(port: number, key: BenchKey, batch: string, count: number, leaseSeconds: number): Promise<void> {
  const client = graphqlClient(port, 1);
  try {
    for (let index = 0; index < count; index++) {
      const reply = await client.post(gqlBody(CLAIM_IN_BATCH, { batchId: batch, leaseSeconds }), { authorization: key.authorization });
      if (!reply.body.includes('"claimed":true')) throw new Error(`claim in ${batch} failed: ${reply.body.slice(0, 300)}`);
    }
  } finally {
    client.close();
  }
}

/** Review cycles as `key`, one at a time, until `stopped()`; counts those completed. */
export async function cycleUntil(port: number, key: BenchKey, claimedIds: Set<string>, errors: ErrorCounts, stopped: () => boolean) {
  const client = graphqlClient(port, 1);
  const auth = { authorization: key.authorization };
  let completed = 0;
  try {
    while (!stopped() && totalErrors(errors) < 100) {
      const claimed = await claimOnce(client, auth, errors, claimedIds);
      if (claimed && (await decideOnce(client, auth, errors, claimed)) !== null) completed++;
    }
  } finally {
    client.close();
  }
  return completed;
}

/** Counts queueStats payloads on a connection of its own (what one dashboard's counts receive). */
function watchStats(port: number, key: BenchKey) {
  let updates = 0;
  const errors: string[] = [];
  const client = createClient({
    url: `ws://127.0.0.1:${port}/graphql`,
    connectionParams: { authorization: key.authorization },
    webSocketImpl: WebSocket,
    lazy: false,
    retryAttempts: 0,
    onNonLazyError: (error) => errors.push(`connection: ${describeClose(error)}`),
  });
  const dispose = client.subscribe(
    { query: 'subscription { queueStats { pending sequence } }' },
    {
      next: (result) => {
        if (result.errors?.length) errors.push(JSON.stringify(result.errors));
        else updates++;
      },
      error: (error) => errors.push(describeClose(error)),
      complete: () => undefined,
    },
  );
  return {
    updates: () => updates,
    errors,
    async close() {
      dispose();
      await client.dispose();
    },
  };
}

const ADD_ITEM = `mutation ($input: AddItemInput!) { addItem(input: $input) { __typename } }`;

/** Waits until every subscriber has every event committed so far, and no new one came meanwhile; returns the last sequence. */
async function settle(store: Store, group: SubscriberGroup, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const end = await store.history.latestSequence();
    while ((await group.lowestHighest()) < end) {
      if (Date.now() > deadline) {
        const where = (await group.statuses()).map(
          (status) => `${status.atLowest} at ${status.lowestHighest} ${JSON.stringify(status.errors)}`,
        );
        throw new Error(`subscribers did not reach event ${end} within ${timeoutMs / 1000} s (per worker: ${where.join('; ')})`);
      }
      await sleep(20);
    }
    if ((await store.history.latestSequence()) === end) return end;
  }
}

async function measureBackend(
  store: Store,
  backend: 'sqlite' | 'postgresql',
  items: number,
  synchronous: 'NORMAL' | 'FULL',
  options: LiveScaleOptions,
  verifications: Verification[],
  serverLogLines: string[],
  log: (message: string) => void,
): Promise<BackendFigures> {
  const where = `live at scale, ${backend}`;
  const subscriberNames = principals('ls-sub', options.subscribers, ['VIEWER']);
  const keys = await makeKeys(store.location, [
    { name: 'ls-admin', roles: ['ADMIN'] },
    { name: 'ls-proposer', roles: ['PROPOSER'] },
    { name: 'ls-reviewer', roles: ['REVIEWER'] },
    { name: 'ls-holder', roles: ['REVIEWER'] },
    { name: 'ls-lapser', roles: ['REVIEWER'] },
    { name: 'ls-dashboard', roles: ['VIEWER'] },
    { name: 'ls-watcher', roles: ['VIEWER'] },
    ...subscriberNames,
  ]);
  const [admin, proposer, reviewer, holder, lapser, dashboard, watcher] = keysNamed(keys, [
    'ls-admin',
    'ls-proposer',
    'ls-reviewer',
    'ls-holder',
    'ls-lapser',
    'ls-dashboard',
    'ls-watcher',
  ]) as [BenchKey, BenchKey, BenchKey, BenchKey, BenchKey, BenchKey, BenchKey];
  const subscriberKeys = keysNamed(
    keys,
    subscriberNames.map((p) => p.name),
  );
  const seedSeconds = await store.seed({ items, category: CATEGORY, admin: admin.name, proposer: proposer.name, prefix: PREFIX });
  log(`  ${int(items)} pending items seeded in ${seedSeconds.toFixed(1)} s`);
  const started = performance.now();
  const server: RunningServer = await startServer({ ...store.server, synchronous });
  const startSeconds = (performance.now() - started) / 1000;
  log(`  server on 127.0.0.1:${server.port}, ready in ${startSeconds.toFixed(1)} s`);
  const claimedIds = new Set<string>();
  const errors = noErrors();
  let group: SubscriberGroup | null = null;
  try {
    // Leases at the tail of the queue, where the review loop never gets: some lapse (30 s) during the run, some stay.
    const batches = Math.ceil(items / SEED_BATCH);
    await holdLeases(server.port, lapser, batchId(batches - 1), HELD_LEASES, 30);
    await holdLeases(server.port, holder, batchId(batches - 2), HELD_LEASES, 3600);

    // 1. Review cycles, in windows with nothing watching, one queueStats subscription, and an open dashboard, rotating the order.
    log(
      `  review cycles (1 client): ${options.cycleRounds} × ${options.cycleWindowMs / 1000} s each with nothing watching, a queueStats subscription, the dashboard`,
    );
    const loop = new LoopDelayProbe(server.port, admin);
    const windows: CycleWindow[] = [];
    const dashboardTally: DashboardTally = { queries: 0, itemsLoads: 0, statsUpdates: 0, feedEvents: 0, chartEvents: 0, errors: [] };
    for (let round = 0; round < options.cycleRounds; round++) {
      for (const watch of WATCHES.map((_, index) => WATCHES[(index + round) % WATCHES.length] as Watch)) {
        const page = watch === 'dashboard' ? await DashboardPage.open(server.port, dashboard) : null;
        const counts = watch === 'queueStats' ? watchStats(server.port, watcher) : null;
        await loop.start();
        const cell = await cycleCell(
          server.port,
          { concurrency: 1, warmupMs: options.cycleWarmupMs, durationMs: options.cycleWindowMs },
          claimedIds,
          [reviewer],
        );
        const delay = await loop.stop();
        if (counts) {
          await counts.close();
          dashboardTally.errors.push(...counts.errors);
        }
        if (page) {
          await page.close();
          for (const key of ['queries', 'itemsLoads', 'statsUpdates', 'feedEvents', 'chartEvents'] as const)
            dashboardTally[key] += page.tally[key];
          dashboardTally.errors.push(...page.tally.errors);
        }
        for (const key of Object.keys(errors) as (keyof ErrorCounts)[]) errors[key] += cell.errors[key];
        windows.push({ watch, rate: cell.rate, claimP50: cell.latency.claim?.p50 ?? Number.NaN, loop: delay });
        log(
          `    watched by ${watch}: ${cell.rate.toFixed(1)} cycles/s (claim p50 ${cell.latency.claim?.p50.toFixed(2)} ms), loop delay p99 ${delay.p99.toFixed(1)} ms`,
        );
      }
    }
    const mean = (watch: Watch) => {
      const rates = windows.filter((window) => window.watch === watch).map((window) => window.rate);
      return rates.reduce((sum, rate) => sum + rate, 0) / rates.length;
    };
    const withoutRate = mean('nothing');
    const statsRate = mean('queueStats');
    const withRate = mean('dashboard');
    log(
      `    dashboard: ${dashboardTally.queries} queries (${dashboardTally.itemsLoads} table loads), ${dashboardTally.statsUpdates} queueStats updates, ${dashboardTally.feedEvents} feed events`,
    );

    // 2. The reads, one at a time.
    log(`  reads: ${options.readSamples} samples each`);
    await loop.start();
    const { reads, loopGaugeMaxMs } = await measureReads(
      server.port,
      admin,
      { batchId: batchId(Math.floor(batches / 2)), holder: holder.name },
      options.readSamples,
    );
    const afterReads = await loop.stop();
    // With the fallback gauge, the phase's own scrapes each restarted it: the worst of them is the phase's figure.
    const readsLoop: LoopDelay =
      afterReads.source === LOOP_FALLBACK ? { ...afterReads, p99: Math.max(afterReads.p99, loopGaugeMaxMs || 0) } : afterReads;
    for (const read of reads)
      log(
        `    ${read.label}: p50 ${read.latency.p50.toFixed(1)} / p99 ${read.latency.p99.toFixed(1)} ms${Number.isNaN(read.rows) ? '' : ` (${read.rows} rows)`}`,
      );

    // 3. Fan-out: subscribers of the dashboard's queueEvents document, FANOUT_RATE addItem events per second offered.
    const connectStarted = performance.now();
    group = await SubscriberGroup.open(
      server.port,
      subscriberKeys,
      Math.min(options.wsWorkers, options.subscribers),
      EventsSubscription.toString(),
      options.subscriberNice,
    );
    log(`  ${int(options.subscribers)} subscribers connected in ${((performance.now() - connectStarted) / 1000).toFixed(1)} s`);
    const mutator = graphqlClient(server.port, 32);
    let mutationErrors = 0;
    const addItem = async (batch: string, recordId: string) => {
      const reply = await mutator
        .post(gqlBody(ADD_ITEM, { input: { batchId: batch, recordId, proposedCategory: CATEGORY, reason: 'Live at scale.' } }), {
          authorization: proposer.authorization,
        })
        .catch(() => null);
      if (!reply?.body.includes('"AddItemPayload"')) mutationErrors++;
    };
    // Subscriptions start live and graphql-ws does not acknowledge a subscribe: send until every one has an event.
    const warmDeadline = Date.now() + 60_000;
    for (let sentinel = 0; (await group.withEvents()) < options.subscribers; sentinel++) {
      if (Date.now() > warmDeadline) throw new Error('not every subscriber received a warm-up event within 60 s');
      await addItem('ls-warm', `w${sentinel}`);
      await sleep(100);
    }
    let start = await settle(store, group, 60_000);
    await group.mark(start);
    await loop.start();
    const cpuBefore = processCpuMs(server.pid);
    const fanStarted = Date.now();
    const sends: Promise<void>[] = [];
    for (let index = 0; index < options.fanOutEvents; index++) {
      const wait = fanStarted + (index * 1000) / FANOUT_RATE - Date.now();
      if (wait > 0) await sleep(wait);
      sends.push(addItem('ls-fanout', `e${index}`));
    }
    await Promise.all(sends);
    let end = await settle(store, group, options.quick ? 30_000 : 120_000);
    const fanSeconds = (Date.now() - fanStarted) / 1000;
    const fanCpuMs = processCpuMs(server.pid) - cpuBefore;
    const fanLoop = await loop.stop();
    const fanTally = await group.tally(await store.count(`SELECT count(*) FROM "Event" WHERE "id" > ${start} AND "id" <= ${end}`), end);
    const fanOut: FanOutFigures = {
      events: options.fanOutEvents,
      seconds: fanSeconds,
      tally: fanTally,
      cpuPerDeliveryUs: (fanCpuMs * 1000) / Math.max(1, fanTally.delivered),
      serverCpuShare: fanCpuMs / (fanSeconds * 1000),
      loop: fanLoop,
    };
    log(
      `    ${options.fanOutEvents} events at ${FANOUT_RATE}/s: ${int(fanTally.delivered)} deliveries (${fanTally.missing} missing, ${fanTally.duplicates} duplicate); receipt − occurredAt p50 ${fanTally.latency.p50} / p99 ${fanTally.latency.p99} / max ${fanTally.latency.max} ms; server CPU ${fanOut.cpuPerDeliveryUs.toFixed(1)} µs per delivery`,
    );

    // 4. Bulk: addItems of SEED_BATCH, back to back, with the subscribers watching and the review loop running.
    const bulkItems = options.bulkCalls * SEED_BATCH;
    log(`  bulk: ${options.bulkCalls} addItems of ${SEED_BATCH} (${int(bulkItems)} items) with ${int(options.subscribers)} subscribers`);
    const stats = watchStats(server.port, watcher);
    start = await settle(store, group, 60_000);
    // The review loop with the subscribers watching and nothing else written, for as long as a review window.
    let stopWatched = false;
    const watchedStarted = performance.now();
    const watchedCycling = cycleUntil(server.port, reviewer, claimedIds, errors, () => stopWatched);
    await sleep(options.cycleWindowMs);
    stopWatched = true;
    const watchedRate = (await watchedCycling) / ((performance.now() - watchedStarted) / 1000);
    log(
      `    first, ${options.cycleWindowMs / 1000} s of review cycles with the subscribers watching and no bulk: ${watchedRate.toFixed(1)} cycles/s`,
    );
    start = await settle(store, group, options.bulkTimeoutMs);
    await group.mark(start);
    await loop.start();
    const bulkCpu = new CpuProbe(server.pid, group.pids());
    bulkCpu.start();
    const bulkServerCpuBefore = processCpuMs(server.pid);
    let stopCycles = false;
    const bulkStarted = performance.now();
    const statsBefore = stats.updates();
    const cycling = cycleUntil(server.port, reviewer, claimedIds, errors, () => stopCycles);
    const bulkSeed: SeedState = { added: 0, category: CATEGORY };
    // A connection per call: with the server's loop seconds late, its 5 s keep-alive timer can fire before it reads
    // the next request on a reused connection, which then ends in ECONNRESET (seen in the first full runs).
    for (let call = 0; call < options.bulkCalls; call++) await seedItems(server.port, proposer, bulkSeed, SEED_BATCH, 'lsbulk');
    const addSeconds = (performance.now() - bulkStarted) / 1000;
    const lastAdded = await store.count(`SELECT max("id") FROM "Event" WHERE "type" = 'ITEM_ADDED'`);
    let lastSubscriberSeconds = Number.NaN;
    const bulkDeadline = performance.now() + options.bulkTimeoutMs;
    while (performance.now() < bulkDeadline) {
      if ((await group.lowestHighest()) >= lastAdded) {
        lastSubscriberSeconds = (performance.now() - bulkStarted) / 1000;
        break;
      }
      await sleep(50);
    }
    const windowSeconds = (performance.now() - bulkStarted) / 1000;
    const statsUpdates = stats.updates() - statsBefore;
    stopCycles = true;
    const cycles = await cycling;
    const bulkCpuShares = bulkCpu.stop();
    const bulkLoop = await loop.stop();
    // Not there in time: what arrived so far is tallied (the rest counts as missing), rather than waiting on.
    // There in time: the review loop's events written meanwhile may still be on their way (a reviewer at full
    // speed writes more events than reach 1,000 subscribers in a third of the loop), so they get as long again.
    const drained = Number.isFinite(lastSubscriberSeconds);
    // The review loop's events from the bulk window: how many were still on their way when it stopped, and
    // whether they reached every subscriber within the time allowed. Late is not lost: the tally below covers
    // what every subscriber had by then (through the bulk's last event at least), and the rest is reported.
    const drainStarted = performance.now();
    const backlogEnd = await store.history.latestSequence();
    const backlogEvents = backlogEnd - (await group.lowestHighest());
    let backlogSeconds = Number.NaN;
    if (drained) {
      try {
        end = await settle(store, group, options.bulkTimeoutMs);
        backlogSeconds = (performance.now() - drainStarted) / 1000;
      } catch {
        // Late, not lost (the check below says how many were still on their way); the review loop has
        // stopped, so nothing of the window comes after backlogEnd.
        end = backlogEnd;
      }
    } else end = backlogEnd;
    const bulkServerCpuMs = processCpuMs(server.pid) - bulkServerCpuBefore;
    const bulkTally = await group.tally(await store.count(`SELECT count(*) FROM "Event" WHERE "id" > ${start} AND "id" <= ${end}`), end);
    await stats.close();
    const bulk: BulkFigures = {
      items: bulkItems,
      addSeconds,
      lastSubscriberSeconds,
      statsUpdatesPerSecond: statsUpdates / windowSeconds,
      cyclesPerSecond: cycles / windowSeconds,
      cyclesRatio: cycles / windowSeconds / withoutRate,
      watchedRate,
      tally: bulkTally,
      loop: bulkLoop,
      backlogEvents,
      backlogSeconds,
      cpu: bulkCpuShares,
      cpuPerDeliveryUs: (bulkServerCpuMs * 1000) / Math.max(1, bulkTally.delivered),
    };
    log(
      `    added in ${addSeconds.toFixed(1)} s; last subscriber had the last event after ${lastSubscriberSeconds.toFixed(1)} s; ${bulk.statsUpdatesPerSecond.toFixed(1)} queueStats updates/s; ${bulk.cyclesPerSecond.toFixed(1)} cycles/s meanwhile; ${int(bulkTally.delivered)} deliveries (${bulkTally.missing} missing, ${bulkTally.duplicates} duplicate)`,
    );
    log(
      `    then ${int(backlogEvents)} events still on their way to the slowest subscriber: ${Number.isFinite(backlogSeconds) ? `there after ${backlogSeconds.toFixed(1)} s` : `not there within ${options.bulkTimeoutMs / 1000} s`}`,
    );
    mutator.close();

    // 5. Import (SQLite): `leasehold import` of a file as its own process, with the subscribers watching and the reviewer looping.
    let imported: ImportFigures | null = null;
    let importCheck: Verification | null = null;
    if ('databaseFile' in store.server && options.importItems > 0) {
      const file = `${store.server.databaseFile}.import.jsonl`;
      log(`  import: leasehold import of ${int(options.importItems)} items with ${int(options.subscribers)} subscribers`);
      await writeImportFile(file, options.importItems, CATEGORY, 'lsimport');
      const importStats = watchStats(server.port, watcher);
      // Once the bulk's backlog has reached everyone; if it has not, the import starts beside it (and the
      // figures say how far the slowest subscriber got).
      start = Number.isFinite(bulk.backlogSeconds) ? await settle(store, group, 60_000) : await store.history.latestSequence();
      await group.mark(start);
      await loop.start();
      const importCpu = new CpuProbe(server.pid, group.pids());
      importCpu.start();
      let stopImportCycles = false;
      const importStatsBefore = importStats.updates();
      const importCycling = cycleUntil(server.port, reviewer, claimedIds, errors, () => stopImportCycles);
      const run = await runImport(store.server.databaseFile, file, synchronous);
      const importStatsUpdates = importStats.updates() - importStatsBefore;
      stopImportCycles = true;
      const importCycles = await importCycling;
      const importCpuShares = importCpu.stop();
      const importLoop = await loop.stop();
      rmSync(file, { force: true });
      const reached = await group.lowestHighest();
      const last = await store.history.latestSequence();
      const importEvents = await store.count(`SELECT count(*) FROM "Event" WHERE "id" > ${start} AND "actor" = 'bench-import'`);
      const slowestHad = await store.count(
        `SELECT count(*) FROM "Event" WHERE "id" > ${start} AND "id" <= ${reached} AND "actor" = 'bench-import'`,
      );
      // The subscribers are far behind when the import ends (a million events to each): what arrived by then is tallied.
      const importTally = await group.tally(last - start, last);
      await importStats.close();
      imported = {
        items: options.importItems,
        seconds: run.seconds,
        events: importEvents,
        slowestHad,
        statsUpdatesPerSecond: importStatsUpdates / run.seconds,
        cyclesPerSecond: importCycles / run.seconds,
        cyclesRatio: importCycles / run.seconds / withoutRate,
        tally: importTally,
        loop: importLoop,
        cpu: importCpuShares,
      };
      const errorCount =
        importTally.errors.connection + importTally.errors.graphql + importTally.errors.completed + importTally.errors.malformed;
      importCheck = {
        label: `${where}: import: the command succeeded; no subscriber cut off, no event twice or out of order`,
        ok: run.code === 0 && importEvents === options.importItems && importTally.duplicates === 0 && errorCount === 0,
        detail: `exit code ${run.code}, ${int(importEvents)} ITEM_ADDED events; ${int(importTally.delivered)} deliveries had arrived (${int(importTally.afterWindow)} of events written after it); ${importTally.duplicates} duplicate or out of order; subscriber errors ${JSON.stringify(importTally.errors)}${run.code === 0 ? '' : `; output: ${run.output}`}`,
      };
      log(
        `    imported in ${run.seconds.toFixed(1)} s; the slowest subscriber had ${int(slowestHad)} of its ${int(importEvents)} events by then; ${imported.statsUpdatesPerSecond.toFixed(1)} queueStats updates/s; ${imported.cyclesPerSecond.toFixed(1)} cycles/s meanwhile`,
      );
    }

    const subscriberProblems = (label: string, tally: Tally) => {
      const errorCount = tally.errors.connection + tally.errors.graphql + tally.errors.completed + tally.errors.malformed;
      return {
        label: `${where}: ${label}: every event delivered once, in order, to every subscriber`,
        ok: tally.missing === 0 && tally.duplicates === 0 && errorCount === 0,
        detail: `${int(tally.delivered)} deliveries to ${int(tally.subscribers)} subscribers; ${tally.missing} missing, ${tally.duplicates} duplicate or out of order (${tally.subscribersOff} subscribers off); subscriber errors ${JSON.stringify(tally.errors)}`,
      };
    };
    verifications.push(
      {
        label: `${where}: no request failed`,
        ok: totalErrors(errors) === 0 && mutationErrors === 0 && stats.errors.length === 0,
        detail: `review: ${JSON.stringify(errors)}; addItem errors ${mutationErrors}; queueStats watcher errors ${stats.errors.length}`,
      },
      {
        label: `${where}: the dashboard saw no error`,
        ok: dashboardTally.errors.length === 0,
        detail:
          dashboardTally.errors.length === 0
            ? `${dashboardTally.queries} queries, 3 subscriptions per window`
            : dashboardTally.errors.slice(0, 3).join('; '),
      },
      subscriberProblems('fan-out', fanTally),
      drained && Number.isFinite(bulk.backlogSeconds)
        ? subscriberProblems('bulk', bulkTally)
        : lateBulk(where, bulkTally, options.bulkTimeoutMs),
    );
    if (importCheck) verifications.push(importCheck);
    return {
      backend,
      items,
      seedSeconds,
      startSeconds,
      windows,
      withoutRate,
      statsRate,
      withRate,
      dashboard: dashboardTally,
      reads,
      readsLoop,
      fanOut,
      bulk,
      imported,
    };
  } finally {
    await group?.close();
    // A server that exited by itself (killed, crashed) has no /proc entry left: say so, rather than only "exit code …".
    const alive = Number.isFinite(processCpuMs(server.pid));
    const code = await server.stop();
    if (!alive)
      verifications.push({ label: `${where}: server ran until the bench stopped it`, ok: false, detail: `it had exited (code ${code})` });
    verifications.push({ label: `${where}: clean shutdown`, ok: code === 0, detail: `exit code ${code}` });
    serverLogLines.push(...server.logs.map((line) => `${backend}: ${line}`));
  }
}

/**
 * The bulk's check when the subscribers had not caught up when the time allowed ran out: what had arrived must
 * hold no repeat and nothing out of order; what had not cannot be told missing from late, and the delivery time
 * is reported as a missed figure, not as an error.
 */
function lateBulk(where: string, tally: Tally, timeoutMs: number): Verification {
  const errorCount = tally.errors.connection + tally.errors.graphql + tally.errors.completed + tally.errors.malformed;
  return {
    label: `${where}: bulk: no event delivered twice or out of order (not all had arrived within ${timeoutMs / 1000} s)`,
    ok: tally.duplicates === 0 && errorCount === 0,
    detail: `${int(tally.delivered)} deliveries had arrived, ${int(tally.missing)} still on their way; ${tally.duplicates} duplicate or out of order; subscriber errors ${JSON.stringify(tally.errors)}`,
  };
}

/** Runs one backend's measurements; a failure becomes a failed check (with the server's log kept), not the end of the run. */
async function measured(backend: string, verifications: Verification[], log: (message: string) => void, work: () => Promise<unknown>) {
  try {
    await work();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`  live at scale, ${backend}: measurements failed: ${message}`);
    verifications.push({ label: `live at scale, ${backend}: measurements completed`, ok: false, detail: message });
  }
}

export async function runLiveScale(
  tmp: string,
  synchronous: 'NORMAL' | 'FULL',
  options: LiveScaleOptions,
  log: (message: string) => void,
): Promise<LiveScaleReport> {
  const began = performance.now();
  const loadAverage = os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(' ');
  const verifications: Verification[] = [];
  const serverLogLines: string[] = [];
  const backends: BackendFigures[] = [];
  log(`\n[live at scale, SQLite: ${int(options.items)} pending items, ${int(options.subscribers)} subscribers]`);
  const sqlite = await sqliteStore(tmp, 'live-scale');
  try {
    await measured('sqlite', verifications, log, async () =>
      backends.push(await measureBackend(sqlite, 'sqlite', options.items, synchronous, options, verifications, serverLogLines, log)),
    );
    const integrity = await sqlite.integrity();
    verifications.push({ label: 'live at scale, sqlite: integrity_check', ok: integrity === 'ok', detail: integrity ?? 'no answer' });
  } finally {
    await sqlite.dispose();
  }
  let postgresSkipped: string | null = null;
  const admin = postgresAdminUrl();
  if (!options.postgres) postgresSkipped = 'not asked for (--no-postgres)';
  else if (!admin) postgresSkipped = 'neither LEASEHOLD_BENCH_POSTGRES_URL nor LEASEHOLD_TEST_POSTGRES_URL is set';
  else {
    log(`\n[live at scale, PostgreSQL: ${int(options.pgItems)} pending items, ${int(options.subscribers)} subscribers]`);
    const pg = await postgresStore(admin.url);
    try {
      await measured('postgresql', verifications, log, async () =>
        backends.push(await measureBackend(pg, 'postgresql', options.pgItems, synchronous, options, verifications, serverLogLines, log)),
      );
    } finally {
      await pg.dispose();
    }
  }
  return { options, loadAverage, backends, postgresSkipped, seconds: (performance.now() - began) / 1000, verifications, serverLogLines };
}
