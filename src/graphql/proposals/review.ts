// GraphQL for action proposals, review: the review lease mutations (claim, renew, release), the
// reviewer's decision and cancellation.
import type { Proposal } from '../../db/client.js';
import { cancelProposal, claimProposal, releaseProposalLease, renewProposalLease, reviewProposal } from '../../services/proposals/index.js';
import { audited, builder, refusals, requires } from '../builder.js';
import { deps, IssuedProposalLease, ProposalPayload, ProposalRef, proposalIdOf, RiskLevelEnum } from './types.js';

const ReviewDecisionEnum = builder.enumType('ProposalReviewDecision', {
  description: 'A reviewer’s decision on a proposal.',
  values: {
    APPROVE: { description: 'Approve the exact revision named in `revision`.' },
    REJECT: { description: 'Reject it; give a `reason`.' },
    REQUEST_CHANGES: { description: 'Ask the proposer for a new revision; give a `reason`.' },
  },
});

builder.mutationFields((t) => ({
  claimProposal: t.field({
    type: builder.objectRef<{ claim: { proposal: Proposal; token: string } | null }>('ClaimProposalPayload').implement({
      description: 'The proposal now under your review lease, or `claimed: false` when none is waiting for you.',
      fields: (f) => ({
        claimed: f.boolean({ description: 'False when nothing is claimable.', resolve: (p) => p.claim !== null }),
        proposal: f.field({ type: ProposalRef, nullable: true, description: 'The proposal.', resolve: (p) => p.claim?.proposal ?? null }),
        lease: f.field({
          type: IssuedProposalLease,
          nullable: true,
          description: 'The lease, with its one-time token.',
          resolve: (p) => p.claim,
        }),
      }),
    }),
    authScopes: requires('Mutation', 'claimProposal', 'reviewProposal'),
    description:
      'Leases the next pending proposal for review (earliest deadline, then oldest), or the one named by `id`; never your own or one you approved.',
    errors: refusals('ClaimProposal'),
    args: {
      input: t.arg({
        required: true,
        description: 'Lease length and optional risk levels.',
        type: builder.inputType('ClaimProposalInput', {
          description: 'How long, and which risk levels.',
          fields: (f) => ({
            leaseSeconds: f.int({ defaultValue: 300, description: '30–3600 seconds.' }),
            riskLevels: f.field({ type: [RiskLevelEnum], description: 'Only these risk levels.' }),
            id: f.globalID({
              description:
                'This proposal rather than the next: claimed if you may review it now, otherwise refused saying why (not PENDING, your own, already approved by you, under another lease, past its deadline). `riskLevels` then does not apply.',
            }),
          }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({
      claim: await claimProposal(deps(context), context.actor, { ...input, id: input.id ? proposalIdOf(input.id) : null }),
    })),
  }),
  renewProposalLease: t.field({
    type: ProposalPayload('RenewProposalLease', 'The proposal with its new lease expiry.'),
    authScopes: requires('Mutation', 'renewProposalLease', 'renewProposalLease'),
    description: 'Renews a review or execution lease from now.',
    errors: refusals('RenewProposalLease'),
    args: {
      input: t.arg({
        required: true,
        description: 'The lease.',
        type: builder.inputType('RenewProposalLeaseInput', {
          description: 'The lease to renew.',
          fields: (f) => ({
            token: f.string({ required: true, description: 'The lease token.' }),
            leaseSeconds: f.int({ defaultValue: 300, description: '30–3600 seconds from now.' }),
          }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({ proposal: await renewProposalLease(deps(context), context.actor, input) })),
  }),
  releaseProposalLease: t.field({
    type: ProposalPayload('ReleaseProposalLease', 'The proposal, claimable again.'),
    authScopes: requires('Mutation', 'releaseProposalLease', 'reviewProposal'),
    description: 'Gives a proposal back undecided (review leases only).',
    errors: refusals('ReleaseProposalLease'),
    args: {
      input: t.arg({
        required: true,
        description: 'The lease.',
        type: builder.inputType('ReleaseProposalLeaseInput', {
          description: 'The lease to release.',
          fields: (f) => ({ token: f.string({ required: true, description: 'The review lease token.' }) }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({ proposal: await releaseProposalLease(deps(context), context.actor, input) })),
  }),
  reviewProposal: t.field({
    type: ProposalPayload('ReviewProposal', 'The proposal after the decision; the review lease has ended.'),
    authScopes: requires('Mutation', 'reviewProposal', 'reviewProposal'),
    description: 'Approves the exact revision you reviewed, rejects, or requests changes. Reviewers never edit parameters.',
    errors: refusals('ReviewProposal'),
    args: {
      input: t.arg({
        required: true,
        description: 'The decision.',
        type: builder.inputType('ReviewProposalInput', {
          description: 'The lease, the decision and what it was based on.',
          fields: (f) => ({
            token: f.string({ required: true, description: 'The review lease token.' }),
            decision: f.field({ type: ReviewDecisionEnum, required: true, description: 'APPROVE, REJECT or REQUEST_CHANGES.' }),
            revision: f.int({ description: 'APPROVE: the revision you reviewed (a different current revision refuses it).' }),
            fingerprint: f.string({ description: 'APPROVE: optionally, the fingerprint you saw; compared too.' }),
            reason: f.string({ description: 'REJECT and REQUEST_CHANGES: why (1–1000 characters).' }),
            comment: f.string({
              description:
                'Optional with any decision, e.g. an approval’s conditions (1–1000 characters): kept in the decision’s event (`details.comment`).',
            }),
          }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({ proposal: await reviewProposal(deps(context), context.actor, input) })),
  }),
  cancelProposal: t.field({
    type: ProposalPayload('CancelProposal', 'The cancelled proposal.'),
    authScopes: requires('Mutation', 'cancelProposal', 'cancelProposal'),
    description: 'Withdraws a pending or approved proposal: its proposer, or an admin. Approvals are void.',
    errors: refusals('CancelProposal'),
    args: {
      input: t.arg({
        required: true,
        description: 'Which and why.',
        type: builder.inputType('CancelProposalInput', {
          description: 'The proposal to cancel.',
          fields: (f) => ({
            id: f.globalID({ required: true, description: 'The proposal’s global id.' }),
            reason: f.string({ required: true, description: 'Why (1–1000 characters).' }),
          }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({
      proposal: await cancelProposal(
        deps(context),
        { ...context.actor, isAdmin: context.principal.roles.has('ADMIN') },
        { id: proposalIdOf(input.id), reason: input.reason },
      ),
    })),
  }),
}));
