// The Pothos schema builder: plugins, scalars and the shared error types.
import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import ErrorsPlugin from '@pothos/plugin-errors';
import RelayPlugin, { resolveNodes } from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { GraphQLError, type GraphQLField, type GraphQLResolveInfo, getNullableType, isListType } from 'graphql';
import { DateTimeResolver, JSONObjectResolver, JSONResolver } from 'graphql-scalars';
import { PERMISSIONS, type Permission } from '../domain/access.js';
import { DomainError, ERROR_CODES } from '../domain/errors.js';
import { mayUse, whoMayUse } from '../domain/proposal-rules.js';
import type { GraphQLContext } from './context.js';
import { checkListArguments } from './list-limits.js';
import { SUBSCRIPTION_LIMITS_PLUGIN } from './subscription-limits.js';

/** Node types and what the part after `Type:` must be: a row number, or (Category) its name. */
const NODE_TYPES = new Map<string, RegExp>([
  ['Item', /^\d{1,15}$/],
  ['Event', /^\d{1,15}$/],
  ['Proposal', /^\d{1,15}$/],
  ['Category', /^[^\u0000-\u001f]{1,100}$/u],
]);

/**
 * The typename a global id this API did not issue decodes to. Decoding never throws: arguments are
 * decoded for the cost of the whole operation inside whichever root field runs first, so a throw there
 * failed every field of the request (`{ serverTime node(id: "bogus") { id } }` answered `data: null`).
 * The field that uses the id refuses it instead: `node` and `nodes` here, the others by checking the
 * typename they need.
 */
export const NOT_ISSUED = '';

/** Global ids are base64("Type:id"); anything else is the caller's mistake, not a server fault. */
function decodeGlobalId(globalId: string): { typename: string; id: string } {
  const decoded = Buffer.from(globalId, 'base64').toString('utf8');
  const match = /^([A-Za-z]+):(.+)$/su.exec(decoded);
  const part = match?.[1] ? NODE_TYPES.get(match[1]) : undefined;
  if (!match?.[1] || !match[2] || !part?.test(match[2])) return { typename: NOT_ISSUED, id: globalId };
  return { typename: match[1], id: match[2] };
}

type NodeBuilder = Parameters<typeof resolveNodes>[0];
/** The builder, for `nodes` to resolve the ids it keeps (set once the builder exists, below). */
const nodeBuilder: { current: NodeBuilder | null } = { current: null };

/** The error for an id this API did not issue (its decoded form carries the text given). */
function notIssued(id: { id: string }, field: string): DomainError {
  return new DomainError('INVALID_ARGUMENT', `"${id.id.slice(0, 64)}" is not an id this API issued.`, field);
}

/**
 * The cost model: each field costs 1, and 1 more per value in the lists of its arguments (whose lengths
 * are bounded first, src/graphql/list-limits.ts); a connection multiplies what is selected under it by
 * the page it asks for (first/last, default 20, at most 100); a list answered one per value of a list
 * argument (`nodes(ids:)`) by that list's length; other lists by 10. The limit lets a page of 100 items
 * with every field through, or 20 items with 20 events each, but not 100 × 100.
 */
export const QUERY_COST_LIMIT = 5_000;
const DEFAULT_PAGE = 20;

function fieldComplexity(
  args: Record<string, unknown>,
  _context: GraphQLContext,
  field: GraphQLField<unknown, GraphQLContext, Record<string, unknown>>,
) {
  const lists = checkListArguments(field, args);
  const cost = 1 + lists.values;
  if (field.args.some((arg) => arg.name === 'first')) {
    const page = typeof args.first === 'number' ? args.first : typeof args.last === 'number' ? args.last : DEFAULT_PAGE;
    return { field: cost, multiplier: Math.min(Math.max(page, 1), 100) };
  }
  // A connection's edges are already counted by its page size.
  if (field.name === 'edges') return { field: 1, multiplier: 1 };
  if (!isListType(getNullableType(field.type))) return { field: cost, multiplier: 1 };
  return { field: cost, multiplier: lists.longest ?? 10 };
}

