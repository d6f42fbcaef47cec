// Claim latency with 1,000 and 1,000,000 pending items side by side, and a server's memory with a million items and 1,000 subscribers.
import { readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { NEXT_CLAIMABLE_QUERIES } from '../src/db/item-store.js';
import { seedPendingItems } from '../test/support/seed-file.js';
import { type FanOutResult, machineBusyMs, measureFanOut, processCpuMs, sqliteHistory } from './fanout.js';
import { type BenchKey, keysNamed, makeKeys, principals } from './keys.js';
import { fanOutChecks } from './live.js';
import { countedCycles, type ErrorCounts, noErrors, type SeedState, seedItems, totalErrors } from './load.js';
import { type RunningServer, startServer } from './server.js';
import { type Spread, spread } from './stats.js';
import type { Verification } from './verification.js';

export interface ScaleOptions {
  quick: boolean;
  /** Pending items in the small and in the large file. */
  sizes: [number, number];
  /** Reviewers claiming at once on a file (each loops claim → decide). */
  clients: number;
  /** Measured rounds; each runs `cyclesPerRound` review cycles on each file, in alternating order. */
  rounds: number;
  cyclesPerRound: number;
  /** WebSocket subscribers on the large file's server, for its memory. */
  subscribers: number;
  wsWorkers: number;
  /** addItem events sent to them (open loop, one every 5 ms). */
  burst: number;
}

/** The ratio the spec's "claim latency flat from 1k to 1M items" is held to: p50(large) ÷ p50(small). */
export const CLAIM_RATIO_TARGET = 1.3;

/** From /proc/<pid>/status, in MiB: VmRSS (resident now) and VmHWM (the most it has been resident). */
export interface Memory {
  rssMiB: number;
  peakMiB: number;
}

export function processMemory(pid: number): Memory {
  const kib = (status: string, field: string) => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) / 1024 : Number.NaN;
  };
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return { rssMiB: kib(status, 'VmRSS'), peakMiB: kib(status, 'VmHWM') };
  } catch {
    return { rssMiB: Number.NaN, peakMiB: Number.NaN };
  }
}

export interface QueueResult {
  /** Pending items the file was seeded with, and held between rounds. */
  items: number;
  seedSeconds: number;
  /** The file's size once seeded. */
  seededMiB: number;
  /** Spawn → /ready. */
  startSeconds: number;
  /** After start, before any request. */
  idle: Memory;
  afterClaims: Memory;
  claim: Spread;
  decide: Spread;
  /** Measured cycles (the warm-up round not included). */
  cycles: number;
  /** Server CPU per measured cycle (ms): the work a claim and a decide cost the server, without the client's share of the cores. */
  serverCpuPerCycleMs: number;
}

export interface ScaleReport {
  options: ScaleOptions;
  /** At the start of this part. */
  loadAverage: string;
  /** EXPLAIN QUERY PLAN of the claim's SELECT, on the large file. */
  queryPlan: string[];
  small: QueueResult;
  large: QueueResult;
  ratios: { p50: number; p99: number; serverCpu: number };
  /** What the rest of the machine used during the claim rounds, as a share of one core. */
  otherCpu: number;
  /** The large file's server with the subscribers. */
  memory: { connected: Memory; afterBurst: Memory; afterLeft: Memory; peakMiB: number };
  fanOut: FanOutResult;
  /** This whole part, seeding and checks included. */
  seconds: number;
  verifications: Verification[];
  serverLogLines: string[];
}

const CATEGORY = 'bench-scale';
/** Batch ids of measureFanOut's items in the large file (`${name}-…`), told apart from the queue's own. */
const FANOUT_NAME = 'scalefan';
const int = (value: number) => Math.round(value).toLocaleString('en-US');

interface Side {
  label: string;
  items: number;
  file: string;
  seedSeconds: number;
  seededMiB: number;
  admin: BenchKey;
  seeder: BenchKey;
  reviewers: BenchKey[];
  viewers: BenchKey[];
  server: RunningServer | null;
  startSeconds: number;
  seed: SeedState;
  claimedIds: Set<string>;
  errors: ErrorCounts;
  samples: { claim: number[]; decide: number[] };
  /** Every cycle completed, warm-up included (for the file check). */
  decided: number;
  measured: number;
  serverCpuMs: number;
}

function running(side: Side): RunningServer {
  if (!side.server) throw new Error(`the ${side.label} server is not running`);
  return side.server;
}

