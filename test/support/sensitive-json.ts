// Random proposal values and random PROPOSAL_SENSITIVE_FIELDS paths into them, for the masking property
// tests, with an oracle written apart from src/domain/masking.ts: which leaves a set of paths covers.
import fc from 'fast-check';

/** One step of a concrete position: an object's key or an array's index. */
export type Segment = { key: string } | { index: number };
type Pattern = ({ key: string } | { anyKey: true } | { index: number } | { anyIndex: true })[];

export type Root = 'parameters' | 'currentValue' | 'proposedValue';
export const ROOTS: Root[] = ['parameters', 'currentValue', 'proposedValue'];

/** A proposal's three JSON fields; every leaf a distinct string that appears nowhere else. */
export interface Sample {
  values: Record<Root, unknown>;
  paths: string[];
  /** Leaves some path covers: a principal without SENSITIVE_READER must never see one. */
  sensitive: string[];
  /** The other leaves: everyone sees them. */
  plain: string[];
}

// A few keys, some repeated at several depths (a path names one of them, not all), some needing quotes.
const KEYS = ['email', 'phone', 'card', 'number', 'name', 'contacts', 'a.b', 'x y', '0', '$id', 'k-1', 'ünï'];
const LEAF = 'LEAF';

const { tree } = fc.letrec<{ tree: unknown; node: unknown }>((tie) => ({
  tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constant(LEAF), tie('node')),
  node: fc.oneof(fc.dictionary(fc.constantFrom(...KEYS), tie('tree'), { maxKeys: 4 }), fc.array(tie('tree'), { maxLength: 3 })),
}));

/** Each leaf's concrete position. */
function positions(value: unknown, at: Segment[] = [], into: Segment[][] = []): Segment[][] {
  into.push(at);
  if (Array.isArray(value)) {
    for (const [index, element] of value.entries()) positions(element, [...at, { index }], into);
  } else if (typeof value === 'object' && value !== null)
    for (const [key, inner] of Object.entries(value)) positions(inner, [...at, { key }], into);
  return into;
}

/** Replaces every LEAF with a string unique to this sample (`salt`) and to its place. */
function label(value: unknown, salt: string, next: { n: number }): unknown {
  if (value === LEAF) return `pii${salt}n${next.n++}z`;
  if (Array.isArray(value)) return value.map((element) => label(element, salt, next));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, label(inner, salt, next)]));
  return value;
}

function leaves(value: unknown, at: Segment[] = [], into: { at: Segment[]; leaf: string }[] = []) {
  if (typeof value === 'string') into.push({ at, leaf: value });
  else if (Array.isArray(value)) {
    for (const [index, element] of value.entries()) leaves(element, [...at, { index }], into);
  } else if (typeof value === 'object' && value !== null)
    for (const [key, inner] of Object.entries(value)) leaves(inner, [...at, { key }], into);
  return into;
}

/** The oracle: does `pattern` cover position `at` (match a prefix of it)? A key step walks into arrays. */
function covers(pattern: Pattern, at: Segment[], i = 0, j = 0): boolean {
  if (i === pattern.length) return true;
  if (j === at.length) return false;
  const step = pattern[i] as Pattern[number];
  const segment = at[j] as Segment;
  if ('index' in segment) {
    if ('anyIndex' in step || 'anyKey' in step) return covers(pattern, at, i + 1, j + 1);
    if ('index' in step) return step.index === segment.index && covers(pattern, at, i + 1, j + 1);
    return covers(pattern, at, i, j + 1);
  }
  if ('key' in step) return step.key === segment.key && covers(pattern, at, i + 1, j + 1);
  if ('anyKey' in step) return covers(pattern, at, i + 1, j + 1);
  return false;
}

function text(root: Root, pattern: Pattern): string {
  return (
    root +
    pattern
      .map((step) => {
        if ('anyKey' in step) return '.*';
        if ('anyIndex' in step) return '[*]';
        if ('index' in step) return `[${step.index}]`;
        return /^[A-Za-z0-9_$-]+$/.test(step.key) ? `.${step.key}` : `[${JSON.stringify(step.key)}]`;
      })
      .join('')
  );
}

/** How one picked position is turned into a path: each step kept, widened to a wildcard, or (an index) dropped. */
const widen = fc.array(fc.constantFrom('keep', 'keep', 'wild', 'drop'), { minLength: 12, maxLength: 12 });

export const samples: fc.Arbitrary<Sample> = fc
  .record({
    parameters: fc.dictionary(fc.constantFrom(...KEYS), tree, { minKeys: 1, maxKeys: 4 }),
    currentValue: tree,
    proposedValue: tree,
    salt: fc.stringMatching(/^[a-z0-9]{6}$/),
    picks: fc.array(fc.record({ root: fc.constantFrom(...ROOTS), position: fc.nat(), how: widen }), { maxLength: 4 }),
    unknown: fc.array(fc.constantFrom('parameters.nothing', 'currentValue.missing[*].x', 'proposedValue[7]'), { maxLength: 1 }),
  })
  .map(({ salt, picks, unknown, ...raw }) => {
    const next = { n: 0 };
    const values = Object.fromEntries(ROOTS.map((root) => [root, label(raw[root], salt, next)])) as Record<Root, unknown>;
    const patterns: { root: Root; pattern: Pattern }[] = [];
    for (const pick of picks) {
      const candidates = positions(values[pick.root]).filter((at) => pick.root !== 'parameters' || at.length > 0);
      if (candidates.length === 0) continue;
      const at = candidates[pick.position % candidates.length] as Segment[];
      const pattern: Pattern = [];
      at.forEach((segment, index) => {
        const how = pick.how[index % pick.how.length];
        if ('index' in segment) {
          // Dropping the last index would mask the whole array: still a valid, wider path.
          if (how === 'drop' && index < at.length - 1) return;
          pattern.push(how === 'wild' ? { anyIndex: true } : segment);
        } else pattern.push(how === 'wild' ? { anyKey: true } : segment);
      });
      if (pick.root === 'parameters' && pattern.length === 0) continue;
      patterns.push({ root: pick.root, pattern });
    }
    const sensitive: string[] = [];
    const plain: string[] = [];
    for (const root of ROOTS) {
      for (const { at, leaf } of leaves(values[root])) {
        (patterns.some((p) => p.root === root && covers(p.pattern, at)) ? sensitive : plain).push(leaf);
      }
    }
    return { values, paths: [...patterns.map((p) => text(p.root, p.pattern)), ...unknown], sensitive, plain };
  });

/** Leaves of `leavesOf` found in `haystack`. */
export function found(haystack: string, leavesOf: readonly string[]): string[] {
  return leavesOf.filter((leaf) => haystack.includes(leaf));
}
