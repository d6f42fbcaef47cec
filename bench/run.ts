// npm run bench [-- --quick] [--write|--no-write] [--profile] [--profile-clients=N] [--duration=S] [--warmup=S] [--clients=1,8,64] [--keep]
//                [--subscribers=N] [--cross-subscribers=N] [--events=N] [--ws-workers=N] [--expiry|--no-expiry] [--leases=K] [--no-live]
//                [--no-scale|--scale-only] [--scale-items=SMALL,LARGE] [--scale-clients=N] [--scale-subscribers=N]
//                [--no-postgres|--postgres-only] [--pg-clients=8,64] [--pg-instances=N] [--pg-repeats=N] [--pg-subscribers=N] [--pg-events=N] [--pg-intake-items=N] [--pg-proposal-workers=N]
//                [--no-live-scale|--live-scale-only] [--live-scale-items=N] [--live-scale-pg-items=N] [--live-scale-subscribers=N]
//                [--live-scale-import-items=N|--no-live-scale-import] [--live-scale-subscriber-nice=0..19] [--no-attacks|--attacks-only]
//
// In one run, side by side, per client count: GraphQL no-op queries/s and review cycles/s over HTTP
// against a freshly built `node dist/main.js`, and the same cycle on raw better-sqlite3. Then, on a
// separate pair of servers: event delivery latency to many WebSocket subscribers (and to those of a
// second process on the same file), and expiry lateness on the real clock (skipped by --quick unless
// --expiry is given). Then, on two more servers: claim latency with 1,000 and with 1,000,000 pending
// items side by side, and the memory of the second with 1,000 subscribers (--scale-only: just that).
// Then, when LEASEHOLD_BENCH_POSTGRES_URL or LEASEHOLD_TEST_POSTGRES_URL is set (otherwise the report
// says it was skipped): review cycles/s on 1 SQLite instance, 1 PostgreSQL instance and 3 PostgreSQL
// instances side by side, and event delivery across instances (--postgres-only: just that). Then "live at
// scale" (bench/live-scale.ts): review cycles with and without an open dashboard, dashboard reads, fan-out and
// a bulk intake on a large queue, on SQLite and on PostgreSQL (--live-scale-only: just that; with --write it
// replaces the "Live at scale" section of BENCHMARKS.md and keeps the rest). Last "/health under attack" (bench/attacks.ts,
// issue 15): /health latency from a process of its own while a VIEWER runs each attack the limits refuse, on a server
// with the default limits; its table is printed, never written (--attacks-only: just that).
//
// Every client authenticates with an API key of its own (one REVIEWER principal per client; items are
// added by a PROPOSER, categories by an ADMIN), and the servers run with RATE_LIMIT_PER_SECOND=0: the
// benchmark measures the service, not the policy (see SERVER_POLICY in server.ts).
//
// To see inside the servers: LEASEHOLD_BENCH_SERVER_FLAGS adds node flags to every server the bench starts
// (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" or "--trace-gc"), and LEASEHOLD_BENCH_SERVER_OUTPUT names a file
// that receives what they write (bench/server.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig } from '../src/config.js';
import { type AttackOptions, type AttackReport, attacksFailed, attacksMarkdown, DEFAULT_ATTACK_OPTIONS, runAttacks } from './attacks.js';
import { type BenchKey, keysNamed, makeKeys, principals } from './keys.js';
import { type LiveOptions, type LiveReport, runLive } from './live.js';
import { liveSummary } from './live-report.js';
import { type LiveScaleOptions, type LiveScaleReport, runLiveScale } from './live-scale.js';
import { liveScaleMarkdown, liveScaleSummary } from './live-scale-report.js';
import {
  addErrors,
  type CellTiming,
  cycleCell,
  noErrors,
  noopCell,
  type SeedState,
  seedCategories,
  seedItems,
  totalErrors,
} from './load.js';
import { describeMachine, type Machine } from './machine.js';
import { type PostgresOptions, type PostgresReport, runPostgres } from './postgres.js';
import { postgresMarkdown, postgresSummary } from './postgres-report.js';
import { connectProfiler, inspectorUrl, summariseProfile } from './profile.js';
import { openRawBench } from './raw.js';
import { errorLine, latencyTable, mainTable, type Report, type Row, ratios, renderMarkdown, TARGET } from './report.js';
import { runScale, type ScaleOptions, type ScaleReport } from './scale.js';
import { scaleMarkdown, scaleSummary } from './scale-report.js';
import { build, ROOT, type RunningServer, SERVER_POLICY, startServer } from './server.js';
import type { Verification } from './verification.js';

