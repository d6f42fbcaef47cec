// Adding review items to the queue, one at a time or many in one call.

import { setImmediate as nextTurn } from 'node:timers/promises';

import type { Item, TxSql } from '../db/client.js';
import { type ItemRow, toItem } from '../db/item-store.js';
import { type AddRefusal, type CallAnswer, itemFromJson } from '../db/write-calls.js';
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

/** Why `item` cannot be added, in the words of both forms (the database's answers only the code). */
function refusal(code: AddRefusal, item: NewItem, prefix: string): DomainError {
  switch (code) {
    case 'UNKNOWN_CATEGORY':
      return new DomainError(code, `"${item.proposedCategory}" is not an allowed category.`, `${prefix}proposedCategory`);
    case 'CATEGORY_RETIRED':
      return new DomainError(code, `Category "${item.proposedCategory}" is retired.`, `${prefix}proposedCategory`);
    case 'DUPLICATE_ITEM':
      return new DomainError(code, `Item (${item.batchId}, ${item.recordId}) already exists.`, `${prefix}recordId`);
  }
}

/** Rows per multi-row statement, largest first: a call of n items uses at most one statement of each size. */
const ROWS_PER_STATEMENT = [100, 10, 1] as const;

/** `items` cut into runs of ROWS_PER_STATEMENT sizes, in order. */
function runs<T>(items: readonly T[]): T[][] {
  const cut: T[][] = [];
  let at = 0;
  for (const size of ROWS_PER_STATEMENT) {
    while (items.length - at >= size) {
      cut.push(items.slice(at, at + size));
      at += size;
    }
  }
  return cut;
}

const placeholderLists = new Map<string, string>();

/** `(?, ?), (?, ?), …`: `rows` rows of `columns` (kept, so a statement's text is built once). */
function placeholders(rows: number, columns: number): string {
  const size = `${rows}x${columns}`;
  let list = placeholderLists.get(size);
  if (list === undefined) {
    list = Array.from({ length: rows }, () => `(${Array.from({ length: columns }, () => '?').join(', ')})`).join(', ');
    placeholderLists.set(size, list);
  }
  return list;
}

/** The queue already holds an item with this (batchId, recordId): SQLite's unique index refused the insert. */
function isDuplicateItem(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 'SQLITE_CONSTRAINT_UNIQUE' && typeof message === 'string' && message.includes('Item.batchId, Item.recordId');
}

/** What an insert answers: the new id, and the key that matches it to its input. */
type NewRow = { id: number; batchId: string; recordId: string };

/**
 * Item `id`, added from `item` by the statement that stored `stored`: the rows one insert makes differ only in
 * their ids and what their inputs give (the rest is the statement's: its time, its actor, the defaults).
 */
function withInput(stored: Item, id: number, item: NewItem): Item {
  const { batchId, recordId, proposedCategory, reason } = item;
  return { ...stored, id, batchId, recordId, proposedCategory, reason };
}

/** An item's (batchId, recordId) as one string; the length prefix keeps every pair apart. */
const key = (item: { batchId: string; recordId: string }) => `${item.batchId.length}:${item.batchId}${item.recordId}`;

/**
 * Adds `items` (already valid) set-based, in input order: each is checked (category known and not
 * retired, item not in the queue nor earlier in this call), and the good ones are inserted with their
 * ITEM_ADDED events by multi-row statements, so item and event ids follow the input as they would one
 * by one. Answers the item or the refusal for each. SQLite's path (its statements are SQLite's own:
 * json_object); PostgreSQL's `leasehold_add_items` is the same operation as one statement.
 */
