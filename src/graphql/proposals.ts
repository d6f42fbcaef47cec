// GraphQL for action proposals (seed B): the Proposal node, its queries, the review and execution
// mutations, and the proposal event stream.
import type { ExecutionAttempt, Proposal, ProposalApproval } from '../db/client.js';
import { DomainError } from '../domain/errors.js';
import { blockedReason, PROPOSAL_STATES, type ProposalState, RISK_LEVELS, type RiskLevel } from '../domain/proposal.js';
import { eventStream } from '../events/streams.js';
import { approvalsOf, attemptsOf, findProposalsByIds, listProposals, nextRevisionOf } from '../services/proposal-queries.js';
import { type ProposalStats, proposalStats } from '../services/proposal-stats.js';
import {
  cancelProposal,
  claimExecution,
  claimProposal,
  type ExecutionOutcome,
  type ProposalDeps,
  reconcileProposal,
  recordManualExecution,
  releaseProposalLease,
  renewProposalLease,
  reportExecutionResult,
  reportTargetState,
  reviewProposal,
  startExecutionAttempt,
  submitProposal,
} from '../services/proposals.js';
import { listEvents } from '../services/queries.js';
import { holderFilter, renamedTo } from './aliases.js';
import { audited, builder, refusals, requires } from './builder.js';
import type { GraphQLContext } from './context.js';
import { loadByIds } from './loaders.js';
import { resolveConnection } from './pagination.js';
import { AFTER_DESCRIPTION, checkAfter } from './replay.js';
import { EventConnection, EventRef } from './types/refs.js';

export const ProposalRef = builder.objectRef<Proposal>('Proposal');

const ProposalStateEnum = builder.enumType('ProposalState', {
  description: 'Where an action proposal is in its approval and execution.',
  values: Object.fromEntries(Object.entries(PROPOSAL_STATES).map(([state, description]) => [state, { description }])) as Record<
    ProposalState,
    { description: string }
  >,
});

const RiskLevelEnum = builder.enumType('RiskLevel', {
  description: 'How much harm a wrong execution could do; picks the approval policy (approvers, validity, executor separation).',
  values: Object.fromEntries(RISK_LEVELS.map((risk) => [risk, { description: `Risk level ${risk}.` }])) as Record<
    RiskLevel,
    { description: string }
  >,
});

const deps = (context: GraphQLContext): ProposalDeps => ({ db: context.db, clock: context.clock, policies: context.policies });

const ApprovalRef = builder.objectRef<ProposalApproval>('ProposalApproval').implement({
  description: 'One reviewer’s approval of one revision.',
  fields: (t) => ({
    approver: t.exposeString('approver', { description: 'Who approved.' }),
    approvedAt: t.expose('approvedAt', { type: 'DateTime', description: 'When.' }),
    voidedAt: t.expose('voidedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it stopped counting (stale, expired, cancelled), if it did.',
    }),
    voidReason: t.exposeString('voidReason', { nullable: true, description: 'Why it stopped counting.' }),
  }),
});

