// Claim, renew and release: the lease half of seed A's contract.
import type { Item, TxSql } from '../db/client.js';
import { appendEvent } from '../db/event-store.js';
import {
  clearLease,
  extendLease,
  findByLeaseTokenHash,
  findNextClaimable,
  grantLease,
  lapsedUnrecorded,
  markLapseRecorded,
  overlongUnrecorded,
} from '../db/item-store.js';
import { type CallAnswer, itemFromJson } from '../db/write-calls.js';
import { DomainError } from '../domain/errors.js';
import { hashLeaseToken, isOverlong, issueLeaseToken, itemLeaseLapsed, leaseExpiry, longestLeaseFrom } from '../domain/lease.js';
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

/**
 * Takes the first claimable item in seed A's order (createdAt, batchId, recordId).
 * Returns null when nothing is claimable: a normal answer, not an error. An authenticated
 * principal never gets an item it proposed (separation of duties): those are skipped.
 */
export async function claimItem(deps: ServiceDeps, actor: Actor, input: ClaimInput): Promise<Claim | null> {
  // Seed A's order: its argument parser checks the lease length before the reviewer is looked at.
  const leaseSeconds = validateLeaseSeconds(input.leaseSeconds ?? LIMITS.defaultLeaseSeconds);
  const reviewer = validateText(actor.name, 'reviewer', LIMITS.reviewer);
  const batchId = input.batchId == null ? null : validateText(input.batchId, 'batchId', LIMITS.batchId);
  const token = issueLeaseToken();
  const tokenHash = hashLeaseToken(token);

  const notAddedBy = actor.authenticated ? reviewer : null;
  const claimConflict = () => new DomainError('CLAIM_CONFLICT', 'The item was claimed by someone else; claim again.');

  const work = async (sql: TxSql): Promise<Claim | null> => {
    const now = deps.clock.now();
    // Leases this clock finds overlong are recorded as lapsed first, so the search below sees them lapsed.
    await recordOverlongLeases(sql, now, OVERLONG_PER_CLAIM);
    const found = await findNextClaimable(sql, now, { batchId, notAddedBy });
    if (!found) return null;
    // A lapsed lease being replaced is recorded as expired first, if no announcer got to it yet.
    const candidate = found.leaseTokenHash !== null && !found.leaseExpiryRecorded ? await recordLapse(sql, found, now) : found;

    const expiresAt = leaseExpiry(now, leaseSeconds);
    if (!(await grantLease(sql, candidate.id, { tokenHash, holder: reviewer, now, expiresAt }))) throw claimConflict();
    const item: Item = {
      ...candidate,
      leaseTokenHash: tokenHash,
      claimedBy: reviewer,
      claimedAt: now,
      leaseExpiresAt: expiresAt,
      leaseNumber: candidate.leaseNumber + 1,
      leaseExpiryRecorded: false,
      version: candidate.version + 1,
    };
    const replaced = candidate.leaseTokenHash !== null;
    await appendEvent(sql, {
      type: 'LEASE_CLAIMED',
      actor: reviewer,
      at: now,
      item,
      leaseNumber: item.leaseNumber,
      details: {
        holder: reviewer,
        leaseSeconds,
        ...(replaced
          ? {
              replacedHolder: candidate.claimedBy,
              replacedLeaseNumber: candidate.leaseNumber,
              replacedLeaseExpiredAt: candidate.leaseExpiresAt?.toISOString() ?? null,
            }
          : {}),
      },
    });
    return { item, token };
  };

  return deps.db.perform({
    work: (_tx, sql) => work(sql),
    call: {
      fields: { op: 'claim', leaseSeconds, tokenHash, holder: reviewer, batchId, notAddedBy, overlongLimit: OVERLONG_PER_CLAIM },
      clock: deps.clock,
      answer: (answer) => {
        if (answer.none) return null;
        if (answer.conflict) throw claimConflict();
        return { item: changed(answer), token };
      },
    },
  });
}