async function addMany(sql: TxSql, actor: Actor, now: Date, items: readonly NewItem[]): Promise<(Item | AddRefusal)[]> {
  let sliceStarted = performance.now();
  // SQLite's statements are synchronous: a turn of the event loop every few ms keeps requests, streams
  // and probes served. The transaction stays open across the turns (its lock is held; other writes
  // queue for the next batch as they would anyway).
  const maybeYield = async () => {
    if (performance.now() - sliceStarted >= writeSlicing.budgetMs) {
      await nextTurn();
      sliceStarted = performance.now();
    }
  };
  const names = [...new Set(items.map((item) => item.proposedCategory))];
  const standings = new Map<string, boolean>();
  for (const run of runs(names)) {
    const rows = await sql.all<{ name: string; retiredAt: unknown }>(
      `SELECT "name", "retiredAt" FROM "Category" WHERE "name" IN (${run.map(() => '?').join(', ')})`,
      ...run,
    );
    for (const row of rows) standings.set(row.name, row.retiredAt !== null);
  }
  const seen = new Set<string>();
  const outcomes: (Item | AddRefusal | null)[] = items.map((item) => {
    const retired = standings.get(item.proposedCategory);
    if (retired === undefined) return 'UNKNOWN_CATEGORY';
    if (retired) return 'CATEGORY_RETIRED';
    const itemKey = key(item);
    if (seen.has(itemKey)) return 'DUPLICATE_ITEM';
    seen.add(itemKey);
    return null;
  });
  const accepted = items.flatMap((item, index) => (outcomes[index] === null ? [{ item, index }] : []));
  const createdAt = creationTime(now);
  // Only the new ids come back (with the keys that match them to the inputs): RETURNING * made a JavaScript
  // object of all eighteen columns for every row, about a third of the call's time. The rows one statement
  // inserts differ only in what their inputs give, so each item is one stored row (read once per call) with
  // its input's columns, as PostgreSQL's answer is made (answeredOutcomes).
  const insert = (run: readonly { item: NewItem }[]) =>
    sql.all<NewRow>(
      `INSERT INTO "Item" ("batchId", "recordId", "proposedCategory", "reason", "createdAt", "addedBy")
       VALUES ${placeholders(run.length, 6)} RETURNING "id", "batchId", "recordId"`,
      ...run.flatMap(({ item }) => [item.batchId, item.recordId, item.proposedCategory, item.reason, createdAt, actor.name]),
    );
  let stored: Item | null = null;
  const storedRow = async (id: number): Promise<Item> => {
    if (stored === null) {
      const [row] = await sql.all<ItemRow>('SELECT * FROM "Item" WHERE "id" = ?', id);
      if (!row) throw new Error(`Item ${id} was inserted but cannot be read.`);
      stored = toItem(row);
    }
    return stored;
  };
  for (const run of runs(accepted)) {
    await maybeYield();
    // Most runs hold no item the queue has: inserted as they are. A run that does fails whole (the failed
    // statement leaves nothing, not even a spent AUTOINCREMENT id, which ON CONFLICT DO NOTHING would spend,
    // so ids still follow the input as they would one by one); its items in the queue are then looked up,
    // refused, and the others inserted.
    let rows = await insert(run).catch((error: unknown) => {
      if (isDuplicateItem(error)) return null;
      throw error;
    });
    if (rows === null) {
      const existing = new Set<string>();
      const found = await sql.all<{ batchId: string; recordId: string }>(
        `SELECT "batchId", "recordId" FROM "Item" WHERE ("batchId", "recordId") IN (VALUES ${placeholders(run.length, 2)})`,
        ...run.flatMap(({ item }) => [item.batchId, item.recordId]),
      );
      for (const row of found) existing.add(key(row));
      rows = [];
      for (const part of runs(run.filter(({ item }) => !existing.has(key(item))))) rows.push(...(await insert(part)));
    }
    const [firstRow] = rows;
    if (firstRow === undefined) {
      for (const { index } of run) outcomes[index] = 'DUPLICATE_ITEM';
      continue;
    }
    const template = await storedRow(firstRow.id);
    const created = new Map(rows.map((row) => [key(row), row.id]));
    const inOrder = run.flatMap(({ item, index }) => {
      const id = created.get(key(item));
      const added = id === undefined ? undefined : withInput(template, id, item);
      outcomes[index] = added ?? 'DUPLICATE_ITEM';
      return added ? [added] : [];
    });
    const first = inOrder[0];
    const last = inOrder[inOrder.length - 1];
    if (!first || !last) continue;
    // The events are made from the rows just inserted: this statement added exactly the ids from the
    // first to the last (the write lock is held), and ORDER BY gives their events ids in the same order.
    await sql.run(
      `INSERT INTO "Event" ("occurredAt", "type", "actor", "itemId", "itemVersion", "toStatus", "details")
       SELECT ?, 'ITEM_ADDED', ?, "id", "version", 'PENDING',
              json_object('batchId', "batchId", 'recordId', "recordId", 'proposedCategory', "proposedCategory")
       FROM "Item" WHERE "id" BETWEEN ? AND ? ORDER BY "id"`,
      now,
      actor.name,
      first.id,
      last.id,
    );
  }
  return outcomes as (Item | AddRefusal)[];
}