const AttemptRef = builder.objectRef<ExecutionAttempt>('ExecutionAttempt').implement({
  description: 'One attempt to carry out an approved proposal.',
  fields: (t) => ({
    number: t.exposeInt('number', { description: '1 for the first attempt of this proposal.' }),
    operationId: t.exposeString('operationId', {
      description: 'The idempotency key passed to the remote system (the same for every attempt of one approval).',
    }),
    executor: t.exposeString('executor', { description: 'Who ran it.' }),
    correlationId: t.exposeString('correlationId', { nullable: true, description: 'The remote system’s id for the request, if given.' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', description: 'When the fingerprint was checked and the attempt began.' }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true, description: 'When its result was reported.' }),
    outcome: t.exposeString('outcome', {
      nullable: true,
      description: 'SUCCEEDED, FAILED_BEFORE_SEND, REJECTED_BY_REMOTE or UNKNOWN; null while running.',
    }),
    response: t.field({
      type: 'JSON',
      nullable: true,
      description: 'What the remote system answered, as reported by the executor.',
      resolve: (attempt) => (attempt.response === null ? null : (JSON.parse(attempt.response) as unknown)),
    }),
  }),
});

// No `id` field: every `id` in this schema is a global id, which normalized client caches (Apollo, urql
// Graphcache) key objects by; a record id shared by two systems would make them one cached object.
const TargetRef = builder.objectRef<{ system: string; recordId: string }>('ProposalTarget').implement({
  description: 'What the action affects: a record in another system. A value, not an object of its own (no global id).',
  fields: (t) => ({
    system: t.exposeString('system', { description: 'The system that holds the data (e.g. "billing").' }),
    recordId: t.exposeString('recordId', { description: 'The record in that system (unique only within it).' }),
  }),
});

builder.node(ProposalRef, {
  description: 'An action an automated system wants to take, waiting for human approval; one revision of it.',
  id: { resolve: (proposal) => proposal.id },
  isTypeOf: (value) => typeof value === 'object' && value !== null && 'fingerprint' in value && 'action' in value,
  loadMany: loadByIds(findProposalsByIds),
  fields: (t) => ({
    batchId: t.exposeString('batchId', { description: 'With recordId and revision, the proposer’s idempotency key.' }),
    recordId: t.exposeString('recordId', { description: 'The proposer’s record id.' }),
    revision: t.exposeInt('revision', {
      description: '1 for the first; each CHANGES_REQUESTED, STALE, EXPIRED or FAILED revision may be followed by the next.',
    }),
    previousRevision: t.field({
      type: ProposalRef,
      nullable: true,
      description: 'The revision this one replaces.',
      resolve: async (proposal, _args, context) =>
        proposal.previousId === null ? null : ((await findProposalsByIds(context, [proposal.previousId]))[0] ?? null),
    }),
    nextRevision: t.field({
      type: ProposalRef,
      nullable: true,
      description: 'The revision that replaced this one.',
      resolve: (proposal, _args, context) => nextRevisionOf(context, proposal.id),
    }),
    action: t.exposeString('action', { description: 'The operation to carry out (e.g. "refund").' }),
    parameters: t.field({
      type: 'JSONObject',
      description: 'Its parameters. Reviewers cannot edit them.',
      resolve: (p) => JSON.parse(p.parameters) as Record<string, unknown>,
    }),
    reason: t.exposeString('reason', { description: 'Why the proposer wants it.' }),
    target: t.field({
      type: TargetRef,
      description: 'What it affects.',
      resolve: (p) => ({ system: p.targetSystem, recordId: p.targetId }),
    }),
    currentValue: t.field({
      type: 'JSON',
      nullable: true,
      description: 'The target’s value now, as the proposer saw it.',
      resolve: (p) => JSON.parse(p.currentValue) as unknown,
    }),
    proposedValue: t.field({
      type: 'JSON',
      nullable: true,
      description: 'The value after the action.',
      resolve: (p) => JSON.parse(p.proposedValue) as unknown,
    }),
    dataSource: t.exposeString('dataSource', { description: 'Where the proposer’s data came from.' }),
    riskLevel: t.field({ type: RiskLevelEnum, description: 'Picks the approval policy.', resolve: (p) => p.riskLevel }),
    fingerprint: t.exposeString('fingerprint', {
      description: 'The target data’s fingerprint this revision was made against; checked before execution.',
    }),
    state: t.field({ type: ProposalStateEnum, description: 'Where it is now.', resolve: (p) => p.state }),
    stateReason: t.exposeString('stateReason', {
      nullable: true,
      description: 'Why it reached this state (a reason, an expiry, a mismatch, evidence).',
    }),
    blockedReason: t.string({
      nullable: true,
      description: 'Why it is not moving and what would move it; null once final with nothing to do.',
      resolve: async (p, _args, context) =>
        blockedReason(
          {
            state: p.state,
            approvals: (await approvalsOf(context, p.id)).filter((approval) => approval.voidedAt === null).length,
            approvalsRequired: p.approvalsRequired,
            leaseHolder: p.claimedBy,
            leaseExpiresAt: p.leaseExpiresAt,
            approvalExpiresAt: p.approvalExpiresAt,
            deadline: p.deadline,
          },
          context.clock.now(),
        ),
    }),
    proposedBy: t.exposeString('proposedBy', { description: 'The principal that proposed it.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was submitted.' }),
    deadline: t.expose('deadline', { type: 'DateTime', nullable: true, description: 'It expires if not executed by then.' }),
    approvalsRequired: t.exposeInt('approvalsRequired', { description: 'Distinct approvers its risk level needs.' }),
    approvals: t.field({
      type: [ApprovalRef],
      description: 'Approvals of this revision, voided ones included.',
      resolve: (p, _a, context) => approvalsOf(context, p.id),
    }),
    approvedAt: t.expose('approvedAt', { type: 'DateTime', nullable: true, description: 'When enough approvals were in.' }),
    approvalExpiresAt: t.expose('approvalExpiresAt', { type: 'DateTime', nullable: true, description: 'The approval is void after this.' }),
    operationId: t.exposeString('operationId', {
      nullable: true,
      description: 'Idempotency key for the remote system: one per approval, the same for every attempt.',
    }),
    leaseKind: t.exposeString('leaseKind', { nullable: true, description: 'REVIEW or EXECUTION, while a lease is on it.' }),
    claimedBy: t.exposeString('claimedBy', { nullable: true, description: 'Holder of the current review or execution lease.' }),
    leaseExpiresAt: t.expose('leaseExpiresAt', { type: 'DateTime', nullable: true, description: 'When that lease lapses.' }),
    attempts: t.field({
      type: [AttemptRef],
      description: 'Execution attempts, oldest first.',
      resolve: (p, _a, context) => attemptsOf(context, p.id),
    }),
    version: t.exposeInt('version', { description: 'Increases with every change.' }),
    history: t.connection(
      {
        type: EventRef,
        description: 'Every recorded change of this proposal, oldest first.',
        resolve: (p, args, context) => resolveConnection(args, (page) => listEvents(context, { proposalId: p.id }, page)),
      },
      EventConnection,
    ),
  }),
});

builder.objectField(EventRef, 'proposal', (t) =>
  t.field({
    type: ProposalRef,
    nullable: true,
    description: 'The proposal changed, for proposal events (its current state).',
    resolve: async (event, _args, context) =>
      event.proposalId === null ? null : ((await findProposalsByIds(context, [event.proposalId]))[0] ?? null),
  }),
);

const ProposalFilterInput = builder.inputType('ProposalFilter', {
  description: 'Narrows a proposal list. All given conditions must hold.',
  fields: (t) => ({
    states: t.field({ type: [ProposalStateEnum], description: 'Only these states.' }),
    riskLevels: t.field({ type: [RiskLevelEnum], description: 'Only these risk levels.' }),
    proposedBy: t.string({ description: 'Only this proposer’s.' }),
    claimedBy: t.string({ description: 'Only those this principal holds under an unexpired lease.' }),
    holder: t.string({
      description: 'Only those this principal holds under an unexpired lease.',
      deprecationReason: renamedTo('claimedBy'),
    }),
    targetSystem: t.string({ description: 'Only this target system.' }),
    targetId: t.string({ description: 'Only this target record.' }),
    batchId: t.string({ description: 'Only this batch.' }),
    createdAfter: t.field({ type: 'DateTime', description: 'Submitted at or after (age).' }),
    createdBefore: t.field({ type: 'DateTime', description: 'Submitted before (age).' }),
    deadlineBefore: t.field({ type: 'DateTime', description: 'Deadline before this instant.' }),
  }),
});

const CountRef = builder.objectRef<{ key: string; count: number }>('ProposalCount').implement({
  description: 'A count under a label.',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'The state or age bucket.' }),
    count: t.exposeInt('count', { description: 'How many.' }),
  }),
});

