// The items and feed filters (batch, status): kept in the address and shown in the filter form.

import type { ItemStatus } from '../gql/graphql.js';
import { byId } from '../shared/dom.js';

const STATUSES: readonly ItemStatus[] = ['PENDING', 'ACCEPTED', 'CORRECTED', 'REJECTED'];

const form = byId<HTMLFormElement>('filters');
const batchInput = byId<HTMLInputElement>('filter-batch');
const statusSelect = byId<HTMLSelectElement>('filter-status');

export interface Filters {
  batchId: string | null;
  /** null: every status. */
  status: ItemStatus | null;
}

/** Filters live in the address (?batch=…&status=…) so a view can be bookmarked or shared, key excluded. */
export function filtersFromAddress(): Filters {
  const params = new URLSearchParams(window.location.search);
  const status = params.get('status');
  return {
    batchId: params.get('batch') || null,
    status: status === 'ALL' ? null : (STATUSES.find((value) => value === status) ?? 'PENDING'),
  };
}

export function writeFiltersToAddress(filters: Filters): void {
  const url = new URL(window.location.href);
  url.search = '';
  if (filters.batchId) url.searchParams.set('batch', filters.batchId);
  url.searchParams.set('status', filters.status ?? 'ALL');
  window.history.replaceState(null, '', url);
}

export function showFilters(filters: Filters): void {
  batchInput.value = filters.batchId ?? '';
  statusSelect.value = filters.status ?? 'ALL';
}

/** Calls `apply` with the form's filters each time it is submitted. */
export function onFiltersSubmitted(apply: (filters: Filters) => void): void {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const status = statusSelect.value;
    apply({
      batchId: batchInput.value.trim() || null,
      status: STATUSES.find((value) => value === status) ?? null,
    });
  });
}
