// Per-subscriber event streams over the feed: optional replay after a sequence number, then live,
// with no gap and no duplicate; each subscriber has its own bounded buffer, so a slow one never
// holds up the others (it is cut off with SUBSCRIBER_TOO_SLOW and can resume where it stopped).
import { GraphQLError } from 'graphql';
import type { EventTail } from '../db/event-tail.js';
import { Queue } from './event-queue.js';
import { fanOutPace } from './fan-out-pace.js';
import type { EventFeed, FeedEvent } from './feed.js';

export interface StreamOptions {
  /** Replay every event with a greater sequence first. Omitted: live events only. */
  after?: number | null;
  filter: (event: FeedEvent) => boolean;
  /** Most events buffered for a subscriber that does not keep up. */
  maxBuffered?: number;
}

const PAGE = 500;

/** Defaults for every stream (tests lower them). */
export const streamLimits = {
  /** Most events buffered for a subscriber that does not keep up, before it is cut off with SUBSCRIBER_TOO_SLOW. */
  maxBuffered: 10_000,
};

/**
 * The buffers of streams holding at least half their limit: a burst waits while these shrink
 * (src/events/feed.ts), so a subscriber that reads slower than a bulk arrives is not cut off while it
 * still reads. A subscriber that has stopped reading does not shrink and is not waited for.
 */
const lagging = new Set<Queue<FeedEvent>>();
fanOutPace.laggingEvents = () => {
  let total = 0;
  for (const queue of lagging) total += queue.length;
  return total;
};

/** What a direct sink did with a live event: sent it, or left it to `next()`. */
export type SinkOutcome = 'written' | 'declined';
export type EventSink = (event: FeedEvent) => SinkOutcome;
/** The method by which a stream takes a sink (see src/graphql/direct-delivery.ts). */
export const ATTACH_SINK = Symbol('attachSink');
export interface SinkableStream extends AsyncIterableIterator<FeedEvent> {
  /**
   * Live events go to `sink` from the feed listener itself whenever the consumer is waiting in `next()`
   * with nothing queued and the replay done: then everything before has been delivered, so order holds.
   */
  [ATTACH_SINK](sink: EventSink): void;
}

/**
 * Replays read their pages one per turn of the event loop, whichever streams ask: a page of 500 events
 * and their items takes a few ms on a large file, and twenty streams starting a replay at once would
 * otherwise read twenty pages between two turns while /health and every request waited.
 */
let lastPageTurn: Promise<void> = Promise.resolve();

/** Resolves on a turn of the event loop that no other replay's page read has taken. */
function pageTurn(): Promise<void> {
  const turn = lastPageTurn.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  lastPageTurn = turn;
  return turn;
}

/** Reads stored events after `sequence`, with the items attached as the feed would. */
export async function readBacklog(tail: EventTail, sequence: number, limit = PAGE): Promise<FeedEvent[]> {
  const events = await tail.eventsAfter(sequence, limit);
  const items = await tail.itemsById([...new Set(events.flatMap((event) => (event.itemId === null ? [] : [event.itemId])))]);
  return events.map((event) => ({ ...event, itemSnapshot: event.itemId === null ? null : (items.get(event.itemId) ?? null) }));
}

/**
 * A stream of feed events for one subscriber. Closing it (`return()`, as graphql-ws does when the
 * client unsubscribes or disconnects) detaches it from the feed at once, even while it waits.
 */
