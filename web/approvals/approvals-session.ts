// One signed-in approver or operator: the proposal queue with seed B's filters, one open proposal, and the actions
// the viewer's roles allow. Everything follows proposalEvents live: the queue is read again (at most once a second),
// and the open proposal whenever an event concerns it, so a proposal that turns STALE while open says so at once.
import type { ApprovalsQueueQuery, ProposalFilter, ProposalReviewDecision, ProposalState, RiskLevel } from '../gql/graphql.js';
import { Api, type ConnectionState, RefusedError } from '../shared/api.js';
import { showConnection } from '../shared/connection-status.js';
import { byId, el } from '../shared/dom.js';
import { ENDPOINT, isRefusal, PERSISTED_OPERATIONS, showProblem } from '../shared/page.js';
import { ServerClock } from '../shared/server-clock.js';
import type { SignedInView, Viewer } from '../shared/sign-in.js';
import {
  ApprovalsViewerQuery,
  CancelProposalMutation,
  ClaimProposalMutation,
  EscalateProposalMutation,
  HoldProposalMutation,
  ProposalDetailQuery,
  ProposalEventsSubscription,
  ProposalQueueQuery,
  ReconcileProposalMutation,
  ReleaseProposalLeaseMutation,
  ResumeProposalMutation,
  ReviewProposalMutation,
} from './documents.js';
import { approvalBlocked, approvalCount, firstClause, type ProposalDetail, showProposal, when } from './proposal-view.js';

/** The queue is read again at most this often while events arrive. */
const QUEUE_RELOAD_MS = 1_000;
const PAGE = 100;

type Row = ApprovalsQueueQuery['proposals']['edges'][number]['node'];
const isProposal = (node: unknown): node is ProposalDetail => typeof (node as { fingerprint?: unknown } | null)?.fingerprint === 'string';

export class ApprovalsSession implements SignedInView {
  private readonly clock = new ServerClock();
  private readonly api: Api;
  private readonly listening = new AbortController();
  private viewer: Viewer = { name: '', roles: [] };
  private open: ProposalDetail | null = null;
  private openId: string | null = null;
  private unsubscribe: (() => void) | null = null;
  private reloadTimer: ReturnType<typeof setTimeout> | null = null;
  private lastQueueLoad = 0;
  /** How many times the queue and the open proposal were asked for: only the latest ask's answer is shown. */
  private queueAsks = 0;
  private proposalAsks = 0;
  private busy = false;
  private stopped = false;

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

  async verify(): Promise<Viewer> {
    const data = await this.api.query(ApprovalsViewerQuery, {}, (now, sentAt) => this.clock.observe(now, sentAt));
    return data.viewer;
  }

  start(viewer: Viewer): void {
    this.viewer = viewer;
    const signal = this.listening.signal;
    byId('queue-filters').addEventListener(
      'submit',
      (event) => {
        event.preventDefault();
        void this.guard(this.loadQueue());
      },
      { signal },
    );
    const on = (id: string, work: () => Promise<void>) => byId(id).addEventListener('click', () => void this.act(work), { signal });
    on('approve', () => this.review('APPROVE'));
    on('request-changes', () => this.review('REQUEST_CHANGES'));
    on('reject', () => this.review('REJECT'));
    on('cancel', () => this.oversee(async (id, reason) => (await this.api.query(CancelProposalMutation, { id, reason })).cancelProposal));
    on('hold', () => this.oversee(async (id, reason) => (await this.api.query(HoldProposalMutation, { id, reason })).holdProposal));
    on('resume', () => this.oversee(async (id, reason) => (await this.api.query(ResumeProposalMutation, { id, reason })).resumeProposal));
    on('escalate', () => this.escalate());
    on('reconcile', () => this.reconcile());
    byId('proposal-notice').addEventListener(
      'click',
      (event) => {
        const target = (event.target as HTMLElement).closest<HTMLButtonElement>('button[data-open]');
        if (target?.dataset.open) void this.guard(this.openProposal(target.dataset.open));
      },
      { signal },
    );
    this.unsubscribe = this.api.subscribe(ProposalEventsSubscription, () => ({}), {
      next: ({ proposalEvents: event }) => {
        this.clock.observe(event.serverTime);
        this.queueSoon();
        if (event.proposal && event.proposal.id === this.openId) void this.guard(this.openProposal(event.proposal.id, false));
      },
      error: (message) => this.problem(message),
    });
    // A link may name the state or risk to list (the dashboard's "to reconcile" links to ?state=OUTCOME_UNKNOWN).
    const asked = new URLSearchParams(window.location.search);
    for (const [parameter, id] of [
      ['state', 'filter-state'],
      ['risk', 'filter-risk'],
    ] as const) {
      const select = byId<HTMLSelectElement>(id);
      const value = asked.get(parameter);
      if (value !== null && [...select.options].some((option) => option.value === value)) select.value = value;
    }
    void this.guard(this.loadQueue());
  }

