// GraphQL shape of categories.
import type { Category } from '../../db/client.js';
import { findCategoriesByNames } from '../../services/queries.js';
import { builder } from '../builder.js';
import type { GraphQLContext } from '../context.js';

export const CategoryRef = builder.objectRef<Category>('Category');

builder.node(CategoryRef, {
  description: 'A label items are classified under. Retired categories stay on old items but cannot be used again.',
  // A global id of its own, so a client cache keeps one object per category (and retireCategory updates lists).
  id: { resolve: (category) => category.name },
  isTypeOf: (value) => typeof value === 'object' && value !== null && 'name' in value && 'retiredAt' in value && !('recordId' in value),
  loadMany: async (names: readonly (string | number | bigint)[], context: GraphQLContext) => {
    const found = new Map((await findCategoriesByNames(context, names.map(String))).map((category) => [category.name, category]));
    return names.map((name) => found.get(String(name)) ?? null);
  },
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The category itself, as stored on items.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was added.' }),
    createdBy: t.exposeString('createdBy', { description: 'Who added it.' }),
    retired: t.boolean({ description: 'True once retired.', resolve: (category) => category.retiredAt !== null }),
    retiredAt: t.expose('retiredAt', { type: 'DateTime', nullable: true, description: 'When it was retired, if it was.' }),
    retiredBy: t.exposeString('retiredBy', { nullable: true, description: 'Who retired it, if anyone did.' }),
  }),
});
