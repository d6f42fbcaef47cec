// Prometheus metrics at GET /metrics: queue state (items and action proposals) read at scrape time,
// review and execution activity counted from the event feed, WebSocket connections, and Node.js
// process metrics. One registry per app, so several apps in one process (tests) keep separate numbers.

import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Database, Event } from './db/client.js';
import type { DatabaseClock } from './db/database-clock.js';
import type { Clock } from './domain/clock.js';
import { PROPOSAL_STATES, type ProposalState } from './domain/proposal.js';
import { eventLoopDelayHistogram } from './event-loop-delay.js';
import { historyPageWork } from './events/history-pages.js';
import type { Live } from './events/live.js';
import { streamWork } from './events/streams.js';
import { subscriptionWork } from './graphql/shared-subscriptions.js';
import { PENDING_AGE_BUCKETS, proposalCounts } from './services/proposal-stats.js';

/** Seconds: `nodejs_gc_duration_seconds`' buckets (prom-client's default starts at 1, 10, 100 ms). */
export const GC_PAUSE_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5, 1];

const STATUSES = ['PENDING', 'ACCEPTED', 'CORRECTED', 'REJECTED'] as const;
const DECISIONS = ['ACCEPTED', 'CORRECTED', 'REJECTED'] as const;
/** Human review takes seconds to an hour: 1 s … 1 h. */
const HELD_BUCKETS = [1, 5, 10, 30, 60, 120, 300, 600, 900, 1800, 3600];
/** A write transaction holds the write lock for well under a millisecond to, on a stalled instance, seconds. */
const LOCK_HELD_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const PROPOSAL_STATE_NAMES = Object.keys(PROPOSAL_STATES) as ProposalState[];
/** Review decisions on proposals, by the event that records them. */
const PROPOSAL_DECISIONS = new Map<string, string>([
  ['PROPOSAL_APPROVED', 'approved'],
  ['PROPOSAL_REJECTED', 'rejected'],
  ['PROPOSAL_CHANGES_REQUESTED', 'changes_requested'],
]);

