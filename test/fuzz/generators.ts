// fast-check arbitraries built from the served GraphQL schema: valid operations, corrupted ones, and raw HTTP requests.
import fc from 'fast-check';
import {
  type GraphQLArgument,
  GraphQLBoolean,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  GraphQLNonNull,
  type GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
  isAbstractType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from 'graphql';

/** The principals the fuzzer sends as: one API key per role. */
export const PRINCIPALS = ['admin', 'proposer', 'reviewer', 'executor', 'viewer'] as const;
export type PrincipalName = (typeof PRINCIPALS)[number];

/**
 * Strings the server handed out earlier (lease tokens, global ids, batch and record ids, fingerprints) and the
 * categories set up before the run. Generated values point into them by index and are resolved when the request
 * is sent, so a generated case stays a pure value (replayable, shrinkable) while still reaching past "not found".
 */
export type PoolName = 'token' | 'id' | 'category' | 'batchId' | 'recordId' | 'fingerprint';
export type Pools = Record<PoolName, string[]>;

/** An argument value, before it is written as a literal or passed as a variable. */
export type Value =
  | { kind: 'scalar'; json: string | number | boolean | null }
  | { kind: 'enum'; name: string }
  | { kind: 'list'; items: Value[] }
  | { kind: 'object'; fields: [string, Value][] }
  | { kind: 'pool'; pool: PoolName; index: number; fallback: string }
  /** JSON scalars: arbitrary JSON has no literal form with arbitrary keys, so it always travels as a variable. */
  | { kind: 'json'; json: unknown }
  /** A deliberately wrong value: how it is written in a document, and what is sent for it as a variable. */
  | { kind: 'raw'; text: string; json: unknown }
  /** Passed as the variable `$vN` declared with `type` (the type of the position it fills). */
  | { kind: 'var'; type: string; inner: Value }
  /** JSON nested `depth` levels deep (variables only): kept symbolic, see DeepJson. */
  | { kind: 'deep'; depth: number; arrays: boolean };

/**
 * JSON nested thousands of levels deep. JSON.stringify (here, and in fast-check's report of a counterexample)
 * recurses and would overflow the test's own stack, so the value stays symbolic until bodyText writes it out.
 */
export class DeepJson {
  constructor(
    readonly depth: number,
    readonly arrays: boolean,
  ) {}
  text(): string {
    return this.arrays ? `${'['.repeat(this.depth)}1${']'.repeat(this.depth)}` : `${'{"a":'.repeat(this.depth)}1${'}'.repeat(this.depth)}`;
  }
}

/** JSON.stringify that names DeepJson values instead of writing them out: for reports. */
export function describeJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner instanceof DeepJson ? `«JSON nested ${inner.depth} levels deep (${inner.arrays ? 'arrays' : 'objects {"a": …}'})»` : inner,
  );
}

/** JSON.stringify that writes DeepJson values out in full. */
export function bodyText(value: unknown): string {
  const deep: DeepJson[] = [];
  const text = JSON.stringify(value, (_key, inner: unknown) => {
    if (!(inner instanceof DeepJson)) return inner;
    deep.push(inner);
    return `\u0000deep${deep.length - 1}\u0000`;
  });
  return deep.length === 0
    ? text
    : text.replace(/"\\u0000deep(\d+)\\u0000"/g, (_, index: string) => (deep[Number(index)] as DeepJson).text());
}

export interface Directive {
  name: 'include' | 'skip';
  condition: Value;
}

export type Selection =
  | { kind: 'field'; name: string; alias: boolean; args: [string, Value][]; sub: Selection[] | null; directive: Directive | null }
  | { kind: 'fragment'; on: string | null; named: boolean; sub: Selection[] };

export interface Operation {
  type: 'query' | 'mutation';
  name: string | null;
  selections: Selection[];
}

/** One GraphQL request: who sends it and its operations (usually one; several exercise operationName). */
export interface GraphQLCase {
  principal: PrincipalName;
  operations: Operation[];
  /** Which operation to run when there are several (the index), or none. */
  pick: number | null;
  /** GET is only for queries; mutations over GET are refused (405), which the invalid cases exercise. */
  get: boolean;
}

export type Corruption =
  | { kind: 'none' }
  | { kind: 'truncate'; at: number }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'duplicate'; at: number; length: number }
  | { kind: 'dropVariable'; index: number }
  | { kind: 'retypeVariable'; index: number; value: unknown }
  | { kind: 'extraVariable'; name: string; value: unknown }
  | { kind: 'variablesNotObject'; value: unknown }
  | { kind: 'undeclaredVariables' }
  | { kind: 'operationName'; name: string }
  | { kind: 'duplicateOperationName' }
  | { kind: 'noOperationName' };

export interface InvalidCase {
  graphql: GraphQLCase;
  corruption: Corruption;
}

/** A request as bytes on the wire: anything an HTTP client could send to /graphql. */
export interface RawRequest {
  method: string;
  /** Path and query string. */
  path: string;
  /** `{principal}` in a header value is replaced by that principal's key when sent. */
  headers: Record<string, string>;
  body: string | Uint8Array | null;
  /** Send the body without Content-Length (chunked). */
  chunked: boolean;
}

/** What actually goes over HTTP for a GraphQL case. */
export interface RenderedRequest {
  query: string;
  variables: Record<string, unknown> | unknown;
  operationName: string | undefined;
  get: boolean;
}

