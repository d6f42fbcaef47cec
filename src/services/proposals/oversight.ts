// Action proposals, oversight: stopping one safely and saying who restarts it (holdProposal, resumeProposal),
// escalating it (by hand, and automatically for the deadline announcer: PROPOSAL_ESCALATION) and assigning it
// to someone who should look at it. None of these decides or executes anything. Each is a write call on
// PostgreSQL (migration 20261203180000_proposal_oversight_calls); the TypeScript forms here are SQLite's path
// and the specification.
import type { Proposal, TxSql, WriteTx } from '../../db/client.js';
import { DomainError } from '../../domain/errors.js';
import { type EscalationPolicy, escalationTarget } from '../../domain/escalation.js';
import { isLapsed } from '../../domain/lease.js';
import {
  FINAL_STATES,
  fixedOutcomes,
  HOLDABLE_STATES,
  outcomesWith,
  PROPOSAL_STATES,
  type ProposalState,
  type TransitionFacts,
  transition,
} from '../../domain/proposal.js';
import { LIMITS, validateText } from '../../domain/validation.js';
import type { Actor } from '../context.js';
import {
  approvalStillValid,
  changedProposal,
  loadForUpdate,
  move,
  NO_LEASE,
  type ProposalDeps,
  proposalEvent,
  proposalNotFound,
  voidApprovals,
} from './shared.js';

/**
 * Holds a PENDING or APPROVED proposal, with a reason: ON_HOLD, remembering where it was. Nobody may claim,
 * review or execute it meanwhile; an active review lease ends with the hold (the event names its holder).
 */
export async function holdProposal(deps: ProposalDeps, actor: Actor, input: { id: number; reason: string }): Promise<Proposal> {
  const reason = validateText(input.reason, 'reason', LIMITS.reason);
  return deps.db.perform({
    work: async (tx, sql) => {
      const now = deps.clock.now();
      const current = await loadForUpdate(tx, input.id);
      const to = transition(current.state, 'HOLD');
      const leaseActive = current.leaseExpiresAt !== null && !isLapsed(current.leaseExpiresAt, now);
      if (current.leaseTokenHash !== null && !leaseActive && !current.leaseExpiryRecorded) {
        await proposalEvent(sql, current, 'PROPOSAL_LEASE_EXPIRED', 'system', now, { holder: current.claimedBy, kind: current.leaseKind });
      }
      const proposal = await move(tx, current, to, {
        ...NO_LEASE,
        heldFrom: current.state,
        heldBy: actor.name,
        stateReason: reason,
      });
      await proposalEvent(sql, proposal, 'PROPOSAL_HELD', actor.name, now, {
        from: current.state,
        reason,
        endedLease: leaseActive,
        leaseHolder: leaseActive ? current.claimedBy : null,
        leaseKind: leaseActive ? current.leaseKind : null,
      });
      return proposal;
    },
    call: {
      fields: { op: 'proposalHold', id: input.id, actor: actor.name, reason, to: fixedOutcomes('HOLD') },
      clock: deps.clock,
      answer: (answer) =>
        changedProposal(answer, (found) => {
          if (!found) throw proposalNotFound(input.id);
          transition(found.state, 'HOLD');
        }),
    },
  });
}

/** Where RESUME takes a held proposal, by where it was held from ('' when unknown) and whether that still holds. */
const RESUME_FACTS: Record<string, TransitionFacts> = Object.fromEntries(
  [...HOLDABLE_STATES, null].flatMap((heldFrom) => [
    [`${heldFrom ?? ''}/valid`, { heldFrom, stillValid: true }],
    [`${heldFrom ?? ''}/lapsed`, { heldFrom, stillValid: false }],
  ]),
);

/**
 * Resumes a held proposal, with a reason: back to where it was held from if that still holds (its deadline not
 * passed; from APPROVED, its approval still valid), otherwise EXPIRED with its approvals void (fails closed).
 */
