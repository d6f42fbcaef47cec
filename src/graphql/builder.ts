// The Pothos schema builder: plugins, scalars and the shared error types.
import SchemaBuilder from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import RelayPlugin from '@pothos/plugin-relay';
import { DateTimeResolver, JSONObjectResolver } from 'graphql-scalars';
import { DomainError, ERROR_CODES } from '../domain/errors.js';
import type { GraphQLContext } from './context.js';

const NODE_TYPES = new Set(['Item', 'Event']);

/** Global ids are base64("Type:id"); anything else is the caller's mistake, not a server fault. */
function decodeGlobalId(globalId: string): { typename: string; id: string } {
  const decoded = Buffer.from(globalId, 'base64').toString('utf8');
  const match = /^([A-Za-z]+):(\d{1,15})$/.exec(decoded);
  if (!match?.[1] || !match[2] || !NODE_TYPES.has(match[1])) {
    throw new DomainError('INVALID_ARGUMENT', `"${globalId.slice(0, 64)}" is not an id this API issued.`, 'id');
  }
  return { typename: match[1], id: match[2] };
}

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    JSONObject: { Input: Record<string, unknown>; Output: Record<string, unknown> };
  };
}>({
  defaultFieldNullability: false,
  plugins: [ErrorsPlugin, RelayPlugin],
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    decodeGlobalID: decodeGlobalId,
    nodeQueryOptions: {
      description: 'Fetches any object by its global id; null when it does not exist.',
      args: { id: { description: 'A global id from an `id` field.' } },
    },
    nodesQueryOptions: {
      description: 'Fetches objects by their global ids, in the same order; null for each that does not exist.',
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

builder.addScalarType('DateTime', DateTimeResolver, {
  description: 'An instant in UTC, as an ISO-8601 string with milliseconds (e.g. 2026-11-30T09:00:00.000Z).',
});
builder.addScalarType('JSONObject', JSONObjectResolver, { description: 'A JSON object.' });

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
