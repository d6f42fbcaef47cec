// Outbound webhooks: follows the history (the event feed, and once at start), enqueues what each
// configured webhook wants, POSTs it signed, and retries on the clock's timers. Nothing else waits for
// it: a webhook that fails never holds up, approves or changes anything (docs/webhooks.md).
import type { WebhookConfig } from '../config/webhooks.js';
import type { Database, Event } from '../db/client.js';
import type { Clock, Timer } from '../domain/clock.js';
import { shownDetails } from '../domain/events.js';
import { NO_SENSITIVE_PATHS, type SensitivePaths, shownDetailsValues } from '../domain/masking.js';
import { webhookSignature } from '../domain/webhooks.js';
import type { Logger } from '../logger.js';
import {
  type ClaimedDelivery,
  claimDueDeliveries,
  enqueueWebhookDeliveries,
  nextDeliveryDue,
  recordDeliveryResult,
  type SendResult,
} from '../services/webhook-deliveries.js';

/** A receiver must answer within this. */
export const WEBHOOK_TIMEOUT_MS = 5_000;
/** How long a claim keeps other processes off a delivery: the timeout and ample room to record the answer. */
const CLAIM_MS = 30_000;
/** Deliveries sent at once by one process. */
const SEND_BATCH = 8;
const ENQUEUE_BATCH = 200;
const RETRY_AFTER_ERROR_MS = 1_000;

export interface WebhookDispatcherOptions {
  db: Database;
  clock: Clock;
  logger: Logger;
  webhooks: readonly WebhookConfig[];
  /** PROPOSAL_SENSITIVE_FIELDS: a receiver is no principal, so they are always masked. */
  sensitiveFields?: SensitivePaths;
  timeoutMs?: number;
  /** [0, 1): the backoff's jitter. */
  random?: () => number;
}

/** The JSON body of one delivery; sensitive values are always masked (a receiver is no principal). */
export function deliveryBody(delivery: ClaimedDelivery, sensitiveFields: SensitivePaths = NO_SENSITIVE_PATHS): string {
  const { event } = delivery;
  return JSON.stringify({
    id: delivery.id,
    webhook: delivery.webhook,
    event: {
      sequence: event.id,
      type: event.type,
      occurredAt: event.occurredAt.toISOString(),
      actor: event.actor,
      itemId: event.itemId,
      proposalId: event.proposalId,
      categoryName: event.categoryName,
      fromStatus: event.fromStatus,
      toStatus: event.toStatus,
      details: shownDetailsValues(shownDetails(event.type, JSON.parse(event.details) as Record<string, unknown>), sensitiveFields, false),
    },
  });
}

export class WebhookDispatcher {
  private readonly byName: Map<string, WebhookConfig>;
  private readonly wanted: Set<string>;
  private readonly timeoutMs: number;
  private readonly random: () => number;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private timer: Timer | null = null;
  private armedFor: number | null = null;

  constructor(private readonly options: WebhookDispatcherOptions) {
    this.byName = new Map(options.webhooks.map((webhook) => [webhook.name, webhook]));
    this.wanted = new Set(options.webhooks.flatMap((webhook) => webhook.events));
    this.timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    this.random = options.random ?? Math.random;
  }

  start(): void {
    if (this.byName.size === 0) return;
    this.stopped = false;
    this.wake();
  }

  /** Whether a webhook wants ITEM_ADDED events (the feed leaves them out of its observers' pages otherwise). */
  get wantsItemsAdded(): boolean {
    return this.wanted.has('ITEM_ADDED');
  }

  /** Feed observer: an event some webhook wants, from this process or another. */
  onEvents = (events: readonly Event[]): void => {
    if (events.some((event) => this.wanted.has(event.type))) this.wake();
  };

  /** Stops taking new work; resolves once the sends under way have answered (or timed out) and are recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
    await this.settled();
  }

  /** Resolves once no pass is running (for tests driving a manual clock, and before shutdown). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Runs a pass now, or one more after the current pass when one is running. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.pass();
        } while (this.again && !this.stopped);
      } finally {
        this.running = null;
      }
    })();
  }

  private async pass(): Promise<void> {
    const { logger } = this.options;
    const names = [...this.byName.keys()];
    try {
      for (const webhook of this.byName.values()) {
        while (!this.stopped && (await enqueueWebhookDeliveries(this.options, webhook, ENQUEUE_BATCH)) === ENQUEUE_BATCH);
      }
      while (!this.stopped) {
        const claimed = await claimDueDeliveries(this.options, names, SEND_BATCH, CLAIM_MS);
        if (claimed.length === 0) break;
        await Promise.all(claimed.map((delivery) => this.deliver(delivery)));
      }
      if (!this.stopped) this.arm(await nextDeliveryDue(this.options, names));
    } catch (error) {
      logger.error({ err: error }, `webhook deliveries: could not read or record; retrying in ${RETRY_AFTER_ERROR_MS / 1000} s`);
      this.arm(new Date(this.options.clock.now().getTime() + RETRY_AFTER_ERROR_MS));
    }
  }

  private arm(at: Date | null): void {
    if (this.stopped) return;
    if (at === null) {
      this.timer?.cancel();
      this.timer = null;
      this.armedFor = null;
      return;
    }
    if (this.timer && this.armedFor === at.getTime()) return;
    this.timer?.cancel();
    this.armedFor = at.getTime();
    this.timer = this.options.clock.setTimer(at, () => {
      this.timer = null;
      this.armedFor = null;
      this.wake();
    });
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const webhook = this.byName.get(delivery.webhook);
    if (!webhook) return;
    const result = await this.send(webhook, delivery);
    const recorded = await recordDeliveryResult(this.options, delivery, result, this.random());
    const line = { webhook: webhook.name, delivery: delivery.id, sequence: delivery.eventId, attempt: delivery.attempts + 1 };
    if (!recorded)
      this.options.logger.warn(line, 'webhook delivery: the claim lapsed before the answer was recorded; it will be sent again');
    else if (result.delivered) this.options.logger.debug({ ...line, status: result.statusCode }, 'webhook delivered');
    else this.options.logger.warn({ ...line, status: result.statusCode, error: result.error }, 'webhook delivery failed');
  }

  private async send(webhook: WebhookConfig, delivery: ClaimedDelivery): Promise<SendResult> {
    const body = deliveryBody(delivery, this.options.sensitiveFields);
    try {
      const response = await fetch(webhook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Leasehold-Webhooks/1',
          'leasehold-delivery': String(delivery.id),
          'leasehold-event': delivery.event.type,
          'leasehold-signature': webhookSignature(webhook.secret, body, this.options.clock.now()),
        },
        body,
        // A redirect is an answer like any other non-2xx: the signed body is not sent on elsewhere.
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      await response.body?.cancel();
      const delivered = response.status >= 200 && response.status < 300;
      return { delivered, statusCode: response.status, error: delivered ? null : `HTTP ${response.status}` };
    } catch (error) {
      return { delivered: false, statusCode: null, error: describeFailure(error, this.timeoutMs) };
    }
  }
}

/** A network failure in a few words (the URL is left out: it may carry a token). */
function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof DOMException && error.name === 'TimeoutError') return `no answer within ${timeoutMs / 1000} s`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
