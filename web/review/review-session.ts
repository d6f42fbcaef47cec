// One signed-in reviewer: claims the next item over the WebSocket (released by the server if this page's connection
// closes), follows that lease's own notices (renewed, expiring, expired, lost, released, decided), and renews,
// releases and decides over HTTP. A decision is never sent on a lease the page knows is dead: it says why instead.
import type { Decision } from '../gql/graphql.js';
import { Api, type ConnectionState, RefusedError } from '../shared/api.js';
import { showConnection } from '../shared/connection-status.js';
import { byId, el } from '../shared/dom.js';
import { ENDPOINT, isRefusal, PERSISTED_OPERATIONS, type Refusal, showProblem } from '../shared/page.js';
import { ServerClock } from '../shared/server-clock.js';
import type { SignedInView, Viewer } from '../shared/sign-in.js';
import {
  ReviewClaimMutation,
  ReviewDecideMutation,
  ReviewLeaseNoticesSubscription,
  ReviewReleaseMutation,
  ReviewRenewMutation,
  ReviewViewerQuery,
} from './documents.js';
import { type HeldLease, hideItem, renderLease, showItem, timeOfDay } from './lease.js';

/** Refusals that mean the lease is no longer this reviewer's. */
const DEAD_LEASE_CODES = new Set(['CLAIM_EXPIRED', 'CLAIM_NOT_FOUND', 'NOT_LEASE_HOLDER']);

const DECISION_WORDS: Record<Decision, string> = { ACCEPTED: 'Accepted', CORRECTED: 'Corrected', REJECTED: 'Rejected' };

const RELEASED_HERE = 'You released the item: it is back in the queue. Press N for the next item.';

const claimStatus = byId('claim-status');
const claimButton = byId<HTMLButtonElement>('claim-next');

export class ReviewSession implements SignedInView {
  private readonly clock = new ServerClock();
  private readonly api: Api;
  private readonly listening = new AbortController();
  private categories: string[] = [];
  private lease: HeldLease | null = null;
  private unsubscribe: (() => void) | null = null;
  private ticker: ReturnType<typeof setInterval> | null = null;
  /** A request about the lease is on its way: keys and buttons wait for its answer. */
  private busy = false;
  /** What the reviewer asked for while a request was on its way (the latest ask): done once it is answered. */
  private next: (() => void) | null = null;
  private stopped = false;

  constructor(
    key: string,
    private readonly onRefused: (message: string) => void,
  ) {
    this.api = new Api({ endpoint: ENDPOINT, key, onState: (state) => this.onConnection(state), persisted: PERSISTED_OPERATIONS });
  }

  async verify(): Promise<Viewer> {
    const data = await this.api.query(ReviewViewerQuery, {}, (now, sentAt) => this.clock.observe(now, sentAt));
    this.categories = data.categories.map((category) => category.name);
    return data.viewer;
  }

  start(viewer: Viewer): void {
    const note = byId('role-note');
    note.hidden = viewer.roles.includes('REVIEWER');
    note.textContent = note.hidden ? '' : 'This key has no REVIEWER role: the server will refuse its claims and decisions.';
    const signal = this.listening.signal;
    byId('claim-form').addEventListener(
      'submit',
      (event) => {
        event.preventDefault();
        this.whenFree(() => this.claim());
      },
      { signal },
    );
    byId('decide-form').addEventListener(
      'submit',
      (event) => {
        event.preventDefault();
        this.whenFree(() => this.decide('CORRECTED'));
      },
      { signal },
    );
    byId('accept').addEventListener('click', () => this.whenFree(() => this.decide('ACCEPTED')), { signal });
    byId('reject').addEventListener('click', () => this.whenFree(() => this.decide('REJECTED')), { signal });
    byId('renew').addEventListener('click', () => this.whenFree(() => this.renew()), { signal });
    byId('release').addEventListener('click', () => this.whenFree(() => this.release()), { signal });
    byId('correct-category').addEventListener(
      'keydown',
      (event) => {
        if (event.key !== 'Enter') return;
        event.preventDefault();
        this.whenFree(() => this.decide('CORRECTED'));
      },
      { signal },
    );
    document.addEventListener('keydown', (event) => this.onKey(event), { signal });
    this.ticker = setInterval(() => this.render(), 250);
    // The connection a claim is tied to (releaseOnDisconnect), open before the first claim, its state in the header.
    this.api.connect();
    hideItem();
    claimStatus.textContent = 'Press N or “Claim next” to take the next item.';
  }

