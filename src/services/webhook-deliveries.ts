// Outbound webhook deliveries in the database: enqueued from the history behind a cursor per webhook,
// claimed by one process at a time, their results recorded, and listed for ADMINs (docs/webhooks.md).
import type { Event, EventType, TxSql, WebhookDelivery, WebhookDeliveryStatus, WriteTx } from '../db/client.js';
import { deliveryFromJson } from '../db/write-calls.js';
import { webhookRetryDelayMs } from '../domain/webhooks.js';
import type { ServiceDeps } from './context.js';
import { type PageRequest, settledEventId } from './queries.js';

export interface WantedEvents {
  name: string;
  events: readonly EventType[];
}

export type ClaimedDelivery = WebhookDelivery & { claimedUntil: Date; event: Event };

export interface SendResult {
  /** The receiver answered 2xx. */
  delivered: boolean;
  statusCode: number | null;
  /** Why it failed, for the log (never the URL, which may carry a token). */
  error: string | null;
}

const INSERT_DELIVERY = `
  INSERT INTO "WebhookDelivery" ("webhook", "eventId", "status", "attempts", "nextAttemptAt", "createdAt")
  VALUES (?, ?, 'PENDING', 0, ?, ?)
  ON CONFLICT ("webhook", "eventId") DO NOTHING`;

/**
 * One step of the webhook's cursor through the history, in one write transaction: the next `batch`
 * events of the types it wants get their delivery rows (an existing one is left alone) and the cursor
 * moves past them, or to the end of the history when fewer were found. A restart resumes at the
 * cursor; processes sharing the database take turns at the write lock, so none enqueues an event
 * twice. A webhook seen for the first time starts at the end of the history: it is sent what happens
 * from then on, not the past. Returns the delivery rows considered (a full batch: call again).
 */
export function enqueueWebhookDeliveries(deps: ServiceDeps, webhook: WantedEvents, batch = 200): Promise<number> {
  return deps.db.perform({
    work: (tx, sql) => enqueueStep(deps, tx, sql, webhook, batch),
    // PostgreSQL: one statement under the write lock (leasehold_webhook_enqueue), not an interactive transaction.
    call: {
      fields: { op: 'webhookEnqueue', webhook: webhook.name, events: [...webhook.events], batch },
      clock: deps.clock,
      answer: (answer) => answer.enqueued ?? 0,
    },
  });
}

/** The cursor's step as one interactive write: SQLite's path, and the specification of leasehold_webhook_enqueue. */
async function enqueueStep(deps: ServiceDeps, tx: WriteTx, sql: TxSql, webhook: WantedEvents, batch: number): Promise<number> {
  // PG_WRITE_MODE=sharded: the cursor never passes the horizon, or an event committing later with a
  // smaller id would never be enqueued.
  const settledUpTo = await settledEventId(deps.db, (statement) => sql.all<{ id: number }>(statement));
  const cursor = await tx.webhookCursor.findUnique({ where: { webhook: webhook.name } });
  const last = async () => {
    const newest = (await tx.event.findFirst({ orderBy: { id: 'desc' }, select: { id: true } }))?.id ?? 0;
    return settledUpTo === null ? newest : Math.min(newest, settledUpTo);
  };
  if (!cursor) {
    await tx.webhookCursor.create({ data: { webhook: webhook.name, lastEventId: await last() } });
    return 0;
  }
  const events = await tx.event.findMany({
    where: { id: { gt: cursor.lastEventId, ...(settledUpTo === null ? {} : { lte: settledUpTo }) }, type: { in: [...webhook.events] } },
    orderBy: { id: 'asc' },
    take: batch,
    select: { id: true },
  });
  const now = deps.clock.now();
  for (const event of events) await sql.run(INSERT_DELIVERY, webhook.name, event.id, now, now);
  const to = events.length === batch ? (events.at(-1)?.id ?? cursor.lastEventId) : await last();
  if (to > cursor.lastEventId) await tx.webhookCursor.update({ where: { webhook: webhook.name }, data: { lastEventId: to } });
  return events.length;
}

/**
 * Claims up to `limit` due deliveries of these webhooks for `claimMs`: a conditional update per row
 * under the write lock, so two processes never send one delivery at once. A claim that lapses (its
 * process died mid-send) makes the delivery claimable again: it is sent again, with the same id.
 */
export async function claimDueDeliveries(
  deps: ServiceDeps,
  webhooks: readonly string[],
  limit: number,
  claimMs: number,
): Promise<ClaimedDelivery[]> {
  const claimed = await deps.db.perform<(WebhookDelivery & { event?: Event })[]>({
    work: (tx) => claimStep(deps, tx, webhooks, limit, claimMs),
    // PostgreSQL: one statement (leasehold_webhook_claim); the events, which never change, are read after it.
    call: {
      fields: { op: 'webhookClaim', webhooks: [...webhooks], limit, claimMs },
      clock: deps.clock,
      answer: (answer) => (answer.deliveries ?? []).map(deliveryFromJson),
    },
  });
  const unread = claimed.filter((delivery) => !delivery.event).map((delivery) => delivery.eventId);
  const events =
    unread.length === 0
      ? new Map<number, Event>()
      : new Map((await deps.db.read.event.findMany({ where: { id: { in: unread } } })).map((event) => [event.id, event]));
  return claimed.map((delivery): ClaimedDelivery => {
    const event = delivery.event ?? events.get(delivery.eventId);
    if (!event || !delivery.claimedUntil) throw new Error(`The claimed delivery ${delivery.id} has no event or no claim.`);
    return { ...delivery, claimedUntil: delivery.claimedUntil, event };
  });
}

