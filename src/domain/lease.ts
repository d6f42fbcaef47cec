// Lease rules: token issue and hashing, expiry arithmetic and the derived claim state.
import { createHash, randomBytes } from 'node:crypto';
import { LIMITS } from './validation.js';

export type ClaimState = 'UNCLAIMED' | 'ACTIVE' | 'EXPIRED' | 'NOT_APPLICABLE';

/** The lease columns of an item, as stored. */
export interface LeaseFields {
  status: string;
  leaseTokenHash: string | null;
  leaseExpiresAt: Date | null;
  /** Whether the lapse of this lease is recorded (LEASE_EXPIRED): final, whatever the clock says. */
  leaseExpiryRecorded?: boolean;
}

const TOKEN_PREFIX = 'lh_';

/**
 * A new lease token: 192 random bits, URL-safe. The fixed prefix means it can never
 * start with "-", which seed A's own argument parser would read as an option.
 */
export function issueLeaseToken(): string {
  return TOKEN_PREFIX + randomBytes(24).toString('base64url');
}

/** Only this digest is stored; the token itself is returned once, to the holder. */
export function hashLeaseToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A lease runs from now; renewing also counts from now, never from the old expiry. */
export function leaseExpiry(now: Date, leaseSeconds: number): Date {
  return new Date(now.getTime() + leaseSeconds * 1000);
}

/**
 * No lease (item or proposal, review or execution) is granted or renewed for longer than this, so a
 * stored expiry further ahead of the clock than this was written by a clock ahead of the one reading
 * it: the reading clock was set back (a restarted server, a CLI command after the wall clock jumped).
 */
export const LONGEST_LEASE_MS = LIMITS.maxLeaseSeconds * 1000;

/** Whether a stored expiry is further ahead of `now` than any lease can run (see LONGEST_LEASE_MS). */
export function isOverlong(expiresAt: Date, now: Date): boolean {
  return expiresAt.getTime() - now.getTime() > LONGEST_LEASE_MS;
}

/** The furthest a running lease's expiry can lie ahead of `now` (beyond it, it is overlong: see isOverlong). */
export function longestLeaseFrom(now: Date): Date {
  return new Date(now.getTime() + LONGEST_LEASE_MS);
}

/** A lease has lapsed once its expiry time is reached (seed A: expires_at <= now). */
export function isLapsed(expiresAt: Date, now: Date): boolean {
  return expiresAt.getTime() <= now.getTime();
}

/**
 * An item's lease has lapsed once its expiry time is reached, once its expiry is overlong by this clock
 * (a clock set back never holds a lease for longer than the longest lease from its claim), or once its
 * lapse is recorded: final, whatever the clock (recordLapse records an overlong one at the next claim
 * or expiry sweep). Proposal leases keep the plain rule: an executor's report is not refused for a
 * clock's disagreement, which would leave an effect that happened unrecorded.
 */
export function itemLeaseLapsed(lease: { leaseExpiresAt: Date; leaseExpiryRecorded?: boolean }, now: Date): boolean {
  return lease.leaseExpiryRecorded === true || isLapsed(lease.leaseExpiresAt, now) || isOverlong(lease.leaseExpiresAt, now);
}

export function claimState(item: LeaseFields, now: Date): ClaimState {
  if (item.status !== 'PENDING') return 'NOT_APPLICABLE';
  if (item.leaseTokenHash === null || item.leaseExpiresAt === null) return 'UNCLAIMED';
  return itemLeaseLapsed({ leaseExpiresAt: item.leaseExpiresAt, leaseExpiryRecorded: item.leaseExpiryRecorded }, now)
    ? 'EXPIRED'
    : 'ACTIVE';
}

/** Items are stamped with whole seconds, as seed A does, so its claim order is kept. */
export function creationTime(now: Date): Date {
  return new Date(Math.floor(now.getTime() / 1000) * 1000);
}
