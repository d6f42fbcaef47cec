// Per-principal limits on changes: a token bucket per principal name, in this process.
import type { Clock } from '../domain/clock.js';

export interface RateLimitSettings {
  /** Tokens added per second; 0 turns the limit off. */
  perSecond: number;
  /** Bucket size: how many changes may arrive at once after a quiet spell. */
  burst: number;
}

/** Buckets idle long enough to be full again are dropped, so memory follows active principals. */
const SWEEP_EVERY = 1_000;

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private takes = 0;

  constructor(
    private readonly settings: RateLimitSettings,
    private readonly clock: Clock,
  ) {}

  get enabled(): boolean {
    return this.settings.perSecond > 0;
  }

  /**
   * Takes `cost` tokens for `principal`. Returns 0 when allowed, otherwise how many seconds
   * until it would be (nothing is taken then).
   */
  take(principal: string, requested = 1): number {
    if (!this.enabled) return 0;
    const { perSecond, burst } = this.settings;
    // One operation may hold several changes; none may need more than a full bucket.
    const cost = Math.min(requested, burst);
    const now = this.clock.now().getTime();
    if (++this.takes % SWEEP_EVERY === 0) this.sweep(now);
    const bucket = this.buckets.get(principal) ?? { tokens: burst, at: now };
    const tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
    if (tokens >= cost) {
      this.buckets.set(principal, { tokens: tokens - cost, at: now });
      return 0;
    }
    this.buckets.set(principal, { tokens, at: now });
    return Math.max(1, Math.ceil((cost - tokens) / perSecond));
  }

  private sweep(now: number): void {
    const full = (this.settings.burst / this.settings.perSecond) * 1000;
    for (const [principal, bucket] of this.buckets) if (now - bucket.at >= full) this.buckets.delete(principal);
  }
}
