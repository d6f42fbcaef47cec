// Action proposals, recovery: what happens when an execution's outcome is unknown or time runs out.
// Owns an admin's reconciliation of OUTCOME_UNKNOWN and the timer's work (deadlines, approval validity,
// lapsed leases), recorded once across processes, and when that timer next has work.
import type { Proposal, TxSql, WriteTx } from '../../db/client.js';
import type { CallAnswer } from '../../db/write-calls.js';
import { DomainError } from '../../domain/errors.js';
import { escalationTarget } from '../../domain/escalation.js';
import { fixedOutcomes, type ProposalOperation, transition } from '../../domain/proposal.js';
import { validateText } from '../../domain/validation.js';
import type { Actor } from '../context.js';
import { escalateDue, nextEscalation } from './oversight.js';
import {
  approvalStillValid,
  changedProposal,
  lapseApprovals,
  loadForUpdate,
  move,
  NO_LEASE,
  outcomesByValidityAndFingerprint,
  PROPOSAL_LIMITS,
  type ProposalDeps,
  proposalEvent,
  proposalNotFound,
  voidApprovals,
} from './shared.js';
import { BEFORE_EXECUTION, rememberTargetState } from './target-state.js';

/**
 * Who executed a proposal: every principal that claimed its execution (EXECUTION_CLAIMED, whether or not it
 * started an attempt), ran an attempt, or recorded it as done by hand.
 */
async function executorsOf(tx: WriteTx, proposal: Proposal): Promise<Set<string>> {
  const [claims, attempts] = await Promise.all([
    tx.event.findMany({
      // EXECUTION_OUTCOME_UNKNOWN: also a manual record whose checks no longer held (or the system's lapse).
      where: { proposalId: proposal.id, type: { in: ['EXECUTION_CLAIMED', 'MANUAL_EXECUTION_RECORDED', 'EXECUTION_OUTCOME_UNKNOWN'] } },
      select: { actor: true },
    }),
    tx.executionAttempt.findMany({ where: { proposalId: proposal.id }, select: { executor: true } }),
  ]);
  const names = new Set([...claims.map((claim) => claim.actor), ...attempts.map((attempt) => attempt.executor)]);
  if (proposal.claimedBy !== null && proposal.leaseKind === 'EXECUTION') names.add(proposal.claimedBy);
  return names;
}

/** reconcileProposal's refusals before the state machine's, on the proposal as found. */
function checkReconciler(current: Proposal | null, id: number, actor: Actor, executedIt: boolean): Proposal {
  if (!current) throw proposalNotFound(id);
  if (actor.authenticated && current.proposedBy === actor.name) {
    throw new DomainError('SELF_RECONCILIATION', 'You proposed this; another reconciler must settle it.', 'id');
  }
  if (executedIt) {
    throw new DomainError('SELF_RECONCILIATION', 'You executed this (you claimed its execution); another reconciler must settle it.', 'id');
  }
  return current;
}

/**
 * A reconciler settles an OUTCOME_UNKNOWN: executed (with evidence), or not executed (re-checked before it
 * may run again). Never one it proposed or executed (SELF_RECONCILIATION): someone else checks that work.
 * A write call on PostgreSQL (migration 20261203200000_reconcile_and_after_review_calls).
 */