  stop(): void {
    this.stopped = true;
    this.listening.abort();
    this.unsubscribe?.();
    if (this.reloadTimer !== null) clearTimeout(this.reloadTimer);
    this.api.dispose();
  }

  private filter(): ProposalFilter {
    const value = (id: string) => byId<HTMLInputElement | HTMLSelectElement>(id).value.trim();
    const now = this.clock.now() ?? Date.now();
    const filter: ProposalFilter = {};
    if (value('filter-state')) filter.states = [value('filter-state') as ProposalState];
    if (value('filter-risk')) filter.riskLevels = [value('filter-risk') as RiskLevel];
    if (value('filter-age')) filter.createdBefore = new Date(now - Number(value('filter-age')) * 1000).toISOString();
    if (value('filter-deadline')) filter.deadlineBefore = new Date(now + Number(value('filter-deadline')) * 1000).toISOString();
    if (value('filter-assignee')) filter.assignee = value('filter-assignee');
    if (value('filter-proposer')) filter.proposedBy = value('filter-proposer');
    return filter;
  }

  private async loadQueue(): Promise<void> {
    this.lastQueueLoad = performance.now();
    const ask = ++this.queueAsks;
    const sentAt = performance.now();
    const data = await this.api.query(ProposalQueueQuery, { filter: this.filter(), first: PAGE }, (now) => this.clock.observe(now, sentAt));
    // Answers can come back in any order (HTTP requests in parallel): an earlier ask's, e.g. before the filters
    // changed or before a later event, must not replace what a later ask has shown or will show.
    if (this.stopped || ask !== this.queueAsks) return;
    const rows = data.proposals.edges.map((edge) => edge.node);
    byId('queue-body').replaceChildren(...rows.map((row) => this.row(row)));
    byId('queue-note').textContent =
      rows.length === 0
        ? 'No proposal matches the filters.'
        : `${rows.length}${data.proposals.pageInfo.hasNextPage ? '+' : ''} proposals, oldest first.`;
  }

  private row(proposal: Row): HTMLTableRowElement {
    const tr = el('tr');
    const head = el('th');
    head.scope = 'row';
    const open = el('button', 'link-button', `${proposal.batchId} / ${proposal.recordId} r${proposal.revision}`);
    open.type = 'button';
    open.addEventListener('click', () => void this.guard(this.openProposal(proposal.id)));
    head.append(open);
    tr.append(
      head,
      el('td', undefined, proposal.action),
      el('td', `risk risk-${proposal.riskLevel.toLowerCase()}`, proposal.riskLevel),
      el('td', undefined, proposal.state),
      el('td', undefined, approvalCount(proposal.approvals, proposal.approvalsRequired)),
      el('td', undefined, when(proposal.deadline)),
      el('td', undefined, proposal.proposedBy),
      el('td', undefined, proposal.blockedReason ? firstClause(proposal.blockedReason) : '—'),
    );
    return tr;
  }

  /** Reads the queue again after an event, at most once per QUEUE_RELOAD_MS. */
  private queueSoon(): void {
    if (this.reloadTimer !== null) return;
    const wait = Math.max(0, this.lastQueueLoad + QUEUE_RELOAD_MS - performance.now());
    this.reloadTimer = setTimeout(() => {
      this.reloadTimer = null;
      void this.guard(this.loadQueue());
    }, wait);
  }

  private async openProposal(id: string, focus = true): Promise<void> {
    this.openId = id;
    const ask = ++this.proposalAsks;
    const sentAt = performance.now();
    const data = await this.api.query(ProposalDetailQuery, { id }, (now) => this.clock.observe(now, sentAt));
    // The latest ask only: another proposal opened since, or a reload asked after this one, has the newer answer.
    if (this.stopped || ask !== this.proposalAsks) return;
    const node = data.node;
    if (!isProposal(node)) throw new Error('That proposal no longer exists.');
    this.open = node;
    showProposal(node, this.viewer, this.clock.now());
    if (node.nextRevision) {
      const button = el('button', 'link-button', `Open revision ${node.nextRevision.revision} (${node.nextRevision.state})`);
      button.type = 'button';
      button.dataset.open = node.nextRevision.id;
      byId('proposal-notice').append(' ', button);
    }
    if (focus) byId('proposal-title').focus();
  }

