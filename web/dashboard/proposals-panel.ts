// The "Action proposals" panel: what waits for approval (for how long, at which risk), what is approved and about to lose its
// approval, what needs a reconciler, what failed, from proposalStats (maintained counts) and the approved
// proposals (at most 100); read again when a proposal changes (proposalEvents), at most once a second.
import type { DashboardProposalStatsQuery } from '../gql/graphql.js';
import { byId } from '../shared/dom.js';
import { ProposalChangesSubscription, ProposalStatsQuery } from './documents.js';
import { formatAge } from './format.js';
import type { View } from './view.js';

/** An approval expiring within this long is counted as expiring. */
const EXPIRING_MS = 3_600_000;
/** At most one read of the counts per this long while proposals change. */
const RELOAD_MS = 1_000;

export class ProposalsPanel {
  private unsubscribe: (() => void) | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private loading: Promise<void> | null = null;
  private lastLoad = 0;
  private data: DashboardProposalStatsQuery | null = null;

  constructor(private readonly view: View) {}

  start(): void {
    this.unsubscribe = this.view.api.subscribe(ProposalChangesSubscription, () => ({}), {
      next: (data) => {
        this.view.clock.observe(data.proposalEvents.serverTime);
        this.loadSoon();
      },
      error: (message) => this.view.problem(`Proposal counts stopped: ${message}`),
    });
    void this.view.guard(this.load());
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Approvals expire with the clock: recounted each tick from the last read. */
  tick(): void {
    this.renderExpiring();
  }

  private loadSoon(): void {
    if (this.timer !== null) return;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        void this.view.guard(this.load());
      },
      Math.max(0, this.lastLoad + RELOAD_MS - performance.now()),
    );
  }

  private async load(): Promise<void> {
    // One read at a time; a change during it is read by the next.
    if (this.loading) {
      await this.loading;
      return this.loadSoon();
    }
    this.lastLoad = performance.now();
    const sentAt = performance.now();
    this.loading = this.view.api
      .query(ProposalStatsQuery, {}, (now) => this.view.clock.observe(now, sentAt))
      .then((data) => {
        if (this.view.stopped) return;
        this.data = data;
        this.render();
      })
      .finally(() => {
        this.loading = null;
      });
    await this.loading;
  }

  private render(): void {
    const data = this.data;
    if (!data) return;
    const stats = data.proposalStats;
    const byState = new Map(stats.byState.map((count) => [count.key, count.count]));
    byId('prop-pending').textContent = String(byState.get('PENDING') ?? 0);
    byId('prop-approved').textContent = String(byState.get('APPROVED') ?? 0);
    byId('prop-unknown').textContent = String(stats.needingReconciliation);
    byId('prop-failed').textContent = String(stats.executionFailures);
    byId('prop-stale').textContent = String(stats.stale);
    for (const bucket of stats.pendingByAge) {
      const cell = document.getElementById(`prop-age-${bucket.key}`);
      if (cell) cell.textContent = String(bucket.count);
    }
    for (const level of stats.pendingByRisk) {
      const cell = document.getElementById(`prop-risk-${level.key}`);
      if (cell) cell.textContent = String(level.count);
    }
    byId('prop-wait').textContent =
      stats.decisionWaitP50Seconds === null || stats.decisionWaitP50Seconds === undefined
        ? 'Submission to decision: no decisions yet.'
        : `Submission to decision: median ${formatAge(stats.decisionWaitP50Seconds * 1000)}, 95th percentile ${formatAge((stats.decisionWaitP95Seconds ?? 0) * 1000)}.`;
    this.renderExpiring();
  }

  private renderExpiring(): void {
    const data = this.data;
    const now = this.view.clock.now();
    if (!data || now === null) return;
    const expiring = data.proposals.edges.filter(({ node }) => {
      const at = node.approvalExpiresAt ? Date.parse(node.approvalExpiresAt) : Number.NaN;
      return at > now && at <= now + EXPIRING_MS;
    }).length;
    // Read from the oldest 100 approved proposals: more than that waiting to execute is said as a floor.
    byId('prop-expiring').textContent = `${expiring}${data.proposals.pageInfo.hasNextPage ? '+' : ''}`;
  }
}