const ProposalStatsRef = builder.objectRef<ProposalStats>('ProposalStats').implement({
  description: 'How the proposal queue is doing: what waits, for how long, and how it ends (SPEC §6, seed B’s measurements).',
  fields: (t) => ({
    byState: t.field({
      type: [CountRef],
      description: 'Proposals per state.',
      resolve: (stats) => Object.entries(stats.byState).map(([key, count]) => ({ key, count })),
    }),
    pendingByAge: t.field({
      type: [CountRef],
      description: 'PENDING proposals by age: lt_1h, 1h_to_4h, 4h_to_24h, gte_24h.',
      resolve: (stats) => Object.entries(stats.pendingByAge).map(([key, count]) => ({ key, count })),
    }),
    oldestPendingAgeSeconds: t.exposeFloat('oldestPendingAgeSeconds', {
      nullable: true,
      description: 'Age of the oldest pending proposal.',
    }),
    approved: t.int({ description: 'Proposals ever fully approved.', resolve: (stats) => stats.totals.approved }),
    rejected: t.int({ description: 'Rejected.', resolve: (stats) => stats.totals.rejected }),
    changesRequested: t.int({ description: 'Sent back for a new revision.', resolve: (stats) => stats.totals.changesRequested }),
    expired: t.int({ description: 'Expired (deadline or approval validity).', resolve: (stats) => stats.totals.expired }),
    stale: t.int({ description: 'Made STALE by changed data.', resolve: (stats) => stats.totals.stale }),
    executionFailures: t.int({ description: 'Refused by the remote system (FAILED).', resolve: (stats) => stats.totals.failed }),
    needingReconciliation: t.int({
      description: 'OUTCOME_UNKNOWN: an admin must reconcile these.',
      resolve: (stats) => stats.totals.needingReconciliation,
    }),
    decisionWaitP50Seconds: t.float({
      nullable: true,
      description: 'Median seconds from submission to decision.',
      resolve: (stats) => stats.waitTimes.p50Seconds,
    }),
    decisionWaitP95Seconds: t.float({
      nullable: true,
      description: '95th percentile of the same.',
      resolve: (stats) => stats.waitTimes.p95Seconds,
    }),
    serverTime: t.expose('computedAt', { type: 'DateTime', description: 'The server clock when these were computed.' }),
    serverNow: t.expose('computedAt', {
      type: 'DateTime',
      description: 'The server clock when these were computed.',
      deprecationReason: renamedTo('serverTime'),
    }),
  }),
});

