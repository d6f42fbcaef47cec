// Lease rules as pure functions: token issue and hashing, expiry arithmetic, claim state, creation time.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import {
  type ClaimState,
  claimState,
  creationTime,
  hashLeaseToken,
  isLapsed,
  issueLeaseToken,
  leaseExpiry,
} from '../../src/domain/lease.js';
import { validateToken } from '../../src/domain/validation.js';

const T = Date.UTC(2026, 10, 30, 9, 0, 0);
const at = (ms: number) => new Date(T + ms);

describe('issueLeaseToken', () => {
  it('issues tokens that pass the token rule, never start with "-", and are all different', () => {
    const tokens = Array.from({ length: 500 }, () => issueLeaseToken());
    for (const token of tokens) {
      expect(validateToken(token)).toBe(token);
      expect(token.startsWith('-')).toBe(false);
      expect(token).toMatch(/^lh_[A-Za-z0-9_-]{32}$/);
    }
    expect(new Set(tokens).size).toBe(tokens.length);
  });
});

describe('hashLeaseToken', () => {
  it('is the hex SHA-256 of the token (a known vector)', () => {
    expect(hashLeaseToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('is deterministic, differs per token and never contains the token', () => {
    const token = issueLeaseToken();
    const hash = hashLeaseToken(token);
    expect(hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain(token);
    expect(hashLeaseToken(issueLeaseToken())).not.toBe(hash);
  });
});

describe('leaseExpiry', () => {
  const cases: [string, Date, number, number][] = [
    ['minimum lease', at(0), 30, 30_000],
    ['default lease', at(0), 300, 300_000],
    ['maximum lease', at(0), 3600, 3_600_000],
    ['keeps milliseconds of now', at(123), 30, 30_123],
  ];
  it.each(cases)('%s: now + leaseSeconds', (_label, now, seconds, expected) => {
    expect(leaseExpiry(now, seconds).getTime()).toBe(T + expected);
  });

  it('counts from the time it is given (renewal from now, not from an old expiry)', () => {
    const oldExpiry = leaseExpiry(at(0), 300);
    const renewedAt = at(100_000);
    expect(leaseExpiry(renewedAt, 300).getTime()).toBe(T + 400_000);
    expect(leaseExpiry(renewedAt, 300).getTime()).not.toBe(oldExpiry.getTime() + 300_000);
    // A shorter renewal moves the expiry earlier.
    expect(leaseExpiry(renewedAt, 30).getTime()).toBeLessThan(oldExpiry.getTime());
  });
});

describe('isLapsed', () => {
  const cases: [string, number, number, boolean][] = [
    ['1 ms before expiry', 30_000, 29_999, false],
    ['exactly at expiry (seed A: expires_at <= now)', 30_000, 30_000, true],
    ['1 ms after expiry', 30_000, 30_001, true],
    ['long before', 30_000, 0, false],
  ];
  it.each(cases)('%s', (_label, expiresAt, now, lapsed) => {
    expect(isLapsed(at(expiresAt), at(now))).toBe(lapsed);
  });
});

describe('claimState', () => {
  const cases: [string, string, string | null, number | null, number, ClaimState][] = [
    ['pending, no lease', 'PENDING', null, null, 0, 'UNCLAIMED'],
    ['pending, lease running', 'PENDING', 'h', 30_000, 29_999, 'ACTIVE'],
    ['pending, lease at its expiry instant', 'PENDING', 'h', 30_000, 30_000, 'EXPIRED'],
    ['pending, lease long lapsed', 'PENDING', 'h', 30_000, 999_000, 'EXPIRED'],
    ['pending, hash without expiry (inconsistent): not a lease', 'PENDING', 'h', null, 0, 'UNCLAIMED'],
    ['accepted', 'ACCEPTED', null, null, 0, 'NOT_APPLICABLE'],
    ['corrected', 'CORRECTED', null, null, 0, 'NOT_APPLICABLE'],
    ['rejected', 'REJECTED', null, null, 0, 'NOT_APPLICABLE'],
    ['decided with leftover lease columns: still not applicable', 'ACCEPTED', 'h', 30_000, 0, 'NOT_APPLICABLE'],
  ];
  it.each(cases)('%s → %s', (_label, status, hash, expiresAt, now, expected) => {
    const item = { status, leaseTokenHash: hash, leaseExpiresAt: expiresAt === null ? null : at(expiresAt) };
    expect(claimState(item, at(now))).toBe(expected);
  });
});

describe('creationTime', () => {
  const cases: [number, number][] = [
    [0, 0],
    [1, 0],
    [999, 0],
    [1000, 1000],
    [1999, 1000],
    [61_500, 61_000],
  ];
  it.each(cases)('now + %i ms → whole second + %i ms', (offset, expected) => {
    expect(creationTime(at(offset)).getTime()).toBe(T + expected);
  });
});

describe('ManualClock', () => {
  it('only moves when told to', () => {
    const clock = new ManualClock(T);
    expect(clock.now().getTime()).toBe(T);
    expect(clock.now().getTime()).toBe(T);
    clock.advance(1500);
    expect(clock.now().getTime()).toBe(T + 1500);
    clock.set(new Date(T));
    expect(clock.now().getTime()).toBe(T);
  });

  it('hands out copies, so callers cannot move it by mutating a Date', () => {
    const clock = new ManualClock(T);
    clock.now().setTime(0);
    expect(clock.now().getTime()).toBe(T);
  });
});
