// Event delivery latency to many WebSocket subscribers: subscribers in worker processes (see
// ws-worker.ts), each with its own API key, mutations from this process over HTTP by one PROPOSER,
// and per (event, subscriber) the time from the event's occurredAt (and from the mutation's HTTP
// acknowledgement) to receipt.
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { gqlBody, graphqlClient } from './http.js';
import type { BenchKey } from './keys.js';
import { ROOT } from './server.js';
import { type Spread, spread } from './stats.js';
import type { PoolErrors } from './ws-clients.js';
import type { WorkerReply, WorkerRequest, WorkerResults, WorkerStatus } from './ws-worker.js';

export const FANOUT_QUERY = 'subscription { queueEvents { sequence type occurredAt serverNow } }';

const ADD_ITEM = `mutation($input: AddItemInput!) {
  addItem(input: $input) {
    __typename
    ... on AddItemPayload { item { id } }
    ... on UserError { code message }
  }
}`;

/** One child process holding subscribers; one request in flight at a time. */
class SubscriberWorker {
  private pending: { resolve: (reply: WorkerReply) => void; reject: (error: Error) => void } | null = null;
  private readonly exited: Promise<number | null>;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (reply: WorkerReply) => {
      const pending = this.pending;
      this.pending = null;
      if (!pending) return;
      if (reply.kind === 'failed') pending.reject(new Error(`subscriber worker: ${reply.message}`));
      else pending.resolve(reply);
    });
    this.exited = new Promise((resolve) =>
      child.once('exit', (code) => {
        this.pending?.reject(new Error(`subscriber worker exited (code ${code})`));
        this.pending = null;
        resolve(code);
      }),
    );
  }

  static start(): SubscriberWorker {
    const child = fork(path.join(ROOT, 'bench', 'ws-worker.ts'), [], {
      cwd: ROOT,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new SubscriberWorker(child);
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  request(message: WorkerRequest): Promise<WorkerReply> {
    if (this.pending) return Promise.reject(new Error('subscriber worker is busy'));
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.child.send(message);
    });
  }

  async status(): Promise<WorkerStatus> {
    const reply = await this.request({ kind: 'status' });
    if (reply.kind !== 'status') throw new Error(`unexpected reply ${reply.kind}`);
    return reply.status;
  }

  async close(): Promise<void> {
    if (this.child.exitCode === null) {
      await this.request({ kind: 'close' }).catch(() => undefined);
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
      await this.exited;
      clearTimeout(timer);
    }
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

/** CPU time (user + system) a process has used so far, in ms, from /proc (Linux); NaN elsewhere. */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start at field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / 100; // CLK_TCK is 100 on Linux
  } catch {
    return Number.NaN;
  }
}

