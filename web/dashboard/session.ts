// One signed-in view of the queue: opens the API with the key, starts the counts, chart, items table and feed
// together, follows the connection (catching up after a drop), and stop() ends every request, subscription and
// timer they started.
import { Api, type ConnectionState, RefusedError } from '../shared/api.js';
import { showConnection } from '../shared/connection-status.js';
import { byId } from '../shared/dom.js';
import { ENDPOINT, PERSISTED_OPERATIONS, showProblem } from '../shared/page.js';
import { ServerClock } from '../shared/server-clock.js';
import type { SignedInView } from '../shared/sign-in.js';
import { ChartPanel } from './chart-panel.js';
import { LatestEventQuery, ViewerQuery } from './documents.js';
import { EventFeed } from './event-feed.js';
import { type Filters, filtersFromAddress, showFilters, writeFiltersToAddress } from './filters.js';
import { ItemsTable } from './items-table.js';
import { ProposalsPanel } from './proposals-panel.js';
import { StatsPanel } from './stats-panel.js';
import type { View } from './view.js';

export class Session implements View, SignedInView {
  readonly clock = new ServerClock();
  readonly api: Api;
  private readonly stats = new StatsPanel(this);
  private readonly chart = new ChartPanel(this);
  private readonly proposals = new ProposalsPanel(this);
  private readonly items = new ItemsTable(this);
  private readonly feed = new EventFeed(this, () => this.items.reloadSoon());
  /** The first requests failed (the server went away right after sign-in): they run again on reconnection. */
  private streamsFailed = false;
  private ticker: ReturnType<typeof setInterval> | null = null;
  private isStopped = false;
  private currentFilters = filtersFromAddress();
  private currentGeneration = 0;

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

  get filters(): Filters {
    return this.currentFilters;
  }

  get generation(): number {
    return this.currentGeneration;
  }

  get stopped(): boolean {
    return this.isStopped;
  }

  /** Checks the key with one query; resolves to the viewer's name and roles, or rejects (RefusedError for a refused key). */
  async verify(): Promise<{ name: string; roles: string[] }> {
    const data = await this.api.query(ViewerQuery, {}, (now, sentAt) => this.clock.observe(now, sentAt));
    return data.viewer;
  }

  start(): void {
    showFilters(this.currentFilters);
    writeFiltersToAddress(this.currentFilters);
    this.stats.start();
    this.proposals.start();
    void this.guard(this.startStreams());
    this.ticker = setInterval(() => this.tick(), 1000);
    this.tick();
  }

  stop(): void {
    this.isStopped = true;
    this.stats.stop();
    this.proposals.stop();
    this.feed.stop();
    this.chart.stop();
    if (this.ticker !== null) clearInterval(this.ticker);
    this.items.stop();
    this.api.dispose();
  }

  applyFilters(filters: Filters): void {
    const batchChanged = filters.batchId !== this.currentFilters.batchId;
    this.currentFilters = filters;
    this.currentGeneration++;
    writeFiltersToAddress(filters);
    void this.guard(this.items.load());
    // The feed follows the batch filter: a new batch is a new stream, started afresh.
    if (batchChanged) {
      void this.guard(
        this.feed.start().catch((error: unknown) => {
          this.streamsFailed = true;
          throw error;
        }),
      );
    }
  }

  async guard(work: Promise<void>): Promise<void> {
    try {
      await work;
    } catch (error) {
      if (this.isStopped) return;
      if (error instanceof RefusedError) this.onRefused(error.message);
      else this.problem(error instanceof Error ? error.message : String(error));
    }
  }

  problem(message: string | null): void {
    showProblem(message);
  }

  async latestSequence(): Promise<number> {
    const data = await this.api.query(LatestEventQuery, {}, (now, sentAt) => this.clock.observe(now, sentAt));
    return data.events.edges[0]?.node.sequence ?? 0;
  }

  private onConnection(state: ConnectionState, reconnected: boolean): void {
    if (this.isStopped) return;
    showConnection(state);
    if (state.kind === 'live') {
      this.problem(null);
      // Counts and events catch up by themselves (resubscribed after the last sequence); the table is a query.
      if (this.streamsFailed) void this.guard(this.startStreams());
      else if (reconnected) void this.guard(this.items.load());
    } else if (state.kind === 'refused') {
      this.onRefused(`The server closed the live connection: ${state.reason}.`);
    }
  }

  /** The first requests: the latest sequence tells where the feed and the chart's live part begin. */
  private async startStreams(): Promise<void> {
    this.streamsFailed = false;
    try {
      const latest = await this.latestSequence();
      await Promise.all([this.items.load(), this.feed.start(latest), this.chart.start(latest)]);
    } catch (error) {
      this.streamsFailed = true;
      throw error;
    }
  }

  /** Once a second: countdowns, the oldest item's age and the chart's buckets follow the server's clock. */
  private tick(): void {
    this.items.renderCountdowns();
    this.stats.renderOldest();
    this.chart.tick();
    this.proposals.tick();
  }
}
