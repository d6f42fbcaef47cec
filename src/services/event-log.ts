// Writes history rows. Called only inside the write transaction of the change it records.
import type { EventType, Item, ItemStatus, WriteTx } from '../db/client.js';
import type { EventDetails } from '../domain/events.js';

export interface NewEvent {
  type: EventType;
  actor: string;
  at: Date;
  item?: Pick<Item, 'id' | 'version' | 'leaseExpiresAt'>;
  categoryName?: string;
  fromStatus?: ItemStatus;
  toStatus?: ItemStatus;
  details?: EventDetails;
}

export async function recordEvent(tx: WriteTx, event: NewEvent): Promise<void> {
  await tx.event.create({
    data: {
      type: event.type,
      actor: event.actor,
      occurredAt: event.at,
      itemId: event.item?.id ?? null,
      itemVersion: event.item?.version ?? null,
      leaseExpiresAt: event.item?.leaseExpiresAt ?? null,
      categoryName: event.categoryName ?? null,
      fromStatus: event.fromStatus ?? null,
      toStatus: event.toStatus ?? null,
      details: JSON.stringify(event.details ?? {}),
    },
  });
}
