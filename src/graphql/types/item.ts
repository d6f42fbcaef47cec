// GraphQL shape of review items, their claim state and their history.
import { claimState } from '../../domain/lease.js';
import { findItemsByIds, listEvents } from '../../services/queries.js';
import { builder } from '../builder.js';
import { loadByIds } from '../loaders.js';
import { resolveConnection } from '../pagination.js';
import { ClaimStateEnum, EventConnection, EventRef, ItemKindEnum, ItemRef, ItemStatusEnum } from './refs.js';

builder.node(ItemRef, {
  description: 'A machine proposal waiting for, or having received, a human decision.',
  id: { resolve: (item) => item.id },
  isTypeOf: (value) => typeof value === 'object' && value !== null && 'recordId' in value && 'proposedCategory' in value,
  loadMany: loadByIds(findItemsByIds),
  fields: (t) => ({
    kind: t.field({
      type: ItemKindEnum,
      description: 'What the item asks the reviewer to decide. Every item is a CLASSIFICATION for now.',
      resolve: () => 'CLASSIFICATION' as const,
    }),
    batchId: t.exposeString('batchId', { description: 'The batch the proposal came in (with recordId, the natural key).' }),
    recordId: t.exposeString('recordId', { description: 'The record within the batch.' }),
    proposedCategory: t.exposeString('proposedCategory', { description: 'The category the machine proposed.' }),
    reason: t.exposeString('reason', { description: 'Why the machine proposed it; what the reviewer checks.' }),
    status: t.field({ type: ItemStatusEnum, description: 'Pending, or the decision taken.', resolve: (item) => item.status }),
    finalCategory: t.exposeString('finalCategory', {
      nullable: true,
      description: 'The category after review: the proposal if ACCEPTED, the correction if CORRECTED, null otherwise.',
    }),
    reviewedBy: t.exposeString('reviewedBy', { nullable: true, description: 'Who decided (the lease holder), once decided.' }),
    decidedAt: t.expose('decidedAt', { type: 'DateTime', nullable: true, description: 'When it was decided.' }),
    createdAt: t.expose('createdAt', {
      type: 'DateTime',
      description: 'When it was added, in whole seconds (claim order: createdAt, batchId, recordId).',
    }),
    addedBy: t.exposeString('addedBy', { description: 'Who added it to the queue.' }),
    claimState: t.field({
      type: ClaimStateEnum,
      description: 'UNCLAIMED, ACTIVE or EXPIRED while pending; NOT_APPLICABLE once decided.',
      resolve: (item, _args, context) => claimState(item, context.clock.now()),
    }),
    claimedBy: t.exposeString('claimedBy', {
      nullable: true,
      description: 'Holder of the current or last lease while pending (the lease token is never shown).',
    }),
    claimedAt: t.expose('claimedAt', { type: 'DateTime', nullable: true, description: 'When the current lease was taken.' }),
    leaseExpiresAt: t.expose('leaseExpiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the current lease lapses (or lapsed). Compare with `serverTime`, not the client clock.',
    }),
    leaseNumber: t.exposeInt('leaseNumber', {
      description: 'How many leases have been granted on this item; the current or last lease has this number.',
    }),
    version: t.exposeInt('version', { description: 'Increases with every change; use it to drop stale updates.' }),
    history: t.connection(
      {
        type: EventRef,
        description: 'Every recorded change of this item, oldest first (page size 0–100, default 20).',
        resolve: (item, args, context) => resolveConnection(args, (page) => listEvents(context, { itemId: item.id }, page)),
      },
      EventConnection,
    ),
  }),
});