type Mode = 'valid' | 'invalid';

/** `arbitrary`'s value one time in `n`, else null (null first, so failures shrink towards leaving it out). */
function oneIn<T>(n: number, arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: n - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });
}

// ---------------------------------------------------------------------------------------------------------------
// Leaf values
// ---------------------------------------------------------------------------------------------------------------

/** Text a person, a machine or an attacker might type: the server's text rules sit at 50, 100 and 1000 characters. */
const interestingText = fc.constantFrom(
  '',
  ' ',
  ' padded',
  'padded ',
  '\t',
  'a\nb',
  '\u0000',
  'nul\u0000inside',
  '\u001f',
  '\u007f',
  '\u0085',
  '\u200b',
  '\u2028',
  '\ufeff',
  '\ufffd',
  '配送',
  '請求',
  'その他',
  '🙂',
  '👩‍👩‍👧‍👦',
  'é',
  'e\u0301',
  'ＡＢＣ',
  'Robert"); DROP TABLE items;--',
  "' OR 1=1 --",
  '%s%n%x',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4j-style lookup, sent as plain text on purpose.
  '${jndi:ldap://x}',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '__proto__',
  'constructor',
  'null',
  'undefined',
  'NaN',
  '-0',
  '\\',
  '"',
  'lh_short',
);

const longText = fc
  .constantFrom(49, 50, 51, 99, 100, 101, 199, 200, 201, 999, 1000, 1001, 5000, 70_000)
  .chain((length) => fc.constantFrom('x', '照', '🙂', ' ').map((unit) => unit.repeat(length)));

/**
 * Strings: short ASCII and Unicode (graphemes, combining marks, emoji), control characters, the lengths around the
 * server's limits, and some very long ones. `binary` code units (lone surrogates) only where a document's validity
 * does not matter: as a literal they are a syntax error, as a variable they reach the resolvers.
 */
function textArb(mode: Mode): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.string({ maxLength: 16 }) },
    { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 16 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme-composite', maxLength: 8 }) },
    { weight: mode === 'invalid' ? 2 : 0, arbitrary: fc.string({ unit: 'binary', maxLength: 16 }) },
    { weight: 3, arbitrary: interestingText },
    { weight: 1, arbitrary: longText },
  );
}

const INTERESTING_INTS = [0, 1, -1, 2, 19, 20, 21, 29, 30, 31, 99, 100, 101, 299, 300, 301, 499, 500, 501, 3599, 3600, 3601];
const intArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...INTERESTING_INTS) },
  { weight: 2, arbitrary: fc.integer({ min: -5, max: 60 }) },
  { weight: 1, arbitrary: fc.constantFrom(2_147_483_647, -2_147_483_648) },
  { weight: 1, arbitrary: fc.integer({ min: -2_147_483_648, max: 2_147_483_647 }) },
);

const dateArb = fc
  .date({ min: new Date(Date.UTC(1970, 0, 1)), max: new Date(Date.UTC(2200, 0, 1)), noInvalidDate: true })
  .map((date) => date.toISOString());

/** Global ids: `Type:n` in base64, for the node types and for types that are not nodes. */
const globalIdArb = fc
  .tuple(fc.constantFrom('Item', 'Event', 'Proposal', 'Category', 'ApiKey', 'Secret', ''), fc.oneof(fc.nat({ max: 50 }), fc.constant(-1)))
  .map(([type, id]) => Buffer.from(`${type}:${id}`).toString('base64'));

/** Which pool a string argument or input field draws from, by its name. */
function poolOf(name: string, typeName: string): PoolName | null {
  if (typeName === 'ID') return 'id';
  switch (name) {
    case 'token':
      return 'token';
    case 'category':
    case 'proposedCategory':
    case 'names':
      return 'category';
    case 'batchId':
      return 'batchId';
    case 'recordId':
      return 'recordId';
    case 'fingerprint':
      return 'fingerprint';
    default:
      return null;
  }
}

/** Values that break a position's type: numbers where text goes, text where numbers go, out-of-range Ints. */
function wrongScalar(typeName: string): fc.Arbitrary<Value> {
  const raw = (text: string, json: unknown): Value => ({ kind: 'raw', text, json });
  const common: Value[] = [
    raw('true', true),
    raw('[1, 2]', [1, 2]),
    raw('{a: 1}', { a: 1 }),
    raw('"3"', '3'),
    raw('NOT_AN_ENUM', 'NOT_AN_ENUM'),
    raw('1.5', 1.5),
    raw('{}', {}),
  ];
  const numbers: Value[] = [
    raw('2147483648', 2_147_483_648),
    raw('-2147483649', -2_147_483_649),
    raw('9007199254740993', 2 ** 53 + 1),
    raw('1e400', 1e308),
    raw('-1e400', -1e308),
    raw('9'.repeat(400), Number('9'.repeat(400))),
    raw('0.000000001', 1e-9),
    raw('-0', -0),
  ];
  if (typeName === 'Int' || typeName === 'Float') return fc.constantFrom(...numbers, ...common.filter((value) => value !== common[5]));
  if (typeName === 'DateTime') {
    return fc.constantFrom(
      raw('"yesterday"', 'yesterday'),
      raw('"2026-13-45T99:99:99Z"', '2026-13-45T99:99:99Z'),
      raw('"2026-02-30T00:00:00Z"', '2026-02-30T00:00:00Z'),
      raw('""', ''),
      raw('"+275760-09-13T00:00:00.001Z"', '+275760-09-13T00:00:00.001Z'),
      raw('0', 0),
      ...numbers.slice(0, 3),
      ...common,
    );
  }
  return fc.constantFrom(...numbers, ...common);
}

