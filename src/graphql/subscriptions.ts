// Subscription root fields: queue-wide events, one item's events, a lease holder's notices and live
// queue statistics, all fed by the event history (so changes from other processes arrive too).
import { DomainError } from '../domain/errors.js';
import { LIMITS, validateText, validateToken } from '../domain/validation.js';
import { type LeaseNotice, leaseNotices } from '../events/lease-notices.js';
import { LATEST_VALUE_BURST, LATEST_VALUE_INTERVAL_MS, latestValueStream, type QueueStats } from '../events/live.js';
import { eventStream } from '../events/streams.js';
import { renamedTo } from './aliases.js';
import { builder, requires } from './builder.js';
import { AFTER_DESCRIPTION, checkAfter } from './replay.js';
import { EventRef, EventTypeEnum, ItemKindEnum, ItemRef } from './types/refs.js';

builder.subscriptionType({
  description: 'Live updates, over WebSocket (graphql-transport-ws) or server-sent events at /graphql.',
});

const QueueEventFilter = builder.inputType('QueueEventFilter', {
  description: 'Narrows a queue event stream. All given conditions must hold.',
  fields: (t) => ({
    batchId: t.string({ description: 'Only events of items in this batch.' }),
    kinds: t.field({ type: [ItemKindEnum], description: 'Only events of items of these kinds (category events have no item).' }),
    types: t.field({ type: [EventTypeEnum], description: 'Only events of these types.' }),
  }),
});

const LeaseNoticeKindEnum = builder.enumType('LeaseNoticeKind', {
  description: 'What happened to the subscriber’s lease.',
  values: {
    RENEWED: { description: 'The lease was renewed; `expiresAt` is the new expiry.' },
    EXPIRING: { description: 'The lease lapses soon (LEASE_WARNING_SECONDS before `expiresAt`) unless renewed.' },
    EXPIRED: { description: 'The lease lapsed; decisions with its token are refused (CLAIM_EXPIRED).' },
    LOST: { description: 'Someone else claimed the item after the lease lapsed. The stream ends.' },
    RELEASED: { description: 'The lease was released (by its holder, or because its connection closed). The stream ends.' },
    DECIDED: { description: 'The holder decided the item. The stream ends.' },
  },
});

const LeaseNoticeRef = builder.objectRef<LeaseNotice>('LeaseNotice').implement({
  description: 'A change to one lease, for its holder.',
  fields: (t) => ({
    kind: t.field({ type: LeaseNoticeKindEnum, description: 'What happened.', resolve: (notice) => notice.kind }),
    leaseNumber: t.exposeInt('leaseNumber', { description: 'Which of the item’s leases this is.' }),
    leaseExpiresAt: t.expose('expiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'The lease expiry after this notice; null once the lease has ended.',
    }),
    expiresAt: t.expose('expiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'The lease expiry after this notice; null once the lease has ended.',
      deprecationReason: renamedTo('leaseExpiresAt'),
    }),
    event: t.field({
      type: EventRef,
      nullable: true,
      description: 'The recorded event behind the notice (none for EXPIRING, which is a reminder).',
      resolve: (notice) => notice.event,
    }),
    item: t.field({
      type: ItemRef,
      nullable: true,
      description: 'The item as it stood when the notice was made.',
      resolve: async (notice, _args, context) =>
        notice.item ?? (await context.live.tail.itemsById([notice.itemId])).get(notice.itemId) ?? null,
    }),
    serverTime: t.field({
      type: 'DateTime',
      description: 'The server clock as this notice was sent.',
      resolve: (_notice, _args, context) => context.clock.now(),
    }),
    serverNow: t.field({
      type: 'DateTime',
      description: 'The server clock as this notice was sent.',
      deprecationReason: renamedTo('serverTime'),
      resolve: (_notice, _args, context) => context.clock.now(),
    }),
  }),
});

