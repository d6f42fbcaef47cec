// Action proposals, review decisions: a reviewer's decision under its review lease (approvals per policy up
// to APPROVED, rejection, changes requested) and cancellation by the proposer or an admin. The leases
// themselves are in review-leases.ts.
import { randomUUID } from 'node:crypto';
import type { Proposal, TxSql, WriteTx } from '../../db/client.js';
import { targetStateFromJson } from '../../db/write-calls.js';
import { DomainError } from '../../domain/errors.js';
import { hashLeaseToken } from '../../domain/lease.js';
import { approvalExpiry, fixedOutcomes, RISK_LEVELS, transition } from '../../domain/proposal.js';
import { LIMITS, validateText, validateToken } from '../../domain/validation.js';
import type { Actor } from '../context.js';
import {
  alreadyApproved,
  changedProposal,
  checkHeld,
  lapseApprovals,
  move,
  NO_LEASE,
  type ProposalDeps,
  policyOf,
  proposalEvent,
  proposalNotFound,
  voidApprovals,
} from './shared.js';
import { checkRemembered, requireCurrentFingerprint } from './target-state.js';

export type ReviewDecision = 'APPROVE' | 'REJECT' | 'REQUEST_CHANGES';

export interface ReviewInput {
  token: string;
  decision: ReviewDecision;
  /** The revision the reviewer reviewed (APPROVE). */
  revision?: number | null;
  /** Optionally, the fingerprint the reviewer saw; compared too. */
  fingerprint?: string | null;
  /** Required for REJECT and REQUEST_CHANGES. */
  reason?: string | null;
  /** Optional, with any decision (an approval's conditions or remarks): kept in the decision's event. */
  comment?: string | null;
}

/** Records a reviewer's decision under its review lease; the lease ends with it. */
export async function reviewProposal(deps: ProposalDeps, actor: Actor, input: ReviewInput): Promise<Proposal> {
  const reason = input.decision === 'APPROVE' ? null : validateText(input.reason ?? '', 'reason', LIMITS.reason);
  const comment = input.comment == null ? null : validateText(input.comment, 'comment', LIMITS.reason);
  if (input.decision === 'APPROVE' && input.revision == null) {
    throw new DomainError('REVISION_MISMATCH', 'Name the revision you reviewed.', 'revision');
  }
  if (input.decision !== 'APPROVE') {
    return turnDown(deps, actor, input.token, input.decision === 'REJECT' ? 'REJECT' : 'REQUEST_CHANGES', reason as string, comment);
  }
  return approve(deps, actor, { ...input, revision: input.revision as number }, comment);
}

/** The revision (and, if given, the fingerprint) the reviewer reviewed must be the proposal's. */
function checkReviewed(held: Proposal, input: { revision: number; fingerprint?: string | null }): Proposal {
  if (input.revision !== held.revision) {
    throw new DomainError(
      'REVISION_MISMATCH',
      `You reviewed revision ${input.revision}, but the proposal is revision ${held.revision}; look at it again.`,
      'revision',
    );
  }
  if (input.fingerprint != null && input.fingerprint !== held.fingerprint) {
    throw new DomainError(
      'REVISION_MISMATCH',
      `You reviewed fingerprint ${[...input.fingerprint].slice(0, 40).join('')}, but revision ${held.revision} has another fingerprint; look at it again.`,
      'fingerprint',
    );
  }
  return held;
}

