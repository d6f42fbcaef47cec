// Action proposals, execution: exactly once under an execution lease. Owns the claim (one winner), a claim
// by hand and a manual execution; the attempts under the lease (the fingerprint right before one, the
// reported outcome) are in attempts.ts. What the server knows of each target (reportTargetState and the
// remembered fingerprint) is in target-state.ts.
import type { Proposal, WriteTx } from '../../db/client.js';
import { type JsonProposal, proposalFromJson } from '../../db/write-calls.js';
import { DomainError } from '../../domain/errors.js';
import { hashLeaseToken, issueLeaseToken, leaseExpiry } from '../../domain/lease.js';
import { fixedOutcomes, outcomesWith, RISK_LEVELS, type TransitionFacts, transition } from '../../domain/proposal.js';
import { LIMITS, validateLeaseSeconds, validateText } from '../../domain/validation.js';
import type { Actor } from '../context.js';
import {
  approvalStillValid,
  changedProposal,
  changedWhileRunning,
  fingerprintStart,
  move,
  NO_LEASE,
  PROPOSAL_LIMITS,
  type ProposalDeps,
  policyOf,
  proposalEvent,
  proposalNotFound,
} from './shared.js';
import { BEFORE_EXECUTION, rememberTargetState } from './target-state.js';

export interface ExecutionClaim {
  proposal: Proposal;
  token: string;
  operationId: string;
}

/**
 * Takes the next APPROVED proposal whose approval is still valid, under an execution lease: one
 * winner (a compare-and-set on the state). Never one the executor proposed, nor, when the policy
 * says so, one it approved. Null when none is ready.
 */
export async function claimExecution(
  deps: ProposalDeps,
  actor: Actor,
  input: { leaseSeconds?: number | null; actions?: readonly string[] | null; targetSystems?: readonly string[] | null },
): Promise<ExecutionClaim | null> {
  const leaseSeconds = validateLeaseSeconds(input.leaseSeconds ?? LIMITS.defaultLeaseSeconds);
  // An executor that can only run some actions, or reach some systems, asks only for those.
  const actions = input.actions?.length
    ? input.actions.map((action, n) => validateText(action, `actions[${n}]`, PROPOSAL_LIMITS.action))
    : null;
  const systems = input.targetSystems?.length
    ? input.targetSystems.map((system, n) => validateText(system, `targetSystems[${n}]`, PROPOSAL_LIMITS.target))
    : null;
  const token = issueLeaseToken();
  // Where the policy separates executors from approvers, proposals this executor approved are skipped in the query itself.
  const separated = separatedLevels(deps);
  const claimed = (proposal: Proposal): ExecutionClaim => ({ proposal, token, operationId: proposal.operationId as string });
  return deps.db.perform({
    work: async (tx, sql) => {
      const now = deps.clock.now();
      const current = await tx.proposal.findFirst({
        where: {
          state: 'APPROVED',
          approvalExpiresAt: { gt: now },
          proposedBy: { not: actor.name },
          ...(actions ? { action: { in: actions } } : {}),
          ...(systems ? { targetSystem: { in: systems } } : {}),
          OR: [{ riskLevel: { notIn: separated } }, { approvals: { none: { approver: actor.name, voidedAt: null } } }],
        },
        orderBy: [{ approvalExpiresAt: 'asc' }, { id: 'asc' }],
      });
      if (!current) return null;
      const proposal = await move(
        tx,
        current,
        transition(current.state, 'CLAIM_EXECUTION'),
        executionLease(current, token, actor, now, leaseSeconds),
      );
      await proposalEvent(sql, proposal, 'EXECUTION_CLAIMED', actor.name, now, {
        from: current.state,
        executor: actor.name,
        operationId: proposal.operationId,
        leaseSeconds,
      });
      return claimed(proposal);
    },
    call: {
      fields: {
        op: 'executionClaim',
        leaseSeconds,
        tokenHash: hashLeaseToken(token),
        holder: actor.name,
        actions,
        targetSystems: systems,
        separated,
        to: transition('APPROVED', 'CLAIM_EXECUTION'),
      },
      clock: deps.clock,
      answer: (answer) => {
        if (answer.none) return null;
        if (answer.conflict) throw changedWhileRunning();
        return claimed(proposalFromJson(answer.proposal as JsonProposal));
      },
    },
  });
}