interface Options {
  quick: boolean;
  write: boolean;
  profile: boolean;
  keep: boolean;
  warmupMs: number;
  durationMs: number;
  clients: number[];
  profileSeconds: number;
  /** Concurrent clients while profiling (default 8). */
  profileClients: number;
  /** Null with --no-live. */
  live: LiveOptions | null;
  /** Null with --no-scale. */
  scale: ScaleOptions | null;
  /** Only the scale part: no review cells, live events, profile or command-line timing, and no BENCHMARKS.md. */
  scaleOnly: boolean;
  /** Null with --no-postgres. Runs only when a PostgreSQL admin URL is set (see postgres.ts). */
  postgres: PostgresOptions | null;
  /** Only the PostgreSQL part (as --scale-only: its section printed, not written). */
  postgresOnly: boolean;
  /** Null with --no-live-scale. */
  liveScale: LiveScaleOptions | null;
  /** Only the live-at-scale part; --write then replaces just its section of BENCHMARKS.md. */
  liveScaleOnly: boolean;
  /** Null with --no-attacks. Its table is printed, not written to BENCHMARKS.md. */
  attacks: AttackOptions | null;
  /** Only the /health-under-attack part. */
  attacksOnly: boolean;
}

function parseOptions(argv: string[]): Options {
  const flag = (name: string) => argv.includes(`--${name}`);
  const value = (name: string) => argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  const known =
    /^--(quick|write|no-write|profile|keep|duration=.+|warmup=.+|clients=.+|profile-seconds=.+|profile-clients=.+|subscribers=.+|cross-subscribers=.+|events=.+|ws-workers=.+|expiry|no-expiry|leases=.+|no-live|no-scale|scale-only|scale-items=.+|scale-clients=.+|scale-subscribers=.+|no-postgres|postgres-only|pg-clients=.+|pg-instances=.+|pg-repeats=.+|pg-subscribers=.+|pg-events=.+|pg-intake-items=.+|pg-proposal-workers=.+|no-live-scale|live-scale-only|live-scale-items=.+|live-scale-pg-items=.+|live-scale-subscribers=.+|live-scale-import-items=.+|live-scale-subscriber-nice=.+|no-live-scale-import|no-attacks|attacks-only)$/;
  const unknown = argv.filter((arg) => !known.test(arg));
  if (unknown.length > 0) throw new Error(`unknown argument(s): ${unknown.join(' ')}`);
  const quick = flag('quick');
  const seconds = (name: string, fallback: number) => {
    const raw = value(name);
    const parsed = raw === undefined ? fallback : Number(raw);
    if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`--${name} must be a positive number of seconds`);
    return Math.round(parsed * 1000);
  };
  const clients = (value('clients') ?? '1,8,64').split(',').map(Number);
  if (clients.some((c) => !Number.isInteger(c) || c < 1 || c > 1000)) throw new Error('--clients must be a list of whole numbers 1–1000');
  const count = (name: string, fallback: number, max: number, min = 1) => {
    const raw = value(name);
    const parsed = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max) throw new Error(`--${name} must be a whole number ${min}–${max}`);
    return parsed;
  };
  /** A niceness (0–19) for processes the bench starts; 0 (the bench's own) unless given. */
  const niceness = (name: string) => {
    const raw = value(name);
    const parsed = raw === undefined ? 0 : Number(raw);
    if (!Number.isInteger(parsed) || parsed < 0 || parsed > 19) throw new Error(`--${name} must be a whole number 0–19`);
    return parsed;
  };
  if (flag('expiry') && flag('no-expiry')) throw new Error('--expiry and --no-expiry contradict each other');
  const live: LiveOptions | null = flag('no-live')
    ? null
    : {
        quick,
        subscribers: count('subscribers', quick ? 50 : 1000, 5000),
        crossSubscribers: count('cross-subscribers', quick ? 10 : 100, 5000),
        events: count('events', quick ? 20 : 200, 10_000),
        wsWorkers: count('ws-workers', 2, 16),
        expiry: flag('expiry') || (!quick && !flag('no-expiry')),
        leases: count('leases', 200, 5000),
      };
  if (flag('scale-only') && flag('no-scale')) throw new Error('--scale-only and --no-scale contradict each other');
  if (flag('postgres-only') && flag('no-postgres')) throw new Error('--postgres-only and --no-postgres contradict each other');
  if (flag('postgres-only') && flag('scale-only')) throw new Error('--postgres-only and --scale-only: run one part at a time');
  if (flag('live-scale-only') && (flag('no-live-scale') || flag('scale-only') || flag('postgres-only')))
    throw new Error('--live-scale-only runs that part alone: drop --no-live-scale, --scale-only and --postgres-only');
  if (flag('attacks-only') && (flag('no-attacks') || flag('scale-only') || flag('postgres-only') || flag('live-scale-only')))
    throw new Error('--attacks-only runs that part alone: drop --no-attacks, --scale-only, --postgres-only and --live-scale-only');
  // BENCHMARKS.md is one report of a whole run: a part of one would drop the other sections.
  for (const only of ['scale-only', 'postgres-only', 'attacks-only'])
    if (flag(only) && (flag('write') || flag('profile'))) throw new Error(`--${only} runs no review cells: it cannot --write or --profile`);
  const pgClients = (value('pg-clients') ?? (quick ? '8' : '8,64')).split(',').map(Number);
  if (pgClients.length === 0 || pgClients.some((c) => !Number.isInteger(c) || c < 1 || c > 1000))
    throw new Error('--pg-clients must be a list of whole numbers 1–1000');
  const sizes = (value('scale-items') ?? (quick ? '1000,100000' : '1000,1000000')).split(',').map(Number);
  const cyclesPerRound = quick ? 50 : 100;
  const [small = 0, large = 0] = sizes;
  // The small queue must outlast a round (the top-up comes after it).
  if (sizes.length !== 2 || !sizes.every(Number.isInteger) || small < 2 * cyclesPerRound || large <= small || large > 10_000_000)
    throw new Error(`--scale-items must be SMALL,LARGE whole numbers, ${2 * cyclesPerRound} ≤ SMALL < LARGE ≤ 10,000,000`);
  const scale: ScaleOptions | null = flag('no-scale')
    ? null
    : {
        quick,
        sizes: [small, large],
        clients: count('scale-clients', 1, 64),
        rounds: quick ? 5 : 30,
        cyclesPerRound,
        subscribers: count('scale-subscribers', quick ? 50 : 1000, 5000),
        wsWorkers: count('ws-workers', 2, 16),
        burst: quick ? 20 : 200,
      };
  const pgInstances = count('pg-instances', 3, 16);
  if (pgInstances < 2) throw new Error('--pg-instances must be at least 2 (1 instance is always measured)');
  const postgres: PostgresOptions | null = flag('no-postgres')
    ? null
    : {
        quick,
        clients: pgClients,
        instances: pgInstances,
        repeats: count('pg-repeats', quick ? 1 : 3, 20),
        warmupMs: seconds('warmup', quick ? 0.2 : 1),
        durationMs: seconds('duration', quick ? 0.5 : 5),
        noop: !quick,
        subscribers: count('pg-subscribers', quick ? 10 : 100, 2000),
        events: count('pg-events', quick ? 20 : 200, 10_000),
        sqliteDelivery: !quick,
        intakeItems: count('pg-intake-items', quick ? 2_000 : 10_000, 1_000_000, 0),
        intakeClients: quick ? [1] : [1, 4],
        proposalWorkers: count('pg-proposal-workers', quick ? 2 : 8, 64, 0),
      };
  const liveScaleItems = count('live-scale-items', quick ? 20_000 : 1_000_000, 10_000_000);
  const liveScale: LiveScaleOptions | null = flag('no-live-scale')
    ? null
    : {
        quick,
        items: liveScaleItems,
        pgItems: count('live-scale-pg-items', liveScaleItems, 10_000_000),
        postgres: !flag('no-postgres'),
        subscribers: count('live-scale-subscribers', quick ? 100 : 1000, 5000),
        wsWorkers: count('ws-workers', 2, 16),
        subscriberNice: niceness('live-scale-subscriber-nice'),
        cycleRounds: quick ? 1 : 3,
        cycleWarmupMs: quick ? 300 : 1000,
        cycleWindowMs: quick ? 1500 : 5000,
        readSamples: quick ? 5 : 30,
        fanOutEvents: quick ? 100 : 500,
        bulkCalls: quick ? 4 : 20,
        bulkTimeoutMs: quick ? 120_000 : 300_000,
        importItems: flag('no-live-scale-import') ? 0 : count('live-scale-import-items', quick ? 20_000 : 1_000_000, 10_000_000),
      };
  if (liveScaleItems < 2 * 500 + 1000)
    throw new Error('--live-scale-items must be at least 2,000 (leases are held in its last two batches)');
  return {
    quick,
    write: !flag('scale-only') && !flag('postgres-only') && (flag('write') || (!quick && !flag('no-write'))),
    profile: flag('profile'),
    keep: flag('keep'),
    warmupMs: seconds('warmup', quick ? 0.2 : 1),
    durationMs: seconds('duration', quick ? 0.5 : 5),
    clients,
    profileSeconds: seconds('profile-seconds', quick ? 1 : 5) / 1000,
    profileClients: count('profile-clients', 8, 1000),
    live: flag('scale-only') ? null : live,
    scale,
    scaleOnly: flag('scale-only'),
    postgres: flag('scale-only') ? null : postgres,
    postgresOnly: flag('postgres-only'),
    liveScale: flag('scale-only') || flag('postgres-only') ? null : liveScale,
    liveScaleOnly: flag('live-scale-only'),
    attacks: flag('no-attacks') ? null : DEFAULT_ATTACK_OPTIONS,
    attacksOnly: flag('attacks-only'),
  };
}