/** The claim as one interactive write: SQLite's path, and the specification of leasehold_webhook_claim. */
async function claimStep(
  deps: ServiceDeps,
  tx: WriteTx,
  webhooks: readonly string[],
  limit: number,
  claimMs: number,
): Promise<ClaimedDelivery[]> {
  const now = deps.clock.now();
  const unclaimed = { OR: [{ claimedUntil: null }, { claimedUntil: { lte: now } }] };
  const due = await tx.webhookDelivery.findMany({
    where: { status: 'PENDING', webhook: { in: [...webhooks] }, nextAttemptAt: { lte: now }, ...unclaimed },
    orderBy: [{ nextAttemptAt: 'asc' }, { id: 'asc' }],
    take: limit,
    include: { event: true },
  });
  const claimedUntil = new Date(now.getTime() + claimMs);
  const claimed: ClaimedDelivery[] = [];
  for (const delivery of due) {
    const { count } = await tx.webhookDelivery.updateMany({
      where: { id: delivery.id, status: 'PENDING', ...unclaimed },
      data: { claimedUntil },
    });
    if (count === 1) claimed.push({ ...delivery, claimedUntil });
  }
  return claimed;
}

/**
 * Records what the receiver answered: DELIVERED on 2xx; otherwise another attempt after the backoff
 * (domain/webhooks.ts), or FAILED after the last. Only while this claim still holds the delivery.
 */
export function recordDeliveryResult(deps: ServiceDeps, delivery: ClaimedDelivery, result: SendResult, random: number): Promise<boolean> {
  const attempts = delivery.attempts + 1;
  const lastError = result.error?.slice(0, 500) ?? null;
  const delay = result.delivered ? null : webhookRetryDelayMs(attempts, random);
  return deps.db.perform({
    work: async (tx) => {
      const now = deps.clock.now();
      const common = { attempts, claimedUntil: null, lastStatusCode: result.statusCode, lastError };
      const data = result.delivered
        ? { ...common, status: 'DELIVERED' as const, deliveredAt: now }
        : delay === null
          ? { ...common, status: 'FAILED' as const }
          : { ...common, nextAttemptAt: new Date(now.getTime() + delay) };
      const { count } = await tx.webhookDelivery.updateMany({
        where: { id: delivery.id, status: 'PENDING', claimedUntil: delivery.claimedUntil },
        data,
      });
      return count === 1;
    },
    // PostgreSQL: one statement (leasehold_webhook_record).
    call: {
      fields: {
        op: 'webhookRecord',
        id: delivery.id,
        claimedUntil: delivery.claimedUntil.toISOString(),
        attempts,
        statusCode: result.statusCode,
        error: lastError,
        outcome: result.delivered ? 'DELIVERED' : delay === null ? 'FAILED' : 'RETRY',
        delayMs: delay,
      },
      clock: deps.clock,
      answer: (answer) => answer.claimHeld === true,
    },
  });
}

/** Gives back claims this process will not send (it is stopping before it could). */
export function releaseDeliveryClaims(deps: ServiceDeps, deliveries: readonly ClaimedDelivery[]): Promise<void> {
  return deps.db.perform({
    work: async (tx) => {
      for (const delivery of deliveries) {
        await tx.webhookDelivery.updateMany({
          where: { id: delivery.id, status: 'PENDING', claimedUntil: delivery.claimedUntil },
          data: { claimedUntil: null },
        });
      }
    },
    // PostgreSQL: one statement (leasehold_webhook_release).
    call: {
      fields: {
        op: 'webhookRelease',
        claims: deliveries.map((delivery) => ({ id: delivery.id, claimedUntil: delivery.claimedUntil.toISOString() })),
      },
      clock: deps.clock,
      answer: () => undefined,
    },
  });
}

/** When these webhooks next have a delivery due (a lapsing claim counts from its lapse); null when none is pending. */
export async function nextDeliveryDue(deps: ServiceDeps, webhooks: readonly string[]): Promise<Date | null> {
  const rows = await deps.db.read.webhookDelivery.findMany({
    where: { status: 'PENDING', webhook: { in: [...webhooks] } },
    orderBy: [{ nextAttemptAt: 'asc' }, { id: 'asc' }],
    take: 20,
    select: { nextAttemptAt: true, claimedUntil: true },
  });
  let next: number | null = null;
  for (const row of rows) {
    const at = Math.max(row.nextAttemptAt.getTime(), row.claimedUntil?.getTime() ?? 0);
    next = next === null ? at : Math.min(next, at);
  }
  return next === null ? null : new Date(next);
}

export interface DeliveryFilter {
  status?: WebhookDeliveryStatus | null;
  webhook?: string | null;
}

/** One page of the delivery log in id order (oldest first), optionally by status and webhook. */
export function listWebhookDeliveries(
  deps: ServiceDeps,
  filter: DeliveryFilter,
  page: PageRequest,
): Promise<(WebhookDelivery & { event: Event })[]> {
  const id = { ...(page.afterId != null ? { gt: page.afterId } : {}), ...(page.beforeId != null ? { lt: page.beforeId } : {}) };
  return deps.db.read.webhookDelivery.findMany({
    where: {
      ...(filter.status ? { status: filter.status } : {}),
      ...(filter.webhook ? { webhook: filter.webhook } : {}),
      ...(Object.keys(id).length > 0 ? { id } : {}),
    },
    orderBy: { id: page.inverted ? 'desc' : 'asc' },
    take: page.limit,
    include: { event: true },
  });
}
