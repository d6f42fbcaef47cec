// GraphQL for action proposals, intake: the submitProposal mutation (a proposal or its next revision).
import type { Proposal } from '../../db/client.js';
import { submitProposal } from '../../services/proposals/index.js';
import { audited, builder, refusals, requires } from '../builder.js';
import { deps, ProposalRef, RiskLevelEnum, TargetInput, targetRecordId } from './types.js';

// Reviewer context (seed B): part of the revision, so an approval covers exactly these.
builder.objectFields(ProposalRef, (t) => ({
  impact: t.exposeString('impact', { nullable: true, description: 'What it changes and for whom, as the proposer put it.' }),
  constraints: t.exposeString('constraints', { nullable: true, description: 'Limits the executor must respect.' }),
  rule: t.exposeString('rule', { nullable: true, description: 'The rule or policy that produced it, and its explanation.' }),
}));

builder.mutationFields((t) => ({
  submitProposal: t.field({
    type: builder.objectRef<{ proposal: Proposal; created: boolean }>('SubmitProposalPayload').implement({
      description: 'The proposal; `created` is false when the same submission was already stored (idempotent intake).',
      fields: (f) => ({
        proposal: f.field({ type: ProposalRef, description: 'The stored proposal.', resolve: (p) => p.proposal }),
        created: f.exposeBoolean('created', {
          description: 'False when this (batchId, recordId, revision) already existed with the same content.',
        }),
      }),
    }),
    authScopes: requires('Mutation', 'submitProposal', 'submitProposal'),
    description: 'Submits an action proposal, or the next revision of one. Idempotent on (batchId, recordId, revision).',
    errors: refusals('SubmitProposal'),
    args: {
      input: t.arg({
        required: true,
        description: 'The proposal.',
        type: builder.inputType('SubmitProposalInput', {
          description: 'An action to approve. JSON values are limited to 16 KiB each.',
          fields: (f) => ({
            batchId: f.string({ required: true, description: 'Batch id, 1–100 characters.' }),
            recordId: f.string({ required: true, description: 'Record id, 1–100 characters.' }),
            revision: f.int({
              defaultValue: 1,
              description: '1 for a new proposal; n + 1 after revision n ended CHANGES_REQUESTED, STALE, EXPIRED or FAILED.',
            }),
            action: f.string({ required: true, description: 'The operation, 1–100 characters.' }),
            parameters: f.field({ type: 'JSONObject', required: true, description: 'Its parameters (a JSON object).' }),
            reason: f.string({ required: true, description: 'Why, 1–1000 characters.' }),
            target: f.field({ type: TargetInput, required: true, description: 'What it affects.' }),
            currentValue: f.field({ type: 'JSON', description: 'The target’s value now.' }),
            proposedValue: f.field({ type: 'JSON', description: 'The value after the action.' }),
            dataSource: f.string({ required: true, description: 'Where the data came from, 1–200 characters.' }),
            impact: f.string({ description: 'What it changes and for whom, for the reviewer (1–2000 characters).' }),
            constraints: f.string({ description: 'Limits the executor must respect (1–2000 characters).' }),
            rule: f.string({
              description: 'The rule or policy that produced it, with the explanation a reviewer needs to apply it (1–2000 characters).',
            }),
            riskLevel: f.field({ type: RiskLevelEnum, required: true, description: 'Picks the approval policy.' }),
            fingerprint: f.string({
              required: true,
              description: 'The target data’s fingerprint as you saw it (1–200 characters; required).',
            }),
            approvalValiditySeconds: f.int({ description: 'Shorten the policy’s approval window (60 s – 30 days).' }),
            deadline: f.field({ type: 'DateTime', description: 'Expire if not executed by then.' }),
          }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) =>
      submitProposal(deps(context), context.actor, {
        ...input,
        targetSystem: input.target.system,
        targetId: targetRecordId(input.target),
        currentValue: input.currentValue ?? null,
        proposedValue: input.proposedValue ?? null,
      }),
    ),
  }),
}));
