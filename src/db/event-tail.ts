// A dedicated connection that follows the Event table: cheap change detection and reads of the
// rows after a sequence number. Items are read here too, to attach them to delivered events.
// SQLite: a read-only connection; PRAGMA data_version moves when any other connection, in any
// process, commits. PostgreSQL: see postgres-tail.ts (LISTEN/NOTIFY).
import Database, { type Statement } from 'better-sqlite3';
import { isOverlong, longestLeaseFrom } from '../domain/lease.js';
import type { Event, Item } from '../generated/prisma/client.js';
import { date, type ItemRow, toItem } from './item-store.js';

export interface EventRow extends Omit<Event, 'occurredAt' | 'leaseExpiresAt'> {
  occurredAt: number | Date;
  leaseExpiresAt: number | Date | null;
}

export function eventFromRow(row: EventRow): Event {
  return { ...row, occurredAt: new Date(row.occurredAt), leaseExpiresAt: date(row.leaseExpiresAt) };
}

/** A page of events as changesAfter hands it over: the ITEM_ADDED events left out. */
export function withoutItemsAdded(events: Event[], sequence: number): EventPage {
  return {
    events: events.filter((event) => event.type !== 'ITEM_ADDED'),
    through: events.at(-1)?.id ?? sequence,
    covered: events.length,
  };
}

/** Events of one page of the history, the last sequence number that page covers, and how many events it covers. */
export interface EventPage {
  events: Event[];
  through: number;
  covered: number;
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
  /**
   * Events with a sequence greater than `sequence`, in order, at most `limit`. `withItems` false: the caller
   * will not ask for their items (a tail that reads them with the events, PostgreSQL's, then does not).
   */
  eventsAfter(sequence: number, limit: number, withItems?: boolean): Promise<Event[]>;
  /**
   * The page `eventsAfter(sequence, limit)` returns, less its ITEM_ADDED events, and the page's last sequence
   * number (`sequence` when it is empty) and its length with them. A bulk intake makes one ITEM_ADDED event per item, and reading those
   * rows back was an eighth of an intake's cost; the server's own observers have no use for them (see
   * EventFeed.observe), so with no subscriber to hand them to they are not read.
   */
  changesAfter(sequence: number, limit: number): Promise<EventPage>;
  itemsById(ids: readonly number[]): Promise<Map<number, Item>>;
  /** Counts by status and claim state at `now`, and the creation time of the oldest pending item. */
  queueStats(now: Date): Promise<QueueStatsRow>;
  itemByLeaseTokenHash(tokenHash: string): Promise<Item | null>;
  /**
   * When the expiry announcer must next record lapses: the earliest expiry of a lease whose lapse is not
   * recorded yet, or `now` when one is overlong by this clock (see isOverlong), or null when there is none.
   */
  nextUnrecordedExpiry(now: Date): Promise<Date | null>;
  close(): Promise<void>;
}

export class SqliteEventTail implements EventTail {
  private readonly connection: Database.Database;
  private readonly dataVersion: Statement;
  private readonly after: Statement;
  private readonly pageEnd: Statement;
  private readonly changesBetween: Statement;
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
    // The page's end walks ids alone; then only its rows that are not ITEM_ADDED become objects. Ids are
    // given in commit order (one writer), so every row up to the end is committed when the end is read.
    this.pageEnd = this.connection.prepare(
      'SELECT max("id") AS "through", count(*) AS "covered" FROM (SELECT "id" FROM "Event" WHERE "id" > ? ORDER BY "id" LIMIT ?)',
    );
    this.changesBetween = this.connection.prepare(
      `SELECT * FROM "Event" WHERE "id" > ? AND "id" <= ? AND "type" <> 'ITEM_ADDED' ORDER BY "id"`,
    );
    this.lastId = this.connection.prepare('SELECT coalesce(max("id"), 0) FROM "Event"').pluck();
    this.items = this.connection.prepare('SELECT * FROM "Item" WHERE "id" IN (SELECT value FROM json_each(?))');
    this.nextExpiry = this.connection.prepare(UNRECORDED_EXPIRIES_SQL);
    this.stats = this.connection.prepare(QUEUE_STATS_SQL);
    this.byTokenHash = this.connection.prepare('SELECT * FROM "Item" WHERE "leaseTokenHash" = ?');
    this.version = this.dataVersion.get() as number;
  }

  async queueStats(now: Date): Promise<QueueStatsRow> {
    const row = this.stats.get(now.getTime(), longestLeaseFrom(now).getTime()) as QueueStatsCounts & {
      oldestPendingCreatedAt: number | null;
    };
    return queueStatsFromCounts(row, date(row.oldestPendingCreatedAt));
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

  async changesAfter(sequence: number, limit: number): Promise<EventPage> {
    const { through, covered } = this.pageEnd.get(sequence, limit) as { through: number | null; covered: number };
    if (through === null) return { events: [], through: sequence, covered: 0 };
    return { events: (this.changesBetween.all(sequence, through) as EventRow[]).map(eventFromRow), through, covered };
  }

  async itemsById(ids: readonly number[]): Promise<Map<number, Item>> {
    const rows = ids.length === 0 ? [] : (this.items.all(JSON.stringify(ids)) as ItemRow[]);
    return new Map(rows.map((row) => [row.id, toItem(row)]));
  }

  async nextUnrecordedExpiry(now: Date): Promise<Date | null> {
    const row = this.nextExpiry.get() as { earliest: number | null; latest: number | null };
    return nextLapse(date(row.earliest), date(row.latest), now);
  }

  async close(): Promise<void> {
    this.connection.close();
  }
}