/** Lists nested `depth` levels deep (a few dozen at most: these are also written as literals). */
function nestedLists(depth: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < depth; level++) value = [value];
  return value;
}

// ---------------------------------------------------------------------------------------------------------------
// Schema-driven generators
// ---------------------------------------------------------------------------------------------------------------

/**
 * Root fields as they are, or (half the time) inside fragments on the root type: an inline one, an untyped one, or a
 * named spread of aliased fields with an inline fragment nested in it. The server must collect root fields through
 * them for its authorization and rate limit (issue 15).
 */
function wrapRoot(root: string, fields: Selection[], how: number): Selection[] {
  const [first, ...rest] = fields;
  if (how === 0) return [{ kind: 'fragment', on: root, named: false, sub: fields }];
  if (how === 1) return [{ kind: 'fragment', on: null, named: false, sub: fields }];
  if (how === 2 && first) {
    const aliased = (selection: Selection): Selection => (selection.kind === 'field' ? { ...selection, alias: true } : selection);
    const sub = [
      aliased(first),
      ...(rest.length > 0 ? [{ kind: 'fragment', on: root, named: false, sub: rest.map(aliased) } as const] : []),
    ];
    return [{ kind: 'fragment', on: root, named: true, sub }];
  }
  return fields;
}

export class SchemaArbitraries {
  private readonly memo = new Map<string, fc.Arbitrary<unknown>>();

  constructor(
    private readonly schema: GraphQLSchema,
    /** Root mutation fields each principal may use: most generated mutations are ones the caller may run. */
    private readonly allowedMutations: Record<PrincipalName, string[]>,
    /** Levels of object fields below a root field. */
    private readonly depth = 4,
  ) {}

  private cached<T>(key: string, make: () => fc.Arbitrary<T>): fc.Arbitrary<T> {
    let arbitrary = this.memo.get(key) as fc.Arbitrary<T> | undefined;
    if (!arbitrary) {
      arbitrary = make();
      this.memo.set(key, arbitrary);
    }
    return arbitrary;
  }

  /** A value for an input position of type `type`; `name` is the argument's or input field's name. */
  value(type: GraphQLInputType, name: string, mode: Mode): fc.Arbitrary<Value> {
    return this.cached(`value:${String(type)}:${name}:${mode}`, () => {
      const plain = this.plainValue(type, name, mode);
      // Any value position may be a variable of the position's type instead of a literal.
      const asVariable = plain.map((inner): Value => ({ kind: 'var', type: String(type), inner }));
      return fc.oneof({ weight: 3, arbitrary: plain }, { weight: 1, arbitrary: asVariable });
    });
  }

  private plainValue(type: GraphQLInputType, name: string, mode: Mode): fc.Arbitrary<Value> {
    const nullable = !isNonNullType(type);
    const inner = isNonNullType(type) ? type.ofType : type;
    let arbitrary: fc.Arbitrary<Value>;
    if (isListType(inner)) {
      const item = this.value(inner.ofType, name, mode);
      const list = fc.array(item, { maxLength: 3 }).map((items): Value => ({ kind: 'list', items }));
      // A single value where a list is expected is coerced to a one-element list.
      // As a variable, the single value is declared with the list's type (variables are coerced the same way).
      const single = item.map((value): Value => (value.kind === 'var' ? { ...value, type: String(type) } : value));
      arbitrary = fc.oneof({ weight: 4, arbitrary: list }, { weight: 1, arbitrary: single });
    } else if (isInputObjectType(inner)) {
      const fields = Object.values(inner.getFields());
      const parts = fields.map((field) => {
        const value = this.value(field.type, field.name, mode);
        const required = isNonNullType(field.type) && field.defaultValue === undefined;
        return required
          ? value.map((v): [string, Value] | null => [field.name, v])
          : oneIn(
              2,
              value.map((v): [string, Value] => [field.name, v]),
            );
      });
      arbitrary = fc.tuple(...parts).map((entries): Value => ({ kind: 'object', fields: entries.filter((entry) => entry !== null) }));
    } else if (isEnumType(inner)) {
      arbitrary = fc
        .constantFrom(...inner.getValues().map((value) => value.name))
        .map((enumName): Value => ({ kind: 'enum', name: enumName }));
    } else if (isScalarType(inner)) {
      arbitrary = this.scalar(inner.name, name, mode, String(type));
    } else {
      throw new Error(`unexpected input type ${String(inner)}`);
    }
    if (nullable)
      arbitrary = fc.oneof({ weight: 6, arbitrary }, { weight: 1, arbitrary: fc.constant<Value>({ kind: 'scalar', json: null }) });
    if (mode === 'invalid') arbitrary = fc.oneof({ weight: 9, arbitrary }, { weight: 1, arbitrary: this.wrongValue(type) });
    return arbitrary;
  }