/** Whether `actor`'s approval of `current` still counts where its policy keeps executors and approvers apart. */
async function approvedBy(deps: ProposalDeps, tx: WriteTx, current: Proposal | null, actor: Actor): Promise<boolean> {
  if (!current || !policyOf(deps, current.riskLevel).executorMustDifferFromApprovers) return false;
  return (await tx.proposalApproval.findFirst({ where: { proposalId: current.id, approver: actor.name, voidedAt: null } })) !== null;
}

/** Separation of duties for an execution chosen by id: never one's own proposal, nor one approved when the policy says so. */
function checkSeparation(current: Proposal, actor: Actor, approvedIt: boolean): void {
  if (current.proposedBy === actor.name) throw new DomainError('SELF_APPROVAL', 'You proposed this; someone else must execute it.', 'id');
  if (approvedIt) throw new DomainError('EXECUTOR_IS_APPROVER', 'You approved this; the policy requires another executor.', 'id');
}

/** The risk levels whose policy keeps executors and approvers apart (what a write call is sent). */
const separatedLevels = (deps: ProposalDeps) => RISK_LEVELS.filter((risk) => policyOf(deps, risk).executorMustDifferFromApprovers);

/** claimManualExecution's checks, in order, on the proposal as found: it, APPROVED, separated, its approval valid. */
function checkManualClaim(current: Proposal | null, id: number, actor: Actor, approvedIt: boolean, now: Date): Proposal {
  if (!current) throw proposalNotFound(id);
  if (current.state !== 'APPROVED') {
    const held = current.state === 'EXECUTING' ? ` (under ${current.claimedBy}'s execution lease)` : '';
    throw new DomainError(
      'PROPOSAL_STATE_CONFLICT',
      `Proposal ${current.id} is ${current.state}${held}: only an APPROVED proposal may be claimed for execution.`,
      'id',
    );
  }
  checkSeparation(current, actor, approvedIt);
  if (!approvalStillValid(current, now)) {
    throw new DomainError(
      'PROPOSAL_STATE_CONFLICT',
      `Proposal ${current.id}'s approval is no longer valid (${current.deadline && current.deadline <= now ? 'deadline' : 'validity'} passed): it needs a new revision and a new approval.`,
      'id',
    );
  }
  return current;
}

/**
 * An executor reserves the APPROVED proposal `id` to carry it out by hand (an integration is down): the
 * same checks as claimExecution (approval valid, never its own, not one it approved when the policy
 * says so), the same operation id, under an execution lease (EXECUTION_CLAIMED says manual), so automation's
 * claimExecution finds nothing to claim meanwhile. Then startExecutionAttempt (the fingerprint, right
 * before doing it) and reportExecutionResult, as for automation. Who and why are in EXECUTION_CLAIMED.
 * A write call on PostgreSQL (migration 20261203190000_manual_execution_calls).
 */
