// Prometheus metrics at GET /metrics: queue state read at scrape time, review activity counted from
// the event feed, WebSocket connections, and Node.js process metrics. One registry per app, so
// several apps in one process (tests) keep separate numbers.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Clock } from './domain/clock.js';
import type { FeedEvent } from './events/feed.js';
import type { Live } from './events/live.js';

const STATUSES = ['PENDING', 'ACCEPTED', 'CORRECTED', 'REJECTED'] as const;
const DECISIONS = ['ACCEPTED', 'CORRECTED', 'REJECTED'] as const;
/** Human review takes seconds to an hour: 1 s … 1 h. */
const HELD_BUCKETS = [1, 5, 10, 30, 60, 120, 300, 600, 900, 1800, 3600];

export interface MetricsSources {
  live: Live;
  clock: Clock;
  /** Open WebSocket connections at this moment. */
  webSocketConnections: () => number;
}

export class Metrics {
  readonly registry = new Registry();
  private readonly items: Gauge<'status'>;
  private readonly activeLeases: Gauge;
  private readonly expiredLeases: Gauge;
  private readonly oldestPending: Gauge;
  private readonly held: Histogram;
  private readonly decisions: Counter<'decision'>;
  private readonly expiries: Counter;

  constructor(private readonly sources: MetricsSources) {
    const registers = [this.registry];
    this.items = new Gauge({ name: 'leasehold_items', help: 'Items by status.', labelNames: ['status'], registers });
    this.activeLeases = new Gauge({ name: 'leasehold_leases_active', help: 'Pending items under an unexpired lease.', registers });
    this.expiredLeases = new Gauge({
      name: 'leasehold_leases_expired',
      help: 'Pending items whose lease has lapsed but is still recorded on the item (claimable again).',
      registers,
    });
    this.oldestPending = new Gauge({
      name: 'leasehold_oldest_pending_item_age_seconds',
      help: 'Age of the oldest pending item by the server clock; 0 when nothing is pending.',
      registers,
    });
    this.held = new Histogram({
      name: 'leasehold_claim_to_decision_seconds',
      help: 'Time from claim to decision, held by the deciding lease, of decisions seen since start.',
      buckets: HELD_BUCKETS,
      registers,
    });
    this.decisions = new Counter({
      name: 'leasehold_decisions_total',
      help: 'Decisions seen since start, by outcome.',
      labelNames: ['decision'],
      registers,
    });
    this.expiries = new Counter({ name: 'leasehold_lease_expiries_total', help: 'Lease lapses recorded since start.', registers });
    new Gauge({
      name: 'leasehold_websocket_connections',
      help: 'Open WebSocket (graphql-ws) connections on /graphql.',
      registers,
      collect() {
        this.set(sources.webSocketConnections());
      },
    });
    for (const decision of DECISIONS) this.decisions.inc({ decision }, 0);
    collectDefaultMetrics({ register: this.registry });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Feed listener: counts decisions, their holding times and lease lapses, once per event. */
  onEvents = (events: readonly FeedEvent[]): void => {
    for (const event of events) {
      if (event.type === 'LEASE_EXPIRED') this.expiries.inc();
      else if (event.type === 'ITEM_DECIDED') {
        const details = parseDetails(event.details);
        const decision = event.toStatus ?? details.decision;
        if (typeof decision === 'string') this.decisions.inc({ decision });
        if (typeof details.heldMs === 'number' && Number.isFinite(details.heldMs)) this.held.observe(Math.max(0, details.heldMs) / 1000);
      }
    }
  };

  /** The exposition text, with the queue gauges read now. */
  async render(): Promise<string> {
    const now = this.sources.clock.now();
    const stats = this.sources.live.tail.queueStats(now);
    for (const status of STATUSES) this.items.set({ status }, stats[status.toLowerCase() as Lowercase<typeof status>]);
    this.activeLeases.set(stats.active);
    this.expiredLeases.set(stats.expired);
    this.oldestPending.set(
      stats.oldestPendingCreatedAt === null ? 0 : Math.max(0, (now.getTime() - stats.oldestPendingCreatedAt.getTime()) / 1000),
    );
    return this.registry.metrics();
  }
}

function parseDetails(details: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(details);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