export async function reconcileProposal(
  deps: ProposalDeps,
  actor: Actor,
  input: { id: number; executed: boolean; evidence: string; fingerprint?: string | null },
): Promise<Proposal> {
  const evidence = validateText(input.evidence, 'evidence', PROPOSAL_LIMITS.evidence);
  if (!input.executed && (input.fingerprint == null || input.fingerprint === '')) {
    throw new DomainError(
      'INVALID_TEXT',
      'Give the target’s current fingerprint: it is re-checked before the proposal may run again.',
      'fingerprint',
    );
  }
  // The target's fingerprint the reconciler read (none: nothing to re-check or remember).
  const fingerprint =
    input.fingerprint == null || input.fingerprint === ''
      ? null
      : validateText(input.fingerprint, 'fingerprint', PROPOSAL_LIMITS.fingerprint);
  const operation: ProposalOperation = input.executed ? 'RECONCILE_EXECUTED' : 'RECONCILE_NOT_EXECUTED';
  return deps.db.perform({
    work: async (tx, sql) => {
      const now = deps.clock.now();
      const found = await tx.proposal.findUnique({ where: { id: input.id } });
      const executedIt = found !== null && actor.authenticated && (await executorsOf(tx, found)).has(actor.name);
      const current = checkReconciler(found, input.id, actor, executedIt);
      const to = transition(current.state, operation, {
        approvalValid: approvalStillValid(current, now),
        fingerprintMatches: fingerprint === null || fingerprint === current.fingerprint,
      });
      const proposal = await move(tx, current, to, { ...NO_LEASE, stateReason: evidence });
      const voided = to === 'STALE' || to === 'EXPIRED' ? await voidApprovals(tx, current.id, now, to) : 0;
      await proposalEvent(sql, proposal, 'PROPOSAL_RECONCILED', actor.name, now, {
        from: current.state,
        executed: input.executed,
        evidence,
      });
      // Ending STALE or EXPIRED is recorded as such too, for metrics and for subscribers filtering by type.
      if (to === 'STALE') {
        await proposalEvent(sql, proposal, 'PROPOSAL_STALE', actor.name, now, {
          from: current.state,
          reportedFingerprint: fingerprint,
          voidedApprovals: voided,
          via: 'RECONCILIATION',
        });
      } else if (to === 'EXPIRED') {
        const why = current.deadline && current.deadline.getTime() <= now.getTime() ? 'DEADLINE' : 'APPROVAL_VALIDITY';
        await proposalEvent(sql, proposal, 'PROPOSAL_EXPIRED', actor.name, now, { from: current.state, why, via: 'RECONCILIATION' });
      }
      // The target's fingerprint the reconciler read: remembered, other proposals of the target checked against it.
      if (fingerprint !== null) {
        await rememberTargetState(tx, sql, {
          targetSystem: current.targetSystem,
          targetId: current.targetId,
          fingerprint,
          actor,
          now,
          source: 'RECONCILIATION',
        });
      }
      return proposal;
    },
    call: {
      fields: {
        op: 'proposalReconcile',
        id: input.id,
        actor: actor.name,
        authenticated: actor.authenticated,
        executed: input.executed,
        evidence,
        fingerprint,
        to: outcomesByValidityAndFingerprint(operation),
        before: [...BEFORE_EXECUTION],
        staleTo: fixedOutcomes('MARK_STALE'),
      },
      clock: deps.clock,
      answer: (answer) =>
        changedProposal(answer, (found) => {
          const current = checkReconciler(found, input.id, actor, answer.executor === true);
          transition(current.state, operation);
        }),
    },
  });
}

/**
 * What time passing does, recorded once whichever process gets there first: deadlines and approval
 * validity → EXPIRED; a lapsed execution lease → OUTCOME_UNKNOWN; a lapsed review lease → recorded; an
 * approval past its window while the proposal waits for more → PROPOSAL_APPROVAL_LAPSED; with PROPOSAL_ESCALATION,
 * a PENDING proposal past its age or an OUTCOME_UNKNOWN one unreconciled too long → PROPOSAL_ESCALATED, once.
 * Returns how many proposals it changed.
 */
export async function recordProposalDeadlines(deps: ProposalDeps, limit: number): Promise<number> {
  return deps.db.perform({ work: (tx, sql) => sweepDeadlines(deps, tx, sql, limit), call: deadlinesCall(deps, limit) });
}

/**
 * recordProposalDeadlines as one statement on PostgreSQL (migration 20261203210000_proposal_deadline_sweep_call):
 * where EXPIRE and an execution lease's lapse take each state, and the escalation policy with its target's kind.
 */
function deadlinesCall(deps: ProposalDeps, limit: number) {
  const escalation = deps.escalation ? { ...deps.escalation, ...escalationTarget(deps.escalation.to) } : null;
  return {
    fields: {
      op: 'proposalDeadlines' as const,
      limit,
      expireTo: fixedOutcomes('EXPIRE'),
      unknownTo: transition('EXECUTING', 'OUTCOME_UNKNOWN'),
      escalation,
    },
    clock: deps.clock,
    answer: (answer: CallAnswer) => answer.changed as number,
  };
}

