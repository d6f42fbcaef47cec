// A child process holding a share of the "live at scale" subscribers, counting what each receives after a mark
// in constant memory per subscriber (a bulk of 10,000 events to 1,000 subscribers is 10 million deliveries).
// Driven over IPC by bench/live-scale-subscribers.ts.
import { openSubscribers, type PoolErrors, type SubscriberPool } from './ws-clients.js';

export type ScaleWorkerRequest =
  | { kind: 'open'; url: string; authorizations: string[]; query: string }
  | { kind: 'status' }
  | { kind: 'mark'; after: number }
  | { kind: 'collect' }
  | { kind: 'close' };

export interface ScaleWorkerStatus {
  withEvents: number;
  lowestHighest: number;
  /** How many subscribers are at `lowestHighest` (when a run stalls: one straggler, or many). */
  atLowest: number;
  errors: PoolErrors;
}

/** What the subscribers of this worker received after the mark. */
export interface ScaleWorkerTally {
  /** Per subscriber: events with a sequence above the mark. */
  counts: number[];
  /** Per subscriber: the highest sequence received. */
  highest: number[];
  /** Payloads whose sequence was not above the previous one (a repeat or a reordering). */
  notIncreasing: number;
  /** receipt − occurredAt of each delivery after the mark, as [whole ms, how many] pairs. */
  latencyHistogram: [number, number][];
  errors: PoolErrors;
  /** CPU time this process used from mark to collect (ms). */
  cpuMs: number;
}

export type ScaleWorkerReply =
  | { kind: 'opened'; status: ScaleWorkerStatus }
  | { kind: 'status'; status: ScaleWorkerStatus }
  | { kind: 'marked' }
  | { kind: 'tally'; tally: ScaleWorkerTally }
  | { kind: 'closed' }
  | { kind: 'failed'; message: string };

/** Latencies above this many ms share its bucket (a delivery that late has missed every target anyway). */
const HISTOGRAM_MS = 600_000;

let pool: SubscriberPool | null = null;
let mark = Number.POSITIVE_INFINITY;
let counts: number[] = [];
let previous: number[] = [];
let notIncreasing = 0;
let histogram = new Uint32Array(HISTOGRAM_MS + 1);
let cpuAtMark = process.cpuUsage();

const reply = (message: ScaleWorkerReply) => process.send?.(message);
const status = (): ScaleWorkerStatus =>
  pool
    ? { withEvents: pool.withEvents(), lowestHighest: pool.lowestHighest(), atLowest: atLowest(pool.lowestHighest()), errors: pool.errors }
    : { withEvents: 0, lowestHighest: 0, atLowest: 0, errors: { connection: 0, graphql: 0, completed: 0, malformed: 0 } };
const atLowest = (lowest: number) => previous.filter((highest) => highest === lowest).length;

async function handle(request: ScaleWorkerRequest): Promise<void> {
  switch (request.kind) {
    case 'open': {
      const count = request.authorizations.length;
      counts = new Array<number>(count).fill(0);
      previous = new Array<number>(count).fill(0);
      pool = await openSubscribers({
        url: request.url,
        count,
        authorizations: request.authorizations,
        query: request.query,
        keepLogs: false,
        onPayload: (payload, receivedAt, subscriber) => {
          const sequence = payload.sequence as number;
          if (sequence <= (previous[subscriber] ?? 0)) notIncreasing++;
          previous[subscriber] = Math.max(previous[subscriber] ?? 0, sequence);
          if (sequence <= mark) return;
          counts[subscriber] = (counts[subscriber] ?? 0) + 1;
          const occurred = payload.occurredAt ? Date.parse(payload.occurredAt) : Number.NaN;
          if (Number.isFinite(occurred)) {
            const bucket = Math.min(HISTOGRAM_MS, Math.max(0, Math.round(receivedAt - occurred)));
            histogram[bucket] = (histogram[bucket] ?? 0) + 1;
          }
        },
      });
      reply({ kind: 'opened', status: status() });
      return;
    }
    case 'status':
      reply({ kind: 'status', status: status() });
      return;
    case 'mark':
      mark = request.after;
      counts.fill(0);
      notIncreasing = 0;
      histogram = new Uint32Array(HISTOGRAM_MS + 1);
      cpuAtMark = process.cpuUsage();
      reply({ kind: 'marked' });
      return;
    case 'collect': {
      const cpu = process.cpuUsage(cpuAtMark);
      const latencyHistogram: [number, number][] = [];
      for (let ms = 0; ms <= HISTOGRAM_MS; ms++) if (histogram[ms]) latencyHistogram.push([ms, histogram[ms] as number]);
      reply({
        kind: 'tally',
        tally: {
          counts: [...counts],
          highest: [...previous],
          notIncreasing,
          latencyHistogram,
          errors: status().errors,
          cpuMs: (cpu.user + cpu.system) / 1000,
        },
      });
      return;
    }
    case 'close':
      await pool?.close();
      pool = null;
      reply({ kind: 'closed' });
      process.disconnect?.();
      return;
  }
}

process.on('message', (message: ScaleWorkerRequest) => {
  handle(message).catch((error: unknown) => reply({ kind: 'failed', message: error instanceof Error ? error.message : String(error) }));
});
// The parent going away ends this process too.
process.on('disconnect', () => setTimeout(() => process.exit(0), 100));