async function prepare(tmp: string, items: number, options: ScaleOptions, withViewers: boolean, log: (m: string) => void): Promise<Side> {
  const file = path.join(tmp, `scale-${items}.db`);
  const reviewerNames = principals('scale-reviewer', options.clients, ['REVIEWER']);
  const viewerNames = withViewers ? principals('scale-sub', options.subscribers, ['VIEWER']) : [];
  // Keys first, so the seeded history comes after the keys its actors hold, as it would in use.
  const keys = await makeKeys(file, [
    { name: 'scale-admin', roles: ['ADMIN'] },
    { name: 'scale-seeder', roles: ['PROPOSER'] },
    ...reviewerNames,
    ...viewerNames,
  ]);
  const [admin, seeder] = keysNamed(keys, ['scale-admin', 'scale-seeder']) as [BenchKey, BenchKey];
  const seedSeconds = seedPendingItems(file, { items, category: CATEGORY, admin: admin.name, proposer: seeder.name });
  const seededMiB = statSync(file).size / 1024 ** 2;
  log(`  ${int(items)} pending items seeded in ${seedSeconds.toFixed(1)} s (${seededMiB.toFixed(0)} MiB)`);
  return {
    label: `${int(items)}-item`,
    items,
    file,
    seedSeconds,
    seededMiB,
    admin,
    seeder,
    reviewers: keysNamed(
      keys,
      reviewerNames.map((p) => p.name),
    ),
    viewers: keysNamed(
      keys,
      viewerNames.map((p) => p.name),
    ),
    server: null,
    startSeconds: 0,
    seed: { added: items, category: CATEGORY },
    claimedIds: new Set(),
    errors: noErrors(),
    samples: { claim: [], decide: [] },
    decided: 0,
    measured: 0,
    serverCpuMs: 0,
  };
}

function queryPlan(file: string, reviewer: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    // The variant a claim by an authenticated reviewer runs (it skips the reviewer's own proposals).
    return (db.prepare(`EXPLAIN QUERY PLAN ${NEXT_CLAIMABLE_QUERIES.notAddedBy}`).all(Date.now(), reviewer) as { detail: string }[]).map(
      (row) => row.detail,
    );
  } finally {
    db.close();
  }
}

/** `cycles` review cycles on one file, then as many new items, so the next round finds the same queue length. */
async function round(side: Side, cycles: number, measured: boolean): Promise<void> {
  const server = running(side);
  const cpuBefore = processCpuMs(server.pid);
  const samples = measured ? side.samples : { claim: [], decide: [] };
  const done = await countedCycles(server.port, side.reviewers, cycles, side.claimedIds, side.errors, samples);
  if (measured) {
    side.serverCpuMs += processCpuMs(server.pid) - cpuBefore;
    side.measured += done;
  }
  side.decided += done;
  // New items join the tail (createdAt = now), as a proposer's would; the head stays the seeded items.
  if (done > 0) await seedItems(server.port, side.seeder, side.seed, done, 'scale-topup');
  if (done < cycles)
    throw new Error(`${side.label} file: only ${done} of ${cycles} review cycles completed (${JSON.stringify(side.errors)})`);
}

