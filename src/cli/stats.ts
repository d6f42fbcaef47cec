// `leasehold stats DB`: the queue's counts as one JSON line, read-only (the same query as the
// server's queueStats subscription and /metrics gauges).
import { type EventTail, SqliteEventTail } from '../db/event-tail.js';
import { systemClock } from '../domain/clock.js';
import type { Namespace } from './argparse.js';
import { checkExisting, postgresLocation, shownDatabase } from './database.js';
import { CliError, EXIT } from './output.js';
import { pythonPath } from './python.js';

/** The counts' reader: the file's, or a PostgreSQL database's when DB is a postgresql:// URL (issue 18). */
async function openCounts(db: string): Promise<{ database: string; tail: EventTail; now(): Promise<Date> }> {
  const postgres = await postgresLocation(db);
  if (!postgres) {
    const database = pythonPath(db);
    checkExisting(database);
    return { database, tail: new SqliteEventTail(database), now: async () => systemClock.now() };
  }
  const database = await shownDatabase(postgres);
  const { PostgresEventTail } = await import('../db/postgres-tail.js');
  try {
    const tail = await PostgresEventTail.open(postgres.dialect === 'postgresql' ? postgres.url : '');
    // The database server's clock, which every instance on it follows (db/database-clock.ts).
    return { database, tail, now: () => tail.databaseNow() };
  } catch (error) {
    // The driver's message, never the URL's password.
    throw new CliError(
      'database_error',
      `Could not open ${database}: ${error instanceof Error ? error.message : String(error)}`,
      EXIT.failure,
    );
  }
}

export async function stats(args: Namespace): Promise<Record<string, unknown>> {
  const { database, tail, now: readNow } = await openCounts(args.db as string);
  try {
    const read = async () => {
      const now = await readNow();
      return { now, counts: await tail.queueStats(now) };
    };
    const { now, counts } = await read().catch((error: unknown) => {
      // SQLite's own failures are reported as seed A words them (toCliError); PostgreSQL's say where.
      if (tail instanceof SqliteEventTail) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new CliError('database_error', `Could not read the counts of ${database}: ${reason}`, EXIT.failure);
    });
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
