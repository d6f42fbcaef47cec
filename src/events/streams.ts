// Per-subscriber event streams over the feed: optional replay after a sequence number, then live,
// with no gap and no duplicate; each subscriber has its own bounded buffer, so a slow one never
// holds up the others. One whose buffer fills while it still reads drops the buffer and catches up
// from the stored history (pages shared by every subscriber catching up), then goes live again; one
// that takes nothing while a whole buffer's worth arrives is cut off with SUBSCRIBER_TOO_SLOW and can
// resume where it stopped.
import { GraphQLError } from 'graphql';
import type { EventTail } from '../db/event-tail.js';
import { Queue } from './event-queue.js';
import { fanOutPace, restWhileWanted } from './fan-out-pace.js';
import type { EventFeed, FeedEvent } from './feed.js';
import { backlogAfter } from './history-pages.js';

export interface StreamOptions {
  /** Replay every event with a greater sequence first. Omitted: live events only. */
  after?: number | null;
  filter: (event: FeedEvent) => boolean;
  /** Most events buffered for a subscriber that does not keep up. */
  maxBuffered?: number;
}

/** Defaults for every stream (tests lower them). */
export const streamLimits = {
  /**
   * Most events buffered for a subscriber that does not keep up. Past it the buffer is dropped and the
   * subscriber catches up from the history if it took an event since its buffer last filled (or since it
   * subscribed), and is cut off with SUBSCRIBER_TOO_SLOW if it took none.
   */
  maxBuffered: 10_000,
};