const log = (message: string) => process.stdout.write(`${message}\n`);
const round = (value: number) => Math.round(value).toLocaleString('en-US');

/** The principals of one server's review cells: who sets up, who proposes, and the reviewers of each client count. */
interface CellKeys {
  admin: BenchKey;
  seeder: BenchKey;
  /** Client i of a cell with c clients is reviewers(c)[i]. */
  reviewers(concurrency: number): BenchKey[];
}

const reviewerPrefix = (concurrency: number) => `bench-c${concurrency}`;

/** Makes the keys for review cells with these client counts in `file`, before its server starts. */
async function cellKeys(file: string, clientCounts: readonly number[]): Promise<CellKeys> {
  const counts = [...new Set(clientCounts)];
  const keys = await makeKeys(file, [
    { name: 'bench-admin', roles: ['ADMIN'] },
    { name: 'bench-seeder', roles: ['PROPOSER'] },
    ...counts.flatMap((count) => principals(reviewerPrefix(count), count, ['REVIEWER'])),
  ]);
  const [admin, seeder] = keysNamed(keys, ['bench-admin', 'bench-seeder']) as [BenchKey, BenchKey];
  return {
    admin,
    seeder,
    reviewers: (concurrency) =>
      keysNamed(
        keys,
        principals(reviewerPrefix(concurrency), concurrency, ['REVIEWER']).map((principal) => principal.name),
      ),
  };
}

