// One open /dashboard page, as the page itself behaves (web/dashboard/: session.ts and its panels), with its own documents:
// the viewer query, the queueStats subscription, the latest-event query, the items table (reloaded after an
// event about an item, at most once a second as the page does, loads coalesced), the feed (queueEvents after the last 50) and the chart (its own
// queueEvents subscription for decisions and expiries, and up to 50 pages of history).
import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import {
  ChartHistoryQuery,
  EventsSubscription,
  ItemsQuery,
  LatestEventQuery,
  StatsSubscription,
  ViewerQuery,
} from '../web/dashboard/documents.js';
import { type GraphQLClient, gqlBody, graphqlClient } from './http.js';
import type { BenchKey } from './keys.js';

/** As in web/dashboard/event-feed.ts. */
const FEED_BACKLOG = 50;
const ITEMS_PAGE = 100;
/** The page's ITEMS_RELOAD_MS: fewest milliseconds between two reloads of the table caused by events. */
const ITEMS_RELOAD_MS = 1_000;
const CHART_PAGES = 50;
const CHART_WINDOW_MS = 60 * 60 * 1000;

/** A graphql-ws error or close event, in one line. */
export function describeClose(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const close = error as { code: number; reason?: string };
    return `closed ${close.code}${close.reason ? ` (${close.reason})` : ''}`;
  }
  return error instanceof Error ? error.message : JSON.stringify(error);
}

export interface DashboardTally {
  queries: number;
  itemsLoads: number;
  statsUpdates: number;
  feedEvents: number;
  chartEvents: number;
  /** GraphQL errors in answers and subscriptions, failed requests, closed connections. */
  errors: string[];
}

interface Answer {
  data?: Record<string, unknown> | null;
  errors?: { message: string }[];
}

export class DashboardPage {
  private readonly http: GraphQLClient;
  private readonly ws: Client;
  private readonly disposers: (() => void)[] = [];
  private closed = false;
  private itemsLoading = false;
  private itemsAgain = false;
  private itemsLoadedAt = Number.NEGATIVE_INFINITY;
  private itemsReload: NodeJS.Timeout | null = null;
  private feedLast = 0;
  private chartLast = 0;
  readonly tally: DashboardTally = { queries: 0, itemsLoads: 0, statsUpdates: 0, feedEvents: 0, chartEvents: 0, errors: [] };
  /** Settles when the page's first requests have finished. */
  private started: Promise<void> = Promise.resolve();

  private constructor(
    port: number,
    private readonly key: BenchKey,
  ) {
    this.http = graphqlClient(port, 2);
    this.ws = createClient({
      url: `ws://127.0.0.1:${port}/graphql`,
      connectionParams: { authorization: key.authorization },
      webSocketImpl: WebSocket,
      lazy: false,
      retryAttempts: 0,
      onNonLazyError: (error) => this.fail(`the WebSocket failed: ${describeClose(error)}`),
      on: { closed: (event) => this.fail(`the WebSocket closed: ${describeClose(event)}`) },
    });
  }

  /** Opens the page as `key` (a VIEWER): resolves once its first requests are answered. */
  static async open(port: number, key: BenchKey): Promise<DashboardPage> {
    const page = new DashboardPage(port, key);
    await page.query(ViewerQuery.toString(), {});
    page.subscribe(
      StatsSubscription.toString(),
      () => ({}),
      () => {
        page.tally.statsUpdates++;
      },
    );
    page.started = page.startStreams();
    await page.started;
    return page;
  }

  private fail(message: string): void {
    if (!this.closed) this.tally.errors.push(message);
  }

  private async query(document: string, variables: Record<string, unknown>): Promise<Record<string, unknown> | null> {
    this.tally.queries++;
    try {
      const reply = await this.http.post(gqlBody(document, variables), { authorization: this.key.authorization });
      const answer = JSON.parse(reply.body) as Answer;
      if (reply.status !== 200 || answer.errors?.length || !answer.data) {
        this.fail(`HTTP ${reply.status}: ${reply.body.slice(0, 200)}`);
        return null;
      }
      return answer.data;
    } catch (error) {
      this.fail(error instanceof Error ? error.message : String(error));
      return null;
    }
  }

