// Action proposals, an execution's attempts under the execution lease claimExecution gave: the fingerprint
// checked right before an attempt (startExecutionAttempt) and the outcome reported after it
// (reportExecutionResult). Each is a write call on PostgreSQL (migration 20261203170000_execution_attempt_calls);
// the TypeScript forms here are SQLite's path and the specification.
import type { ExecutionAttempt, Proposal } from '../../db/client.js';
import { attemptFromJson } from '../../db/write-calls.js';
import { DomainError } from '../../domain/errors.js';
import { hashLeaseToken } from '../../domain/lease.js';
import { fixedOutcomes, outcomesWith, type ProposalOperation, type TransitionFacts, transition } from '../../domain/proposal.js';
import { LIMITS, validateText, validateToken } from '../../domain/validation.js';
import type { Actor } from '../context.js';
import {
  approvalStillValid,
  changedProposal,
  checkHeld,
  fingerprintStart,
  heldBy,
  jsonText,
  markStale,
  move,
  NO_LEASE,
  outcomesByValidityAndFingerprint,
  PROPOSAL_LIMITS,
  type ProposalDeps,
  proposalEvent,
  voidApprovals,
} from './shared.js';
import { BEFORE_EXECUTION, describeRemembered, rememberedTargetState, rememberTargetState } from './target-state.js';

const attemptInProgress = (number: number) =>
  new DomainError(
    'ATTEMPT_IN_PROGRESS',
    `Attempt ${number} has no reported result: report it (UNKNOWN if you cannot tell) instead of sending again.`,
    'token',
  );

/** Past the approval's validity when an attempt would start: where that takes each state. */
const EXPIRED_BEFORE_ATTEMPT: TransitionFacts = { approvalValid: false, fingerprintMatches: true };

/**
 * Compares the target's current fingerprint with the approved one and starts an attempt. On a
 * mismatch the proposal becomes STALE and `attempt` is null: nothing may run. Past the approval's
 * validity it becomes EXPIRED, likewise.
 */
export async function startExecutionAttempt(
  deps: ProposalDeps,
  actor: Actor,
  input: { token: string; fingerprint: string; correlationId?: string | null },
): Promise<{ proposal: Proposal; attempt: ExecutionAttempt | null }> {
  const token = validateToken(input.token);
  const fingerprint = validateText(input.fingerprint, 'fingerprint', PROPOSAL_LIMITS.fingerprint);
  const correlationId = input.correlationId == null ? null : validateText(input.correlationId, 'correlationId', LIMITS.reason);
  return deps.db.perform({
    work: async (tx, sql) => {
      const now = deps.clock.now();
      const held = await heldBy(tx, token, actor, now, 'EXECUTION');
      if (fingerprint !== held.fingerprint) {
        const reason = `At execution the target's fingerprint was ${fingerprintStart(fingerprint)}, not the approved ${fingerprintStart(held.fingerprint)}.`;
        const proposal = await markStale(tx, sql, held, { actor, now, fingerprint, reason });
        return { proposal, attempt: null };
      }
      // The target was reported changed since (a report while it was EXECUTING): the fingerprint presented is an old read.
      const remembered = await rememberedTargetState(tx, held.targetSystem, held.targetId);
      if (remembered && remembered.fingerprint !== fingerprint) {
        const reason = `At execution the fingerprint presented was ${fingerprintStart(fingerprint)}, but the target was reported since as ${describeRemembered(remembered)}: nothing may run against an old read.`;
        const proposal = await markStale(tx, sql, held, { actor, now, fingerprint: remembered.fingerprint, reason });
        return { proposal, attempt: null };
      }
      if (!approvalStillValid(held, now)) {
        const proposal = await move(tx, held, transition(held.state, 'FAIL_BEFORE_SEND', EXPIRED_BEFORE_ATTEMPT), {
          ...NO_LEASE,
          stateReason: 'The approval expired before the attempt started.',
        });
        await voidApprovals(tx, held.id, now, 'EXPIRED');
        await proposalEvent(sql, proposal, 'PROPOSAL_EXPIRED', actor.name, now, { from: held.state, why: 'APPROVAL_VALIDITY' });
        return { proposal, attempt: null };
      }
      const open = await tx.executionAttempt.findFirst({ where: { proposalId: held.id, outcome: null } });
      if (open) throw attemptInProgress(open.number);
      const number = (await tx.executionAttempt.count({ where: { proposalId: held.id } })) + 1;
      const attempt = await tx.executionAttempt.create({
        data: { proposalId: held.id, operationId: held.operationId as string, number, executor: actor.name, correlationId, startedAt: now },
      });
      await proposalEvent(sql, held, 'EXECUTION_ATTEMPT_STARTED', actor.name, now, {
        attempt: number,
        operationId: held.operationId,
        correlationId,
      });
      return { proposal: held, attempt };
    },
    call: {
      fields: {
        op: 'executionStart',
        tokenHash: hashLeaseToken(token),
        actor: actor.name,
        authenticated: actor.authenticated,
        fingerprint,
        correlationId,
        staleTo: fixedOutcomes('MARK_STALE'),
        expireTo: outcomesWith('FAIL_BEFORE_SEND', EXPIRED_BEFORE_ATTEMPT),
      },
      clock: deps.clock,
      answer: (answer) => ({
        proposal: changedProposal(answer, (found, now) => {
          const held = checkHeld(found, actor, now, 'EXECUTION');
          if (answer.open !== undefined) throw attemptInProgress(answer.open);
          transition(held.state, 'MARK_STALE');
          transition(held.state, 'FAIL_BEFORE_SEND', EXPIRED_BEFORE_ATTEMPT);
        }),
        attempt: answer.attempt ? attemptFromJson(answer.attempt) : null,
      }),
    },
  });
}

