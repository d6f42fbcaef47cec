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
// Exactly what Python's str.strip() removes (str.isspace()), which is seed A's rule. JavaScript's
// trim() differs: it also strips U+FEFF and keeps U+0085 (NEL).
const EDGE_WHITESPACE =
  /^[\t\n\v\f\r\u001c-\u001f \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]|[\t\n\v\f\r\u001c-\u001f \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{20,200}$/;

/** Seed A's text rule: 1..max characters, no surrounding whitespace, no ASCII control characters. */
export function validateText(value: string, field: string, maxLength: number): string {
  if (value.length === 0 || EDGE_WHITESPACE.test(value)) {
    throw new DomainError('INVALID_TEXT', `${field} must be non-empty text without leading or trailing whitespace.`, field);
  }
  // Length counts Unicode code points, as Python's len() does in seed A.
  if ([...value].length > maxLength) {
    throw new DomainError('INVALID_TEXT', `${field} must be at most ${maxLength} characters.`, field);
  }
  if (CONTROL_CHARACTER.test(value)) {
    throw new DomainError('INVALID_TEXT', `${field} must not contain ASCII control characters.`, field);
  }
  return value;
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
