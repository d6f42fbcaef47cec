// GraphQL for action proposals, execution: target state reports, the execution claim, the attempt with
// its fingerprint check, the reported outcome and a manual execution.
import type { ExecutionAttempt, Proposal, TargetState } from '../../db/client.js';
import {
  claimExecution,
  claimManualExecution,
  type ExecutionOutcome,
  recordManualExecution,
  reportExecutionResult,
  reportTargetState,
  startExecutionAttempt,
} from '../../services/proposals/index.js';
import { readTargetState } from '../../services/proposals/target-state.js';
import { audited, builder, refusals, requires } from '../builder.js';
import { AttemptRef, deps, IssuedProposalLease, ProposalPayload, ProposalRef, proposalIdOf, TargetInput, targetRecordId } from './types.js';

const ExecutionOutcomeEnum = builder.enumType('ExecutionOutcome', {
  description: 'How an execution attempt ended, as the executor knows it.',
  values: {
    SUCCEEDED: { description: 'The remote system confirmed the effect → EXECUTED.' },
    FAILED_BEFORE_SEND: { description: 'Nothing was sent → APPROVED again if still valid (same operation id), else EXPIRED.' },
    REJECTED_BY_REMOTE: { description: 'The remote system refused and nothing changed → FAILED.' },
    UNKNOWN: {
      description:
        'Sent, but the result is unknown (timeout, lost response) → OUTCOME_UNKNOWN, for a reconciler (RECONCILER) to reconcile.',
    },
  },
});

const TargetStateRef = builder.objectRef<TargetState>('TargetState').implement({
  description: 'What the server last heard of a target’s state: its fingerprint, when, from whom and how.',
  fields: (t) => ({
    system: t.exposeString('targetSystem', { description: 'The target system.' }),
    recordId: t.exposeString('targetId', { description: 'The record in it.' }),
    fingerprint: t.exposeString('fingerprint', {
      description: 'The last fingerprint reported: submissions and approvals against another one are refused (STALE_FINGERPRINT).',
    }),
    reportedAt: t.expose('reportedAt', { type: 'DateTime', description: 'When it was reported (server clock).' }),
    reportedBy: t.exposeString('reportedBy', { description: 'The principal that reported it.' }),
    source: t.exposeString('source', {
      description:
        'REPORT (reportTargetState), EXECUTION (reportExecutionResult with a fingerprint, or recordManualExecution with fingerprintAfter) or RECONCILIATION (reconcileProposal).',
    }),
  }),
});

builder.queryFields((t) => ({
  targetState: t.field({
    type: TargetStateRef,
    nullable: true,
    authScopes: requires('Query', 'targetState', 'readQueue'),
    description:
      'The last state reported for a target (null when none was): the fingerprint proposals of it must be made and approved against.',
    args: {
      system: t.arg.string({ required: true, description: 'The target system.' }),
      recordId: t.arg.string({ required: true, description: 'The record in it.' }),
    },
    resolve: (_root, args, context) => readTargetState(deps(context), args.system, args.recordId),
  }),
}));

builder.mutationFields((t) => ({
  reportTargetState: t.field({
    type: builder.objectRef<{ stale: Proposal[] }>('ReportTargetStatePayload').implement({
      description: 'The proposals the new fingerprint made STALE.',
      fields: (f) => ({
        staleProposals: f.field({ type: [ProposalRef], description: 'Now STALE, approvals void.', resolve: (p) => p.stale }),
      }),
    }),
    authScopes: requires('Mutation', 'reportTargetState', 'reportTargetState'),
    description:
      'Reports a target’s current fingerprint: pending and approved proposals made against another one become STALE. Only principals allowed for the target system (TARGET_STATE_REPORTERS; EXECUTORs for a system not named there).',
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
      stale: await reportTargetState(
        deps(context),
        { ...context.actor, roles: context.principal.roles },
        {
          targetSystem: input.target.system,
          targetId: targetRecordId(input.target),
          fingerprint: input.fingerprint,
        },
      ),
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
  claimManualExecution: t.field({
    type: builder
      .objectRef<{ claim: { proposal: Proposal; token: string; operationId: string } }>('ClaimManualExecutionPayload')
      .implement({
        description:
          'The proposal now reserved for you to carry out by hand, under an execution lease (its EXECUTION_CLAIMED event says manual, with your reason).',
        fields: (f) => ({
          proposal: f.field({ type: ProposalRef, description: 'The proposal (EXECUTING).', resolve: (p) => p.claim.proposal }),
          lease: f.field({
            type: IssuedProposalLease,
            description: 'The execution lease, with its one-time token.',
            resolve: (p) => p.claim,
          }),
          operationId: f.string({
            description: 'The same operation id as automation would use: quote it in the remote system if it takes one.',
            resolve: (p) => p.claim.operationId,
          }),
        }),
      }),
    authScopes: requires('Mutation', 'claimManualExecution', 'executeProposal'),
    description:
      'Reserves an APPROVED proposal to carry it out by hand (an integration is down): the same checks as claimExecution (approval still valid, never your own, not one you approved when the policy says so), the same operation id, and automation finds nothing to claim while you hold it. Then startExecutionAttempt with the fingerprint you read, and reportExecutionResult.',
    errors: refusals('ClaimManualExecution'),
    args: {
      input: t.arg({
        required: true,
        description: 'Which proposal, and why by hand.',
        type: builder.inputType('ClaimManualExecutionInput', {
          description: 'The proposal to reserve for a manual execution.',
          fields: (f) => ({
            id: f.globalID({ required: true, description: 'The proposal’s global id.' }),
            reason: f.string({ required: true, description: 'Why by hand (1–1000 characters), kept in EXECUTION_CLAIMED.' }),
            leaseSeconds: f.int({ defaultValue: 300, description: '30–3600 seconds; renew it for longer work.' }),
          }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({
      claim: await claimManualExecution(deps(context), context.actor, { ...input, id: proposalIdOf(input.id) }),
    })),
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
      'Records how the attempt ended. UNKNOWN blocks the proposal until a reconciler (RECONCILER) reconciles it; it is never re-run automatically.',
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
            fingerprint: f.string({
              description:
                'The target’s fingerprint read after the attempt, if you read it: the server remembers it (targetState), and other proposals of the target made against another one become STALE. With FAILED_BEFORE_SEND, one other than the approved means the target changed → STALE.',
            }),
          }),
        }),
      }),
    },
    resolve: audited(async (_root, { input }, context) => ({
      proposal: await reportExecutionResult(deps(context), context.actor, { ...input, outcome: input.outcome as ExecutionOutcome }),
    })),
  }),
  recordManualExecution: t.field({
    type: ProposalPayload('RecordManualExecution', 'The proposal after the record.'),
    authScopes: requires('Mutation', 'recordManualExecution', 'executeProposal'),
    description:
      'Records that an approved proposal was already carried out by hand: the same checks (validity, fingerprint, separation of duties). When they hold → EXECUTED; when they no longer do (or the approved revision already went EXPIRED or STALE) → OUTCOME_UNKNOWN for a reconciler, never “not executed”. To prevent parallel execution, reserve it first with claimManualExecution.',
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
            fingerprintAfter: f.string({
              description:
                'The target’s fingerprint read after doing it (1–200 characters; optional): when the record ends EXECUTED the server remembers it as the target’s state (targetState, source EXECUTION), and other proposals of the target made against another one become STALE. After OUTCOME_UNKNOWN it is kept in the event only.',
            }),
            reason: f.string({
              required: true,
              description: 'Why it was done by hand (e.g. the integration was down), 1–1000 characters; kept apart from the evidence.',
            }),
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
