// Claim, renew and release: the lease half of seed A's contract.
import type { Item, WriteTx } from '../db/client.js';
import { DomainError } from '../domain/errors.js';
import { hashLeaseToken, isLapsed, issueLeaseToken, leaseExpiry } from '../domain/lease.js';
import { LIMITS, validateLeaseSeconds, validateText, validateToken } from '../domain/validation.js';
import type { Actor, ServiceDeps } from './context.js';
import { recordEvent } from './event-log.js';

export interface ClaimInput {
  leaseSeconds?: number | null;
  /** Only claim from this batch. */
  batchId?: string | null;
}

/** A successful claim. `token` is shown here once and never stored or shown again. */
export interface Claim {
  item: Item;
  token: string;
}

/** Claimable: pending, and either never leased or its lease has lapsed. */
function claimableWhere(now: Date, batchId: string | null) {
  return {
    status: 'PENDING' as const,
    OR: [{ leaseTokenHash: null }, { leaseExpiresAt: { lte: now } }],
    ...(batchId === null ? {} : { batchId }),
  };
}

/**
 * Takes the first claimable item in seed A's order (createdAt, batchId, recordId).
 * Returns null when nothing is claimable: a normal answer, not an error.
 */
export async function claimItem(deps: ServiceDeps, actor: Actor, input: ClaimInput): Promise<Claim | null> {
  const reviewer = validateText(actor.name, 'reviewer', LIMITS.reviewer);
  const leaseSeconds = validateLeaseSeconds(input.leaseSeconds ?? LIMITS.defaultLeaseSeconds);
  const batchId = input.batchId == null ? null : validateText(input.batchId, 'batchId', LIMITS.batchId);
  const token = issueLeaseToken();

  return deps.db.write(async (tx) => {
    const now = deps.clock.now();
    const candidate = await tx.item.findFirst({
      where: claimableWhere(now, batchId),
      orderBy: [{ createdAt: 'asc' }, { batchId: 'asc' }, { recordId: 'asc' }],
    });
    if (!candidate) return null;

    const expiresAt = leaseExpiry(now, leaseSeconds);
    // Conditional write: it only succeeds if the item is still claimable (the fence).
    const { count } = await tx.item.updateMany({
      where: { id: candidate.id, ...claimableWhere(now, null) },
      data: {
        leaseTokenHash: hashLeaseToken(token),
        claimedBy: reviewer,
        claimedAt: now,
        leaseExpiresAt: expiresAt,
        version: { increment: 1 },
      },
    });
    if (count !== 1) throw new DomainError('CLAIM_CONFLICT', 'The item was claimed by someone else; claim again.');

    const item: Item = {
      ...candidate,
      leaseTokenHash: hashLeaseToken(token),
      claimedBy: reviewer,
      claimedAt: now,
      leaseExpiresAt: expiresAt,
      version: candidate.version + 1,
    };
    const replaced = candidate.leaseTokenHash !== null;
    await recordEvent(tx, {
      type: 'LEASE_CLAIMED',
      actor: reviewer,
      at: now,
      item,
      details: {
        holder: reviewer,
        leaseSeconds,
        ...(replaced
          ? { replacedHolder: candidate.claimedBy, replacedLeaseExpiredAt: candidate.leaseExpiresAt?.toISOString() ?? null }
          : {}),
      },
    });
    return { item, token };
  });
}

/**
 * Finds the pending item holding `token` and checks its lease is still running.
 * CLAIM_NOT_FOUND: no pending item holds it. CLAIM_EXPIRED: it does, but the lease lapsed.
 */
export async function findActiveLease(tx: WriteTx, token: string, now: Date): Promise<Item> {
  const item = await tx.item.findUnique({ where: { leaseTokenHash: hashLeaseToken(token) } });
  if (!item || item.status !== 'PENDING' || item.leaseExpiresAt === null) {
    throw new DomainError(
      'CLAIM_NOT_FOUND',
      'No pending item holds this token: it was never issued, or was released, decided or replaced by a re-claim.',
      'token',
    );
  }
  if (isLapsed(item.leaseExpiresAt, now)) {
    throw new DomainError('CLAIM_EXPIRED', 'This lease has expired: claim the item again to get a new token.', 'token');
  }
  return item;
}

/** The lease fence: the row must still hold this token and an unexpired lease. */
export function heldLeaseWhere(item: Item, now: Date) {
  return { id: item.id, status: 'PENDING' as const, leaseTokenHash: item.leaseTokenHash, leaseExpiresAt: { gt: now } };
}

/** Resets the expiry to now + leaseSeconds (from now, not from the old expiry). */
export async function renewLease(deps: ServiceDeps, actor: Actor, input: { token: string; leaseSeconds?: number | null }): Promise<Item> {
  const token = validateToken(input.token);
  const leaseSeconds = validateLeaseSeconds(input.leaseSeconds ?? LIMITS.defaultLeaseSeconds);
  return deps.db.write(async (tx) => {
    const now = deps.clock.now();
    const held = await findActiveLease(tx, token, now);
    const expiresAt = leaseExpiry(now, leaseSeconds);
    const { count } = await tx.item.updateMany({
      where: heldLeaseWhere(held, now),
      data: { leaseExpiresAt: expiresAt, version: { increment: 1 } },
    });
    if (count !== 1) throw new DomainError('CLAIM_CONFLICT', 'The lease changed while renewing; check the item.');
    const item: Item = { ...held, leaseExpiresAt: expiresAt, version: held.version + 1 };
    await recordEvent(tx, {
      type: 'LEASE_RENEWED',
      actor: held.claimedBy ?? actor.name,
      at: now,
      item,
      details: { holder: held.claimedBy, leaseSeconds, previousExpiresAt: held.leaseExpiresAt?.toISOString() ?? null },
    });
    return item;
  });
}

/** Gives the item back without a decision; it is claimable again at once. */
export async function releaseLease(deps: ServiceDeps, actor: Actor, input: { token: string }): Promise<Item> {
  const token = validateToken(input.token);
  return deps.db.write(async (tx) => {
    const now = deps.clock.now();
    const held = await findActiveLease(tx, token, now);
    const cleared = { leaseTokenHash: null, claimedBy: null, claimedAt: null, leaseExpiresAt: null };
    const { count } = await tx.item.updateMany({
      where: heldLeaseWhere(held, now),
      data: { ...cleared, version: { increment: 1 } },
    });
    if (count !== 1) throw new DomainError('CLAIM_CONFLICT', 'The lease changed while releasing; check the item.');
    const item: Item = { ...held, ...cleared, version: held.version + 1 };
    await recordEvent(tx, {
      type: 'LEASE_RELEASED',
      actor: held.claimedBy ?? actor.name,
      at: now,
      item,
      details: { holder: held.claimedBy },
    });
    return item;
  });
}
