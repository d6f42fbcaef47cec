// Everything that makes the queue live in one process: the tail connection, the feed, the lease
// expiry and proposal deadline announcers, and shared queue statistics. Started and stopped with the app.
import type { Database } from '../db/client.js';
import { deferredTail, type EventTail, type QueueStatsRow } from '../db/event-tail.js';
import type { Clock, Timer } from '../domain/clock.js';
import type { EscalationPolicy } from '../domain/escalation.js';
import type { Logger } from '../logger.js';
import type { Policies } from '../services/proposals/index.js';
import { ExpiryAnnouncer } from './expiry-announcer.js';
import { EventFeed, type FeedEvent } from './feed.js';
import { ProposalAnnouncer } from './proposal-announcer.js';
import { ProposalWaits } from './proposal-waits.js';

export interface LiveOptions {
  db: Database;
  clock: Clock;
  logger: Logger;
  /** How long before expiry a holder is warned. */
  leaseWarningMs: number;
  pollIntervalMs?: number;
  /** Approval policies by risk level, when the configuration replaces the defaults. */
  policies?: Policies;
  /** Automatic escalation (PROPOSAL_ESCALATION), run by the proposal deadline announcer; none when unset. */
  escalation?: EscalationPolicy | null;
}

export interface QueueStats extends QueueStatsRow {
  /** The last event these counts include. */
  sequence: number;
  computedAt: Date;
}

export class Live {
  readonly tail: EventTail & { ready(): Promise<void> };
  readonly feed: EventFeed;
  readonly announcer: ExpiryAnnouncer;
  readonly proposalAnnouncer: ProposalAnnouncer;
  /** Decided proposals' waits, for proposalStats. */
  readonly proposalWaits: ProposalWaits;
  /** The app's database, for readers of the whole queue (metrics) that are not tied to a request. */
  readonly db: Database;
  readonly clock: Clock;
  readonly leaseWarningMs: number;
  private statsCache: { sequence: number; value: Promise<QueueStats> } | null = null;
  private readonly detach: (() => void)[] = [];

  constructor(private readonly options: LiveOptions) {
    this.clock = options.clock;
    this.leaseWarningMs = options.leaseWarningMs;
    this.tail = deferredTail(options.db.openTail());
    this.feed = new EventFeed(this.tail, options.logger, { pollIntervalMs: options.pollIntervalMs });
    this.announcer = new ExpiryAnnouncer({ db: options.db, clock: options.clock }, this.tail, options.logger);
    this.proposalAnnouncer = new ProposalAnnouncer(
      { db: options.db, clock: options.clock, policies: options.policies, escalation: options.escalation },
      options.logger,
    );
    this.proposalWaits = new ProposalWaits({ db: options.db, clock: options.clock }, options.logger);
    this.db = options.db;
  }

  /** Opens the tail connection and starts following the history; resolves once it does. */
  async start(): Promise<void> {
    await this.tail.ready();
    await this.feed.start();
    // Before any delivery (those come from timers): every decision after the loaded ones arrives here.
    this.proposalWaits.start(this.feed.sequence);
    this.detach.push(this.feed.observe(this.proposalWaits.onEvents));
    this.detach.push(this.feed.observe(this.announcer.onEvents));
    this.detach.push(this.feed.observe(this.proposalAnnouncer.onEvents));
    this.detach.push(this.options.db.onCommit(() => this.feed.wake()));
    this.announcer.start();
    this.proposalAnnouncer.start();
  }

  async stop(): Promise<void> {
    for (const detach of this.detach.splice(0)) detach();
    this.announcer.stop();
    this.proposalAnnouncer.stop();
    // Whatever is still reading or writing finishes first: the tail and then the database close under
    // nothing (on PostgreSQL a query cut off by the close would fail and be logged as an error).
    await Promise.all([this.feed.stop(), this.announcer.settled(), this.proposalAnnouncer.settled(), this.proposalWaits.settled()]);
    await this.tail.close();
  }

