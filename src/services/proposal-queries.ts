// Read side of action proposals: lookups, filtered lists, approvals and attempts, on the read-only connection.
import type { ExecutionAttempt, Proposal, ProposalApproval, ProposalStateColumn, RiskLevelColumn } from '../db/client.js';
import { LIMITS, validateText } from '../domain/validation.js';
import type { ServiceDeps } from './context.js';
import { idRange, type PageRequest } from './queries.js';

export interface ProposalFilter {
  states?: readonly ProposalStateColumn[] | null;
  riskLevels?: readonly RiskLevelColumn[] | null;
  proposedBy?: string | null;
  /** Only proposals this principal holds under an unexpired (review or execution) lease. */
  holder?: string | null;
  targetSystem?: string | null;
  targetId?: string | null;
  batchId?: string | null;
  createdBefore?: Date | null;
  createdAfter?: Date | null;
  deadlineBefore?: Date | null;
}

export function listProposals(deps: ServiceDeps, filter: ProposalFilter, page: PageRequest): Promise<Proposal[]> {
  const now = deps.clock.now();
  const text = (value: string | null | undefined, field: string) =>
    value == null ? undefined : validateText(value, field, LIMITS.batchId);
  return deps.db.read.proposal.findMany({
    where: {
      id: idRange(page),
      ...(filter.states?.length ? { state: { in: [...filter.states] } } : {}),
      ...(filter.riskLevels?.length ? { riskLevel: { in: [...filter.riskLevels] } } : {}),
      ...(filter.proposedBy != null ? { proposedBy: text(filter.proposedBy, 'filter.proposedBy') } : {}),
      ...(filter.holder != null ? { claimedBy: text(filter.holder, 'filter.holder'), leaseExpiresAt: { gt: now } } : {}),
      ...(filter.targetSystem != null ? { targetSystem: text(filter.targetSystem, 'filter.targetSystem') } : {}),
      ...(filter.targetId != null ? { targetId: text(filter.targetId, 'filter.targetId') } : {}),
      ...(filter.batchId != null ? { batchId: text(filter.batchId, 'filter.batchId') } : {}),
      createdAt: {
        ...(filter.createdAfter ? { gte: filter.createdAfter } : {}),
        ...(filter.createdBefore ? { lt: filter.createdBefore } : {}),
      },
      ...(filter.deadlineBefore ? { deadline: { lt: filter.deadlineBefore } } : {}),
    },
    orderBy: { id: page.inverted ? 'desc' : 'asc' },
    take: page.limit,
  });
}

export function findProposalsByIds(deps: ServiceDeps, ids: readonly number[]): Promise<Proposal[]> {
  return deps.db.read.proposal.findMany({ where: { id: { in: [...ids] } } });
}

export function approvalsOf(deps: ServiceDeps, proposalId: number): Promise<ProposalApproval[]> {
  return deps.db.read.proposalApproval.findMany({ where: { proposalId }, orderBy: { id: 'asc' } });
}

export function attemptsOf(deps: ServiceDeps, proposalId: number): Promise<ExecutionAttempt[]> {
  return deps.db.read.executionAttempt.findMany({ where: { proposalId }, orderBy: { number: 'asc' } });
}

export function nextRevisionOf(deps: ServiceDeps, proposalId: number): Promise<Proposal | null> {
  return deps.db.read.proposal.findUnique({ where: { previousId: proposalId } });
}
