// Action proposals, review after execution: a proposal a policy approved at submission (approvers: 0) runs
// through the same exactly-once execution, and once EXECUTED waits for an approver to review what was done
// (CONFIRMED or PROBLEM), recorded as PROPOSAL_REVIEWED_AFTER. A write call on PostgreSQL (migration
// 20261203200000_reconcile_and_after_review_calls).
import type { Proposal } from '../../db/client.js';
import { AFTER_REVIEW_VERDICTS, type AfterReviewVerdict, reviewAfter } from '../../domain/auto-execution.js';
import { DomainError } from '../../domain/errors.js';
import { LIMITS, validateText } from '../../domain/validation.js';
import type { Actor } from '../context.js';
import { changedProposal, move, type ProposalDeps, proposalEvent, proposalNotFound } from './shared.js';

/**
 * An approver reviews an automatically approved proposal after it was executed: CONFIRMED, or PROBLEM with a
 * comment saying what is wrong. Once per proposal; never by its proposer.
 */
export async function reviewExecutedProposal(
  deps: ProposalDeps,
  actor: Actor,
  input: { id: number; verdict: string; comment?: string | null },
): Promise<Proposal> {
  if (!(AFTER_REVIEW_VERDICTS as readonly string[]).includes(input.verdict)) {
    throw new DomainError('INVALID_ARGUMENT', `verdict must be one of ${AFTER_REVIEW_VERDICTS.join(', ')}.`, 'verdict');
  }
  const verdict = input.verdict as AfterReviewVerdict;
  if (verdict === 'PROBLEM' && (input.comment == null || input.comment === '')) {
    throw new DomainError('INVALID_TEXT', 'A PROBLEM verdict needs a comment saying what is wrong (1–1000 characters).', 'comment');
  }
  const comment = input.comment == null ? null : validateText(input.comment, 'comment', LIMITS.reason);
  const refuse = (current: Proposal | null): Proposal => {
    if (!current) throw proposalNotFound(input.id);
    if (current.proposedBy === actor.name) {
      throw new DomainError('SELF_APPROVAL', 'You proposed this; another reviewer must review it after execution.', 'id');
    }
    reviewAfter(current.afterReview, verdict, current.state);
    return current;
  };
  return deps.db.perform({
    work: async (tx, sql) => {
      const now = deps.clock.now();
      const current = refuse(await tx.proposal.findUnique({ where: { id: input.id } }));
      const afterReview = reviewAfter(current.afterReview, verdict, current.state);
      const proposal = await move(tx, current, current.state, { afterReview, afterReviewedBy: actor.name, afterReviewedAt: now });
      await proposalEvent(sql, proposal, 'PROPOSAL_REVIEWED_AFTER', actor.name, now, {
        reviewer: actor.name,
        verdict,
        comment,
        from: current.afterReview,
        policy: current.autoApprovedBy,
        operationId: current.operationId,
      });
      return proposal;
    },
    call: {
      fields: { op: 'proposalReviewAfter', id: input.id, actor: actor.name, verdict, comment },
      clock: deps.clock,
      answer: (answer) => changedProposal(answer, refuse),
    },
  });
}
