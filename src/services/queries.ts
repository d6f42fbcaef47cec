// Read-side use cases: lookups, filtered item lists and the history, all on the read-only connection.
import type { Category, Event, EventType, Item, ItemStatus } from '../db/client.js';
import { DomainError } from '../domain/errors.js';
import type { ClaimState } from '../domain/lease.js';
import { LIMITS, validateText } from '../domain/validation.js';
import type { ServiceDeps } from './context.js';

/** One page request in keyset form: rows after/before an id, in ascending or descending id order. */
export interface PageRequest {
  afterId?: number | null;
  beforeId?: number | null;
  limit: number;
  /** Read from the end backwards (Relay `last`). */
  inverted: boolean;
}

export interface ItemFilter {
  status?: ItemStatus | null;
  claimState?: ClaimState | null;
  batchId?: string | null;
  holder?: string | null;
  createdAfter?: Date | null;
  createdBefore?: Date | null;
}

export interface EventFilter {
  itemId?: number | null;
  proposalId?: number | null;
  types?: readonly EventType[] | null;
  afterSequence?: number | null;
}

export function idRange(page: PageRequest) {
  const id: { gt?: number; lt?: number } = {};
  if (page.afterId != null) id.gt = page.afterId;
  if (page.beforeId != null) id.lt = page.beforeId;
  return id;
}

function claimStateWhere(state: ClaimState, now: Date) {
  switch (state) {
    case 'NOT_APPLICABLE':
      return { status: { not: 'PENDING' as const } };
    case 'UNCLAIMED':
      return { status: 'PENDING' as const, leaseTokenHash: null };
    case 'ACTIVE':
      return { status: 'PENDING' as const, leaseTokenHash: { not: null }, leaseExpiresAt: { gt: now } };
    case 'EXPIRED':
      return { status: 'PENDING' as const, leaseTokenHash: { not: null }, leaseExpiresAt: { lte: now } };
  }
}

export async function findItemByKey(deps: ServiceDeps, batchId: string, recordId: string): Promise<Item> {
  const key = {
    batchId: validateText(batchId, 'batchId', LIMITS.batchId),
    recordId: validateText(recordId, 'recordId', LIMITS.recordId),
  };
  const item = await deps.db.read.item.findUnique({ where: { batchId_recordId: key } });
  if (!item) throw new DomainError('ITEM_NOT_FOUND', `No item (${key.batchId}, ${key.recordId}).`, 'recordId');
  return item;
}

export function findItemsByIds(deps: ServiceDeps, ids: readonly number[]): Promise<Item[]> {
  return deps.db.read.item.findMany({ where: { id: { in: [...ids] } } });
}

export async function listItems(deps: ServiceDeps, filter: ItemFilter, page: PageRequest): Promise<Item[]> {
  const now = deps.clock.now();
  const createdAt: { gte?: Date; lt?: Date } = {};
  if (filter.createdAfter) createdAt.gte = filter.createdAfter;
  if (filter.createdBefore) createdAt.lt = filter.createdBefore;
  return deps.db.read.item.findMany({
    where: {
      AND: [
        { id: idRange(page) },
        filter.status ? { status: filter.status } : {},
        filter.claimState ? claimStateWhere(filter.claimState, now) : {},
        filter.batchId ? { batchId: filter.batchId } : {},
        filter.holder ? { claimedBy: filter.holder, leaseExpiresAt: { gt: now } } : {},
        Object.keys(createdAt).length > 0 ? { createdAt } : {},
      ],
    },
    orderBy: { id: page.inverted ? 'desc' : 'asc' },
    take: page.limit,
  });
}

export function listEvents(deps: ServiceDeps, filter: EventFilter, page: PageRequest): Promise<Event[]> {
  const id = idRange(page);
  if (filter.afterSequence != null) id.gt = Math.max(id.gt ?? 0, filter.afterSequence);
  return deps.db.read.event.findMany({
    where: {
      id,
      ...(filter.itemId != null ? { itemId: filter.itemId } : {}),
      ...(filter.proposalId != null ? { proposalId: filter.proposalId } : {}),
      ...(filter.types?.length ? { type: { in: [...filter.types] } } : {}),
    },
    orderBy: { id: page.inverted ? 'desc' : 'asc' },
    take: page.limit,
  });
}

export function listCategories(deps: ServiceDeps, includeRetired: boolean): Promise<Category[]> {
  return deps.db.read.category.findMany({
    where: includeRetired ? {} : { retiredAt: null },
    orderBy: { name: 'asc' },
  });
}

export function findEventsByIds(deps: ServiceDeps, ids: readonly number[]): Promise<Event[]> {
  return deps.db.read.event.findMany({ where: { id: { in: [...ids] } } });
}
