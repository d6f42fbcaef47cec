// PostgreSQL with several server instances, next to SQLite, measured in the same run:
//  1. review cycles/s (the claim → decide cycle of the main table, cycleCell in load.ts) with 1 SQLite
//     instance, 1 PostgreSQL instance and N PostgreSQL instances on one database, at the same total
//     client counts (with N instances the clients are spread over them), each on a fresh database;
//  2. event delivery across instances: queueEvents subscribers on every instance, addItem through the
//     first, per-instance latency and an exactly-once, in-order check (measureFanOut in fanout.ts),
//     on PostgreSQL (LISTEN/NOTIFY) and on SQLite (several processes on one file, data_version polling).
// Runs only when LEASEHOLD_BENCH_POSTGRES_URL or LEASEHOLD_TEST_POSTGRES_URL names a server whose role
// may CREATE DATABASE; every database it makes (leasehold_bench_…) is dropped again.
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import pg from 'pg';
import type { DatabaseLocation } from '../src/config/database-location.js';
import { redactDatabaseUrl as redactUrl } from '../src/config/database-location.js';
import { POSTGRES_WRITE_LOCK } from '../src/db/client.js';
import { createScratchDatabase } from '../src/db/postgres-scratch.js';
import { type FileSeed, SEED_BATCH, seedPendingItems } from '../test/support/seed-file.js';
import {
  type EventHistory,
  type EventRow,
  type FanOutResult,
  machineBusyMs,
  measureFanOut,
  processCpuMs,
  type Round,
  readSqlite,
  sqliteHistory,
} from './fanout.js';
import { type ImportMeasurement, type IntakeMeasurement, measureImport, measureIntake } from './intake.js';
import { type BenchKey, keysNamed, makeKeys, principals } from './keys.js';
import { fanOutChecks, roundsFor } from './live.js';
import {
  addErrors,
  type CellResult,
  type CellTiming,
  cycleCell,
  type ErrorCounts,
  noErrors,
  noopCell,
  seedCategories,
  totalErrors,
} from './load.js';
import { type LockHolds, scrapeLockHolds } from './lock-holds.js';
import { measureProposalLoop, type ProposalLoopMeasurement } from './proposal-loop.js';
import { type RunningServer, type ServerOptions, startServer } from './server.js';
import type { Verification } from './verification.js';

/** The environment variables naming the admin URL, the first set one wins. */
export const POSTGRES_URL_VARIABLES = ['LEASEHOLD_BENCH_POSTGRES_URL', 'LEASEHOLD_TEST_POSTGRES_URL'] as const;

export interface PostgresOptions {
  quick: boolean;
  /** Total client counts; with several instances they are spread over them. */
  clients: number[];
  /** Instances of the multi-instance setup (on one PostgreSQL database). */
  instances: number;
  /** Each (setup, client count) is measured this many times, alternating the order of the setups. */
  repeats: number;
  warmupMs: number;
  durationMs: number;
  /** Measure `{ __typename }` per setup too (the pipeline's ceiling). */
  noop: boolean;
  /** Subscribers per instance in the delivery part. */
  subscribers: number;
  events: number;
  /** Run the delivery part on SQLite too (the same number of processes on one file). */
  sqliteDelivery: boolean;
  /** Items added per bulk-intake measurement (addItems of 500 over HTTP); 0 leaves the intake out. */
  intakeItems: number;
  /** Client counts of the bulk-intake measurements. */
  intakeClients: number[];
  /** Workers in the action-proposal loop measurement (proposal-loop.ts); 0 leaves it out. */
  proposalWorkers: number;
}

/** Where the admin URL comes from, or null when no variable is set. */
export function postgresAdminUrl(env: NodeJS.ProcessEnv = process.env): { url: string; variable: string } | null {
  for (const variable of POSTGRES_URL_VARIABLES) {
    const url = env[variable];
    if (url) return { url, variable };
  }
  return null;
}

export interface PostgresServerInfo {
  version: string;
  /** SHOW … of the settings that decide what a commit costs. */
  settings: Record<string, string>;
  /** The admin URL, password redacted, and the variable it came from. */
  adminUrl: string;
  variable: string;
}

const SETTINGS = [
  'fsync',
  'synchronous_commit',
  'wal_sync_method',
  'full_page_writes',
  'commit_delay',
  'shared_buffers',
  'max_connections',
];

export type Backend = DatabaseLocation['dialect'];

/** A measured configuration: which backend, how many server instances. */
export interface Setup {
  key: string;
  label: string;
  /** For ratios: SQLite-1, PG-1, PG-3. */
  short: string;
  backend: Backend;
  instances: number;
}

/** CPU over a measured window, each as a share of one core. */
export interface WindowCpu {
  seconds: number;
  /** All server instances together. */
  servers: number;
  perServer: number[];
  /** PostgreSQL processes (see PostgresCpu); NaN on SQLite. */
  database: number;
  /** This process: the load generator. */
  bench: number;
  /** Everything else on the machine (other tenants' tests, …). */
  other: number;
}

/**
 * The states the writer connections (application_name leasehold-writer, one per instance) were seen
 * in, sampled from pg_stat_activity every few ms over the measured window: the mean number of writer
 * connections in each state.
 */