export async function claimManualExecution(
  deps: ProposalDeps,
  actor: Actor,
  input: { id: number; reason: string; leaseSeconds?: number | null },
): Promise<ExecutionClaim> {
  const reason = validateText(input.reason, 'reason', LIMITS.reason);
  const leaseSeconds = validateLeaseSeconds(input.leaseSeconds ?? LIMITS.defaultLeaseSeconds);
  const token = issueLeaseToken();
  const claimed = (proposal: Proposal): ExecutionClaim => ({ proposal, token, operationId: proposal.operationId as string });
  return deps.db.perform({
    work: async (tx, sql) => {
      const now = deps.clock.now();
      const found = await tx.proposal.findUnique({ where: { id: input.id } });
      const current = checkManualClaim(found, input.id, actor, await approvedBy(deps, tx, found, actor), now);
      const proposal = await move(tx, current, transition(current.state, 'CLAIM_EXECUTION'), {
        ...executionLease(current, token, actor, now, leaseSeconds),
        manualLease: true,
      });
      await proposalEvent(sql, proposal, 'EXECUTION_CLAIMED', actor.name, now, {
        from: current.state,
        executor: actor.name,
        operationId: proposal.operationId,
        leaseSeconds,
        manual: true,
        reason,
      });
      return claimed(proposal);
    },
    call: {
      fields: {
        op: 'executionClaimManual',
        id: input.id,
        actor: actor.name,
        reason,
        leaseSeconds,
        tokenHash: hashLeaseToken(token),
        separated: separatedLevels(deps),
        to: transition('APPROVED', 'CLAIM_EXECUTION'),
      },
      clock: deps.clock,
      answer: (answer) =>
        claimed(
          changedProposal(answer, (found, now) => {
            checkManualClaim(found, input.id, actor, answer.approved === true, now);
          }),
        ),
    },
  });
}

/** An execution lease on `current` for `actor`, proved by `token`, from `now`. */
function executionLease(current: Proposal, token: string, actor: Actor, now: Date, leaseSeconds: number) {
  return {
    leaseKind: 'EXECUTION',
    leaseTokenHash: hashLeaseToken(token),
    claimedBy: actor.name,
    claimedAt: now,
    leaseExpiresAt: leaseExpiry(now, leaseSeconds),
    leaseNumber: current.leaseNumber + 1,
    leaseExpiryRecorded: false,
  } as const;
}

/** recordManualExecution's checks before the state machine's, on the proposal as found: it, separated, not EXECUTING. */
function checkManualRecord(current: Proposal | null, id: number, actor: Actor, approvedIt: boolean): Proposal {
  if (!current) throw proposalNotFound(id);
  checkSeparation(current, actor, approvedIt);
  if (current.state === 'EXECUTING') {
    // Someone holds it (perhaps the caller, by claimManualExecution): the lease's holder reports, nobody else.
    throw new DomainError(
      'PROPOSAL_STATE_CONFLICT',
      `Proposal ${current.id} is EXECUTING under ${current.claimedBy}'s execution lease: its holder reports the result (reportExecutionResult); if the lease lapses it becomes OUTCOME_UNKNOWN and a reconciler settles it with this evidence.`,
      'id',
    );
  }
  return current;
}

/** The facts a manual record's transition depends on, by the names the write call's `to` uses. */
const RECORD_FACTS: Record<string, TransitionFacts> = Object.fromEntries(
  ['valid', 'lapsed'].flatMap((approval) =>
    ['same', 'changed'].flatMap((fingerprint) =>
      ['approved', 'never'].map((history) => [
        `${approval}/${fingerprint}/${history}`,
        { approvalValid: approval === 'valid', fingerprintMatches: fingerprint === 'same', wasApproved: history === 'approved' },
      ]),
    ),
  ),
);

/**
 * An executor records an action already carried out by hand, with why (`reason`) and what was done
 * (`evidence`), kept apart. The same checks as an automated execution; when they hold → EXECUTED. When
 * they no longer do (fingerprint changed, approval expired, or the approved revision already EXPIRED or
 * STALE), what happened is never recorded as "not executed": → OUTCOME_UNKNOWN, for a reconciler.
 * `fingerprintAfter`, the target as read after acting, is remembered as its state (source EXECUTION) when the
 * record ends EXECUTED, making the target's other open proposals made against another fingerprint STALE;
 * after OUTCOME_UNKNOWN the target's state is not known, so it is kept in the event only. A write call on
 * PostgreSQL (migration 20261203190000_manual_execution_calls).
 */