export type ExecutionOutcome = 'SUCCEEDED' | 'FAILED_BEFORE_SEND' | 'REJECTED_BY_REMOTE' | 'UNKNOWN';

const OUTCOME_OPERATION: Record<ExecutionOutcome, ProposalOperation> = {
  SUCCEEDED: 'SUCCEED',
  FAILED_BEFORE_SEND: 'FAIL_BEFORE_SEND',
  REJECTED_BY_REMOTE: 'FAIL_REJECTED_BY_REMOTE',
  UNKNOWN: 'OUTCOME_UNKNOWN',
};

const attemptNotStarted = () =>
  new DomainError('ATTEMPT_NOT_STARTED', 'Start an attempt (startExecutionAttempt) before reporting its result.', 'token');

/** Records how the current attempt ended; the execution lease ends with it. */
export async function reportExecutionResult(
  deps: ProposalDeps,
  actor: Actor,
  input: { token: string; outcome: ExecutionOutcome; response?: unknown; correlationId?: string | null; fingerprint?: string | null },
): Promise<Proposal> {
  const token = validateToken(input.token);
  const response = input.response === undefined ? null : jsonText(input.response, 'response');
  const fingerprint = input.fingerprint == null ? null : validateText(input.fingerprint, 'fingerprint', PROPOSAL_LIMITS.fingerprint);
  const correlationId = input.correlationId == null ? null : validateText(input.correlationId, 'correlationId', LIMITS.reason);
  const operation = OUTCOME_OPERATION[input.outcome];
  return deps.db.perform({
    work: async (tx, sql) => {
      const now = deps.clock.now();
      const held = await heldBy(tx, token, actor, now, 'EXECUTION');
      const attempt = await tx.executionAttempt.findFirst({ where: { proposalId: held.id, outcome: null }, orderBy: { number: 'desc' } });
      if (!attempt && input.outcome !== 'FAILED_BEFORE_SEND') throw attemptNotStarted();
      const valid = approvalStillValid(held, now);
      // Nothing sent but the target reads differently now: it changed under the proposal (FAILED_BEFORE_SEND → STALE).
      const fingerprintMatches = fingerprint === null || fingerprint === held.fingerprint;
      const to = transition(held.state, operation, { approvalValid: valid, fingerprintMatches });
      if (attempt) {
        await tx.executionAttempt.update({
          where: { id: attempt.id },
          data: { outcome: input.outcome, response, finishedAt: now, correlationId: correlationId ?? attempt.correlationId },
        });
      }
      const proposal = await move(tx, held, to, {
        ...NO_LEASE,
        stateReason:
          input.outcome === 'SUCCEEDED'
            ? null
            : attempt
              ? `Attempt ${attempt.number} ended ${input.outcome}.`
              : 'Failed before sending, before any attempt was started.',
      });
      if (to === 'EXPIRED' || to === 'STALE') await voidApprovals(tx, held.id, now, to);
      const type =
        to === 'EXECUTED'
          ? 'EXECUTION_SUCCEEDED'
          : to === 'FAILED'
            ? 'EXECUTION_FAILED'
            : to === 'OUTCOME_UNKNOWN'
              ? 'EXECUTION_OUTCOME_UNKNOWN'
              : to === 'APPROVED'
                ? 'EXECUTION_RETURNED'
                : to === 'STALE'
                  ? 'PROPOSAL_STALE'
                  : 'PROPOSAL_EXPIRED';
      // The answer and the remote's id go into the immutable history too, not only onto the updatable attempt row.
      await proposalEvent(sql, proposal, type, actor.name, now, {
        from: held.state,
        attempt: attempt?.number ?? null,
        outcome: input.outcome,
        operationId: held.operationId,
        correlationId: correlationId ?? attempt?.correlationId ?? null,
        response,
        ...(fingerprint === null ? {} : { reportedFingerprint: fingerprint }),
      });
      // The target's fingerprint as the executor read it after the attempt: remembered, other proposals of it checked.
      if (fingerprint !== null) {
        await rememberTargetState(tx, sql, {
          targetSystem: held.targetSystem,
          targetId: held.targetId,
          fingerprint,
          actor,
          now,
          source: 'EXECUTION',
        });
      }
      return proposal;
    },
    call: {
      fields: {
        op: 'executionReport',
        tokenHash: hashLeaseToken(token),
        actor: actor.name,
        authenticated: actor.authenticated,
        outcome: input.outcome,
        response,
        fingerprint,
        correlationId,
        to: outcomesByValidityAndFingerprint(operation),
        before: [...BEFORE_EXECUTION],
        staleTo: fixedOutcomes('MARK_STALE'),
      },
      clock: deps.clock,
      answer: (answer) =>
        changedProposal(answer, (found, now) => {
          const held = checkHeld(found, actor, now, 'EXECUTION');
          if (answer.notStarted) throw attemptNotStarted();
          transition(held.state, operation);
        }),
    },
  });
}
