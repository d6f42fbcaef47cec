// The event catalogue: every state change the history records, with its details shape.

export const EVENT_TYPES = {
  CATEGORY_ADDED: 'A category became available for new items.',
  CATEGORY_RETIRED: 'A category stopped being available for new items; old items keep it.',
  ITEM_ADDED: 'A review item entered the queue.',
  LEASE_CLAIMED: 'A reviewer took a lease on an item (possibly replacing a lapsed lease).',
  LEASE_RENEWED: "The holder reset the lease's expiry to now + leaseSeconds.",
  LEASE_RELEASED: 'The holder gave the item back without a decision (or their connection closed, for a connection-bound lease).',
  LEASE_EXPIRED:
    'A lease lapsed without renewal; recorded once per lease, when it happens or at the latest when the item is claimed again.',
  ITEM_DECIDED: 'The holder recorded a decision; the lease ended with it.',
  API_KEY_CREATED: 'An administrator (or the first start of a new database) made an API key; details name it, never the key.',
  API_KEY_REVOKED: 'An administrator revoked an API key; connections it opened are closed.',
  OPERATION_REFUSED:
    'An authenticated principal attempted a change and was refused (missing role, not the holder, self-review, or a broken rule); details say which operation and why.',
} as const;

export type EventType = keyof typeof EVENT_TYPES;

/** Type-specific details stored with each event. Never contains a lease token. */
export type EventDetails = Record<string, string | number | boolean | null>;