/** Makes sure at least `needed` pending items are left in the server's queue. */
async function topUp(port: number, seeder: BenchKey, seed: SeedState, decided: number, needed: number): Promise<void> {
  const pending = seed.added - decided;
  if (pending >= needed) return;
  const count = Math.ceil((needed - pending) / 500) * 500;
  const started = performance.now();
  await seedItems(port, seeder, seed, count);
  log(
    `  seeded ${round(count)} items in ${((performance.now() - started) / 1000).toFixed(1)} s (queue: ${round(seed.added - decided)} pending)`,
  );
}

/** How many items a cycle cell at `rate` cycles/s may use, with margin. */
function itemsFor(rate: number, timing: CellTiming): number {
  return Math.ceil((rate * (timing.warmupMs + timing.durationMs) * 1.3) / 1000) + 4 * timing.concurrency + 200;
}

function verifyServerFile(file: string, seed: SeedState, decided: number, claimedIds: number): Verification[] {
  const db = new Database(file, { readonly: true });
  try {
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const accepted = count(`SELECT count(*) AS n FROM "Item" WHERE "status" = 'ACCEPTED'`);
    const items = count(`SELECT count(*) AS n FROM "Item"`);
    const pending = count(`SELECT count(*) AS n FROM "Item" WHERE "status" = 'PENDING'`);
    const leased = count(`SELECT count(*) AS n FROM "Item" WHERE "leaseTokenHash" IS NOT NULL`);
    const claims = count(`SELECT count(*) AS n FROM "Event" WHERE "type" = 'LEASE_CLAIMED'`);
    const decisions = count(`SELECT count(*) AS n FROM "Event" WHERE "type" = 'ITEM_DECIDED'`);
    const refusals = count(`SELECT count(*) AS n FROM "Event" WHERE "type" = 'OPERATION_REFUSED'`);
    const integrity = (db.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check;
    return [
      {
        label: 'server: no lost decision',
        ok: accepted === decided,
        detail: `${round(decided)} cycles acknowledged, ${round(accepted)} items ACCEPTED in the file`,
      },
      {
        label: 'server: no double claim',
        ok: claimedIds === decided,
        detail: `${round(claimedIds)} distinct item ids claimed for ${round(decided)} cycles`,
      },
      {
        label: 'server: history matches',
        ok: claims === decided && decisions === decided,
        detail: `${round(claims)} LEASE_CLAIMED and ${round(decisions)} ITEM_DECIDED events`,
      },
      { label: 'server: no lease left behind', ok: leased === 0, detail: `${leased} items still leased` },
      { label: 'server: no operation refused', ok: refusals === 0, detail: `${refusals} OPERATION_REFUSED events` },
      {
        label: 'server: every seeded item accounted for',
        ok: items === seed.added && pending === seed.added - decided,
        detail: `${round(items)} items (${round(seed.added)} seeded), ${round(pending)} still pending`,
      },
      { label: 'server: integrity_check', ok: integrity === 'ok', detail: integrity },
    ];
  } finally {
    db.close();
  }
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const command = ['npm run bench', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' ');
  // The server's default unless the environment overrides it; the raw run uses the same.
  const synchronous = loadConfig({ SQLITE_SYNCHRONOUS: process.env.SQLITE_SYNCHRONOUS }).synchronous;
  if (options.scaleOnly && options.scale) return scaleOnly(options.scale, command, synchronous, options.keep);
  if (options.postgresOnly && options.postgres) return postgresOnly(options.postgres, command, synchronous, options.keep);
  if (options.liveScaleOnly && options.liveScale) return liveScaleOnly(options.liveScale, command, synchronous, options);
  if (options.attacksOnly && options.attacks) return attacksOnly(options.attacks, command, synchronous, options.keep);
  log(
    `Leasehold bench (${options.quick ? 'quick' : 'full'}): clients ${options.clients.join(', ')}; ${options.warmupMs / 1000} s warm-up + ${options.durationMs / 1000} s per cell; synchronous=${synchronous}`,
  );
  log(`identity: every request carries its client's own API key (one REVIEWER principal per client); servers run with ${SERVER_POLICY}`);

  log('building (npm run build)…');
  build();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'leasehold-bench-'));
  const serverFile = path.join(tmp, 'server.db');
  const raw = openRawBench(path.join(tmp, 'raw.db'), synchronous);
  const machine = describeMachine(raw.sqliteVersion, tmp);
  const date = new Date().toISOString();

  const keys = await cellKeys(serverFile, options.clients);
  let server: RunningServer | null = await startServer({ databaseFile: serverFile, synchronous });
  const rows: Row[] = [];
  const errors = noErrors();
  const seed: SeedState = { added: 0, category: 'bench-accept' };
  const claimedIds = new Set<string>();
  let decided = 0;
  let bestCycles = 0;
  let serverLogLines: string[] = [];
  let verifications: Verification[] = [];
  let profile: Report['profile'];
  let live: LiveReport | null = null;
  let liveError: string | null = null;
  let scale: ScaleReport | null = null;
  let scaleError: string | null = null;
  let postgres: PostgresReport | null = null;
  let postgresError: string | null = null;
  let liveScale: LiveScaleReport | null = null;
  let liveScaleError: string | null = null;
  let attacks: AttackReport | null = null;
  let attacksError: string | null = null;
  try {
    log(`server on 127.0.0.1:${server.port}, database ${serverFile}`);
    await seedCategories(server.port, keys.admin, [seed.category]);

    for (const concurrency of options.clients) {
      const timing: CellTiming = { concurrency, warmupMs: options.warmupMs, durationMs: options.durationMs };
      log(`\n[${concurrency} client${concurrency === 1 ? '' : 's'}]`);
      // The no-op and the cycles of a row are sent by the same principals, so both pay the same authentication.
      const reviewers = keys.reviewers(concurrency);
      const noop = await noopCell(server.port, timing, reviewers);
      log(`  no-op:  ${round(noop.rate)} queries/s`);
      // A cycle is two requests, each heavier than a no-op: no-op/2 bounds the cycle rate.
      const ceiling = noop.rate / 2;
      await topUp(server.port, keys.seeder, seed, decided, itemsFor(bestCycles > 0 ? Math.min(ceiling, bestCycles * 3) : ceiling, timing));
      const cycles = await cycleCell(server.port, timing, claimedIds, reviewers);
      decided += cycles.completedTotal;
      bestCycles = Math.max(bestCycles, cycles.rate);
      log(
        `  cycles: ${round(cycles.rate)} cycles/s (claim p50 ${cycles.latency.claim?.p50.toFixed(2)} ms, p99 ${cycles.latency.claim?.p99.toFixed(2)} ms)`,
      );
      const rawResult = raw.run(options.warmupMs, options.durationMs);
      log(`  raw:    ${round(rawResult.rate)} cycles/s`);
      addErrors(errors, noop.errors);
      addErrors(errors, cycles.errors);
      rows.push({ concurrency, noop, cycles, raw: { rate: rawResult.rate, errors: rawResult.errors } });
    }

    const exitCode = await server.stop();
    serverLogLines = [...server.logs];
    server = null;
    verifications = verifyServerFile(serverFile, seed, decided, claimedIds.size);
    verifications.push({ label: 'server: clean shutdown', ok: exitCode === 0, detail: `exit code ${exitCode}` });
    const rawCheck = raw.verify();
    verifications.push({
      label: 'raw: no lost decision',
      ok:
        rawCheck.accepted === rawCheck.cyclesRun &&
        rawCheck.claimEvents === rawCheck.cyclesRun &&
        rawCheck.decideEvents === rawCheck.cyclesRun &&
        rawCheck.leased === 0,
      detail: `${round(rawCheck.cyclesRun)} cycles, ${round(rawCheck.accepted)} ACCEPTED, ${round(rawCheck.claimEvents)}/${round(rawCheck.decideEvents)} events, ${rawCheck.leased} leased`,
    });

    if (options.live) {
      try {
        live = await runLive(tmp, synchronous, options.live, log);
        verifications.push(...live.verifications);
        serverLogLines.push(...live.serverLogLines);
      } catch (error) {
        liveError = error instanceof Error ? error.message : String(error);
        log(`live measurements failed: ${liveError}`);
      }
    }

    if (options.scale) {
      try {
        scale = await runScale(tmp, synchronous, options.scale, log);
        verifications.push(...scale.verifications);
        serverLogLines.push(...scale.serverLogLines);
      } catch (error) {
        scaleError = error instanceof Error ? error.message : String(error);
        log(`scale measurements failed: ${scaleError}`);
      }
    }

    if (options.postgres) {
      try {
        postgres = await runPostgres(tmp, synchronous, options.postgres, log);
      } catch (error) {
        postgresError = error instanceof Error ? error.message : String(error);
        log(`postgres measurements failed: ${postgresError}`);
      }
    }

    if (options.liveScale) {
      try {
        liveScale = await runLiveScale(tmp, synchronous, options.liveScale, log);
      } catch (error) {
        liveScaleError = error instanceof Error ? error.message : String(error);
        log(`live-at-scale measurements failed: ${liveScaleError}`);
      }
    }

    if (options.attacks) {
      try {
        attacks = await runAttacks(tmp, synchronous, options.attacks, log);
      } catch (error) {
        attacksError = error instanceof Error ? error.message : String(error);
        log(`/health-under-attack measurements failed: ${attacksError}`);
      }
    }

    if (options.profile) profile = await profileServer(tmp, synchronous, options, bestCycles);
  } finally {
    if (server) await server.stop();
    raw.close();
    if (!options.keep) rmSync(tmp, { recursive: true, force: true });
  }

  const report: Report = {
    date,
    command,
    mode: options.quick ? 'quick' : 'full',
    warmupMs: options.warmupMs,
    durationMs: options.durationMs,
    synchronous,
    machine,
    rows,
    errors,
    verifications,
    serverLogLines,
    ...(profile ? { profile } : {}),
    live,
    liveError,
    scale,
    scaleError,
    postgres,
    postgresError,
  };

  log(`\n${mainTable(rows)}\n\n${latencyTable(rows)}\n`);
  for (const row of rows) {
    const r = ratios(row);
    log(
      `${String(row.concurrency).padStart(3)} clients: cycles ÷ raw = ${(r.vsRaw * 100).toFixed(1)} %; cycles ÷ (no-op/2) = ${(r.vsNoop * 100).toFixed(1)} % (target ≥ ${TARGET * 100} %: ${r.vsNoop >= TARGET ? 'met' : 'MISSED'})`,
    );
  }
  if (live) log(`\n${liveSummary(live).join('\n')}`);
  if (scale) log(`\n${scaleSummary(scale).join('\n')}`);
  if (postgres) log(`\n${postgresSummary(postgres).join('\n')}`);
  if (liveScale) log(`\n${liveScaleSummary(liveScale).join('\n')}`);
  const rawErrors = rows.reduce((sum, row) => sum + row.raw.errors, 0);
  log(`\nerrors: ${errorLine(errors)}; raw SQLite errors ${rawErrors}`);
  for (const line of serverLogLines.slice(0, 10)) log(`server log: ${line}`);
  for (const v of verifications) log(`${v.ok ? 'ok  ' : 'FAIL'} ${v.label}: ${v.detail}`);
  // The PostgreSQL part keeps its checks in its own section of the report.
  for (const line of postgres?.serverLogLines.slice(0, 10) ?? []) log(`server log: ${line}`);
  for (const v of postgres?.verifications ?? []) log(`${v.ok ? 'ok  ' : 'FAIL'} ${v.label}: ${v.detail}`);
  for (const line of liveScale?.serverLogLines.slice(0, 10) ?? []) log(`server log: ${line}`);
  for (const v of liveScale?.verifications ?? []) log(`${v.ok ? 'ok  ' : 'FAIL'} ${v.label}: ${v.detail}`);
  if (attacks) log(`\n${attacksMarkdown(attacks, command, machine, date).join('\n')}\n`);
  for (const line of attacks?.serverLogLines.slice(0, 10) ?? []) log(`server log: ${line}`);
  if (profile) log(`\nprofile written to ${profile.file}; summary in ${options.write ? 'BENCHMARKS.md' : 'the output of --write'}`);

  // Issue 4: one command-line claim, ours against seed A's script, measured in this run too.
  const cli = commandLineTimes(options.quick ? 5 : 41);
  log(`\n${cli.markdown}`);

  if (options.write) {
    writeFileSync(
      path.join(ROOT, 'BENCHMARKS.md'),
      `${renderMarkdown(report)}\n## Command line: claim, show and decide, ours against seed A's script\n\n\`npx tsx bench/cli.ts\` (run by \`npm run bench\`), spawn to exit, each command on its own database of pending items.\n\n${cli.markdown}\n${liveScale ? `\n${liveScaleMarkdown(liveScale, command, machine, date).join('\n')}` : ''}`,
    );
    log('wrote BENCHMARKS.md');
  }
  const failed =
    !cli.ok ||
    totalErrors(errors) + rawErrors > 0 ||
    serverLogLines.length > 0 ||
    verifications.some((v) => !v.ok) ||
    liveError !== null ||
    scaleError !== null ||
    postgresError !== null ||
    (postgres !== null && (postgres.serverLogLines.length > 0 || postgres.verifications.some((v) => !v.ok))) ||
    liveScaleError !== null ||
    (liveScale !== null && (liveScale.serverLogLines.length > 0 || liveScale.verifications.some((v) => !v.ok))) ||
    attacksError !== null ||
    (attacks !== null && attacksFailed(attacks));
  if (failed) log('\nFAILED: some requests errored or a check failed (see above).');
  return failed ? 1 : 0;
}