  /** `positionType` is the full type of the position (a variable for it must be declared with exactly that type). */
  private scalar(typeName: string, name: string, mode: Mode, positionType: string): fc.Arbitrary<Value> {
    const scalar = (arbitrary: fc.Arbitrary<string | number | boolean>) => arbitrary.map((json): Value => ({ kind: 'scalar', json }));
    switch (typeName) {
      case 'Int':
        return scalar(intArb);
      case 'Float':
        return scalar(fc.double({ noNaN: true, noDefaultInfinity: true }));
      case 'Boolean':
        return scalar(fc.boolean());
      case 'DateTime':
        return scalar(dateArb);
      case 'JSON':
      case 'JSONObject': {
        const object = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 });
        const json = typeName === 'JSON' ? fc.oneof(fc.jsonValue({ maxDepth: 3 }), object) : object;
        const shallow = json.map((value): Value => ({ kind: 'json', json: value }));
        // Deeply nested JSON is still type-correct (an object at the top for JSONObject): code that recurses over it overflows.
        const deep = fc
          .tuple(fc.integer({ min: 50, max: 20_000 }), fc.boolean())
          .map(([depth, arrays]): Value => ({ kind: 'deep', depth, arrays: arrays && typeName === 'JSON' }));
        return fc
          .oneof({ weight: 3, arbitrary: shallow }, { weight: 1, arbitrary: deep })
          .map((inner): Value => ({ kind: 'var', type: positionType, inner }));
      }
      default: {
        // String and ID.
        const text = typeName === 'ID' ? fc.oneof(globalIdArb, textArb(mode)) : textArb(mode);
        const pool = poolOf(name, typeName);
        if (!pool) return scalar(text);
        const fromPool = fc
          .tuple(fc.nat({ max: 1_000 }), text)
          .map(([index, fallback]): Value => ({ kind: 'pool', pool, index, fallback }));
        return fc.oneof({ weight: 2, arbitrary: fromPool }, { weight: 1, arbitrary: scalar(text) });
      }
    }
  }

  /** Values of the wrong shape for `type`: null where null is refused, nested lists, objects missing fields. */
  private wrongValue(type: GraphQLInputType): fc.Arbitrary<Value> {
    const named = getNamedType(type);
    const options: fc.Arbitrary<Value>[] = [];
    if (isNonNullType(type)) options.push(fc.constant<Value>({ kind: 'scalar', json: null }));
    options.push(
      fc
        .integer({ min: 2, max: 40 })
        .map((depth): Value => ({ kind: 'raw', text: `${'['.repeat(depth)}1${']'.repeat(depth)}`, json: nestedLists(depth) })),
    );
    if (isScalarType(named) && (named.name === 'JSON' || named.name === 'JSONObject')) {
      // Deep JSON, and numbers JSON allows but JavaScript rounds.
      options.push(
        fc
          .tuple(fc.integer({ min: 100, max: 20_000 }), fc.boolean())
          .map(([depth, arrays]): Value => ({ kind: 'var', type: String(type), inner: { kind: 'deep', depth, arrays } })),
        fc.constant<Value>({ kind: 'var', type: String(type), inner: { kind: 'json', json: { big: 1e308, small: 5e-324, negZero: -0 } } }),
      );
    }
    if (isLeafType(named)) options.push(wrongScalar(isEnumType(named) ? 'Enum' : named.name));
    if (isEnumType(named)) {
      const first = named.getValues()[0]?.name ?? 'X';
      options.push(
        fc.constantFrom<Value>(
          { kind: 'raw', text: JSON.stringify(first), json: first },
          { kind: 'raw', text: first.toLowerCase(), json: first.toLowerCase() },
          { kind: 'raw', text: 'true', json: true },
        ),
      );
    }
    if (isInputObjectType(named)) {
      const required = Object.values(named.getFields()).filter((field) => isNonNullType(field.type) && field.defaultValue === undefined);
      options.push(
        fc.constant<Value>({ kind: 'object', fields: [] }),
        fc.constant<Value>({ kind: 'object', fields: [['unknownInputField', { kind: 'scalar', json: 1 }]] }),
        fc.constant<Value>({ kind: 'raw', text: '"an object"', json: 'an object' }),
      );
      if (required.length > 0)
        options.push(fc.constant<Value>({ kind: 'object', fields: [[required[0]?.name ?? 'x', { kind: 'scalar', json: null }]] }));
    }
    return fc.oneof(...options);
  }

  /** Arguments of a field: the required ones always, each optional one half the time; in invalid mode, unknown ones. */
  private args(field: GraphQLField<unknown, unknown>, mode: Mode): fc.Arbitrary<[string, Value][]> {
    return this.cached(`args:${field.name}:${String(field.type)}:${field.args.map((arg) => arg.name).join(',')}:${mode}`, () => {
      const parts = field.args.map((arg: GraphQLArgument) => {
        const value = this.value(arg.type, arg.name, mode).map((v): [string, Value] => [arg.name, v]);
        const required = isNonNullType(arg.type) && arg.defaultValue === undefined;
        return required ? value : oneIn(2, value);
      });
      const bogus: fc.Arbitrary<[string, Value] | null> =
        mode === 'invalid'
          ? oneIn(
              12,
              fc.constantFrom<[string, Value]>(['bogusArgument', { kind: 'scalar', json: 1 }], ['input', { kind: 'scalar', json: 'x' }]),
            )
          : fc.constant(null);
      return fc.tuple(bogus, ...parts).map(([extra, ...entries]) => {
        const given = entries.filter((entry): entry is [string, Value] => entry !== null);
        // A duplicate of an argument already given is invalid too ("There can be only one argument named …").
        return extra ? [...given, extra] : given;
      });
    });
  }

  private directive(mode: Mode): fc.Arbitrary<Directive | null> {
    const condition = this.value(new GraphQLNonNull(GraphQLBoolean), 'if', mode);
    // One field in fifteen: a skipped field is one the server does not run.
    return oneIn(15, fc.record({ name: fc.constantFrom<Directive['name']>('include', 'skip'), condition }));
  }

  /** A selection set on `typeName`, `depth` levels of object fields deep at most. */
  selections(typeName: string, depth: number, mode: Mode, fragmentDepth = 0): fc.Arbitrary<Selection[]> {
    return this.cached(`sel:${typeName}:${depth}:${mode}:${fragmentDepth}`, () => {
      const type = this.schema.getType(typeName) as GraphQLNamedType;
      const typename: Selection = { kind: 'field', name: '__typename', alias: false, args: [], sub: null, directive: null };
      const fragmentTargets: string[] = [];
      let fields: GraphQLField<unknown, unknown>[] = [];
      if (isObjectType(type) || isInterfaceType(type)) {
        fields = Object.values(type.getFields());
        // At the bottom, only fields that need no selection of their own.
        if (depth <= 0) fields = fields.filter((field) => isLeafType(getNamedType(field.type)));
      }
      if (isAbstractType(type)) {
        const possible = this.schema.getPossibleTypes(type);
        fragmentTargets.push(...possible.map((t) => t.name));
        for (const object of possible) for (const iface of object.getInterfaces()) fragmentTargets.push(iface.name);
      } else if (isObjectType(type)) {
        fragmentTargets.push(type.name, ...type.getInterfaces().map((iface) => iface.name));
      }
      const targets = [...new Set(fragmentTargets)];

      const fieldArbs = fields.map((field) => this.field(field, depth, mode));
      const fieldPart: fc.Arbitrary<Selection[]> =
        fieldArbs.length === 0
          ? fc.constant([])
          : fc
              .shuffledSubarray(fieldArbs, { minLength: 0, maxLength: Math.min(3, fieldArbs.length) })
              .chain((chosen) => (chosen.length ? fc.tuple(...chosen) : fc.constant([])));
      const fragmentPart: fc.Arbitrary<Selection[]> =
        targets.length === 0 || fragmentDepth >= 2
          ? fc.constant([])
          : fc.array(
              fc.tuple(fc.constantFrom(...targets), fc.boolean(), fc.boolean()).chain(([on, typed, named]) =>
                this.selections(on, depth, mode, fragmentDepth + 1).map(
                  (sub): Selection => ({
                    kind: 'fragment',
                    on: typed || on !== typeName ? on : null,
                    named: named && (typed || on !== typeName),
                    sub,
                  }),
                ),
              ),
              { maxLength: isAbstractType(type) ? 3 : 1 },
            );
      const bogus: fc.Arbitrary<Selection[]> =
        mode === 'invalid'
          ? oneIn(
              8,
              fc
                .constantFrom('noSuchField', '__schema', 'id', 'item', '__type')
                .map((name): Selection[] => [{ kind: 'field', name, alias: false, args: [], sub: null, directive: null }]),
            ).map((extra) => extra ?? [])
          : fc.constant([]);
      return fc.tuple(fc.boolean(), fieldPart, fragmentPart, bogus).map(([withTypename, chosen, fragments, extra]) => {
        const all = [...(withTypename ? [typename] : []), ...chosen, ...fragments, ...extra];
        return all.length > 0 ? all : [typename];
      });
    });
  }

  private field(field: GraphQLField<unknown, unknown>, depth: number, mode: Mode): fc.Arbitrary<Selection> {
    const named = getNamedType(field.type);
    const sub: fc.Arbitrary<Selection[] | null> = isLeafType(named) ? fc.constant(null) : this.selections(named.name, depth - 1, mode, 0);
    return fc
      .record({
        args: this.args(field, mode),
        sub,
        directive: this.directive(mode),
        rareAlias: fc.nat({ max: 9 }),
      })
      .map(
        ({ args, sub: selection, directive, rareAlias }): Selection => ({
          kind: 'field',
          name: field.name,
          // One field in ten gets an alias (the limit is 20 per document).
          alias: rareAlias === 0,
          args,
          sub: selection,
          directive,
        }),
      );
  }

  /** A GraphQL request as `principal`; mutations mostly from the fields that principal may use. */
  graphqlCase(mode: Mode): fc.Arbitrary<GraphQLCase> {
    const query = this.schema.getQueryType() as GraphQLObjectType;
    const mutation = this.schema.getMutationType() as GraphQLObjectType;
    const rootFields = (root: GraphQLObjectType, names: readonly string[], max: number) => {
      const arbs = names.map((name) => this.field(root.getFields()[name] as GraphQLField<unknown, unknown>, this.depth, mode));
      return fc.shuffledSubarray(arbs, { minLength: 1, maxLength: Math.min(max, arbs.length) }).chain((chosen) => fc.tuple(...chosen));
    };
    const allMutations = Object.keys(mutation.getFields());
    const operation = (principal: PrincipalName): fc.Arbitrary<Operation> => {
      const allowed = this.allowedMutations[principal];
      const mutationFields =
        allowed.length > 0
          ? fc.oneof(
              { weight: 4, arbitrary: rootFields(mutation, allowed, 2) },
              { weight: 1, arbitrary: rootFields(mutation, allMutations, 2) },
            )
          : rootFields(mutation, allMutations, 2);
      return fc
        .record({
          type: fc.constantFrom<Operation['type']>('query', 'mutation'),
          name: fc.option(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,10}$/), { nil: null }),
          queryFields: rootFields(query, Object.keys(query.getFields()), 3),
          mutationFields,
          rootWrap: fc.nat({ max: 5 }),
        })
        .map(({ type, name, queryFields, mutationFields: fieldsOfMutation, rootWrap }) => ({
          type,
          name,
          selections: wrapRoot(type === 'query' ? 'Query' : 'Mutation', type === 'query' ? queryFields : fieldsOfMutation, rootWrap),
        }));
    };
    return fc.constantFrom(...PRINCIPALS).chain((principal) =>
      fc
        .record({
          operations: fc.oneof(
            { weight: 5, arbitrary: operation(principal).map((op) => [op]) },
            { weight: 1, arbitrary: fc.array(operation(principal), { minLength: 2, maxLength: 3 }) },
          ),
          pickSeed: fc.nat(),
          get: fc.nat({ max: 9 }),
        })
        .map(({ operations, pickSeed, get }): GraphQLCase => {
          // Several operations need names to be told apart; distinct ones in valid cases.
          const named = operations.length > 1 ? operations.map((op, index) => ({ ...op, name: `${op.name ?? 'Op'}${index}` })) : operations;
          const pick = named.length > 1 ? pickSeed % named.length : null;
          const chosen = named[pick ?? 0];
          return { principal, operations: named, pick, get: mode === 'valid' ? get === 0 && chosen?.type === 'query' : get === 0 };
        }),
    );
  }

  invalidCase(): fc.Arbitrary<InvalidCase> {
    const at = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
    const junk = fc.oneof(
      fc.constantFrom(
        '{',
        '}',
        '(',
        ')',
        '[',
        ']',
        ':',
        '$',
        '@',
        '!',
        '...',
        '.',
        '"',
        '"""',
        '\\',
        '#',
        ',',
        '=',
        '|',
        '&',
        'on',
        'fragment',
        '\u0000',
        '\ufeff',
        '💥',
      ),
      fc.string({ maxLength: 4 }),
    );
    const anyJson = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom<unknown>(1e308, -1, 2 ** 53 + 1, '', [], {}, [[[[1]]]]));
    const corruption: fc.Arbitrary<Corruption> = fc.oneof(
      { weight: 3, arbitrary: fc.constant<Corruption>({ kind: 'none' }) },
      { weight: 2, arbitrary: at.map((value): Corruption => ({ kind: 'truncate', at: value })) },
      {
        weight: 1,
        arbitrary: fc.record({ at, length: fc.integer({ min: 1, max: 8 }) }).map((c): Corruption => ({ kind: 'delete', ...c })),
      },
      { weight: 2, arbitrary: fc.record({ at, text: junk }).map((c): Corruption => ({ kind: 'insert', ...c })) },
      {
        weight: 1,
        arbitrary: fc.record({ at, length: fc.integer({ min: 1, max: 40 }) }).map((c): Corruption => ({ kind: 'duplicate', ...c })),
      },
      { weight: 1, arbitrary: fc.nat().map((index): Corruption => ({ kind: 'dropVariable', index })) },
      { weight: 2, arbitrary: fc.record({ index: fc.nat(), value: anyJson }).map((c): Corruption => ({ kind: 'retypeVariable', ...c })) },
      {
        weight: 1,
        arbitrary: fc
          .record({ name: fc.string({ maxLength: 6 }), value: anyJson })
          .map((c): Corruption => ({ kind: 'extraVariable', ...c })),
      },
      { weight: 1, arbitrary: anyJson.map((value): Corruption => ({ kind: 'variablesNotObject', value })) },
      { weight: 1, arbitrary: fc.constant<Corruption>({ kind: 'undeclaredVariables' }) },
      { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map((name): Corruption => ({ kind: 'operationName', name })) },
      { weight: 1, arbitrary: fc.constant<Corruption>({ kind: 'duplicateOperationName' }) },
      { weight: 1, arbitrary: fc.constant<Corruption>({ kind: 'noOperationName' }) },
    );
    return fc.record({ graphql: this.graphqlCase('invalid'), corruption });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------------------------