  stop(): void {
    this.stopped = true;
    this.listening.abort();
    this.unsubscribe?.();
    if (this.ticker !== null) clearInterval(this.ticker);
    this.lease = null;
    hideItem();
    this.api.dispose();
  }

  /** The whole review loop from the keyboard; not while typing in a field or with a modifier held. */
  private onKey(event: KeyboardEvent): void {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return;
    const target = event.target as HTMLElement | null;
    if (target && target.closest('input, textarea, select, [contenteditable="true"]') !== null) return;
    const actions: Record<string, () => void> = {
      n: () => this.whenFree(() => this.claim()),
      a: () => this.whenFree(() => this.decide('ACCEPTED')),
      r: () => this.whenFree(() => this.decide('REJECTED')),
      c: () => byId<HTMLSelectElement>('correct-category').focus(),
      e: () => this.whenFree(() => this.renew()),
      l: () => this.whenFree(() => this.release()),
    };
    const action = actions[event.key.toLowerCase()];
    if (!action) return;
    event.preventDefault();
    action();
  }

  /**
   * Does `action` now, or once the request on its way is answered: a key pressed as soon as the live connection
   * showed a change (a renewal heard before its own answer) is not lost. Only the latest such ask is kept.
   */
  private whenFree(action: () => Promise<void>): void {
    if (this.busy) this.next = () => void action();
    else void action();
  }

  private async claim(): Promise<void> {
    if (this.busy) return;
    if (this.lease && this.lease.ended === null) {
      this.problem('Decide or release the item you hold before claiming another.');
      return;
    }
    const batchId = byId<HTMLInputElement>('claim-batch').value.trim() || null;
    const leaseSeconds = Number(byId<HTMLSelectElement>('claim-lease').value);
    await this.run(async () => {
      claimButton.disabled = true;
      claimStatus.textContent = 'Claiming…';
      try {
        const sentAt = performance.now();
        const { claimItem } = await this.api.mutateOverSocket(ReviewClaimMutation, { batchId, leaseSeconds });
        if (isRefusal(claimItem)) {
          claimStatus.textContent = `Not claimed: ${claimItem.message}`;
          return;
        }
        this.clock.observe(claimItem.serverTime, sentAt);
        if (!claimItem.claimed || !claimItem.item || !claimItem.lease) {
          claimStatus.textContent = batchId ? `Nothing to claim in batch ${batchId} right now.` : 'Nothing to claim right now.';
          return;
        }
        this.hold({
          token: claimItem.lease.token,
          item: claimItem.item,
          expiresAt: Date.parse(claimItem.lease.leaseExpiresAt),
          expiring: false,
          ended: null,
        });
        claimStatus.textContent = `Claimed ${claimItem.item.batchId} / ${claimItem.item.recordId}.`;
        byId('item-title').focus();
      } finally {
        claimButton.disabled = false;
      }
    });
  }

  /** Shows the lease and follows its notices until it ends. */
  private hold(lease: HeldLease): void {
    this.unsubscribe?.();
    this.lease = lease;
    showItem(lease, this.categories);
    const token = lease.token;
    this.unsubscribe = this.api.subscribe(ReviewLeaseNoticesSubscription, () => ({ token }), {
      next: ({ leaseEvents: notice }) => {
        if (this.lease?.token !== token) return;
        this.clock.observe(notice.serverTime);
        const at = notice.leaseExpiresAt ? Date.parse(notice.leaseExpiresAt) : this.lease.expiresAt;
        switch (notice.kind) {
          case 'RENEWED':
            this.lease.expiresAt = at;
            this.lease.expiring = false;
            break;
          case 'EXPIRING':
            this.lease.expiring = true;
            break;
          case 'EXPIRED':
            this.end(
              `Your lease lapsed at ${timeOfDay(at)} (server clock). Someone else may claim the item now; a decision would be refused. Press N for the next item.`,
            );
            break;
          case 'LOST':
            this.end(`Your lease lapsed and ${notice.event?.actor ?? 'another reviewer'} claimed the item. Press N for the next item.`);
            break;
          case 'RELEASED':
            // Heard before the answer to this page's own release, it reads the same as that answer.
            this.end(this.lease.releasing ? RELEASED_HERE : 'The lease was released: the item is back in the queue.');
            break;
          case 'DECIDED':
            this.end('The item was decided.');
            break;
        }
        this.render();
      },
      // After a dropped connection the server has released the lease (releaseOnDisconnect): the stream is refused.
      error: (message) => {
        if (this.lease?.token === token) this.end(`The server no longer holds this lease for you: ${message}`);
      },
    });
    this.render();
  }

