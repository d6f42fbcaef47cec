// `leasehold stats DB`: the queue's counts as one JSON line, read-only (the same query as the
// server's queueStats subscription and /metrics gauges).
import { SqliteEventTail } from '../db/event-tail.js';
import { systemClock } from '../domain/clock.js';
import type { Namespace } from './argparse.js';
import { checkExisting } from './database.js';
import { pythonPath } from './python.js';

export async function stats(args: Namespace): Promise<Record<string, unknown>> {
  const database = pythonPath(args.db as string);
  checkExisting(database);
  const tail = new SqliteEventTail(database);
  try {
    const now = systemClock.now();
    const counts = await tail.queueStats(now);
    const oldest = counts.oldestPendingCreatedAt;
    return {
      database,
      total: counts.pending + counts.accepted + counts.corrected + counts.rejected,
      pending: counts.pending,
      accepted: counts.accepted,
      corrected: counts.corrected,
      rejected: counts.rejected,
      unclaimed: counts.unclaimed,
      active: counts.active,
      expired: counts.expired,
      oldest_pending_created_at: oldest === null ? null : Math.floor(oldest.getTime() / 1000),
      oldest_pending_age_seconds: oldest === null ? null : Math.max(0, Math.floor((now.getTime() - oldest.getTime()) / 1000)),
      at: Math.floor(now.getTime() / 1000),
    };
  } finally {
    await tail.close();
  }
}
