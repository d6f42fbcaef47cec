// The event feed: the last events (of the filtered batch), newest first, followed live without a gap across
// reconnections, and summarised to screen readers at most every 15 s.

import type { DashboardEventsSubscription } from '../gql/graphql.js';
import { byId, el } from '../shared/dom.js';
import { EventsSubscription } from './documents.js';
import { eventLabel, formatTime, titleCase } from './format.js';
import type { View } from './view.js';

/** How many past events the feed starts with. */
const FEED_BACKLOG = 50;
/** The feed keeps this many entries; older ones leave the page. */
const FEED_LIMIT = 200;
/** Screen readers hear about new events at most this often, as one summary (the feed itself is not a live region). */
const ANNOUNCE_EVERY_MS = 15_000;

const scope = byId('feed-scope');
const list = byId<HTMLOListElement>('feed');
const announcer = byId('announcer');

type QueueEvent = DashboardEventsSubscription['queueEvents'];

export class EventFeed {
  private unsubscribe: (() => void) | null = null;
  /** The last sequence the feed has shown: a resubscription resumes after it. */
  private last = 0;
  private unannounced: QueueEvent[] = [];
  private lastAnnounced = Number.NEGATIVE_INFINITY;
  private announceTimer: ReturnType<typeof setTimeout> | null = null;

  /** `onItemEvent`: an event about an item arrived (the items table may have changed). */
  constructor(
    private readonly view: View,
    private readonly onItemEvent: () => void,
  ) {}

  /** Starts (or restarts, for a new batch filter) the feed FEED_BACKLOG events before `latest`, read when not given. */
  async start(latest?: number): Promise<void> {
    const generation = this.view.generation;
    this.unsubscribe?.();
    this.unsubscribe = null;
    const from = Math.max(0, (latest ?? (await this.view.latestSequence())) - FEED_BACKLOG);
    if (this.view.stopped || generation !== this.view.generation) return;
    this.last = from;
    list.replaceChildren();
    const batchId = this.view.filters.batchId;
    scope.textContent = batchId ? `Events of batch ${batchId}, newest first.` : 'Every change to the queue, newest first.';
    this.unsubscribe = this.view.api.subscribe(
      EventsSubscription,
      // Read again on every reconnection: the stream resumes after the last event shown, with no gap.
      () => ({ afterSequence: this.last, filter: batchId ? { batchId } : null }),
      {
        next: (data) => this.onEvent(data.queueEvents),
        error: (message) => this.view.problem(`The event feed stopped: ${message}`),
      },
    );
  }

  stop(): void {
    this.unsubscribe?.();
    if (this.announceTimer !== null) clearTimeout(this.announceTimer);
  }

  private onEvent(event: QueueEvent): void {
    this.view.clock.observe(event.serverTime);
    // The server never repeats an event after `after`; this guards the page against a resend all the same.
    if (event.sequence <= this.last) return;
    this.last = event.sequence;
    list.prepend(entry(event));
    while (list.children.length > FEED_LIMIT) list.lastElementChild?.remove();
    if (event.item) this.onItemEvent();
    this.unannounced.push(event);
    this.announce();
  }

  /** One polite summary at most every ANNOUNCE_EVERY_MS, instead of one announcement per event. */
  private announce(): void {
    if (this.announceTimer !== null) return;
    const wait = this.lastAnnounced + ANNOUNCE_EVERY_MS - performance.now();
    const speak = () => {
      this.announceTimer = null;
      const events = this.unannounced.splice(0);
      const last = events.at(-1);
      if (!last || this.view.stopped) return;
      this.lastAnnounced = performance.now();
      const subject = last.item ? ` ${last.item.recordId}` : '';
      announcer.textContent = `${events.length} new ${events.length === 1 ? 'event' : 'events'}; latest: ${eventLabel(last.type)}${subject}.`;
    };
    if (wait <= 0) speak();
    else this.announceTimer = setTimeout(speak, wait);
  }
}

function entry(event: QueueEvent): HTMLLIElement {
  const item = el('li', `event event-${event.type.toLowerCase().replaceAll('_', '-')}`);
  item.dataset.sequence = String(event.sequence);
  const time = el('time', 'event-time', formatTime(event.occurredAt));
  time.dateTime = event.occurredAt;
  const subject = event.item ? `${event.item.batchId} / ${event.item.recordId}` : '';
  const outcome = event.type === 'ITEM_DECIDED' && event.toStatus ? ` → ${titleCase(event.toStatus)}` : '';
  item.append(
    el('span', 'event-seq', `#${event.sequence}`),
    time,
    el('span', 'event-type', eventLabel(event.type)),
    el('span', 'event-subject', `${subject}${outcome}`),
    el('span', 'event-actor', `by ${event.actor}`),
  );
  return item;
}
