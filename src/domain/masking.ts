// Personal data in action proposals: which parts of `parameters`, `currentValue` and `proposedValue` are
// sensitive (PROPOSAL_SENSITIVE_FIELDS), and those parts replaced by a marker for whoever may not read
// them. Pure: nothing stored is masked (the fingerprint and approvals cover the full values), only what is shown.

/** What a sensitive value is shown as to a principal without SENSITIVE_READER. */
export const MASKED = '[masked]';

/** The proposal's JSON fields a sensitive path may start from. */
export const MASKABLE_FIELDS = ['parameters', 'currentValue', 'proposedValue'] as const;
export type MaskableField = (typeof MASKABLE_FIELDS)[number];

/** One step of a path: a key of an object (`*` any key), or an array's element (`'*'` every element). */
type Step = { key: string } | { anyKey: true } | { index: number } | { anyIndex: true };

/** Parsed PROPOSAL_SENSITIVE_FIELDS: the steps after each root field. */
export type SensitivePaths = ReadonlyMap<MaskableField, readonly (readonly Step[])[]>;

export const NO_SENSITIVE_PATHS: SensitivePaths = new Map();

const NAME = /^[A-Za-z0-9_$-]+/;
const MAX_PATHS = 200;
const MAX_PATH_LENGTH = 500;

export class SensitivePathError extends Error {}

/**
 * One path: a root field, then steps. `.name` (letters, digits, `_`, `$`, `-`) or `["any key"]` (a JSON
 * string) names an object's key, `.*` any key; `[3]` an array's element, `[*]` every element. A key step
 * reaching an array applies to each of its elements, so `contacts.phone` and `contacts[*].phone` agree
 * (and `.*` on an array is `[*]`).
 * `parameters` needs at least one step (it is always an object: `parameters.*` masks each of its values).
 */
export function parseSensitivePath(text: string): { field: MaskableField; steps: Step[] } {
  const fail = (why: string): never => {
    throw new SensitivePathError(`"${text.slice(0, 100)}": ${why}`);
  };
  if (text.length > MAX_PATH_LENGTH) fail(`longer than ${MAX_PATH_LENGTH} characters`);
  const root = NAME.exec(text)?.[0] ?? '';
  if (!(MASKABLE_FIELDS as readonly string[]).includes(root)) fail(`must start with ${MASKABLE_FIELDS.join(', ')}`);
  const field = root as MaskableField;
  const steps: Step[] = [];
  let rest = text.slice(root.length);
  while (rest !== '') {
    if (rest.startsWith('.*')) {
      steps.push({ anyKey: true });
      rest = rest.slice(2);
    } else if (rest.startsWith('.')) {
      const name = NAME.exec(rest.slice(1))?.[0];
      if (!name) fail('a "." must be followed by a name (letters, digits, _, $, -) or *; quote other keys as ["key"]');
      steps.push({ key: name as string });
      rest = rest.slice(1 + (name as string).length);
    } else if (rest.startsWith('[*]')) {
      steps.push({ anyIndex: true });
      rest = rest.slice(3);
    } else if (/^\[\d{1,6}\]/.test(rest)) {
      const digits = /^\[(\d+)\]/.exec(rest)?.[1] as string;
      steps.push({ index: Number(digits) });
      rest = rest.slice(digits.length + 2);
    } else if (rest.startsWith('["')) {
      const quoted = /^\[("(?:[^"\\]|\\.)*")\]/.exec(rest)?.[1];
      let key: unknown;
      try {
        key = quoted === undefined ? undefined : JSON.parse(quoted);
      } catch {
        key = undefined;
      }
      if (typeof key !== 'string') fail('["…"] must hold a JSON string');
      steps.push({ key: key as string });
      rest = rest.slice((quoted as string).length + 2);
    } else fail(`unexpected "${rest.slice(0, 10)}" (steps are .name, .*, ["key"], [n] or [*])`);
  }
  if (field === 'parameters' && steps.length === 0) fail('name a field inside parameters (parameters.* masks each of them)');
  return { field, steps };
}

/** PROPOSAL_SENSITIVE_FIELDS: a JSON array of paths; throws SensitivePathError saying what is wrong. */
export function parseSensitivePaths(text: string | undefined): SensitivePaths {
  if (text === undefined || text.trim() === '') return NO_SENSITIVE_PATHS;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SensitivePathError('must be a JSON array of paths, e.g. ["parameters.card.number","currentValue.email"]');
  }
  if (!Array.isArray(json) || json.some((entry) => typeof entry !== 'string')) {
    throw new SensitivePathError('must be a JSON array of strings, e.g. ["parameters.card.number","currentValue.email"]');
  }
  if (json.length > MAX_PATHS) throw new SensitivePathError(`at most ${MAX_PATHS} paths`);
  const paths = new Map<MaskableField, Step[][]>();
  for (const entry of json as string[]) {
    const { field, steps } = parseSensitivePath(entry);
    paths.set(field, [...(paths.get(field) ?? []), steps]);
  }
  return paths;
}

/** `value` (the field's parsed JSON) with every part a path names replaced by MASKED; the input is not changed. */
export function maskValue(value: unknown, pathsOfField: readonly (readonly Step[])[] | undefined): unknown {
  if (!pathsOfField || pathsOfField.length === 0) return value;
  let result = value;
  for (const steps of pathsOfField) result = maskAt(result, steps, 0);
  return result;
}

function maskAt(value: unknown, steps: readonly Step[], at: number): unknown {
  if (at === steps.length) return MASKED;
  const step = steps[at] as Step;
  if (Array.isArray(value)) {
    if ('index' in step) {
      if (step.index >= value.length) return value;
      const copy = [...value];
      copy[step.index] = maskAt(value[step.index], steps, at + 1);
      return copy;
    }
    // [*] and .* take each element; a key step reaching an array goes on into each element.
    const next = 'key' in step ? at : at + 1;
    return value.map((element) => maskAt(element, steps, next));
  }
  if (typeof value !== 'object' || value === null) return value;
  const object = value as Record<string, unknown>;
  if ('key' in step) {
    if (!Object.hasOwn(object, step.key)) return value;
    return { ...object, [step.key]: maskAt(object[step.key], steps, at + 1) };
  }
  if ('anyKey' in step) return Object.fromEntries(Object.entries(object).map(([key, inner]) => [key, maskAt(inner, steps, at + 1)]));
  return value;
}

/** A proposal field as shown: masked unless the reader may read sensitive values. */
export function shownValue(field: MaskableField, value: unknown, paths: SensitivePaths, mayReadSensitive: boolean): unknown {
  return mayReadSensitive ? value : maskValue(value, paths.get(field));
}

/** Event details as shown: any of the three fields they carry masked like the proposal's own. */
export function shownDetailsValues(
  details: Record<string, unknown>,
  paths: SensitivePaths,
  mayReadSensitive: boolean,
): Record<string, unknown> {
  if (mayReadSensitive || paths.size === 0 || !MASKABLE_FIELDS.some((field) => Object.hasOwn(details, field))) return details;
  const copy = { ...details };
  for (const field of MASKABLE_FIELDS) if (Object.hasOwn(copy, field)) copy[field] = maskValue(copy[field], paths.get(field));
  return copy;
}
