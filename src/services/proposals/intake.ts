// Action proposals, intake: submitting a proposal or its next revision. Owns the submission's validation,
// its idempotency on (batchId, recordId, revision) and the rule for which revision may follow which.
import { randomUUID } from 'node:crypto';
import type { Proposal, TargetState, TxSql, WriteTx } from '../../db/client.js';
import { type JsonProposal, proposalFromJson, targetStateFromJson } from '../../db/write-calls.js';
import { approversFor } from '../../domain/auto-execution.js';
import { DomainError } from '../../domain/errors.js';
import { approvalExpiry, DEFAULT_POLICIES, type ProposalState, RISK_LEVELS, type RiskLevel, transition } from '../../domain/proposal.js';
import { riskBelow } from '../../domain/proposal-rules.js';
import { LIMITS, validateText } from '../../domain/validation.js';
import type { Actor } from '../context.js';
import { jsonText, move, PROPOSAL_LIMITS, type ProposalDeps, policyOf, proposalEvent, rulesOf } from './shared.js';
import { checkRemembered, rememberedTargetState } from './target-state.js';

export interface NewProposal {
  batchId: string;
  recordId: string;
  revision?: number | null;
  action: string;
  parameters: unknown;
  reason: string;
  targetSystem: string;
  targetId: string;
  currentValue: unknown;
  proposedValue: unknown;
  dataSource: string;
  /** Reviewer context (seed B): what it changes and for whom, limits the executor must respect, the rule that produced it. */
  impact?: string | null;
  constraints?: string | null;
  rule?: string | null;
  riskLevel: string;
  fingerprint: string | null | undefined;
  approvalValiditySeconds?: number | null;
  deadline?: Date | null;
}

function validateNewProposal(input: NewProposal) {
  const revision = input.revision ?? 1;
  if (!Number.isInteger(revision) || revision < 1 || revision > 1_000) {
    throw new DomainError('INVALID_ARGUMENT', 'revision must be a whole number from 1 to 1000.', 'revision');
  }
  if (input.fingerprint == null || input.fingerprint === '') {
    throw new DomainError('INVALID_TEXT', 'fingerprint is required: the target data’s fingerprint as the proposer saw it.', 'fingerprint');
  }
  if (!(RISK_LEVELS as readonly string[]).includes(input.riskLevel)) {
    throw new DomainError('INVALID_ARGUMENT', `riskLevel must be one of ${RISK_LEVELS.join(', ')}.`, 'riskLevel');
  }
  const validity = input.approvalValiditySeconds ?? null;
  if (
    validity !== null &&
    (!Number.isInteger(validity) || validity < PROPOSAL_LIMITS.minValiditySeconds || validity > PROPOSAL_LIMITS.maxValiditySeconds)
  ) {
    throw new DomainError(
      'INVALID_ARGUMENT',
      `approvalValiditySeconds must be a whole number from ${PROPOSAL_LIMITS.minValiditySeconds} to ${PROPOSAL_LIMITS.maxValiditySeconds}.`,
      'approvalValiditySeconds',
    );
  }
  return {
    batchId: validateText(input.batchId, 'batchId', LIMITS.batchId),
    recordId: validateText(input.recordId, 'recordId', LIMITS.recordId),
    revision,
    action: validateText(input.action, 'action', PROPOSAL_LIMITS.action),
    parameters: jsonText(input.parameters, 'parameters', true),
    reason: validateText(input.reason, 'reason', LIMITS.reason),
    targetSystem: validateText(input.targetSystem, 'target.system', PROPOSAL_LIMITS.target),
    targetId: validateText(input.targetId, 'target.recordId', PROPOSAL_LIMITS.target),
    currentValue: jsonText(input.currentValue, 'currentValue'),
    proposedValue: jsonText(input.proposedValue, 'proposedValue'),
    dataSource: validateText(input.dataSource, 'dataSource', PROPOSAL_LIMITS.dataSource),
    impact: input.impact == null ? null : validateText(input.impact, 'impact', PROPOSAL_LIMITS.context),
    constraints: input.constraints == null ? null : validateText(input.constraints, 'constraints', PROPOSAL_LIMITS.context),
    rule: input.rule == null ? null : validateText(input.rule, 'rule', PROPOSAL_LIMITS.context),
    riskLevel: input.riskLevel as RiskLevel,
    fingerprint: validateText(input.fingerprint, 'fingerprint', PROPOSAL_LIMITS.fingerprint),
    approvalValiditySeconds: validity,
    deadline: input.deadline ?? null,
  };
}

