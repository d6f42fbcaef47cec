// Per-caller limits: a token bucket per key (a principal's name, a client's address), in this process.
import type { Clock } from '../domain/clock.js';

export interface RateLimitSettings {
  /** Tokens added per second; 0 turns the limit off. */
  perSecond: number;
  /** Bucket size: how many may arrive at once after a quiet spell. */
  burst: number;
}

/** Buckets idle long enough to be full again are dropped, so memory follows active callers. */
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
   * Takes `cost` tokens for `key`. Returns 0 when allowed, otherwise how many seconds
   * until it would be (nothing is taken then).
   */
  take(key: string, requested = 1): number {
    if (!this.enabled) return 0;
    // One operation may hold several changes; none may need more than a full bucket.
    const cost = Math.min(requested, this.settings.burst);
    const { tokens, now } = this.refill(key);
    if (tokens >= cost) {
      this.buckets.set(key, { tokens: tokens - cost, at: now });
      return 0;
    }
    this.buckets.set(key, { tokens, at: now });
    return this.secondsUntil(cost - tokens);
  }

  /** Seconds until `key` has a token to spend; 0 when it has one now. Takes nothing. */
  wait(key: string): number {
    if (!this.enabled) return 0;
    const { tokens } = this.refill(key);
    return tokens >= 1 ? 0 : this.secondsUntil(1 - tokens);
  }

  /**
   * Takes `cost` tokens for something that already happened, so it cannot be refused: the bucket may go
   * into debt, down to one bucket's worth, and `wait` answers for longer.
   */
  charge(key: string, cost = 1): void {
    if (!this.enabled) return;
    const { tokens, now } = this.refill(key);
    this.buckets.set(key, { tokens: Math.max(-this.settings.burst, tokens - cost), at: now });
  }

  private refill(key: string): { tokens: number; now: number } {
    const { perSecond, burst } = this.settings;
    const now = this.clock.now().getTime();
    if (++this.takes % SWEEP_EVERY === 0) this.sweep(now);
    const bucket = this.buckets.get(key);
    if (!bucket) return { tokens: burst, now };
    return { tokens: Math.min(burst, bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * perSecond), now };
  }

  private secondsUntil(missing: number): number {
    return Math.max(1, Math.ceil(missing / this.settings.perSecond));
  }

  private sweep(now: number): void {
    const { perSecond, burst } = this.settings;
    for (const [key, bucket] of this.buckets) if (bucket.tokens + ((now - bucket.at) / 1000) * perSecond >= burst) this.buckets.delete(key);
  }
}
