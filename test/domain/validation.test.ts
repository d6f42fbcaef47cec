// Seed A's input rules (text, token, lease length) as pure functions: no database, no server.
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { LIMITS, validateLeaseSeconds, validateText, validateToken } from '../../src/domain/validation.js';

/** Runs `fn` and returns the DomainError it throws (fails the test if it throws nothing or something else). */
function refusal(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError, but nothing was thrown');
}

describe('validateText', () => {
  const accepted: [string, string, number][] = [
    ['a single character', 'a', 1],
    ['exactly the limit', 'x'.repeat(10), 10],
    ['inner spaces', 'a b  c', 10],
    ['Japanese text', '配送', 2],
    ['astral characters counted as one each (code points, like Python len)', '𝒜'.repeat(5), 5],
    ['combining marks counted separately (e + U+0301 is 2 code points)', 'e\u0301', 2],
    ['DEL-adjacent printable ASCII (~)', '~', 1],
    ['a Latin-1 letter (U+00E9)', 'é', 1],
    ['U+FEFF at the edges: not whitespace for Python str.strip()', '\ufeffx\ufeff', 3],
    ['a zero-width space at the edge (not whitespace for Python)', 'x\u200b', 2],
  ];
  it.each(accepted)('accepts %s', (_label, value, max) => {
    expect(validateText(value, 'field', max)).toBe(value);
  });

  const refused: [string, string, number][] = [
    ['the empty string', '', 10],
    ['a leading space', ' a', 10],
    ['a trailing space', 'a ', 10],
    ['only spaces', '   ', 10],
    ['a leading tab', '\ta', 10],
    ['a trailing newline', 'a\n', 10],
    ['a trailing carriage return', 'a\r', 10],
    ['a leading ideographic space (U+3000)', '\u3000a', 10],
    ['a trailing no-break space (U+00A0)', 'a\u00a0', 10],
    ['a trailing NEL (U+0085): Python str.strip() removes it', 'a\u0085', 10],
    ['a leading NEL (U+0085)', '\u0085a', 10],
    ['a trailing line separator (U+2028)', 'a\u2028', 10],
    ['one character over the limit', 'x'.repeat(11), 10],
    ['one astral code point over the limit', '𝒜'.repeat(11), 10],
    ['NUL inside', 'a\u0000b', 10],
    ['U+0001 inside', 'a\u0001b', 10],
    ['a tab inside', 'a\tb', 10],
    ['a newline inside', 'a\nb', 10],
    ['U+001F inside (code 31)', 'a\u001fb', 10],
    ['DEL inside (code 127)', 'a\u007fb', 10],
  ];
  it.each(refused)('refuses %s with INVALID_TEXT naming the field', (_label, value, max) => {
    const error = refusal(() => validateText(value, 'reason', max));
    expect(error.code).toBe('INVALID_TEXT');
    expect(error.field).toBe('reason');
  });

  it('counts code points, not UTF-16 units: 50 astral characters fit a 50 limit', () => {
    const value = '😀'.repeat(50);
    expect(value.length).toBe(100);
    expect(validateText(value, 'category', LIMITS.category)).toBe(value);
  });

  it('lets every printable ASCII character through (codes 32..126, inside text)', () => {
    for (let code = 33; code < 127; code++) {
      const value = `a${String.fromCharCode(code)}b`;
      expect(validateText(value, 'f', 10)).toBe(value);
    }
    expect(validateText('a b', 'f', 10)).toBe('a b');
  });

  it('treats as edge whitespace exactly what Python str.strip() removes, across the whole BMP', () => {
    // Python 3: [hex(c) for c in range(0x110000) if chr(c).isspace()]
    const python = new Set([
      0x9, 0xa, 0xb, 0xc, 0xd, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
      0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
    ]);
    const mismatches: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const char = String.fromCharCode(code);
      const control = code < 32 || code === 127;
      for (const value of [`${char}a`, `a${char}`]) {
        let refused = false;
        try {
          validateText(value, 'f', 10);
        } catch {
          refused = true;
        }
        if (refused !== (python.has(code) || control)) mismatches.push(code.toString(16));
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('refuses every ASCII control character (codes 0..31 and 127) inside text', () => {
    for (const code of [...Array.from({ length: 32 }, (_, i) => i), 127]) {
      expect(refusal(() => validateText(`a${String.fromCharCode(code)}b`, 'f', 10)).code).toBe('INVALID_TEXT');
    }
  });
});

describe('validateToken', () => {
  const accepted: [string, string][] = [
    ['20 characters, the minimum', 'a'.repeat(20)],
    ['200 characters, the maximum', 'Z'.repeat(200)],
    ['all allowed character classes', 'AZaz09-_AZaz09-_AZaz'],
    ['a leading "-" (shape is fine; the CLI must not read it as an option)', '-'.repeat(25)],
    ['a token the server issues', 'lh_0123456789abcdefghijklmnopqrstuv'],
  ];
  it.each(accepted)('accepts %s', (_label, value) => {
    expect(validateToken(value)).toBe(value);
  });

  const refused: [string, string][] = [
    ['the empty string', ''],
    ['19 characters', 'a'.repeat(19)],
    ['201 characters', 'a'.repeat(201)],
    ['a "!"', `${'a'.repeat(20)}!`],
    ['a "+" (base64, not base64url)', `${'a'.repeat(20)}+`],
    ['a "/"', `${'a'.repeat(20)}/`],
    ['a "=" padding', `${'a'.repeat(20)}=`],
    ['a "."', `${'a'.repeat(20)}.`],
    ['an inner space', `${'a'.repeat(10)} ${'a'.repeat(10)}`],
    ['surrounding whitespace', ` ${'a'.repeat(20)} `],
    ['a trailing newline', `${'a'.repeat(20)}\n`],
    ['a non-ASCII letter (é)', `${'a'.repeat(20)}é`],
    ['a non-ASCII digit (Arabic-Indic ٣)', `${'a'.repeat(20)}٣`],
    ['full-width letters', 'Ａ'.repeat(20)],
  ];
  it.each(refused)('refuses %s with INVALID_TOKEN on field token', (_label, value) => {
    const error = refusal(() => validateToken(value));
    expect(error.code).toBe('INVALID_TOKEN');
    expect(error.field).toBe('token');
  });

  it('names a custom field when asked', () => {
    expect(refusal(() => validateToken('short', 'claimToken')).field).toBe('claimToken');
  });
});

describe('validateLeaseSeconds', () => {
  it.each([30, 31, 300, 3599, 3600])('accepts %i', (value) => {
    expect(validateLeaseSeconds(value)).toBe(value);
  });

  it.each([29, 3601, 0, -1, -300, 30.5, 299.999, Number.NaN, Number.POSITIVE_INFINITY])('refuses %s with LEASE_OUT_OF_RANGE', (value) => {
    const error = refusal(() => validateLeaseSeconds(value));
    expect(error.code).toBe('LEASE_OUT_OF_RANGE');
    expect(error.field).toBe('leaseSeconds');
  });

  it('keeps the documented limits', () => {
    expect(LIMITS).toMatchObject({
      batchId: 100,
      recordId: 100,
      category: 50,
      reason: 1000,
      reviewer: 100,
      minLeaseSeconds: 30,
      maxLeaseSeconds: 3600,
      defaultLeaseSeconds: 300,
      maxItemsPerCall: 500,
      maxPageSize: 100,
    });
  });
});
