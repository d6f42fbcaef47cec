// The event feed: follows the Event table (the outbox every change commits into) and hands each
// new event, in sequence order, exactly once to every listener in this process. Changes made by
// other processes (a second server, the command line) arrive the same way as our own.
import type { Event, Item } from '../db/client.js';
import type { EventTail } from '../db/event-tail.js';
import type { Logger } from '../logger.js';
import { fanOutPace, restWhileWanted } from './fan-out-pace.js';

/** An event as delivered: the row, plus the item as it stood right after (read once per batch). */
export interface FeedEvent extends Event {
  itemSnapshot: Item | null;
}

export type FeedListener = (events: readonly FeedEvent[]) => void;

/**
 * The server's own followers take the rows alone (none needs the items, read only for subscribers), and
 * not the ITEM_ADDED events unless they ask (see EventFeed.observe). `through`: the last sequence number
 * the page covers, whatever was left out of it.
 */
export type FeedObserver = (events: readonly Event[], through: number) => void;

export interface ObserveOptions {
  /** Hand this observer the ITEM_ADDED events too (one per item of a bulk intake: only a webhook wants them). */
  itemsAdded?: boolean;
}

export interface FeedOptions {
  /** How often to look for commits by other processes (PRAGMA data_version costs microseconds). */
  pollIntervalMs?: number;
  batchSize?: number;
  /**
   * Most milliseconds of listener work (the fan-out to every subscriber) in one turn of the event loop;
   * a page that takes longer is handed over in slices, with a turn for requests between them.
   */
  sliceBudgetMs?: number;
}

/**
 * With 1,000 subscribers one event costs the fan-out ~5 ms, so a page of 500 (a bulk intake) would
 * hold the event loop for seconds while reviewers' requests wait. Live traffic goes in slices of 2 ms
 * (one event in parts, see handOverInParts): a turn of the loop also runs a slice of the timed flush, the
 * reviewers' requests and the feed's read, and with 5 ms slices those added up to 35–45 ms of loop delay
 * at p99 with 1,000 subscribers watching (with 2 ms slices: ~19 ms while they get 100 events/s, 34–38 ms
 * while a reviewer loops, who then did 50–65 % more cycles; BENCHMARKS.md, "Turns of a few ms"). A
 * burst goes in slices of 5 ms: it is paced by its rests anyway, and smaller slices only slowed it.
 */
const SLICE_BUDGET_MS = 2;
const BURST_SLICE_BUDGET_MS = 5;
/**
 * A page this long is a burst (a bulk intake, an import), not live traffic: its fan-out takes at most
 * a third of the event loop. It is handed over in batches of BURST_BATCH_MS of listener work (in slices
 * of the budget, a turn between them); the frames a batch made are then written, one write per socket
 * carrying the batch's events, and the feed rests twice as long as the batch and its writes took, so
 * reviewers keep most of the server while thousands of events reach a thousand subscribers. Shorter pages
 * go at full speed, their frames written by the timed flushes.
 */
const BURST_EVENTS = 64;
const BURST_REST_RATIO = 2;
const BURST_BATCH_MS = 15;
/**
 * After a burst's batch and rest, while subscribers are half-way to their buffer's limit
 * (fanOutPace.laggingEvents), the burst waits for them, checking every LAGGARD_POLL_MS, as long as their
 * buffers shrink: a dashboard that reads slower than a bulk arrives catches up instead of being cut off.
 * Once they stop shrinking for LAGGARD_PATIENCE_MS (a client that stopped reading) the burst goes on without
 * them, and at most LAGGARD_WAIT_MS per batch (the others are waiting too).
 */
export const LAGGARD_POLL_MS = 10;
export const LAGGARD_PATIENCE_MS = 100;
export const LAGGARD_WAIT_MS = 2_000;

export class EventFeed {
  private readonly listeners = new Set<FeedListener>();
  /** The server's own followers (see observe): each page at once, whole, before the subscribers' fan-out. */
  private readonly observers = new Map<FeedObserver, ObserveOptions>();
  private position = 0;
  private timer: NodeJS.Timeout | null = null;
  /** The pass reading and delivering now, if any. */
  private running: Promise<void> | null = null;
  private again = false;
  private woken: NodeJS.Immediate | null = null;
  private stopped = false;
  /** What handing one event to every listener cost last time (grows with the subscribers). */
  private costPerEventMs = 0;

  constructor(
    private readonly tail: EventTail,
    private readonly logger: Logger,
    private readonly options: FeedOptions = {},
  ) {}