  /**
   * Resolves once every committed change has been delivered and every lease expiry and proposal
   * deadline the clock has passed is recorded (used by tests driving a manual clock, and before shutdown).
   */
  async settled(): Promise<void> {
    for (let round = 0; round < 3; round++) {
      await this.feed.catchUp();
      await new Promise<void>((resolve) => setImmediate(resolve));
      await Promise.all([this.announcer.settled(), this.proposalAnnouncer.settled()]);
    }
    await this.feed.catchUp();
  }

  /**
   * Queue statistics as of the feed's position, computed at most once per feed position (callers
   * asking while it is computed share the one query).
   */
  stats(): Promise<QueueStats> {
    const sequence = this.feed.sequence;
    if (this.statsCache?.sequence === sequence) return this.statsCache.value;
    const computedAt = this.clock.now();
    const value = this.tail.queueStats(computedAt).then((row) => ({ ...row, sequence, computedAt }));
    this.statsCache = { sequence, value };
    value.catch(() => {
      if (this.statsCache?.value === value) this.statsCache = null;
    });
    return value;
  }
}

/** Values a latest-value stream may send in a row after a quiet spell (a change a reviewer makes shows at once). */
export const LATEST_VALUE_BURST = 4;
/** Then one more value per interval at most, so a bulk intake gives a dashboard a few updates a second. */
export const LATEST_VALUE_INTERVAL_MS = 250;

/**
 * A stream that emits `current()` now and again after batches of events, keeping only the latest. A
 * value is computed only when the subscriber is ready for it, so a slow one skips what it could not
 * take; and at most LATEST_VALUE_BURST in a row, then one per LATEST_VALUE_INTERVAL_MS by the clock,
 * always ending on the latest. The intervals are cut from one grid of the clock for every stream, so
 * streams waiting out their interval all compute at the same moment and share `current()`'s cache.
 */
export function latestValueStream<T>(
  live: Live,
  current: () => T | Promise<T>,
  relevant: (events: readonly FeedEvent[]) => boolean = () => true,
): AsyncIterableIterator<T> {
  const slot = () => Math.floor(live.clock.now().getTime() / LATEST_VALUE_INTERVAL_MS);
  /** A value not yet sent is owed (the first one is). */
  let changed = true;
  let closed = false;
  let allowance = LATEST_VALUE_BURST;
  let refilledSlot = slot();
  let timer: Timer | null = null;
  let waiting: { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void } | null = null;

  /** Sends the latest value to the waiting reader, or arms the timer for the next interval when the allowance is spent. */
  const send = () => {
    if (!waiting || !changed || closed) return;
    const now = slot();
    allowance = Math.min(LATEST_VALUE_BURST, allowance + (now - refilledSlot));
    refilledSlot = now;
    if (allowance === 0) {
      timer ??= live.clock.setTimer(new Date((now + 1) * LATEST_VALUE_INTERVAL_MS), () => {
        timer = null;
        send();
      });
      return;
    }
    allowance--;
    changed = false;
    const reader = waiting;
    waiting = null;
    Promise.resolve()
      .then(current)
      .then((value) => reader.resolve({ done: false, value }), reader.reject);
  };
  const unlisten = live.feed.listen((events) => {
    if (!relevant(events)) return;
    changed = true;
    send();
  });
  const iterator: AsyncIterableIterator<T> = {
    [Symbol.asyncIterator]() {
      return iterator;
    },
    next() {
      if (closed) return Promise.resolve({ done: true, value: undefined });
      return new Promise((resolve, reject) => {
        waiting = { resolve, reject };
        send();
      });
    },
    async return() {
      closed = true;
      unlisten();
      timer?.cancel();
      timer = null;
      waiting?.resolve({ done: true, value: undefined });
      waiting = null;
      return { done: true, value: undefined };
    },
  };
  return iterator;
}
