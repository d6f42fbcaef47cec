// GraphQL for action proposals, recovery: a reconciler's reconciliation of an OUTCOME_UNKNOWN execution.
// (Deadlines and lapsed leases are the timer's work, src/events/proposal-announcer.ts: no mutation.)
import { reconcileProposal } from '../../services/proposals/index.js';
import { audited, builder, refusals, requires } from '../builder.js';
import { deps, ProposalPayload, proposalIdOf } from './types.js';

builder.mutationFields((t) => ({
  reconcileProposal: t.field({
    type: ProposalPayload('ReconcileProposal', 'The proposal after reconciliation.'),
    authScopes: requires('Mutation', 'reconcileProposal', 'reconcileProposal'),
    description:
      'Settles an OUTCOME_UNKNOWN (RECONCILER; never one you proposed or executed): executed, with evidence; or not executed, which returns it to APPROVED only if the approval is still valid and the fingerprint still matches (else EXPIRED or STALE).',
    errors: refusals('ReconcileProposal'),
    args: {
      input: t.arg({
        required: true,
        description: 'What the remote system says.',
        type: builder.inputType('ReconcileProposalInput', {
          description: 'The finding.',
          fields: (f) => ({
            id: f.globalID({ required: true, description: 'The proposal’s global id.' }),
            executed: f.boolean({ required: true, description: 'Whether the effect took place.' }),
            evidence: f.string({
              required: true,
              description: 'How you know (1–2000 characters), e.g. the remote record for the operation id.',
            }),
            fingerprint: f.string({ description: 'Not executed: the target’s fingerprint now (required).' }),
          }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({
      proposal: await reconcileProposal(deps(context), context.actor, { ...input, id: proposalIdOf(input.id) }),
    })),
  }),
}));
