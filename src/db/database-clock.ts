// One clock for several instances. On PostgreSQL, instances on different machines decide lease
// expiry and deadlines by "now"; SPEC says the server's clock is the only clock, so every instance
// follows the database server's clock: it measures the offset of its own clock from PostgreSQL's
// clock_timestamp() (taking the sample with the shortest round trip, as NTP does) and corrects by it.
import { type Clock, monotonicTime, offsetClock } from '../domain/clock.js';
import type { Logger } from '../logger.js';
import type { Database } from './client.js';

export interface DatabaseClock extends Clock {
  /** Milliseconds added to the local clock; positive when the database's clock is ahead. */
  readonly offsetMs: number;
  /** Round trip of the sample the offset came from: the offset is known to within half of it. */
  readonly uncertaintyMs: number;
  stop(): void;
}

export interface DatabaseClockOptions {
  /** The local clock in epoch milliseconds (monotonic, see monotonicTime; injectable so tests can skew it). */
  local?: () => number;
  samples?: number;
  /** How often the offset is measured again (clocks drift). */
  resyncMs?: number;
  /** An offset above this is logged as a warning: the machine's clock needs NTP. */
  warnAboveMs?: number;
}

async function measure(db: Database, local: () => number, samples: number): Promise<{ offset: number; roundTrip: number }> {
  let best: { offset: number; roundTrip: number } | null = null;
  for (let n = 0; n < samples; n++) {
    const sent = local();
    const [row] = await db.query<{ now: Date }>('SELECT clock_timestamp() AS now');
    const received = local();
    if (!row) throw new Error('clock_timestamp() returned no row.');
    const roundTrip = received - sent;
    const offset = new Date(row.now).getTime() - (sent + roundTrip / 2);
    if (!best || roundTrip < best.roundTrip) best = { offset, roundTrip };
  }
  return best as { offset: number; roundTrip: number };
}

/** A clock that reads the database server's time; PostgreSQL only. */
export async function databaseClock(db: Database, logger: Logger, options: DatabaseClockOptions = {}): Promise<DatabaseClock> {
  const local = options.local ?? monotonicTime();
  const samples = options.samples ?? 5;
  const warnAboveMs = options.warnAboveMs ?? 1_000;
  let state = await measure(db, local, samples);
  const report = () => {
    const fields = { offsetMs: Math.round(state.offset), uncertaintyMs: Math.ceil(state.roundTrip / 2) };
    if (Math.abs(state.offset) > warnAboveMs)
      logger.warn(fields, "this machine's clock is far from the database server's; following the database's");
    else logger.debug(fields, "following the database server's clock");
  };
  report();
  // Offsets are known to a few ms: floored, a change made here right after another instance's is never
  // stamped a millisecond before it.
  const floored = flooredClock(
    db,
    offsetClock(() => state.offset, local),
  );
  const timer = setInterval(() => {
    measure(db, local, samples).then(
      (next) => {
        state = next;
        report();
      },
      (error: unknown) => logger.warn({ err: error }, 'could not measure the database clock; keeping the last offset'),
    );
  }, options.resyncMs ?? 30_000);
  timer.unref();
  return {
    now: () => floored.now(),
    setTimer: (at, callback) => floored.setTimer(at, callback),
    maxLiftMs: floored.maxLiftMs,
    get offsetMs() {
      return state.offset;
    },
    get uncertaintyMs() {
      return state.roundTrip / 2;
    },
    stop: () => {
      clearInterval(timer);
      floored.stop();
    },
  };
}

/**
 * `clock`, never earlier than the last change any process recorded in `db`, read under the write lock
 * (Database.onWriteLocked). Processes' clocks agree only to a few milliseconds (on one machine too: a
 * process's clock does not follow the wall clock set back, one started since does), so without this floor
 * a change committed right after another process's could be stamped a millisecond before it. With
 * `maxLiftMs`, a clock further behind than that is not lifted: it is a clock set back, not a small skew,
 * and the rules for a clock behind apply (a lease granted more than the longest lease ahead of it counts
 * as lapsed; see domain/lease.ts).
 */
export function flooredClock(db: Database, clock: Clock, options: { maxLiftMs?: number } = {}): Clock & { stop(): void } {
  const maxLiftMs = options.maxLiftMs ?? Number.POSITIVE_INFINITY;
  let floor = 0;
  const unfloor = db.onWriteLocked((lastEventAt) => {
    if (lastEventAt !== null && lastEventAt.getTime() > floor) floor = lastEventAt.getTime();
  });
  return {
    now: () => {
      const now = clock.now();
      const behind = floor - now.getTime();
      return behind > 0 && behind <= maxLiftMs ? new Date(floor) : now;
    },
    setTimer: (at, callback) => clock.setTimer(at, callback),
    maxLiftMs,
    stop: unfloor,
  };
}

/** How far behind the last recorded change a SQLite process's clock is lifted (see flooredClock): skews, not clocks set back. */
export const SQLITE_MAX_LIFT_MS = 1_000;