/** Writes a case as a document and its variables, resolving pool references against what the server handed out. */
export function render(testCase: GraphQLCase, pools: Pools): RenderedRequest {
  let variableCount = 0;
  let aliasCount = 0;
  let fragmentCount = 0;
  const variables: Record<string, unknown> = {};
  const resolve = (value: Extract<Value, { kind: 'pool' }>): string => {
    const pool = pools[value.pool];
    return pool.length > 0 ? (pool[value.index % pool.length] as string) : value.fallback;
  };
  const toJson = (value: Value): unknown => {
    switch (value.kind) {
      case 'scalar':
        return value.json;
      case 'enum':
        return value.name;
      case 'list':
        return value.items.map(toJson);
      case 'object':
        return Object.fromEntries(value.fields.map(([name, field]) => [name, toJson(field)]));
      case 'pool':
        return resolve(value);
      case 'json':
      case 'raw':
        return value.json;
      case 'deep':
        return new DeepJson(value.depth, value.arrays);
      case 'var':
        return toJson(value.inner);
    }
  };

  const renderOperation = (operation: Operation): string => {
    const declarations: string[] = [];
    const fragments: string[] = [];
    const literal = (value: Value): string => {
      switch (value.kind) {
        case 'scalar':
          return value.json === null ? 'null' : JSON.stringify(value.json);
        case 'enum':
          return value.name;
        case 'list':
          return `[${value.items.map(literal).join(', ')}]`;
        case 'object':
          return `{${value.fields.map(([name, field]) => `${name}: ${literal(field)}`).join(', ')}}`;
        case 'pool':
          return JSON.stringify(resolve(value));
        case 'raw':
          return value.text;
        case 'json':
        case 'deep':
        case 'var': {
          const name = `v${variableCount++}`;
          declarations.push(`$${name}: ${value.kind === 'var' ? value.type : 'JSON'}`);
          variables[name] = toJson(value);
          return `$${name}`;
        }
      }
    };
    /** `used` holds the response names of the merged selection set, so fragments never select one name twice. */
    const selectionSet = (selections: Selection[], used: Set<string>): string => {
      const parts: string[] = [];
      for (const selection of selections) {
        if (selection.kind === 'field') {
          const responseName = selection.alias ? `a${aliasCount++}` : selection.name;
          if (!selection.alias && selection.name !== '__typename' && used.has(responseName)) continue;
          used.add(responseName);
          const args =
            selection.args.length > 0 ? `(${selection.args.map(([name, value]) => `${name}: ${literal(value)}`).join(', ')})` : '';
          const directive = selection.directive ? ` @${selection.directive.name}(if: ${literal(selection.directive.condition)})` : '';
          const sub = selection.sub ? ` { ${selectionSet(selection.sub, new Set())} }` : '';
          parts.push(`${selection.alias ? `${responseName}: ` : ''}${selection.name}${args}${directive}${sub}`);
        } else {
          const body = selectionSet(selection.sub, used);
          if (selection.named && selection.on) {
            const name = `F${fragmentCount++}`;
            fragments.push(`fragment ${name} on ${selection.on} { ${body} }`);
            parts.push(`...${name}`);
          } else {
            parts.push(`...${selection.on ? ` on ${selection.on}` : ''} { ${body} }`);
          }
        }
      }
      return parts.length > 0 ? parts.join(' ') : '__typename';
    };
    const body = selectionSet(operation.selections, new Set());
    const header = [operation.type, operation.name ?? '', declarations.length > 0 ? `(${declarations.join(', ')})` : '']
      .filter((part) => part !== '')
      .join(' ');
    return [`${header} { ${body} }`, ...fragments].join('\n');
  };

  const documents = testCase.operations.map(renderOperation);
  const chosen = testCase.pick === null ? undefined : (testCase.operations[testCase.pick]?.name ?? undefined);
  return { query: documents.join('\n'), variables, operationName: chosen, get: testCase.get };
}

