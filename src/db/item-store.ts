// SQL for the item paths, run as direct statements inside db.write's transaction (which holds
// SQLite's write lock from its first statement, so a row read here cannot change before the
// write that follows). Every write is conditional on the state it was decided from (the fence)
// and bumps `version`. Times are epoch milliseconds, the storage format of every DATETIME column.
import type { Item, ItemStatus } from './client.js';
import type { TxSql } from './tx-sql.js';

/** An Item row as SQLite returns it: DATETIME columns hold epoch milliseconds. */
export interface ItemRow extends Omit<Item, 'decidedAt' | 'createdAt' | 'claimedAt' | 'leaseExpiresAt' | 'leaseExpiryRecorded'> {
  leaseExpiryRecorded: number;
  decidedAt: number | null;
  createdAt: number;
  claimedAt: number | null;
  leaseExpiresAt: number | null;
}

const date = (value: number | null): Date | null => (value === null ? null : new Date(value));

export function toItem(row: ItemRow): Item {
  return {
    ...row,
    decidedAt: date(row.decidedAt),
    createdAt: new Date(row.createdAt),
    claimedAt: date(row.claimedAt),
    leaseExpiresAt: date(row.leaseExpiresAt),
    leaseExpiryRecorded: row.leaseExpiryRecorded !== 0,
  };
}

const NEXT_CLAIMABLE = (filters: string) => `
  SELECT * FROM "Item"
  WHERE "status" = 'PENDING' AND ("leaseTokenHash" IS NULL OR "leaseExpiresAt" <= ?) ${filters}
  ORDER BY "createdAt", "batchId", "recordId"
  LIMIT 1`;
/** Exported for the bench, which shows the EXPLAIN QUERY PLAN of the very statement a claim runs. */
export const NEXT_CLAIMABLE_QUERIES = {
  any: NEXT_CLAIMABLE(''),
  inBatch: NEXT_CLAIMABLE('AND "batchId" = ?'),
  notAddedBy: NEXT_CLAIMABLE('AND "addedBy" <> ?'),
  inBatchNotAddedBy: NEXT_CLAIMABLE('AND "batchId" = ? AND "addedBy" <> ?'),
};

/**
 * The first claimable item — pending, and never leased or its lease lapsed — in seed A's
 * order (createdAt, batchId, recordId), optionally within one batch and skipping the items
 * `notAddedBy` proposed. Null when none is claimable.
 */
export function findNextClaimable(sql: TxSql, now: Date, filter: { batchId: string | null; notAddedBy: string | null }): Item | null {
  const { batchId, notAddedBy } = filter;
  const at = now.getTime();
  const rows =
    batchId === null
      ? notAddedBy === null
        ? sql.all<ItemRow>(NEXT_CLAIMABLE_QUERIES.any, at)
        : sql.all<ItemRow>(NEXT_CLAIMABLE_QUERIES.notAddedBy, at, notAddedBy)
      : notAddedBy === null
        ? sql.all<ItemRow>(NEXT_CLAIMABLE_QUERIES.inBatch, at, batchId)
        : sql.all<ItemRow>(NEXT_CLAIMABLE_QUERIES.inBatchNotAddedBy, at, batchId, notAddedBy);
  return rows[0] ? toItem(rows[0]) : null;
}

/** The item whose current lease token has this hash, whatever its state. */
export function findByLeaseTokenHash(sql: TxSql, tokenHash: string): Item | null {
  const rows = sql.all<ItemRow>('SELECT * FROM "Item" WHERE "leaseTokenHash" = ?', tokenHash);
  return rows[0] ? toItem(rows[0]) : null;
}

/** Grants a new lease (the next lease number), only if the item is still claimable at `now` (the fence). */
export function grantLease(sql: TxSql, itemId: number, lease: { tokenHash: string; holder: string; now: Date; expiresAt: Date }): boolean {
  return (
    sql.run(
      `UPDATE "Item" SET "leaseTokenHash" = ?, "claimedBy" = ?, "claimedAt" = ?, "leaseExpiresAt" = ?,
         "leaseNumber" = "leaseNumber" + 1, "leaseExpiryRecorded" = 0, "version" = "version" + 1
       WHERE "id" = ? AND "status" = 'PENDING' AND ("leaseTokenHash" IS NULL OR "leaseExpiresAt" <= ?)`,
      lease.tokenHash,
      lease.holder,
      lease.now.getTime(),
      lease.expiresAt.getTime(),
      itemId,
      lease.now.getTime(),
    ) === 1
  );
}

