// Everything that makes the queue live in one process: the tail connection, the feed, the lease
// expiry and proposal deadline announcers, and shared queue statistics. Started and stopped with the app.
import type { Database } from '../db/client.js';
import { EventTail, type QueueStatsRow } from '../db/event-tail.js';
import type { Clock } from '../domain/clock.js';
import type { Logger } from '../logger.js';
import type { Policies } from '../services/proposals.js';
import { ExpiryAnnouncer } from './expiry-announcer.js';
import { EventFeed, type FeedEvent } from './feed.js';
import { ProposalAnnouncer } from './proposal-announcer.js';

export interface LiveOptions {
  db: Database;
  clock: Clock;
  logger: Logger;
  /** How long before expiry a holder is warned. */
  leaseWarningMs: number;
  pollIntervalMs?: number;
  /** Approval policies by risk level, when the configuration replaces the defaults. */
  policies?: Policies;
}

export interface QueueStats extends QueueStatsRow {
  /** The last event these counts include. */
  sequence: number;
  computedAt: Date;
}

export class Live {
  readonly tail: EventTail;
  readonly feed: EventFeed;
  readonly announcer: ExpiryAnnouncer;
  readonly proposalAnnouncer: ProposalAnnouncer;
  /** The app's database, for readers of the whole queue (metrics) that are not tied to a request. */
  readonly db: Database;
  readonly clock: Clock;
  readonly leaseWarningMs: number;
  private statsCache: QueueStats | null = null;
  private readonly detach: (() => void)[] = [];

  constructor(private readonly options: LiveOptions) {
    this.clock = options.clock;
    this.leaseWarningMs = options.leaseWarningMs;
    this.tail = new EventTail(options.db.file);
    this.feed = new EventFeed(this.tail, options.logger, { pollIntervalMs: options.pollIntervalMs });
    this.announcer = new ExpiryAnnouncer({ db: options.db, clock: options.clock }, this.tail, options.logger);
    this.proposalAnnouncer = new ProposalAnnouncer({ db: options.db, clock: options.clock, policies: options.policies }, options.logger);
    this.db = options.db;
  }

  start(): void {
    this.feed.start();
    this.detach.push(this.feed.listen(this.announcer.onEvents));
    this.detach.push(this.feed.listen(this.proposalAnnouncer.onEvents));
    this.detach.push(this.options.db.onCommit(() => this.feed.wake()));
    this.announcer.start();
    this.proposalAnnouncer.start();
  }

  stop(): void {
    for (const detach of this.detach.splice(0)) detach();
    this.announcer.stop();
    this.proposalAnnouncer.stop();
    this.feed.stop();
    this.tail.close();
  }

  /**
   * Resolves once every committed change has been delivered and every lease expiry and proposal
   * deadline the clock has passed is recorded (used by tests driving a manual clock, and before shutdown).
   */
  async settled(): Promise<void> {
    for (let round = 0; round < 3; round++) {
      this.feed.catchUp();
      await new Promise<void>((resolve) => setImmediate(resolve));
      await Promise.all([this.announcer.settled(), this.proposalAnnouncer.settled()]);
    }
    this.feed.catchUp();
  }

  /** Queue statistics as of the feed's position, computed at most once per feed position. */
  stats(): QueueStats {
    const sequence = this.feed.sequence;
    if (this.statsCache?.sequence === sequence) return this.statsCache;
    const computedAt = this.clock.now();
    this.statsCache = { ...this.tail.queueStats(computedAt), sequence, computedAt };
    return this.statsCache;
  }
}

/** A stream that emits `current()` now and again after every batch of events, keeping only the latest. */
export function latestValueStream<T>(live: Live, current: () => T, relevant: (events: readonly FeedEvent[]) => boolean = () => true) {
  let pending: T | null = current();
  let closed = false;
  let waiting: ((result: IteratorResult<T>) => void) | null = null;
  const unlisten = live.feed.listen((events) => {
    if (!relevant(events)) return;
    const value = current();
    if (waiting) {
      const resolve = waiting;
      waiting = null;
      resolve({ done: false, value });
    } else pending = value;
  });
  const iterator: AsyncIterableIterator<T> = {
    [Symbol.asyncIterator]() {
      return iterator;
    },
    async next() {
      if (closed) return { done: true, value: undefined };
      if (pending !== null) {
        const value = pending;
        pending = null;
        return { done: false, value };
      }
      return new Promise((resolve) => {
        waiting = resolve;
      });
    },
    async return() {
      closed = true;
      unlisten();
      waiting?.({ done: true, value: undefined });
      return { done: true, value: undefined };
    },
  };
  return iterator;
}