export interface MetricsSources {
  live: Live;
  clock: Clock;
  /** Open WebSocket connections at this moment. */
  webSocketConnections: () => number;
  /** The database this process writes to, for how long its writes hold the write lock. */
  db?: Pick<Database, 'onLockHeld'>;
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
  private readonly proposals: Gauge<'state'>;
  private readonly proposalsPendingByAge: Gauge<'bucket'>;
  private readonly proposalsNeedingReconciliation: Gauge;
  private readonly proposalsAwaitingReviewAfter: Gauge;
  private readonly oldestPendingProposal: Gauge;
  private readonly proposalDecisions: Counter<'decision'>;
  private readonly proposalExpiries: Counter;
  private readonly executionFailures: Counter;
  private readonly outcomeUnknown: Counter;

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
    // Shared subscription execution (counted per process): executions stay per event and sharing key while deliveries grow with subscribers.
    new Counter({
      name: 'leasehold_subscription_executions_total',
      help: 'Subscription events executed (one execution serves every subscriber with the same document, variables and roles).',
      registers,
      collect() {
        this.reset();
        this.inc(subscriptionWork.executions);
      },
    });
    new Counter({
      name: 'leasehold_subscription_deliveries_total',
      help: 'Subscription payloads handed to subscribers.',
      registers,
      collect() {
        this.reset();
        this.inc(subscriptionWork.deliveries);
      },
    });
    // Subscribers that fell behind (counted per process): caught up from the history, or cut off.
    new Counter({
      name: 'leasehold_subscription_catch_ups_total',
      help: 'Subscribers that fell a whole buffer behind while still reading, and caught up from the stored history instead of being cut off.',
      registers,
      collect() {
        this.reset();
        this.inc(streamWork.catchUps);
      },
    });
    new Counter({
      name: 'leasehold_subscribers_cut_off_total',
      help: 'Subscribers cut off with SUBSCRIBER_TOO_SLOW: a whole buffer of events arrived while they took none.',
      registers,
      collect() {
        this.reset();
        this.inc(streamWork.cutOffs);
      },
    });
    new Counter({
      name: 'leasehold_subscription_history_pages_total',
      help: 'Pages of the history replayed to subscribers (resuming or catching up), by where they came from.',
      labelNames: ['source'],
      registers,
      collect() {
        this.reset();
        this.inc({ source: 'database' }, historyPageWork.read);
        this.inc({ source: 'shared' }, historyPageWork.shared);
      },
    });
    const clock = sources.clock as Partial<DatabaseClock>;
    if (typeof clock.offsetMs === 'number') {
      // Only where instances follow the database's clock (PostgreSQL): how far this machine's own is off.
      new Gauge({
        name: 'leasehold_database_clock_offset_seconds',
        help: "How far the database server's clock is ahead of this machine's (the correction this instance applies).",
        registers,
        collect() {
          this.set((clock.offsetMs ?? 0) / 1000);
        },
      });
    }
    this.proposals = new Gauge({ name: 'leasehold_proposals', help: 'Action proposals by state.', labelNames: ['state'], registers });
    this.proposalsPendingByAge = new Gauge({
      name: 'leasehold_proposals_pending_by_age',
      help: 'Pending action proposals by age (server clock): lt_1h, 1h_to_4h, 4h_to_24h, gte_24h.',
      labelNames: ['bucket'],
      registers,
    });
    this.proposalsNeedingReconciliation = new Gauge({
      name: 'leasehold_proposals_needing_reconciliation',
      help: 'Action proposals in OUTCOME_UNKNOWN: executed or not is unknown until a reconciler (RECONCILER) reconciles them.',
      registers,
    });
    this.proposalsAwaitingReviewAfter = new Gauge({
      name: 'leasehold_proposals_awaiting_review_after_execution',
      help: 'Action proposals executed without a review before (approvers: 0) and not yet reviewed afterwards (reviewExecutedProposal).',
      registers,
    });
    this.oldestPendingProposal = new Gauge({
      name: 'leasehold_oldest_pending_proposal_age_seconds',
      help: 'Age of the oldest pending action proposal by the server clock; 0 when none is pending.',
      registers,
    });
    this.proposalDecisions = new Counter({
      name: 'leasehold_proposal_decisions_total',
      help: 'Review decisions on action proposals seen since start: approved (fully), rejected, changes_requested.',
      labelNames: ['decision'],
      registers,
    });
    this.proposalExpiries = new Counter({
      name: 'leasehold_proposal_expiries_total',
      help: 'Action proposals expired (deadline or approval validity) seen since start.',
      registers,
    });
    this.executionFailures = new Counter({
      name: 'leasehold_execution_failures_total',
      help: 'Executions the remote system refused (proposal FAILED) seen since start.',
      registers,
    });
    this.outcomeUnknown = new Counter({
      name: 'leasehold_execution_outcome_unknown_total',
      help: 'Executions whose outcome became unknown (reported, or the execution lease lapsed) seen since start.',
      registers,
    });
    for (const decision of DECISIONS) this.decisions.inc({ decision }, 0);
    for (const decision of PROPOSAL_DECISIONS.values()) this.proposalDecisions.inc({ decision }, 0);
    // GC pauses in buckets fine enough to tell a pause that stalls the loop (≥ 10 ms) from the usual few ms.
    collectDefaultMetrics({ register: this.registry, gcDurationBuckets: GC_PAUSE_BUCKETS });
    // Samples since start in buckets: a blocked loop is visible over any window (see event-loop-delay.ts).
    eventLoopDelayHistogram(registers);
    if (sources.db) {
      const held = new Histogram({
        name: 'leasehold_write_lock_held_seconds',
        help: 'How long each write transaction of this process held the database write lock, from having it until its COMMIT was answered; form="statement": a batch of review writes run as one call (PostgreSQL), "transaction": an interactive transaction.',
        labelNames: ['form'],
        buckets: LOCK_HELD_BUCKETS,
        registers,
      });
      const writes = new Counter({
        name: 'leasehold_write_lock_writes_total',
        help: 'Writes (group-commit jobs) run under the write lock by this process, by the form of their transaction.',
        labelNames: ['form'],
        registers,
      });
      for (const form of ['statement', 'transaction']) {
        held.zero({ form });
        writes.inc({ form }, 0);
      }
      sources.db.onLockHeld((seconds, form, count) => {
        held.observe({ form }, seconds);
        writes.inc({ form }, count);
      });
    }
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Feed listener: counts decisions, their holding times, lease lapses and proposal outcomes, once per event. */
  onEvents = (events: readonly Event[]): void => {
    for (const event of events) {
      if (event.type === 'LEASE_EXPIRED') this.expiries.inc();
      else if (event.type === 'PROPOSAL_EXPIRED') this.proposalExpiries.inc();
      else if (event.type === 'EXECUTION_FAILED') this.executionFailures.inc();
      else if (event.type === 'EXECUTION_OUTCOME_UNKNOWN') this.outcomeUnknown.inc();
      else if (PROPOSAL_DECISIONS.has(event.type)) this.proposalDecisions.inc({ decision: PROPOSAL_DECISIONS.get(event.type) });
      else if (event.type === 'ITEM_DECIDED') {
        const details = parseDetails(event.details);
        const decision = event.toStatus ?? details.decision;
        if (typeof decision === 'string') this.decisions.inc({ decision });
        if (typeof details.heldMs === 'number' && Number.isFinite(details.heldMs)) this.held.observe(Math.max(0, details.heldMs) / 1000);
      }
    }
  };

  /**
   * The exposition text, with the queue gauges read now: from the maintained counts and index reads
   * bounded by their answer (see queueStats and proposalCounts), so a scrape costs the same on any queue.
   */
  async render(): Promise<string> {
    const now = this.sources.clock.now();
    const [stats, proposals] = await Promise.all([
      this.sources.live.tail.queueStats(now),
      proposalCounts({ db: this.sources.live.db, clock: this.sources.clock }),
    ]);
    for (const status of STATUSES) this.items.set({ status }, stats[status.toLowerCase() as Lowercase<typeof status>]);
    this.activeLeases.set(stats.active);
    this.expiredLeases.set(stats.expired);
    this.oldestPending.set(
      stats.oldestPendingCreatedAt === null ? 0 : Math.max(0, (now.getTime() - stats.oldestPendingCreatedAt.getTime()) / 1000),
    );
    for (const state of PROPOSAL_STATE_NAMES) this.proposals.set({ state }, proposals.byState[state]);
    for (const bucket of PENDING_AGE_BUCKETS) this.proposalsPendingByAge.set({ bucket }, proposals.pendingByAge[bucket]);
    this.proposalsNeedingReconciliation.set(proposals.byState.OUTCOME_UNKNOWN);
    this.proposalsAwaitingReviewAfter.set(proposals.awaitingReviewAfterExecution);
    this.oldestPendingProposal.set(proposals.oldestPendingAgeSeconds ?? 0);
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
