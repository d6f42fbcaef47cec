// GraphQL for action proposals, reading them at any stage: the filtered proposal list, the queue's
// statistics and the proposal event stream.
import { DomainError } from '../../domain/errors.js';
import { eventStream } from '../../events/streams.js';
import { listProposals } from '../../services/proposal-queries.js';
import { type ProposalStats, proposalStats } from '../../services/proposal-stats.js';
import { holderFilter, renamedTo } from '../aliases.js';
import { builder, requires } from '../builder.js';
import { resolveConnection } from '../pagination.js';
import { AFTER_DESCRIPTION, checkAfter } from '../replay.js';
import { EventRef } from '../types/refs.js';
import { AfterReviewEnum } from './after-review.js';
import { ProposalRef, ProposalStateEnum, RiskLevelEnum } from './types.js';

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
    assignee: t.string({ description: 'Only those assigned to this principal (assignProposal).' }),
    createdAfter: t.field({ type: 'DateTime', description: 'Submitted at or after (age).' }),
    createdBefore: t.field({ type: 'DateTime', description: 'Submitted before (age).' }),
    deadlineBefore: t.field({ type: 'DateTime', description: 'Deadline before this instant.' }),
    afterReview: t.field({
      type: [AfterReviewEnum],
      description: 'Only these states of the review after execution: [PENDING] lists those executed automatically and awaiting review.',
    }),
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
    pendingByRisk: t.field({
      type: [CountRef],
      description: 'PENDING proposals by risk level: LOW, MEDIUM, HIGH, CRITICAL (maintained counts).',
      resolve: (stats) => Object.entries(stats.pendingByRisk).map(([key, count]) => ({ key, count })),
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
    awaitingReviewAfterExecution: t.exposeInt('awaitingReviewAfterExecution', {
      description: 'Executed without a review before (a policy with approvers: 0) and awaiting review afterwards (reviewExecutedProposal).',
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
