// GraphQL for action proposals, review after execution: the auto-approval and after-review fields of a
// proposal, and the reviewExecutedProposal mutation.
import { AFTER_REVIEW_STATES, type AfterReviewState } from '../../domain/auto-execution.js';
import { reviewExecutedProposal } from '../../services/proposals/index.js';
import { audited, builder, refusals, requires } from '../builder.js';
import { deps, ProposalPayload, ProposalRef, proposalIdOf } from './types.js';

export const AfterReviewEnum = builder.enumType('AfterReview', {
  description: 'Where a proposal stands in its review after execution (proposals a policy approved at submission: approvers: 0).',
  values: Object.fromEntries(Object.entries(AFTER_REVIEW_STATES).map(([state, description]) => [state, { description }])) as Record<
    AfterReviewState,
    { description: string }
  >,
});

const AfterReviewVerdictEnum = builder.enumType('AfterReviewVerdict', {
  description: 'A review after execution.',
  values: {
    CONFIRMED: { description: 'What was done was right.' },
    PROBLEM: { description: 'Something is wrong with what was done; say what in `comment`.' },
  },
});

builder.objectFields(ProposalRef, (t) => ({
  autoApprovedBy: t.exposeString('autoApprovedBy', {
    nullable: true,
    description:
      'The policy that approved it at submission (approvers: 0), e.g. "PROPOSAL_ACTIONS.restock.approvers.LOW" or "APPROVAL_POLICIES.LOW"; null when people approved it.',
  }),
  afterReview: t.field({
    type: AfterReviewEnum,
    description: 'Its review after execution: PENDING once a proposal a policy approved is EXECUTED, then CONFIRMED or PROBLEM.',
    resolve: (p) => p.afterReview,
  }),
  afterReviewedBy: t.exposeString('afterReviewedBy', { nullable: true, description: 'Who reviewed it after execution.' }),
  afterReviewedAt: t.expose('afterReviewedAt', { type: 'DateTime', nullable: true, description: 'When it was reviewed after execution.' }),
}));

builder.mutationFields((t) => ({
  reviewExecutedProposal: t.field({
    type: ProposalPayload('ReviewExecutedProposal', 'The proposal with its review after execution.'),
    authScopes: requires('Mutation', 'reviewExecutedProposal', 'reviewProposal'),
    description:
      'Reviews a proposal a policy approved at submission (approvers: 0) after it was EXECUTED (afterReview PENDING): CONFIRMED, or PROBLEM with a comment. Once; never your own proposal.',
    errors: refusals('ReviewExecutedProposal'),
    args: {
      input: t.arg({
        required: true,
        description: 'Which proposal and the verdict.',
        type: builder.inputType('ReviewExecutedProposalInput', {
          description: 'A review after execution.',
          fields: (f) => ({
            id: f.globalID({ required: true, description: 'The proposal’s global id.' }),
            verdict: f.field({ type: AfterReviewVerdictEnum, required: true, description: 'CONFIRMED or PROBLEM.' }),
            comment: f.string({ description: 'Required with PROBLEM, optional with CONFIRMED (1–1000 characters); kept in the event.' }),
          }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({
      proposal: await reviewExecutedProposal(deps(context), context.actor, { ...input, id: proposalIdOf(input.id) }),
    })),
  }),
}));
