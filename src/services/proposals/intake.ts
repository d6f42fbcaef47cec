// Action proposals, intake: submitting a proposal or its next revision. Owns the submission's validation,
// its idempotency on (batchId, recordId, revision) and the rule for which revision may follow which.
import type { Proposal } from '../../db/client.js';
import { DomainError } from '../../domain/errors.js';
import { type ProposalState, RISK_LEVELS, type RiskLevel } from '../../domain/proposal.js';
import { riskBelow } from '../../domain/proposal-rules.js';
import { LIMITS, validateText } from '../../domain/validation.js';
import type { Actor } from '../context.js';
import { jsonText, PROPOSAL_LIMITS, type ProposalDeps, policyOf, proposalEvent, rulesOf } from './shared.js';

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
  'riskLevel',
  'fingerprint',
] as const;

/** States after which the proposer may submit the next revision. */
const REVISABLE: ReadonlySet<ProposalState> = new Set(['CHANGES_REQUESTED', 'STALE', 'EXPIRED', 'FAILED']);

/**
 * Submits a proposal. Idempotent: the same (batchId, recordId, revision) with the same content returns
 * the stored proposal (`created: false`); with other content it is refused (PROPOSAL_CONFLICT).
 */
export async function submitProposal(
  deps: ProposalDeps,
  actor: Actor,
  input: NewProposal,
): Promise<{ proposal: Proposal; created: boolean }> {
  const valid = validateNewProposal(input);
  return deps.db.write(async (tx, sql) => {
    const now = deps.clock.now();
    const existing = await tx.proposal.findUnique({
      where: { batchId_recordId_revision: { batchId: valid.batchId, recordId: valid.recordId, revision: valid.revision } },
    });
    if (existing) {
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
      return { proposal: existing, created: false };
    }
    // Checked only for a new proposal: a retry of an accepted submission returns it even after its deadline.
    if (valid.deadline && valid.deadline.getTime() <= now.getTime()) {
      throw new DomainError('INVALID_ARGUMENT', 'deadline must be in the future.', 'deadline');
    }
    // Risk is not the proposer's to lower: the action's configured floor (PROPOSAL_ACTIONS), then the previous revision's level.
    const floor = Object.hasOwn(rulesOf(deps).actions, valid.action) ? rulesOf(deps).actions[valid.action]?.minimumRisk : undefined;
    if (floor && riskBelow(valid.riskLevel, floor)) {
      throw new DomainError(
        'RISK_BELOW_MINIMUM',
        `riskLevel ${valid.riskLevel} is below the minimum ${floor} configured for the action "${valid.action}" (PROPOSAL_ACTIONS); submit it as ${floor} or higher.`,
        'riskLevel',
      );
    }
    let previousId: number | null = null;
    if (valid.revision > 1) {
      const previous = await tx.proposal.findUnique({
        where: { batchId_recordId_revision: { batchId: valid.batchId, recordId: valid.recordId, revision: valid.revision - 1 } },
      });
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
      previousId = previous.id;
    } else {
      const later = await tx.proposal.count({ where: { batchId: valid.batchId, recordId: valid.recordId } });
      if (later > 0) throw new DomainError('PROPOSAL_CONFLICT', 'This (batchId, recordId) already has revisions.', 'revision');
    }
    const proposal = await tx.proposal.create({
      data: { ...valid, previousId, proposedBy: actor.name, createdAt: now, approvalsRequired: policyOf(deps, valid.riskLevel).approvers },
    });
    await proposalEvent(sql, proposal, 'PROPOSAL_SUBMITTED', actor.name, now, {
      batchId: proposal.batchId,
      recordId: proposal.recordId,
      action: proposal.action,
      riskLevel: proposal.riskLevel,
      target: `${proposal.targetSystem}/${proposal.targetId}`,
      previousId,
    });
    return { proposal, created: true };
  });
}
