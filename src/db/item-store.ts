// SQL for the hot lease paths. Each "lock…" function is meant to be the FIRST statement of its
// transaction: it is an UPDATE, so it takes SQLite's write lock, and it returns the row as it was
// (only `version` changes), which makes it a SELECT … FOR UPDATE. Times are passed as epoch
// milliseconds, the storage format of every DATETIME column.
import type { Item, ItemStatus, WriteTx } from './client.js';

/**
 * Locks the first claimable item — pending, and never leased or its lease lapsed — in seed A's
 * order (createdAt, batchId, recordId), optionally within one batch. Null when none is claimable.
 */
export async function lockNextClaimable(tx: WriteTx, now: Date, batchId: string | null): Promise<Item | null> {
  const batchFilter = batchId === null ? '' : 'AND "batchId" = ?';
  const rows = await tx.$queryRawUnsafe<Item[]>(
    `UPDATE "Item" SET "version" = "version" + 1
     WHERE "id" = (
       SELECT "id" FROM "Item"
       WHERE "status" = 'PENDING' AND ("leaseTokenHash" IS NULL OR "leaseExpiresAt" <= ?) ${batchFilter}
       ORDER BY "createdAt", "batchId", "recordId"
       LIMIT 1
     )
     RETURNING *`,
    now.getTime(),
    ...(batchId === null ? [] : [batchId]),
  );
  return rows[0] ?? null;
}

/** Locks the item whose current lease token has this hash, whatever its state. */
export async function lockByLeaseTokenHash(tx: WriteTx, tokenHash: string): Promise<Item | null> {
  const rows = await tx.$queryRawUnsafe<Item[]>(
    'UPDATE "Item" SET "version" = "version" + 1 WHERE "leaseTokenHash" = ? RETURNING *',
    tokenHash,
  );
  return rows[0] ?? null;
}

/** Grants a lease, only if the item is still claimable at `now` (the fence). Returns whether it did. */
export async function grantLease(
  tx: WriteTx,
  itemId: number,
  lease: { tokenHash: string; holder: string; now: Date; expiresAt: Date },
): Promise<boolean> {
  const changed = await tx.$executeRawUnsafe(
    `UPDATE "Item" SET "leaseTokenHash" = ?, "claimedBy" = ?, "claimedAt" = ?, "leaseExpiresAt" = ?
     WHERE "id" = ? AND "status" = 'PENDING' AND ("leaseTokenHash" IS NULL OR "leaseExpiresAt" <= ?)`,
    lease.tokenHash,
    lease.holder,
    lease.now.getTime(),
    lease.expiresAt.getTime(),
    itemId,
    lease.now.getTime(),
  );
  return changed === 1;
}

/** The fence for a holder's change: still pending, still this token, lease unexpired at `now`. */
const HELD = `"id" = ? AND "status" = 'PENDING' AND "leaseTokenHash" = ? AND "leaseExpiresAt" > ?`;

export async function extendLease(tx: WriteTx, held: Item, now: Date, expiresAt: Date): Promise<boolean> {
  const changed = await tx.$executeRawUnsafe(
    `UPDATE "Item" SET "leaseExpiresAt" = ? WHERE ${HELD}`,
    expiresAt.getTime(),
    held.id,
    held.leaseTokenHash,
    now.getTime(),
  );
  return changed === 1;
}

export async function clearLease(tx: WriteTx, held: Item, now: Date): Promise<boolean> {
  const changed = await tx.$executeRawUnsafe(
    `UPDATE "Item" SET "leaseTokenHash" = NULL, "claimedBy" = NULL, "claimedAt" = NULL, "leaseExpiresAt" = NULL
     WHERE ${HELD}`,
    held.id,
    held.leaseTokenHash,
    now.getTime(),
  );
  return changed === 1;
}

export async function recordDecision(
  tx: WriteTx,
  held: Item,
  now: Date,
  decision: { status: ItemStatus; finalCategory: string | null; reviewedBy: string },
): Promise<boolean> {
  const changed = await tx.$executeRawUnsafe(
    `UPDATE "Item" SET "status" = ?, "finalCategory" = ?, "reviewedBy" = ?, "decidedAt" = ?,
       "leaseTokenHash" = NULL, "claimedBy" = NULL, "claimedAt" = NULL, "leaseExpiresAt" = NULL
     WHERE ${HELD}`,
    decision.status,
    decision.finalCategory,
    decision.reviewedBy,
    now.getTime(),
    held.id,
    held.leaseTokenHash,
    now.getTime(),
  );
  return changed === 1;
}

/** Whether a category exists and is retired, read inside the caller's transaction. */
export async function categoryStanding(tx: WriteTx, name: string): Promise<{ exists: true; retired: boolean } | null> {
  const rows = await tx.$queryRawUnsafe<{ retiredAt: Date | null }[]>('SELECT "retiredAt" FROM "Category" WHERE "name" = ?', name);
  const row = rows[0];
  return row ? { exists: true, retired: row.retiredAt !== null } : null;
}
