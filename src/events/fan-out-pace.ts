// What the feed and the socket writes tell each other about the pace of the fan-out: the feed hands a
// burst (a bulk intake) over in batches and has each batch's frames written before it rests
// (src/events/feed.ts), through `writeHeld`, which src/graphql/shared-frames.ts provides; that module
// counts its writes here.
import { performance } from 'node:perf_hooks';

export const fanOutPace = {
  /**
   * Writes every frame held now (without waiting for the next timed flush); resolves, once they are
   * written, with the milliseconds the writing took. Resolves with 0 when nothing is held or nothing
   * writes frames in this process.
   */
  writeHeld: (): Promise<number> => Promise.resolve(0),
  /**
   * Events waiting in the buffers of subscribers at least half-way to their limit (src/events/streams.ts
   * provides it): a burst waits while this shrinks. 0 when none lags.
   */
  laggingEvents: (): number => 0,
  /** Milliseconds spent writing held frames to sockets since the process started. */
  writesMs: 0,
  /** Flushes of held frames since the process started, and the slices they were written in. */
  flushes: 0,
  flushSlices: 0,
  /** The last flush: when it began (performance.now()), what its writes took, and how long the next one waits after its start. */
  lastFlush: { startedAt: 0, tookMs: 0, nextAfterMs: 0 },
  /** Rests taken (restWhileWanted) since the process started, and the steps they took in all. */
  rests: 0,
  restSteps: 0,
  /** Single events handed to the subscribers in parts (one turn of the loop each), their cost being over the slice budget. */
  handOverParts: 0,
};

/**
 * A rest of the fan-out lasts while something else wants the event loop, and not beyond `ms`: it is taken in
 * steps of REST_STEP_MS, and a step in which the loop was busy less than IDLE_SHARE of the time (measured with
 * `performance.eventLoopUtilization`, which counts the time the loop waited for I/O) ends it. A rest exists to
 * leave the loop to reviewers' requests; with none waiting, the fan-out goes on rather than leave the loop idle
 * (a sustained 100 events/s to 1,000 subscribers, or a bulk with nobody reviewing, would otherwise run at a
 * third of the speed the server has, and fall further behind for as long as it lasts). Resolves with the
 * milliseconds rested.
 */
export const REST_STEP_MS = 4;
export const IDLE_SHARE = 0.25;

export async function restWhileWanted(ms: number): Promise<number> {
  const started = performance.now();
  fanOutPace.rests++;
  for (;;) {
    const left = ms - (performance.now() - started);
    if (left <= 0) break;
    const before = performance.eventLoopUtilization();
    await new Promise<void>((resolve) => setTimeout(resolve, Math.min(REST_STEP_MS, left)));
    fanOutPace.restSteps++;
    if (performance.eventLoopUtilization(before).utilization < IDLE_SHARE) break;
  }
  return performance.now() - started;
}
