// GraphQL shape of categories.
import type { Category } from '../../db/client.js';
import { builder } from '../builder.js';

export const CategoryRef = builder.objectRef<Category>('Category').implement({
  description: 'A label items are classified under. Retired categories stay on old items but cannot be used again.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The category itself, as stored on items.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was added.' }),
    createdBy: t.exposeString('createdBy', { description: 'Who added it.' }),
    retired: t.boolean({ description: 'True once retired.', resolve: (category) => category.retiredAt !== null }),
    retiredAt: t.expose('retiredAt', { type: 'DateTime', nullable: true, description: 'When it was retired, if it was.' }),
    retiredBy: t.exposeString('retiredBy', { nullable: true, description: 'Who retired it, if anyone did.' }),
  }),
});
