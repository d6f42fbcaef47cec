// Relay node loading by global id: numeric ids in, rows (or null for each unknown one) out, in order.
import type { GraphQLContext } from './context.js';

/** Wraps a service lookup by ids for `builder.node(…, { loadMany })`. Ids that are not numbers find nothing. */
export function loadByIds<T extends { id: number }>(find: (context: GraphQLContext, ids: readonly number[]) => Promise<T[]>) {
  return async (ids: readonly (string | number | bigint)[], context: GraphQLContext): Promise<(T | null)[]> => {
    const numeric = ids.map((id) => Number(id));
    const found = await find(
      context,
      numeric.filter((id) => Number.isSafeInteger(id)),
    );
    const byId = new Map(found.map((row) => [row.id, row]));
    return numeric.map((id) => byId.get(id) ?? null);
  };
}
