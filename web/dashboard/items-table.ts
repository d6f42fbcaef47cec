// The items table: loads the items the filters select, reloads them as the queue changes (at most once a
// second), and counts each active lease down on the server's clock.

import type { DashboardItemsQuery } from '../gql/graphql.js';
import { byId, el } from '../shared/dom.js';
import { ItemsQuery } from './documents.js';
import { formatCountdown, titleCase } from './format.js';
import type { View } from './view.js';

const ITEMS_PAGE = 100;
/**
 * Fewest milliseconds between two reloads of the items table caused by queue events. A busy queue
 * makes several changes a second; reloading the table for each would make every open dashboard cost
 * the reviewers one page read per change, while a person reads the table at most this often.
 */
const ITEMS_RELOAD_MS = 1_000;

const caption = byId('items-caption');
const body = byId('items-body');
const note = byId('items-note');

type Item = DashboardItemsQuery['items']['edges'][number]['node'];

export class ItemsTable {
  private loading = false;
  private again = false;
  private loadedAt = Number.NEGATIVE_INFINITY;
  private reload: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly view: View) {}

  /** Reloads the table; calls while a load runs coalesce into one more load after it. */
  async load(): Promise<void> {
    if (this.loading) {
      this.again = true;
      return;
    }
    this.loading = true;
    try {
      do {
        this.again = false;
        this.loadedAt = performance.now();
        const generation = this.view.generation;
        const { batchId, status } = this.view.filters;
        const data = await this.view.api.query(
          ItemsQuery,
          { first: ITEMS_PAGE, filter: { ...(batchId ? { batchId } : {}), ...(status ? { status } : {}) } },
          (now, sentAt) => this.view.clock.observe(now, sentAt),
        );
        if (this.view.stopped) return;
        if (generation !== this.view.generation) {
          this.again = true;
          continue;
        }
        this.render(
          data.items.edges.map((edge) => edge.node),
          data.items.pageInfo.hasNextPage,
        );
      } while (this.again && !this.view.stopped);
    } finally {
      this.loading = false;
    }
  }

  /** Reloads the table for a queue change: now, or once ITEMS_RELOAD_MS after the last load began. */
  reloadSoon(): void {
    if (this.reload !== null) return;
    const wait = this.loadedAt + ITEMS_RELOAD_MS - performance.now();
    if (wait <= 0) {
      void this.view.guard(this.load());
      return;
    }
    this.reload = setTimeout(() => {
      this.reload = null;
      void this.view.guard(this.load());
    }, wait);
  }

  renderCountdowns(): void {
    const now = this.view.clock.now();
    if (now === null) return;
    for (const cell of body.querySelectorAll<HTMLElement>('td[data-expires]')) {
      const left = Number(cell.dataset.expires) - now;
      // The server announces the lapse (LEASE_EXPIRED) and the row reloads; until then it is due.
      cell.textContent = left > 0 ? formatCountdown(left) : 'due';
    }
  }

  stop(): void {
    if (this.reload !== null) clearTimeout(this.reload);
  }

  private render(items: Item[], more: boolean): void {
    const { batchId, status } = this.view.filters;
    const what = status ? `${titleCase(status).toLowerCase()} items` : 'Items';
    caption.textContent = `${what.charAt(0).toUpperCase()}${what.slice(1)}${batchId ? ` in batch ${batchId}` : ''}, in claim order`;
    const rows = items.map((item) => {
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
    body.replaceChildren(...rows);
    note.textContent = more ? `Showing the first ${ITEMS_PAGE}; narrow the filters to see the others.` : '';
    this.renderCountdowns();
  }
}