builder.queryFields((t) => ({
  proposalStats: t.field({
    type: ProposalStatsRef,
    authScopes: requires('Query', 'proposalStats', 'readQueue'),
    description: 'Statistics of the proposal queue.',
    resolve: (_root, _args, context) => proposalStats(context),
  }),
  proposals: t.connection(
    {
      type: ProposalRef,
      authScopes: requires('Query', 'proposals', 'readQueue'),
      description: 'Action proposals in submission order, optionally filtered.',
      args: { filter: t.arg({ type: ProposalFilterInput, description: 'Conditions every listed proposal meets.' }) },
      resolve: (_root, args, context) => resolveConnection(args, (page) => listProposals(context, holderFilter(args.filter), page)),
    },
    { name: 'ProposalConnection', description: 'A page of proposals.' },
    { name: 'ProposalEdge', description: 'One proposal in a page.' },
  ),
}));

const ProposalPayload = (name: string, description: string) =>
  builder.objectRef<{ proposal: Proposal }>(`${name}Payload`).implement({
    description,
    fields: (t) => ({
      proposal: t.field({ type: ProposalRef, description: 'The proposal after the change.', resolve: (p) => p.proposal }),
    }),
  });

const IssuedProposalLease = builder.objectRef<{ token: string; proposal: Proposal }>('ProposalLease').implement({
  description: 'A lease just granted. The token is shown here once; only its hash is stored.',
  fields: (t) => ({
    token: t.exposeString('token', { description: 'Proof of holding. Keep it secret; it is never shown again.' }),
    kind: t.string({ description: 'REVIEW or EXECUTION.', resolve: (l) => l.proposal.leaseKind ?? '' }),
    claimedBy: t.string({ description: 'Who holds it.', resolve: (l) => l.proposal.claimedBy ?? '' }),
    holder: t.string({
      description: 'Who holds it.',
      deprecationReason: renamedTo('claimedBy'),
      resolve: (l) => l.proposal.claimedBy ?? '',
    }),
    leaseExpiresAt: t.field({
      type: 'DateTime',
      description: 'When it lapses unless renewed.',
      resolve: (l) => l.proposal.leaseExpiresAt ?? new Date(0),
    }),
    expiresAt: t.field({
      type: 'DateTime',
      description: 'When it lapses unless renewed.',
      deprecationReason: renamedTo('leaseExpiresAt'),
      resolve: (l) => l.proposal.leaseExpiresAt ?? new Date(0),
    }),
  }),
});

