// GraphQL shape of the append-only history.

import { can } from '../../domain/access.js';
import { shownDetails } from '../../domain/events.js';
import { shownDetailsValues } from '../../domain/masking.js';
import type { FeedEvent } from '../../events/feed.js';
import { findEventsByIds, findItemsByIds } from '../../services/queries.js';
import { renamedTo } from '../aliases.js';
import { builder } from '../builder.js';
import { loadByIds } from '../loaders.js';
import { EventRef, EventTypeEnum, ItemRef, ItemStatusEnum } from './refs.js';

builder.node(EventRef, {
  description: 'One recorded change. Events are never altered or removed (the database refuses).',
  id: { resolve: (event) => event.id },
  isTypeOf: (value) => typeof value === 'object' && value !== null && 'occurredAt' in value && 'details' in value,
  loadMany: loadByIds(findEventsByIds),
  fields: (t) => ({
    sequence: t.exposeInt('id', {
      description: 'Position in the history: strictly increasing, never reused. Resume subscriptions after it.',
    }),
    type: t.field({ type: EventTypeEnum, description: 'What happened.', resolve: (event) => event.type }),
    occurredAt: t.expose('occurredAt', { type: 'DateTime', description: 'Server time of the change.' }),
    actor: t.exposeString('actor', { description: 'Who made the change.' }),
    item: t.field({
      type: ItemRef,
      nullable: true,
      description: 'The item changed, for item events: its current state (for a subscription, as it stood when the event was delivered).',
      resolve: (event, _args, context) => {
        // Answered at once for a feed event, so a subscription's execution stays synchronous (src/graphql/direct-delivery.ts).
        if ('itemSnapshot' in event) return (event as FeedEvent).itemSnapshot;
        return event.itemId === null ? null : findItemsByIds(context, [event.itemId]).then((items) => items[0] ?? null);
      },
    }),
    serverTime: t.field({
      type: 'DateTime',
      description: 'The server clock as this payload was produced: count lease time down against it, not the client clock.',
      resolve: (_event, _args, context) => context.clock.now(),
    }),
    serverNow: t.field({
      type: 'DateTime',
      description: 'The server clock as this payload was produced: count lease time down against it, not the client clock.',
      deprecationReason: renamedTo('serverTime'),
      resolve: (_event, _args, context) => context.clock.now(),
    }),
    categoryName: t.exposeString('categoryName', { nullable: true, description: 'The category changed, for category events.' }),
    fromStatus: t.field({
      type: ItemStatusEnum,
      nullable: true,
      description: 'Item status before the change, when the status changed.',
      resolve: (event) => event.fromStatus,
    }),
    toStatus: t.field({
      type: ItemStatusEnum,
      nullable: true,
      description: 'Item status after the change, when the status changed.',
      resolve: (event) => event.toStatus,
    }),
    leaseExpiresAt: t.expose('leaseExpiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'The lease expiry right after the change (null when no lease remains).',
    }),
    leaseNumber: t.exposeInt('leaseNumber', {
      nullable: true,
      description: 'For lease events: which of the item’s leases (1 for its first) the event is about.',
    }),
    itemVersion: t.exposeInt('itemVersion', { nullable: true, description: 'The item version this change produced.' }),
    details: t.field({
      type: 'JSONObject',
      description:
        'Type-specific details (see docs/domain.md). Never contains a lease token, nor any part of an API key, nor an unmasked sensitive value without SENSITIVE_READER.',
      resolve: (event, _args, context) =>
        shownDetailsValues(
          shownDetails(event.type, JSON.parse(event.details) as Record<string, unknown>),
          context.sensitiveFields,
          can(context.principal, 'readSensitive'),
        ),
    }),
  }),
});
