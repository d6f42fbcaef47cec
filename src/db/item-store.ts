// SQL for the item paths, run as direct statements inside db.write's transaction (which holds
// the database's write lock from its first statement — SQLite's, or on PostgreSQL an advisory lock
// every writer takes — so a row read here cannot change before the write that follows). Every
// write is conditional on the state it was decided from (the fence) and bumps `version`.
import type { Item, ItemStatus } from '../generated/prisma/client.js';
import type { TxSql } from './tx-sql.js';

/**
 * An Item row as a backend returns it: SQLite gives epoch milliseconds and 0/1, PostgreSQL (through
 * Prisma) gives Dates and booleans.
 */
export interface ItemRow extends Omit<Item, 'decidedAt' | 'createdAt' | 'claimedAt' | 'leaseExpiresAt' | 'leaseExpiryRecorded'> {
  leaseExpiryRecorded: number | boolean;
  decidedAt: number | Date | null;
  createdAt: number | Date;
  claimedAt: number | Date | null;
  leaseExpiresAt: number | Date | null;
}

export const date = (value: number | Date | null): Date | null => (value === null ? null : new Date(value));

export function toItem(row: ItemRow): Item {
  return {
    ...row,
    decidedAt: date(row.decidedAt),
    createdAt: new Date(row.createdAt),
    claimedAt: date(row.claimedAt),
    leaseExpiresAt: date(row.leaseExpiresAt),
    leaseExpiryRecorded: Boolean(row.leaseExpiryRecorded),
  };
}