/** An input after validation. */
type Checked = { ok: true; item: NewItem } | { ok: false; error: DomainError };

/** Outcomes for every input: the invalid ones as validated, the others from `added` (in their order). */
function merged(
  checked: readonly Checked[],
  added: readonly (Item | AddRefusal)[],
  prefixes: readonly string[],
  items: readonly NewItem[],
) {
  let next = 0;
  return checked.map((entry): AddItemOutcome => {
    if (!entry.ok) return entry;
    const index = next++;
    const outcome = added[index];
    if (outcome === undefined) throw new Error('No outcome for an item.');
    return typeof outcome === 'string'
      ? { ok: false, error: refusal(outcome, items[index] as NewItem, prefixes[index] as string) }
      : { ok: true, item: outcome };
  });
}

/**
 * A call's answer as addMany's outcomes: each new item is the stored row the call answered with, its input's
 * columns (all that differ between the rows one statement inserts) taken from the input.
 */
function answeredOutcomes(answer: CallAnswer, items: readonly NewItem[]): (Item | AddRefusal)[] {
  const ids = answer.addedIds ?? [];
  if (ids.length !== items.length) throw new Error('The write call answered a different number of items than it was given.');
  const stored = answer.addedRow ? itemFromJson(answer.addedRow) : null;
  return ids.map((id, index) => {
    if (typeof id === 'string') return id;
    if (stored === null) throw new Error('The write call added an item but answered no row.');
    return withInput(stored, id, items[index] as NewItem);
  });
}

export async function addItem(deps: ServiceDeps, actor: Actor, input: NewItem): Promise<Item> {
  const item = validateNewItem(input);
  const one = (added: readonly (Item | AddRefusal)[]): Item => {
    const outcome = added[0];
    if (outcome === undefined) throw new Error('No outcome for the item.');
    if (typeof outcome === 'string') throw refusal(outcome, item, '');
    return outcome;
  };
  return deps.db.perform({
    work: async (_tx, sql) => one(await addMany(sql, actor, deps.clock.now(), [item])),
    call: {
      fields: { op: 'addItems', actor: actor.name, items: [item] },
      clock: deps.clock,
      answer: (answer) => one(answeredOutcomes(answer, [item])),
    },
  });
}

/** The longest a bulk write works on before it gives the event loop a turn. */
export const WRITE_SLICE_MS = 4;

/**
 * The slice bulk writes use: WRITE_SLICE_MS. A test sets 0 to see a turn before every statement, whatever
 * the machine's speed (how long the loop is held on a real file is the bench's to measure).
 */
export const writeSlicing = { budgetMs: WRITE_SLICE_MS };

/**
 * Adds many items in one transaction with one outcome per input, in input order.
 * A bad item is reported and skipped; the good ones are added.
 */
export async function addItems(deps: ServiceDeps, actor: Actor, inputs: readonly NewItem[]): Promise<AddItemOutcome[]> {
  if (inputs.length === 0 || inputs.length > LIMITS.maxItemsPerCall) {
    throw new DomainError('TOO_MANY_ITEMS', `Pass 1 to ${LIMITS.maxItemsPerCall} items per call.`, 'items');
  }
  const checked = inputs.map((input, index): Checked => {
    try {
      return { ok: true, item: validateNewItem(input, `items[${index}].`) };
    } catch (error) {
      if (error instanceof DomainError) return { ok: false, error };
      throw error;
    }
  });
  const valid = checked.flatMap((entry, index) => (entry.ok ? [{ item: entry.item, prefix: `items[${index}].` }] : []));
  if (valid.length === 0) return merged(checked, [], [], []);
  const items = valid.map((entry) => entry.item);
  const prefixes = valid.map((entry) => entry.prefix);
  return deps.db.perform({
    work: async (_tx, sql) => merged(checked, await addMany(sql, actor, deps.clock.now(), items), prefixes, items),
    call: {
      fields: { op: 'addItems', actor: actor.name, items },
      clock: deps.clock,
      answer: (answer) => merged(checked, answeredOutcomes(answer, items), prefixes, items),
    },
  });
}
