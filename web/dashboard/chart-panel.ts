// The chart panel's data: the last hour of decisions and lease expiries, paged back from history and then
// followed live, kept to the window and redrawn (by chart.ts) on each event and each new 5-minute bucket.

import type { DashboardChartHistoryQuery, EventType } from '../gql/graphql.js';
import { byId } from '../shared/dom.js';
import { bucketize, bucketOf, CHART_WINDOW_MS, type ChartEventType, renderChart } from './chart.js';
import { ChartEventsSubscription, ChartHistoryQuery } from './documents.js';
import { formatAge } from './format.js';
import type { View } from './view.js';

/** At most this many pages of history for the chart (100 events each). */
const CHART_PAGES = 50;

const chart = byId('chart');
const summary = byId('chart-summary');
const heldLine = byId('chart-held');

export class ChartPanel {
  private unsubscribe: (() => void) | null = null;
  /** By sequence: when, which, and for a decision how long its lease was held (details.heldMs), if known. */
  private readonly events = new Map<number, { at: number; type: ChartEventType; heldMs: number | null }>();
  private last = 0;
  private bucket = Number.NaN;

  constructor(private readonly view: View) {}

  /** Loads the last hour of decisions and expiries (paging back), then follows new ones live after `latest`. */
  async start(latest: number): Promise<void> {
    this.unsubscribe?.();
    this.last = latest;
    this.unsubscribe = this.view.api.subscribe(ChartEventsSubscription, () => ({ afterSequence: this.last }), {
      next: (data) => {
        const event = data.queueEvents;
        this.view.clock.observe(event.serverTime);
        this.last = Math.max(this.last, event.sequence);
        this.add(event.sequence, event.type, event.occurredAt, event.details);
        this.render();
      },
      error: (message) => this.view.problem(`The chart stopped: ${message}`),
    });
    let before: string | null = null;
    for (let page = 0; page < CHART_PAGES && !this.view.stopped; page++) {
      const data: DashboardChartHistoryQuery = await this.view.api.query(ChartHistoryQuery, { before }, (now, sentAt) =>
        this.view.clock.observe(now, sentAt),
      );
      for (const { node } of data.events.edges) this.add(node.sequence, node.type, node.occurredAt, node.details);
      this.render();
      const oldest = data.events.edges[0]?.node.occurredAt;
      const now = this.view.clock.now() ?? 0;
      if (!data.events.pageInfo.hasPreviousPage || !oldest || Date.parse(oldest) < now - CHART_WINDOW_MS) break;
      before = data.events.pageInfo.startCursor ?? null;
    }
  }

  stop(): void {
    this.unsubscribe?.();
  }

  /** Bars move only when a bucket ends: redraws then, and not on every tick. */
  tick(): void {
    const now = this.view.clock.now();
    if (now !== null && bucketOf(now) !== this.bucket) this.render();
  }

  private add(sequence: number, type: string, occurredAt: string, details: Record<string, unknown>): void {
    if (type !== 'ITEM_DECIDED' && type !== 'LEASE_EXPIRED') return;
    const held = details.heldMs;
    this.events.set(sequence, {
      at: Date.parse(occurredAt),
      type,
      heldMs: typeof held === 'number' && Number.isFinite(held) ? held : null,
    });
  }

  private render(): void {
    const now = this.view.clock.now();
    if (now === null) return;
    this.bucket = bucketOf(now);
    const horizon = now - CHART_WINDOW_MS - CHART_WINDOW_MS / 12;
    for (const [sequence, event] of this.events) if (event.at < horizon) this.events.delete(sequence);
    summary.textContent = renderChart(chart, bucketize(this.events.values(), now));
    heldLine.textContent = heldSummary([...this.events.values()].filter((event) => event.at >= now - CHART_WINDOW_MS));
  }
}

/** Claim to decision over the window: the median and the 90th percentile of the decisions' lease hold times. */
export function heldSummary(events: readonly { type: string; heldMs: number | null }[]): string {
  const held = events
    .flatMap((event) => (event.type === 'ITEM_DECIDED' && event.heldMs !== null ? [event.heldMs] : []))
    .sort((a, b) => a - b);
  if (held.length === 0) return 'Claim to decision, last hour: no decisions yet.';
  const at = (share: number) => held[Math.min(held.length - 1, Math.ceil(share * held.length) - 1)] ?? 0;
  return `Claim to decision, last hour: median ${formatAge(at(0.5))}, 90th percentile ${formatAge(at(0.9))} (${held.length} decision${held.length === 1 ? '' : 's'}).`;
}
