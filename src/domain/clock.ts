// The only source of "now" and of timers: rules and schedulers receive a Clock, so tests move time
// by hand instead of sleeping.

export interface Timer {
  cancel(): void;
}

/** Where the current time comes from, and how to wait for a moment. The server's clock is the only clock. */
export interface Clock {
  now(): Date;
  /** Calls `callback` once the clock reaches `at` (at once if it already has). */
  setTimer(at: Date, callback: () => void): Timer;
  /**
   * Set on a clock floored by the last recorded change (flooredClock in db/database-clock.ts): a write
   * that reads the time in the database, under the write lock, lifts it there the same way, by at most
   * this many ms (Infinity: without limit). Absent: the time is taken as the clock gives it.
   */
  readonly maxLiftMs?: number;
}

/** Node's setTimeout cannot wait longer than this; longer waits are re-armed. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** Where a clock reads the time: the wall clock (epoch ms) and a monotonic count of elapsed ms. */
export interface TimeSources {
  wall: () => number;
  elapsed: () => number;
}

const SYSTEM_SOURCES: TimeSources = { wall: Date.now, elapsed: () => performance.now() };

/**
 * Epoch milliseconds that never go backwards: the wall clock read once, plus the monotonic time
 * elapsed since. A wall clock set back (an NTP step, an operator) is not followed, so a lease this
 * process measures lasts its length whatever the wall clock does; a wall clock that gets ahead
 * (a suspended machine resumed, a forward correction) is followed, as every other process sees it.
 */
export function monotonicTime(sources: TimeSources = SYSTEM_SOURCES): () => number {
  let anchor = sources.wall() - sources.elapsed();
  let last = Number.NEGATIVE_INFINITY;
  return () => {
    const elapsed = sources.elapsed();
    const wall = sources.wall();
    if (wall > anchor + elapsed) anchor = wall - elapsed;
    last = Math.max(last, anchor + elapsed);
    return last;
  };
}

/** A process's clock: monotonic (see monotonicTime). */
export function monotonicClock(sources: TimeSources = SYSTEM_SOURCES): Clock {
  return offsetClock(() => 0, monotonicTime(sources));
}

export const systemClock: Clock = monotonicClock();

/**
 * The system clock moved by `offsetMs()` milliseconds, read on every call: for several instances
 * that share one clock (the database server's), each correcting its own by the measured offset.
 */
export function offsetClock(offsetMs: () => number, local: () => number): Clock {
  return {
    now: () => new Date(local() + offsetMs()),
    setTimer(at, callback) {
      let handle: NodeJS.Timeout;
      const arm = () => {
        const wait = at.getTime() - (local() + offsetMs());
        if (wait > MAX_TIMEOUT_MS) handle = setTimeout(arm, MAX_TIMEOUT_MS);
        else handle = setTimeout(callback, Math.max(0, wait));
        handle.unref();
      };
      arm();
      return { cancel: () => clearTimeout(handle) };
    },
  };
}

/** A clock that only moves when told to; for tests and benchmarks. Its timers fire as it passes them. */
export class ManualClock implements Clock {
  private current: number;
  private timers: { at: number; callback: () => void; cancelled: boolean }[] = [];

  constructor(start: Date | number = Date.UTC(2026, 0, 1)) {
    this.current = typeof start === 'number' ? start : start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  setTimer(at: Date, callback: () => void): Timer {
    const timer = { at: at.getTime(), callback, cancelled: false };
    this.timers.push(timer);
    if (timer.at <= this.current) queueMicrotask(() => this.fireDue());
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  advance(milliseconds: number): void {
    this.set(this.current + milliseconds);
  }

  set(to: Date | number): void {
    this.current = typeof to === 'number' ? to : to.getTime();
    this.fireDue();
  }

  /** Timers that are armed and due later: how many, for tests. */
  pendingTimers(): number {
    return this.timers.filter((timer) => !timer.cancelled).length;
  }

  private fireDue(): void {
    const due = this.timers.filter((timer) => !timer.cancelled && timer.at <= this.current).sort((a, b) => a.at - b.at);
    this.timers = this.timers.filter((timer) => !timer.cancelled && timer.at > this.current);
    for (const timer of due) timer.callback();
  }
}
