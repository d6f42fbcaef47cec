/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** The lease situation of an item, computed from the server clock. */
export type ClaimState =
  /** Pending and held under an unexpired lease. */
  | 'ACTIVE'
  /** Pending; the last lease lapsed, so anyone may claim it. */
  | 'EXPIRED'
  /** Already decided; leases no longer apply. */
  | 'NOT_APPLICABLE'
  /** Pending and nobody holds a lease. */
  | 'UNCLAIMED';

/** What kind of change an event records. */
export type EventType =
  /** An administrator (or the first start of a new database) made an API key; details name it, never the key. */
  | 'API_KEY_CREATED'
  /** An administrator revoked an API key; connections it opened are closed. */
  | 'API_KEY_REVOKED'
  /** A category became available for new items. */
  | 'CATEGORY_ADDED'
  /** A category stopped being available for new items; old items keep it. */
  | 'CATEGORY_RETIRED'
  /** The executor checked the fingerprint and started an attempt. */
  | 'EXECUTION_ATTEMPT_STARTED'
  /** An executor took an approved proposal under an execution lease, with its operation id. */
  | 'EXECUTION_CLAIMED'
  /** The remote system refused the action without effect. */
  | 'EXECUTION_FAILED'
  /** The effect may or may not have happened (failure after sending, lost response, or the execution lease lapsed). */
  | 'EXECUTION_OUTCOME_UNKNOWN'
  /** The attempt failed before anything was sent: back to APPROVED (or EXPIRED if no longer valid). */
  | 'EXECUTION_RETURNED'
  /** The executor reported that the effect took place. */
  | 'EXECUTION_SUCCEEDED'
  /** A review item entered the queue. */
  | 'ITEM_ADDED'
  /** The holder recorded a decision; the lease ended with it. */
  | 'ITEM_DECIDED'
  /** A reviewer took a lease on an item (possibly replacing a lapsed lease). */
  | 'LEASE_CLAIMED'
  /** A lease lapsed without renewal; recorded once per lease, when it happens or at the latest when the item is claimed again. */
  | 'LEASE_EXPIRED'
  /** The holder gave the item back without a decision (or their connection closed, for a connection-bound lease). */
  | 'LEASE_RELEASED'
  /** The holder reset the lease's expiry to now + leaseSeconds. */
  | 'LEASE_RENEWED'
  /** An executor recorded that the action was carried out by hand. */
  | 'MANUAL_EXECUTION_RECORDED'
  /** An authenticated principal attempted a change and was refused (missing role, not the holder, self-review, or a broken rule); details say which operation and why. Past 20 refusals in a minute, one event sums up the rest: details.count, windowStart and windowEnd. */
  | 'OPERATION_REFUSED'
  /** An approval given while the proposal waited for more grew older than the approval window: it no longer counts, and is never reused (its approver may approve again). */
  | 'PROPOSAL_APPROVAL_LAPSED'
  /** One reviewer approved the revision; more may be required by the risk level’s policy. */
  | 'PROPOSAL_APPROVAL_RECORDED'
  /** Enough distinct reviewers approved, or at submission a policy with approvers: 0 did (actor system, details.policy): the proposal may be executed until the approval expires. */
  | 'PROPOSAL_APPROVED'
  /** Someone named who should look at a proposal (assignProposal), or cleared it; not a lease. */
  | 'PROPOSAL_ASSIGNED'
  /** The proposer or an admin withdrew the proposal; approvals are void. */
  | 'PROPOSAL_CANCELLED'
  /** A reviewer asked for a new revision, with a reason. */
  | 'PROPOSAL_CHANGES_REQUESTED'
  /** A proposal was escalated to a role or a principal, with a reason: by hand (escalateProposal) or by "system" (PROPOSAL_ESCALATION: pending too long, outcome unknown too long; once each). */
  | 'PROPOSAL_ESCALATED'
  /** The deadline or the approval’s validity passed before execution; approvals are void. */
  | 'PROPOSAL_EXPIRED'
  /** Someone allowed to (holdProposal) stopped a PENDING or APPROVED proposal, with a reason: ON_HOLD; details say where it was and whether a review lease ended with the hold. */
  | 'PROPOSAL_HELD'
  /** A reviewer took the review lease on a proposal. */
  | 'PROPOSAL_LEASE_CLAIMED'
  /** A proposal’s review lease lapsed (recorded once). */
  | 'PROPOSAL_LEASE_EXPIRED'
  /** The holder gave a proposal back undecided. */
  | 'PROPOSAL_LEASE_RELEASED'
  /** The holder of a proposal’s review or execution lease renewed it. */
  | 'PROPOSAL_LEASE_RENEWED'
  /** An admin settled an unknown outcome: executed (with evidence) or not executed. */
  | 'PROPOSAL_RECONCILED'
  /** A reviewer rejected the proposal, with a reason. */
  | 'PROPOSAL_REJECTED'
  /** An ADMIN resumed a held proposal, with a reason: back to where it was held from, or EXPIRED (then PROPOSAL_EXPIRED follows) when that no longer holds. */
  | 'PROPOSAL_RESUMED'
  /** An approver reviewed a proposal a policy approved at submission (approvers: 0) after it was executed: details name the reviewer, the verdict (CONFIRMED or PROBLEM), the comment and the policy. */
  | 'PROPOSAL_REVIEWED_AFTER'
  /** The target’s fingerprint changed; approvals are void and nothing runs. */
  | 'PROPOSAL_STALE'
  /** A proposer submitted an action proposal (or a new revision of one). */
  | 'PROPOSAL_SUBMITTED'
  /** An executor, or a principal TARGET_STATE_REPORTERS names for the system, reported a target’s current fingerprint. */
  | 'TARGET_STATE_REPORTED';

