// The outbound webhooks' delivery log over GraphQL, for ADMINs (docs/webhooks.md).
import type { Event, WebhookDelivery } from '../db/client.js';
import { listWebhookDeliveries } from '../services/webhook-deliveries.js';
import { builder, requires } from './builder.js';
import { resolveConnection } from './pagination.js';
import { EventRef } from './types/refs.js';

type DeliveryRow = WebhookDelivery & { event: Event };

const WebhookDeliveryStatusEnum = builder.enumType('WebhookDeliveryStatus', {
  description: 'Where a webhook delivery stands.',
  values: {
    PENDING: { description: 'Not yet answered with 2xx: waiting for its first send or its next retry.' },
    DELIVERED: { description: 'The receiver answered 2xx.' },
    FAILED: { description: 'Every attempt (12) failed; it is not sent again.' },
  },
});

const WebhookDeliveryRef = builder.objectRef<DeliveryRow>('WebhookDelivery').implement({
  description: 'One event sent (or to be sent) to one configured webhook. Sent at least once: receivers dedupe on `id`.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'The delivery’s number, sent as the Leasehold-Delivery header and the body’s `id`.' }),
    webhook: t.exposeString('webhook', { description: 'The webhook’s configured name.' }),
    event: t.field({ type: EventRef, description: 'The event it carries.', resolve: (delivery) => delivery.event }),
    status: t.field({ type: WebhookDeliveryStatusEnum, description: 'Where it stands.', resolve: (delivery) => delivery.status }),
    attempts: t.exposeInt('attempts', { description: 'Sends made so far.' }),
    nextAttemptAt: t.expose('nextAttemptAt', {
      type: 'DateTime',
      description: 'When it is (or was) next due to be sent; meaningful while PENDING.',
    }),
    claimedUntil: t.expose('claimedUntil', {
      type: 'DateTime',
      nullable: true,
      description: 'While a server is sending it: until when no other server may.',
    }),
    lastStatusCode: t.exposeInt('lastStatusCode', {
      nullable: true,
      description: 'The HTTP status of the last answer; null if none came.',
    }),
    lastError: t.exposeString('lastError', {
      nullable: true,
      description: 'Why the last attempt failed (HTTP status, timeout, connection error); null after success.',
    }),
    deliveredAt: t.expose('deliveredAt', { type: 'DateTime', nullable: true, description: 'When the receiver answered 2xx.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was enqueued.' }),
  }),
});

builder.queryFields((t) => ({
  webhookDeliveries: t.connection(
    {
      authScopes: requires('Query', 'webhookDeliveries', 'readWebhookDeliveries'),
      type: WebhookDeliveryRef,
      description: 'The outbound webhooks’ delivery log, oldest first (page size 0–100, default 20). ADMIN only.',
      args: {
        status: t.arg({ type: WebhookDeliveryStatusEnum, description: 'Only deliveries in this status.' }),
        webhook: t.arg.string({ description: 'Only deliveries to the webhook of this name.' }),
      },
      resolve: (_root, args, context) =>
        resolveConnection(args, (page) => listWebhookDeliveries(context, { status: args.status, webhook: args.webhook }, page)),
    },
    { name: 'WebhookDeliveryConnection', description: 'A page of the delivery log.' },
    { name: 'WebhookDeliveryEdge', description: 'One delivery in a page.' },
  ),
}));
