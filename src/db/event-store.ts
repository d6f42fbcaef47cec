// Appends history rows. Called only inside the write transaction of the change it records, so an
// event exists exactly when its change committed.
import type { EventDetails } from '../domain/events.js';
import type { EventType, ItemStatus } from './client.js';
import type { TxSql } from './tx-sql.js';

export interface NewEvent {
  type: EventType;
  actor: string;
  at: Date;
  item?: { id: number; version: number; leaseExpiresAt: Date | null };
  /** For lease events: which of the item's leases (Item.leaseNumber) the event is about. */
  leaseNumber?: number;
  categoryName?: string;
  /** For proposal events: the proposal (its state changes ride in details). */
  proposalId?: number;
  fromStatus?: ItemStatus;
  toStatus?: ItemStatus;
  details?: EventDetails;
}

const INSERT_EVENT = `
  INSERT INTO "Event" ("occurredAt", "type", "actor", "itemId", "itemVersion", "leaseExpiresAt",
    "categoryName", "fromStatus", "toStatus", "details", "leaseNumber", "proposalId")
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

export async function appendEvent(sql: TxSql, event: NewEvent): Promise<void> {
  await sql.run(
    INSERT_EVENT,
    event.at,
    event.type,
    event.actor,
    event.item?.id ?? null,
    event.item?.version ?? null,
    event.item?.leaseExpiresAt ?? null,
    event.categoryName ?? null,
    event.fromStatus ?? null,
    event.toStatus ?? null,
    JSON.stringify(event.details ?? {}),
    event.leaseNumber ?? null,
    event.proposalId ?? null,
  );
}