/** CPU time (user, system, irq, steal) all CPUs have been busy so far, in ms, from /proc/stat; NaN elsewhere. */
export function machineBusyMs(): number {
  try {
    const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
    return ((user + nice + system + irq + softirq + steal) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

export interface SubscriberGroup {
  /** e.g. "server A" */
  label: string;
  port: number;
  count: number;
  /** One per subscriber: each connection authenticates as a principal of its own. */
  keys: readonly BenchKey[];
  /** Worker processes the group is split over. */
  workers: number;
}

/**
 * How the mutations of a round are sent: mutation i is due at start + i × interval. Open loop: sent
 * when due, whatever the server's backlog (several in flight). Paced: one at a time, each when due
 * and not before the previous one was answered, so the rate adapts to what the server sustains.
 */
export interface Round {
  events: number;
  intervalMs: number;
  openLoop: boolean;
}

export const describeRound = (round: Round): string =>
  round.openLoop
    ? `open loop, one every ${round.intervalMs} ms (${Math.round(1000 / round.intervalMs)} events/s offered)`
    : `paced: one at a time, ≥ ${round.intervalMs} ms apart`;

export interface FanOutOptions {
  /** A name for the phase, used in batch ids. */
  name: string;
  /** The server the mutations go to. */
  mutatePort: number;
  /** Who adds the items (a PROPOSER). */
  proposer: BenchKey;
  groups: SubscriberGroup[];
  rounds: Round[];
  /** Where the events are read back from (see sqliteHistory; bench/postgres.ts has PostgreSQL's). */
  history: EventHistory;
  category: string;
  /** Server processes whose CPU time is reported. */
  servers: { label: string; pid: number }[];
  /**
   * CPU (ms) used so far by a database server serving these servers (PostgreSQL), counted apart from
   * the other processes; none for SQLite, which runs inside the servers.
   */
  databaseCpuMs?: () => Promise<number>;
  /** Longest wait, after the last mutation, for every subscriber to have every event. */
  drainTimeoutMs: number;
  log: (message: string) => void;
  /** Runs once every subscriber is connected, before the first round (e.g. to read the server's memory). */
  onConnected?: () => Promise<void>;
  /** Runs after the last round, while the subscribers are still connected. */
  afterRounds?: () => Promise<void>;
}

export interface GroupResult {
  label: string;
  subscribers: number;
  workers: number;
  expected: number;
  /** Deliveries of measured events (duplicates included). */
  delivered: number;
  missing: number;
  duplicates: number;
  /** Deliveries that arrived after a higher sequence on the same subscriber. */
  outOfOrder: number;
  /** Subscribers missing at least one event. */
  subscribersMissing: number;
  /** receipt − occurredAt, per delivery. */
  fromOccurred: Spread;
  /** receipt − the mutation's HTTP acknowledgement (negative when the event beat the response). */
  fromAck: Spread | null;
  /** serverNow − occurredAt: commit, feed and the server's backlog until it resolved this payload. */
  serverSide: Spread;
  /** receipt − serverNow: serialising and sending, the socket, and the client's own backlog. */
  afterResolve: Spread;
  /** Per event: the last subscriber's receipt − occurredAt. */
  lastReceipt: Spread;
  /** Mean receipt − occurredAt over the first and the last quarter of the events (growth means a backlog). */
  firstQuarterMean: number;
  lastQuarterMean: number;
  errors: PoolErrors;
  /** Worst event-loop delay over the group's worker processes while measuring. */
  loopDelay: { p99: number; max: number };
  /** CPU the group's workers used while measuring, as a share of one core. */
  workerCpu: number;
}

export interface RoundResult extends Round {
  /** Events whose sequence matched a mutation (all of them, when nothing else wrote). */
  matchedEvents: number;
  /** From the first mutation sent to the last answered. */
  mutationSeconds: number;
  /** From the first mutation sent until every subscriber had every event (or the drain timed out). */
  deliverySeconds: number;
  drained: boolean;
  /** addItem HTTP round trip. */
  ack: Spread;
  mutationErrors: number;
  groups: GroupResult[];
  /** Server CPU over the delivery window, as a share of one core, and per delivery (µs). */
  serverCpu: { label: string; share: number; perDeliveryUs: number }[];
  /** CPU used by everything else on the machine (not the servers, the database server, the subscriber workers or the bench), as a share of one core. */
  otherCpu: number;
  /** CPU of the database server (databaseCpuMs) over the delivery window, as a share of one core; NaN without one. */
  databaseCpu: number;
}

export interface FanOutResult {
  name: string;
  groups: SubscriberGroup[];
  /** Seconds from opening the first subscriber until all were connected and subscribed. */
  connectSeconds: number;
  connectionFailures: number;
  rounds: RoundResult[];
}

/** An event as the fan-out reads it back: occurredAt in ms since the epoch, and the item's natural key. */
export interface EventRow {
  id: number;
  occurredAt: number;
  type: string;
  batchId: string | null;
  recordId: string | null;
}

/** The history the fan-out checks deliveries against, read straight from the database. */
export interface EventHistory {
  /** The highest event id committed so far (0 when none). */
  latestSequence(): Promise<number>;
  /** Events with after < id ≤ upTo, in id order. */
  eventsBetween(after: number, upTo: number): Promise<EventRow[]>;
}

/** Runs `work` on a read-only connection of its own to `file`, closed afterwards. */
export function readSqlite<T>(file: string, work: (db: Database.Database) => T): Promise<T> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return Promise.resolve(work(db));
  } finally {
    db.close();
  }
}

/** The history of a SQLite file, each read on a read-only connection of its own. */
export function sqliteHistory(file: string): EventHistory {
  const withFile = <T>(work: (db: Database.Database) => T): Promise<T> => readSqlite(file, work);
  return {
    latestSequence: () => withFile((db) => (db.prepare('SELECT coalesce(max("id"), 0) AS n FROM "Event"').get() as { n: number }).n),
    eventsBetween: (after, upTo) =>
      withFile(
        (db) =>
          db
            .prepare(
              `SELECT e."id", e."occurredAt", e."type", i."batchId", i."recordId" FROM "Event" e LEFT JOIN "Item" i ON i."id" = e."itemId"
               WHERE e."id" > ? AND e."id" <= ? ORDER BY e."id"`,
            )
            .all(after, upTo) as EventRow[],
      ),
  };
}

const mean = (values: number[]) => (values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length);
const noPoolErrors = (): PoolErrors => ({ connection: 0, graphql: 0, completed: 0, malformed: 0 });

/** Opens the subscribers once, then runs each round over them. */
export async function measureFanOut(options: FanOutOptions): Promise<FanOutResult> {
  const { log } = options;
  const workers: { group: SubscriberGroup; worker: SubscriberWorker }[] = [];
  const client = graphqlClient(options.mutatePort, 64);
  let mutationErrors = 0;
  const addItem = async (batchId: string, recordId: string): Promise<number | null> => {
    try {
      const reply = await client.post(
        gqlBody(ADD_ITEM, { input: { batchId, recordId, proposedCategory: options.category, reason: 'Bench item for live delivery.' } }),
        { authorization: options.proposer.authorization },
      );
      const ackAt = Date.now();
      const parsed = JSON.parse(reply.body) as { data?: { addItem?: { __typename?: string } } };
      if (reply.status !== 200 || parsed.data?.addItem?.__typename !== 'AddItemPayload') {
        mutationErrors++;
        return null;
      }
      return ackAt;
    } catch {
      mutationErrors++;
      return null;
    }
  };
  const everyWorker = () => workers.map((entry) => entry.worker);
  const statuses = () => Promise.all(everyWorker().map((worker) => worker.status()));
  const total = options.groups.reduce((sum, group) => sum + group.count, 0);

  try {
    // Open the subscribers, each group split over its workers.
    const connectStarted = Date.now();
    const opening: Promise<WorkerReply>[] = [];
    for (const group of options.groups) {
      const url = `ws://127.0.0.1:${group.port}/graphql`;
      if (group.keys.length !== group.count) throw new Error(`${group.label}: ${group.count} subscribers, ${group.keys.length} keys`);
      let first = 0;
      for (let index = 0; index < group.workers; index++) {
        const count = Math.floor(group.count / group.workers) + (index < group.count % group.workers ? 1 : 0);
        const authorizations = group.keys.slice(first, first + count).map((key) => key.authorization);
        first += count;
        const worker = SubscriberWorker.start();
        workers.push({ group, worker });
        opening.push(worker.request({ kind: 'open', url, count, authorizations, query: FANOUT_QUERY }));
      }
    }
    const opened = await Promise.all(opening);
    const connectSeconds = (Date.now() - connectStarted) / 1000;
    const connectionFailures = opened.reduce((sum, reply) => sum + (reply.kind === 'opened' ? reply.status.errors.connection : 0), 0);
    log(
      `  ${total} subscribers connected in ${connectSeconds.toFixed(1)} s over ${workers.length} worker process(es)${connectionFailures ? `; ${connectionFailures} connection failures` : ''}`,
    );

    await options.onConnected?.();

    const rounds: RoundResult[] = [];
    for (const [roundIndex, round] of options.rounds.entries()) {
      const batchId = `${options.name}-${roundIndex}`;
      // Warm-up: sentinel events until every subscriber has received one (subscriptions start live,
      // and graphql-ws does not acknowledge a subscribe), then until all have caught up.
      const warmDeadline = Date.now() + 60_000;
      let sentinels = 0;
      for (;;) {
        await addItem(`${batchId}-warm`, `w${sentinels++}`);
        await sleep(100);
        const seen = (await statuses()).reduce((sum, status) => sum + status.withEvents, 0);
        if (seen === total) break;
        if (Date.now() > warmDeadline) throw new Error(`only ${seen} of ${total} subscribers received a warm-up event in 60 s`);
      }
      const start = await options.history.latestSequence();
      while ((await statuses()).some((status) => status.lowestHighest < start)) {
        if (Date.now() > warmDeadline) throw new Error('subscribers did not catch up with the warm-up events in 60 s');
        await sleep(50);
      }
      const errorsBefore = mutationErrors;

      // Measure.
      await Promise.all(everyWorker().map((worker) => worker.request({ kind: 'measure' })));
      const cpuBefore = options.servers.map((server) => processCpuMs(server.pid));
      const databaseBefore = options.databaseCpuMs ? await options.databaseCpuMs() : Number.NaN;
      const busyBefore = machineBusyMs();
      const benchBefore = process.cpuUsage();
      const firstSent = Date.now();
      const acks: (number | null)[] = [];
      const ackSamples: number[] = [];
      const inFlight: Promise<void>[] = [];
      for (let index = 0; index < round.events; index++) {
        const wait = firstSent + index * round.intervalMs - Date.now();
        if (wait > 0) await sleep(wait);
        const sent = performance.now();
        const done = addItem(batchId, `e${index}`).then((ack) => {
          acks[index] = ack;
          ackSamples.push(performance.now() - sent);
        });
        if (round.openLoop) inFlight.push(done);
        else await done;
      }
      await Promise.all(inFlight);
      const lastAck = Date.now();
      const end = await options.history.latestSequence();
      const drainDeadline = lastAck + options.drainTimeoutMs;
      let drained = false;
      for (;;) {
        if ((await statuses()).every((status) => status.lowestHighest >= end)) {
          drained = true;
          break;
        }
        if (Date.now() > drainDeadline) break;
        await sleep(20);
      }
      const deliveredAt = Date.now();
      const cpuAfter = options.servers.map((server) => processCpuMs(server.pid));
      const databaseMs = options.databaseCpuMs ? (await options.databaseCpuMs()) - databaseBefore : Number.NaN;
      const busyMs = machineBusyMs() - busyBefore;
      const bench = process.cpuUsage(benchBefore);
      const windowMs = deliveredAt - firstSent;

      const results: WorkerResults[] = [];
      for (const worker of everyWorker()) {
        const reply = await worker.request({ kind: 'collect' });
        if (reply.kind !== 'results') throw new Error(`unexpected reply ${reply.kind}`);
        results.push(reply.results);
      }

      // Which events were measured, and the mutation behind each, by its record id (commit order
      // need not be send order).
      const rows = await options.history.eventsBetween(start, end);
      const mutationOf = rows.map((row) =>
        row.type === 'ITEM_ADDED' && row.batchId === batchId && row.recordId?.startsWith('e') ? Number(row.recordId.slice(1)) : -1,
      );
      const matched = rows.length === round.events && new Set(mutationOf.filter((index) => index >= 0)).size === round.events;
      const groups = options.groups.map((group) =>
        analyseGroup(
          group,
          results.filter((_, index) => workers[index]?.group === group),
          rows,
          matched ? mutationOf.map((index) => acks[index] ?? null) : null,
          windowMs,
        ),
      );
      const deliveries = groups.reduce((sum, group) => sum + group.delivered, 0);
      const serverMs = options.servers.reduce((sum, _, index) => sum + (cpuAfter[index] as number) - (cpuBefore[index] as number), 0);
      const workerMs = results.reduce((sum, result) => sum + result.cpuMs, 0);
      const otherMs = busyMs - serverMs - (Number.isFinite(databaseMs) ? databaseMs : 0) - workerMs - (bench.user + bench.system) / 1000;
      const result: RoundResult = {
        ...round,
        matchedEvents: matched ? rows.length : 0,
        mutationSeconds: (lastAck - firstSent) / 1000,
        deliverySeconds: windowMs / 1000,
        drained,
        ack: spread(ackSamples),
        mutationErrors: mutationErrors - errorsBefore,
        groups,
        serverCpu: options.servers.map((server, index) => {
          const cpuMs = (cpuAfter[index] as number) - (cpuBefore[index] as number);
          return { label: server.label, share: cpuMs / windowMs, perDeliveryUs: (cpuMs * 1000) / deliveries };
        }),
        otherCpu: Math.max(0, otherMs) / windowMs,
        databaseCpu: databaseMs / windowMs,
      };
      rounds.push(result);
      log(
        `  ${describeRound(round)}: ${round.events} events sent in ${result.mutationSeconds.toFixed(2)} s; ${drained ? `all delivered after ${result.deliverySeconds.toFixed(2)} s` : `NOT all delivered within ${options.drainTimeoutMs / 1000} s of the last answer`}`,
      );
      for (const group of groups) {
        log(
          `    ${group.label}: ${group.delivered}/${group.expected} deliveries (${group.missing} missing, ${group.duplicates} duplicate); receipt − occurredAt p50 ${group.fromOccurred.p50} / p99 ${group.fromOccurred.p99} / max ${group.fromOccurred.max} ms`,
        );
      }
    }
    await options.afterRounds?.();
    return { name: options.name, groups: options.groups, connectSeconds, connectionFailures, rounds };
  } finally {
    client.close();
    await Promise.all(
      everyWorker().map((worker) =>
        worker.close().catch(() => {
          worker.kill();
        }),
      ),
    );
  }
}

/** Deliveries of the measured events (`rows`) to one group; `acks[i]` is the acknowledgement of rows[i]'s mutation. */
function analyseGroup(
  group: SubscriberGroup,
  results: WorkerResults[],
  rows: EventRow[],
  acks: (number | null)[] | null,
  windowMs: number,
) {
  const position = new Map(rows.map((row, index) => [row.id, index]));
  const fromOccurred: number[] = [];
  const fromAck: number[] = [];
  const serverSide: number[] = [];
  const afterResolve: number[] = [];
  const lastReceipt = new Float64Array(rows.length).fill(Number.NEGATIVE_INFINITY);
  const quarter = Math.max(1, Math.floor(rows.length / 4));
  const early: number[] = [];
  const late: number[] = [];
  let delivered = 0;
  let missing = 0;
  let duplicates = 0;
  let outOfOrder = 0;
  let subscribersMissing = 0;
  const errors = noPoolErrors();
  for (const result of results) {
    for (const key of Object.keys(errors) as (keyof PoolErrors)[]) errors[key] += result.errors[key];
    for (const log of result.logs) {
      const seen = new Uint16Array(rows.length);
      let previous = 0;
      for (let index = 0; index < log.sequences.length; index++) {
        const sequence = log.sequences[index] as number;
        const at = position.get(sequence);
        if (at === undefined) {
          previous = Math.max(previous, sequence);
          continue;
        }
        if (sequence <= previous) outOfOrder++;
        previous = Math.max(previous, sequence);
        const row = rows[at] as EventRow;
        delivered++;
        seen[at] = (seen[at] ?? 0) + 1;
        const receivedAt = log.receivedAt[index] as number;
        const latency = receivedAt - row.occurredAt;
        fromOccurred.push(latency);
        if (at < quarter) early.push(latency);
        if (at >= rows.length - quarter) late.push(latency);
        const ack = acks?.[at];
        if (ack != null) fromAck.push(receivedAt - ack);
        const serverNow = log.serverNow[index] as number;
        if (Number.isFinite(serverNow)) {
          serverSide.push(serverNow - row.occurredAt);
          afterResolve.push(receivedAt - serverNow);
        }
        if (receivedAt > (lastReceipt[at] as number)) lastReceipt[at] = receivedAt;
      }
      let gaps = 0;
      for (const count of seen) {
        if (count === 0) gaps++;
        else if (count > 1) duplicates += count - 1;
      }
      missing += gaps;
      if (gaps > 0) subscribersMissing++;
    }
  }
  const lastLatencies = rows.flatMap((row, index) => {
    const last = lastReceipt[index] as number;
    return Number.isFinite(last) ? [last - row.occurredAt] : [];
  });
  return {
    label: group.label,
    subscribers: group.count,
    workers: group.workers,
    expected: rows.length * group.count,
    delivered,
    missing,
    duplicates,
    outOfOrder,
    subscribersMissing,
    fromOccurred: spread(fromOccurred),
    fromAck: acks ? spread(fromAck) : null,
    serverSide: spread(serverSide),
    afterResolve: spread(afterResolve),
    lastReceipt: spread(lastLatencies),
    firstQuarterMean: mean(early),
    lastQuarterMean: mean(late),
    errors,
    loopDelay: {
      p99: Math.max(...results.map((result) => result.loopDelay.p99)),
      max: Math.max(...results.map((result) => result.loopDelay.max)),
    },
    workerCpu: results.reduce((sum, result) => sum + result.cpuMs, 0) / windowMs,
  } satisfies GroupResult;
}