/** `--scale-only`: the scale part alone, its section printed rather than written (BENCHMARKS.md holds whole runs). */
function scaleOnly(options: ScaleOptions, command: string, synchronous: 'NORMAL' | 'FULL', keep: boolean): Promise<number> {
  return partAlone<ScaleReport>(
    `Leasehold bench, scale part only (${options.quick ? 'quick' : 'full'}): ${command}; synchronous=${synchronous}`,
    keep,
    (tmp) => runScale(tmp, synchronous, options, log),
    (report, machine) => {
      log(`\n${scaleMarkdown(report, null, machine).join('\n')}\n`);
      log(scaleSummary(report).join('\n'));
      return checked(report);
    },
  );
}

/**
 * `--postgres-only`: the PostgreSQL part alone, its section printed rather than written. Without an
 * admin URL there is nothing to measure, which is a failure here (unlike in a whole run).
 */
function postgresOnly(options: PostgresOptions, command: string, synchronous: 'NORMAL' | 'FULL', keep: boolean): Promise<number> {
  return partAlone<PostgresReport>(
    `Leasehold bench, PostgreSQL part only (${options.quick ? 'quick' : 'full'}): ${command}`,
    keep,
    (tmp) => runPostgres(tmp, synchronous, options, log),
    (report, machine) => {
      if (report.skipped) {
        log(`\nFAILED: --postgres-only, but the part was skipped: ${report.skipped}.`);
        return 1;
      }
      log(`\n${postgresMarkdown(report, null, machine, command).join('\n')}\n`);
      log(postgresSummary(report).join('\n'));
      return checked(report);
    },
  );
}

