// Decision rules as pure functions: which category arguments each outcome takes, and the final category.
import { describe, expect, it } from 'vitest';
import { DomainError, type ErrorCode } from '../../src/domain/errors.js';
import { type CategoryStanding, checkDecisionArguments, type Decision, finalCategory } from '../../src/domain/review.js';

function refusal(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError, but nothing was thrown');
}

describe('checkDecisionArguments (seed A checks these before opening the database)', () => {
  const accepted: [Decision, string | null | undefined, string | null][] = [
    ['ACCEPTED', undefined, null],
    ['ACCEPTED', null, null],
    ['REJECTED', undefined, null],
    ['REJECTED', null, null],
    ['CORRECTED', '請求', '請求'],
    ['CORRECTED', 'x', 'x'],
  ];
  it.each(accepted)('%s with category %j → %j', (decision, category, expected) => {
    expect(checkDecisionArguments(decision, category)).toBe(expected);
  });

  const refused: [string, Decision, string | null | undefined, ErrorCode][] = [
    ['CORRECTED without category', 'CORRECTED', undefined, 'CATEGORY_REQUIRED'],
    ['CORRECTED with null category', 'CORRECTED', null, 'CATEGORY_REQUIRED'],
    ['CORRECTED with empty category', 'CORRECTED', '', 'INVALID_TEXT'],
    ['CORRECTED with padded category', 'CORRECTED', ' x', 'INVALID_TEXT'],
    ['CORRECTED with a control character', 'CORRECTED', 'a\u0007b', 'INVALID_TEXT'],
    ['CORRECTED with 51 characters', 'CORRECTED', 'c'.repeat(51), 'INVALID_TEXT'],
    ['ACCEPTED with a category', 'ACCEPTED', 'x', 'UNEXPECTED_CATEGORY'],
    ['ACCEPTED with an empty category (given is given, as in seed A)', 'ACCEPTED', '', 'UNEXPECTED_CATEGORY'],
    ['REJECTED with a category', 'REJECTED', 'x', 'UNEXPECTED_CATEGORY'],
    ['REJECTED with a malformed category: the category rule comes first', 'REJECTED', ' x ', 'UNEXPECTED_CATEGORY'],
  ];
  it.each(refused)('%s → %s on field category', (_label, decision, category, code) => {
    const error = refusal(() => checkDecisionArguments(decision, category));
    expect(error.code).toBe(code);
    expect(error.field).toBe('category');
  });

  it('accepts a 50-character correction (the category limit)', () => {
    expect(checkDecisionArguments('CORRECTED', 'c'.repeat(50))).toBe('c'.repeat(50));
  });
});

describe('finalCategory', () => {
  const active: CategoryStanding = { exists: true, retired: false };
  const retired: CategoryStanding = { exists: true, retired: true };
  const missing: CategoryStanding = { exists: false, retired: false };

  const outcomes: [string, Decision, string | null, CategoryStanding | null, string | null][] = [
    ['ACCEPTED keeps the proposal', 'ACCEPTED', null, null, '配送'],
    ['ACCEPTED ignores any standing', 'ACCEPTED', null, retired, '配送'],
    ['REJECTED has no final category', 'REJECTED', null, null, null],
    ['CORRECTED to an allowed, different category', 'CORRECTED', '請求', active, '請求'],
  ];
  it.each(outcomes)('%s', (_label, decision, correction, standing, expected) => {
    expect(finalCategory(decision, '配送', correction, standing)).toBe(expected);
  });

  const refused: [string, string | null, CategoryStanding | null, ErrorCode][] = [
    ['an unknown category', 'nope', null, 'UNKNOWN_CATEGORY'],
    ['a category reported as not existing', 'nope', missing, 'UNKNOWN_CATEGORY'],
    ['no correction at all', null, active, 'UNKNOWN_CATEGORY'],
    ['the proposed category itself', '配送', active, 'CATEGORY_UNCHANGED'],
    ['the proposed category even if it is retired (unchanged is the clearer reason)', '配送', retired, 'CATEGORY_UNCHANGED'],
    ['a retired category', '請求', retired, 'CATEGORY_RETIRED'],
    ['an unknown category equal to nothing proposed: unknown comes first', 'その他', null, 'UNKNOWN_CATEGORY'],
  ];
  it.each(refused)('CORRECTED to %s → %s', (_label, correction, standing, code) => {
    const error = refusal(() => finalCategory('CORRECTED', '配送', correction, standing));
    expect(error.code).toBe(code);
    expect(error.field).toBe('category');
  });
});