export async function recordManualExecution(
  deps: ProposalDeps,
  actor: Actor,
  input: { id: number; fingerprint: string; evidence: string; reason: string; fingerprintAfter?: string | null },
): Promise<Proposal> {
  const fingerprint = validateText(input.fingerprint, 'fingerprint', PROPOSAL_LIMITS.fingerprint);
  const fingerprintAfter =
    input.fingerprintAfter == null ? null : validateText(input.fingerprintAfter, 'fingerprintAfter', PROPOSAL_LIMITS.fingerprint);
  const evidence = validateText(input.evidence, 'evidence', PROPOSAL_LIMITS.evidence);
  const reason = validateText(input.reason, 'reason', LIMITS.reason);
  return deps.db.perform({
    work: async (tx, sql) => {
      const now = deps.clock.now();
      const found = await tx.proposal.findUnique({ where: { id: input.id } });
      const current = checkManualRecord(found, input.id, actor, await approvedBy(deps, tx, found, actor));
      const approvalValid = current.state === 'APPROVED' && approvalStillValid(current, now);
      const fingerprintMatches = fingerprint === current.fingerprint;
      const to = transition(current.state, 'RECORD_MANUAL_EXECUTION', {
        approvalValid,
        fingerprintMatches,
        wasApproved: current.operationId !== null,
      });
      if (to === 'EXECUTED') {
        const proposal = await move(tx, current, to, { ...NO_LEASE, stateReason: evidence });
        await proposalEvent(sql, proposal, 'MANUAL_EXECUTION_RECORDED', actor.name, now, {
          from: current.state,
          reason,
          evidence,
          reportedFingerprint: fingerprint,
          ...(fingerprintAfter === null ? {} : { fingerprintAfter }),
          operationId: current.operationId,
        });
        // The target as read after acting: remembered, the target's other open proposals checked against it.
        if (fingerprintAfter !== null) {
          await rememberTargetState(tx, sql, {
            targetSystem: current.targetSystem,
            targetId: current.targetId,
            fingerprint: fingerprintAfter,
            actor,
            now,
            source: 'EXECUTION',
          });
        }
        return proposal;
      }
      const why =
        current.state !== 'APPROVED' ? `ALREADY_${current.state}` : !fingerprintMatches ? 'FINGERPRINT_CHANGED' : 'APPROVAL_EXPIRED';
      const explained = {
        ALREADY_EXPIRED: 'this revision had already EXPIRED',
        ALREADY_STALE: 'this revision had already gone STALE',
        FINGERPRINT_CHANGED: `the fingerprint presented (${fingerprintStart(fingerprint)}) is not the approved ${fingerprintStart(current.fingerprint)}`,
        APPROVAL_EXPIRED: 'the approval was no longer valid',
      }[why];
      // From EXPIRED or STALE the approvals are void already: the approval's time ends now, so a reconciler's
      // "not executed" can never bring it back to APPROVED.
      const proposal = await move(tx, current, to, {
        ...NO_LEASE,
        stateReason: `Recorded as done by hand by ${actor.name}, but ${explained}: a reconciler must check whether it took effect.`,
        ...(current.state === 'APPROVED' ? {} : { approvalExpiresAt: now }),
      });
      await proposalEvent(sql, proposal, 'EXECUTION_OUTCOME_UNKNOWN', actor.name, now, {
        from: current.state,
        manual: true,
        why,
        executor: actor.name,
        reason,
        evidence,
        reportedFingerprint: fingerprint,
        ...(fingerprintAfter === null ? {} : { fingerprintAfter }),
        operationId: current.operationId,
      });
      return proposal;
    },
    call: {
      fields: {
        op: 'executionRecordManual',
        id: input.id,
        actor: actor.name,
        fingerprint,
        fingerprintAfter,
        evidence,
        reason,
        separated: separatedLevels(deps),
        to: Object.fromEntries(
          Object.entries(RECORD_FACTS).map(([facts, given]) => [facts, outcomesWith('RECORD_MANUAL_EXECUTION', given)]),
        ),
        before: [...BEFORE_EXECUTION],
        staleTo: fixedOutcomes('MARK_STALE'),
      },
      clock: deps.clock,
      answer: (answer) =>
        changedProposal(answer, (found) => {
          const current = checkManualRecord(found, input.id, actor, answer.approved === true);
          transition(current.state, 'RECORD_MANUAL_EXECUTION', { wasApproved: current.operationId !== null });
        }),
    },
  });
}