/** Prints a part's server log lines and checks; 1 when any check failed or the server logged an error. */
function checked(report: { serverLogLines: string[]; verifications: Verification[] }): number {
  for (const line of report.serverLogLines.slice(0, 10)) log(`server log: ${line}`);
  for (const v of report.verifications) log(`${v.ok ? 'ok  ' : 'FAIL'} ${v.label}: ${v.detail}`);
  const failed = report.serverLogLines.length > 0 || report.verifications.some((v) => !v.ok);
  if (failed) log('\nFAILED: a check failed (see above).');
  return failed ? 1 : 0;
}

/**
 * One part of the bench alone: builds, describes the machine, runs `part` in a temporary directory (kept
 * with --keep), and hands its report to `finish` with the machine and the date; returns `finish`'s exit code.
 */
async function partAlone<R>(
  title: string,
  keep: boolean,
  part: (tmp: string) => Promise<R>,
  finish: (report: R, machine: Machine, date: string) => number,
): Promise<number> {
  log(title);
  log('building (npm run build)…');
  build();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'leasehold-bench-'));
  const memory = new Database(':memory:');
  const machine = describeMachine((memory.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v, tmp);
  memory.close();
  const date = new Date().toISOString();
  let report: R;
  try {
    report = await part(tmp);
  } finally {
    if (keep) log(`kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  }
  return finish(report, machine, date);
}

/**
 * `--live-scale-only`: the live-at-scale part alone. With --write its section replaces the "Live at scale"
 * section of BENCHMARKS.md (or is appended), the rest of the file kept as the last whole run wrote it.
 */
function liveScaleOnly(options: LiveScaleOptions, command: string, synchronous: 'NORMAL' | 'FULL', run: Options): Promise<number> {
  return partAlone<LiveScaleReport>(
    `Leasehold bench, live-at-scale part only (${options.quick ? 'quick' : 'full'}): ${command}; synchronous=${synchronous}`,
    run.keep,
    (tmp) => runLiveScale(tmp, synchronous, options, log),
    (report, machine, date) => {
      const section = liveScaleMarkdown(report, command, machine, date).join('\n');
      log(`\n${section}\n`);
      log(liveScaleSummary(report).join('\n'));
      if (run.write) {
        const file = path.join(ROOT, 'BENCHMARKS.md');
        const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
        writeFileSync(file, replaceSection(current, '## Live at scale', section));
        log('wrote the "Live at scale" section of BENCHMARKS.md');
      }
      return checked(report);
    },
  );
}

/** `--attacks-only`: the /health-under-attack part alone, its table printed (never written to BENCHMARKS.md). */
function attacksOnly(options: AttackOptions, command: string, synchronous: 'NORMAL' | 'FULL', keep: boolean): Promise<number> {
  return partAlone<AttackReport>(
    `Leasehold bench, /health-under-attack part only: ${command}; synchronous=${synchronous}`,
    keep,
    (tmp) => runAttacks(tmp, synchronous, options, log),
    (report, machine, date) => {
      log(`\n${attacksMarkdown(report, command, machine, date).join('\n')}\n`);
      for (const line of report.serverLogLines.slice(0, 10)) log(`server log: ${line}`);
      const failed = attacksFailed(report);
      if (failed)
        log('\nFAILED: an attack was not answered as the limits say, /health failed, or the server did not stop cleanly (see above).');
      return failed ? 1 : 0;
    },
  );
}

/** `text` with the section under `heading` (up to the next heading of the same level) replaced by `section`, or with it appended. */
function replaceSection(text: string, heading: string, section: string): string {
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) return `${text.trimEnd()}\n\n${section.trimEnd()}\n`;
  const next = text.indexOf('\n## ', start + heading.length + 2);
  return `${text.slice(0, start + 1)}${section.trimEnd()}\n${next < 0 ? '' : text.slice(next)}`;
}

/** A separate server under the inspector: profile the busiest-looking cell (8 clients) for a few seconds. */
async function profileServer(
  tmp: string,
  synchronous: 'NORMAL' | 'FULL',
  options: Options,
  bestCycles: number,
): Promise<Report['profile']> {
  const concurrency = options.profileClients;
  log(`\nprofiling the server over ${options.profileSeconds} s of ${concurrency}-client review cycles…`);
  const file = path.join(tmp, 'profile.db');
  const keys = await cellKeys(file, [concurrency]);
  const server = await startServer({ databaseFile: file, synchronous, nodeFlags: ['--inspect=127.0.0.1:0'] });
  try {
    const url = inspectorUrl(server.logs);
    if (!url) throw new Error(`no inspector URL in server output:\n${server.logs.join('\n')}`);
    const seed: SeedState = { added: 0, category: 'bench-accept' };
    await seedCategories(server.port, keys.admin, [seed.category]);
    const warm: CellTiming = { concurrency, warmupMs: 0, durationMs: 1000 };
    const window: CellTiming = { concurrency, warmupMs: 0, durationMs: options.profileSeconds * 1000 };
    const rate = Math.max(bestCycles, 100) * 2;
    await topUp(server.port, keys.seeder, seed, 0, itemsFor(rate, warm) + itemsFor(rate, window));
    const claimed = new Set<string>();
    await cycleCell(server.port, warm, claimed, keys.reviewers(concurrency));
    const profiler = await connectProfiler(url);
    await profiler.start();
    const cell = await cycleCell(server.port, window, claimed, keys.reviewers(concurrency));
    const cpuProfile = await profiler.stop();
    profiler.close();
    const file = path.join(os.tmpdir(), `leasehold-bench-${Date.now()}.cpuprofile`);
    writeFileSync(file, JSON.stringify(cpuProfile));
    if (totalErrors(cell.errors) > 0) log(`  profiled cell errors: ${errorLine(cell.errors)}`);
    return { summary: summariseProfile(cpuProfile), seconds: options.profileSeconds, concurrency, rate: cell.rate, file };
  } finally {
    await server.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);

/** Runs bench/cli.ts in its own process and returns its table (the medians of claim, show and decide). */
function commandLineTimes(runs: number): { ok: boolean; markdown: string } {
  log(`\ntiming one command-line claim (${runs} runs each: leasehold compiled, leasehold from sources, seed A)…`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'cli.ts'), '--runs', String(runs)], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (result.status !== 0) return { ok: false, markdown: `Command-line timing failed: ${result.stderr.trim()}` };
  const lines = result.stdout.trim().split('\n');
  return {
    ok: true,
    markdown: lines
      .filter((line) => !line.startsWith('{'))
      .join('\n')
      .trim(),
  };
}