const QueueStatsRef = builder.objectRef<QueueStats>('QueueStats').implement({
  description: 'Counts over the whole queue, as of the event `sequence`.',
  fields: (t) => ({
    pending: t.exposeInt('pending', { description: 'Items waiting for a decision.' }),
    accepted: t.exposeInt('accepted', { description: 'Items decided ACCEPTED.' }),
    corrected: t.exposeInt('corrected', { description: 'Items decided CORRECTED.' }),
    rejected: t.exposeInt('rejected', { description: 'Items decided REJECTED.' }),
    unclaimed: t.exposeInt('unclaimed', { description: 'Pending items nobody has leased.' }),
    activeLeases: t.exposeInt('active', { description: 'Pending items under an unexpired lease.' }),
    expiredLeases: t.exposeInt('expired', { description: 'Pending items whose last lease lapsed (claimable).' }),
    oldestPendingCreatedAt: t.expose('oldestPendingCreatedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Creation time of the oldest pending item.',
    }),
    oldestPendingAgeSeconds: t.float({
      nullable: true,
      description: 'Age of the oldest pending item in seconds, by the server clock.',
      resolve: (stats) =>
        stats.oldestPendingCreatedAt === null ? null : (stats.computedAt.getTime() - stats.oldestPendingCreatedAt.getTime()) / 1000,
    }),
    sequence: t.exposeInt('sequence', { description: 'The last event these counts include.' }),
    serverTime: t.expose('computedAt', { type: 'DateTime', description: 'The server clock when the counts were taken.' }),
    serverNow: t.expose('computedAt', {
      type: 'DateTime',
      description: 'The server clock when the counts were taken.',
      deprecationReason: renamedTo('serverTime'),
    }),
  }),
});

builder.subscriptionFields((t) => ({
  queueEvents: t.field({
    authScopes: requires('Subscription', 'queueEvents', 'subscribeQueue'),
    type: EventRef,
    description: 'Every change to the queue, in order, optionally filtered.',
    args: {
      afterSequence: t.arg.int({ description: AFTER_DESCRIPTION }),
      after: t.arg.int({ description: AFTER_DESCRIPTION, deprecationReason: renamedTo('afterSequence') }),
      filter: t.arg({ type: QueueEventFilter, description: 'Conditions every delivered event meets.' }),
    },
    subscribe: (_root, args, context) => {
      const after = checkAfter(args);
      const batchId = args.filter?.batchId == null ? null : validateText(args.filter.batchId, 'filter.batchId', LIMITS.batchId);
      const types = args.filter?.types?.length ? new Set<string>(args.filter.types) : null;
      // Every item is a CLASSIFICATION today, so a kinds filter keeps exactly the item events.
      const itemsOnly = args.filter?.kinds != null;
      return eventStream(context.live.feed, context.live.tail, {
        after,
        filter: (event) =>
          (types === null || types.has(event.type)) &&
          (batchId === null || event.itemSnapshot?.batchId === batchId) &&
          (!itemsOnly || (event.itemId !== null && (args.filter?.kinds ?? []).includes('CLASSIFICATION'))),
      });
    },
    resolve: (event) => event,
  }),
  itemEvents: t.field({
    authScopes: requires('Subscription', 'itemEvents', 'subscribeQueue'),
    type: EventRef,
    description: 'Every change to one item, in order.',
    args: {
      id: t.arg.globalID({ required: true, description: 'The item’s global id.' }),
      afterSequence: t.arg.int({ description: AFTER_DESCRIPTION }),
      after: t.arg.int({ description: AFTER_DESCRIPTION, deprecationReason: renamedTo('afterSequence') }),
    },
    subscribe: (_root, args, context) => {
      if (args.id.typename !== 'Item') throw new DomainError('INVALID_ARGUMENT', 'id must be an Item id.', 'id');
      const itemId = Number(args.id.id);
      return eventStream(context.live.feed, context.live.tail, {
        after: checkAfter(args),
        filter: (event) => event.itemId === itemId,
      });
    },
    resolve: (event) => event,
  }),
  leaseEvents: t.field({
    authScopes: requires('Subscription', 'leaseEvents', 'subscribeLease'),
    type: LeaseNoticeRef,
    description:
      'The holder’s own stream for one lease: renewed, expiring soon, expired, lost to a re-claim, released, decided. ' +
      'Refused with CLAIM_NOT_FOUND when no pending item holds the token.',
    args: { token: t.arg.string({ required: true, description: 'The token from claimItem.' }) },
    subscribe: (_root, args, context) => leaseNotices(context.live, validateToken(args.token), context.principal.name),
    resolve: (notice) => notice,
  }),
  queueStats: t.field({
    authScopes: requires('Subscription', 'queueStats', 'subscribeQueue'),
    type: QueueStatsRef,
    description:
      `Queue counts now, then again after changes: up to ${LATEST_VALUE_BURST} values in a row, then at most one per ${LATEST_VALUE_INTERVAL_MS} ms, ` +
      'always ending on the latest (a slow client skips values).',
    subscribe: (_root, _args, context) => latestValueStream(context.live, () => context.live.stats()),
    resolve: (stats) => stats,
  }),
}));
