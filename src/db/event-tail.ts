// A dedicated read-only connection that follows the Event table: cheap change detection with
// PRAGMA data_version (it moves when any other connection, in any process, commits) and reads of
// the rows after a sequence number. Items are read here too, to attach them to delivered events.
import Database, { type Statement } from 'better-sqlite3';
import type { Event, Item } from './client.js';
import { type ItemRow, toItem } from './item-store.js';

interface EventRow extends Omit<Event, 'occurredAt' | 'leaseExpiresAt'> {
  occurredAt: number;
  leaseExpiresAt: number | null;
}

const date = (value: number | null): Date | null => (value === null ? null : new Date(value));

export function eventFromRow(row: EventRow): Event {
  return { ...row, occurredAt: new Date(row.occurredAt), leaseExpiresAt: date(row.leaseExpiresAt) };
}

export class EventTail {
  private readonly connection: Database.Database;
  private readonly dataVersion: Statement;
  private readonly after: Statement;
  private readonly lastId: Statement;
  private readonly items: Statement;
  private readonly nextExpiry: Statement;
  private readonly stats: Statement;
  private readonly byTokenHash: Statement;
  private version: number;

  constructor(file: string, busyTimeoutMs = 10_000) {
    this.connection = new Database(file, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs });
    this.dataVersion = this.connection.prepare('PRAGMA data_version').pluck();
    this.after = this.connection.prepare('SELECT * FROM "Event" WHERE "id" > ? ORDER BY "id" LIMIT ?');
    this.lastId = this.connection.prepare('SELECT coalesce(max("id"), 0) FROM "Event"').pluck();
    this.items = this.connection.prepare('SELECT * FROM "Item" WHERE "id" IN (SELECT value FROM json_each(?))');
    this.nextExpiry = this.connection
      .prepare(
        `SELECT "leaseExpiresAt" FROM "Item"
         WHERE "leaseExpiryRecorded" = 0 AND "leaseExpiresAt" IS NOT NULL
         ORDER BY "leaseExpiresAt" LIMIT 1`,
      )
      .pluck();
    this.stats = this.connection.prepare(
      `SELECT
         coalesce(sum("status" = 'PENDING'), 0) AS pending,
         coalesce(sum("status" = 'ACCEPTED'), 0) AS accepted,
         coalesce(sum("status" = 'CORRECTED'), 0) AS corrected,
         coalesce(sum("status" = 'REJECTED'), 0) AS rejected,
         coalesce(sum("status" = 'PENDING' AND "leaseTokenHash" IS NULL), 0) AS unclaimed,
         coalesce(sum("status" = 'PENDING' AND "leaseExpiresAt" > ?), 0) AS active,
         coalesce(sum("status" = 'PENDING' AND "leaseTokenHash" IS NOT NULL AND "leaseExpiresAt" <= ?), 0) AS expired,
         min(CASE WHEN "status" = 'PENDING' THEN "createdAt" END) AS oldestPendingCreatedAt
       FROM "Item"`,
    );
    this.byTokenHash = this.connection.prepare('SELECT * FROM "Item" WHERE "leaseTokenHash" = ?');
    this.version = this.dataVersion.get() as number;
  }

  /** Counts by status and claim state at `now`, and the creation time of the oldest pending item. */
  queueStats(now: Date): QueueStatsRow {
    const row = this.stats.get(now.getTime(), now.getTime()) as Omit<QueueStatsRow, 'oldestPendingCreatedAt'> & {
      oldestPendingCreatedAt: number | null;
    };
    return { ...row, oldestPendingCreatedAt: date(row.oldestPendingCreatedAt) };
  }

  itemByLeaseTokenHash(tokenHash: string): Item | null {
    const row = this.byTokenHash.get(tokenHash) as ItemRow | undefined;
    return row ? toItem(row) : null;
  }

  /** True when someone committed since the last call (the first call after construction compares with it). */
  changed(): boolean {
    const version = this.dataVersion.get() as number;
    if (version === this.version) return false;
    this.version = version;
    return true;
  }

  latestSequence(): number {
    return this.lastId.get() as number;
  }

  eventsAfter(sequence: number, limit: number): Event[] {
    return (this.after.all(sequence, limit) as EventRow[]).map(eventFromRow);
  }

  itemsById(ids: readonly number[]): Map<number, Item> {
    const rows = ids.length === 0 ? [] : (this.items.all(JSON.stringify(ids)) as ItemRow[]);
    return new Map(rows.map((row) => [row.id, toItem(row)]));
  }

  /** The earliest expiry of a lease whose lapse is not recorded yet, or null when there is none. */
  nextUnrecordedExpiry(): Date | null {
    return date((this.nextExpiry.get() as number | undefined) ?? null);
  }

  close(): void {
    this.connection.close();
  }
}

export interface QueueStatsRow {
  pending: number;
  accepted: number;
  corrected: number;
  rejected: number;
  unclaimed: number;
  active: number;
  expired: number;
  oldestPendingCreatedAt: Date | null;
}
