// GraphQL for action proposals, oversight: hold and resume (stop safely; only an ADMIN restarts), escalate,
// and assign who should look at one. (Automatic escalation is the deadline announcer's work: no mutation.)
import { assignProposal, escalateProposal, holdProposal, resumeProposal } from '../../services/proposals/index.js';
import { audited, builder, refusals, requires } from '../builder.js';
import { deps, ProposalPayload, proposalIdOf } from './types.js';

const IdAndReason = (name: string, description: string, reason: string) =>
  builder.inputType(name, {
    description,
    fields: (f) => ({
      id: f.globalID({ required: true, description: 'The proposal’s global id.' }),
      reason: f.string({ required: true, description: reason }),
    }),
  });

builder.mutationFields((t) => ({
  holdProposal: t.field({
    type: ProposalPayload('HoldProposal', 'The proposal, ON_HOLD.'),
    authScopes: requires('Mutation', 'holdProposal', 'holdProposal'),
    description:
      'Stops a PENDING or APPROVED proposal without cancelling it (REVIEWER, EXECUTOR, RECONCILER or ADMIN): ON_HOLD, where nobody may claim, review or execute it until an ADMIN resumes it. An active review lease ends with the hold.',
    errors: refusals('HoldProposal'),
    args: {
      input: t.arg({
        required: true,
        description: 'Which and why.',
        type: IdAndReason(
          'HoldProposalInput',
          'The proposal to hold.',
          'Why it must stop (1–1000 characters); shown in its blockedReason.',
        ),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({
      proposal: await holdProposal(deps(context), context.actor, { id: proposalIdOf(input.id), reason: input.reason }),
    })),
  }),
  resumeProposal: t.field({
    type: ProposalPayload('ResumeProposal', 'The proposal after the hold: where it was held from, or EXPIRED.'),
    authScopes: requires('Mutation', 'resumeProposal', 'resumeProposal'),
    description:
      'Resumes a held proposal (ADMIN): back to PENDING or APPROVED, where it was held from, if its deadline has not passed and (from APPROVED) its approval is still valid; otherwise EXPIRED, approvals void.',
    errors: refusals('ResumeProposal'),
    args: {
      input: t.arg({
        required: true,
        description: 'Which and why.',
        type: IdAndReason('ResumeProposalInput', 'The proposal to resume.', 'Why it may go on (1–1000 characters).'),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({
      proposal: await resumeProposal(deps(context), context.actor, { id: proposalIdOf(input.id), reason: input.reason }),
    })),
  }),
  escalateProposal: t.field({
    type: ProposalPayload('EscalateProposal', 'The proposal, escalated (its state unchanged).'),
    authScopes: requires('Mutation', 'escalateProposal', 'escalateProposal'),
    description:
      'Escalates a proposal that is not final to a role or a principal, with a reason (REVIEWER, EXECUTOR, RECONCILER or ADMIN); recorded as PROPOSAL_ESCALATED. Decides nothing.',
    errors: refusals('EscalateProposal'),
    args: {
      input: t.arg({
        required: true,
        description: 'Which, why and to whom.',
        type: builder.inputType('EscalateProposalInput', {
          description: 'The proposal to escalate.',
          fields: (f) => ({
            id: f.globalID({ required: true, description: 'The proposal’s global id.' }),
            reason: f.string({ required: true, description: 'Why (1–1000 characters).' }),
            to: f.string({ required: true, description: 'A role (e.g. ADMIN, RECONCILER) or a principal’s name (1–100 characters).' }),
          }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({
      proposal: await escalateProposal(deps(context), context.actor, { id: proposalIdOf(input.id), reason: input.reason, to: input.to }),
    })),
  }),
  assignProposal: t.field({
    type: ProposalPayload('AssignProposal', 'The proposal with its new assignee.'),
    authScopes: requires('Mutation', 'assignProposal', 'assignProposal'),
    description:
      'Names who should look at a proposal that is not final (REVIEWER or ADMIN), or nobody with `assignee: null`. Not a lease: it grants and reserves nothing.',
    errors: refusals('AssignProposal'),
    args: {
      input: t.arg({
        required: true,
        description: 'Which and to whom.',
        type: builder.inputType('AssignProposalInput', {
          description: 'The proposal and its assignee.',
          fields: (f) => ({
            id: f.globalID({ required: true, description: 'The proposal’s global id.' }),
            assignee: f.string({ required: false, description: 'A principal’s name (1–100 characters); null clears it.' }),
          }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({
      proposal: await assignProposal(deps(context), context.actor, { id: proposalIdOf(input.id), assignee: input.assignee ?? null }),
    })),
  }),
}));
