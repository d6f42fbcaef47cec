// Query root fields: lookups, filtered lists, categories, history and the server clock.

import type { ItemFilter } from '../db/page-reads.js';
import { DomainError } from '../domain/errors.js';
import { findItemByKey, listCategories, listEvents, listItems } from '../services/queries.js';
import { holderFilter, renamedTo } from './aliases.js';
import { builder, requires } from './builder.js';
import type { GraphQLContext } from './context.js';
import { resolveConnection } from './pagination.js';
import { CategoryRef } from './types/category.js';
import { ClaimStateEnum, EventConnection, EventRef, EventTypeEnum, ItemRef, ItemStatusEnum } from './types/refs.js';

const ItemFilterInput = builder.inputType('ItemFilter', {
  description: 'Narrows an item list. All given conditions must hold.',
  fields: (t) => ({
    status: t.field({ type: ItemStatusEnum, description: 'Only items with this status.' }),
    claimState: t.field({ type: ClaimStateEnum, description: 'Only items in this claim state (server clock).' }),
    batchId: t.string({ description: 'Only items of this batch.' }),
    claimedBy: t.string({ description: 'Only items this reviewer holds under an unexpired lease.' }),
    holder: t.string({
      description: 'Only items this reviewer holds under an unexpired lease.',
      deprecationReason: renamedTo('claimedBy'),
    }),
    createdAfter: t.field({ type: 'DateTime', description: 'Only items created at or after this instant.' }),
    createdBefore: t.field({ type: 'DateTime', description: 'Only items created before this instant.' }),
  }),
});

const EventFilterInput = builder.inputType('EventFilter', {
  description: 'Narrows the history.',
  fields: (t) => ({
    types: t.field({ type: [EventTypeEnum], description: 'Only events of these types.' }),
    afterSequence: t.int({ description: 'Only events with a sequence greater than this one.' }),
  }),
});

/** The items a filter of status alone (or none) matches, from the maintained counts; null for any other filter. */
async function itemCount(context: GraphQLContext, filter: ItemFilter): Promise<number | null> {
  const conditions = Object.entries(filter).filter(([, value]) => value != null);
  if (conditions.some(([name]) => name !== 'status')) return null;
  const counts = await context.live.tail.queueStats(context.clock.now());
  const byStatus = { PENDING: counts.pending, ACCEPTED: counts.accepted, CORRECTED: counts.corrected, REJECTED: counts.rejected };
  return filter.status ? byStatus[filter.status] : counts.pending + counts.accepted + counts.corrected + counts.rejected;
}

builder.queryFields((t) => ({
  serverTime: t.field({
    authScopes: requires('Query', 'serverTime', 'readQueue'),
    type: 'DateTime',
    description: 'The server clock, the only clock leases follow. Show countdowns against this, not the client clock.',
    resolve: (_root, _args, context) => context.clock.now(),
  }),
  item: t.field({
    authScopes: requires('Query', 'item', 'readQueue'),
    type: ItemRef,
    description: 'Looks an item up by its natural key. ITEM_NOT_FOUND when there is none.',
    errors: {
      types: [DomainError],
      union: { name: 'ItemLookupResult', description: 'The item, or the UserError saying why there is none.' },
    },
    args: {
      batchId: t.arg.string({ required: true, description: 'The batch id (1–100 characters).' }),
      recordId: t.arg.string({ required: true, description: 'The record id (1–100 characters).' }),
    },
    resolve: (_root, args, context) => findItemByKey(context, args.batchId, args.recordId),
  }),
  items: t.connection(
    {
      authScopes: requires('Query', 'items', 'readQueue'),
      type: ItemRef,
      description: 'Items in the order they were added, optionally filtered (page size 0–100, default 20).',
      args: { filter: t.arg({ type: ItemFilterInput, description: 'Conditions every listed item meets.' }) },
      resolve: async (_root, args, context) => {
        const filter = holderFilter(args.filter);
        return { ...(await resolveConnection(args, (page) => listItems(context, filter, page))), filter };
      },
    },
    {
      name: 'ItemConnection',
      description: 'A page of items.',
      fields: (t) => ({
        totalCount: t.int({
          nullable: true,
          description:
            'How many items the whole list holds, across its pages: given with no filter or a `status` filter alone ' +
            '(answered from the maintained counts, never by counting rows), null with any other condition.',
          resolve: (connection, _args, context) => itemCount(context, (connection as unknown as { filter: ItemFilter }).filter),
        }),
      }),
    },
    { name: 'ItemEdge', description: 'One item in a page.' },
  ),
  events: t.connection(
    {
      authScopes: requires('Query', 'events', 'readQueue'),
      type: EventRef,
      description: 'The whole history, oldest first (page size 0–100, default 20).',
      args: { filter: t.arg({ type: EventFilterInput, description: 'Conditions every listed event meets.' }) },
      resolve: (_root, args, context) => resolveConnection(args, (page) => listEvents(context, args.filter ?? {}, page)),
    },
    EventConnection,
  ),
  categories: t.field({
    authScopes: requires('Query', 'categories', 'readQueue'),
    type: [CategoryRef],
    description: 'Categories by name; retired ones only when asked for.',
    args: {
      includeRetired: t.arg.boolean({ defaultValue: false, required: true, description: 'Also list retired categories.' }),
    },
    resolve: (_root, args, context) => listCategories(context, args.includeRetired),
  }),
}));