/** The fence for a holder's change: still pending, still this token, lease unexpired at `now`. */
const HELD = `"id" = ? AND "status" = 'PENDING' AND "leaseTokenHash" = ? AND "leaseExpiresAt" > ?`;

export function extendLease(sql: TxSql, held: Item, now: Date, expiresAt: Date): boolean {
  return (
    sql.run(
      `UPDATE "Item" SET "leaseExpiresAt" = ?, "version" = "version" + 1 WHERE ${HELD}`,
      expiresAt.getTime(),
      held.id,
      held.leaseTokenHash,
      now.getTime(),
    ) === 1
  );
}

export function clearLease(sql: TxSql, held: Item, now: Date): boolean {
  return (
    sql.run(
      `UPDATE "Item" SET "leaseTokenHash" = NULL, "claimedBy" = NULL, "claimedAt" = NULL, "leaseExpiresAt" = NULL,
         "version" = "version" + 1
       WHERE ${HELD}`,
      held.id,
      held.leaseTokenHash,
      now.getTime(),
    ) === 1
  );
}

export function recordDecision(
  sql: TxSql,
  held: Item,
  now: Date,
  decision: { status: ItemStatus; finalCategory: string | null; reviewedBy: string },
): boolean {
  return (
    sql.run(
      `UPDATE "Item" SET "status" = ?, "finalCategory" = ?, "reviewedBy" = ?, "decidedAt" = ?,
         "leaseTokenHash" = NULL, "claimedBy" = NULL, "claimedAt" = NULL, "leaseExpiresAt" = NULL,
         "version" = "version" + 1
       WHERE ${HELD}`,
      decision.status,
      decision.finalCategory,
      decision.reviewedBy,
      now.getTime(),
      held.id,
      held.leaseTokenHash,
      now.getTime(),
    ) === 1
  );
}

/** Whether a category exists and is retired, read inside the caller's transaction. */
export function categoryStanding(sql: TxSql, name: string): { exists: true; retired: boolean } | null {
  const row = sql.all<{ retiredAt: number | null }>('SELECT "retiredAt" FROM "Category" WHERE "name" = ?', name)[0];
  return row ? { exists: true, retired: row.retiredAt !== null } : null;
}

export function itemExists(sql: TxSql, batchId: string, recordId: string): boolean {
  return sql.all('SELECT 1 FROM "Item" WHERE "batchId" = ? AND "recordId" = ?', batchId, recordId).length > 0;
}

export function insertItem(
  sql: TxSql,
  item: { batchId: string; recordId: string; proposedCategory: string; reason: string; createdAt: Date; addedBy: string },
): Item {
  const rows = sql.all<ItemRow>(
    `INSERT INTO "Item" ("batchId", "recordId", "proposedCategory", "reason", "createdAt", "addedBy")
     VALUES (?, ?, ?, ?, ?, ?) RETURNING *`,
    item.batchId,
    item.recordId,
    item.proposedCategory,
    item.reason,
    item.createdAt.getTime(),
    item.addedBy,
  );
  const row = rows[0];
  if (!row) throw new Error('INSERT … RETURNING returned no row.');
  return toItem(row);
}

/** Marks the current lease's lapse as recorded, once: only one writer, in any process, can win. */
export function markLapseRecorded(sql: TxSql, item: Item, now: Date): boolean {
  return (
    sql.run(
      `UPDATE "Item" SET "leaseExpiryRecorded" = 1, "version" = "version" + 1
       WHERE "id" = ? AND "leaseNumber" = ? AND "leaseExpiryRecorded" = 0 AND "status" = 'PENDING'
         AND "leaseTokenHash" IS NOT NULL AND "leaseExpiresAt" <= ?`,
      item.id,
      item.leaseNumber,
      now.getTime(),
    ) === 1
  );
}

/** Leases that have lapsed by `now` and whose lapse is not recorded yet, soonest first. */
export function lapsedUnrecorded(sql: TxSql, now: Date, limit: number): Item[] {
  return sql
    .all<ItemRow>(
      `SELECT * FROM "Item"
       WHERE "leaseExpiryRecorded" = 0 AND "leaseExpiresAt" IS NOT NULL AND "leaseExpiresAt" <= ?
       ORDER BY "leaseExpiresAt" LIMIT ?`,
      now.getTime(),
      limit,
    )
    .map(toItem);
}