export interface WriterStates {
  samples: number;
  /** Writer connections seen (mean per sample). */
  writers: number;
  /** Waiting for POSTGRES_WRITE_LOCK (wait_event Lock/advisory). */
  advisoryLock: number;
  /** Waiting for another heavyweight lock (e.g. the NOTIFY queue at commit: Lock/object). */
  otherLock: number;
  /** Writing or flushing WAL (IO/WAL*, LWLock/WALWrite): the commit's fsync. */
  wal: number;
  /** Running a statement. */
  running: number;
  /** In a transaction, waiting for the server process to send the next statement (round trips, Node work). */
  idleInTransaction: number;
  /** No transaction open. */
  idle: number;
  otherWait: number;
}

export interface CycleMeasurement {
  setup: Setup;
  clients: number;
  /** Clients per instance. */
  split: number[];
  repeat: number;
  /** Sum over the instances (null when not measured). */
  noopRate: number | null;
  cycleRate: number;
  perInstanceRate: number[];
  /** Slowest instance's claimItem p50 / p99 (ms). */
  claim: { p50: number; p99: number };
  decide: { p50: number; p99: number };
  cyclesInWindow: number;
  errors: ErrorCounts;
  cpu: WindowCpu;
  /** PostgreSQL only. */
  writers: WriterStates | null;
  /** Seconds from the first server's spawn until every instance answered /ready. */
  startSeconds: number;
  /** How long the instances' write transactions held the write lock over the cell, by form (lock-holds.ts). */
  lockHolds: LockHolds[];
}

export interface DeliveryResult {
  backend: Backend;
  label: string;
  instances: number;
  subscribersPerInstance: number;
  fanOut: FanOutResult;
}

export interface PostgresReport {
  /** When the part started (ISO 8601). */
  date: string;
  /** Set when the part did not run: why. */
  skipped: string | null;
  options: PostgresOptions;
  server: PostgresServerInfo | null;
  setups: Setup[];
  cycles: CycleMeasurement[];
  delivery: DeliveryResult[];
  /** Bulk intake on each backend, side by side (intake.ts): addItems over HTTP, and `leasehold import`. */
  intake: IntakeMeasurement[];
  imports: ImportMeasurement[];
  /** The action-proposal loop on each backend, side by side (proposal-loop.ts). */
  proposalLoops: ProposalLoopMeasurement[];
  /** Load average (1, 5, 15 min) when the part started and when it ended. */
  loadAverage: { start: string; end: string };
  seconds: { cycles: number; intake: number; proposals: number; delivery: number; total: number };
  verifications: Verification[];
  serverLogLines: string[];
}

const loadAverage = () =>
  os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(' ');

const round = (value: number) => Math.round(value).toLocaleString('en-US');

