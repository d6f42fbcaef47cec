// The event tail on PostgreSQL: one connection of its own that LISTENs on `leasehold_events`. A
// statement-level trigger on "Event" notifies that channel, and PostgreSQL delivers notifications
// only when the inserting transaction commits, so a notification means "there are new rows to
// read", never rows that may still roll back. The rows themselves are always read from the table,
// after the last sequence delivered: a missed or merged notification costs latency, never an event.
import pg from 'pg';
import { longestLeaseFrom } from '../domain/lease.js';
import type { Event, Item } from '../generated/prisma/client.js';
import {
  type EventPage,
  type EventRow,
  type EventTail,
  eventFromRow,
  nextLapse,
  QUEUE_STATS_SQL,
  type QueueStatsCounts,
  type QueueStatsRow,
  queueStatsFromCounts,
  UNRECORDED_EXPIRIES_SQL,
  withoutItemsAdded,
} from './event-tail.js';
import { date, type ItemRow, toItem } from './item-store.js';
import { DEFAULT_CONNECT_TIMEOUT_MS } from './migrate-postgres.js';
import { postgresTypes, postgresValue } from './postgres-types.js';
import { FEED_HORIZON } from './sharded.js';
import { numberPlaceholders } from './tx-sql.js';

export const EVENTS_CHANNEL = 'leasehold_events';

const types = postgresTypes;

const QUERIES = {
  after: 'SELECT * FROM "Event" WHERE "id" > $1 ORDER BY "id" LIMIT $2',
  lastId: 'SELECT coalesce(max("id"), 0)::int AS "id" FROM "Event"',
  // PG_WRITE_MODE=sharded: event ids commit out of order, so the feed reads only up to the horizon below
  // which every id is settled, read first in a statement of its own (see leasehold_feed_horizon).
  horizon: FEED_HORIZON,
  afterBelow: 'SELECT * FROM "Event" WHERE "id" > $1 AND "id" <= $3 ORDER BY "id" LIMIT $2',
  lastIdBelow: 'SELECT coalesce(max("id"), 0)::int AS "id" FROM "Event" WHERE "id" <= $1',
  items: 'SELECT * FROM "Item" WHERE "id" = ANY($1::int[])',
  nextExpiry: UNRECORDED_EXPIRIES_SQL,
  stats: numberPlaceholders(QUEUE_STATS_SQL),
  byTokenHash: 'SELECT * FROM "Item" WHERE "leaseTokenHash" = $1',
  now: 'SELECT clock_timestamp() AS "now"',
} as const;

/**
 * Longest wait between attempts to reconnect a lost LISTEN connection: after a restart the feed resumes
 * at most this long after the server accepts connections again (an attempt on a server that is down
 * fails at once, so this costs nothing).
 */
const MAX_RECONNECT_DELAY_MS = 500;

export class PostgresEventTail implements EventTail {
  private client: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;
  /** Set by a notification (or a reconnect, which may have missed some); cleared by `changed()`. */
  private dirty = false;
  /** The statement before the next one (see `rows`). */
  private previous: Promise<unknown> = Promise.resolve();
  private closed = false;
  private reconnectDelayMs = 100;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private readonly changeListeners: (() => void)[] = [];
  /** The items of the events the last `eventsAfter` returned, read with them (see `eventsAfter`). */
  private prefetched: { ids: Set<number>; items: Map<number, Item> } | null = null;

  private constructor(
    private readonly url: string,
    private readonly connectTimeoutMs: number,
    private readonly sharded: boolean,
  ) {}

  static async open(
    url: string,
    connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS,
    { sharded = false }: { sharded?: boolean } = {},
  ): Promise<PostgresEventTail> {
    const tail = new PostgresEventTail(url, connectTimeoutMs, sharded);
    await tail.connection();
    tail.dirty = false;
    return tail;
  }

  onChange(listener: () => void): void {
    this.changeListeners.push(listener);
  }

  changed(): boolean {
    const dirty = this.dirty;
    this.dirty = false;
    return dirty;
  }