/** Narrows an item list. All given conditions must hold. */
export type ItemFilter = {
  /** Only items of this batch. */
  batchId?: string | null | undefined;
  /** Only items in this claim state (server clock). */
  claimState?: ClaimState | null | undefined;
  /** Only items this reviewer holds under an unexpired lease. */
  claimedBy?: string | null | undefined;
  /** Only items created at or after this instant. */
  createdAfter?: string | null | undefined;
  /** Only items created before this instant. */
  createdBefore?: string | null | undefined;
  /**
   * Only items this reviewer holds under an unexpired lease.
   * @deprecated Renamed to `claimedBy`; this name will be removed in the next release.
   */
  holder?: string | null | undefined;
  /** Only items with this status. */
  status?: ItemStatus | null | undefined;
};

/** What an item asks the reviewer to decide. */
export type ItemKind =
  /** Whether a machine-proposed category for a record is right (seed A’s review items). */
  | 'CLASSIFICATION';

/** Where an item is in its review. */
export type ItemStatus =
  /** The reviewer kept the proposed category. */
  | 'ACCEPTED'
  /** The reviewer chose a different allowed category. */
  | 'CORRECTED'
  /** Waiting for a decision (claimable unless an active lease holds it). */
  | 'PENDING'
  /** The reviewer rejected the proposal; there is no final category. */
  | 'REJECTED';

/** Narrows a queue event stream. All given conditions must hold. */
export type QueueEventFilter = {
  /** Only events of items in this batch. */
  batchId?: string | null | undefined;
  /** Only events of items of these kinds (category events have no item). */
  kinds?: Array<ItemKind> | null | undefined;
  /** Only events of these types. */
  types?: Array<EventType> | null | undefined;
};

/** What a principal may do. A principal may hold several. */
export type Role =
  /** Administers categories and API keys. Does not by itself propose, review or execute. */
  | 'ADMIN'
  /** Carries out approved action proposals (or records that they were carried out by hand). */
  | 'EXECUTOR'
  /** Puts proposals in the queue (an AI classifier, an agent). */
  | 'PROPOSER'
  /** Settles action proposals whose execution outcome is unknown (reconcileProposal); never one it proposed or executed. */
  | 'RECONCILER'
  /** Claims items under a lease and decides them; never an item it proposed. */
  | 'REVIEWER'
  /** Reads the sensitive parts of proposals (PROPOSAL_SENSITIVE_FIELDS) unmasked; everyone else, ADMIN included, sees "[masked]". Grants nothing else. */
  | 'SENSITIVE_READER'
  /** Reads the queue, its history and its live streams. */
  | 'VIEWER';

export type DashboardViewerQueryVariables = Exact<{ [key: string]: never; }>;


export type DashboardViewerQuery = { serverTime: string, viewer: { name: string, roles: Array<Role> } };

export type DashboardLatestEventQueryVariables = Exact<{ [key: string]: never; }>;


export type DashboardLatestEventQuery = { serverTime: string, events: { edges: Array<{ node: { sequence: number } }> } };

export type DashboardItemsQueryVariables = Exact<{
  filter?: ItemFilter | null | undefined;
  first?: number | null | undefined;
}>;


export type DashboardItemsQuery = { serverTime: string, items: { edges: Array<{ node: { id: string, batchId: string, recordId: string, proposedCategory: string, status: ItemStatus, claimState: ClaimState, claimedBy: string | null, leaseExpiresAt: string | null, finalCategory: string | null, reviewedBy: string | null } }>, pageInfo: { hasNextPage: boolean } } };

