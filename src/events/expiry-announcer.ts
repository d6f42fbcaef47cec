// Announces lease expiry when it happens: one timer, armed for the earliest unrecorded expiry and
// re-armed when a lease may run out before it. When it fires, lapsed leases are recorded as LEASE_EXPIRED
// (exactly once across processes: see recordLapse). Claims never depend on this having run.

import type { Event } from '../db/client.js';
import type { EventTail } from '../db/event-tail.js';
import type { Clock, Timer } from '../domain/clock.js';
import { isOverlong } from '../domain/lease.js';
import type { Logger } from '../logger.js';
import type { ServiceDeps } from '../services/context.js';
import { recordLapsedLeases } from '../services/leases.js';

const BATCH = 200;
/** The changes that set a lease's expiry. */
const LEASE_GRANTS = new Set(['LEASE_CLAIMED', 'LEASE_RENEWED']);

export class ExpiryAnnouncer {
  private timer: Timer | null = null;
  private armedFor: number | null = null;
  private running = false;
  private current: Promise<void> | null = null;
  private stopped = false;
  private arming: Promise<void> | null = null;
  private armAgain = false;

  constructor(
    private readonly deps: ServiceDeps & { clock: Clock },
    private readonly tail: EventTail,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
  }

  /** Feed observer: looks the earliest expiry up again when a change may have brought it forward. */
  onEvents = (events: readonly Event[]): void => {
    if (events.some((event) => this.mayBringForward(event))) this.arm();
  };

  /**
   * Whether `event` can make the earliest unrecorded expiry earlier than the timer is armed for: a lease
   * granted or renewed to run out before it (or overlong by this clock), or any lease while none is armed.
   * A lease that ends (released, decided, recorded, renewed for longer) never does: a timer armed for it
   * fires, finds nothing lapsed, and arms again. So a busy queue costs one look-up per earliest expiry,
   * not one per page of changes.
   */
  private mayBringForward(event: Event): boolean {
    if (!LEASE_GRANTS.has(event.type)) return false;
    if (this.armedFor === null || event.leaseExpiresAt === null) return true;
    return event.leaseExpiresAt.getTime() < this.armedFor || isOverlong(event.leaseExpiresAt, this.deps.clock.now());
  }

  /** Looks up the earliest unrecorded expiry and sets the timer for it; calls during a look-up coalesce. */
  private arm(): void {
    if (this.stopped || this.running) return;
    if (this.arming) {
      this.armAgain = true;
      return;
    }
    this.arming = (async () => {
      try {
        do {
          this.armAgain = false;
          const next = await this.tail.nextUnrecordedExpiry(this.deps.clock.now());
          if (this.stopped || this.running) return;
          this.setTimerFor(next);
        } while (this.armAgain);
      } catch (error) {
        this.logger.error({ err: error }, 'could not read the next lease expiry; retrying in 1 s');
        this.setTimerFor(new Date(this.deps.clock.now().getTime() + 1_000));
      } finally {
        this.arming = null;
      }
    })();
  }

  private setTimerFor(next: Date | null): void {
    if (next === null) {
      this.timer?.cancel();
      this.timer = null;
      this.armedFor = null;
      return;
    }
    if (this.armedFor === next.getTime() && this.timer) return;
    this.timer?.cancel();
    this.armedFor = next.getTime();
    this.timer = this.deps.clock.setTimer(next, () => {
      this.current = this.fire();
    });
  }

  /** Resolves once any announcement in progress has been recorded (for tests and shutdown). */
  async settled(): Promise<void> {
    while (this.arming) await this.arming;
    while (this.current) {
      const current = this.current;
      await current;
      if (this.current === current) this.current = null;
    }
  }

  private async fire(): Promise<void> {
    this.timer = null;
    this.armedFor = null;
    this.running = true;
    try {
      // Many may lapse at once: a full batch may have left more behind.
      let recorded: number;
      do recorded = await recordLapsedLeases(this.deps, BATCH);
      while (recorded === BATCH && !this.stopped);
    } catch (error) {
      this.logger.error({ err: error }, 'could not record lapsed leases; retrying at the next change or in 1 s');
      this.running = false;
      if (!this.stopped) {
        this.timer = this.deps.clock.setTimer(new Date(this.deps.clock.now().getTime() + 1_000), () => {
          this.current = this.fire();
        });
      }
      return;
    }
    this.running = false;
    this.arm();
  }
}