function fileChecks(side: Side, fanOutItems: boolean): Verification[] {
  const db = new Database(side.file, { readonly: true });
  try {
    const one = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const byStatus = new Map(
      (db.prepare('SELECT "status" AS s, count(*) AS n FROM "Item" GROUP BY "status"').all() as { s: string; n: number }[]).map((r) => [
        r.s,
        r.n,
      ]),
    );
    const byType = new Map(
      (db.prepare('SELECT "type" AS t, count(*) AS n FROM "Event" GROUP BY "type"').all() as { t: string; n: number }[]).map((r) => [
        r.t,
        r.n,
      ]),
    );
    const items = one('SELECT count(*) AS n FROM "Item"');
    const accepted = byStatus.get('ACCEPTED') ?? 0;
    const pending = byStatus.get('PENDING') ?? 0;
    const fanOut = fanOutItems ? one(`SELECT count(*) AS n FROM "Item" WHERE "batchId" GLOB '${FANOUT_NAME}-*'`) : 0;
    const leased = one('SELECT count(*) AS n FROM "Item" WHERE "leaseTokenHash" IS NOT NULL');
    // Claims must have taken the head of the queue: no pending item may come before the last one decided.
    const skipped = one(`
      WITH last AS (SELECT "createdAt" AS c, "batchId" AS b, "recordId" AS r FROM "Item" WHERE "status" = 'ACCEPTED'
                    ORDER BY "createdAt" DESC, "batchId" DESC, "recordId" DESC LIMIT 1)
      SELECT count(*) AS n FROM "Item", last WHERE "status" = 'PENDING' AND ("createdAt", "batchId", "recordId") < (last.c, last.b, last.r)`);
    const integrity = (db.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check;
    const at = `scale, ${side.label} file`;
    const claims = byType.get('LEASE_CLAIMED') ?? 0;
    const decisions = byType.get('ITEM_DECIDED') ?? 0;
    const added = byType.get('ITEM_ADDED') ?? 0;
    const refusals = byType.get('OPERATION_REFUSED') ?? 0;
    return [
      {
        label: `${at}: no request failed`,
        ok: totalErrors(side.errors) === 0,
        detail: `HTTP ${side.errors.http}, GraphQL ${side.errors.graphql}, UserErrors ${side.errors.userErrors}, dry ${side.errors.dry}, double claims ${side.errors.doubleClaims}`,
      },
      {
        label: `${at}: no lost decision, no double claim`,
        ok: accepted === side.decided && side.claimedIds.size === side.decided,
        detail: `${int(side.decided)} cycles acknowledged, ${int(accepted)} items ACCEPTED, ${int(side.claimedIds.size)} distinct items claimed`,
      },
      {
        label: `${at}: history matches`,
        ok: claims === side.decided && decisions === side.decided && added === items && refusals === 0,
        detail: `${int(claims)} LEASE_CLAIMED, ${int(decisions)} ITEM_DECIDED, ${int(added)} ITEM_ADDED for ${int(items)} items, ${refusals} OPERATION_REFUSED`,
      },
      {
        label: `${at}: queue length kept, no lease left`,
        ok: pending - fanOut === side.items && leased === 0,
        detail: `${int(pending - fanOut)} pending of its own${fanOut ? ` (+ ${int(fanOut)} added by the fan-out)` : ''}, ${leased} leased`,
      },
      {
        label: `${at}: claims took the head of the queue`,
        ok: skipped === 0,
        detail: `${skipped} pending items before the last one decided`,
      },
      { label: `${at}: integrity_check`, ok: integrity === 'ok', detail: integrity },
    ];
  } finally {
    db.close();
  }
}

export async function runScale(
  tmp: string,
  synchronous: 'NORMAL' | 'FULL',
  options: ScaleOptions,
  log: (message: string) => void,
): Promise<ScaleReport> {
  const began = performance.now();
  const loadAverage = os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(' ');
  const [smallItems, largeItems] = options.sizes;
  log(
    `\n[scale: claim latency with ${int(smallItems)} and ${int(largeItems)} pending items; memory with ${int(options.subscribers)} subscribers]`,
  );
  const small = await prepare(tmp, smallItems, options, false, log);
  const large = await prepare(tmp, largeItems, options, true, log);
  const plan = queryPlan(large.file, large.reviewers[0]?.name ?? 'scale-reviewer-0');
  log(`  claim query plan on the ${large.label} file: ${plan.join('; ')}`);
  const sides = [small, large];
  const verifications: Verification[] = [];
  const serverLogLines: string[] = [];
  // Long enough for start-up garbage to settle and the first timers to run; RSS is read after it.
  const settleMs = options.quick ? 500 : 2_000;
  let fanOut: FanOutResult | undefined;
  const memory: Partial<ScaleReport['memory']> = {};
  let idle: Memory[] = [];
  let afterClaims: Memory[] = [];
  let otherCpu = Number.NaN;
  try {
    for (const side of sides) {
      const started = performance.now();
      side.server = await startServer({ databaseFile: side.file, synchronous });
      side.startSeconds = (performance.now() - started) / 1000;
      log(`  ${side.label} server on 127.0.0.1:${side.server.port}, ready in ${side.startSeconds.toFixed(1)} s`);
    }
    await sleep(settleMs);
    idle = sides.map((side) => processMemory(running(side).pid));
    log(`  idle RSS: ${sides.map((side, index) => `${side.label} ${idle[index]?.rssMiB.toFixed(1)} MiB`).join(', ')}`);

    // Both servers stay up; rounds alternate between them (and which goes first), so drift in
    // what else the machine does falls on both sizes alike.
    for (const side of sides) await round(side, options.cyclesPerRound, false);
    const cpuBefore = sides.map((side) => processCpuMs(running(side).pid));
    const busyBefore = machineBusyMs();
    const benchBefore = process.cpuUsage();
    const windowStarted = performance.now();
    for (let index = 0; index < options.rounds; index++) {
      for (const side of index % 2 === 0 ? [small, large] : [large, small]) await round(side, options.cyclesPerRound, true);
    }
    const windowMs = performance.now() - windowStarted;
    const serversMs = sides.reduce((sum, side, index) => sum + processCpuMs(running(side).pid) - (cpuBefore[index] as number), 0);
    const bench = process.cpuUsage(benchBefore);
    otherCpu = Math.max(0, machineBusyMs() - busyBefore - serversMs - (bench.user + bench.system) / 1000) / windowMs;
    afterClaims = sides.map((side) => processMemory(running(side).pid));
    for (const side of sides) {
      const claim = spread(side.samples.claim);
      log(`  ${side.label}: ${int(side.measured)} claims, claimItem p50 ${claim.p50.toFixed(2)} / p99 ${claim.p99.toFixed(2)} ms`);
    }

    const server = running(large);
    log(`  ${int(options.subscribers)} subscribers on the ${large.label} server, then ${options.burst} events to them`);
    fanOut = await measureFanOut({
      name: FANOUT_NAME,
      mutatePort: server.port,
      proposer: large.seeder,
      groups: [
        {
          label: `${large.label} server`,
          port: server.port,
          count: options.subscribers,
          keys: large.viewers,
          workers: Math.min(options.wsWorkers, options.subscribers),
        },
      ],
      rounds: [{ events: options.burst, intervalMs: 5, openLoop: true }],
      history: sqliteHistory(large.file),
      category: CATEGORY,
      servers: [{ label: large.label, pid: server.pid }],
      drainTimeoutMs: options.quick ? 15_000 : 60_000,
      log,
      onConnected: async () => {
        await sleep(settleMs);
        memory.connected = processMemory(server.pid);
      },
      afterRounds: async () => {
        memory.afterBurst = processMemory(server.pid);
      },
    });
    await sleep(settleMs);
    memory.afterLeft = processMemory(server.pid);
    memory.peakMiB = memory.afterLeft.peakMiB;
    verifications.push(...fanOutChecks(`${int(options.subscribers)} subscribers on the ${large.label} server`, fanOut, 'scale'));
  } finally {
    for (const side of sides) {
      if (!side.server) continue;
      const code = await side.server.stop();
      verifications.push({ label: `scale: ${side.label} server clean shutdown`, ok: code === 0, detail: `exit code ${code}` });
      serverLogLines.push(...side.server.logs.map((line) => `${side.label}: ${line}`));
      side.server = null;
    }
  }
  verifications.push(...fileChecks(small, false), ...fileChecks(large, true));
  const { connected, afterBurst, afterLeft, peakMiB } = memory;
  if (!fanOut || !connected || !afterBurst || !afterLeft || peakMiB === undefined) throw new Error('scale measurements did not complete');

  const result = (side: Side, index: number): QueueResult => ({
    items: side.items,
    seedSeconds: side.seedSeconds,
    seededMiB: side.seededMiB,
    startSeconds: side.startSeconds,
    idle: idle[index] as Memory,
    afterClaims: afterClaims[index] as Memory,
    claim: spread(side.samples.claim),
    decide: spread(side.samples.decide),
    cycles: side.measured,
    serverCpuPerCycleMs: side.serverCpuMs / side.measured,
  });
  const seconds = (performance.now() - began) / 1000;
  log(`  scale part done in ${seconds.toFixed(0)} s`);
  const smallResult = result(small, 0);
  const largeResult = result(large, 1);
  return {
    options,
    loadAverage,
    queryPlan: plan,
    small: smallResult,
    large: largeResult,
    ratios: {
      p50: largeResult.claim.p50 / smallResult.claim.p50,
      p99: largeResult.claim.p99 / smallResult.claim.p99,
      serverCpu: largeResult.serverCpuPerCycleMs / smallResult.serverCpuPerCycleMs,
    },
    otherCpu,
    memory: { connected, afterBurst, afterLeft, peakMiB },
    fanOut,
    seconds,
    verifications,
    serverLogLines,
  };
}