  /** The last sequence number handed to listeners. */
  get sequence(): number {
    return this.position;
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.position = await this.tail.latestSequence();
    // A backend that announces commits (PostgreSQL) wakes the feed at once; the poll stays as a backstop.
    this.tail.onChange?.(() => this.wake());
    this.timer = setInterval(() => {
      if (this.tail.changed()) void this.pull();
    }, this.options.pollIntervalMs ?? 20);
    this.timer.unref();
  }

  /**
   * Stops following the history; resolves once a pass that was reading has finished, so the tail can
   * be closed under it safely (a wake-up that arrives later, e.g. a last NOTIFY, reads nothing).
   */
  stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.woken) clearImmediate(this.woken);
    this.woken = null;
    this.listeners.clear();
    this.observers.clear();
    return this.running ?? Promise.resolve();
  }

  /**
   * Something was just committed in this process: look on the next turn of the event loop rather
   * than at the next poll (not synchronously, so the commit's acknowledgements are not held up).
   */
  wake(): void {
    if (this.stopped) return;
    this.woken ??= setImmediate(() => {
      this.woken = null;
      void this.pull();
    });
  }

  /** Delivers everything committed so far; resolves once it has been (for shutdown and tests). */
  async catchUp(): Promise<void> {
    // A pass already running may have read before this call; it then runs once more before resolving.
    await this.pull();
  }

  /** A subscriber's listener: handed each page in slices that keep to the loop's budget (see deliver). */
  listen(listener: FeedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The server's own followers (the expiry and proposal announcers, metrics, key revocations): cheap per
   * event, and not to be kept waiting behind a burst's fan-out to a thousand subscribers, which is paced to
   * a third of the loop and can take minutes (a key revoked meanwhile would keep working; a lease claimed
   * meanwhile would have its expiry announced late). Each page goes to them whole, once, before the slices.
   * They are not handed ITEM_ADDED events unless `options.itemsAdded`: while no subscriber listens and no
   * observer asks for them, a bulk intake's ITEM_ADDED rows are then never read back (see changesAfter).
   */
  observe(observer: FeedObserver, options: ObserveOptions = {}): () => void {
    this.observers.set(observer, options);
    return () => this.observers.delete(observer);
  }

  /**
   * Reads everything after `position` and delivers it. Calls while a pass runs coalesce into one
   * more pass, so events are read by one pass at a time and delivered in order, each once.
   */
  private pull(): Promise<void> {
    if (this.stopped) return this.running ?? Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.drain().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async drain(): Promise<void> {
    try {
      // Absorb the change flag first: whatever commits after this moment sets it again, so the
      // next poll still sees it, while our own commits already read here do not cause an empty pull.
      this.tail.changed();
      const batchSize = this.options.batchSize ?? 500;
      do {
        this.again = false;
        for (;;) {
          if (this.stopped) return;
          const covered = this.wantsEveryEvent() ? await this.readAndDeliver(batchSize) : await this.readChanges(batchSize);
          if (covered === 0) break;
          // Before the next page, let subscribers send what they were just given. A tail whose reads
          // never wait (SQLite's) would otherwise hand a long burst (one big commit, or many while the
          // feed was busy) to every subscriber's buffer at once, and cut off even those that keep up.
          if (covered === batchSize) await new Promise<void>((resolve) => setImmediate(resolve));
        }
      } while (this.again && !this.stopped);
    } catch (error) {
      this.logger.error({ err: error }, 'event feed could not read the history');
    }
  }

  /** Whether any listener or observer takes ITEM_ADDED events. */
  private wantsEveryEvent(): boolean {
    if (this.listeners.size > 0) return true;
    for (const options of this.observers.values()) if (options.itemsAdded) return true;
    return false;
  }

  /** The next page, whole, to everyone; returns how many events it had. */
  private async readAndDeliver(batchSize: number): Promise<number> {
    const events = await this.tail.eventsAfter(this.position, batchSize, this.listeners.size > 0);
    if (events.length === 0) return 0;
    this.position = events[events.length - 1]?.id ?? this.position;
    await this.deliver(events);
    return events.length;
  }

  /** The next page less its ITEM_ADDED events, for the observers alone; returns how many events it covered. */
  private async readChanges(batchSize: number): Promise<number> {
    const page = await this.tail.changesAfter(this.position, batchSize);
    if (page.covered === 0) return 0;
    this.position = page.through;
    this.observeAll(page.events, page.events, page.through);
    return page.covered;
  }

  private observeAll(events: readonly Event[], changes: readonly Event[], through: number): void {
    for (const [observer, options] of this.observers) {
      try {
        observer(options.itemsAdded ? events : changes, through);
      } catch (error) {
        this.logger.error({ err: error }, 'event observer failed');
      }
    }
  }

  private async deliver(events: Event[]): Promise<void> {
    const through = events.at(-1)?.id ?? this.position;
    this.observeAll(events, events.some(isItemAdded) ? events.filter((event) => !isItemAdded(event)) : events, through);
    // With no subscriber the items are not read at all (a bulk intake nobody watches).
    if (this.listeners.size === 0) return;
    const itemIds = [...new Set(events.flatMap((event) => (event.itemId === null ? [] : [event.itemId])))];
    const items = await this.tail.itemsById(itemIds);
    if (this.stopped) return;
    const delivered = events.map((event) => ({ ...event, itemSnapshot: event.itemId === null ? null : (items.get(event.itemId) ?? null) }));
    const burst = delivered.length >= BURST_EVENTS;
    const budget = this.options.sliceBudgetMs ?? (burst ? BURST_SLICE_BUDGET_MS : SLICE_BUDGET_MS);
    /** Listener work since the burst's frames were last written. */
    let batchMs = 0;
    for (let from = 0; from < delivered.length; ) {
      if (from > 0) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.stopped) return;
      }
      // Sized from what the last slice cost per event, so a page the listeners take within the
      // budget still goes in one piece, and a burst to many subscribers is spread over turns.
      const size = Math.max(1, Math.floor(budget / Math.max(this.costPerEventMs, 1e-3)));
      const slice = from === 0 && size >= delivered.length ? delivered : delivered.slice(from, from + size);
      const elapsed =
        slice.length === 1 && this.costPerEventMs > budget
          ? await this.handOverInParts(slice, budget)
          : this.timedHandOver(slice, this.listeners);
      if (this.stopped) return;
      this.costPerEventMs = elapsed / slice.length;
      from += slice.length;
      if (!burst) continue;
      batchMs += elapsed;
      if (batchMs < BURST_BATCH_MS && from < delivered.length) continue;
      // The batch's frames go out now, and the fan-out keeps to its share of the event loop.
      const writtenMs = await fanOutPace.writeHeld();
      await restWhileWanted((batchMs + writtenMs) * BURST_REST_RATIO);
      batchMs = 0;
      if (this.stopped) return;
      await this.waitForLaggards();
      if (this.stopped) return;
    }
  }

  /** See LAGGARD_WAIT_MS. */
  private async waitForLaggards(): Promise<void> {
    let least = fanOutPace.laggingEvents();
    let stalledMs = 0;
    for (let waitedMs = 0; least > 0 && waitedMs < LAGGARD_WAIT_MS && stalledMs < LAGGARD_PATIENCE_MS && !this.stopped; ) {
      await new Promise<void>((resolve) => setTimeout(resolve, LAGGARD_POLL_MS));
      waitedMs += LAGGARD_POLL_MS;
      const now = fanOutPace.laggingEvents();
      if (now < least) {
        least = now;
        stalledMs = 0;
      } else stalledMs += LAGGARD_POLL_MS;
    }
  }

  /** Hands `events` to `listeners`; returns the milliseconds it took. */
  private timedHandOver(events: readonly FeedEvent[], listeners: Iterable<FeedListener>): number {
    const started = performance.now();
    this.handOver(events, listeners);
    return performance.now() - started;
  }

  /**
   * One event that costs the listeners more than the budget (1,000 subscribers on a slow moment) goes to
   * them in parts of about the budget, a turn of the event loop between parts: no single turn holds the
   * loop for the whole fan-out. Every listener still has the event before any has the next one. A listener
   * gone meanwhile (unsubscribed) is skipped; one added meanwhile started after this event (see streams).
   * Returns the milliseconds of listener work.
   */
  private async handOverInParts(events: readonly FeedEvent[], budget: number): Promise<number> {
    const listeners = [...this.listeners];
    const perListenerMs = this.costPerEventMs / Math.max(1, listeners.length);
    const part = Math.max(1, Math.floor(budget / Math.max(perListenerMs, 1e-3)));
    let spent = 0;
    for (let from = 0; from < listeners.length; from += part) {
      if (from > 0) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.stopped) break;
      }
      const present = listeners.slice(from, from + part).filter((listener) => this.listeners.has(listener));
      spent += this.timedHandOver(events, present);
    }
    fanOutPace.handOverParts++;
    return spent;
  }

  private handOver(events: readonly FeedEvent[], listeners: Iterable<FeedListener>): void {
    for (const listener of listeners) {
      try {
        listener(events);
      } catch (error) {
        this.logger.error({ err: error }, 'event listener failed');
      }
    }
  }
}

function isItemAdded(event: Event): boolean {
  return event.type === 'ITEM_ADDED';
}
