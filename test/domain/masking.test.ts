// Masking as pure functions: the path syntax PROPOSAL_SENSITIVE_FIELDS takes, and a property test over random
// JSON and random paths (an oracle in test/support/sensitive-json.ts): without SENSITIVE_READER no covered
// value is shown, everything else is shown unchanged; with it, nothing is masked; the input is never changed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/json-setting.js';
import { loadConfig } from '../../src/config.js';
import { can } from '../../src/domain/access.js';
import { MASKED, maskValue, parseSensitivePaths, shownDetailsValues, shownValue } from '../../src/domain/masking.js';
import { found, ROOTS, samples } from '../support/sensitive-json.js';

const masked = (paths: string[], field: 'parameters' | 'currentValue' | 'proposedValue', value: unknown) =>
  shownValue(field, value, parseSensitivePaths(JSON.stringify(paths)), false);

describe('sensitive paths', () => {
  it('masks a named key, any key, an index, every element, a quoted key, and walks a key step into arrays', () => {
    const parameters = {
      card: { number: '4111', expiry: '12/29' },
      contacts: [{ phone: '+1', name: 'Ann' }, { phone: '+2' }],
      'e.mail': 'a@b',
      email: 'keep',
      nested: [[{ phone: '+3' }]],
    };
    expect(masked(['parameters.card.number'], 'parameters', parameters)).toEqual({
      ...parameters,
      card: { number: MASKED, expiry: '12/29' },
    });
    expect(masked(['parameters.card'], 'parameters', parameters)).toEqual({ ...parameters, card: MASKED });
    expect(masked(['parameters.card.*'], 'parameters', parameters)).toEqual({ ...parameters, card: { number: MASKED, expiry: MASKED } });
    expect(masked(['parameters.contacts[*].phone'], 'parameters', parameters)).toEqual({
      ...parameters,
      contacts: [{ phone: MASKED, name: 'Ann' }, { phone: MASKED }],
    });
    expect(masked(['parameters.contacts.phone'], 'parameters', parameters)).toEqual(
      masked(['parameters.contacts[*].phone'], 'parameters', parameters),
    );
    expect(masked(['parameters.contacts[1]'], 'parameters', parameters)).toEqual({
      ...parameters,
      contacts: [{ phone: '+1', name: 'Ann' }, MASKED],
    });
    expect(masked(['parameters["e.mail"]'], 'parameters', parameters)).toEqual({ ...parameters, 'e.mail': MASKED });
    expect(masked(['parameters.nested.phone'], 'parameters', parameters)).toEqual({ ...parameters, nested: [[{ phone: MASKED }]] });
    // A path into something absent, or of another shape, changes nothing.
    expect(masked(['parameters.card.number.x', 'parameters.nothing', 'parameters.contacts[5]'], 'parameters', parameters)).toEqual(
      parameters,
    );
    // A whole value, and only the field named.
    expect(masked(['currentValue'], 'currentValue', { email: 'x' })).toBe(MASKED);
    expect(masked(['currentValue'], 'proposedValue', { email: 'x' })).toEqual({ email: 'x' });
    expect(masked(['currentValue.email'], 'currentValue', [{ email: 'x' }, 'y'])).toEqual([{ email: MASKED }, 'y']);
  });

  it('refuses paths it cannot read, each with the reason', () => {
    for (const [paths, reason] of [
      ['not json', 'must be a JSON array of paths'],
      ['{"a":1}', 'must be a JSON array of strings'],
      ['[1]', 'must be a JSON array of strings'],
      ['["email"]', '"email": must start with parameters, currentValue, proposedValue'],
      ['["parameters"]', '"parameters": name a field inside parameters'],
      ['["parameters."]', 'a "." must be followed by a name'],
      ['["parameters.a..b"]', 'a "." must be followed by a name'],
      ['["currentValue[x]"]', 'unexpected "[x]"'],
      ['["currentValue[\\"a]"]', '["…"] must hold a JSON string'],
      ['["proposedValue email"]', 'unexpected " email"'],
    ] as const) {
      expect(() => parseSensitivePaths(paths), paths).toThrow(reason);
    }
    expect(parseSensitivePaths(undefined).size).toBe(0);
    expect(parseSensitivePaths(' ').size).toBe(0);
  });

  it('is read from PROPOSAL_SENSITIVE_FIELDS at start; a bad value is one ConfigError naming the variable', () => {
    const config = loadConfig({ PROPOSAL_SENSITIVE_FIELDS: '["parameters.card.number","currentValue.email"]' });
    expect(shownValue('parameters', { card: { number: '4111' } }, config.sensitiveFields, false)).toEqual({ card: { number: MASKED } });
    expect(loadConfig({}).sensitiveFields.size).toBe(0);
    expect(() => loadConfig({ PROPOSAL_SENSITIVE_FIELDS: '["card.number"]' })).toThrow(ConfigError);
    expect(() => loadConfig({ PROPOSAL_SENSITIVE_FIELDS: '["card.number"]' })).toThrow(
      'Invalid configuration: PROPOSAL_SENSITIVE_FIELDS: "card.number": must start with parameters, currentValue, proposedValue',
    );
  });

  it('is read by SENSITIVE_READER only: ADMIN does not imply it', () => {
    expect(can({ roles: new Set(['SENSITIVE_READER']) }, 'readSensitive')).toBe(true);
    for (const role of ['ADMIN', 'PROPOSER', 'REVIEWER', 'EXECUTOR', 'VIEWER'] as const) {
      expect(can({ roles: new Set([role]) }, 'readSensitive'), role).toBe(false);
    }
  });

  it('masks event details carrying the fields, and nothing else in them', () => {
    const paths = parseSensitivePaths('["parameters.card","currentValue"]');
    const details = { parameters: { card: '4111', sku: 'x' }, currentValue: 5, reason: 'r' };
    expect(shownDetailsValues(details, paths, false)).toEqual({
      parameters: { card: MASKED, sku: 'x' },
      currentValue: MASKED,
      reason: 'r',
    });
    expect(shownDetailsValues(details, paths, true)).toBe(details);
  });
});

describe('masking, property over random values and paths', () => {
  it('hides every covered value from a principal without the role, shows everything else, and shows all with it', () => {
    fc.assert(
      fc.property(samples, (sample) => {
        const paths = parseSensitivePaths(JSON.stringify(sample.paths));
        const before = JSON.stringify(sample.values);
        const shown = JSON.stringify(ROOTS.map((root) => shownValue(root, sample.values[root], paths, false)));
        expect(found(shown, sample.sensitive)).toEqual([]);
        expect(found(shown, sample.plain)).toEqual(sample.plain);
        if (sample.sensitive.length > 0) expect(shown).toContain(MASKED);
        const full = JSON.stringify(ROOTS.map((root) => shownValue(root, sample.values[root], paths, true)));
        expect(found(full, [...sample.sensitive, ...sample.plain])).toHaveLength(sample.sensitive.length + sample.plain.length);
        // Nothing stored is changed: masking copies.
        expect(JSON.stringify(sample.values)).toBe(before);
        // The shape outside the masked parts stays: masking again changes nothing.
        for (const root of ROOTS) {
          const once = maskValue(sample.values[root], paths.get(root));
          expect(maskValue(once, paths.get(root))).toEqual(once);
        }
      }),
      { numRuns: 500 },
    );
  });
});