/**
 * Both ends of the unrecorded lease expiries, each the first entry of (leaseExpiryRecorded, leaseExpiresAt):
 * the earliest is when the next lease lapses, the latest tells whether one is overlong.
 */
export const UNRECORDED_EXPIRIES_SQL = `SELECT
  (SELECT "leaseExpiresAt" FROM "Item" WHERE "leaseExpiryRecorded" = FALSE AND "leaseExpiresAt" IS NOT NULL
    ORDER BY "leaseExpiresAt" LIMIT 1) AS "earliest",
  (SELECT "leaseExpiresAt" FROM "Item" WHERE "leaseExpiryRecorded" = FALSE AND "leaseExpiresAt" IS NOT NULL
    ORDER BY "leaseExpiresAt" DESC LIMIT 1) AS "latest"`;

/**
 * When lapses are next to be recorded: at once when the latest unrecorded expiry is overlong by this
 * clock (a lease granted by a clock ahead of ours: it lapsed when we first saw it, and only gets less
 * overlong as our clock moves on), else at the earliest.
 */
export function nextLapse(earliest: Date | null, latest: Date | null, now: Date): Date | null {
  return latest !== null && isOverlong(latest, now) ? now : earliest;
}

/**
 * The queue statistics in one statement (one snapshot): the maintained counts (QueueCounter, kept by
 * triggers: see the live_counters migration) plus the two reads that depend on the clock, both index
 * reads bounded by their answer: the active leases, a range of (status, leaseExpiresAt) from now to
 * now + the longest lease (parameters: now, that; an overlong or recorded lapse is not active), and the
 * oldest pending item, the first entry of (status, createdAt, …). Written once for both backends.
 */
export const QUEUE_STATS_SQL = `SELECT
  (SELECT "value" FROM "QueueCounter" WHERE "name" = 'item:PENDING') AS pending,
  (SELECT "value" FROM "QueueCounter" WHERE "name" = 'item:ACCEPTED') AS accepted,
  (SELECT "value" FROM "QueueCounter" WHERE "name" = 'item:CORRECTED') AS corrected,
  (SELECT "value" FROM "QueueCounter" WHERE "name" = 'item:REJECTED') AS rejected,
  (SELECT "value" FROM "QueueCounter" WHERE "name" = 'item:leased') AS leased,
  (SELECT count(*) FROM "Item"
    WHERE "status" = 'PENDING' AND "leaseExpiresAt" > ? AND "leaseExpiresAt" <= ? AND NOT "leaseExpiryRecorded") AS active,
  (SELECT min("createdAt") FROM "Item" WHERE "status" = 'PENDING') AS "oldestPendingCreatedAt"`;

/** The counts QUEUE_STATS_SQL reads; numbers, bigints or numeric strings depending on the backend. */
export interface QueueStatsCounts {
  pending: number | bigint | string | null;
  accepted: number | bigint | string | null;
  corrected: number | bigint | string | null;
  rejected: number | bigint | string | null;
  leased: number | bigint | string | null;
  active: number | bigint | string | null;
}

/** Derives the unclaimed and expired counts: every recorded lease is either still active or lapsed. */
export function queueStatsFromCounts(row: QueueStatsCounts, oldestPendingCreatedAt: Date | null): QueueStatsRow {
  const count = (value: number | bigint | string | null) => (value == null ? 0 : Number(value));
  const pending = count(row.pending);
  const leased = count(row.leased);
  const active = count(row.active);
  return {
    pending,
    accepted: count(row.accepted),
    corrected: count(row.corrected),
    rejected: count(row.rejected),
    unclaimed: pending - leased,
    active,
    expired: leased - active,
    oldestPendingCreatedAt,
  };
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
    eventsAfter: async (sequence, limit, withItems) => (await opened).eventsAfter(sequence, limit, withItems),
    changesAfter: async (sequence, limit) => (await opened).changesAfter(sequence, limit),
    itemsById: async (ids) => (await opened).itemsById(ids),
    queueStats: async (now) => (await opened).queueStats(now),
    itemByLeaseTokenHash: async (tokenHash) => (await opened).itemByLeaseTokenHash(tokenHash),
    nextUnrecordedExpiry: async (now) => (await opened).nextUnrecordedExpiry(now),
    close: async () => (await opened.catch(() => null))?.close(),
  };
}