const SAME_CONTENT = [
  'action',
  'parameters',
  'reason',
  'targetSystem',
  'targetId',
  'currentValue',
  'proposedValue',
  'dataSource',
  'impact',
  'constraints',
  'rule',
  'riskLevel',
  'fingerprint',
] as const;

/** States after which the proposer may submit the next revision. */
const REVISABLE: ReadonlySet<ProposalState> = new Set(['CHANGES_REQUESTED', 'STALE', 'EXPIRED', 'FAILED']);

type ValidProposal = ReturnType<typeof validateNewProposal>;

/** The stored proposal a retry names, or PROPOSAL_CONFLICT when its content differs from the retry's. */
function sameSubmission(existing: Proposal, valid: ValidProposal, actor: Actor): Proposal {
  const same =
    SAME_CONTENT.every((field) => existing[field] === valid[field]) &&
    existing.proposedBy === actor.name &&
    existing.approvalValiditySeconds === valid.approvalValiditySeconds &&
    (existing.deadline?.getTime() ?? null) === (valid.deadline?.getTime() ?? null);
  if (!same) {
    throw new DomainError(
      'PROPOSAL_CONFLICT',
      `Proposal (${valid.batchId}, ${valid.recordId}) revision ${valid.revision} exists with different content; submit the next revision instead.`,
      'revision',
    );
  }
  return existing;
}

/**
 * What a new submission is checked against, read in the write: the target's remembered state, and for a
 * revision after the first the revision it follows (null: none), for a first one whether the
 * (batchId, recordId) already has revisions. Undefined: not read (a refusal came first).
 */
interface SubmissionFacts {
  now: Date;
  remembered: TargetState | null;
  previous?: Proposal | null;
  revisions?: boolean;
}

/** A new submission's rules, in order; the revision it follows (for a revision after the first), else null. */
function checkSubmission(valid: ValidProposal, actor: Actor, floor: RiskLevel | undefined, facts: SubmissionFacts): Proposal | null {
  // Checked only for a new proposal: a retry of an accepted submission returns it even after its deadline.
  if (valid.deadline && valid.deadline.getTime() <= facts.now.getTime()) {
    throw new DomainError('INVALID_ARGUMENT', 'deadline must be in the future.', 'deadline');
  }
  // The server remembers the target's last reported fingerprint: a proposal made against another one is refused.
  checkRemembered(facts.remembered, valid, valid.fingerprint, 'This proposal');
  // Risk is not the proposer's to lower: the action's configured floor (PROPOSAL_ACTIONS), then the previous revision's level.
  if (floor && riskBelow(valid.riskLevel, floor)) {
    throw new DomainError(
      'RISK_BELOW_MINIMUM',
      `riskLevel ${valid.riskLevel} is below the minimum ${floor} configured for the action "${valid.action}" (PROPOSAL_ACTIONS); submit it as ${floor} or higher.`,
      'riskLevel',
    );
  }
  if (valid.revision === 1) {
    if (facts.revisions) throw new DomainError('PROPOSAL_CONFLICT', 'This (batchId, recordId) already has revisions.', 'revision');
    return null;
  }
  const previous = facts.previous;
  if (previous === undefined) return null;
  if (!previous || !REVISABLE.has(previous.state) || previous.proposedBy !== actor.name) {
    throw new DomainError(
      'PREVIOUS_REVISION_INVALID',
      `Revision ${valid.revision} must follow revision ${valid.revision - 1} by the same proposer, ended in CHANGES_REQUESTED, STALE, EXPIRED or FAILED.`,
      'revision',
    );
  }
  if (riskBelow(valid.riskLevel, previous.riskLevel)) {
    throw new DomainError(
      'RISK_BELOW_MINIMUM',
      `riskLevel ${valid.riskLevel} is below revision ${previous.revision}'s ${previous.riskLevel}: a revision may not lower the risk level; submit it as ${previous.riskLevel} or higher.`,
      'riskLevel',
    );
  }
  return previous;
}

/**
 * Submits a proposal. Idempotent: the same (batchId, recordId, revision) with the same content returns
 * the stored proposal (`created: false`); with other content it is refused (PROPOSAL_CONFLICT). A write
 * call on PostgreSQL (migration 20261203160000_proposal_submission_call); this form is SQLite's path.
 */
