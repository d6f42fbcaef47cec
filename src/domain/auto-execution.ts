// Action proposals, auto-execution with review afterwards (seed B: routine, reversible, limited operations
// may run automatically, be recorded and reviewed afterwards): which policy needs no approver before
// execution, and the review that follows it. Pure rules; the services apply them.
import { DomainError } from './errors.js';
import type { Policies, RiskLevel } from './proposal.js';
import type { ProposalActions } from './proposal-rules.js';

/** Risk levels that are always approved by people before execution: no setting may give them approvers: 0. */
export const ALWAYS_APPROVED_BEFORE: ReadonlySet<RiskLevel> = new Set<RiskLevel>(['HIGH', 'CRITICAL']);

/** Where a proposal stands in its review after execution. */
export const AFTER_REVIEW_STATES = {
  NOT_NEEDED:
    'No review afterwards: people approved it before execution, or it was approved by a policy and has not been executed (it becomes PENDING when it is).',
  PENDING: 'Approved by a policy (approvers: 0) and EXECUTED: an approver (REVIEWER, not its proposer) must review it afterwards.',
  CONFIRMED: 'Reviewed after execution: what was done was right.',
  PROBLEM: 'Reviewed after execution: the reviewer reported a problem (see the comment in PROPOSAL_REVIEWED_AFTER).',
} as const;

export type AfterReviewState = keyof typeof AFTER_REVIEW_STATES;

export const AFTER_REVIEW_VERDICTS = ['CONFIRMED', 'PROBLEM'] as const;
export type AfterReviewVerdict = (typeof AFTER_REVIEW_VERDICTS)[number];

/**
 * How many approvers a proposal of `action` at `risk` needs before execution, and the setting that says
 * so (named in the approval's event). PROPOSAL_ACTIONS' per-action `approvers` wins over APPROVAL_POLICIES.
 * HIGH and CRITICAL never get fewer than one, whatever a setting says (the configuration refuses it too).
 */
export function approversFor(
  policies: Policies,
  actions: ProposalActions,
  action: string,
  risk: RiskLevel,
): { approvers: number; policy: string } {
  const own = Object.hasOwn(actions, action) ? actions[action]?.approvers?.[risk] : undefined;
  const found =
    own === undefined
      ? { approvers: policies[risk].approvers, policy: `APPROVAL_POLICIES.${risk}` }
      : { approvers: own, policy: `PROPOSAL_ACTIONS.${action}.approvers.${risk}` };
  return ALWAYS_APPROVED_BEFORE.has(risk) && found.approvers < 1 ? { ...found, approvers: 1 } : found;
}

/** The review after execution `verdict` gives a proposal whose review stands at `current`, or a refusal. */
export function reviewAfter(current: AfterReviewState, verdict: AfterReviewVerdict, proposalState: string): AfterReviewState {
  if (current !== 'PENDING') {
    throw new DomainError(
      'PROPOSAL_STATE_CONFLICT',
      current === 'NOT_NEEDED'
        ? `This proposal needs no review after execution (it is ${proposalState}; only a proposal approved by a policy with approvers: 0 and then EXECUTED does).`
        : `This proposal was already reviewed after execution (${current}); a review afterwards is given once.`,
    );
  }
  return verdict;
}
