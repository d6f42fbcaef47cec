// What PostgreSQL's PG_WRITE_MODE=sharded (decision 0009) asks of the code around it: readers of the
// history stop at the feed's horizon, and a write that PostgreSQL fails to break a deadlock is run again.
// Its own module: client.ts, group-commit.ts, the tail and the history reads all use it, and none of them
// may import another for it (they would form a cycle).

/**
 * The highest event id below which every id is settled (leasehold_feed_horizon). Read in a statement of its
 * own before the events: a later statement's snapshot sees every commit below it.
 */
export const FEED_HORIZON = 'SELECT leasehold_feed_horizon() AS "id"';

/** PostgreSQL's SQLSTATE for a statement it failed to break a deadlock. */
export const DEADLOCK_DETECTED = '40P01';

interface MaybeWrapped {
  code?: unknown;
  originalCode?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
}

/**
 * True for an error meaning PostgreSQL broke a deadlock by failing this statement (40P01): raw from pg,
 * from the driver adapter, or from a Prisma query (P2034, or the adapter's error in meta). Nothing of the
 * failed statement was kept, and the same work run again can succeed.
 */
export function isDeadlock(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const { code, originalCode, cause, meta } = error as MaybeWrapped;
  if (code === DEADLOCK_DETECTED || originalCode === DEADLOCK_DETECTED || code === 'P2034') return true;
  return isDeadlock(cause, depth + 1) || isDeadlock(meta?.driverAdapterError, depth + 1);
}