/** `total` clients over `instances` instances, the remainder on the first ones. */
export function splitClients(total: number, instances: number): number[] {
  return Array.from({ length: instances }, (_, index) => Math.floor(total / instances) + (index < total % instances ? 1 : 0));
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, application_name: 'leasehold-bench' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function serverInfo(adminUrl: string, variable: string): Promise<PostgresServerInfo> {
  return withClient(adminUrl, async (client) => {
    const version = ((await client.query<{ v: string }>('SELECT version() AS v')).rows[0]?.v ?? 'unknown').trim();
    const settings: Record<string, string> = {};
    for (const name of SETTINGS) settings[name] = (await client.query<Record<string, string>>(`SHOW ${name}`)).rows[0]?.[name] ?? '?';
    return { version, settings, adminUrl: redactUrl(adminUrl), variable };
  });
}

/**
 * CPU time of the PostgreSQL processes working for one database: its backends (pg_stat_activity by
 * datname; the servers' writer, readers and LISTEN connections, autovacuum) and the shared background
 * processes that write and flush WAL (walwriter, checkpointer, background writer), which also serve
 * any other database of the cluster. A process seen once stays counted at its last reading, so the
 * total only grows and differences of two readings are the CPU in between.
 */
class PostgresCpu {
  private readonly last = new Map<number, number>();

  constructor(
    private readonly monitor: pg.Client,
    private readonly database: string,
  ) {}

  async totalMs(): Promise<number> {
    const { rows } = await this.monitor.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
       WHERE datname = $1 OR backend_type IN ('walwriter', 'checkpointer', 'background writer')`,
      [this.database],
    );
    for (const { pid } of rows) {
      const ms = processCpuMs(pid);
      if (Number.isFinite(ms)) this.last.set(pid, ms);
    }
    // PostgreSQL on another machine or in a container of its own: its processes are not in our /proc.
    if (this.last.size === 0) return Number.NaN;
    let total = 0;
    for (const ms of this.last.values()) total += ms;
    return total;
  }
}

/** Samples the writer connections' states until `until` (performance.now()). */
async function sampleWriters(monitor: pg.Client, database: string, until: number): Promise<WriterStates> {
  const sum: WriterStates = {
    samples: 0,
    writers: 0,
    advisoryLock: 0,
    otherLock: 0,
    wal: 0,
    running: 0,
    idleInTransaction: 0,
    idle: 0,
    otherWait: 0,
  };
  while (performance.now() < until) {
    const { rows } = await monitor.query<{ state: string | null; wait_event_type: string | null; wait_event: string | null }>(
      `SELECT state, wait_event_type, wait_event FROM pg_stat_activity WHERE datname = $1 AND application_name = 'leasehold-writer'`,
      [database],
    );
    sum.samples++;
    for (const row of rows) {
      sum.writers++;
      if (row.wait_event_type === 'Lock') {
        if (row.wait_event === 'advisory') sum.advisoryLock++;
        else sum.otherLock++;
      } else if ((row.wait_event_type === 'IO' && row.wait_event?.startsWith('WAL')) || row.wait_event === 'WALWrite') sum.wal++;
      else if (row.state === 'idle in transaction') sum.idleInTransaction++;
      else if (row.state === 'idle') sum.idle++;
      else if (row.state === 'active' && row.wait_event_type === null) sum.running++;
      else sum.otherWait++;
    }
    await sleep(10);
  }
  const mean = (value: number) => (sum.samples === 0 ? Number.NaN : value / sum.samples);
  return {
    samples: sum.samples,
    writers: mean(sum.writers),
    advisoryLock: mean(sum.advisoryLock),
    otherLock: mean(sum.otherLock),
    wal: mean(sum.wal),
    running: mean(sum.running),
    idleInTransaction: mean(sum.idleInTransaction),
    idle: mean(sum.idle),
    otherWait: mean(sum.otherWait),
  };
}

/** A fresh database (a SQLite file, or a PostgreSQL database made through the admin URL) and how to read it back. */
export interface Store {
  location: DatabaseLocation;
  /** The database's name (PostgreSQL) or file (SQLite). */
  name: string;
  server: { databaseFile: string } | { databaseUrl: string };
  history: EventHistory;
  /** A single number from a read-only SQL query written for both backends. */
  count(sql: string): Promise<number>;
  /** `PRAGMA integrity_check` on SQLite; null on PostgreSQL. */
  integrity(): Promise<string | null>;
  /**
   * Writes the category and `seed.items` pending items with their events, as the service would
   * (see test/support/seed-file.ts), before any instance starts; returns the seconds it took.
   */
  seed(seed: FileSeed): Promise<number>;
  /** CPU of the PostgreSQL processes working for this database; null on SQLite. */
  databaseCpu: PostgresCpu | null;
  monitor: pg.Client | null;
  /** Drops the database, or removes the file. */
  dispose(): Promise<void>;
}

export async function sqliteStore(tmp: string, name: string): Promise<Store> {
  const file = path.join(tmp, `${name}.db`);
  const readonly = <T>(work: (db: Database.Database) => T): Promise<T> => readSqlite(file, work);
  return {
    location: { dialect: 'sqlite', file },
    name: file,
    server: { databaseFile: file },
    history: sqliteHistory(file),
    count: (sql) => readonly((db) => Number((db.prepare(sql).pluck().get() as number | bigint) ?? 0)),
    integrity: () => readonly((db) => (db.prepare('PRAGMA integrity_check').pluck().get() as string) ?? 'no answer'),
    seed: async (seed) => seedPendingItems(file, seed),
    databaseCpu: null,
    monitor: null,
    async dispose() {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    },
  };
}

export async function postgresStore(adminUrl: string): Promise<Store> {
  const scratch = await createScratchDatabase(adminUrl, { prefix: 'leasehold_bench' });
  const reader = new pg.Client({ connectionString: scratch.url, application_name: 'leasehold-bench' });
  const monitor = new pg.Client({ connectionString: adminUrl, application_name: 'leasehold-bench-monitor' });
  try {
    await Promise.all([reader.connect(), monitor.connect()]);
  } catch (error) {
    await Promise.all([reader.end().catch(() => {}), monitor.end().catch(() => {})]);
    await scratch.drop().catch(() => {});
    throw error;
  }
  const history: EventHistory = {
    async latestSequence() {
      return (await reader.query<{ n: number }>('SELECT coalesce(max("id"), 0)::int AS n FROM "Event"')).rows[0]?.n ?? 0;
    },
    async eventsBetween(after, upTo) {
      // timestamp(3) columns hold UTC wall time: extract(epoch) of a timestamp without time zone reads it as UTC.
      const { rows } = await reader.query<EventRow>(
        `SELECT e."id", (extract(epoch FROM e."occurredAt") * 1000)::float8 AS "occurredAt", e."type"::text AS "type", i."batchId", i."recordId"
         FROM "Event" e LEFT JOIN "Item" i ON i."id" = e."itemId" WHERE e."id" > $1 AND e."id" <= $2 ORDER BY e."id"`,
        [after, upTo],
      );
      return rows.map((row) => ({ ...row, occurredAt: Math.round(row.occurredAt) }));
    },
  };
  return {
    location: { dialect: 'postgresql', url: scratch.url },
    name: scratch.name,
    server: { databaseUrl: scratch.url },
    history,
    count: async (sql) => Number(Object.values((await reader.query(sql)).rows[0] ?? {})[0] ?? 0),
    integrity: async () => null,
    seed: (seed) => seedPostgres(scratch.url, seed),
    databaseCpu: new PostgresCpu(monitor, scratch.name),
    monitor,
    async dispose() {
      await Promise.all([reader.end().catch(() => {}), monitor.end().catch(() => {})]);
      await scratch.drop();
    },
  };
}

/**
 * PostgreSQL's seedPendingItems (test/support/seed-file.ts): in one transaction under the write lock, the category
 * with its CATEGORY_ADDED event, then the items in batches of SEED_BATCH (batch ids
 * `${prefix}-000000`, …, record ids r0000…), each PENDING at version 1 with its ITEM_ADDED event and
 * the details the service writes. Times are the database's clock (the instances follow it), in UTC
 * wall time as Prisma stores timestamp(3). Then ANALYZE, so the planner knows the tables' sizes and
 * autovacuum has no reason to analyze them while a cell runs.
 */
async function seedPostgres(url: string, seed: FileSeed): Promise<number> {
  const started = performance.now();
  await withClient(url, async (client) => {
    await client.query('BEGIN');
    try {
      await client.query(POSTGRES_WRITE_LOCK);
      const now = `(now() AT TIME ZONE 'UTC')::timestamp(3)`;
      await client.query(`INSERT INTO "Category" ("name", "createdAt", "createdBy") VALUES ($1, ${now}, $2)`, [seed.category, seed.admin]);
      await client.query(
        `INSERT INTO "Event" ("occurredAt", "type", "actor", "categoryName", "details") VALUES (${now}, 'CATEGORY_ADDED'::"EventType", $1, $2, '{}')`,
        [seed.admin, seed.category],
      );
      await client.query(
        `WITH added AS (
           INSERT INTO "Item" ("batchId", "recordId", "proposedCategory", "reason", "createdAt", "addedBy")
           SELECT $1 || '-' || lpad((g / ${SEED_BATCH})::text, 6, '0'), 'r' || lpad((g % ${SEED_BATCH})::text, 4, '0'), $2, $3,
                  date_trunc('second', ${now}), $4
           FROM generate_series(0, $5::int - 1) AS g ORDER BY g
           RETURNING "id", "batchId", "recordId"
         )
         INSERT INTO "Event" ("occurredAt", "type", "actor", "itemId", "itemVersion", "toStatus", "details")
         SELECT ${now}, 'ITEM_ADDED'::"EventType", $4, "id", 1, 'PENDING'::"ItemStatus",
                '{"batchId":' || to_json("batchId")::text || ',"recordId":' || to_json("recordId")::text || ',"proposedCategory":' || to_json($2::text)::text || '}'
         FROM added ORDER BY "id"`,
        [seed.prefix ?? 'scale', seed.category, 'Bench item: the proposal a reviewer would check.', seed.proposer, seed.items],
      );
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    }
    await client.query('ANALYZE "Item", "Event"');
  });
  return (performance.now() - started) / 1000;
}

interface Instances {
  servers: RunningServer[];
  startSeconds: number;
}

async function startInstances(store: Store, count: number, synchronous: 'NORMAL' | 'FULL'): Promise<Instances> {
  const started = performance.now();
  const options: ServerOptions = { ...store.server, synchronous };
  const results = await Promise.allSettled(Array.from({ length: count }, () => startServer(options)));
  const servers = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) {
    await Promise.all(servers.map((server) => server.stop()));
    throw failed.reason;
  }
  return { servers, startSeconds: (performance.now() - started) / 1000 };
}

/**
 * Stops every instance right after its last request (SIGTERM, as an orchestrator would); one
 * verification per instance, log lines prefixed with `where`: any line logged while stopping fails
 * the run, e.g. a query of the event feed cut off by the shutdown.
 */
async function stopInstances(servers: RunningServer[], where: string, verifications: Verification[], logLines: string[]): Promise<void> {
  const codes = await Promise.all(servers.map((server) => server.stop()));
  const bad = codes.flatMap((code, index) => (code === 0 ? [] : [`instance ${index + 1}: exit code ${code}`]));
  verifications.push({
    label: `${where}: clean shutdown of ${servers.length} instance${servers.length === 1 ? '' : 's'}`,
    ok: bad.length === 0,
    detail: bad.length === 0 ? `exit code 0 × ${servers.length}` : bad.join(', '),
  });
  for (const [index, server] of servers.entries()) logLines.push(...server.logs.map((line) => `${where}, instance ${index + 1}: ${line}`));
}

const CATEGORY = 'bench-postgres';
/** The least cycles/s a measurement's queue is seeded for (above what this service reaches on 2 cores). */
const SEED_RATE = 5_000;

/** Runs the cells of one instance set side by side: each instance gets its share of the clients, the windows start together. */
async function alongside(
  servers: RunningServer[],
  split: number[],
  keys: BenchKey[],
  timing: Omit<CellTiming, 'concurrency'>,
  cell: (port: number, timing: CellTiming, keys: BenchKey[]) => Promise<CellResult>,
): Promise<CellResult[]> {
  let first = 0;
  return Promise.all(
    servers.map((server, index) => {
      const concurrency = split[index] ?? 0;
      const mine = keys.slice(first, first + concurrency);
      first += concurrency;
      return cell(server.port, { ...timing, concurrency }, mine);
    }),
  );
}

/** CPU shares over [warm-up end, warm-up end + duration], measured alongside the cells. */
async function measureWindowCpu(timing: Omit<CellTiming, 'concurrency'>, pids: number[], database: PostgresCpu | null): Promise<WindowCpu> {
  await sleep(timing.warmupMs);
  const started = performance.now();
  const serversBefore = pids.map(processCpuMs);
  const databaseBefore = database ? await database.totalMs() : Number.NaN;
  const busyBefore = machineBusyMs();
  const benchBefore = process.cpuUsage();
  await sleep(Math.max(0, timing.durationMs - (performance.now() - started)));
  const serversMs = pids.map((pid, index) => processCpuMs(pid) - (serversBefore[index] as number));
  const databaseMs = database ? (await database.totalMs()) - databaseBefore : Number.NaN;
  const busyMs = machineBusyMs() - busyBefore;
  const bench = process.cpuUsage(benchBefore);
  const windowMs = performance.now() - started;
  const benchMs = (bench.user + bench.system) / 1000;
  const serverTotal = serversMs.reduce((sum, ms) => sum + ms, 0);
  return {
    seconds: windowMs / 1000,
    servers: serverTotal / windowMs,
    perServer: serversMs.map((ms) => ms / windowMs),
    database: databaseMs / windowMs,
    bench: benchMs / windowMs,
    other: Math.max(0, busyMs - serverTotal - (Number.isFinite(databaseMs) ? databaseMs : 0) - benchMs) / windowMs,
  };
}

interface CycleContext {
  tmp: string;
  adminUrl: string;
  synchronous: 'NORMAL' | 'FULL';
  options: PostgresOptions;
  log: (message: string) => void;
  verifications: Verification[];
  serverLogLines: string[];
  /** Best cycle rate seen per (setup, clients), to size the next queue. */
  best: Map<string, number>;
}

/** One measurement on a fresh database: no-op and review-cycle cells with `clients` clients over the setup's instances, then checks. */
async function measureCycles(setup: Setup, clients: number, repeat: number, context: CycleContext): Promise<CycleMeasurement> {
  const { options } = context;
  const where = `postgres part, ${setup.label}, ${clients} clients, round ${repeat + 1}`;
  const store =
    setup.backend === 'postgresql'
      ? await postgresStore(context.adminUrl)
      : await sqliteStore(context.tmp, `${setup.key}-c${clients}-r${repeat}`);
  let instances: Instances | null = null;
  try {
    const reviewerNames = principals('pg-bench-reviewer', clients, ['REVIEWER']);
    const keys = await makeKeys(store.location, [
      { name: 'bench-admin', roles: ['ADMIN'] },
      { name: 'bench-seeder', roles: ['PROPOSER'] },
      ...reviewerNames,
    ]);
    const reviewers = keysNamed(
      keys,
      reviewerNames.map((entry) => entry.name),
    );
    const timing = { warmupMs: options.warmupMs, durationMs: options.durationMs };
    // Enough items for twice the best rate seen for this setup, and at least SEED_RATE cycles/s: the
    // queue is seeded straight into the database before the instances start (addItems over HTTP
    // would take minutes on PostgreSQL for what one INSERT … SELECT does in a second).
    const bestKey = `${setup.key}/${clients}`;
    const rate = Math.max(2 * (context.best.get(bestKey) ?? 0), SEED_RATE);
    const seeded = Math.ceil(((rate * (timing.warmupMs + timing.durationMs) * 1.3) / 1000 + 4 * clients + 200) / SEED_BATCH) * SEED_BATCH;
    const seedSeconds = await store.seed({
      items: seeded,
      category: CATEGORY,
      admin: 'bench-admin',
      proposer: 'bench-seeder',
      prefix: 'pg-bench',
    });
    context.log(`  (seeded ${round(seeded)} items in ${seedSeconds.toFixed(1)} s)`);
    instances = await startInstances(store, setup.instances, context.synchronous);
    const { servers } = instances;

    const split = splitClients(clients, setup.instances);
    const errors = noErrors();

    let noopRate: number | null = null;
    if (options.noop) {
      const noops = await alongside(servers, split, reviewers, timing, (port, cellTiming, mine) => noopCell(port, cellTiming, mine));
      noopRate = noops.reduce((sum, cell) => sum + cell.rate, 0);
      for (const cell of noops) addErrors(errors, cell.errors);
    }

    const claimedIds = new Set<string>();
    const until = performance.now() + timing.warmupMs + timing.durationMs;
    const [cells, cpu, writers] = await Promise.all([
      alongside(servers, split, reviewers, timing, (port, cellTiming, mine) => cycleCell(port, cellTiming, claimedIds, mine)),
      measureWindowCpu(
        timing,
        servers.map((server) => server.pid),
        store.databaseCpu,
      ),
      store.monitor
        ? sleep(timing.warmupMs).then(() => sampleWriters(store.monitor as pg.Client, store.name, until))
        : Promise.resolve(null),
    ]);
    for (const cell of cells) addErrors(errors, cell.errors);
    const cycleRate = cells.reduce((sum, cell) => sum + cell.rate, 0);
    const decided = cells.reduce((sum, cell) => sum + cell.completedTotal, 0);
    context.best.set(bestKey, Math.max(context.best.get(bestKey) ?? 0, cycleRate));
    // An instance with no sample in its window (a tiny --quick window on a busy machine) is left out.
    const worst = (name: 'claim' | 'decide', field: 'p50' | 'p99') => {
      const values = cells.flatMap((cell) => (cell.latency[name]?.count ? [cell.latency[name][field]] : []));
      return values.length === 0 ? Number.NaN : Math.max(...values);
    };

    const admin = keysNamed(keys, ['bench-admin'])[0] as BenchKey;
    const lockHolds = await scrapeLockHolds(
      servers.map((server) => server.port),
      admin.authorization,
    );
    const startSeconds = instances.startSeconds;
    await stopInstances(servers, where, context.verifications, context.serverLogLines);
    instances = null;
    context.verifications.push(...(await cycleChecks(store, where, seeded, decided, claimedIds.size)));
    const measurement: CycleMeasurement = {
      setup,
      clients,
      split,
      repeat,
      noopRate,
      cycleRate,
      perInstanceRate: cells.map((cell) => cell.rate),
      claim: { p50: worst('claim', 'p50'), p99: worst('claim', 'p99') },
      decide: { p50: worst('decide', 'p50'), p99: worst('decide', 'p99') },
      cyclesInWindow: cells.reduce((sum, cell) => sum + cell.completed, 0),
      errors,
      cpu,
      writers,
      startSeconds,
      lockHolds,
    };
    return measurement;
  } finally {
    if (instances) await Promise.all(instances.servers.map((server) => server.stop()));
    await store.dispose();
  }
}

/** After a cycle measurement: every acknowledged decision is in the database, once, with its history. */
async function cycleChecks(store: Store, where: string, seeded: number, decided: number, claimedIds: number): Promise<Verification[]> {
  const count = (sql: string) => store.count(sql);
  const accepted = await count(`SELECT count(*) FROM "Item" WHERE "status" = 'ACCEPTED'`);
  const items = await count(`SELECT count(*) FROM "Item"`);
  const leased = await count(`SELECT count(*) FROM "Item" WHERE "leaseTokenHash" IS NOT NULL`);
  const claims = await count(`SELECT count(*) FROM "Event" WHERE "type" = 'LEASE_CLAIMED'`);
  const decisions = await count(`SELECT count(*) FROM "Event" WHERE "type" = 'ITEM_DECIDED'`);
  const refusals = await count(`SELECT count(*) FROM "Event" WHERE "type" = 'OPERATION_REFUSED'`);
  const integrity = await store.integrity();
  const problems: string[] = [];
  if (accepted !== decided) problems.push(`${round(decided)} cycles acknowledged but ${round(accepted)} items ACCEPTED`);
  if (claimedIds !== decided) problems.push(`${round(claimedIds)} distinct items claimed for ${round(decided)} cycles`);
  if (claims !== decided || decisions !== decided)
    problems.push(`${round(claims)} LEASE_CLAIMED / ${round(decisions)} ITEM_DECIDED events`);
  if (leased !== 0) problems.push(`${leased} items still leased`);
  if (refusals !== 0) problems.push(`${refusals} OPERATION_REFUSED events`);
  if (items !== seeded) problems.push(`${round(items)} items, ${round(seeded)} seeded`);
  if (integrity !== null && integrity !== 'ok') problems.push(`integrity_check: ${integrity}`);
  return [
    {
      label: `${where}: no lost decision, no double claim, history matches`,
      ok: problems.length === 0,
      detail:
        problems.length === 0
          ? `${round(decided)} cycles acknowledged = items ACCEPTED = distinct items claimed = LEASE_CLAIMED = ITEM_DECIDED events; 0 leased, 0 refused${integrity ? ', integrity_check ok' : ''}`
          : problems.join('; '),
    },
  ];
}

/** Delivery across instances: `subscribers` on each instance, addItem through the first. */
async function measureDelivery(backend: Backend, instanceCount: number, context: CycleContext, rounds: Round[]): Promise<DeliveryResult> {
  const { options, log } = context;
  const label = backend === 'postgresql' ? `PostgreSQL, ${instanceCount} instances` : `SQLite, ${instanceCount} processes on one file`;
  const where = `postgres part, delivery, ${label}`;
  const store = backend === 'postgresql' ? await postgresStore(context.adminUrl) : await sqliteStore(context.tmp, 'delivery');
  let instances: Instances | null = null;
  try {
    const groups = Array.from({ length: instanceCount }, (_, index) => principals(`pg-sub-${index}`, options.subscribers, ['VIEWER']));
    const keys = await makeKeys(store.location, [
      { name: 'bench-admin', roles: ['ADMIN'] },
      { name: 'bench-live', roles: ['PROPOSER'] },
      ...groups.flat(),
    ]);
    const [admin, proposer] = keysNamed(keys, ['bench-admin', 'bench-live']) as [BenchKey, BenchKey];
    instances = await startInstances(store, instanceCount, context.synchronous);
    const { servers } = instances;
    const first = servers[0] as RunningServer;
    await seedCategories(first.port, admin, [CATEGORY]);
    const letter = (index: number) => String.fromCharCode(65 + index);
    log(
      `\n[postgres part: delivery, ${label}: ${options.subscribers} subscribers on each of ${servers.map((server, index) => `${letter(index)} (:${server.port})`).join(', ')}; addItem through A]`,
    );
    const fanOut = await measureFanOut({
      name: `delivery-${backend}`,
      mutatePort: first.port,
      proposer,
      groups: servers.map((server, index) => ({
        label: `instance ${letter(index)}${index === 0 ? ' (takes the writes)' : ''}`,
        port: server.port,
        count: options.subscribers,
        keys: keysNamed(
          keys,
          (groups[index] ?? []).map((entry) => entry.name),
        ),
        workers: 1,
      })),
      rounds,
      history: store.history,
      category: CATEGORY,
      servers: servers.map((server, index) => ({ label: letter(index), pid: server.pid })),
      ...(store.databaseCpu ? { databaseCpuMs: () => (store.databaseCpu as PostgresCpu).totalMs() } : {}),
      drainTimeoutMs: options.quick ? 15_000 : 60_000,
      log,
    });
    context.verifications.push(...fanOutChecks(`${options.subscribers} subscribers on each of ${instanceCount} instances`, fanOut, where));
    await stopInstances(servers, where, context.verifications, context.serverLogLines);
    instances = null;
    const integrity = await store.integrity();
    if (integrity !== null) context.verifications.push({ label: `${where}: integrity_check`, ok: integrity === 'ok', detail: integrity });
    return { backend, label, instances: instanceCount, subscribersPerInstance: options.subscribers, fanOut };
  } finally {
    if (instances) await Promise.all(instances.servers.map((server) => server.stop()));
    await store.dispose();
  }
}

export function setupsFor(instances: number): Setup[] {
  return [
    { key: 'sqlite-1', label: 'SQLite, 1 instance', short: 'SQLite-1', backend: 'sqlite', instances: 1 },
    { key: 'pg-1', label: 'PostgreSQL, 1 instance', short: 'PG-1', backend: 'postgresql', instances: 1 },
    { key: `pg-${instances}`, label: `PostgreSQL, ${instances} instances`, short: `PG-${instances}`, backend: 'postgresql', instances },
  ];
}

/** The delivery rounds: those of the live section (paced, and open loop at 20 and 200 events/s; --quick: one short open-loop round). */
export function deliveryRounds(options: PostgresOptions): Round[] {
  return roundsFor({ quick: options.quick, events: options.events });
}

/** The whole part; a report that says why when it is skipped. Throws only when PostgreSQL was asked for and cannot be used. */
export async function runPostgres(
  tmp: string,
  synchronous: 'NORMAL' | 'FULL',
  options: PostgresOptions,
  log: (message: string) => void,
): Promise<PostgresReport> {
  const started = performance.now();
  const setups = setupsFor(options.instances);
  const admin = postgresAdminUrl();
  const report: PostgresReport = {
    date: new Date().toISOString(),
    skipped: null,
    options,
    server: null,
    setups,
    cycles: [],
    delivery: [],
    intake: [],
    imports: [],
    proposalLoops: [],
    loadAverage: { start: loadAverage(), end: '' },
    seconds: { cycles: 0, intake: 0, proposals: 0, delivery: 0, total: 0 },
    verifications: [],
    serverLogLines: [],
  };
  if (!admin) {
    report.skipped = `neither ${POSTGRES_URL_VARIABLES.join(' nor ')} is set (an admin URL of a PostgreSQL server whose role may CREATE DATABASE)`;
    log(`\n[postgres part SKIPPED: ${report.skipped}]`);
    return report;
  }
  report.server = await serverInfo(admin.url, admin.variable);
  log(
    `\n[postgres part: ${report.server.version.split(' on ')[0]} at ${report.server.adminUrl} (${admin.variable}); fsync=${report.server.settings.fsync}, synchronous_commit=${report.server.settings.synchronous_commit}]`,
  );
  const context: CycleContext = {
    tmp,
    adminUrl: admin.url,
    synchronous,
    options,
    log,
    verifications: report.verifications,
    serverLogLines: report.serverLogLines,
    best: new Map(),
  };

  log(
    `[postgres part: review cycles, ${options.clients.join(' and ')} clients total, ${options.repeats} round(s); ${options.warmupMs / 1000} s warm-up + ${options.durationMs / 1000} s per cell; a fresh database per measurement]`,
  );
  for (let repeat = 0; repeat < options.repeats; repeat++) {
    for (const clients of options.clients) {
      // Alternate the order of the setups between rounds, so drift on the machine falls on all alike.
      const order = repeat % 2 === 0 ? setups : [...setups].reverse();
      for (const setup of order) {
        const measurement = await measureCycles(setup, clients, repeat, context);
        report.cycles.push(measurement);
        log(
          `  round ${repeat + 1}, ${String(clients).padStart(2)} clients, ${setup.label.padEnd(24)} (${measurement.split.join('+')}): ${round(measurement.cycleRate)} cycles/s${measurement.noopRate === null ? '' : `, no-op ${round(measurement.noopRate)}/s`}; claim p50 ${measurement.claim.p50.toFixed(2)} / p99 ${measurement.claim.p99.toFixed(2)} ms; CPU servers ${pct(measurement.cpu.servers)}, PostgreSQL ${pct(measurement.cpu.database)}, bench ${pct(measurement.cpu.bench)}, other ${pct(measurement.cpu.other)}${measurement.writers ? `; writers waiting on the advisory lock ${measurement.writers.advisoryLock.toFixed(2)} of ${measurement.writers.writers.toFixed(1)}` : ''}${measurement.lockHolds.map((hold) => `; lock held (${hold.form}) p50 ${hold.p50Ms.toFixed(2)} / p99 ${hold.p99Ms.toFixed(2)} ms, ${(hold.writes / hold.holds).toFixed(1)} writes each`).join('')}${totalErrors(measurement.errors) ? `; ERRORS ${JSON.stringify(measurement.errors)}` : ''}`,
        );
      }
    }
  }
  const errors = noErrors();
  for (const measurement of report.cycles) addErrors(errors, measurement.errors);
  report.verifications.push({
    label: 'postgres part: no request failed in the review-cycle cells',
    ok: totalErrors(errors) === 0,
    detail: `HTTP ${errors.http}, GraphQL ${errors.graphql}, UserErrors ${errors.userErrors}, queue ran dry ${errors.dry}, double claims ${errors.doubleClaims}`,
  });
  report.seconds.cycles = (performance.now() - started) / 1000;

  const intakeStarted = performance.now();
  if (options.intakeItems > 0) {
    log(
      `[postgres part: bulk intake, ${round(options.intakeItems)} items by addItems of 500 over HTTP, ${options.intakeClients.join(' and ')} client(s), a fresh database each]`,
    );
    for (const clients of options.intakeClients) {
      for (const backend of ['sqlite', 'postgresql'] as const) {
        const store = backend === 'sqlite' ? await sqliteStore(tmp, `intake-${clients}`) : await postgresStore(admin.url);
        try {
          const measured = await measureIntake(store, backend, options.intakeItems, clients);
          report.intake.push(measured);
          report.serverLogLines.push(...measured.serverLogLines.map((line) => `intake, ${backend}: ${line}`));
          report.verifications.push({
            label: `postgres part, intake, ${backend}, ${clients} client(s): every item stored with its ITEM_ADDED event`,
            ok: measured.stored.items === measured.items && measured.stored.events === measured.items,
            detail: `${round(measured.stored.items)} items and ${round(measured.stored.events)} ITEM_ADDED events for ${round(measured.items)} added`,
          });
          log(
            `  intake, ${backend.padEnd(10)} ${clients} client(s): ${round(measured.itemsPerSecond)} items/s (${round(measured.items)} in ${measured.seconds.toFixed(2)} s)`,
          );
        } finally {
          await store.dispose();
        }
      }
    }
    log(
      `[postgres part: bulk intake, ${round(options.intakeItems)} items by \`leasehold import\` of a JSON Lines file, a fresh database each]`,
    );
    for (const backend of ['sqlite', 'postgresql'] as const) {
      const store = backend === 'sqlite' ? await sqliteStore(tmp, 'import') : await postgresStore(admin.url);
      try {
        const measured = await measureImport(store, backend, options.intakeItems);
        report.imports.push(measured);
        report.verifications.push({
          label: `postgres part, import, ${backend}: exit 0, every item stored with its ITEM_ADDED event`,
          ok: measured.code === 0 && measured.stored.items === measured.items && measured.stored.events === measured.items,
          detail: `exit ${measured.code}; ${round(measured.stored.items)} items and ${round(measured.stored.events)} ITEM_ADDED events for ${round(measured.items)} lines${measured.code === 0 ? '' : `; ${measured.output.slice(-300)}`}`,
        });
        log(
          `  import, ${backend.padEnd(10)}: ${round(measured.itemsPerSecond)} items/s (${round(measured.items)} in ${measured.seconds.toFixed(2)} s); past the process's start (${measured.probeSeconds.toFixed(2)} s for a 500-item import): ${round(measured.afterStartItemsPerSecond)} items/s`,
        );
      } finally {
        await store.dispose();
      }
    }
  }
  report.seconds.intake = (performance.now() - intakeStarted) / 1000;

  const proposalsStarted = performance.now();
  if (options.proposalWorkers > 0) {
    log(
      `[postgres part: the action-proposal loop over HTTP (submit, claim, approve, claimExecution, attempt, SUCCEEDED), ${options.proposalWorkers} workers, a fresh database each]`,
    );
    for (const backend of ['sqlite', 'postgresql'] as const) {
      const store = backend === 'sqlite' ? await sqliteStore(tmp, 'proposals') : await postgresStore(admin.url);
      try {
        const measured = await measureProposalLoop(
          store,
          backend,
          options.proposalWorkers,
          options.durationMs / 1000,
          options.warmupMs / 1000,
        );
        report.proposalLoops.push(measured);
        report.verifications.push({
          label: `postgres part, proposal loop, ${backend}: no request failed, every loop counted is EXECUTED with one EXECUTION_SUCCEEDED event`,
          ok: measured.errors === 0 && measured.stored.executed >= measured.loops && measured.stored.succeeded === measured.stored.executed,
          detail: `${measured.errors} failed requests; ${round(measured.loops)} loops counted, ${round(measured.stored.executed)} EXECUTED, ${round(measured.stored.succeeded)} EXECUTION_SUCCEEDED events`,
        });
        log(
          `  proposal loop, ${backend.padEnd(10)}: ${measured.loopsPerSecond.toFixed(1)} loops/s (${round(measured.loops)} in ${measured.seconds.toFixed(2)} s)${measured.lockHolds.map((hold) => `; lock held (${hold.form}) p50 ${hold.p50Ms.toFixed(2)} / p99 ${hold.p99Ms.toFixed(2)} ms, ${(hold.writes / hold.holds).toFixed(1)} writes each`).join('')}`,
        );
      } finally {
        await store.dispose();
      }
    }
  }
  report.seconds.proposals = (performance.now() - proposalsStarted) / 1000;

  const deliveryStarted = performance.now();
  const rounds = deliveryRounds(options);
  report.delivery.push(await measureDelivery('postgresql', options.instances, context, rounds));
  if (options.sqliteDelivery) report.delivery.push(await measureDelivery('sqlite', options.instances, context, rounds));
  else log('[postgres part: delivery on SQLite skipped in --quick (the live section measures SQLite across processes)]');
  report.seconds.delivery = (performance.now() - deliveryStarted) / 1000;
  report.seconds.total = (performance.now() - started) / 1000;
  report.loadAverage.end = loadAverage();
  return report;
}

const pct = (share: number) => (Number.isFinite(share) ? `${Math.round(share * 100)} %` : 'n/a');