export async function resumeProposal(deps: ProposalDeps, actor: Actor, input: { id: number; reason: string }): Promise<Proposal> {
  const reason = validateText(input.reason, 'reason', LIMITS.reason);
  return deps.db.perform({
    work: async (tx, sql) => {
      const now = deps.clock.now();
      const current = await loadForUpdate(tx, input.id);
      const deadlineOpen = current.deadline === null || current.deadline.getTime() > now.getTime();
      const stillValid = current.heldFrom === 'APPROVED' ? approvalStillValid(current, now) : deadlineOpen;
      const to = transition(current.state, 'RESUME', { heldFrom: current.heldFrom, stillValid });
      const why = to !== 'EXPIRED' ? null : !deadlineOpen ? 'DEADLINE' : 'APPROVAL_VALIDITY';
      const proposal = await move(tx, current, to, {
        stateReason:
          why === null
            ? reason
            : why === 'DEADLINE'
              ? 'The deadline passed while it was on hold.'
              : 'The approval expired while it was on hold.',
      });
      await proposalEvent(sql, proposal, 'PROPOSAL_RESUMED', actor.name, now, {
        from: current.state,
        heldFrom: current.heldFrom,
        heldBy: current.heldBy,
        reason,
      });
      if (why !== null) {
        const voided = await voidApprovals(tx, current.id, now, 'EXPIRED');
        await proposalEvent(sql, proposal, 'PROPOSAL_EXPIRED', actor.name, now, { from: current.state, why, voidedApprovals: voided });
      }
      return proposal;
    },
    call: {
      fields: {
        op: 'proposalResume',
        id: input.id,
        actor: actor.name,
        reason,
        to: Object.fromEntries(Object.entries(RESUME_FACTS).map(([facts, given]) => [facts, outcomesWith('RESUME', given)])),
      },
      clock: deps.clock,
      answer: (answer) =>
        changedProposal(answer, (found) => {
          if (!found) throw proposalNotFound(input.id);
          transition(found.state, 'RESUME', { heldFrom: found.heldFrom, stillValid: false });
        }),
    },
  });
}

/** The states a change of attention (escalation, assignment) may find a proposal in: those not final. */
const LIVE_STATES = (Object.keys(PROPOSAL_STATES) as ProposalState[]).filter((state) => !FINAL_STATES.has(state));

/** Refuses a change of attention (escalation, assignment) to a final proposal: nothing is left to look at. */
function mustBeLive(proposal: Proposal | null, id: number, what: string): Proposal {
  if (!proposal) throw proposalNotFound(id);
  if (FINAL_STATES.has(proposal.state)) {
    throw new DomainError('PROPOSAL_STATE_CONFLICT', `A proposal that is ${proposal.state} is final: there is nothing to ${what}.`, 'id');
  }
  return proposal;
}

async function escalate(
  tx: WriteTx,
  sql: TxSql,
  current: Proposal,
  change: { actor: string; now: Date; to: string; kind: 'ROLE' | 'PRINCIPAL'; reason: string; automatic: boolean },
): Promise<Proposal> {
  const proposal = await move(tx, current, current.state, { escalatedAt: change.now, escalatedTo: change.to });
  await proposalEvent(sql, proposal, 'PROPOSAL_ESCALATED', change.actor, change.now, {
    from: current.state,
    to: change.to,
    toKind: change.kind,
    reason: change.reason,
    automatic: change.automatic,
    previouslyEscalatedTo: current.escalatedTo,
  });
  return proposal;
}

/** Escalates a live proposal to a role or a principal, with a reason (PROPOSAL_ESCALATED; the state does not change). */
export async function escalateProposal(
  deps: ProposalDeps,
  actor: Actor,
  input: { id: number; reason: string; to: string },
): Promise<Proposal> {
  const reason = validateText(input.reason, 'reason', LIMITS.reason);
  const target = escalationTarget(input.to);
  return deps.db.perform({
    work: async (tx, sql) => {
      const now = deps.clock.now();
      const current = mustBeLive(await tx.proposal.findUnique({ where: { id: input.id } }), input.id, 'escalate');
      return escalate(tx, sql, current, { actor: actor.name, now, ...target, reason, automatic: false });
    },
    call: {
      fields: {
        op: 'proposalEscalate',
        id: input.id,
        actor: actor.name,
        reason,
        escalatedTo: target.to,
        toKind: target.kind,
        live: LIVE_STATES,
      },
      clock: deps.clock,
      answer: (answer) => changedProposal(answer, (found) => mustBeLive(found, input.id, 'escalate')),
    },
  });
}

/** Names who should look at a live proposal (not a lease: it grants nothing), or nobody with null. */
export async function assignProposal(deps: ProposalDeps, actor: Actor, input: { id: number; assignee: string | null }): Promise<Proposal> {
  const assignee = input.assignee === null ? null : validateText(input.assignee, 'assignee', LIMITS.reviewer);
  return deps.db.perform({
    work: async (tx, sql) => {
      const now = deps.clock.now();
      const current = mustBeLive(await tx.proposal.findUnique({ where: { id: input.id } }), input.id, 'assign');
      const proposal = await move(tx, current, current.state, { assignee });
      await proposalEvent(sql, proposal, 'PROPOSAL_ASSIGNED', actor.name, now, { assignee, previousAssignee: current.assignee });
      return proposal;
    },
    call: {
      fields: { op: 'proposalAssign', id: input.id, actor: actor.name, assignee, live: LIVE_STATES },
      clock: deps.clock,
      answer: (answer) => changedProposal(answer, (found) => mustBeLive(found, input.id, 'assign')),
    },
  });
}

