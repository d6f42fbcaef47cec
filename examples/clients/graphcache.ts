// urql Graphcache's configuration for Leasehold, from the generated schema (urql-schema.ts, `npm run codegen`):
// - `schema`: which types each union and interface may be, so `... on Error { message }` on a payload is
//   neither read nor written as if it matched;
// - `keys`: every object type without an `id` (a proposal's target, a lease, statistics) is data of its parent,
//   stored inside it (`() => null`), as Graphcache asks to be told; every type with an `id` is keyed by it,
//   which needs nothing, as every `id` is a global one.
import type { CacheExchangeOpts } from '@urql/exchange-graphcache';
import schema from './urql-schema.js';

const ROOTS = new Set(['Query', 'Mutation', 'Subscription']);

const embedded = schema.__schema.types.filter(
  (type) => type.kind === 'OBJECT' && !ROOTS.has(type.name) && !('fields' in type && type.fields.some((field) => field.name === 'id')),
);

export const graphcacheOptions = {
  schema,
  keys: Object.fromEntries(embedded.map((type) => [type.name, () => null])),
} satisfies CacheExchangeOpts;