const TargetInput = builder.inputType('ProposalTargetInput', {
  description: 'What an action affects. Give `system` and `recordId`.',
  fields: (t) => ({
    system: t.string({ required: true, description: 'The system holding the data (1–100 characters).' }),
    recordId: t.string({ description: 'The record in that system (1–100 characters). Required (or the deprecated `id`).' }),
    id: t.string({
      description: 'The record in that system: the old name of `recordId`.',
      deprecationReason: 'Use recordId (ProposalTarget.recordId answers it): `id` names global ids everywhere else.',
    }),
  }),
});

/** The target's record id, from `recordId` or the deprecated `id` (exactly one of them). */
function targetRecordId(target: { recordId?: string | null; id?: string | null }): string {
  if (target.recordId != null && target.id != null) {
    throw new DomainError('INVALID_ARGUMENT', 'Give target.recordId only (target.id is its deprecated old name).', 'target.recordId');
  }
  const recordId = target.recordId ?? target.id;
  if (recordId == null) throw new DomainError('INVALID_ARGUMENT', 'target.recordId is required.', 'target.recordId');
  return recordId;
}

const ReviewDecisionEnum = builder.enumType('ProposalReviewDecision', {
  description: 'A reviewer’s decision on a proposal.',
  values: {
    APPROVE: { description: 'Approve the exact revision named in `revision`.' },
    REJECT: { description: 'Reject it; give a `reason`.' },
    REQUEST_CHANGES: { description: 'Ask the proposer for a new revision; give a `reason`.' },
  },
});