/** Applies a corruption to a rendered request: broken syntax, wrong or missing variables, mismatched names. */
export function corrupt(request: RenderedRequest, corruption: Corruption): RenderedRequest {
  const { query } = request;
  const position = (at: number) => Math.floor(at * query.length);
  const variables = { ...(request.variables as Record<string, unknown>) };
  const names = Object.keys(variables);
  const nth = (index: number) => names[index % Math.max(1, names.length)];
  switch (corruption.kind) {
    case 'none':
      return request;
    case 'truncate':
      return { ...request, query: query.slice(0, position(corruption.at)) };
    case 'delete':
      return { ...request, query: query.slice(0, position(corruption.at)) + query.slice(position(corruption.at) + corruption.length) };
    case 'insert':
      return { ...request, query: query.slice(0, position(corruption.at)) + corruption.text + query.slice(position(corruption.at)) };
    case 'duplicate': {
      const start = position(corruption.at);
      const piece = query.slice(start, start + corruption.length);
      return { ...request, query: query.slice(0, start) + piece + piece + query.slice(start + corruption.length) };
    }
    case 'dropVariable': {
      const name = nth(corruption.index);
      if (name !== undefined) delete variables[name];
      return { ...request, variables };
    }
    case 'retypeVariable': {
      const name = nth(corruption.index);
      if (name !== undefined) variables[name] = corruption.value;
      return { ...request, variables };
    }
    case 'extraVariable':
      return { ...request, variables: { ...variables, [corruption.name]: corruption.value } };
    case 'variablesNotObject':
      return { ...request, variables: corruption.value };
    case 'undeclaredVariables':
      // Variables used but never declared: drop every declaration list.
      return { ...request, query: query.replace(/\((\$v\d+: [^)]*)\)(?= \{)/g, '') };
    case 'operationName':
      return { ...request, operationName: corruption.name };
    case 'duplicateOperationName': {
      // The whole document twice, its first operation named the same both times (its fragments are doubled too).
      const named = query.replace(/^(query|mutation)( [A-Za-z_][A-Za-z0-9_]*)?/, '$1 Twice');
      return { ...request, query: `${named}\n${named}`, operationName: 'Twice' };
    }
    case 'noOperationName':
      return { ...request, operationName: undefined, query: `${query}\nquery { serverTime }` };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Raw HTTP
// ---------------------------------------------------------------------------------------------------------------

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/JSON',
  'application/json; charset=latin1',
  'application/graphql-response+json',
  'application/graphql',
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'multipart/form-data',
  'application/xml',
  'image/png',
  ';;;',
  '',
];
const ACCEPTS = [
  'application/json',
  'application/graphql-response+json',
  'application/graphql-response+json, application/json;q=0.9',
  '*/*',
  'text/event-stream',
  'multipart/mixed',
  'text/html',
  'image/png',
  'garbage/!!',
];

/** A raw request to /graphql: methods, content types, bodies and query strings clients and attackers send. */
export function rawRequestArb(simpleQuery: fc.Arbitrary<string>): fc.Arbitrary<RawRequest> {
  const principal = fc.constantFrom(...PRINCIPALS);
  const authorization = fc.oneof(
    { weight: 12, arbitrary: principal.map((name) => `Bearer {${name}}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        'Bearer',
        'Bearer ',
        'Basic YTpi',
        `Bearer lhk_${'A'.repeat(43)}`,
        'Bearer a.b.c',
        'bearer {viewer}',
        '{viewer}',
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((text) => `Bearer ${text.replace(/[\r\n]/g, '')}`) },
  );
  const jsonValue = fc.jsonValue({ maxDepth: 3 });
  const params = fc.record(
    {
      query: fc.oneof({ weight: 4, arbitrary: simpleQuery }, { weight: 1, arbitrary: jsonValue }),
      variables: fc.oneof(jsonValue, fc.constant({})),
      operationName: fc.oneof(fc.string({ maxLength: 6 }), jsonValue),
      extensions: fc.oneof(
        jsonValue,
        fc.constant({ persistedQuery: { version: 1, sha256Hash: 'abc' } }),
        fc.constant({ persistedQuery: { version: 1, sha256Hash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' } }),
      ),
    },
    { requiredKeys: [] },
  );
  const textBody = fc.oneof(
    { weight: 4, arbitrary: params.map((p) => JSON.stringify(p)) },
    { weight: 1, arbitrary: fc.array(params, { maxLength: 3 }).map((batch) => JSON.stringify(batch)) },
    { weight: 1, arbitrary: jsonValue.map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: simpleQuery },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        '{',
        '{"query":',
        '{"query":"{ serverTime }"',
        'null',
        '{"query":"{ serverTime }"}garbage',
        `{"query":"{ serverTime }","query":"{ viewer { name } }"}`,
      ),
    },
    { weight: 1, arbitrary: simpleQuery.map((query) => `query=${encodeURIComponent(query)}`) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 1_000, max: 50_000 }), fc.boolean())
        .map(([depth, arrays]) => `{"query":"{ serverTime }","variables":{"a":${new DeepJson(depth, arrays).text()}}}`),
    },
  );
  const body: fc.Arbitrary<string | Uint8Array | null> = fc.oneof(
    { weight: 10, arbitrary: textBody },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }) },
    // Invalid UTF-8 inside an otherwise valid request.
    {
      weight: 1,
      arbitrary: fc.constant(
        Buffer.concat([
          Buffer.from('{"query":"{ item(batchId: \\"'),
          Buffer.from([0xff, 0xfe, 0xc0, 0x80]),
          Buffer.from('\\", recordId: \\"x\\") { __typename } }"}'),
        ]),
      ),
    },
    // Just over the 2 MiB limit.
    { weight: 1, arbitrary: fc.constant(`{"query":"{ serverTime }","variables":{"pad":"${'x'.repeat(2 * 1024 * 1024)}"}}`) },
    { weight: 1, arbitrary: fc.constant(null) },
  );
  const queryString = fc
    .record(
      {
        query: fc.oneof(simpleQuery, fc.string({ maxLength: 10 }), fc.constant('mutation { claimItem(input: {}) { __typename } }')),
        variables: fc.oneof(
          jsonValue.map((value) => JSON.stringify(value)),
          fc.string({ maxLength: 10 }),
        ),
        operationName: fc.string({ maxLength: 6 }),
        extensions: fc.oneof(
          jsonValue.map((value) => JSON.stringify(value)),
          fc.string({ maxLength: 10 }),
        ),
      },
      { requiredKeys: [] },
    )
    .map((record) => {
      const search = new URLSearchParams(Object.entries(record) as [string, string][]).toString();
      return search ? `/graphql?${search}` : '/graphql';
    });
  const optionalHeader = (values: fc.Arbitrary<string>, weight = 1) => fc.option(values, { nil: undefined, freq: weight });
  return fc
    .record({
      method: fc.oneof(
        { weight: 8, arbitrary: fc.constant('POST') },
        { weight: 4, arbitrary: fc.constant('GET') },
        { weight: 1, arbitrary: fc.constantFrom('PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD') },
      ),
      path: fc.oneof({ weight: 3, arbitrary: fc.constant('/graphql') }, { weight: 2, arbitrary: queryString }),
      authorization: fc.option(authorization, { nil: undefined, freq: 12 }),
      contentType: optionalHeader(fc.constantFrom(...CONTENT_TYPES), 8),
      accept: optionalHeader(fc.constantFrom(...ACCEPTS), 2),
      csrf: fc.boolean(),
      body,
      chunked: fc.nat({ max: 19 }).map((n) => n === 0),
    })
    .map(({ method, path, authorization: auth, contentType, accept, csrf, body: payload, chunked }): RawRequest => {
      const headers: Record<string, string> = {};
      if (auth !== undefined) headers.authorization = auth;
      if (contentType !== undefined && contentType !== '') headers['content-type'] = contentType;
      if (accept !== undefined) headers.accept = accept;
      if (csrf) headers['x-graphql-yoga-csrf'] = '1';
      const bodyless = method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
      return { method, path, headers, body: bodyless ? null : payload, chunked: !bodyless && payload !== null && chunked };
    });
}
