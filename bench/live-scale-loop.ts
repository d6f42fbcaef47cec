// The server's event-loop delay over a phase, from two /metrics scrapes: the p99 of the difference of the
// `leasehold_event_loop_delay_seconds` histogram when the server has it, else prom-client's default
// `nodejs_eventloop_lag_p99_seconds` (a gauge reset at every scrape, so the second scrape covers the phase).
import type { BenchKey } from './keys.js';
import { scrapeMetrics } from './live-scale-reads.js';

export const LOOP_HISTOGRAM = 'leasehold_event_loop_delay_seconds';
export const LOOP_FALLBACK = 'nodejs_eventloop_lag_p99_seconds';

export interface LoopDelay {
  /** ms; NaN when neither metric is there. From the histogram: interpolated inside its bucket, as Prometheus's histogram_quantile does. */
  p99: number;
  /** From the histogram: the bounds (ms) of the bucket holding the 99th percentile. */
  bucket?: [number, number];
  source: typeof LOOP_HISTOGRAM | typeof LOOP_FALLBACK | 'none';
  /** Garbage-collection pauses over the phase (all kinds), from `nodejs_gc_duration_seconds`; absent when the server has no such histogram. */
  gc?: GcPauses;
  /** Subscribers that fell a buffer behind over the phase: caught up from the history, or cut off; absent when the server does not count them. */
  laggards?: { caughtUp: number; cutOff: number };
}

const CATCH_UPS = 'leasehold_subscription_catch_ups_total';
const CUT_OFFS = 'leasehold_subscribers_cut_off_total';

/** The value of an unlabelled counter, or null when the server does not have it. */
function counter(text: string, name: string): number | null {
  const match = new RegExp(`^${name} (\\S+)`, 'm').exec(text);
  return match ? Number(match[1]) : null;
}

export const GC_HISTOGRAM = 'nodejs_gc_duration_seconds';

export interface GcPauses {
  count: number;
  /** Pauses of 10 ms or more: each stalls the event loop past a few ms on its own. */
  over10ms: number;
  /** ms in all. */
  totalMs: number;
}

/** The GC histogram's totals over every kind: pauses, those over 10 ms, seconds; null when absent. */
function gcTotals(text: string): { count: number; upTo10ms: number; seconds: number } | null {
  const sum = (pattern: RegExp) => [...text.matchAll(pattern)].reduce((total, match) => total + Number(match[1]), 0);
  const count = sum(new RegExp(`^${GC_HISTOGRAM}_count\\{[^}]*\\} (\\S+)`, 'gm'));
  if (!new RegExp(`^${GC_HISTOGRAM}_count`, 'm').test(text)) return null;
  return {
    count,
    upTo10ms: sum(new RegExp(`^${GC_HISTOGRAM}_bucket\\{le="0\\.01"[^}]*\\} (\\S+)`, 'gm')),
    seconds: sum(new RegExp(`^${GC_HISTOGRAM}_sum\\{[^}]*\\} (\\S+)`, 'gm')),
  };
}

/** Cumulative bucket counts by upper bound (seconds; +Inf last), or null when the histogram is absent. */
function buckets(text: string): Map<number, number> | null {
  const found = new Map<number, number>();
  const pattern = new RegExp(`^${LOOP_HISTOGRAM}_bucket\\{[^}]*le="([^"]+)"[^}]*\\} (\\S+)`, 'gm');
  for (const match of text.matchAll(pattern)) {
    const bound = match[1] === '+Inf' ? Number.POSITIVE_INFINITY : Number(match[1]);
    found.set(bound, (found.get(bound) ?? 0) + Number(match[2]));
  }
  return found.size > 0 ? found : null;
}

/** A phase's event-loop delay: call `start()` before it and `stop()` after. */
export class LoopDelayProbe {
  private before: Map<number, number> | null = null;
  private gcBefore: ReturnType<typeof gcTotals> = null;
  private laggardsBefore: [number | null, number | null] = [null, null];

  constructor(
    private readonly port: number,
    private readonly key: BenchKey,
  ) {}

  async start(): Promise<void> {
    const text = await scrapeMetrics(this.port, this.key);
    this.before = buckets(text);
    this.gcBefore = gcTotals(text);
    this.laggardsBefore = [counter(text, CATCH_UPS), counter(text, CUT_OFFS)];
  }

  async stop(): Promise<LoopDelay> {
    const text = await scrapeMetrics(this.port, this.key);
    const after = buckets(text);
    const gcAfter = gcTotals(text);
    const gc =
      gcAfter && this.gcBefore
        ? {
            count: gcAfter.count - this.gcBefore.count,
            over10ms: gcAfter.count - gcAfter.upTo10ms - (this.gcBefore.count - this.gcBefore.upTo10ms),
            totalMs: (gcAfter.seconds - this.gcBefore.seconds) * 1000,
          }
        : undefined;
    const [caughtUpBefore, cutOffBefore] = this.laggardsBefore;
    const [caughtUp, cutOff] = [counter(text, CATCH_UPS), counter(text, CUT_OFFS)];
    const laggards =
      caughtUp !== null && cutOff !== null && caughtUpBefore !== null && cutOffBefore !== null
        ? { caughtUp: caughtUp - caughtUpBefore, cutOff: cutOff - cutOffBefore }
        : undefined;
    if (after && this.before) {
      const bounds = [...after.keys()].sort((a, b) => a - b);
      const delta = bounds.map((bound) => (after.get(bound) ?? 0) - (this.before?.get(bound) ?? 0));
      const total = delta.at(-1) ?? 0;
      if (total === 0) return { p99: 0, bucket: [0, (bounds[0] ?? 0) * 1000], source: LOOP_HISTOGRAM, gc, laggards };
      const rank = 0.99 * total;
      const index = delta.findIndex((count) => count >= rank);
      const lower = index === 0 ? 0 : (bounds[index - 1] ?? 0);
      const upper = bounds[index] ?? Number.POSITIVE_INFINITY;
      const below = index === 0 ? 0 : (delta[index - 1] ?? 0);
      const inBucket = (delta[index] ?? 0) - below;
      // Past the last finite bound there is nothing to interpolate towards: the bound is what is known.
      const p99 = upper === Number.POSITIVE_INFINITY ? lower : lower + ((upper - lower) * (rank - below)) / Math.max(1, inBucket);
      return { p99: p99 * 1000, bucket: [lower * 1000, upper * 1000], source: LOOP_HISTOGRAM, gc, laggards };
    }
    const gauge = new RegExp(`^${LOOP_FALLBACK} (\\S+)`, 'm').exec(text);
    if (gauge) return { p99: Number(gauge[1]) * 1000, source: LOOP_FALLBACK, gc, laggards };
    return { p99: Number.NaN, source: 'none', gc, laggards };
  }
}