/** recordProposalDeadlines' work in a write transaction (SQLite's path, and the specification). */
async function sweepDeadlines(deps: ProposalDeps, tx: WriteTx, sql: TxSql, limit: number): Promise<number> {
  const now = deps.clock.now();
  let changed = 0;
  const expiring = await tx.proposal.findMany({
    where: {
      OR: [
        { state: 'PENDING', deadline: { lte: now } },
        { state: 'APPROVED', OR: [{ approvalExpiresAt: { lte: now } }, { deadline: { lte: now } }] },
      ],
    },
    take: limit,
    orderBy: { id: 'asc' },
  });
  for (const current of expiring) {
    const why = current.state === 'PENDING' || (current.deadline && current.deadline <= now) ? 'DEADLINE' : 'APPROVAL_VALIDITY';
    const proposal = await move(tx, current, transition(current.state, 'EXPIRE'), {
      ...NO_LEASE,
      stateReason: why === 'DEADLINE' ? 'The deadline passed.' : 'The approval expired before execution.',
    });
    await voidApprovals(tx, current.id, now, 'EXPIRED');
    await proposalEvent(sql, proposal, 'PROPOSAL_EXPIRED', 'system', now, { from: current.state, why });
    changed++;
  }
  // At most `limit` changes in all, so a caller can tell a full batch from the last one.
  if (changed >= limit) return changed;
  const lapsed = await tx.proposal.findMany({
    where: { leaseExpiryRecorded: false, leaseExpiresAt: { lte: now }, state: { in: ['PENDING', 'EXECUTING'] } },
    take: limit - changed,
    orderBy: { id: 'asc' },
  });
  for (const current of lapsed) {
    if (current.state === 'EXECUTING') {
      await tx.executionAttempt.updateMany({
        where: { proposalId: current.id, outcome: null },
        data: { outcome: 'UNKNOWN', finishedAt: now },
      });
      const proposal = await move(tx, current, transition(current.state, 'OUTCOME_UNKNOWN'), {
        ...NO_LEASE,
        leaseExpiryRecorded: true,
        outcomeUnknownAt: now,
        stateReason: `The execution lease of ${current.claimedBy} lapsed without a reported result.`,
      });
      await proposalEvent(sql, proposal, 'EXECUTION_OUTCOME_UNKNOWN', 'system', now, {
        from: 'EXECUTING',
        why: 'EXECUTION_LEASE_LAPSED',
        executor: current.claimedBy,
      });
    } else {
      const proposal = await move(tx, current, current.state, { leaseExpiryRecorded: true });
      await proposalEvent(sql, proposal, 'PROPOSAL_LEASE_EXPIRED', 'system', now, { holder: current.claimedBy, kind: current.leaseKind });
    }
    changed++;
  }
  if (changed >= limit) return changed;
  // Read from the lapsesAt index, oldest first; a proposal with several due is handled once.
  const lapsing = await tx.proposalApproval.findMany({
    where: { lapsesAt: { lte: now } },
    select: { proposalId: true },
    take: limit - changed,
    orderBy: { lapsesAt: 'asc' },
  });
  for (const proposalId of new Set(lapsing.map((approval) => approval.proposalId))) {
    await lapseApprovals(tx, sql, await loadForUpdate(tx, proposalId), now);
    changed++;
  }
  if (changed >= limit || !deps.escalation) return changed;
  return changed + (await escalateDue(tx, sql, deps.escalation, now, limit - changed));
}

/**
 * When `recordProposalDeadlines` next has work: the earliest deadline, approval expiry, lease lapse, approval
 * lapse or automatic escalation.
 */
export async function nextProposalDeadline(deps: ProposalDeps): Promise<Date | null> {
  const [deadline, approval, lease, lapse, escalation] = await Promise.all([
    deps.db.read.proposal.findFirst({
      where: { state: { in: ['PENDING', 'APPROVED'] }, deadline: { not: null } },
      orderBy: { deadline: 'asc' },
    }),
    deps.db.read.proposal.findFirst({
      where: { state: 'APPROVED', approvalExpiresAt: { not: null } },
      orderBy: { approvalExpiresAt: 'asc' },
    }),
    deps.db.read.proposal.findFirst({
      where: { leaseExpiryRecorded: false, leaseExpiresAt: { not: null }, state: { in: ['PENDING', 'EXECUTING'] } },
      orderBy: { leaseExpiresAt: 'asc' },
    }),
    deps.db.read.proposalApproval.findFirst({
      where: { lapsesAt: { not: null } },
      orderBy: { lapsesAt: 'asc' },
      select: { lapsesAt: true },
    }),
    deps.escalation ? nextEscalation(deps, deps.escalation) : null,
  ]);
  const times = [deadline?.deadline, approval?.approvalExpiresAt, lease?.leaseExpiresAt, lapse?.lapsesAt, escalation].filter(
    (time): time is Date => time instanceof Date,
  );
  return times.length === 0 ? null : new Date(Math.min(...times.map((time) => time.getTime())));
}