export async function submitProposal(
  deps: ProposalDeps,
  actor: Actor,
  input: NewProposal,
): Promise<{ proposal: Proposal; created: boolean }> {
  const valid = validateNewProposal(input);
  const actions = rulesOf(deps).actions;
  const floor = Object.hasOwn(actions, valid.action) ? actions[valid.action]?.minimumRisk : undefined;
  // approvers: 0 (a policy for this action or risk level; never HIGH or CRITICAL) approves it here, to be reviewed after execution.
  const { approvers, policy } = approversFor(deps.policies ?? DEFAULT_POLICIES, actions, valid.action, valid.riskLevel);
  const operationId = randomUUID();
  const key = { batchId: valid.batchId, recordId: valid.recordId };
  const work = async (tx: WriteTx, sql: TxSql) => {
    const now = deps.clock.now();
    const existing = await tx.proposal.findUnique({ where: { batchId_recordId_revision: { ...key, revision: valid.revision } } });
    if (existing) return { proposal: sameSubmission(existing, valid, actor), created: false };
    const facts: SubmissionFacts = {
      now,
      remembered: await rememberedTargetState(tx, valid.targetSystem, valid.targetId),
      ...(valid.revision > 1
        ? { previous: await tx.proposal.findUnique({ where: { batchId_recordId_revision: { ...key, revision: valid.revision - 1 } } }) }
        : { revisions: (await tx.proposal.count({ where: key })) > 0 }),
    };
    const previousId = checkSubmission(valid, actor, floor, facts)?.id ?? null;
    const submitted = await tx.proposal.create({
      data: {
        ...valid,
        previousId,
        proposedBy: actor.name,
        createdAt: now,
        approvalsRequired: approvers,
        autoApprovedBy: approvers === 0 ? policy : null,
      },
    });
    await proposalEvent(sql, submitted, 'PROPOSAL_SUBMITTED', actor.name, now, {
      batchId: submitted.batchId,
      recordId: submitted.recordId,
      action: submitted.action,
      riskLevel: submitted.riskLevel,
      target: `${submitted.targetSystem}/${submitted.targetId}`,
      previousId,
    });
    if (approvers > 0) return { proposal: submitted, created: true };
    const proposal = await move(tx, submitted, transition(submitted.state, 'AUTO_APPROVE'), {
      approvedAt: now,
      approvalExpiresAt: approvalExpiry(now, policyOf(deps, valid.riskLevel), valid.approvalValiditySeconds, valid.deadline),
      operationId,
    });
    await proposalEvent(sql, proposal, 'PROPOSAL_APPROVED', 'system', now, {
      from: submitted.state,
      policy,
      approvals: 0,
      approvalsRequired: 0,
      approvalExpiresAt: proposal.approvalExpiresAt?.toISOString() ?? null,
      operationId: proposal.operationId,
      reviewedAfterExecution: true,
    });
    return { proposal, created: true };
  };
  return deps.db.perform({
    work,
    call: {
      fields: {
        op: 'proposalSubmit',
        actor: actor.name,
        proposal: { ...valid, deadline: valid.deadline?.toISOString() ?? null },
        belowFloor: floor !== undefined && riskBelow(valid.riskLevel, floor),
        revisable: [...REVISABLE],
        risks: [...RISK_LEVELS],
        approvers,
        policy,
        autoApproved: transition('PENDING', 'AUTO_APPROVE'),
        validity: policyOf(deps, valid.riskLevel).validitySeconds,
        operationId,
      },
      clock: deps.clock,
      answer: (answer) => {
        if (answer.existing)
          return { proposal: sameSubmission(proposalFromJson(answer.proposal as JsonProposal), valid, actor), created: false };
        if (answer.refused) {
          checkSubmission(valid, actor, floor, {
            now: new Date(answer.at),
            remembered: answer.remembered ? targetStateFromJson(answer.remembered) : null,
            previous: answer.previous === undefined ? undefined : answer.previous && proposalFromJson(answer.previous),
            revisions: answer.revisions,
          });
          throw new Error('The database refused a submission the same rules allow.');
        }
        return { proposal: proposalFromJson(answer.proposal as JsonProposal), created: true };
      },
    },
  });
}
