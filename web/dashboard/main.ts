// The dashboard page: asks for an API key, then shows the queue live through the public GraphQL API.
import { Api, type ConnectionState, RefusedError } from './api.js';
import { bucketize, bucketOf, CHART_WINDOW_MS, type ChartEventType, renderChart } from './chart.js';
import { ChartHistoryQuery, EventsSubscription, ItemsQuery, LatestEventQuery, StatsSubscription, ViewerQuery } from './documents.js';
import { eventLabel, formatAge, formatCountdown, formatTime, titleCase } from './format.js';
import type {
  DashboardChartHistoryQuery,
  DashboardEventsSubscription,
  DashboardItemsQuery,
  DashboardStatsSubscription,
  EventType,
  ItemStatus,
} from './gql/graphql.js';
import { ServerClock } from './server-clock.js';

/** sessionStorage: the key lives as long as the tab, and is never written to disk for later visits. */
const KEY_STORAGE = 'leasehold.dashboard.apiKey';
/** How many past events the feed starts with. */
const FEED_BACKLOG = 50;
/** The feed keeps this many entries; older ones leave the page. */
const FEED_LIMIT = 200;
const ITEMS_PAGE = 100;
/**
 * Fewest milliseconds between two reloads of the items table caused by queue events. A busy queue
 * makes several changes a second; reloading the table for each would make every open dashboard cost
 * the reviewers one page read per change, while a person reads the table at most this often.
 */
const ITEMS_RELOAD_MS = 1_000;
/** Screen readers hear about new events at most this often, as one summary (the feed itself is not a live region). */
const ANNOUNCE_EVERY_MS = 15_000;
/** At most this many pages of history for the chart (100 events each). */
const CHART_PAGES = 50;

const ENDPOINT = new URL('graphql', window.location.href);
/** Whether the server takes trusted documents by hash: the page says so (src/dashboard.ts writes the server's PERSISTED_OPERATIONS). */
const PERSISTED_OPERATIONS =
  (document.querySelector('meta[name="leasehold-persisted-operations"]')?.getAttribute('content') ?? 'off') !== 'off';
const STATUSES: readonly ItemStatus[] = ['PENDING', 'ACCEPTED', 'CORRECTED', 'REJECTED'];
const CHART_TYPES: ChartEventType[] & EventType[] = ['ITEM_DECIDED', 'LEASE_EXPIRED'];

function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`The page has no #${id}.`);
  return found as T;
}

