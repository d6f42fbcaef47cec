// A dedicated connection that follows the Event table: cheap change detection and reads of the
// rows after a sequence number. Items are read here too, to attach them to delivered events.
// SQLite: a read-only connection; PRAGMA data_version moves when any other connection, in any
// process, commits. PostgreSQL: see postgres-tail.ts (LISTEN/NOTIFY).
import Database, { type Statement } from 'better-sqlite3';
import type { Event, Item } from './client.js';
import { date, type ItemRow, toItem } from './item-store.js';

export interface EventRow extends Omit<Event, 'occurredAt' | 'leaseExpiresAt'> {
  occurredAt: number | Date;
  leaseExpiresAt: number | Date | null;
}

export function eventFromRow(row: EventRow): Event {
  return { ...row, occurredAt: new Date(row.occurredAt), leaseExpiresAt: date(row.leaseExpiresAt) };
}

export interface EventTail {
  /**
   * True when someone (any process) may have committed since the last call. Cheap and synchronous:
   * the feed calls it on every poll.
   */
  changed(): boolean;
  /** Where the backend is told of commits as they happen (PostgreSQL's NOTIFY), calls `listener` then. */
  onChange?(listener: () => void): void;
  latestSequence(): Promise<number>;
  /** Events with a sequence greater than `sequence`, in order, at most `limit`. */
  eventsAfter(sequence: number, limit: number): Promise<Event[]>;
  itemsById(ids: readonly number[]): Promise<Map<number, Item>>;
  /** Counts by status and claim state at `now`, and the creation time of the oldest pending item. */
  queueStats(now: Date): Promise<QueueStatsRow>;
  itemByLeaseTokenHash(tokenHash: string): Promise<Item | null>;
  /** The earliest expiry of a lease whose lapse is not recorded yet, or null when there is none. */
  nextUnrecordedExpiry(): Promise<Date | null>;
  close(): Promise<void>;
}

export class SqliteEventTail implements EventTail {
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

  async queueStats(now: Date): Promise<QueueStatsRow> {
    const row = this.stats.get(now.getTime(), now.getTime()) as Omit<QueueStatsRow, 'oldestPendingCreatedAt'> & {
      oldestPendingCreatedAt: number | null;
    };
    return { ...row, oldestPendingCreatedAt: date(row.oldestPendingCreatedAt) };
  }

  async itemByLeaseTokenHash(tokenHash: string): Promise<Item | null> {
    const row = this.byTokenHash.get(tokenHash) as ItemRow | undefined;
    return row ? toItem(row) : null;
  }

  /** The first call after construction compares with the version read then. */
  changed(): boolean {
    const version = this.dataVersion.get() as number;
    if (version === this.version) return false;
    this.version = version;
    return true;
  }

  async latestSequence(): Promise<number> {
    return this.lastId.get() as number;
  }

  async eventsAfter(sequence: number, limit: number): Promise<Event[]> {
    return (this.after.all(sequence, limit) as EventRow[]).map(eventFromRow);
  }

  async itemsById(ids: readonly number[]): Promise<Map<number, Item>> {
    const rows = ids.length === 0 ? [] : (this.items.all(JSON.stringify(ids)) as ItemRow[]);
    return new Map(rows.map((row) => [row.id, toItem(row)]));
  }

  async nextUnrecordedExpiry(): Promise<Date | null> {
    return date((this.nextExpiry.get() as number | undefined) ?? null);
  }

  async close(): Promise<void> {
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

/**
 * A tail usable before its connection is open (the feed and its listeners are wired up first):
 * every read waits for `opening`; `changed()` is false until then.
 */
export function deferredTail(opening: Promise<EventTail>): EventTail & { ready(): Promise<void> } {
  let tail: EventTail | null = null;
  const opened = opening.then((value) => {
    tail = value;
    return value;
  });
  // Failure surfaces through ready() and the reads, not as an unhandled rejection.
  opened.catch(() => {});
  return {
    ready: async () => {
      await opened;
    },
    changed: () => tail?.changed() ?? false,
    onChange: (listener) => {
      opened.then((value) => value.onChange?.(listener)).catch(() => {});
    },
    latestSequence: async () => (await opened).latestSequence(),
    eventsAfter: async (sequence, limit) => (await opened).eventsAfter(sequence, limit),
    itemsById: async (ids) => (await opened).itemsById(ids),
    queueStats: async (now) => (await opened).queueStats(now),
    itemByLeaseTokenHash: async (tokenHash) => (await opened).itemByLeaseTokenHash(tokenHash),
    nextUnrecordedExpiry: async () => (await opened).nextUnrecordedExpiry(),
    close: async () => (await opened.catch(() => null))?.close(),
  };
}
