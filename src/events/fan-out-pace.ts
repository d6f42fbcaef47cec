// What the feed and the socket writes tell each other about the pace of the fan-out: the feed hands a
// burst (a bulk intake) over in batches and has each batch's frames written before it rests
// (src/events/feed.ts), through `writeHeld`, which src/graphql/shared-frames.ts provides; that module
// counts its writes here.
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
};
