// The parent's side of the "live at scale" subscribers: worker processes (bench/live-scale-worker.ts) each holding
// a share of them, opened, marked, polled and tallied together.
import { type ChildProcess, fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import type { BenchKey } from './keys.js';
import type { ScaleWorkerReply, ScaleWorkerRequest, ScaleWorkerStatus, ScaleWorkerTally } from './live-scale-worker.js';
import { ROOT } from './server.js';
import type { PoolErrors } from './ws-clients.js';

/** One child process; one request in flight at a time. */
class Worker {
  private pending: { resolve: (reply: ScaleWorkerReply) => void; reject: (error: Error) => void } | null = null;

  constructor(private readonly child: ChildProcess) {
    child.on('message', (reply: ScaleWorkerReply) => {
      const pending = this.pending;
      this.pending = null;
      if (!pending) return;
      if (reply.kind === 'failed') pending.reject(new Error(`subscriber worker: ${reply.message}`));
      else pending.resolve(reply);
    });
    child.once('exit', (code) => {
      this.pending?.reject(new Error(`subscriber worker exited (code ${code})`));
      this.pending = null;
    });
  }

  request(message: ScaleWorkerRequest): Promise<ScaleWorkerReply> {
    if (this.pending) return Promise.reject(new Error('subscriber worker: a request is already in flight'));
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.child.send(message);
    });
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }

  get pid(): number {
    return this.child.pid ?? Number.NaN;
  }
}

export interface Tally {
  subscribers: number;
  /** Subscribers whose count after the mark differs from the events in the window (missing or extra). */
  subscribersOff: number;
  /** Expected deliveries (events × subscribers) minus those received, when positive. */
  missing: number;
  /**
   * Payloads that were not above the previous sequence (a repeat or a reordering), plus any count beyond the
   * expected that events written after the window cannot explain.
   */
  duplicates: number;
  delivered: number;
  /** Deliveries of events written after the window that arrived before the tally. */
  afterWindow: number;
  latency: { p50: number; p99: number; max: number };
  errors: PoolErrors;
  /** Subscriber processes' CPU from mark to collect (ms). */
  workerCpuMs: number;
}

export class SubscriberGroup {
  private constructor(
    private readonly workers: Worker[],
    readonly count: number,
  ) {}

  /** Opens one subscriber per key of `keys`, over `workers` processes (at niceness `nice` when above 0), all with `query`. */
  static async open(port: number, keys: readonly BenchKey[], workers: number, query: string, nice = 0): Promise<SubscriberGroup> {
    const started: Worker[] = [];
    const opening: Promise<ScaleWorkerReply>[] = [];
    let first = 0;
    for (let index = 0; index < workers; index++) {
      const count = Math.floor(keys.length / workers) + (index < keys.length % workers ? 1 : 0);
      const authorizations = keys.slice(first, first + count).map((key) => key.authorization);
      first += count;
      const worker = new Worker(
        fork(path.join(ROOT, 'bench', 'live-scale-worker.ts'), [], {
          cwd: ROOT,
          execArgv: ['--import', 'tsx'],
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        }),
      );
      started.push(worker);
      if (nice > 0) os.setPriority(worker.pid, nice);
      opening.push(worker.request({ kind: 'open', url: `ws://127.0.0.1:${port}/graphql`, authorizations, query }));
    }
    const group = new SubscriberGroup(started, keys.length);
    try {
      const opened = await Promise.all(opening);
      const failed = opened.reduce((sum, reply) => sum + (reply.kind === 'opened' ? reply.status.errors.connection : 0), 0);
      if (failed > 0) throw new Error(`${failed} of ${keys.length} subscribers could not connect`);
    } catch (error) {
      await group.close();
      throw error;
    }
    return group;
  }

  /** The subscriber processes' ids (for their CPU time in /proc). */
  pids(): number[] {
    return this.workers.map((worker) => worker.pid);
  }

  async statuses(): Promise<ScaleWorkerStatus[]> {
    const replies = await Promise.all(this.workers.map((worker) => worker.request({ kind: 'status' })));
    return replies.map((reply) => {
      if (reply.kind !== 'status') throw new Error(`unexpected reply ${reply.kind}`);
      return reply.status;
    });
  }

  /** Subscribers that have received at least one payload. */
  async withEvents(): Promise<number> {
    return (await this.statuses()).reduce((sum, status) => sum + status.withEvents, 0);
  }

  /** The lowest, over subscribers, of the highest sequence each has received. */
  async lowestHighest(): Promise<number> {
    return Math.min(...(await this.statuses()).map((status) => status.lowestHighest));
  }

  /** From now on each subscriber counts the events with a sequence above `after`. */
  async mark(after: number): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.request({ kind: 'mark', after })));
  }

  /**
   * What each subscriber received since the mark, against `events` events in (mark, `through`]. Events written
   * after `through` (a lease lapsing, say) may arrive before the tally: a subscriber whose highest sequence is
   * above `through` may have up to highest − `through` of them in its count, and only a count beyond that is
   * a duplicate (a repeat always shows anyway as a sequence not above the previous one).
   */
  async tally(events: number, through: number): Promise<Tally> {
    const tallies: ScaleWorkerTally[] = [];
    for (const worker of this.workers) {
      const reply = await worker.request({ kind: 'collect' });
      if (reply.kind !== 'tally') throw new Error(`unexpected reply ${reply.kind}`);
      tallies.push(reply.tally);
    }
    const errors: PoolErrors = { connection: 0, graphql: 0, completed: 0, malformed: 0 };
    const buckets = new Map<number, number>();
    let missing = 0;
    let duplicates = 0;
    let delivered = 0;
    let afterWindow = 0;
    let subscribersOff = 0;
    for (const tally of tallies) {
      for (const key of Object.keys(errors) as (keyof PoolErrors)[]) errors[key] += tally.errors[key];
      duplicates += tally.notIncreasing;
      tally.counts.forEach((count, subscriber) => {
        delivered += count;
        const later = Math.max(0, (tally.highest[subscriber] ?? 0) - through);
        if (count < events || count > events + later) subscribersOff++;
        if (count < events) missing += events - count;
        else {
          afterWindow += Math.min(later, count - events);
          duplicates += Math.max(0, count - events - later);
        }
      });
      for (const [ms, count] of tally.latencyHistogram) buckets.set(ms, (buckets.get(ms) ?? 0) + count);
    }
    return {
      subscribers: this.count,
      subscribersOff,
      missing,
      duplicates,
      delivered,
      afterWindow,
      latency: histogramSpread(buckets),
      errors,
      workerCpuMs: tallies.reduce((sum, tally) => sum + tally.cpuMs, 0),
    };
  }

  async close(): Promise<void> {
    await Promise.all(
      this.workers.map((worker) =>
        worker.request({ kind: 'close' }).then(
          () => undefined,
          () => worker.kill(),
        ),
      ),
    );
  }
}

/** Nearest-rank p50 / p99 and the max of a histogram of whole milliseconds (NaN when empty). */
function histogramSpread(buckets: Map<number, number>): { p50: number; p99: number; max: number } {
  const sorted = [...buckets.entries()].sort((a, b) => a[0] - b[0]);
  const total = sorted.reduce((sum, [, count]) => sum + count, 0);
  const at = (fraction: number) => {
    const rank = Math.max(1, Math.ceil(fraction * total));
    let seen = 0;
    for (const [ms, count] of sorted) {
      seen += count;
      if (seen >= rank) return ms;
    }
    return Number.NaN;
  };
  return { p50: at(0.5), p99: at(0.99), max: sorted.at(-1)?.[0] ?? Number.NaN };
}
