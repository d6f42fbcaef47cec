// The event-loop delay as a Prometheus histogram: Node's own sampler (perf_hooks.monitorEventLoopDelay)
// read into cumulative buckets at each scrape, so any window's quantiles can be computed afterwards.
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { Histogram, type Registry } from 'prom-client';

/** The sampler's timer period. Each sample is how much later than this the timer ran. */
export const SAMPLE_PERIOD_MS = 10;
/** From well under a period to a stall no operator should ever see: 1 ms … 5 s. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const BOUNDS = [...BUCKETS, Number.POSITIVE_INFINITY];

/**
 * Registers `leasehold_event_loop_delay_seconds`. prom-client's default `nodejs_eventloop_lag_*` gauges
 * come from a sampler of their own that is reset at every scrape: percentiles of the last scrape
 * interval only, which cannot be added up across scrapes or instances and include the sampler's period
 * (an idle loop shows 10 ms). This histogram keeps every sample since start in buckets, net of the period.
 */
export function eventLoopDelayHistogram(registers: Registry[]): Histogram {
  const sampler = monitorEventLoopDelay({ resolution: SAMPLE_PERIOD_MS });
  sampler.enable();
  // Per bucket, the samples already observed.
  const drained: number[] = [];
  return new Histogram({
    name: 'leasehold_event_loop_delay_seconds',
    help: `How late the event loop ran a timer due every ${SAMPLE_PERIOD_MS} ms (perf_hooks.monitorEventLoopDelay), one sample per run: anything that blocks the loop shows here.`,
    buckets: BUCKETS,
    registers,
    collect() {
      drainInto(sampler, this, drained);
    },
  });
}

/**
 * Adds the samples taken since the last scrape to the histogram. The sampler is never reset: a reset
 * drops the interval it falls in (the next run only restarts the stopwatch), which would hide a stall
 * that starts just after a scrape. So its counts are cumulative, and each scrape observes the growth
 * of each bucket since the previous one. The sampler keeps an HDR histogram, not the samples: a
 * bucket's count is read from its percentiles, and its new samples are observed at the bucket's median
 * sample (so `_sum` is exact to within a bucket's spread).
 */
function drainInto(sampler: IntervalHistogram, histogram: Histogram, drained: number[]): void {
  const total = sampler.count;
  if (total === 0) return;
  const periodNs = SAMPLE_PERIOD_MS * 1e6;
  let below = 0;
  BOUNDS.forEach((bound, index) => {
    // Samples at or below the bound, taken as delays (the run's interval less the period).
    const upTo = bound === Number.POSITIVE_INFINITY ? total : samplesAtMost(sampler, total, bound * 1e9 + periodNs);
    const added = upTo - below - (drained[index] ?? 0);
    if (added > 0) {
      // The k-th sample is percentile(100·k/total): k + ½ after HDR's rounding, safely inside sample k.
      const medianSample = below + Math.ceil((upTo - below) / 2);
      const median = Math.max(0, sampler.percentile((100 * medianSample) / total) - periodNs) / 1e9;
      for (let i = 0; i < added; i++) histogram.observe(median);
    }
    drained[index] = Math.max(drained[index] ?? 0, upTo - below);
    below = upTo;
  });
}

/** How many of the sampler's `total` samples are at most `limitNs`, by bisecting its percentiles to half a sample. */
function samplesAtMost(sampler: IntervalHistogram, total: number, limitNs: number): number {
  if (sampler.min > limitNs) return 0;
  if (sampler.max <= limitNs) return total;
  // percentile(p) is the ⌊p·total/100 + ½⌋-th sample (HDR's rounding), so it stays at or below the
  // limit while p < 100·(k + ½)/total, k being the count sought: bisect for that edge to within half a sample.
  let low = 0;
  let high = 100;
  while (high - low > 50 / total) {
    const middle = (low + high) / 2;
    if (sampler.percentile(middle) <= limitNs) low = middle;
    else high = middle;
  }
  return Math.round((low * total) / 100);
}
