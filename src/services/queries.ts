// Read-side use cases: lookups, filtered item lists and the history, all on the read-only connection.
import type { Category, Database, Event, Item } from '../db/client.js';
import { type ItemRow, toItem } from '../db/item-store.js';
import { type EventFilter, eventPageRead, type ItemFilter, itemPageRead, type PageWindow, runPageRead } from '../db/page-reads.js';
import { FEED_HORIZON } from '../db/sharded.js';
import { DomainError } from '../domain/errors.js';
import { LIMITS, validateText } from '../domain/validation.js';
import type { ServiceDeps } from './context.js';

/** One page request in keyset form: rows after/before an id, in ascending or descending id order. */
export type PageRequest = PageWindow;

export type { EventFilter, ItemFilter } from '../db/page-reads.js';

export async function findItemByKey(deps: ServiceDeps, batchId: string, recordId: string): Promise<Item> {
  const key = {
    batchId: validateText(batchId, 'batchId', LIMITS.batchId),
    recordId: validateText(recordId, 'recordId', LIMITS.recordId),
  };
  // Plain SQL on the reader connection (the unique index on batchId, recordId), not Prisma's model API:
  // the command line's `show` opens the database without Prisma (db/lite.ts).
  const [row] = await deps.db.query<ItemRow>('SELECT * FROM "Item" WHERE "batchId" = ? AND "recordId" = ?', key.batchId, key.recordId);
  const item = row ? toItem(row) : null;
  if (!item) throw new DomainError('ITEM_NOT_FOUND', `No item (${key.batchId}, ${key.recordId}).`, 'recordId');
  return item;
}

export function findItemsByIds(deps: ServiceDeps, ids: readonly number[]): Promise<Item[]> {
  return deps.db.read.item.findMany({ where: { id: { in: [...ids] } } });
}

/** One page of items, read along an index in page order (db/page-reads.ts). */
export function listItems(deps: ServiceDeps, filter: ItemFilter, page: PageRequest): Promise<Item[]> {
  return runPageRead<Item>(
    (sql, ...params) => deps.db.query(sql, ...params),
    itemPageRead(filter, page, deps.clock.now(), deps.db.dialect),
  );
}

/** One page of the history, read along an index in page order (db/page-reads.ts). */
export async function listEvents(deps: ServiceDeps, filter: EventFilter, page: PageRequest): Promise<Event[]> {
  const settledUpTo = await settledEventId(deps.db);
  return runPageRead<Event>((sql, ...params) => deps.db.query(sql, ...params), eventPageRead(filter, page, deps.db.dialect, settledUpTo));
}

/**
 * PG_WRITE_MODE=sharded: the feed's horizon, read before the page (its own statement, so the page's snapshot
 * sees every commit below it); null in the other modes, where every committed id is settled.
 */
export async function settledEventId(db: Database, run: (sql: string) => Promise<{ id: number }[]> = (sql) => db.query(sql)) {
  if (db.writeMode !== 'sharded') return null;
  const [row] = await run(FEED_HORIZON);
  return Number(row?.id ?? 0);
}

export function listCategories(deps: ServiceDeps, includeRetired: boolean): Promise<Category[]> {
  return deps.db.read.category.findMany({
    where: includeRetired ? {} : { retiredAt: null },
    orderBy: { name: 'asc' },
  });
}

export function findCategoriesByNames(deps: ServiceDeps, names: readonly string[]): Promise<Category[]> {
  return deps.db.read.category.findMany({ where: { name: { in: [...names] } } });
}

export function findEventsByIds(deps: ServiceDeps, ids: readonly number[]): Promise<Event[]> {
  return deps.db.read.event.findMany({ where: { id: { in: [...ids] } } });
}