/** The item a call changed. */
function changed(answer: CallAnswer): Item {
  if (!answer.item) throw new Error('The write call answered neither a change nor a refusal.');
  return itemFromJson(answer.item);
}

/**
 * The item a lease holder's call changed, or the refusal the TypeScript form gives: a refused call
 * answers the row holding the token as it found it, and checkActiveLease says why as it does there.
 */
export function heldChange(answer: CallAnswer, actor: Actor, conflict: () => DomainError): Item {
  if (answer.refused) {
    checkActiveLease(answer.held ? itemFromJson(answer.held) : null, new Date(answer.at), actor);
    throw new Error('The database refused a lease the same rules find usable.');
  }
  if (answer.conflict) throw conflict();
  return changed(answer);
}

/**
 * Finds the pending item holding `token` and checks its lease is still running.
 * CLAIM_NOT_FOUND: no pending item holds it. NOT_LEASE_HOLDER: an authenticated principal other
 * than the holder presents it (a leaked token is useless to anyone else). CLAIM_EXPIRED: the
 * lease lapsed.
 */
export async function findActiveLease(sql: TxSql, token: string, now: Date, actor: Actor): Promise<Item> {
  return checkActiveLease(await findByLeaseTokenHash(sql, hashLeaseToken(token)), now, actor);
}

/** findActiveLease's rules for the item found holding the token (null: none). */
export function checkActiveLease(item: Item | null, now: Date, actor: Actor): Item {
  if (item?.status !== 'PENDING' || item.leaseExpiresAt === null) {
    throw new DomainError(
      'CLAIM_NOT_FOUND',
      'No pending item holds this token: it was never issued, or was released, decided or replaced by a re-claim.',
      'token',
    );
  }
  if (actor.authenticated && item.claimedBy !== actor.name) {
    throw new DomainError('NOT_LEASE_HOLDER', 'This lease is held by another principal; only its holder may use it.', 'token');
  }
  if (itemLeaseLapsed({ leaseExpiresAt: item.leaseExpiresAt, leaseExpiryRecorded: item.leaseExpiryRecorded }, now)) {
    throw new DomainError('CLAIM_EXPIRED', 'This lease has expired: claim the item again to get a new token.', 'token');
  }
  return item;
}

/** Resets the expiry to now + leaseSeconds (from now, not from the old expiry). */
export async function renewLease(deps: ServiceDeps, actor: Actor, input: { token: string; leaseSeconds?: number | null }): Promise<Item> {
  const leaseSeconds = validateLeaseSeconds(input.leaseSeconds ?? LIMITS.defaultLeaseSeconds);
  const token = validateToken(input.token);
  const conflict = () => new DomainError('CLAIM_CONFLICT', 'The lease changed while renewing; check the item.');
  const work = async (sql: TxSql): Promise<Item> => {
    const now = deps.clock.now();
    const held = await findActiveLease(sql, token, now, actor);
    const expiresAt = leaseExpiry(now, leaseSeconds);
    if (!(await extendLease(sql, held, now, expiresAt))) throw conflict();
    const item: Item = { ...held, leaseExpiresAt: expiresAt, version: held.version + 1 };
    await appendEvent(sql, {
      type: 'LEASE_RENEWED',
      actor: held.claimedBy ?? actor.name,
      at: now,
      item,
      leaseNumber: held.leaseNumber,
      details: { holder: held.claimedBy, leaseSeconds, previousExpiresAt: held.leaseExpiresAt?.toISOString() ?? null },
    });
    return item;
  };
  return deps.db.perform({
    work: (_tx, sql) => work(sql),
    call: {
      fields: { op: 'renew', leaseSeconds, tokenHash: hashLeaseToken(token), actor: actor.name, authenticated: actor.authenticated },
      clock: deps.clock,
      answer: (answer) => heldChange(answer, actor, conflict),
    },
  });
}

