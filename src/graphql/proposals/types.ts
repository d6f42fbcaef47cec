// GraphQL for action proposals, what several stages share: the Proposal node and the objects, enums and
// inputs it is made of, the lease and payload types the mutations answer with, and the resolver helpers
// (service deps, global id and target record id checks).
import type { ExecutionAttempt, Proposal, ProposalApproval } from '../../db/client.js';
import { can } from '../../domain/access.js';
import { DomainError } from '../../domain/errors.js';
import { type MaskableField, shownValue } from '../../domain/masking.js';
import { blockedReason, PROPOSAL_STATES, type ProposalState, RISK_LEVELS, type RiskLevel } from '../../domain/proposal.js';
import { approvalsOf, attemptsOf, findProposalsByIds, nextRevisionOf } from '../../services/proposal-queries.js';
import type { ProposalDeps } from '../../services/proposals/index.js';
import { listEvents } from '../../services/queries.js';
import { renamedTo } from '../aliases.js';
import { builder } from '../builder.js';
import type { GraphQLContext } from '../context.js';
import { loadByIds } from '../loaders.js';
import { resolveConnection } from '../pagination.js';
import { EventConnection, EventRef } from '../types/refs.js';

export const ProposalRef = builder.objectRef<Proposal>('Proposal');

export const ProposalStateEnum = builder.enumType('ProposalState', {
  description: 'Where an action proposal is in its approval and execution.',
  values: Object.fromEntries(Object.entries(PROPOSAL_STATES).map(([state, description]) => [state, { description }])) as Record<
    ProposalState,
    { description: string }
  >,
});

export const RiskLevelEnum = builder.enumType('RiskLevel', {
  description: 'How much harm a wrong execution could do; picks the approval policy (approvers, validity, executor separation).',
  values: Object.fromEntries(RISK_LEVELS.map((risk) => [risk, { description: `Risk level ${risk}.` }])) as Record<
    RiskLevel,
    { description: string }
  >,
});

/**
 * A stored JSON field as this caller may see it: PROPOSAL_SENSITIVE_FIELDS masked unless it has SENSITIVE_READER.
 * Under a subscription the result is shared by subscribers with the same roles (shared-subscriptions.ts keys on them).
 */
function shown(context: GraphQLContext, field: MaskableField, stored: string): unknown {
  return shownValue(field, JSON.parse(stored) as unknown, context.sensitiveFields, can(context.principal, 'readSensitive'));
}

export const deps = (context: GraphQLContext): ProposalDeps => ({
  db: context.db,
  clock: context.clock,
  policies: context.policies,
  rules: context.proposalRules,
});

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

export const AttemptRef = builder.objectRef<ExecutionAttempt>('ExecutionAttempt').implement({
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
      description: 'Its parameters. Reviewers cannot edit them. Sensitive parts read "[masked]" without SENSITIVE_READER.',
      resolve: (p, _args, context) => shown(context, 'parameters', p.parameters) as Record<string, unknown>,
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
      description: 'The target’s value now, as the proposer saw it. Sensitive parts read "[masked]" without SENSITIVE_READER.',
      resolve: (p, _args, context) => shown(context, 'currentValue', p.currentValue),
    }),
    proposedValue: t.field({
      type: 'JSON',
      nullable: true,
      description: 'The value after the action. Sensitive parts read "[masked]" without SENSITIVE_READER.',
      resolve: (p, _args, context) => shown(context, 'proposedValue', p.proposedValue),
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
            heldFrom: p.heldFrom,
            heldBy: p.heldBy,
            stateReason: p.stateReason,
            assignee: p.assignee,
            escalatedTo: p.escalatedTo,
            policy: context.policies[p.riskLevel],
            autoApprovedBy: p.autoApprovedBy,
            afterReview: p.afterReview,
          },
          context.clock.now(),
        ),
    }),
    heldFrom: t.field({
      type: ProposalStateEnum,
      nullable: true,
      description: 'ON_HOLD: the state it was held from (PENDING or APPROVED), where resumeProposal returns it if still valid.',
      resolve: (p) => p.heldFrom,
    }),
    heldBy: t.exposeString('heldBy', { nullable: true, description: 'ON_HOLD: who held it (its stateReason says why).' }),
    assignee: t.exposeString('assignee', {
      nullable: true,
      description: 'Who should look at it (assignProposal); not the lease holder (claimedBy), and it reserves nothing.',
    }),
    escalatedAt: t.expose('escalatedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was last escalated, by hand or automatically (PROPOSAL_ESCALATION).',
    }),
    escalatedTo: t.exposeString('escalatedTo', { nullable: true, description: 'To whom it was last escalated: a role or a principal.' }),
    proposedBy: t.exposeString('proposedBy', { description: 'The principal that proposed it.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was submitted.' }),
    deadline: t.expose('deadline', { type: 'DateTime', nullable: true, description: 'It expires if not executed by then.' }),
    approvalsRequired: t.exposeInt('approvalsRequired', {
      description:
        'Distinct approvers it needs before execution: its risk level’s policy, or its action’s (PROPOSAL_ACTIONS); 0 when a policy approved it at submission (autoApprovedBy).',
    }),
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
    leaseKind: t.string({
      nullable: true,
      description: 'REVIEW, EXECUTION, or MANUAL_EXECUTION (claimManualExecution), while a lease is on it.',
      resolve: (p) => (p.leaseKind === 'EXECUTION' && p.manualLease ? 'MANUAL_EXECUTION' : p.leaseKind),
    }),
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

export const ProposalPayload = (name: string, description: string) =>
  builder.objectRef<{ proposal: Proposal }>(`${name}Payload`).implement({
    description,
    fields: (t) => ({
      proposal: t.field({ type: ProposalRef, description: 'The proposal after the change.', resolve: (p) => p.proposal }),
    }),
  });

export const IssuedProposalLease = builder.objectRef<{ token: string; proposal: Proposal }>('ProposalLease').implement({
  description: 'A lease just granted. The token is shown here once; only its hash is stored.',
  fields: (t) => ({
    token: t.exposeString('token', { description: 'Proof of holding. Keep it secret; it is never shown again.' }),
    kind: t.string({
      description: 'REVIEW, EXECUTION, or MANUAL_EXECUTION (claimManualExecution).',
      resolve: (l) => (l.proposal.leaseKind === 'EXECUTION' && l.proposal.manualLease ? 'MANUAL_EXECUTION' : (l.proposal.leaseKind ?? '')),
    }),
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

export const TargetInput = builder.inputType('ProposalTargetInput', {
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
export function targetRecordId(target: { recordId?: string | null; id?: string | null }): string {
  if (target.recordId != null && target.id != null) {
    throw new DomainError('INVALID_ARGUMENT', 'Give target.recordId only (target.id is its deprecated old name).', 'target.recordId');
  }
  const recordId = target.recordId ?? target.id;
  if (recordId == null) throw new DomainError('INVALID_ARGUMENT', 'target.recordId is required.', 'target.recordId');
  return recordId;
}

export function proposalIdOf(id: { typename: string; id: string }): number {
  if (id.typename !== 'Proposal') throw new DomainError('INVALID_ARGUMENT', 'id must be a Proposal id.', 'id');
  return Number(id.id);
}
