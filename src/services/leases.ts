// Claim, renew and release: the lease half of seed A's contract.
import type { Item, WriteTx } from '../db/client.js';
import { appendEvent } from '../db/event-store.js';
import { clearLease, extendLease, grantLease, lockByLeaseTokenHash, lockNextClaimable } from '../db/item-store.js';
import { DomainError } from '../domain/errors.js';
import { hashLeaseToken, isLapsed, issueLeaseToken, leaseExpiry } from '../domain/lease.js';
import { LIMITS, validateLeaseSeconds, validateText, validateToken } from '../domain/validation.js';
import type { Actor, ServiceDeps } from './context.js';

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

/** Every lease operation starts with a write (the lock…() statements), so no extra lock statement is needed. */
const STARTS_WITH_WRITE = { firstStatementWrites: true } as const;

/**
 * Takes the first claimable item in seed A's order (createdAt, batchId, recordId).
 * Returns null when nothing is claimable: a normal answer, not an error.
 */
export async function claimItem(deps: ServiceDeps, actor: Actor, input: ClaimInput): Promise<Claim | null> {
  // Seed A's order: its argument parser checks the lease length before the reviewer is looked at.
  const leaseSeconds = validateLeaseSeconds(input.leaseSeconds ?? LIMITS.defaultLeaseSeconds);
  const reviewer = validateText(actor.name, 'reviewer', LIMITS.reviewer);
  const batchId = input.batchId == null ? null : validateText(input.batchId, 'batchId', LIMITS.batchId);
  const token = issueLeaseToken();
  const tokenHash = hashLeaseToken(token);

  return deps.db.write(async (tx) => {
    const now = deps.clock.now();
    const candidate = await lockNextClaimable(tx, now, batchId);
    if (!candidate) return null;

    const expiresAt = leaseExpiry(now, leaseSeconds);
    if (!(await grantLease(tx, candidate.id, { tokenHash, holder: reviewer, now, expiresAt }))) {
      throw new DomainError('CLAIM_CONFLICT', 'The item was claimed by someone else; claim again.');
    }
    const item: Item = { ...candidate, leaseTokenHash: tokenHash, claimedBy: reviewer, claimedAt: now, leaseExpiresAt: expiresAt };
    const replaced = candidate.leaseTokenHash !== null;
    await appendEvent(tx, {
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
  }, STARTS_WITH_WRITE);
}

/**
 * Locks the pending item holding `token` and checks its lease is still running.
 * CLAIM_NOT_FOUND: no pending item holds it. CLAIM_EXPIRED: it does, but the lease lapsed.
 */
export async function lockActiveLease(tx: WriteTx, token: string, now: Date): Promise<Item> {
  const item = await lockByLeaseTokenHash(tx, hashLeaseToken(token));
  if (item?.status !== 'PENDING' || item.leaseExpiresAt === null) {
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

/** Resets the expiry to now + leaseSeconds (from now, not from the old expiry). */
export async function renewLease(deps: ServiceDeps, actor: Actor, input: { token: string; leaseSeconds?: number | null }): Promise<Item> {
  const leaseSeconds = validateLeaseSeconds(input.leaseSeconds ?? LIMITS.defaultLeaseSeconds);
  const token = validateToken(input.token);
  return deps.db.write(async (tx) => {
    const now = deps.clock.now();
    const held = await lockActiveLease(tx, token, now);
    const expiresAt = leaseExpiry(now, leaseSeconds);
    if (!(await extendLease(tx, held, now, expiresAt))) {
      throw new DomainError('CLAIM_CONFLICT', 'The lease changed while renewing; check the item.');
    }
    const item: Item = { ...held, leaseExpiresAt: expiresAt };
    await appendEvent(tx, {
      type: 'LEASE_RENEWED',
      actor: held.claimedBy ?? actor.name,
      at: now,
      item,
      details: { holder: held.claimedBy, leaseSeconds, previousExpiresAt: held.leaseExpiresAt?.toISOString() ?? null },
    });
    return item;
  }, STARTS_WITH_WRITE);
}

/** Gives the item back without a decision; it is claimable again at once. */
export async function releaseLease(deps: ServiceDeps, actor: Actor, input: { token: string }): Promise<Item> {
  const token = validateToken(input.token);
  return deps.db.write(async (tx) => {
    const now = deps.clock.now();
    const held = await lockActiveLease(tx, token, now);
    if (!(await clearLease(tx, held, now))) {
      throw new DomainError('CLAIM_CONFLICT', 'The lease changed while releasing; check the item.');
    }
    const item: Item = { ...held, leaseTokenHash: null, claimedBy: null, claimedAt: null, leaseExpiresAt: null };
    await appendEvent(tx, {
      type: 'LEASE_RELEASED',
      actor: held.claimedBy ?? actor.name,
      at: now,
      item,
      details: { holder: held.claimedBy },
    });
    return item;
  }, STARTS_WITH_WRITE);
}
