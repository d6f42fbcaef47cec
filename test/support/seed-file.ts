// Fills a migrated SQLite file with pending items straight through better-sqlite3, before any server starts (the bench and the browser test at scale).
import Database from 'better-sqlite3';

export interface FileSeed {
  /** Pending items to add. */
  items: number;
  category: string;
  /** Who added the category (an ADMIN principal of the file). */
  admin: string;
  /** Who added the items (a PROPOSER principal of the file); never a reviewer, so no claim skips one. */
  proposer: string;
  /** Batch ids are `${prefix}-000000`, … */
  prefix?: string;
}

/** Items per batch, as addItems takes them (its per-call limit); one createdAt second each. */
export const SEED_BATCH = 500;

/**
 * Writes, in one transaction, what the service would have written for `addCategories([category])`
 * and then `addItems` calls of SEED_BATCH items: the Category row and its CATEGORY_ADDED event, then
 * per item the Item row (PENDING, version 1, no lease) and its ITEM_ADDED event (actor, itemVersion,
 * toStatus, details as src/services/items.ts writes them), so the history matches the items.
 * Clock times are taken as it goes (occurredAt = now, createdAt = now in whole seconds), so event ids
 * and times only ever go forward, after the events of whatever the file already holds.
 * Returns the seconds it took.
 */
export function seedPendingItems(file: string, seed: FileSeed): number {
  const started = performance.now();
  const prefix = seed.prefix ?? 'scale';
  const db = new Database(file);
  try {
    // Only for this fresh file, before anyone else opens it: a WAL transaction of 1M rows would write
    // every page twice (WAL, then checkpoint), and a crash here just means a new file.
    db.pragma('journal_mode = DELETE');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -262144');
    db.pragma('foreign_keys = ON');
    const category = db.prepare('INSERT INTO "Category" ("name", "createdAt", "createdBy") VALUES (?, ?, ?)');
    const item = db.prepare(
      `INSERT INTO "Item" ("batchId", "recordId", "proposedCategory", "reason", "createdAt", "addedBy") VALUES (?, ?, ?, ?, ?, ?)`,
    );
    const event = db.prepare(
      `INSERT INTO "Event" ("occurredAt", "type", "actor", "itemId", "itemVersion", "leaseExpiresAt", "categoryName", "fromStatus", "toStatus", "details", "leaseNumber", "proposalId")
       VALUES (?, ?, ?, ?, ?, NULL, ?, NULL, ?, ?, NULL, NULL)`,
    );
    const reason = 'Bench item: the proposal a reviewer would check.';
    db.transaction(() => {
      const at = Date.now();
      category.run(seed.category, at, seed.admin);
      event.run(at, 'CATEGORY_ADDED', seed.admin, null, null, seed.category, null, '{}');
      for (let first = 0; first < seed.items; first += SEED_BATCH) {
        const now = Date.now();
        const createdAt = Math.floor(now / 1000) * 1000;
        // Zero-padded, so (createdAt, batchId, recordId) order is insertion order and every index is appended to.
        const batchId = `${prefix}-${String(first / SEED_BATCH).padStart(6, '0')}`;
        for (let index = 0; index < Math.min(SEED_BATCH, seed.items - first); index++) {
          const recordId = `r${String(index).padStart(4, '0')}`;
          const id = item.run(batchId, recordId, seed.category, reason, createdAt, seed.proposer).lastInsertRowid;
          const details = `{"batchId":"${batchId}","recordId":"${recordId}","proposedCategory":${JSON.stringify(seed.category)}}`;
          event.run(now, 'ITEM_ADDED', seed.proposer, id, 1, null, 'PENDING', details);
        }
      }
    })();
    db.pragma('journal_mode = WAL');
  } finally {
    db.close();
  }
  return (performance.now() - started) / 1000;
}