/** An approval under the caller's review lease: counted, and the proposal APPROVED once there are enough. */
function approve(
  deps: ProposalDeps,
  actor: Actor,
  input: { token: string; revision: number; fingerprint?: string | null },
  comment: string | null,
): Promise<Proposal> {
  const tokenHash = hashLeaseToken(validateToken(input.token));
  const operationId = randomUUID();
  return deps.db.perform({
    work: (tx, sql) => approveWork(deps, actor, { ...input, tokenHash }, comment, operationId, tx, sql),
    call: {
      fields: {
        op: 'proposalApprove',
        revision: input.revision,
        fingerprint: input.fingerprint ?? null,
        comment,
        validity: Object.fromEntries(RISK_LEVELS.map((risk) => [risk, policyOf(deps, risk).validitySeconds])),
        reached: transition('PENDING', 'APPROVE', { approvalsAfter: 1, approvalsRequired: 1 }),
        short: transition('PENDING', 'APPROVE', { approvalsAfter: 0, approvalsRequired: 1 }),
        operationId,
        tokenHash,
        actor: actor.name,
        authenticated: actor.authenticated,
      },
      clock: deps.clock,
      answer: (answer) =>
        changedProposal(answer, (found, now) => {
          const held = checkReviewed(checkReviewer(checkHeld(found, actor, now, 'REVIEW'), actor, now), input);
          if (answer.remembered)
            checkRemembered(targetStateFromJson(answer.remembered), held, held.fingerprint, `Revision ${held.revision}`);
          if (answer.approved) throw alreadyApproved('token');
          transition(held.state, 'APPROVE', { approvalsAfter: 0, approvalsRequired: 1 });
        }),
    },
  });
}

/** approve's TypeScript form (SQLite's path, and the specification). */
async function approveWork(
  deps: ProposalDeps,
  actor: Actor,
  input: { tokenHash: string; revision: number; fingerprint?: string | null },
  comment: string | null,
  operationId: string,
  tx: WriteTx,
  sql: TxSql,
): Promise<Proposal> {
  const now = deps.clock.now();
  const found = await tx.proposal.findUnique({ where: { leaseTokenHash: input.tokenHash } });
  const held = checkReviewed(checkReviewer(checkHeld(found, actor, now, 'REVIEW'), actor, now), input);
  // Never an approval of data the server knows changed (a remembered fingerprint other than the proposal's).
  await requireCurrentFingerprint(tx, held, held.fingerprint, `Revision ${held.revision}`);
  // Approvals past their window no longer count (they would have lapsed at that moment anyway).
  const current = await lapseApprovals(tx, sql, held, now);
  const policy = policyOf(deps, current.riskLevel);
  const mine = await tx.proposalApproval.findUnique({ where: { proposalId_approver: { proposalId: current.id, approver: actor.name } } });
  if (mine && mine.voidReason !== 'LAPSED') throw alreadyApproved('token');
  // Counts for the approval window from now (a lapsed one of this reviewer's is replaced by this new one).
  const given = {
    approvedAt: now,
    voidedAt: null,
    voidReason: null,
    lapsesAt: approvalExpiry(now, policy, current.approvalValiditySeconds, current.deadline),
  };
  if (mine) await tx.proposalApproval.update({ where: { id: mine.id }, data: given });
  else await tx.proposalApproval.create({ data: { proposalId: current.id, approver: actor.name, ...given } });
  const counted = await tx.proposalApproval.findMany({ where: { proposalId: current.id, voidedAt: null }, select: { approvedAt: true } });
  const approvals = counted.length;
  const to = transition(current.state, 'APPROVE', { approvalsAfter: approvals, approvalsRequired: current.approvalsRequired });
  let approved = {};
  if (to === 'APPROVED') {
    // Valid for the window from the oldest approval counted: after that the quorum no longer holds.
    const oldest = new Date(Math.min(...counted.map((approval) => approval.approvedAt.getTime())));
    approved = {
      approvedAt: now,
      approvalExpiresAt: approvalExpiry(oldest, policy, current.approvalValiditySeconds, current.deadline),
      operationId,
    };
    // From here approvalExpiresAt governs; the approvals no longer lapse one by one.
    await tx.proposalApproval.updateMany({ where: { proposalId: current.id, voidedAt: null }, data: { lapsesAt: null } });
  }
  const proposal = await move(tx, current, to, { ...NO_LEASE, ...approved });
  await proposalEvent(sql, proposal, 'PROPOSAL_APPROVAL_RECORDED', actor.name, now, {
    from: current.state,
    approver: actor.name,
    approvals,
    approvalsRequired: current.approvalsRequired,
    comment,
  });
  if (to === 'APPROVED') {
    await proposalEvent(sql, proposal, 'PROPOSAL_APPROVED', actor.name, now, {
      from: current.state,
      approvals,
      approvalExpiresAt: proposal.approvalExpiresAt?.toISOString() ?? null,
      operationId: proposal.operationId,
    });
  }
  return proposal;
}