  private reason(): string {
    return byId<HTMLTextAreaElement>('action-reason').value.trim();
  }

  /** Claims a review lease on the open proposal and decides with it, naming the revision and fingerprint shown. */
  private async review(decision: ProposalReviewDecision): Promise<void> {
    const shown = this.open;
    if (!shown) return;
    const blocked = decision === 'APPROVE' ? approvalBlocked(shown, this.viewer) : null;
    if (blocked) return this.refuse(`Not approved: ${blocked}`, shown.id);
    if (decision !== 'APPROVE' && !this.reason()) return this.problem('Give a reason first.');
    const { claimProposal } = await this.api.query(ClaimProposalMutation, { id: shown.id });
    if (isRefusal(claimProposal)) return this.refuse(`Not sent: ${claimProposal.message}`, shown.id);
    if (!claimProposal.claimed || !claimProposal.lease)
      return this.refuse('Not sent: someone else is reviewing it right now, or it is no longer pending.', shown.id);
    const token = claimProposal.lease.token;
    const { reviewProposal } = await this.api.query(ReviewProposalMutation, {
      token,
      decision,
      revision: shown.revision,
      fingerprint: shown.fingerprint,
      reason: decision === 'APPROVE' ? null : this.reason(),
    });
    if (isRefusal(reviewProposal)) {
      await this.api.query(ReleaseProposalLeaseMutation, { token }).catch(() => undefined);
      return this.refuse(`Not sent: ${reviewProposal.message}`, shown.id);
    }
    byId<HTMLTextAreaElement>('action-reason').value = '';
    await this.openProposal(shown.id, false);
  }

  /** Cancel, hold or resume the open proposal, with the reason given. */
  private async oversee(send: (id: string, reason: string) => Promise<{ __typename: string }>): Promise<void> {
    const shown = this.open;
    if (!shown) return;
    if (!this.reason()) return this.problem('Give a reason first.');
    const answer = await send(shown.id, this.reason());
    if (isRefusal(answer)) return this.refuse(answer.message, shown.id);
    byId<HTMLTextAreaElement>('action-reason').value = '';
    await this.openProposal(shown.id, false);
  }

  private async escalate(): Promise<void> {
    const shown = this.open;
    if (!shown) return;
    if (!this.reason()) return this.problem('Give a reason first.');
    const { escalateProposal } = await this.api.query(EscalateProposalMutation, {
      id: shown.id,
      reason: this.reason(),
      to: byId<HTMLSelectElement>('escalate-to').value,
    });
    if (isRefusal(escalateProposal)) return this.refuse(escalateProposal.message, shown.id);
    byId<HTMLTextAreaElement>('action-reason').value = '';
    await this.openProposal(shown.id, false);
  }

  private async reconcile(): Promise<void> {
    const shown = this.open;
    if (!shown) return;
    const choice = document.querySelector<HTMLInputElement>('input[name="executed"]:checked')?.value;
    if (!choice) return this.problem('Say whether it was carried out.');
    if (!this.reason()) return this.problem('Give the evidence first.');
    const { reconcileProposal } = await this.api.query(ReconcileProposalMutation, {
      id: shown.id,
      executed: choice === 'yes',
      evidence: this.reason(),
      fingerprint: choice === 'no' ? shown.fingerprint : null,
    });
    if (isRefusal(reconcileProposal)) return this.refuse(reconcileProposal.message, shown.id);
    byId<HTMLTextAreaElement>('action-reason').value = '';
    await this.openProposal(shown.id, false);
  }

  /** Says why nothing was done, and shows the proposal as it stands now. */
  private async refuse(message: string, id: string): Promise<void> {
    await this.openProposal(id, false);
    this.problem(message);
  }

  /** One action at a time. */
  private async act(work: () => Promise<void>): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.problem(null);
    try {
      await this.guard(work());
    } finally {
      this.busy = false;
    }
  }

  private async guard(work: Promise<void>): Promise<void> {
    try {
      await work;
    } catch (error) {
      if (this.stopped) return;
      if (error instanceof RefusedError) this.onRefused(error.message);
      else this.problem(error instanceof Error ? error.message : String(error));
    }
  }

  private problem(message: string | null): void {
    showProblem(message);
  }

  private onConnection(state: ConnectionState, reconnected: boolean): void {
    if (this.stopped) return;
    showConnection(state);
    if (state.kind === 'refused') this.onRefused(`The server closed the live connection: ${state.reason}.`);
    else if (state.kind === 'live' && reconnected) {
      void this.guard(this.loadQueue());
      if (this.openId) void this.guard(this.openProposal(this.openId, false));
    }
  }
}
