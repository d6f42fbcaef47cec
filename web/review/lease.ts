// The lease a reviewer holds, as the page knows it: its item, its token, when it runs out by the server's clock,
// and, once it is no longer the reviewer's to decide on, why not. Rendering only; review-session.ts drives it.
import type { ReviewClaimMutation } from '../gql/graphql.js';
import { byId } from '../shared/dom.js';

type Claim = Extract<ReviewClaimMutation['claimItem'], { __typename: 'ClaimItemPayload' }>;
export type ClaimedItem = NonNullable<Claim['item']>;

export interface HeldLease {
  token: string;
  item: ClaimedItem;
  /** Server time (epoch ms) the lease runs out at. */
  expiresAt: number;
  /** The server said it runs out soon (EXPIRING). */
  expiring: boolean;
  /** This page asked the server to release it, and has not had the answer yet. */
  releasing?: boolean;
  /** Why the lease is no longer the reviewer's (lapsed, lost, released, decided); null while it holds. */
  ended: string | null;
}

const panel = byId('item-panel');
const leaseBox = byId('lease');
const countdown = byId('lease-countdown');
const stateLine = byId('lease-state');
const LEASE_BUTTONS = ['accept', 'reject', 'correct', 'renew', 'release', 'correct-category'] as const;

/** A server time as the viewer reads it: their local time of day, with seconds. */
export function timeOfDay(ms: number): string {
  return new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** m:ss left, never negative. */
function left(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

export function showItem(lease: HeldLease, categories: readonly string[]): void {
  const { item } = lease;
  byId('item-batch').textContent = item.batchId;
  byId('item-record').textContent = item.recordId;
  byId('item-category').textContent = item.proposedCategory;
  byId('item-reason').textContent = item.reason;
  byId('item-added-by').textContent = item.addedBy;
  byId('item-added-at').textContent = new Date(item.createdAt).toLocaleString();
  const picker = byId<HTMLSelectElement>('correct-category');
  picker.replaceChildren(
    ...categories.map((name) => {
      const option = document.createElement('option');
      option.value = name;
      option.textContent = name === item.proposedCategory ? `${name} (proposed)` : name;
      return option;
    }),
  );
  picker.value = categories.find((name) => name !== item.proposedCategory) ?? '';
  panel.hidden = false;
}

export function hideItem(): void {
  panel.hidden = true;
}

/** The countdown and the lease's state line, at server time `now` (null: not known yet). */
export function renderLease(lease: HeldLease, now: number | null): void {
  const remaining = now === null ? null : lease.expiresAt - now;
  if (lease.ended !== null) {
    leaseBox.dataset.state = 'ended';
    countdown.textContent = 'ended';
    setText(stateLine, lease.ended);
  } else if (lease.expiring || (remaining !== null && remaining <= 30_000)) {
    leaseBox.dataset.state = 'expiring';
    countdown.textContent = remaining === null ? '' : `${left(remaining)} left, until ${timeOfDay(lease.expiresAt)}`;
    setText(stateLine, `Your lease runs out at ${timeOfDay(lease.expiresAt)}: renew it (E) or decide now.`);
  } else {
    leaseBox.dataset.state = 'held';
    countdown.textContent = remaining === null ? '' : `${left(remaining)} left, until ${timeOfDay(lease.expiresAt)}`;
    setText(stateLine, 'The item is yours to decide.');
  }
  for (const id of LEASE_BUTTONS) byId<HTMLButtonElement | HTMLSelectElement>(id).disabled = lease.ended !== null;
}

/** Only on a change, so a polite live region is not read out again every tick. */
function setText(node: HTMLElement, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}
