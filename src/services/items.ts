// Adding review items to the queue, one at a time or many in one call.

import { setImmediate as nextTurn } from 'node:timers/promises';

import type { Item, TxSql } from '../db/client.js';
import { appendEvent } from '../db/event-store.js';
import { categoryStanding, insertItem, itemExists } from '../db/item-store.js';
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

async function addOne(sql: TxSql, actor: Actor, now: Date, item: NewItem, prefix: string): Promise<Item> {
  const standing = await categoryStanding(sql, item.proposedCategory);
  if (!standing) {
    throw new DomainError('UNKNOWN_CATEGORY', `"${item.proposedCategory}" is not an allowed category.`, `${prefix}proposedCategory`);
  }
  if (standing.retired) {
    throw new DomainError('CATEGORY_RETIRED', `Category "${item.proposedCategory}" is retired.`, `${prefix}proposedCategory`);
  }
  if (await itemExists(sql, item.batchId, item.recordId)) {
    throw new DomainError('DUPLICATE_ITEM', `Item (${item.batchId}, ${item.recordId}) already exists.`, `${prefix}recordId`);
  }
  const created = await insertItem(sql, { ...item, createdAt: creationTime(now), addedBy: actor.name });
  await appendEvent(sql, {
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
  return deps.db.write(async (_tx, sql) => await addOne(sql, actor, deps.clock.now(), item, ''));
}

/** The longest a bulk write works on before it gives the event loop a turn. */
export const WRITE_SLICE_MS = 4;

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
  return deps.db.write(async (_tx, sql) => {
    const now = deps.clock.now();
    const outcomes: AddItemOutcome[] = [];
    let sliceStarted = performance.now();
    for (const [index, entry] of checked.entries()) {
      // SQLite's statements are synchronous: 500 items took 55–200 ms in one go, all that time with no
      // request, stream or probe served. The transaction stays open across the turns (its lock is held;
      // other writes queue for the next batch as they would anyway).
      if (performance.now() - sliceStarted >= WRITE_SLICE_MS) {
        await nextTurn();
        sliceStarted = performance.now();
      }
      if (!entry.ok) {
        outcomes.push(entry);
        continue;
      }
      try {
        outcomes.push({ ok: true, item: await addOne(sql, actor, now, entry.item, `items[${index}].`) });
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        outcomes.push({ ok: false, error });
      }
    }
    return outcomes;
  });
}