  private subscribe(document: string, variables: () => Record<string, unknown>, next: (data: Record<string, unknown>) => void): void {
    this.disposers.push(
      this.ws.subscribe<Record<string, unknown>>(
        {
          query: document,
          get variables() {
            return variables();
          },
        },
        {
          next: (result) => {
            if (result.errors?.length) this.fail(result.errors.map((error) => error.message).join('; '));
            else if (result.data) next(result.data);
          },
          error: (error) => this.fail(`subscription: ${error instanceof Error ? error.message : JSON.stringify(error)}`),
          complete: () => undefined,
        },
      ),
    );
  }

  private async startStreams(): Promise<void> {
    const latestData = await this.query(LatestEventQuery.toString(), {});
    const edges = (latestData?.events as { edges: { node: { sequence: number } }[] } | undefined)?.edges ?? [];
    const latest = edges[0]?.node.sequence ?? 0;
    await Promise.all([this.loadItems(), this.startFeed(latest), this.startChart(latest)]);
  }

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
        this.tally.itemsLoads++;
        await this.query(ItemsQuery.toString(), { first: ITEMS_PAGE, filter: { status: 'PENDING' } });
      } while (this.itemsAgain && !this.closed);
    } finally {
      this.itemsLoading = false;
    }
  }

  private reloadItemsSoon(): void {
    if (this.itemsReload !== null) return;
    const wait = this.itemsLoadedAt + ITEMS_RELOAD_MS - performance.now();
    if (wait <= 0) {
      void this.loadItems();
      return;
    }
    this.itemsReload = setTimeout(() => {
      this.itemsReload = null;
      if (!this.closed) void this.loadItems();
    }, wait);
  }

  private async startFeed(latest: number): Promise<void> {
    this.feedLast = Math.max(0, latest - FEED_BACKLOG);
    this.subscribe(
      EventsSubscription.toString(),
      () => ({ after: this.feedLast, filter: null }),
      (data) => {
        const event = data.queueEvents as { sequence: number; item: unknown };
        if (event.sequence <= this.feedLast) return;
        this.feedLast = event.sequence;
        this.tally.feedEvents++;
        if (event.item && !this.closed) this.reloadItemsSoon();
      },
    );
  }

  private async startChart(latest: number): Promise<void> {
    this.chartLast = latest;
    this.subscribe(
      EventsSubscription.toString(),
      () => ({ after: this.chartLast, filter: { types: ['ITEM_DECIDED', 'LEASE_EXPIRED'] } }),
      (data) => {
        const event = data.queueEvents as { sequence: number };
        this.chartLast = Math.max(this.chartLast, event.sequence);
        this.tally.chartEvents++;
      },
    );
    let before: string | null = null;
    for (let page = 0; page < CHART_PAGES && !this.closed; page++) {
      const data = await this.query(ChartHistoryQuery.toString(), { before });
      const events = data?.events as
        | { edges: { node: { occurredAt: string } }[]; pageInfo: { hasPreviousPage: boolean; startCursor: string | null } }
        | undefined;
      const oldest = events?.edges[0]?.node.occurredAt;
      if (!events?.pageInfo.hasPreviousPage || !oldest || Date.parse(oldest) < Date.now() - CHART_WINDOW_MS) break;
      before = events.pageInfo.startCursor;
    }
  }

  /** Closes the page: every subscription, then the socket; waits for a load still running. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.itemsReload !== null) clearTimeout(this.itemsReload);
    for (const dispose of this.disposers.splice(0)) dispose();
    await this.started.catch(() => undefined);
    await this.ws.dispose();
    this.http.close();
  }
}