const seconds = (count: number) => count * 1000;

/**
 * The deadline announcer's share of escalation, inside its transaction: dates OUTCOME_UNKNOWN proposals that
 * became unknown without a date, then escalates (once each, by "system") PENDING proposals older than
 * pendingAfterSeconds and OUTCOME_UNKNOWN ones unreconciled for outcomeUnknownAfterSeconds, each read from its
 * (state, escalatedAt, …) index. Returns how many proposals it changed, at most `limit`.
 */
export async function escalateDue(tx: WriteTx, sql: TxSql, policy: EscalationPolicy, now: Date, limit: number): Promise<number> {
  let changed = 0;
  if (policy.outcomeUnknownAfterSeconds !== null) {
    const undated = await tx.proposal.updateMany({
      where: { state: 'OUTCOME_UNKNOWN', escalatedAt: null, outcomeUnknownAt: null },
      data: { outcomeUnknownAt: now },
    });
    changed += undated.count;
    if (changed >= limit) return changed;
    const unknown = await tx.proposal.findMany({
      where: {
        state: 'OUTCOME_UNKNOWN',
        escalatedAt: null,
        outcomeUnknownAt: { lte: new Date(now.getTime() - seconds(policy.outcomeUnknownAfterSeconds)) },
      },
      orderBy: { outcomeUnknownAt: 'asc' },
      take: limit - changed,
    });
    for (const current of unknown) {
      await escalate(tx, sql, current, {
        actor: 'system',
        now,
        ...escalationTarget(policy.to),
        reason: `Its outcome has been unknown since ${current.outcomeUnknownAt?.toISOString()} (more than ${policy.outcomeUnknownAfterSeconds} s) without a reconciliation.`,
        automatic: true,
      });
      changed++;
    }
  }
  if (changed >= limit || policy.pendingAfterSeconds === null) return changed;
  const pending = await tx.proposal.findMany({
    where: { state: 'PENDING', escalatedAt: null, createdAt: { lte: new Date(now.getTime() - seconds(policy.pendingAfterSeconds)) } },
    orderBy: { createdAt: 'asc' },
    take: limit - changed,
  });
  for (const current of pending) {
    await escalate(tx, sql, current, {
      actor: 'system',
      now,
      ...escalationTarget(policy.to),
      reason: `Pending since ${current.createdAt.toISOString()} (more than ${policy.pendingAfterSeconds} s) without a decision.`,
      automatic: true,
    });
    changed++;
  }
  return changed;
}

/** When `escalateDue` next has work under `policy`: the earliest PENDING or OUTCOME_UNKNOWN proposal not yet escalated. */
export async function nextEscalation(deps: ProposalDeps, policy: EscalationPolicy): Promise<Date | null> {
  const read = deps.db.read.proposal;
  const [undated, unknown, pending] = await Promise.all([
    policy.outcomeUnknownAfterSeconds === null
      ? null
      : read.findFirst({ where: { state: 'OUTCOME_UNKNOWN', escalatedAt: null, outcomeUnknownAt: null }, select: { id: true } }),
    policy.outcomeUnknownAfterSeconds === null
      ? null
      : read.findFirst({
          where: { state: 'OUTCOME_UNKNOWN', escalatedAt: null, outcomeUnknownAt: { not: null } },
          orderBy: { outcomeUnknownAt: 'asc' },
          select: { outcomeUnknownAt: true },
        }),
    policy.pendingAfterSeconds === null
      ? null
      : read.findFirst({ where: { state: 'PENDING', escalatedAt: null }, orderBy: { createdAt: 'asc' }, select: { createdAt: true } }),
  ]);
  const times: number[] = [];
  if (undated) times.push(deps.clock.now().getTime());
  if (unknown?.outcomeUnknownAt && policy.outcomeUnknownAfterSeconds !== null) {
    times.push(unknown.outcomeUnknownAt.getTime() + seconds(policy.outcomeUnknownAfterSeconds));
  }
  if (pending && policy.pendingAfterSeconds !== null) times.push(pending.createdAt.getTime() + seconds(policy.pendingAfterSeconds));
  return times.length === 0 ? null : new Date(Math.min(...times));
}
