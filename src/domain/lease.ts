// Lease rules: token issue and hashing, expiry arithmetic and the derived claim state.
import { createHash, randomBytes } from 'node:crypto';

export type ClaimState = 'UNCLAIMED' | 'ACTIVE' | 'EXPIRED' | 'NOT_APPLICABLE';

/** The lease columns of an item, as stored. */
export interface LeaseFields {
  status: string;
  leaseTokenHash: string | null;
  leaseExpiresAt: Date | null;
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

/** A lease has lapsed once its expiry time is reached (seed A: expires_at <= now). */
export function isLapsed(expiresAt: Date, now: Date): boolean {
  return expiresAt.getTime() <= now.getTime();
}

export function claimState(item: LeaseFields, now: Date): ClaimState {
  if (item.status !== 'PENDING') return 'NOT_APPLICABLE';
  if (item.leaseTokenHash === null || item.leaseExpiresAt === null) return 'UNCLAIMED';
  return isLapsed(item.leaseExpiresAt, now) ? 'EXPIRED' : 'ACTIVE';
}

/** Items are stamped with whole seconds, as seed A does, so its claim order is kept. */
export function creationTime(now: Date): Date {
  return new Date(Math.floor(now.getTime() / 1000) * 1000);
}