const NEXT_CLAIMABLE = (filters: string) => `
  SELECT * FROM "Item"
  WHERE "status" = 'PENDING' AND ("leaseTokenHash" IS NULL OR "leaseExpiresAt" <= ? OR "leaseExpiryRecorded") ${filters}
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
export async function findNextClaimable(
  sql: TxSql,
  now: Date,
  filter: { batchId: string | null; notAddedBy: string | null },
): Promise<Item | null> {
  const { batchId, notAddedBy } = filter;
  const rows =
    batchId === null
      ? notAddedBy === null
        ? await sql.all<ItemRow>(NEXT_CLAIMABLE_QUERIES.any, now)
        : await sql.all<ItemRow>(NEXT_CLAIMABLE_QUERIES.notAddedBy, now, notAddedBy)
      : notAddedBy === null
        ? await sql.all<ItemRow>(NEXT_CLAIMABLE_QUERIES.inBatch, now, batchId)
        : await sql.all<ItemRow>(NEXT_CLAIMABLE_QUERIES.inBatchNotAddedBy, now, batchId, notAddedBy);
  return rows[0] ? toItem(rows[0]) : null;
}

/** The item whose current lease token has this hash, whatever its state. */
export async function findByLeaseTokenHash(sql: TxSql, tokenHash: string): Promise<Item | null> {
  const rows = await sql.all<ItemRow>('SELECT * FROM "Item" WHERE "leaseTokenHash" = ?', tokenHash);
  return rows[0] ? toItem(rows[0]) : null;
}

/** Grants a new lease (the next lease number), only if the item is still claimable at `now` (the fence). */
export async function grantLease(
  sql: TxSql,
  itemId: number,
  lease: { tokenHash: string; holder: string; now: Date; expiresAt: Date },
): Promise<boolean> {
  return (
    (await sql.run(
      `UPDATE "Item" SET "leaseTokenHash" = ?, "claimedBy" = ?, "claimedAt" = ?, "leaseExpiresAt" = ?,
         "leaseNumber" = "leaseNumber" + 1, "leaseExpiryRecorded" = FALSE, "version" = "version" + 1
       WHERE "id" = ? AND "status" = 'PENDING' AND ("leaseTokenHash" IS NULL OR "leaseExpiresAt" <= ? OR "leaseExpiryRecorded")`,
      lease.tokenHash,
      lease.holder,
      lease.now,
      lease.expiresAt,
      itemId,
      lease.now,
    )) === 1
  );
}

/** The fence for a holder's change: still pending, still this token, lease unexpired at `now` and its lapse not recorded. */
const HELD = `"id" = ? AND "status" = 'PENDING' AND "leaseTokenHash" = ? AND "leaseExpiresAt" > ? AND NOT "leaseExpiryRecorded"`;

export async function extendLease(sql: TxSql, held: Item, now: Date, expiresAt: Date): Promise<boolean> {
  return (
    (await sql.run(
      `UPDATE "Item" SET "leaseExpiresAt" = ?, "version" = "version" + 1 WHERE ${HELD}`,
      expiresAt,
      held.id,
      held.leaseTokenHash,
      now,
    )) === 1
  );
}

export async function clearLease(sql: TxSql, held: Item, now: Date): Promise<boolean> {
  return (
    (await sql.run(
      `UPDATE "Item" SET "leaseTokenHash" = NULL, "claimedBy" = NULL, "claimedAt" = NULL, "leaseExpiresAt" = NULL,
         "version" = "version" + 1
       WHERE ${HELD}`,
      held.id,
      held.leaseTokenHash,
      now,
    )) === 1
  );
}

export async function recordDecision(
  sql: TxSql,
  held: Item,
  now: Date,
  decision: { status: ItemStatus; finalCategory: string | null; reviewedBy: string },
): Promise<boolean> {
  return (
    (await sql.run(
      `UPDATE "Item" SET "status" = ?, "finalCategory" = ?, "reviewedBy" = ?, "decidedAt" = ?,
         "leaseTokenHash" = NULL, "claimedBy" = NULL, "claimedAt" = NULL, "leaseExpiresAt" = NULL,
         "version" = "version" + 1
       WHERE ${HELD}`,
      decision.status,
      decision.finalCategory,
      decision.reviewedBy,
      now,
      held.id,
      held.leaseTokenHash,
      now,
    )) === 1
  );
}

/** Whether a category exists and is retired, read inside the caller's transaction. */
export async function categoryStanding(sql: TxSql, name: string): Promise<{ exists: true; retired: boolean } | null> {
  const [row] = await sql.all<{ retiredAt: number | Date | null }>('SELECT "retiredAt" FROM "Category" WHERE "name" = ?', name);
  return row ? { exists: true, retired: row.retiredAt !== null } : null;
}

export async function itemExists(sql: TxSql, batchId: string, recordId: string): Promise<boolean> {
  return (await sql.all('SELECT 1 FROM "Item" WHERE "batchId" = ? AND "recordId" = ?', batchId, recordId)).length > 0;
}

export async function insertItem(
  sql: TxSql,
  item: { batchId: string; recordId: string; proposedCategory: string; reason: string; createdAt: Date; addedBy: string },
): Promise<Item> {
  const rows = await sql.all<ItemRow>(
    `INSERT INTO "Item" ("batchId", "recordId", "proposedCategory", "reason", "createdAt", "addedBy")
     VALUES (?, ?, ?, ?, ?, ?) RETURNING *`,
    item.batchId,
    item.recordId,
    item.proposedCategory,
    item.reason,
    item.createdAt,
    item.addedBy,
  );
  const row = rows[0];
  if (!row) throw new Error('INSERT … RETURNING returned no row.');
  return toItem(row);
}

/**
 * Marks the current lease's lapse as recorded, once: only one writer, in any process, can win. A
 * recorded lapse is final for every reader, whatever its clock (claimState, the claim and holder
 * fences), which is what keeps an overlong lease (see isOverlong) lapsed once one clock has seen it so.
 */
export async function markLapseRecorded(sql: TxSql, item: Item, now: Date, longest: Date): Promise<boolean> {
  return (
    (await sql.run(
      `UPDATE "Item" SET "leaseExpiryRecorded" = TRUE, "version" = "version" + 1
       WHERE "id" = ? AND "leaseNumber" = ? AND "leaseExpiryRecorded" = FALSE AND "status" = 'PENDING'
         AND "leaseTokenHash" IS NOT NULL AND ("leaseExpiresAt" <= ? OR "leaseExpiresAt" > ?)`,
      item.id,
      item.leaseNumber,
      now,
      longest,
    )) === 1
  );
}

/** Unrecorded leases whose expiry lies beyond `longest` (now + the longest lease): see isOverlong. */
export async function overlongUnrecorded(sql: TxSql, longest: Date, limit: number): Promise<Item[]> {
  return (
    await sql.all<ItemRow>(
      `SELECT * FROM "Item"
       WHERE "leaseExpiryRecorded" = FALSE AND "leaseExpiresAt" > ? AND "status" = 'PENDING' AND "leaseTokenHash" IS NOT NULL
       ORDER BY "leaseExpiresAt" DESC LIMIT ?`,
      longest,
      limit,
    )
  ).map(toItem);
}

/** Leases that have lapsed by `now` and whose lapse is not recorded yet, soonest first. */
export async function lapsedUnrecorded(sql: TxSql, now: Date, limit: number): Promise<Item[]> {
  return (
    await sql.all<ItemRow>(
      `SELECT * FROM "Item"
       WHERE "leaseExpiryRecorded" = FALSE AND "leaseExpiresAt" IS NOT NULL AND "leaseExpiresAt" <= ?
       ORDER BY "leaseExpiresAt" LIMIT ?`,
      now,
      limit,
    )
  ).map(toItem);
}