function el<K extends keyof HTMLElementTagNameMap>(name: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(name);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const ui = {
  connection: byId('connection'),
  offline: byId('offline'),
  who: byId('who'),
  viewerName: byId('viewer-name'),
  signOut: byId<HTMLButtonElement>('sign-out'),
  signIn: byId('sign-in'),
  signInForm: byId<HTMLFormElement>('sign-in-form'),
  signInError: byId('sign-in-error'),
  keyInput: byId<HTMLInputElement>('api-key'),
  dashboard: byId('dashboard'),
  problem: byId('problem'),
  stats: {
    pending: byId('stat-pending'),
    unclaimed: byId('stat-unclaimed'),
    active: byId('stat-active'),
    expired: byId('stat-expired'),
    accepted: byId('stat-accepted'),
    corrected: byId('stat-corrected'),
    rejected: byId('stat-rejected'),
    oldest: byId('stat-oldest'),
    asOf: byId('stats-as-of'),
  },
  chart: byId('chart'),
  chartSummary: byId('chart-summary'),
  filters: byId<HTMLFormElement>('filters'),
  batch: byId<HTMLInputElement>('filter-batch'),
  status: byId<HTMLSelectElement>('filter-status'),
  itemsCaption: byId('items-caption'),
  itemsBody: byId('items-body'),
  itemsNote: byId('items-note'),
  feedScope: byId('feed-scope'),
  feed: byId<HTMLOListElement>('feed'),
  announcer: byId('announcer'),
};

interface Filters {
  batchId: string | null;
  /** null: every status. */
  status: ItemStatus | null;
}

/** Filters live in the address (?batch=…&status=…) so a view can be bookmarked or shared, key excluded. */
function filtersFromAddress(): Filters {
  const params = new URLSearchParams(window.location.search);
  const status = params.get('status');
  return {
    batchId: params.get('batch') || null,
    status: status === 'ALL' ? null : (STATUSES.find((value) => value === status) ?? 'PENDING'),
  };
}

function writeFiltersToAddress(filters: Filters): void {
  const url = new URL(window.location.href);
  url.search = '';
  if (filters.batchId) url.searchParams.set('batch', filters.batchId);
  url.searchParams.set('status', filters.status ?? 'ALL');
  window.history.replaceState(null, '', url);
}

type Item = DashboardItemsQuery['items']['edges'][number]['node'];
type QueueEvent = DashboardEventsSubscription['queueEvents'];
type Stats = DashboardStatsSubscription['queueStats'];

/** One signed-in view of the queue; stop() ends every request, subscription and timer it started. */
class Session {
  private readonly clock = new ServerClock();
  private readonly api: Api;
  private readonly unsubscribe: (() => void)[] = [];
  private feedUnsubscribe: (() => void) | null = null;
  private chartUnsubscribe: (() => void) | null = null;
  /** The first requests failed (the server went away right after sign-in): they run again on reconnection. */
  private streamsFailed = false;
  private ticker: ReturnType<typeof setInterval> | null = null;
  private stopped = false;

  private filters = filtersFromAddress();
  /** Bumped when the filters change: answers to older requests are dropped. */
  private generation = 0;

  private stats: Stats | null = null;
  private items: Item[] = [];
  private itemsLoading = false;
  private itemsAgain = false;
  private itemsLoadedAt = Number.NEGATIVE_INFINITY;
  private itemsReload: ReturnType<typeof setTimeout> | null = null;

  /** The last sequence the feed has shown: a resubscription resumes after it. */
  private feedLast = 0;
  private unannounced: QueueEvent[] = [];
  private lastAnnounced = Number.NEGATIVE_INFINITY;
  private announceTimer: ReturnType<typeof setTimeout> | null = null;

  private readonly chartEvents = new Map<number, { at: number; type: ChartEventType }>();
  private chartLast = 0;
  private chartBucket = Number.NaN;

  constructor(
    key: string,
    private readonly onRefused: (message: string) => void,
  ) {
    this.api = new Api({
      endpoint: ENDPOINT,
      key,
      onState: (state, reconnected) => this.onConnection(state, reconnected),
      persisted: PERSISTED_OPERATIONS,
    });
  }

  /** Checks the key with one query; resolves to the viewer's name and roles, or rejects (RefusedError for a refused key). */
  async verify(): Promise<{ name: string; roles: string[] }> {
    const data = await this.api.query(ViewerQuery, {}, (now, sentAt) => this.clock.observe(now, sentAt));
    return data.viewer;
  }

  start(): void {
    ui.batch.value = this.filters.batchId ?? '';
    ui.status.value = this.filters.status ?? 'ALL';
    writeFiltersToAddress(this.filters);
    this.unsubscribe.push(
      this.api.subscribe(StatsSubscription, () => ({}), {
        next: (data) => {
          this.clock.observe(data.queueStats.serverTime);
          this.stats = data.queueStats;
          this.renderStats();
        },
        error: (message) => this.problem(`Queue counts stopped: ${message}`),
      }),
    );
    void this.guard(this.startStreams());
    this.ticker = setInterval(() => this.tick(), 1000);
    this.tick();
  }

  stop(): void {
    this.stopped = true;
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
    this.feedUnsubscribe?.();
    this.chartUnsubscribe?.();
    if (this.ticker !== null) clearInterval(this.ticker);
    if (this.announceTimer !== null) clearTimeout(this.announceTimer);
    if (this.itemsReload !== null) clearTimeout(this.itemsReload);
    this.api.dispose();
  }

  applyFilters(filters: Filters): void {
    const batchChanged = filters.batchId !== this.filters.batchId;
    this.filters = filters;
    this.generation++;
    writeFiltersToAddress(filters);
    void this.guard(this.loadItems());
    // The feed follows the batch filter: a new batch is a new stream, started afresh.
    if (batchChanged) {
      void this.guard(
        this.startFeed().catch((error: unknown) => {
          this.streamsFailed = true;
          throw error;
        }),
      );
    }
  }

  /** Reports a refused key (once, and stops); other failures are shown and left to the next reconnection. */
  private async guard(work: Promise<void>): Promise<void> {
    try {
      await work;
    } catch (error) {
      if (this.stopped) return;
      if (error instanceof RefusedError) this.onRefused(error.message);
      else this.problem(error instanceof Error ? error.message : String(error));
    }
  }

  private problem(message: string | null): void {
    ui.problem.textContent = message ?? '';
    ui.problem.hidden = message === null;
  }

  private onConnection(state: ConnectionState, reconnected: boolean): void {
    if (this.stopped) return;
    document.body.dataset.connection = state.kind;
    switch (state.kind) {
      case 'connecting':
        ui.connection.textContent = 'Connecting…';
        break;
      case 'live':
        ui.connection.textContent = 'Live';
        ui.offline.hidden = true;
        this.problem(null);
        // Counts and events catch up by themselves (resubscribed after the last sequence); the table is a query.
        if (this.streamsFailed) void this.guard(this.startStreams());
        else if (reconnected) void this.guard(this.loadItems());
        break;
      case 'reconnecting':
        ui.connection.textContent = `Disconnected — reconnecting (attempt ${state.attempt})…`;
        ui.offline.hidden = false;
        break;
      case 'refused':
        this.onRefused(`The server closed the live connection: ${state.reason}.`);
        break;
    }
  }

  /** The first requests: the latest sequence tells where the feed and the chart's live part begin. */
  private async startStreams(): Promise<void> {
    this.streamsFailed = false;
    try {
      const latest = await this.latestSequence();
      await Promise.all([this.loadItems(), this.startFeed(latest), this.startChart(latest)]);
    } catch (error) {
      this.streamsFailed = true;
      throw error;
    }
  }

  private async latestSequence(): Promise<number> {
    const data = await this.api.query(LatestEventQuery, {}, (now, sentAt) => this.clock.observe(now, sentAt));
    return data.events.edges[0]?.node.sequence ?? 0;
  }

  // ---- items ----

  /** Reloads the table; calls while a load runs coalesce into one more load after it. */
  private async loadItems(): Promise<void> {
    if (this.itemsLoading) {
      this.itemsAgain = true;
      return;
    }
    this.itemsLoading = true;
    try {
      do {
        this.itemsAgain = false;
        this.itemsLoadedAt = performance.now();
        const generation = this.generation;
        const { batchId, status } = this.filters;
        const data = await this.api.query(
          ItemsQuery,
          { first: ITEMS_PAGE, filter: { ...(batchId ? { batchId } : {}), ...(status ? { status } : {}) } },
          (now, sentAt) => this.clock.observe(now, sentAt),
        );
        if (this.stopped) return;
        if (generation !== this.generation) {
          this.itemsAgain = true;
          continue;
        }
        this.items = data.items.edges.map((edge) => edge.node);
        this.renderItems(data.items.pageInfo.hasNextPage);
      } while (this.itemsAgain && !this.stopped);
    } finally {
      this.itemsLoading = false;
    }
  }

  /** Reloads the table for a queue change: now, or once ITEMS_RELOAD_MS after the last load began. */
  private reloadItemsSoon(): void {
    if (this.itemsReload !== null) return;
    const wait = this.itemsLoadedAt + ITEMS_RELOAD_MS - performance.now();
    if (wait <= 0) {
      void this.guard(this.loadItems());
      return;
    }
    this.itemsReload = setTimeout(() => {
      this.itemsReload = null;
      void this.guard(this.loadItems());
    }, wait);
  }

  private renderItems(more: boolean): void {
    const { batchId, status } = this.filters;
    const what = status ? `${titleCase(status).toLowerCase()} items` : 'Items';
    ui.itemsCaption.textContent = `${what.charAt(0).toUpperCase()}${what.slice(1)}${batchId ? ` in batch ${batchId}` : ''}, in claim order`;
    const rows = this.items.map((item) => {
      const row = el('tr');
      row.dataset.record = `${item.batchId}/${item.recordId}`;
      const holder = item.claimState === 'ACTIVE' || item.claimState === 'EXPIRED' ? item.claimedBy : item.reviewedBy;
      const header = el('th', undefined, item.recordId);
      header.scope = 'row';
      const countdown = el('td', 'countdown');
      if (item.claimState === 'ACTIVE' && item.leaseExpiresAt) countdown.dataset.expires = String(Date.parse(item.leaseExpiresAt));
      countdown.textContent = item.claimState === 'EXPIRED' ? 'expired' : '—';
      // What a watcher needs first comes first: on a phone the later columns scroll into view.
      row.append(
        header,
        el('td', `claim claim-${item.claimState.toLowerCase()}`, item.claimState === 'NOT_APPLICABLE' ? '—' : titleCase(item.claimState)),
        el('td', 'holder', holder ?? '—'),
        countdown,
        el('td', `status status-${item.status.toLowerCase()}`, titleCase(item.status)),
        el('td', undefined, item.finalCategory ?? item.proposedCategory),
        el('td', undefined, item.batchId),
      );
      return row;
    });
    if (rows.length === 0) {
      const empty = el('td', 'empty', 'No items match these filters.');
      empty.colSpan = 7;
      const row = el('tr');
      row.append(empty);
      rows.push(row);
    }
    ui.itemsBody.replaceChildren(...rows);
    ui.itemsNote.textContent = more ? `Showing the first ${ITEMS_PAGE}; narrow the filters to see the others.` : '';
    this.renderCountdowns();
  }

  private renderCountdowns(): void {
    const now = this.clock.now();
    if (now === null) return;
    for (const cell of ui.itemsBody.querySelectorAll<HTMLElement>('td[data-expires]')) {
      const left = Number(cell.dataset.expires) - now;
      // The server announces the lapse (LEASE_EXPIRED) and the row reloads; until then it is due.
      cell.textContent = left > 0 ? formatCountdown(left) : 'due';
    }
  }

  // ---- stats ----

  private renderStats(): void {
    const stats = this.stats;
    if (!stats) return;
    const counts: [HTMLElement, number][] = [
      [ui.stats.pending, stats.pending],
      [ui.stats.unclaimed, stats.unclaimed],
      [ui.stats.active, stats.activeLeases],
      [ui.stats.expired, stats.expiredLeases],
      [ui.stats.accepted, stats.accepted],
      [ui.stats.corrected, stats.corrected],
      [ui.stats.rejected, stats.rejected],
    ];
    for (const [node, value] of counts) node.textContent = String(value);
    this.renderOldest();
  }

  private renderOldest(): void {
    const stats = this.stats;
    const now = this.clock.now();
    if (!stats || now === null) return;
    ui.stats.oldest.textContent = stats.oldestPendingCreatedAt ? formatAge(now - Date.parse(stats.oldestPendingCreatedAt)) : 'none pending';
    ui.stats.asOf.textContent = `Counts as of event #${stats.sequence}. Server time ${formatTime(now)}.`;
  }

  // ---- feed ----

  private async startFeed(latest?: number): Promise<void> {
    const generation = this.generation;
    this.feedUnsubscribe?.();
    this.feedUnsubscribe = null;
    const from = Math.max(0, (latest ?? (await this.latestSequence())) - FEED_BACKLOG);
    if (this.stopped || generation !== this.generation) return;
    this.feedLast = from;
    ui.feed.replaceChildren();
    const batchId = this.filters.batchId;
    ui.feedScope.textContent = batchId ? `Events of batch ${batchId}, newest first.` : 'Every change to the queue, newest first.';
    this.feedUnsubscribe = this.api.subscribe(
      EventsSubscription,
      // Read again on every reconnection: the stream resumes after the last event shown, with no gap.
      () => ({ afterSequence: this.feedLast, filter: batchId ? { batchId } : null }),
      {
        next: (data) => this.onFeedEvent(data.queueEvents),
        error: (message) => this.problem(`The event feed stopped: ${message}`),
      },
    );
  }

  private onFeedEvent(event: QueueEvent): void {
    this.clock.observe(event.serverTime);
    // The server never repeats an event after `after`; this guards the page against a resend all the same.
    if (event.sequence <= this.feedLast) return;
    this.feedLast = event.sequence;
    ui.feed.prepend(this.feedEntry(event));
    while (ui.feed.children.length > FEED_LIMIT) ui.feed.lastElementChild?.remove();
    if (event.item) this.reloadItemsSoon();
    this.unannounced.push(event);
    this.announce();
  }

  private feedEntry(event: QueueEvent): HTMLLIElement {
    const entry = el('li', `event event-${event.type.toLowerCase().replaceAll('_', '-')}`);
    entry.dataset.sequence = String(event.sequence);
    const time = el('time', 'event-time', formatTime(event.occurredAt));
    time.dateTime = event.occurredAt;
    const subject = event.item ? `${event.item.batchId} / ${event.item.recordId}` : '';
    const outcome = event.type === 'ITEM_DECIDED' && event.toStatus ? ` → ${titleCase(event.toStatus)}` : '';
    entry.append(
      el('span', 'event-seq', `#${event.sequence}`),
      time,
      el('span', 'event-type', eventLabel(event.type)),
      el('span', 'event-subject', `${subject}${outcome}`),
      el('span', 'event-actor', `by ${event.actor}`),
    );
    return entry;
  }

  /** One polite summary at most every ANNOUNCE_EVERY_MS, instead of one announcement per event. */
  private announce(): void {
    if (this.announceTimer !== null) return;
    const wait = this.lastAnnounced + ANNOUNCE_EVERY_MS - performance.now();
    const speak = () => {
      this.announceTimer = null;
      const events = this.unannounced.splice(0);
      const last = events.at(-1);
      if (!last || this.stopped) return;
      this.lastAnnounced = performance.now();
      const subject = last.item ? ` ${last.item.recordId}` : '';
      ui.announcer.textContent = `${events.length} new ${events.length === 1 ? 'event' : 'events'}; latest: ${eventLabel(last.type)}${subject}.`;
    };
    if (wait <= 0) speak();
    else this.announceTimer = setTimeout(speak, wait);
  }

  // ---- chart ----

  /** Loads the last hour of decisions and expiries (paging back), then follows new ones live after `latest`. */
  private async startChart(latest: number): Promise<void> {
    this.chartUnsubscribe?.();
    this.chartLast = latest;
    this.chartUnsubscribe = this.api.subscribe(
      EventsSubscription,
      () => ({ afterSequence: this.chartLast, filter: { types: CHART_TYPES } }),
      {
        next: (data) => {
          const event = data.queueEvents;
          this.clock.observe(event.serverTime);
          this.chartLast = Math.max(this.chartLast, event.sequence);
          this.addChartEvent(event.sequence, event.type, event.occurredAt);
          this.renderChart();
        },
        error: (message) => this.problem(`The chart stopped: ${message}`),
      },
    );
    let before: string | null = null;
    for (let page = 0; page < CHART_PAGES && !this.stopped; page++) {
      const data: DashboardChartHistoryQuery = await this.api.query(ChartHistoryQuery, { before }, (now, sentAt) =>
        this.clock.observe(now, sentAt),
      );
      for (const { node } of data.events.edges) this.addChartEvent(node.sequence, node.type, node.occurredAt);
      this.renderChart();
      const oldest = data.events.edges[0]?.node.occurredAt;
      const now = this.clock.now() ?? 0;
      if (!data.events.pageInfo.hasPreviousPage || !oldest || Date.parse(oldest) < now - CHART_WINDOW_MS) break;
      before = data.events.pageInfo.startCursor ?? null;
    }
  }

  private addChartEvent(sequence: number, type: string, occurredAt: string): void {
    if (type !== 'ITEM_DECIDED' && type !== 'LEASE_EXPIRED') return;
    this.chartEvents.set(sequence, { at: Date.parse(occurredAt), type });
  }

  private renderChart(): void {
    const now = this.clock.now();
    if (now === null) return;
    this.chartBucket = bucketOf(now);
    const horizon = now - CHART_WINDOW_MS - CHART_WINDOW_MS / 12;
    for (const [sequence, event] of this.chartEvents) if (event.at < horizon) this.chartEvents.delete(sequence);
    ui.chartSummary.textContent = renderChart(ui.chart, bucketize(this.chartEvents.values(), now));
  }

  // ---- clock ----

  private tick(): void {
    this.renderCountdowns();
    this.renderOldest();
    const now = this.clock.now();
    if (now !== null && bucketOf(now) !== this.chartBucket) this.renderChart();
  }
}

// ---- signing in and out ----

let session: Session | null = null;

function showSignIn(message: string | null): void {
  session?.stop();
  session = null;
  ui.dashboard.hidden = true;
  ui.who.hidden = true;
  ui.offline.hidden = true;
  ui.signIn.hidden = false;
  document.body.dataset.connection = 'signed-out';
  ui.connection.textContent = 'Not connected';
  ui.signInError.textContent = message ?? '';
  ui.signInError.hidden = message === null;
  ui.keyInput.value = '';
  ui.keyInput.setAttribute('aria-invalid', message === null ? 'false' : 'true');
  ui.keyInput.focus();
}

/** Any refusal of the key, over HTTP (401) or WebSocket (4401/4403): forget it and ask again. */
function refused(detail: string): void {
  sessionStorage.removeItem(KEY_STORAGE);
  showSignIn(`The server refused the API key. ${detail} Enter a valid key.`);
}

async function signIn(key: string, stored: boolean): Promise<void> {
  const candidate = new Session(key, refused);
  ui.connection.textContent = 'Checking the key…';
  try {
    const viewer = await candidate.verify();
    sessionStorage.setItem(KEY_STORAGE, key);
    session = candidate;
    ui.signIn.hidden = true;
    ui.signInError.hidden = true;
    ui.keyInput.setAttribute('aria-invalid', 'false');
    ui.viewerName.textContent = `${viewer.name} (${viewer.roles.join(', ')})`;
    ui.who.hidden = false;
    ui.dashboard.hidden = false;
    candidate.start();
    byId('dashboard-title').focus();
  } catch (error) {
    candidate.stop();
    if (error instanceof RefusedError) {
      sessionStorage.removeItem(KEY_STORAGE);
      showSignIn(`The server refused ${stored ? 'the saved' : 'this'} API key. ${error.message} Enter a valid key.`);
    } else {
      // The server may be restarting: keep a saved key and let the user try again.
      showSignIn(`Could not reach the server (${error instanceof Error ? error.message : String(error)}). Try again.`);
    }
  }
}

ui.signInForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const key = ui.keyInput.value.trim();
  if (!key) {
    showSignIn('Enter an API key.');
    return;
  }
  void signIn(key, false);
});

ui.signOut.addEventListener('click', () => {
  sessionStorage.removeItem(KEY_STORAGE);
  showSignIn(null);
});

ui.filters.addEventListener('submit', (event) => {
  event.preventDefault();
  const status = ui.status.value;
  session?.applyFilters({
    batchId: ui.batch.value.trim() || null,
    status: STATUSES.find((value) => value === status) ?? null,
  });
});

const saved = sessionStorage.getItem(KEY_STORAGE);
if (saved) void signIn(saved, true);
else showSignIn(null);
