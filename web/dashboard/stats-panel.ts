// The "Whole queue" panel: the queueStats subscription's counts, and the oldest pending item's age on the server's clock.

import type { DashboardStatsSubscription } from '../gql/graphql.js';
import { byId } from '../shared/dom.js';
import { StatsSubscription } from './documents.js';
import { formatAge, formatTime } from './format.js';
import type { View } from './view.js';

type Stats = DashboardStatsSubscription['queueStats'];

const cells = {
  pending: byId('stat-pending'),
  unclaimed: byId('stat-unclaimed'),
  active: byId('stat-active'),
  expired: byId('stat-expired'),
  accepted: byId('stat-accepted'),
  corrected: byId('stat-corrected'),
  rejected: byId('stat-rejected'),
  oldest: byId('stat-oldest'),
  asOf: byId('stats-as-of'),
};

export class StatsPanel {
  private stats: Stats | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly view: View) {}

  start(): void {
    this.unsubscribe = this.view.api.subscribe(StatsSubscription, () => ({}), {
      next: (data) => {
        this.view.clock.observe(data.queueStats.serverTime);
        this.stats = data.queueStats;
        this.render();
      },
      error: (message) => this.view.problem(`Queue counts stopped: ${message}`),
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** The age and the "as of" line move with the clock; the counts only with a new push. */
  renderOldest(): void {
    const stats = this.stats;
    const now = this.view.clock.now();
    if (!stats || now === null) return;
    cells.oldest.textContent = stats.oldestPendingCreatedAt ? formatAge(now - Date.parse(stats.oldestPendingCreatedAt)) : 'none pending';
    cells.asOf.textContent = `Counts as of event #${stats.sequence}. Server time ${formatTime(now)}.`;
  }

  private render(): void {
    const stats = this.stats;
    if (!stats) return;
    const counts: [HTMLElement, number][] = [
      [cells.pending, stats.pending],
      [cells.unclaimed, stats.unclaimed],
      [cells.active, stats.activeLeases],
      [cells.expired, stats.expiredLeases],
      [cells.accepted, stats.accepted],
      [cells.corrected, stats.corrected],
      [cells.rejected, stats.rejected],
    ];
    for (const [node, value] of counts) node.textContent = String(value);
    this.renderOldest();
  }
}
