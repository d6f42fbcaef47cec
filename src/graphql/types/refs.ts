// Type references shared by the object types (declared here so item and event types can refer to each other).
import type { Event, Item } from '../../db/client.js';
import { EVENT_TYPES } from '../../domain/events.js';
import { builder } from '../builder.js';

export const ItemRef = builder.objectRef<Item>('Item');
export const EventRef = builder.objectRef<Event>('Event');

export const ItemKindEnum = builder.enumType('ItemKind', {
  description: 'What an item asks the reviewer to decide.',
  values: {
    CLASSIFICATION: { description: 'Whether a machine-proposed category for a record is right (seed A’s review items).' },
  },
});

export const ItemStatusEnum = builder.enumType('ItemStatus', {
  description: 'Where an item is in its review.',
  values: {
    PENDING: { description: 'Waiting for a decision (claimable unless an active lease holds it).' },
    ACCEPTED: { description: 'The reviewer kept the proposed category.' },
    CORRECTED: { description: 'The reviewer chose a different allowed category.' },
    REJECTED: { description: 'The reviewer rejected the proposal; there is no final category.' },
  },
});

export const ClaimStateEnum = builder.enumType('ClaimState', {
  description: 'The lease situation of an item, computed from the server clock.',
  values: {
    UNCLAIMED: { description: 'Pending and nobody holds a lease.' },
    ACTIVE: { description: 'Pending and held under an unexpired lease.' },
    EXPIRED: { description: 'Pending; the last lease lapsed, so anyone may claim it.' },
    NOT_APPLICABLE: { description: 'Already decided; leases no longer apply.' },
  },
});

export const EventTypeEnum = builder.enumType('EventType', {
  description: 'What kind of change an event records.',
  values: Object.fromEntries(Object.entries(EVENT_TYPES).map(([type, description]) => [type, { description }])) as Record<
    keyof typeof EVENT_TYPES,
    { description: string }
  >,
});

export const EventConnection = builder.connectionObject(
  { type: EventRef, name: 'EventConnection', description: 'A page of history, oldest first.' },
  { name: 'EventEdge', description: 'One event in a page of history.' },
);
