// Assembles the GraphQL schema from the Pothos types.
import { encodeGlobalID } from '@pothos/plugin-relay';
import { type GraphQLFieldResolver, GraphQLObjectType, lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from './builder.js';
import './types/category.js';
import './types/event.js';
import './types/item.js';
import './queries.js';
import './mutations.js';
import './subscriptions.js';
import './access.js';
import './proposals/index.js';
import './webhooks.js';

export const schema = builder.toSchema();

// The Relay plugin's `id` resolvers are async functions, so any selection of a node's id made the whole
// execution a promise; answered at once instead, a subscription's execution stays synchronous and its
// events can be written from the feed listener (src/graphql/direct-delivery.ts). Same encoding.
for (const type of Object.values(schema.getTypeMap())) {
  const idOf = (type.extensions as { pothosOptions?: { id?: { resolve?: GraphQLFieldResolver<unknown, unknown> } } }).pothosOptions?.id
    ?.resolve;
  const field = type instanceof GraphQLObjectType ? type.getFields().id : undefined;
  if (!field || !idOf) continue;
  const encode = (id: unknown) => encodeGlobalID(type.name, String(id));
  field.resolve = (parent, args, context, info) => {
    const id = idOf(parent, args, context, info);
    return id instanceof Promise ? id.then(encode) : encode(id);
  };
}

/** The committed `schema.graphql`: sorted so diffs show real changes only. */
export function printSortedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