/** One auth scope per permission of src/domain/access.ts; each is true when the caller has a role that grants it. */
type AuthScopes = Record<Permission, boolean>;

function scopesOf(context: GraphQLContext): AuthScopes {
  return Object.fromEntries(
    (Object.keys(PERMISSIONS) as Permission[]).map((permission) => [
      permission,
      mayUse(context.principal, permission, context.proposalRules),
    ]),
  ) as AuthScopes;
}

/** Every mutation returns `<Name>Payload | UserError`: branch on `__typename`, or select `... on Error`. */
export const refusals = (name: string) => ({
  types: [DomainError],
  union: { name: `${name}Result`, description: `Either the ${name}Payload or the UserError saying why it was refused.` },
});

/** Which permission each root field needs, so refusals can name the roles that would do. */
export const FIELD_PERMISSIONS = new Map<string, Permission>();

/** The `authScopes` of a root field, remembered for error messages and the documentation test. */
export function requires(parentType: 'Query' | 'Mutation' | 'Subscription', fieldName: string, permission: Permission) {
  FIELD_PERMISSIONS.set(`${parentType}.${fieldName}`, permission);
  return { [permission]: true } as Partial<AuthScopes>;
}

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  AuthScopes: AuthScopes;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    JSONObject: { Input: Record<string, unknown>; Output: Record<string, unknown> };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  defaultFieldNullability: false,
  // Scope-auth first, so a refusal is a top-level FORBIDDEN error rather than a UserError in the union.
  plugins: [ScopeAuthPlugin, ErrorsPlugin, RelayPlugin, ComplexityPlugin, SUBSCRIPTION_LIMITS_PLUGIN],
  complexity: {
    fieldComplexity,
    limit: { complexity: QUERY_COST_LIMIT },
    complexityError: (_kind, result) =>
      new GraphQLError(
        `The operation costs ${result.complexity}, over the limit of ${QUERY_COST_LIMIT}: ask for smaller pages (first/last) or fewer nested connections.`,
        { extensions: { code: 'QUERY_TOO_COMPLEX', cost: result.complexity, limit: QUERY_COST_LIMIT } },
      ),
  },
  scopeAuth: {
    authScopes: scopesOf,
    // Check a subscription once, when it starts, rather than on every event it delivers.
    authorizeOnSubscribe: true,
    unauthorizedError: (_parent, context, info) => {
      const error = new DomainError(
        'FORBIDDEN',
        `${context.principal.name} may not use ${info.parentType.name}.${info.fieldName}: it needs one of the roles ${rolesFor(info.parentType.name, info.fieldName)}.`,
      );
      if (info.parentType.name === 'Mutation') context.recordRefusal(info.fieldName, error);
      return error;
    },
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    decodeGlobalID: decodeGlobalId,
    nodeQueryOptions: {
      description: 'Fetches any object by its global id; null when it does not exist.',
      resolve: (_root, args, _context, _info, resolveNode) => {
        if (args.id.typename === NOT_ISSUED) throw notIssued(args.id, 'id');
        return resolveNode(args.id);
      },
      authScopes: requires('Query', 'node', 'readQueue'),
      args: { id: { description: 'A global id from an `id` field.' } },
    },
    nodesQueryOptions: {
      description: 'Fetches objects by their global ids, in the same order; null for each that does not exist.',
      // An id this API did not issue fails its own entry (null, with an error at its index), not the list.
      resolve: async (_root, args, context, info): Promise<unknown[]> => {
        const ids = args.ids.map((id) => (id.typename === NOT_ISSUED ? null : id));
        const found: unknown[] = await resolveNodes(nodeBuilder.current as NodeBuilder, context, info, ids);
        // graphql-js fails a list entry that is an Error, alone (entries are nullable).
        return args.ids.map((id, index) => (id.typename === NOT_ISSUED ? notIssued(id, `ids[${index}]`) : found[index]));
      },
      authScopes: requires('Query', 'nodes', 'readQueue'),
      args: { ids: { description: 'Global ids from `id` fields.' } },
    },
    nodeTypeOptions: { description: 'An object with a global id (Relay).' },
    idFieldOptions: { description: 'Global id: opaque, stable, accepted by `node(id:)`.' },
    pageInfoTypeOptions: { description: 'Where a page sits in its connection (Relay).' },
    hasNextPageFieldOptions: { description: 'More edges exist after this page.' },
    hasPreviousPageFieldOptions: { description: 'More edges exist before this page.' },
    startCursorFieldOptions: { description: 'Cursor of the first edge of this page.' },
    endCursorFieldOptions: { description: 'Cursor of the last edge of this page; pass it as `after` for the next page.' },
    edgesFieldOptions: { description: 'The page, one edge per node.' },
    pageInfoFieldOptions: { description: 'How to fetch the pages around this one.' },
    cursorFieldOptions: { description: 'Opaque position of this edge, for `after`/`before`.' },
    nodeFieldOptions: { description: 'The object at this position.' },
    firstArgOptions: { description: 'At most this many from the start (0–100, default 20).' },
    afterArgOptions: { description: 'Only those after this cursor.' },
    lastArgOptions: { description: 'At most this many from the end (0–100).' },
    beforeArgOptions: { description: 'Only those before this cursor.' },
  },
  errors: { directResult: true },
});
nodeBuilder.current = builder as unknown as NodeBuilder;

