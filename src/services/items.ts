// Adding review items to the queue, one at a time or many in one call.

import type { Item, WriteTx } from '../db/client.js';
import { appendEvent } from '../db/event-store.js';
import { DomainError } from '../domain/errors.js';
import { creationTime } from '../domain/lease.js';
import { LIMITS, validateText } from '../domain/validation.js';
import type { Actor, ServiceDeps } from './context.js';

export interface NewItem {
  batchId: string;
  recordId: string;
  proposedCategory: string;
  reason: string;
}

export type AddItemOutcome = { ok: true; item: Item } | { ok: false; error: DomainError };

function validateNewItem(input: NewItem, prefix = ''): NewItem {
  return {
    batchId: validateText(input.batchId, `${prefix}batchId`, LIMITS.batchId),
    recordId: validateText(input.recordId, `${prefix}recordId`, LIMITS.recordId),
    proposedCategory: validateText(input.proposedCategory, `${prefix}proposedCategory`, LIMITS.category),
    reason: validateText(input.reason, `${prefix}reason`, LIMITS.reason),
  };
}

async function insertItem(tx: WriteTx, actor: Actor, now: Date, item: NewItem, prefix: string): Promise<Item> {
  const category = await tx.category.findUnique({ where: { name: item.proposedCategory } });
  if (!category) {
    throw new DomainError('UNKNOWN_CATEGORY', `"${item.proposedCategory}" is not an allowed category.`, `${prefix}proposedCategory`);
  }
  if (category.retiredAt) {
    throw new DomainError('CATEGORY_RETIRED', `Category "${item.proposedCategory}" is retired.`, `${prefix}proposedCategory`);
  }
  const existing = await tx.item.findUnique({
    where: { batchId_recordId: { batchId: item.batchId, recordId: item.recordId } },
    select: { id: true },
  });
  if (existing) {
    throw new DomainError('DUPLICATE_ITEM', `Item (${item.batchId}, ${item.recordId}) already exists.`, `${prefix}recordId`);
  }
  const created = await tx.item.create({ data: { ...item, createdAt: creationTime(now), addedBy: actor.name } });
  await appendEvent(tx, {
    type: 'ITEM_ADDED',
    actor: actor.name,
    at: now,
    item: created,
    toStatus: 'PENDING',
    details: { batchId: item.batchId, recordId: item.recordId, proposedCategory: item.proposedCategory },
  });
  return created;
}

export async function addItem(deps: ServiceDeps, actor: Actor, input: NewItem): Promise<Item> {
  const item = validateNewItem(input);
  return deps.db.write((tx) => insertItem(tx, actor, deps.clock.now(), item, ''));
}

/**
 * Adds many items in one transaction with one outcome per input, in input order.
 * A bad item is reported and skipped; the good ones are added.
 */
export async function addItems(deps: ServiceDeps, actor: Actor, inputs: readonly NewItem[]): Promise<AddItemOutcome[]> {
  if (inputs.length === 0 || inputs.length > LIMITS.maxItemsPerCall) {
    throw new DomainError('TOO_MANY_ITEMS', `Pass 1 to ${LIMITS.maxItemsPerCall} items per call.`, 'items');
  }
  const checked = inputs.map((input, index): { ok: true; item: NewItem } | { ok: false; error: DomainError } => {
    try {
      return { ok: true, item: validateNewItem(input, `items[${index}].`) };
    } catch (error) {
      if (error instanceof DomainError) return { ok: false, error };
      throw error;
    }
  });
  return deps.db.write(async (tx) => {
    const now = deps.clock.now();
    const outcomes: AddItemOutcome[] = [];
    for (const [index, entry] of checked.entries()) {
      if (!entry.ok) {
        outcomes.push(entry);
        continue;
      }
      try {
        outcomes.push({ ok: true, item: await insertItem(tx, actor, now, entry.item, `items[${index}].`) });
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        outcomes.push({ ok: false, error });
      }
    }
    return outcomes;
  });
}
