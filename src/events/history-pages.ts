// The stored history as replays and catch-ups read it (src/events/streams.ts): pages of PAGE events with
// their items attached as the feed attaches them, read one per turn of the event loop, and shared between the
// streams replaying the same stretch.
import type { EventTail } from '../db/event-tail.js';
import type { EventFeed, FeedEvent } from './feed.js';

const PAGE = 500;

/** Pages of the history read for replays and catch-ups, and those served from the shared pages (for /metrics). */
export const historyPageWork = { read: 0, shared: 0 };

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
async function readBacklog(tail: EventTail, sequence: number, limit = PAGE): Promise<FeedEvent[]> {
  const events = await tail.eventsAfter(sequence, limit);
  const items = await tail.itemsById([...new Set(events.flatMap((event) => (event.itemId === null ? [] : [event.itemId])))]);
  return events.map((event) => ({ ...event, itemSnapshot: event.itemId === null ? null : (items.get(event.itemId) ?? null) }));
}

/**
 * Pages of the history shared by the streams replaying it. A thousand dashboards that fell behind
 * during a bulk intake replay the same stretch; each reading its own pages would cost the database a
 * thousand reads per page and the subscriptions a thousand executions per event. So a replay reads the
 * page after the multiple of PAGE at or below its position ("the PAGE events after 1500", whatever its
 * own position in 1501…2000) and skips what it already has; a full page whose last event the feed has
 * passed can no longer change (events are committed in sequence order, and a gap left by a rolled-back
 * sequence value stays a gap), so it is kept for the next stream, the same event objects for each (which
 * is what lets src/graphql/shared-subscriptions.ts execute each event once for all of them). A short page
 * (the end of the history) is never kept. At most SHARED_PAGES pages are kept, the least recently used
 * going first.
 */
const SHARED_PAGES = 40;
const sharedPages = new WeakMap<EventTail, Map<number, Promise<FeedEvent[]>>>();

/** The events after `position` from the shared page holding them (read if no stream has yet). */
export async function backlogAfter(feed: EventFeed, tail: EventTail, position: number): Promise<{ events: FeedEvent[]; end: boolean }> {
  let pages = sharedPages.get(tail);
  if (!pages) {
    pages = new Map();
    sharedPages.set(tail, pages);
  }
  const start = position - (((position % PAGE) + PAGE) % PAGE);
  let page = pages.get(start);
  if (page) {
    // Most recently used last.
    pages.delete(start);
    pages.set(start, page);
    historyPageWork.shared++;
  } else {
    // A replay reads its pages on turns of their own (see pageTurn), so other requests go on meanwhile.
    const kept = pages;
    page = pageTurn().then(() => readBacklog(tail, start));
    historyPageWork.read++;
    kept.set(start, page);
    while (kept.size > SHARED_PAGES) kept.delete(kept.keys().next().value as number);
    const read = page;
    // Not kept once read if it can still change; only this read's entry (a later one may have replaced it).
    const forget = () => {
      if (kept.get(start) === read) kept.delete(start);
    };
    read.then((events) => {
      const last = events[events.length - 1];
      if (events.length < PAGE || last === undefined || last.id > feed.sequence) forget();
    }, forget);
  }
  const events = await page;
  let first = 0;
  while (first < events.length && (events[first] as FeedEvent).id <= position) first++;
  // A short page is the end of the history as it stood when it was read.
  return { events: first === 0 ? events : events.slice(first), end: events.length < PAGE };
}