/** A reviewer's own proposal, or one past its deadline, is not reviewed: the refusal says which. */
function checkReviewer(held: Proposal, actor: Actor, now: Date): Proposal {
  if (held.proposedBy === actor.name) {
    throw new DomainError('SELF_APPROVAL', 'You proposed this; another reviewer must review it.', 'token');
  }
  if (held.deadline && held.deadline.getTime() <= now.getTime()) {
    throw new DomainError('DEADLINE_PASSED', `The deadline passed at ${held.deadline.toISOString()}.`, 'token');
  }
  return held;
}

/** A rejection or a request for changes under the caller's review lease: the lease ends, the approvals are void. */
function turnDown(
  deps: ProposalDeps,
  actor: Actor,
  token: string,
  operation: 'REJECT' | 'REQUEST_CHANGES',
  reason: string,
  comment: string | null,
): Promise<Proposal> {
  const tokenHash = hashLeaseToken(validateToken(token));
  return deps.db.perform({
    work: async (tx, sql) => {
      const now = deps.clock.now();
      const held = checkReviewer(
        checkHeld(await tx.proposal.findUnique({ where: { leaseTokenHash: tokenHash } }), actor, now, 'REVIEW'),
        actor,
        now,
      );
      const proposal = await move(tx, held, transition(held.state, operation), { ...NO_LEASE, stateReason: reason });
      await voidApprovals(tx, held.id, now, operation);
      await proposalEvent(sql, proposal, operation === 'REJECT' ? 'PROPOSAL_REJECTED' : 'PROPOSAL_CHANGES_REQUESTED', actor.name, now, {
        from: held.state,
        reason,
        comment,
      });
      return proposal;
    },
    call: {
      fields: {
        op: 'proposalTurnDown',
        operation,
        reason,
        comment,
        to: fixedOutcomes(operation),
        tokenHash,
        actor: actor.name,
        authenticated: actor.authenticated,
      },
      clock: deps.clock,
      answer: (answer) =>
        changedProposal(answer, (found, now) => {
          transition(checkReviewer(checkHeld(found, actor, now, 'REVIEW'), actor, now).state, operation);
        }),
    },
  });
}

/** Withdraws a PENDING or APPROVED proposal: by its proposer, or by an admin. */
export async function cancelProposal(
  deps: ProposalDeps,
  actor: Actor & { isAdmin: boolean },
  input: { id: number; reason: string },
): Promise<Proposal> {
  const reason = validateText(input.reason, 'reason', LIMITS.reason);
  const checkCanceller = (current: Proposal | null): Proposal => {
    if (!current) throw proposalNotFound(input.id);
    if (!actor.isAdmin && current.proposedBy !== actor.name) {
      throw new DomainError('NOT_PROPOSER', 'Only the proposer or an admin may cancel a proposal.', 'id');
    }
    return current;
  };
  return deps.db.perform({
    work: async (tx, sql) => {
      const now = deps.clock.now();
      const current = checkCanceller(await tx.proposal.findUnique({ where: { id: input.id } }));
      const proposal = await move(tx, current, transition(current.state, 'CANCEL'), { ...NO_LEASE, stateReason: reason });
      const voided = await voidApprovals(tx, current.id, now, 'CANCELLED');
      await proposalEvent(sql, proposal, 'PROPOSAL_CANCELLED', actor.name, now, { from: current.state, reason, voidedApprovals: voided });
      return proposal;
    },
    call: {
      fields: { op: 'proposalCancel', id: input.id, actor: actor.name, isAdmin: actor.isAdmin, reason, to: fixedOutcomes('CANCEL') },
      clock: deps.clock,
      answer: (answer) =>
        changedProposal(answer, (found) => {
          transition(checkCanceller(found).state, 'CANCEL');
        }),
    },
  });
}
