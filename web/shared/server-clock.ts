// The server's clock as seen from the page: leases follow it, so countdowns must not use the browser's clock.

/**
 * Keeps the last server timestamp seen and the monotonic time it arrived at, and extrapolates with
 * performance.now(): a wrong or changed system clock on the viewer's machine does not move the countdowns.
 */
export class ServerClock {
  private serverMs: number | null = null;
  private receivedAt = 0;

  /**
   * Records a server timestamp. `sentAt` (performance.now() when the request left) places an HTTP answer's
   * timestamp halfway through the round trip; pushed payloads are taken as of their arrival.
   */
  observe(serverNow: string, sentAt?: number): void {
    const ms = Date.parse(serverNow);
    if (!Number.isFinite(ms)) return;
    const now = performance.now();
    this.serverMs = ms;
    this.receivedAt = sentAt === undefined ? now : (sentAt + now) / 2;
  }

  /** The server's time now in epoch milliseconds, or null before the first observation. */
  now(): number | null {
    return this.serverMs === null ? null : this.serverMs + (performance.now() - this.receivedAt);
  }
}