export type DashboardChartHistoryQueryVariables = Exact<{
  before?: string | null | undefined;
}>;


export type DashboardChartHistoryQuery = { serverTime: string, events: { edges: Array<{ node: { sequence: number, type: EventType, occurredAt: string } }>, pageInfo: { hasPreviousPage: boolean, startCursor: string | null } } };

export type DashboardStatsSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type DashboardStatsSubscription = { queueStats: { pending: number, unclaimed: number, activeLeases: number, expiredLeases: number, accepted: number, corrected: number, rejected: number, oldestPendingCreatedAt: string | null, sequence: number, serverTime: string } };

export type DashboardEventsSubscriptionVariables = Exact<{
  afterSequence?: number | null | undefined;
  filter?: QueueEventFilter | null | undefined;
}>;


export type DashboardEventsSubscription = { queueEvents: { sequence: number, type: EventType, occurredAt: string, actor: string, serverTime: string, toStatus: ItemStatus | null, leaseExpiresAt: string | null, item: { batchId: string, recordId: string } | null } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}

export const DashboardViewerDocument = new TypedDocumentString(`
    query DashboardViewer {
  serverTime
  viewer {
    name
    roles
  }
}
    `, {"hash":"sha256:40d5f16410d99da3953f521b015825ce451f23036066d344edabd11bd3158022"}) as unknown as TypedDocumentString<DashboardViewerQuery, DashboardViewerQueryVariables>;
export const DashboardLatestEventDocument = new TypedDocumentString(`
    query DashboardLatestEvent {
  serverTime
  events(last: 1) {
    edges {
      node {
        sequence
      }
    }
  }
}
    `, {"hash":"sha256:7ff8fabdf65ef4772087f184b7c4039ccd0aba2ab13fc5eae332fad8245ec300"}) as unknown as TypedDocumentString<DashboardLatestEventQuery, DashboardLatestEventQueryVariables>;
export const DashboardItemsDocument = new TypedDocumentString(`
    query DashboardItems($filter: ItemFilter, $first: Int) {
  serverTime
  items(filter: $filter, first: $first) {
    edges {
      node {
        id
        batchId
        recordId
        proposedCategory
        status
        claimState
        claimedBy
        leaseExpiresAt
        finalCategory
        reviewedBy
      }
    }
    pageInfo {
      hasNextPage
    }
  }
}
    `, {"hash":"sha256:cfd2dab236e2ba1b36771c37691882cb9792ba633647eea125594bcc5ae3cdb5"}) as unknown as TypedDocumentString<DashboardItemsQuery, DashboardItemsQueryVariables>;
export const DashboardChartHistoryDocument = new TypedDocumentString(`
    query DashboardChartHistory($before: String) {
  serverTime
  events(
    last: 100
    before: $before
    filter: {types: [ITEM_DECIDED, LEASE_EXPIRED]}
  ) {
    edges {
      node {
        sequence
        type
        occurredAt
      }
    }
    pageInfo {
      hasPreviousPage
      startCursor
    }
  }
}
    `, {"hash":"sha256:467c7de78e56e97c471dc295a35d04012b6cba74f2b428f2ad4cbb84f5398d03"}) as unknown as TypedDocumentString<DashboardChartHistoryQuery, DashboardChartHistoryQueryVariables>;
export const DashboardStatsDocument = new TypedDocumentString(`
    subscription DashboardStats {
  queueStats {
    pending
    unclaimed
    activeLeases
    expiredLeases
    accepted
    corrected
    rejected
    oldestPendingCreatedAt
    sequence
    serverTime
  }
}
    `, {"hash":"sha256:e12830c8c3f756c97b3e4b6c2ce9593bf564f1d356dacf2a59db1b7dd39613c9"}) as unknown as TypedDocumentString<DashboardStatsSubscription, DashboardStatsSubscriptionVariables>;
export const DashboardEventsDocument = new TypedDocumentString(`
    subscription DashboardEvents($afterSequence: Int, $filter: QueueEventFilter) {
  queueEvents(afterSequence: $afterSequence, filter: $filter) {
    sequence
    type
    occurredAt
    actor
    serverTime
    toStatus
    leaseExpiresAt
    item {
      batchId
      recordId
    }
  }
}
    `, {"hash":"sha256:0cd41a2b23d6f8aff7b42c805894db3e440e0a6448867cd48894df8888e19abb"}) as unknown as TypedDocumentString<DashboardEventsSubscription, DashboardEventsSubscriptionVariables>;