  private end(reason: string): void {
    if (!this.lease || this.lease.ended !== null) return;
    this.lease.ended = reason;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.render();
  }

  /** The lease if a request may still be made on it; otherwise says why not and returns null. */
  private liveLease(action: string): HeldLease | null {
    const lease = this.lease;
    if (!lease) {
      this.problem(`Nothing to ${action}: claim an item first (N).`);
      return null;
    }
    const now = this.clock.now();
    if (lease.ended === null && now !== null && now >= lease.expiresAt)
      this.end(`Your lease ran out at ${timeOfDay(lease.expiresAt)} (server clock). Press N for the next item.`);
    if (lease.ended !== null) {
      this.problem(`Not sent: ${lease.ended}`);
      return null;
    }
    return lease;
  }

  private async decide(decision: Decision): Promise<void> {
    if (this.busy) return;
    const lease = this.liveLease('decide');
    if (!lease) return;
    const category = decision === 'CORRECTED' ? byId<HTMLSelectElement>('correct-category').value : null;
    await this.run(async () => {
      const sentAt = performance.now();
      const { decideItem } = await this.api.query(ReviewDecideMutation, { token: lease.token, decision, category });
      if (isRefusal(decideItem)) return this.refused(lease, decideItem);
      this.clock.observe(decideItem.serverTime, sentAt);
      const final = decideItem.item.finalCategory ?? lease.item.proposedCategory;
      this.unsubscribe?.();
      this.unsubscribe = null;
      this.lease = null;
      hideItem();
      const entry = el('li', 'done-entry', `${DECISION_WORDS[decision]}: ${lease.item.batchId} / ${lease.item.recordId}`);
      if (decision !== 'REJECTED') entry.append(` → ${final}`);
      byId('done-list').prepend(entry);
      claimStatus.textContent = `${DECISION_WORDS[decision]} ${lease.item.batchId} / ${lease.item.recordId}. Press N for the next item.`;
      claimButton.focus();
    });
  }

  private async renew(): Promise<void> {
    if (this.busy) return;
    const lease = this.liveLease('renew');
    if (!lease) return;
    const leaseSeconds = Number(byId<HTMLSelectElement>('claim-lease').value);
    await this.run(async () => {
      const sentAt = performance.now();
      const { renewLease } = await this.api.query(ReviewRenewMutation, { token: lease.token, leaseSeconds });
      if (isRefusal(renewLease)) return this.refused(lease, renewLease);
      this.clock.observe(renewLease.serverTime, sentAt);
      if (renewLease.item.leaseExpiresAt) lease.expiresAt = Date.parse(renewLease.item.leaseExpiresAt);
      lease.expiring = false;
      this.render();
    });
  }

  private async release(): Promise<void> {
    if (this.busy) return;
    const lease = this.liveLease('release');
    if (!lease) return;
    lease.releasing = true;
    await this.run(async () => {
      try {
        const { releaseLease } = await this.api.query(ReviewReleaseMutation, { token: lease.token });
        if (isRefusal(releaseLease)) return this.refused(lease, releaseLease);
        this.end(RELEASED_HERE);
        claimButton.focus();
      } finally {
        lease.releasing = false;
      }
    });
  }

  /** A refused request on the lease: a dead lease ends here; anything else (a retired category…) is shown. */
  private refused(lease: HeldLease, refusal: Refusal): void {
    if (DEAD_LEASE_CODES.has(refusal.code) && this.lease === lease) this.end(`The server refused: ${refusal.message}`);
    else this.problem(refusal.message);
  }

  /** One request at a time; its failure is shown (a refused key signs out). */
  private async run(work: () => Promise<void>): Promise<void> {
    this.busy = true;
    this.problem(null);
    byId('review').setAttribute('aria-busy', 'true');
    try {
      await work();
    } catch (error) {
      if (this.stopped) return;
      if (error instanceof RefusedError) this.onRefused(error.message);
      else this.problem(error instanceof Error ? error.message : String(error));
    } finally {
      this.busy = false;
      byId('review').removeAttribute('aria-busy');
      const next = this.next;
      this.next = null;
      if (!this.stopped) next?.();
    }
  }

  private render(): void {
    if (this.lease) renderLease(this.lease, this.clock.now());
  }

  private problem(message: string | null): void {
    showProblem(message);
  }

  private onConnection(state: ConnectionState): void {
    if (this.stopped) return;
    showConnection(state);
    if (state.kind === 'refused') this.onRefused(`The server closed the live connection: ${state.reason}.`);
  }
}
