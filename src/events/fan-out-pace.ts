// What the feed and the socket writes tell each other about the pace of the fan-out: the feed marks a
// burst (a bulk intake handed over in slices, src/events/feed.ts), and src/graphql/shared-frames.ts holds
// frames longer meanwhile, so each socket's write carries many frames; it counts its writes here.
export const fanOutPace = {
  /** Until when (performance.now()) a burst is being handed over. */
  burstUntil: 0,
  /** Milliseconds spent writing held frames to sockets since the process started. */
  writesMs: 0,
  /** Flushes of held frames since the process started, and the slices they were written in. */
  flushes: 0,
  flushSlices: 0,
  /** The last flush: when it began (performance.now()), what its writes took, and how long the next one waits after its start. */
  lastFlush: { startedAt: 0, tookMs: 0, nextAfterMs: 0 },
};