  /** The live connection, opening (and LISTENing on) a new one if the last was lost. */
  private connection(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    if (this.closed) return Promise.reject(new Error('The event tail is closed.'));
    this.connecting ??= (async () => {
      const client = new pg.Client({
        connectionString: this.url,
        types,
        application_name: 'leasehold-tail',
        connectionTimeoutMillis: this.connectTimeoutMs,
      });
      client.on('notification', () => {
        this.dirty = true;
        for (const listener of this.changeListeners) listener();
      });
      client.on('error', () => this.lost(client));
      client.on('end', () => this.lost(client));
      try {
        await client.connect();
        await client.query(`LISTEN ${EVENTS_CHANNEL}`);
      } catch (error) {
        client.removeAllListeners('end');
        await client.end().catch(() => {});
        throw error;
      } finally {
        this.connecting = null;
      }
      this.client = client;
      this.reconnectDelayMs = 100;
      // Whatever committed while there was no LISTEN connection was not notified: look again.
      this.dirty = true;
      return client;
    })();
    return this.connecting;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    client.removeAllListeners('end');
    client.end().catch(() => {});
    if (this.closed || this.reconnectTimer) return;
    // Reconnect in the background, so notifications resume even when nobody queries meanwhile.
    const retry = () => {
      this.reconnectTimer = null;
      if (this.closed) return;
      this.connection().catch(() => {
        this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, MAX_RECONNECT_DELAY_MS);
        this.reconnectTimer = setTimeout(retry, this.reconnectDelayMs);
        this.reconnectTimer.unref();
      });
    };
    this.reconnectTimer = setTimeout(retry, this.reconnectDelayMs);
    this.reconnectTimer.unref();
  }

  /**
   * One statement at a time on the connection: the feed, the statistics and the announcers read
   * concurrently, and pg (deprecated in 8, removed in 9) would otherwise queue them inside the client.
   */
  private async rows<Row>(name: keyof typeof QUERIES, values: unknown[] = []): Promise<Row[]> {
    const turn = this.previous.then(async () => {
      const client = await this.connection();
      const result = await client.query({ name, text: QUERIES[name], values: values.map(postgresValue) });
      return result.rows as Row[];
    });
    this.previous = turn.catch(() => undefined);
    return turn;
  }

  async latestSequence(): Promise<number> {
    const [row] = this.sharded
      ? await this.rows<{ id: number }>('lastIdBelow', [await this.horizon()])
      : await this.rows<{ id: number }>('lastId');
    return row?.id ?? 0;
  }

  /** PG_WRITE_MODE=sharded: the highest event id no transaction still running can take or commit. */
  private async horizon(): Promise<number> {
    const [row] = await this.rows<{ id: number }>('horizon');
    return row?.id ?? 0;
  }

  /**
   * Reads the events' items too, before returning, and keeps them for the `itemsById` that follows
   * (the feed and the replays read a page's items right after its events). So a connection lost
   * between the two (the server restarting) fails this read, after which the feed reads the same
   * page again, rather than the items' read, by when the feed has already moved past the page: its
   * events would never be delivered.
   */
  async eventsAfter(sequence: number, limit: number, withItems = true): Promise<Event[]> {
    const rows = this.sharded
      ? await this.rows<EventRow>('afterBelow', [sequence, limit, await this.horizon()])
      : await this.rows<EventRow>('after', [sequence, limit]);
    const events = rows.map(eventFromRow);
    if (!withItems) return events;
    const ids = new Set(events.flatMap((event) => (event.itemId === null ? [] : [event.itemId])));
    this.prefetched = { ids, items: await this.readItems([...ids]) };
    return events;
  }

  /** Reads the whole page (PostgreSQL's intake is bounded by its writes, not by this read) and leaves ITEM_ADDED out. */
  async changesAfter(sequence: number, limit: number): Promise<EventPage> {
    return withoutItemsAdded(await this.eventsAfter(sequence, limit, false), sequence);
  }

  /** The items with these ids, from the last `eventsAfter` when it read them all (once), else read now. */
  async itemsById(ids: readonly number[]): Promise<Map<number, Item>> {
    const prefetched = this.prefetched;
    if (prefetched && ids.every((id) => prefetched.ids.has(id))) {
      this.prefetched = null;
      return new Map(ids.flatMap((id) => (prefetched.items.has(id) ? [[id, prefetched.items.get(id) as Item] as const] : [])));
    }
    return this.readItems(ids);
  }

  private async readItems(ids: readonly number[]): Promise<Map<number, Item>> {
    const rows = ids.length === 0 ? [] : await this.rows<ItemRow>('items', [ids]);
    return new Map(rows.map((row) => [row.id, toItem(row)]));
  }

  async queueStats(now: Date): Promise<QueueStatsRow> {
    const [row] = await this.rows<QueueStatsCounts & { oldestPendingCreatedAt: Date | null }>('stats', [now, longestLeaseFrom(now)]);
    if (!row) throw new Error('The queue statistics query returned no row.');
    return queueStatsFromCounts(row, date(row.oldestPendingCreatedAt));
  }

  /** The database server's time (clock_timestamp()): what `leasehold stats` counts leases by on PostgreSQL. */
  async databaseNow(): Promise<Date> {
    const [row] = await this.rows<{ now: Date }>('now');
    if (!row) throw new Error('clock_timestamp() returned no row.');
    return new Date(row.now);
  }

  async itemByLeaseTokenHash(tokenHash: string): Promise<Item | null> {
    const [row] = await this.rows<ItemRow>('byTokenHash', [tokenHash]);
    return row ? toItem(row) : null;
  }

  async nextUnrecordedExpiry(now: Date): Promise<Date | null> {
    const [row] = await this.rows<{ earliest: Date | null; latest: Date | null }>('nextExpiry');
    return nextLapse(date(row?.earliest ?? null), date(row?.latest ?? null), now);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const client = this.client ?? (await this.connecting?.catch(() => null)) ?? null;
    this.client = null;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
    }
  }
}