/**
 * Wraps a mutation's resolver so that an expected refusal (a DomainError, which the errors plugin
 * turns into a UserError) is also recorded in the history with the principal who attempted it.
 */
export function audited<Parent, Args, Result>(
  resolve: (parent: Parent, args: Args, context: GraphQLContext) => Promise<Result>,
): (parent: Parent, args: Args, context: GraphQLContext, info: GraphQLResolveInfo) => Promise<Result> {
  return async (parent, args, context, info) => {
    try {
      return await resolve(parent, args, context);
    } catch (error) {
      if (error instanceof DomainError) context.recordRefusal(info.fieldName, error);
      throw error;
    }
  };
}

function rolesFor(parentType: string, fieldName: string): string {
  const permission = FIELD_PERMISSIONS.get(`${parentType}.${fieldName}`);
  return whoMayUse(permission);
}

builder.addScalarType('DateTime', DateTimeResolver, {
  description: 'An instant in UTC, as an ISO-8601 string with milliseconds (e.g. 2026-11-30T09:00:00.000Z).',
});
builder.addScalarType('JSONObject', JSONObjectResolver, { description: 'A JSON object.' });
builder.addScalarType('JSON', JSONResolver, { description: 'Any JSON value.' });

builder.queryType({ description: 'Read the review queue, its items and their history.' });
builder.mutationType({ description: 'Change the review queue. Expected failures come back as `UserError` in the result union.' });

export const ErrorCodeEnum = builder.enumType('ErrorCode', {
  description: 'Why an operation was refused. The first codes keep seed A’s names and meanings.',
  values: Object.fromEntries(Object.entries(ERROR_CODES).map(([code, description]) => [code, { description }])) as Record<
    keyof typeof ERROR_CODES,
    { description: string }
  >,
});

export const ErrorInterface = builder.interfaceRef<DomainError>('Error').implement({
  description: 'Anything that went wrong in a way the caller can act on.',
  fields: (t) => ({
    message: t.exposeString('message', { description: 'What happened and what to do next, in English.' }),
  }),
});

builder.objectType(DomainError, {
  name: 'UserError',
  description: 'An expected refusal: the input broke a rule or the item is not in a state that allows the operation.',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof DomainError,
  fields: (t) => ({
    code: t.field({ type: ErrorCodeEnum, description: 'Stable code to branch on.', resolve: (error) => error.code }),
    field: t.exposeString('field', {
      nullable: true,
      description: 'The input field that broke the rule (e.g. `reason` or `items[3].batchId`), if one did.',
    }),
  }),
});