export async function eventStream(feed: EventFeed, tail: EventTail, options: StreamOptions): Promise<SinkableStream> {
  // Read before anything else: from here to `listen` below runs without a pause, so no live event
  // can slip between the position taken and the listener attached.
  const latest = options.after == null ? null : await tail.latestSequence();
  const maxBuffered = options.maxBuffered ?? streamLimits.maxBuffered;
  const queue = new Queue<FeedEvent>();
  const laggingAt = Math.max(1, Math.floor(maxBuffered / 2));
  let overflowed = false;
  let closed = false;
  let waiting: { resolve: (result: IteratorResult<FeedEvent>) => void; reject: (error: unknown) => void } | null = null;
  const tooSlow = () =>
    new GraphQLError(`Too many events waiting for this subscriber; subscribe again with afterSequence: ${position}.`, {
      // `after`: the same, under the argument's deprecated name (kept one release).
      extensions: { code: 'SUBSCRIBER_TOO_SLOW', afterSequence: position, after: position },
    });
  // An `after` beyond the end of the history means "from now on": later events must not be skipped up to it.
  let position = options.after == null || latest === null ? feed.sequence : Math.min(options.after, latest);
  let replaying = options.after != null;
  let sink: EventSink | null = null;

  const done = (): IteratorResult<FeedEvent> => ({ done: true, value: undefined });
  const close = () => {
    closed = true;
    unlisten();
    queue.clear();
    lagging.delete(queue);
    waiting?.resolve(done());
    waiting = null;
  };
  /** The next event after `position` that the queue holds, if any. */
  const nextQueued = (): FeedEvent | null => {
    for (let event = queue.shift(); event !== undefined; event = queue.shift()) {
      if (queue.length < laggingAt) lagging.delete(queue);
      if (event.id > position) {
        position = event.id;
        return event;
      }
    }
    return null;
  };
  // Listen before reading the backlog: whatever commits meanwhile lands in the queue, and the
  // position check drops what the backlog already gave.
  const unlisten = feed.listen((events) => {
    // Once cut off, queue nothing more: a later event must not be delivered after the dropped ones.
    if (overflowed) return;
    for (const event of events) {
      // Already given (by the replay), or from before this stream began: the feed hands a page over
      // in slices, so a stream may start listening in the middle of one.
      if (event.id <= position || !options.filter(event)) continue;
      // Caught up and waited for: straight to the socket, with no promise per event.
      if (sink !== null && waiting !== null && !replaying && queue.length === 0) {
        if (sink(event) === 'written') {
          position = event.id;
          continue;
        }
      }
      queue.push(event);
    }
    if (queue.length > maxBuffered) {
      overflowed = true;
      queue.clear();
      lagging.delete(queue);
    } else if (queue.length >= laggingAt) lagging.add(queue);
    if (waiting && !replaying) {
      const pending = waiting;
      if (overflowed) {
        waiting = null;
        const error = tooSlow();
        close();
        pending.reject(error);
        return;
      }
      const event = nextQueued();
      if (event) {
        waiting = null;
        pending.resolve({ done: false, value: event });
      }
    }
  });
  /** The backlog page being replayed, and the next event in it. */
  let backlog: FeedEvent[] = [];
  let next = 0;
  let lastPage = false;

  const iterator: SinkableStream = {
    [Symbol.asyncIterator]() {
      return iterator;
    },
    [ATTACH_SINK](given) {
      sink = given;
    },
    async next() {
      if (closed) return done();
      while (replaying) {
        if (next === backlog.length) {
          // A replay reads its pages on turns of their own (see pageTurn), so other requests go on meanwhile.
          await pageTurn();
          if (closed) return done();
          if (lastPage) {
            replaying = false;
            break;
          }
          backlog = await readBacklog(tail, position);
          next = 0;
          // A short page reached the end of the history as it stood: everything later is committed
          // after the listener above was attached, so the feed brings it (live, and directly).
          lastPage = backlog.length < PAGE;
          if (backlog.length === 0) {
            replaying = false;
            break;
          }
        }
        const event = backlog[next++] as FeedEvent;
        position = event.id;
        if (lastPage && next === backlog.length) replaying = false;
        if (options.filter(event)) return { done: false, value: event };
      }
      const queued = nextQueued();
      if (queued) return { done: false, value: queued };
      if (overflowed) {
        const error = tooSlow();
        close();
        throw error;
      }
      return new Promise<IteratorResult<FeedEvent>>((resolve, reject) => {
        waiting = { resolve, reject };
      });
    },
    async return() {
      close();
      return done();
    },
    async throw(error: unknown) {
      close();
      throw error;
    },
  };
  return iterator;
}