const ExecutionOutcomeEnum = builder.enumType('ExecutionOutcome', {
  description: 'How an execution attempt ended, as the executor knows it.',
  values: {
    SUCCEEDED: { description: 'The remote system confirmed the effect → EXECUTED.' },
    FAILED_BEFORE_SEND: { description: 'Nothing was sent → APPROVED again if still valid (same operation id), else EXPIRED.' },
    REJECTED_BY_REMOTE: { description: 'The remote system refused and nothing changed → FAILED.' },
    UNKNOWN: { description: 'Sent, but the result is unknown (timeout, lost response) → OUTCOME_UNKNOWN, for an admin to reconcile.' },
  },
});

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
    description: 'Leases the next pending proposal for review (earliest deadline, then oldest); never your own or one you approved.',
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
          }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({ claim: await claimProposal(deps(context), context.actor, input) })),
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
  reportTargetState: t.field({
    type: builder.objectRef<{ stale: Proposal[] }>('ReportTargetStatePayload').implement({
      description: 'The proposals the new fingerprint made STALE.',
      fields: (f) => ({
        staleProposals: f.field({ type: [ProposalRef], description: 'Now STALE, approvals void.', resolve: (p) => p.stale }),
      }),
    }),
    authScopes: requires('Mutation', 'reportTargetState', 'reportTargetState'),
    description: 'Reports a target’s current fingerprint: pending and approved proposals made against another one become STALE.',
    errors: refusals('ReportTargetState'),
    args: {
      input: t.arg({
        required: true,
        description: 'The target and its fingerprint now.',
        type: builder.inputType('ReportTargetStateInput', {
          description: 'A target’s current state.',
          fields: (f) => ({
            target: f.field({ type: TargetInput, required: true, description: 'The target.' }),
            fingerprint: f.string({ required: true, description: 'Its fingerprint now.' }),
          }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({
      stale: await reportTargetState(deps(context), context.actor, {
        targetSystem: input.target.system,
        targetId: targetRecordId(input.target),
        fingerprint: input.fingerprint,
      }),
    })),
  }),
  claimExecution: t.field({
    type: builder
      .objectRef<{ claim: { proposal: Proposal; token: string; operationId: string } | null }>('ClaimExecutionPayload')
      .implement({
        description: 'The approved proposal now under your execution lease, or `claimed: false`.',
        fields: (f) => ({
          claimed: f.boolean({ description: 'False when nothing is ready to execute.', resolve: (p) => p.claim !== null }),
          proposal: f.field({
            type: ProposalRef,
            nullable: true,
            description: 'The proposal (EXECUTING).',
            resolve: (p) => p.claim?.proposal ?? null,
          }),
          lease: f.field({
            type: IssuedProposalLease,
            nullable: true,
            description: 'The execution lease, with its one-time token.',
            resolve: (p) => p.claim,
          }),
          operationId: f.string({
            nullable: true,
            description: 'Pass it to the remote system as the idempotency key.',
            resolve: (p) => p.claim?.operationId ?? null,
          }),
        }),
      }),
    authScopes: requires('Mutation', 'claimExecution', 'executeProposal'),
    description: 'Takes the next approved, still valid proposal under an execution lease: one executor wins.',
    errors: refusals('ClaimExecution'),
    args: {
      input: t.arg({
        required: true,
        description: 'Lease length.',
        type: builder.inputType('ClaimExecutionInput', {
          description: 'How long the execution lease lasts.',
          fields: (f) => ({
            leaseSeconds: f.int({ defaultValue: 300, description: '30–3600 seconds; renew it for longer work.' }),
            actions: f.stringList({ description: 'Only these actions (the ones this executor can carry out).' }),
            targetSystems: f.stringList({ description: 'Only these target systems (the ones this executor can reach).' }),
          }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({ claim: await claimExecution(deps(context), context.actor, input) })),
  }),
  startExecutionAttempt: t.field({
    type: builder.objectRef<{ proposal: Proposal; attempt: ExecutionAttempt | null }>('StartExecutionAttemptPayload').implement({
      description: 'Whether to proceed: `proceed: false` means the proposal went STALE or EXPIRED and nothing may run.',
      fields: (f) => ({
        proceed: f.boolean({ description: 'True: call the remote system now with the operation id.', resolve: (p) => p.attempt !== null }),
        proposal: f.field({ type: ProposalRef, description: 'The proposal.', resolve: (p) => p.proposal }),
        attempt: f.field({ type: AttemptRef, nullable: true, description: 'The attempt started.', resolve: (p) => p.attempt }),
      }),
    }),
    authScopes: requires('Mutation', 'startExecutionAttempt', 'executeProposal'),
    description: 'Presents the target’s current fingerprint right before execution: a mismatch makes the proposal STALE and nothing runs.',
    errors: refusals('StartExecutionAttempt'),
    args: {
      input: t.arg({
        required: true,
        description: 'The lease and the fingerprint now.',
        type: builder.inputType('StartExecutionAttemptInput', {
          description: 'The execution lease and the target’s fingerprint now.',
          fields: (f) => ({
            token: f.string({ required: true, description: 'The execution lease token.' }),
            fingerprint: f.string({ required: true, description: 'The target’s fingerprint, read just now.' }),
            correlationId: f.string({ description: 'Your id for this attempt, if any.' }),
          }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => startExecutionAttempt(deps(context), context.actor, input)),
  }),
  reportExecutionResult: t.field({
    type: ProposalPayload('ReportExecutionResult', 'The proposal after the result; the execution lease has ended.'),
    authScopes: requires('Mutation', 'reportExecutionResult', 'executeProposal'),
    description:
      'Records how the attempt ended. UNKNOWN blocks the proposal until an admin reconciles it; it is never re-run automatically.',
    errors: refusals('ReportExecutionResult'),
    args: {
      input: t.arg({
        required: true,
        description: 'The result.',
        type: builder.inputType('ReportExecutionResultInput', {
          description: 'How the attempt ended.',
          fields: (f) => ({
            token: f.string({ required: true, description: 'The execution lease token.' }),
            outcome: f.field({ type: ExecutionOutcomeEnum, required: true, description: 'What you know happened.' }),
            response: f.field({ type: 'JSON', description: 'What the remote system answered (≤ 16 KiB).' }),
            correlationId: f.string({ description: 'The remote system’s id for the request.' }),
          }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({
      proposal: await reportExecutionResult(deps(context), context.actor, { ...input, outcome: input.outcome as ExecutionOutcome }),
    })),
  }),
  reconcileProposal: t.field({
    type: ProposalPayload('ReconcileProposal', 'The proposal after reconciliation.'),
    authScopes: requires('Mutation', 'reconcileProposal', 'reconcileProposal'),
    description:
      'Settles an OUTCOME_UNKNOWN (ADMIN): executed, with evidence; or not executed, which returns it to APPROVED only if the approval is still valid and the fingerprint still matches (else EXPIRED or STALE).',
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
  recordManualExecution: t.field({
    type: ProposalPayload('RecordManualExecution', 'The proposal after the record.'),
    authScopes: requires('Mutation', 'recordManualExecution', 'executeProposal'),
    description:
      'Records that an approved proposal was carried out by hand: the same checks (validity, fingerprint, separation of duties).',
    errors: refusals('RecordManualExecution'),
    args: {
      input: t.arg({
        required: true,
        description: 'What was done.',
        type: builder.inputType('RecordManualExecutionInput', {
          description: 'The manual execution.',
          fields: (f) => ({
            id: f.globalID({ required: true, description: 'The proposal’s global id.' }),
            fingerprint: f.string({ required: true, description: 'The target’s fingerprint, read just before doing it.' }),
            evidence: f.string({ required: true, description: 'What was done and where to check (1–2000 characters).' }),
          }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({
      proposal: await recordManualExecution(deps(context), context.actor, { ...input, id: proposalIdOf(input.id) }),
    })),
  }),
}));

function proposalIdOf(id: { typename: string; id: string }): number {
  if (id.typename !== 'Proposal') throw new DomainError('INVALID_ARGUMENT', 'id must be a Proposal id.', 'id');
  return Number(id.id);
}

builder.subscriptionFields((t) => ({
  proposalEvents: t.field({
    type: EventRef,
    authScopes: requires('Subscription', 'proposalEvents', 'subscribeQueue'),
    description: 'Every change to action proposals (or to one, with `id`), in order: submissions, decisions, staleness, execution, expiry.',
    args: {
      id: t.arg.globalID({ description: 'Only this proposal.' }),
      afterSequence: t.arg.int({ description: AFTER_DESCRIPTION }),
      after: t.arg.int({ description: AFTER_DESCRIPTION, deprecationReason: renamedTo('afterSequence') }),
    },
    subscribe: (_root, args, context) => {
      if (args.id && args.id.typename !== 'Proposal') throw new DomainError('INVALID_ARGUMENT', 'id must be a Proposal id.', 'id');
      const after = checkAfter(args);
      const only = args.id ? Number(args.id.id) : null;
      return eventStream(context.live.feed, context.live.tail, {
        after,
        filter: (event) => event.proposalId !== null && (only === null || event.proposalId === only),
      });
    },
    resolve: (event) => event,
  }),
}));