/** What the streams of this process have done with subscribers that fell behind (for /metrics). */
export const streamWork = {
  /** Buffers dropped for a catch-up from the history (the subscriber was behind but reading). */
  catchUps: 0,
  /** Subscribers cut off with SUBSCRIBER_TOO_SLOW (a buffer's worth arrived while they took nothing). */
  cutOffs: 0,
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
/**
 * The method by which a stream takes its principal's share of the event loop (src/graphql/subscription-limits.ts):
 * a function answering null while the share of this turn lasts, else a promise of a turn that has some. The
 * events a stream behind hands to its sink within `next()` count against it, as those `next()` returns do.
 */
export const PACE_BY = Symbol('paceBy');
export interface SinkableStream extends AsyncIterableIterator<FeedEvent> {
  /**
   * Live events go to `sink` from the feed listener itself whenever the consumer is waiting in `next()`
   * with nothing queued and the replay done: then everything before has been delivered, so order holds.
   * Within `next()` the events of a replay and of the buffer go to it too, as far as it takes them (see
   * `catchUpSlot`), and the first it declines is `next()`'s answer.
   */
  [ATTACH_SINK](sink: EventSink): void;
  [PACE_BY](share: () => Promise<void> | null): void;
}

/**
 * A stream behind (replaying, or with events buffered) hands them to its sink from within `next()`,
 * while its consumer (graphql-ws) waits there, so order holds: up to the socket's limit of unwritten bytes
 * at once, rather than one event per write completed on graphql-ws's path. A thousand subscribers catching
 * up after a bulk would then write for as long as they have room, all in one turn, so the writes are paced
 * as a burst's hand-over is (src/events/feed.ts): CATCH_UP_SLICE_MS of them between turns of their own, then
 * a rest of CATCH_UP_REST_RATIO times that, whichever streams write. Measured (performance.now() around
 * each sink call), not counted, as the cost per event grows with the payload.
 */
export const CATCH_UP_SLICE_MS = 3;
export const CATCH_UP_REST_RATIO = 2;
const catchUpPace = { spentMs: 0, resting: null as Promise<void> | null };

/**
 * Null while the slice lasts (the stream hands its event over now, with no promise per event), else a
 * promise of the slice after the rest: the caller asks again once it resolves.
 */
function catchUpSlot(): Promise<void> | null {
  if (catchUpPace.resting) return catchUpPace.resting;
  if (catchUpPace.spentMs < CATCH_UP_SLICE_MS) return null;
  const restMs = catchUpPace.spentMs * CATCH_UP_REST_RATIO;
  catchUpPace.spentMs = 0;
  catchUpPace.resting = restWhileWanted(restMs).then(() => {
    catchUpPace.resting = null;
  });
  return catchUpPace.resting;
}

/** Hands `event` to `sink`, counting what it took against the catch-up's slice. */
function sinkTimed(sink: EventSink, event: FeedEvent): SinkOutcome {
  const started = performance.now();
  const outcome = sink(event);
  catchUpPace.spentMs += performance.now() - started;
  return outcome;
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
  let cutOff = false;
  let closed = false;
  let waiting: { resolve: (result: IteratorResult<FeedEvent>) => void; reject: (error: unknown) => void } | null = null;
  const tooSlow = () =>
    new GraphQLError(`Too many events waiting for this subscriber; subscribe again with afterSequence: ${position}.`, {
      // `after`: the same, under the argument's deprecated name (kept one release).
      extensions: { code: 'SUBSCRIBER_TOO_SLOW', afterSequence: position, after: position },
    });
  // An `after` beyond the end of the history means "from now on": later events must not be skipped up to it.
  let position = options.after == null || latest === null ? feed.sequence : Math.min(options.after, latest);
  /** Where the subscriber stood when its buffer last filled (or when it subscribed): it has read since if it moved. */
  let positionAtOverflow = position;
  /** Calls of `next()` not yet answered: a consumer waiting for a page of its replay is reading, though it has not moved. */
  let pulls = 0;
  let replaying = options.after != null;
  /** Bumped whenever the buffer is dropped: a page read before that cannot tell the replay it reached the end. */
  let dropped = 0;
  let sink: EventSink | null = null;
  let share: (() => Promise<void> | null) | null = null;

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
  /**
   * The buffer is full. A subscriber that took nothing since it last filled (or since it subscribed) and
   * is not waiting in `next()` is not reading (graphql-ws stuck writing to a socket whose client stopped
   * reading): it is cut off. One that is reading, only slower than events arrive (a bulk intake), drops
   * the buffer and replays the history from where it stands: the pages it reads are shared with the others
   * catching up, and memory stays bounded however far behind it falls.
   */
  const overflow = () => {
    queue.clear();
    lagging.delete(queue);
    if (position === positionAtOverflow && pulls === 0) {
      cutOff = true;
      replaying = false;
      streamWork.cutOffs++;
      return;
    }
    positionAtOverflow = position;
    replaying = true;
    backlog = [];
    next = 0;
    lastPage = false;
    dropped++;
    streamWork.catchUps++;
  };
  // Listen before reading the backlog: whatever commits meanwhile lands in the queue, and the
  // position check drops what the backlog already gave.
  const unlisten = feed.listen((events) => {
    // Once cut off, queue nothing more: a later event must not be delivered after the dropped ones.
    if (cutOff) return;
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
    if (queue.length > maxBuffered) overflow();
    else if (queue.length >= laggingAt) lagging.add(queue);
    if (waiting === null) return;
    const pending = waiting;
    if (cutOff) {
      waiting = null;
      const error = tooSlow();
      close();
      pending.reject(error);
    } else if (replaying) {
      // Caught waiting with a catch-up to do (only a listener call bringing more than a buffer at once gets here).
      waiting = null;
      take().then(pending.resolve, pending.reject);
    } else {
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
    [PACE_BY](given) {
      share = given;
    },
    async next() {
      pulls++;
      try {
        return await take();
      } finally {
        pulls--;
      }
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
  /**
   * Whether the stream may hand its next event to its sink: at once (no promise) while the catch-up's
   * slice and the principal's share of this turn last, else once both have room again; false once closed.
   */
  function mayWrite(): boolean | Promise<boolean> {
    const slot = catchUpSlot();
    if (slot) return slot.then(mayWrite);
    // A share's promise resolves with the event already counted in the turn it waited for.
    const turn = share?.() ?? null;
    return turn ? turn.then(() => !closed) : !closed;
  }
  /** The next event: from the replay, then the buffer, else the next live one (waiting for it). */
  async function take(): Promise<IteratorResult<FeedEvent>> {
    if (closed) return done();
    if (cutOff) {
      const error = tooSlow();
      close();
      throw error;
    }
    while (replaying) {
      if (next === backlog.length) {
        if (lastPage) {
          replaying = false;
          break;
        }
        const droppedBefore = dropped;
        const page = await backlogAfter(feed, tail, position);
        if (closed) return done();
        // Dropped meanwhile: the page may be older than the buffer, so another read decides the end.
        if (dropped !== droppedBefore) continue;
        backlog = page.events;
        next = 0;
        // A short page reached the end of the history as it stood: everything later is committed
        // after the listener above was attached (or after the buffer was last dropped), so the feed
        // brings it (live, and directly).
        lastPage = page.end;
        if (backlog.length === 0) {
          if (lastPage) replaying = false;
          continue;
        }
      }
      const event = backlog[next++] as FeedEvent;
      if (event.id <= position) continue;
      if (lastPage && next === backlog.length) replaying = false;
      if (!options.filter(event)) {
        position = event.id;
        continue;
      }
      if (sink !== null) {
        // Straight to the socket while it has room (see catchUpSlot); a drop meanwhile restarts the
        // replay from here on (the position check keeps order, and the end is read again).
        // Awaited only when it must wait: no promise per event while the slice and the share last.
        const may = mayWrite();
        if (!(may === true || (may !== false && (await may)))) return done();
        if (sinkTimed(sink, event) === 'written') {
          position = event.id;
          continue;
        }
      }
      position = event.id;
      return { done: false, value: event };
    }
    for (let queued = nextQueued(); queued !== null; queued = nextQueued()) {
      if (sink === null) return { done: false, value: queued };
      // Behind on the buffer: what the sink takes goes straight out; the first it declines is the answer.
      // Awaited only when it must wait: no promise per event while the slice and the share last.
      const may = mayWrite();
      if (!(may === true || (may !== false && (await may)))) return done();
      if (sinkTimed(sink, queued) !== 'written') return { done: false, value: queued };
    }
    // Dropped for a catch-up while it wrote: the replay goes on from where it stands.
    if (replaying) return take();
    return new Promise<IteratorResult<FeedEvent>>((resolve, reject) => {
      waiting = { resolve, reject };
    });
  }
  return iterator;
}
