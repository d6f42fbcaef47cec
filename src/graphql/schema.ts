// Assembles the GraphQL schema from the Pothos types.
import { lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from './builder.js';
import './types/category.js';
import './types/event.js';
import './types/item.js';
import './queries.js';
import './mutations.js';
import './subscriptions.js';
import './access.js';
import './proposals.js';

export const schema = builder.toSchema();

/** The committed `schema.graphql`: sorted so diffs show real changes only. */
export function printSortedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
