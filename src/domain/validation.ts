// Input rules shared by every entry point (GraphQL, command line, import): seed A's
// text, token and lease-length rules, checked before anything touches the database.
import { DomainError } from './errors.js';

export const LIMITS = {
  batchId: 100,
  recordId: 100,
  category: 50,
  reason: 1000,
  reviewer: 100,
  minLeaseSeconds: 30,
  maxLeaseSeconds: 3600,
  defaultLeaseSeconds: 300,
  maxItemsPerCall: 500,
  maxCategoriesPerCall: 100,
  maxPageSize: 100,
} as const;

const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
// An unpaired UTF-16 surrogate: with the u flag a well-formed pair is one astral code point, a lone
// half is a code point of category Cs. Stored, it becomes invalid UTF-8 and reads back as U+FFFD.
const LONE_SURROGATE = /\p{Cs}/u;
// Exactly what Python's str.strip() removes (str.isspace()), which is seed A's rule. JavaScript's
// trim() differs: it also strips U+FEFF and keeps U+0085 (NEL).
const EDGE_WHITESPACE =
  /^[\t\n\v\f\r\u001c-\u001f \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]|[\t\n\v\f\r\u001c-\u001f \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{20,200}$/;

function illFormed(field: string): DomainError {
  return new DomainError('INVALID_TEXT', `${field} must be well-formed Unicode: it contains an unpaired surrogate (U+D800–U+DFFF).`, field);
}

/**
 * Seed A's text rule: 1..max characters, no surrounding whitespace, no ASCII control characters;
 * and well-formed (no lone surrogate), so that what is stored reads back as it was given.
 */
export function validateText(value: string, field: string, maxLength: number): string {
  if (LONE_SURROGATE.test(value)) throw illFormed(field);
  if (value.length === 0 || EDGE_WHITESPACE.test(value)) {
    throw new DomainError('INVALID_TEXT', `${field} must be non-empty text without leading or trailing whitespace.`, field);
  }
  // Length counts Unicode code points, as Python's len() does in seed A.
  if (value.length > maxLength && [...value].length > maxLength) {
    throw new DomainError('INVALID_TEXT', `${field} must be at most ${maxLength} characters.`, field);
  }
  if (CONTROL_CHARACTER.test(value)) {
    throw new DomainError('INVALID_TEXT', `${field} must not contain ASCII control characters.`, field);
  }
  return value;
}

/** Refuses a lone surrogate in any string or key of a JSON value (of bounded depth: check that first). */
export function validateJsonStrings(value: unknown, field: string): void {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      if (LONE_SURROGATE.test(next)) throw illFormed(field);
    } else if (Array.isArray(next)) {
      pending.push(...next);
    } else if (typeof next === 'object' && next !== null) {
      for (const [key, inner] of Object.entries(next)) pending.push(key, inner);
    }
  }
}

export function validateToken(value: string, field = 'token'): string {
  if (!TOKEN_SHAPE.test(value)) {
    throw new DomainError('INVALID_TOKEN', 'The lease token is malformed: expected 20–200 characters of A–Z, a–z, 0–9, "-" or "_".', field);
  }
  return value;
}

export function validateLeaseSeconds(value: number, field = 'leaseSeconds'): number {
  if (!Number.isInteger(value) || value < LIMITS.minLeaseSeconds || value > LIMITS.maxLeaseSeconds) {
    throw new DomainError(
      'LEASE_OUT_OF_RANGE',
      `${field} must be a whole number from ${LIMITS.minLeaseSeconds} to ${LIMITS.maxLeaseSeconds}.`,
      field,
    );
  }
  return value;
}
