// One proposal as an approver or operator reads it: what it would change (a diff of current and proposed value),
// why, from which data, under which policy (approvers needed and given, validity left), what happens after approval,
// its history, and which actions this viewer's roles allow (the server checks them all again).
import type { ApprovalsProposalQuery } from '../gql/graphql.js';
import { byId, el } from '../shared/dom.js';
import { renderDiff } from './diff.js';

type Node = NonNullable<ApprovalsProposalQuery['node']>;
export type ProposalDetail = Extract<Node, { fingerprint: string }>;

export interface Viewer {
  name: string;
  roles: string[];
}

const OVERSIGHT_ROLES = ['REVIEWER', 'EXECUTOR', 'RECONCILER', 'ADMIN'];

/** The first clause of a blocked reason (up to its first colon), for the queue's narrow column; the proposal shows it whole. */
export function firstClause(text: string): string {
  const colon = text.indexOf(': ');
  return colon > 0 ? text.slice(0, colon) : text;
}

export function when(value: string | null | undefined): string {
  return value ? new Date(value).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }) : '—';
}

/** Approvals that still count (not voided). */
export function given(approvals: readonly { voidedAt?: string | null }[]): number {
  return approvals.filter((approval) => !approval.voidedAt).length;
}

/** "1 of 2 approvals" and the like. */
export function approvalCount(approvals: readonly { voidedAt?: string | null }[], required: number): string {
  return `${given(approvals)} of ${required} approval${required === 1 ? '' : 's'}`;
}

/** Why this viewer may not approve now, or null if the server may accept it. */
export function approvalBlocked(proposal: ProposalDetail, viewer: Viewer): string | null {
  if (proposal.nextRevision)
    return `Revision ${proposal.nextRevision.revision} replaces this one: open it to review what would be done now.`;
  if (proposal.state !== 'PENDING')
    return `It is ${proposal.state}${proposal.stateReason ? ` (${proposal.stateReason})` : ''}: only a PENDING proposal can be approved.`;
  if (!viewer.roles.includes('REVIEWER')) return 'Approving needs the REVIEWER role.';
  if (proposal.proposedBy === viewer.name) return 'You proposed it: someone else must review it.';
  if (proposal.approvals.some((approval) => !approval.voidedAt && approval.approver === viewer.name)) return 'You approved it already.';
  return null;
}

export function showProposal(proposal: ProposalDetail, viewer: Viewer, now: number | null): void {
  byId('proposal-title').textContent = `${proposal.batchId} / ${proposal.recordId}, revision ${proposal.revision}`;
  byId('proposal-state').textContent = `${proposal.state}${proposal.stateReason ? ` — ${proposal.stateReason}` : ''}`;
  byId('proposal-blocked').textContent = proposal.blockedReason ?? '';
  byId('proposal-blocked').hidden = !proposal.blockedReason;
  byId('p-action').textContent = proposal.action;
  byId('p-target').textContent = `${proposal.target.system} / ${proposal.target.recordId}`;
  byId('p-risk').textContent = proposal.riskLevel;
  byId('p-proposer').textContent = proposal.proposedBy;
  byId('p-source').textContent = proposal.dataSource;
  byId('p-deadline').textContent = when(proposal.deadline);
  byId('p-reason').textContent = proposal.reason;
  byId('p-fingerprint').textContent = proposal.fingerprint;
  byId('p-parameters').textContent = JSON.stringify(proposal.parameters, null, 2);
  byId('p-diff').replaceChildren(renderDiff(proposal.currentValue, proposal.proposedValue));

  const validity = proposal.approvalExpiresAt ? Date.parse(proposal.approvalExpiresAt) - (now ?? Date.now()) : null;
  byId('p-policy').textContent =
    `${approvalCount(proposal.approvals, proposal.approvalsRequired)}` +
    (proposal.rule ? ` (rule ${proposal.rule})` : '') +
    (validity === null
      ? ''
      : validity > 0
        ? `; the approval is valid until ${when(proposal.approvalExpiresAt)}`
        : '; the approval has expired');
  const missing = proposal.approvalsRequired - given(proposal.approvals);
  byId('p-after').textContent =
    proposal.state === 'PENDING'
      ? missing > 1
        ? `After your approval it still needs ${missing - 1} more, from other reviewers.`
        : 'After this approval it is APPROVED: an executor carries it out while the approval is valid, checking the fingerprint first (a changed target makes it STALE instead).'
      : '';
  byId('p-approvals').replaceChildren(
    ...proposal.approvals.map((approval) =>
      el(
        'li',
        undefined,
        `${approval.approver}, ${when(approval.approvedAt)}${approval.voidedAt ? ` — void: ${approval.voidReason ?? 'no longer counts'}` : ''}`,
      ),
    ),
  );

  const notice = byId('proposal-notice');
  const blocked = approvalBlocked(proposal, viewer);
  notice.hidden = !proposal.nextRevision && proposal.state !== 'STALE';
  notice.textContent = notice.hidden ? '' : (blocked ?? '');

  // Buttons only for what the viewer's roles allow; the server refuses the rest anyway.
  const roles = viewer.roles;
  const reviewer = roles.includes('REVIEWER') && proposal.proposedBy !== viewer.name;
  byId('review-actions').hidden = !reviewer;
  byId('approve-revision').textContent = String(proposal.revision);
  // Approving needs nothing in the way; turning a proposal down needs only that it is still PENDING.
  byId<HTMLButtonElement>('approve').disabled = blocked !== null;
  for (const id of ['request-changes', 'reject']) byId<HTMLButtonElement>(id).disabled = proposal.state !== 'PENDING';
  const open = proposal.state === 'PENDING' || proposal.state === 'APPROVED';
  const canCancel = open && (proposal.proposedBy === viewer.name || roles.includes('ADMIN'));
  const canHold = open && roles.some((role) => OVERSIGHT_ROLES.includes(role));
  const canResume = proposal.state === 'ON_HOLD' && roles.includes('ADMIN');
  const canEscalate =
    !['EXECUTED', 'REJECTED', 'CANCELLED', 'EXPIRED'].includes(proposal.state) && roles.some((role) => OVERSIGHT_ROLES.includes(role));
  byId('cancel').hidden = !canCancel;
  byId('hold').hidden = !canHold;
  byId('resume').hidden = !canResume;
  byId('escalate-group').hidden = !canEscalate;
  byId('oversight-actions').hidden = !(canCancel || canHold || canResume || canEscalate);
  byId('reconcile-actions').hidden = !(proposal.state === 'OUTCOME_UNKNOWN' && roles.includes('RECONCILER'));
  byId('actions').hidden = byId('review-actions').hidden && byId('oversight-actions').hidden && byId('reconcile-actions').hidden;

  byId('p-history').replaceChildren(
    ...[...proposal.history.edges].reverse().map(({ node }) => {
      const entry = el('li', 'history-entry');
      entry.append(el('span', 'history-type', node.type), ` by ${node.actor}, ${when(node.occurredAt)}`);
      const reason = (node.details as { reason?: unknown }).reason;
      if (typeof reason === 'string') entry.append(el('span', 'history-reason', ` — ${reason}`));
      return entry;
    }),
  );
  byId('proposal').hidden = false;
}