/** Gives the item back without a decision; it is claimable again at once. */
export async function releaseLease(
  deps: ServiceDeps,
  actor: Actor,
  input: { token: string /** Why, when not the holder's own choice (e.g. CONNECTION_CLOSED). */; reason?: string },
): Promise<Item> {
  const token = validateToken(input.token);
  const conflict = () => new DomainError('CLAIM_CONFLICT', 'The lease changed while releasing; check the item.');
  const work = async (sql: TxSql): Promise<Item> => {
    const now = deps.clock.now();
    const held = await findActiveLease(sql, token, now, actor);
    if (!(await clearLease(sql, held, now))) throw conflict();
    const item: Item = { ...held, leaseTokenHash: null, claimedBy: null, claimedAt: null, leaseExpiresAt: null, version: held.version + 1 };
    await appendEvent(sql, {
      type: 'LEASE_RELEASED',
      actor: held.claimedBy ?? actor.name,
      at: now,
      item,
      leaseNumber: held.leaseNumber,
      details: { holder: held.claimedBy, ...(input.reason ? { reason: input.reason } : {}) },
    });
    return item;
  };
  return deps.db.perform({
    work: (_tx, sql) => work(sql),
    call: {
      fields: {
        op: 'release',
        reason: input.reason ?? null,
        tokenHash: hashLeaseToken(token),
        actor: actor.name,
        authenticated: actor.authenticated,
      },
      clock: deps.clock,
      answer: (answer) => heldChange(answer, actor, conflict),
    },
  });
}

/**
 * Records the lapse of `item`'s current lease as a LEASE_EXPIRED event, once: the conditional
 * write lets exactly one writer win, whichever process it runs in. An overlong lease (its expiry
 * further ahead than any lease can run: this clock is behind the one that granted it) lapses here
 * too, for good. Returns the item after it (unchanged when someone else recorded it first).
 */
export async function recordLapse(sql: TxSql, item: Item, now: Date): Promise<Item> {
  if (!(await markLapseRecorded(sql, item, now, longestLeaseFrom(now)))) return item;
  const overlong = item.leaseExpiresAt !== null && isOverlong(item.leaseExpiresAt, now);
  const recorded: Item = { ...item, leaseExpiryRecorded: true, version: item.version + 1 };
  await appendEvent(sql, {
    type: 'LEASE_EXPIRED',
    actor: 'system',
    at: now,
    item: recorded,
    leaseNumber: item.leaseNumber,
    details: {
      holder: item.claimedBy,
      expiredAt: item.leaseExpiresAt?.toISOString() ?? null,
      ...(overlong ? { overlong: true } : {}),
    },
  });
  return recorded;
}

/** How many overlong leases a claim records before searching (more wait for the next claim or sweep). */
const OVERLONG_PER_CLAIM = 20;

async function recordOverlongLeases(sql: TxSql, now: Date, limit: number): Promise<number> {
  let recorded = 0;
  for (const item of await overlongUnrecorded(sql, longestLeaseFrom(now), limit)) {
    if ((await recordLapse(sql, item, now)).leaseExpiryRecorded) recorded += 1;
  }
  return recorded;
}

/** Records every lease that has lapsed (or is overlong) by now and is not recorded yet (at most `limit`). Returns how many. */
export async function recordLapsedLeases(deps: ServiceDeps, limit = 200): Promise<number> {
  return deps.db.perform({
    work: async (_tx, sql) => {
      const now = deps.clock.now();
      let recorded = await recordOverlongLeases(sql, now, limit);
      for (const item of await lapsedUnrecorded(sql, now, limit - recorded)) {
        if ((await recordLapse(sql, item, now)).leaseExpiryRecorded) recorded += 1;
      }
      return recorded;
    },
    call: {
      fields: { op: 'recordLapses', limit },
      clock: deps.clock,
      answer: (answer) => {
        if (answer.recorded === undefined) throw new Error('The write call answered no count of lapses recorded.');
        return answer.recorded;
      },
    },
  });
}
