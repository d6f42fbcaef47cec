// Appends history rows. Called only inside the write transaction of the change it records, so an
// event exists exactly when its change committed.
import type { EventDetails } from '../domain/events.js';
import type { EventType, ItemStatus, WriteTx } from './client.js';

export interface NewEvent {
  type: EventType;
  actor: string;
  at: Date;
  item?: { id: number; version: number; leaseExpiresAt: Date | null };
  categoryName?: string;
  fromStatus?: ItemStatus;
  toStatus?: ItemStatus;
  details?: EventDetails;
}

export async function appendEvent(tx: WriteTx, event: NewEvent): Promise<void> {
  await tx.$executeRawUnsafe(
    `INSERT INTO "Event" ("occurredAt", "type", "actor", "itemId", "itemVersion", "leaseExpiresAt",
       "categoryName", "fromStatus", "toStatus", "details")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    event.at.getTime(),
    event.type,
    event.actor,
    event.item?.id ?? null,
    event.item?.version ?? null,
    event.item?.leaseExpiresAt?.getTime() ?? null,
    event.categoryName ?? null,
    event.fromStatus ?? null,
    event.toStatus ?? null,
    JSON.stringify(event.details ?? {}),
  );
}
