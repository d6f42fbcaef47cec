// Read side of action proposals: lookups, filtered lists, approvals and attempts, on the read-only connection.
import type { ExecutionAttempt, Proposal, ProposalApproval } from '../db/client.js';
import { type ProposalFilter, proposalPageRead, runPageRead } from '../db/page-reads.js';
import { LIMITS, validateText } from '../domain/validation.js';
import type { ServiceDeps } from './context.js';
import type { PageRequest } from './queries.js';

export type { ProposalFilter } from '../db/page-reads.js';

/** One page of proposals, read along an index in page order (db/page-reads.ts). */
export function listProposals(deps: ServiceDeps, filter: ProposalFilter, page: PageRequest): Promise<Proposal[]> {
  const text = (value: string | null | undefined, field: string) => (value == null ? value : validateText(value, field, LIMITS.batchId));
  const checked: ProposalFilter = {
    ...filter,
    proposedBy: text(filter.proposedBy, 'filter.proposedBy'),
    holder: text(filter.holder, 'filter.holder'),
    targetSystem: text(filter.targetSystem, 'filter.targetSystem'),
    targetId: text(filter.targetId, 'filter.targetId'),
    batchId: text(filter.batchId, 'filter.batchId'),
    assignee: text(filter.assignee, 'filter.assignee'),
  };
  return runPageRead<Proposal>(
    (sql, ...params) => deps.db.query(sql, ...params),
    proposalPageRead(checked, page, deps.clock.now(), deps.db.dialect),
  );
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
