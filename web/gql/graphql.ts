/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** Where a proposal stands in its review after execution (proposals a policy approved at submission: approvers: 0). */
export type AfterReview =
  /** Reviewed after execution: what was done was right. */
  | 'CONFIRMED'
  /** No review afterwards: people approved it before execution, or it was approved by a policy and has not been executed (it becomes PENDING when it is). */
  | 'NOT_NEEDED'
  /** Approved by a policy (approvers: 0) and EXECUTED: an approver (REVIEWER, not its proposer) must review it afterwards. */
  | 'PENDING'
  /** Reviewed after execution: the reviewer reported a problem (see the comment in PROPOSAL_REVIEWED_AFTER). */
  | 'PROBLEM';

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

/** The outcome a reviewer records. */
export type Decision =
  /** Keep the proposed category. Takes no category. */
  | 'ACCEPTED'
  /** Replace it with another allowed category, given in `category`. */
  | 'CORRECTED'
  /** Reject the proposal; no final category. Takes no category. */
  | 'REJECTED';

/** Why an operation was refused. The first codes keep seed A’s names and meanings. */
export type ErrorCode =
  /** This principal has already approved this revision; approvals must come from distinct reviewers. */
  | 'ALREADY_APPROVED'
  /** No API key has this id. */
  | 'API_KEY_NOT_FOUND'
  /** The API key is already revoked. */
  | 'API_KEY_REVOKED'
  /** An attempt is already running under this lease; report its result before starting another. */
  | 'ATTEMPT_IN_PROGRESS'
  /** Start an execution attempt (with the current fingerprint) before reporting its result. */
  | 'ATTEMPT_NOT_STARTED'
  /** No category has this name. */
  | 'CATEGORY_NOT_FOUND'
  /** A CORRECTED decision needs a category. */
  | 'CATEGORY_REQUIRED'
  /** The category is retired: it stays on old items but cannot be used again. */
  | 'CATEGORY_RETIRED'
  /** A CORRECTED decision must name a category different from the proposal. */
  | 'CATEGORY_UNCHANGED'
  /** The item was claimed by someone else while this claim ran. */
  | 'CLAIM_CONFLICT'
  /** The token is still recorded but its lease has lapsed. */
  | 'CLAIM_EXPIRED'
  /** No pending item holds this token: never issued, released, decided, or replaced by a re-claim. */
  | 'CLAIM_NOT_FOUND'
  /** The proposal’s deadline has passed. */
  | 'DEADLINE_PASSED'
  /** The item changed while this decision ran. */
  | 'DECISION_CONFLICT'
  /** The category already exists, or is listed twice. */
  | 'DUPLICATE_CATEGORY'
  /** An item with this (batchId, recordId) already exists. */
  | 'DUPLICATE_ITEM'
  /** The risk level’s policy requires the executor to differ from the approvers. */
  | 'EXECUTOR_IS_APPROVER'
  /** The principal lacks a role this operation needs. */
  | 'FORBIDDEN'
  /** An argument is outside its documented range. */
  | 'INVALID_ARGUMENT'
  /** The value is not valid JSON of the expected shape, or is too large. */
  | 'INVALID_JSON'
  /** The roles must be a non-empty list of role names (the Role enum: ADMIN, PROPOSER, REVIEWER, EXECUTOR, RECONCILER, …). */
  | 'INVALID_ROLE'
  /** Text input is empty, too long, padded with whitespace or contains control characters. */
  | 'INVALID_TEXT'
  /** The lease token is not 20–200 characters of A–Z, a–z, 0–9, "-" or "_". */
  | 'INVALID_TOKEN'
  /** No item has this id or (batchId, recordId). */
  | 'ITEM_NOT_FOUND'
  /** leaseSeconds must be a whole number from 30 to 3600. */
  | 'LEASE_OUT_OF_RANGE'
  /** The lease is held by another principal: only its holder may renew, release or decide it. */
  | 'NOT_LEASE_HOLDER'
  /** Only the proposer (or an admin) may do this. */
  | 'NOT_PROPOSER'
  /** This principal may not report this target system’s state (TARGET_STATE_REPORTERS names who may; EXECUTORs for systems not named). */
  | 'NOT_TARGET_STATE_REPORTER'
  /** A new revision must follow the previous one, which must have ended in CHANGES_REQUESTED, STALE, EXPIRED or FAILED. */
  | 'PREVIOUS_REVISION_INVALID'
  /** Another API key already acts as a principal of this name: say it is the same principal (samePrincipal), or choose another name. */
  | 'PRINCIPAL_NAME_TAKEN'
  /** A proposal with this (batchId, recordId, revision) exists with different content. */
  | 'PROPOSAL_CONFLICT'
  /** No action proposal has this id. */
  | 'PROPOSAL_NOT_FOUND'
  /** The proposal’s current state does not allow this operation. */
  | 'PROPOSAL_STATE_CONFLICT'
  /** Too many changes from this principal; retry after the time given. */
  | 'RATE_LIMITED'
  /** The server records its own changes under this name (system, cli, cli:<user>): no principal may take it; choose another name. */
  | 'RESERVED_NAME'
  /** The revision (or fingerprint) named is not the one under review. */
  | 'REVISION_MISMATCH'
  /** The risk level is below the floor configured for the action (PROPOSAL_ACTIONS) or below the previous revision’s risk level. */
  | 'RISK_BELOW_MINIMUM'
  /** A proposer may not approve, review or execute its own proposal. */
  | 'SELF_APPROVAL'
  /** A reconciler may not reconcile a proposal it proposed or executed. */
  | 'SELF_RECONCILIATION'
  /** A principal may not review an item it proposed. */
  | 'SELF_REVIEW'
  /** The fingerprint given is not the one the server last received for this target (reportTargetState or an execution’s report): read the target again. */
  | 'STALE_FINGERPRINT'
  /** A single call may add at most 500 items. */
  | 'TOO_MANY_ITEMS'
  /** No valid credential: send `Authorization: Bearer <API key or JWT>` (WebSocket: connectionParams.authorization). */
  | 'UNAUTHENTICATED'
  /** ACCEPTED and REJECTED decisions take no category. */
  | 'UNEXPECTED_CATEGORY'
  /** The category is not an allowed category. */
  | 'UNKNOWN_CATEGORY';

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

/** What happened to the subscriber’s lease. */
export type LeaseNoticeKind =
  /** The holder decided the item. The stream ends. */
  | 'DECIDED'
  /** The lease lapsed; decisions with its token are refused (CLAIM_EXPIRED). */
  | 'EXPIRED'
  /** The lease lapses soon (LEASE_WARNING_SECONDS before `expiresAt`) unless renewed. */
  | 'EXPIRING'
  /** Someone else claimed the item after the lease lapsed. The stream ends. */
  | 'LOST'
  /** The lease was released (by its holder, or because its connection closed). The stream ends. */
  | 'RELEASED'
  /** The lease was renewed; `expiresAt` is the new expiry. */
  | 'RENEWED';

/** Narrows a proposal list. All given conditions must hold. */
export type ProposalFilter = {
  /** Only these states of the review after execution: [PENDING] lists those executed automatically and awaiting review. */
  afterReview?: Array<AfterReview> | null | undefined;
  /** Only those assigned to this principal (assignProposal). */
  assignee?: string | null | undefined;
  /** Only this batch. */
  batchId?: string | null | undefined;
  /** Only those this principal holds under an unexpired lease. */
  claimedBy?: string | null | undefined;
  /** Submitted at or after (age). */
  createdAfter?: string | null | undefined;
  /** Submitted before (age). */
  createdBefore?: string | null | undefined;
  /** Deadline before this instant. */
  deadlineBefore?: string | null | undefined;
  /**
   * Only those this principal holds under an unexpired lease.
   * @deprecated Renamed to `claimedBy`; this name will be removed in the next release.
   */
  holder?: string | null | undefined;
  /** Only this proposer’s. */
  proposedBy?: string | null | undefined;
  /** Only these risk levels. */
  riskLevels?: Array<RiskLevel> | null | undefined;
  /** Only these states. */
  states?: Array<ProposalState> | null | undefined;
  /** Only this target record. */
  targetId?: string | null | undefined;
  /** Only this target system. */
  targetSystem?: string | null | undefined;
};

/** A reviewer’s decision on a proposal. */
export type ProposalReviewDecision =
  /** Approve the exact revision named in `revision`. */
  | 'APPROVE'
  /** Reject it; give a `reason`. */
  | 'REJECT'
  /** Ask the proposer for a new revision; give a `reason`. */
  | 'REQUEST_CHANGES';

/** Where an action proposal is in its approval and execution. */
export type ProposalState =
  /** Approved by enough distinct reviewers; waiting for an executor while the approval is valid. */
  | 'APPROVED'
  /** The proposer or an admin withdrew it. Final. */
  | 'CANCELLED'
  /** A reviewer asked for changes; the proposer submits a new revision, reviewed from scratch. Final for this revision. */
  | 'CHANGES_REQUESTED'
  /** Carried out (reported by its executor, reconciled, or recorded as done by hand). Final. */
  | 'EXECUTED'
  /** One executor holds it under an execution lease and may be carrying it out now. */
  | 'EXECUTING'
  /** Its deadline or its approval’s validity passed before it was executed. Final; a new revision needs a new approval. */
  | 'EXPIRED'
  /** The remote system refused it without effect and it will not be retried. Final. */
  | 'FAILED'
  /** Stopped on purpose (holdProposal, with a reason) from PENDING or APPROVED: nobody may claim, review or execute it until an ADMIN resumes it (back to where it was if still valid, else EXPIRED). Not cancelled. */
  | 'ON_HOLD'
  /** Execution may or may not have taken effect; blocked until a reconciler (RECONCILER) reconciles it. Never re-run automatically. */
  | 'OUTCOME_UNKNOWN'
  /** Waiting for reviewers: claim it, then approve, reject or request changes. */
  | 'PENDING'
  /** A reviewer rejected it. Final. */
  | 'REJECTED'
  /** The target’s data changed after the proposal was made (fingerprint mismatch); approvals are void. Final for this revision. */
  | 'STALE';

/** Narrows a queue event stream. All given conditions must hold. */
export type QueueEventFilter = {
  /** Only events of items in this batch. */
  batchId?: string | null | undefined;
  /** Only events of items of these kinds (category events have no item). */
  kinds?: Array<ItemKind> | null | undefined;
  /** Only events of these types. */
  types?: Array<EventType> | null | undefined;
};

/** How much harm a wrong execution could do; picks the approval policy (approvers, validity, executor separation). */
export type RiskLevel =
  /** Risk level CRITICAL. */
  | 'CRITICAL'
  /** Risk level HIGH. */
  | 'HIGH'
  /** Risk level LOW. */
  | 'LOW'
  /** Risk level MEDIUM. */
  | 'MEDIUM';

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

export type ApprovalsViewerQueryVariables = Exact<{ [key: string]: never; }>;


export type ApprovalsViewerQuery = { serverTime: string, viewer: { name: string, roles: Array<Role> } };

export type ApprovalsQueueQueryVariables = Exact<{
  filter?: ProposalFilter | null | undefined;
  first?: number | null | undefined;
}>;


export type ApprovalsQueueQuery = { serverTime: string, proposals: { edges: Array<{ node: { id: string, batchId: string, recordId: string, revision: number, action: string, riskLevel: RiskLevel, state: ProposalState, blockedReason: string | null, approvalsRequired: number, deadline: string | null, proposedBy: string, assignee: string | null, createdAt: string, approvals: Array<{ approver: string, voidedAt: string | null }>, target: { system: string, recordId: string } } }>, pageInfo: { hasNextPage: boolean } } };

export type ApprovalsProposalQueryVariables = Exact<{
  id: string | number;
}>;


export type ApprovalsProposalQuery = { serverTime: string, node:
    | { id: string, batchId: string, recordId: string, revision: number, version: number, action: string, parameters: Record<string, unknown>, currentValue: unknown, proposedValue: unknown, reason: string, dataSource: string, fingerprint: string, impact: string | null, constraints: string | null, riskLevel: RiskLevel, state: ProposalState, stateReason: string | null, blockedReason: string | null, approvalsRequired: number, approvalExpiresAt: string | null, approvedAt: string | null, deadline: string | null, proposedBy: string, assignee: string | null, claimedBy: string | null, escalatedTo: string | null, heldBy: string | null, heldFrom: ProposalState | null, rule: string | null, createdAt: string, target: { system: string, recordId: string }, approvals: Array<{ approver: string, approvedAt: string, voidedAt: string | null, voidReason: string | null }>, nextRevision: { id: string, revision: number, state: ProposalState } | null, previousRevision: { id: string, revision: number } | null, history: { edges: Array<{ node: { sequence: number, type: EventType, occurredAt: string, actor: string, details: Record<string, unknown> } }> } }
    | Record<PropertyKey, never>
   | null };

export type ApprovalsClaimMutationVariables = Exact<{
  id: string | number;
}>;


export type ApprovalsClaimMutation = { claimProposal:
    | { __typename: 'ClaimProposalPayload', claimed: boolean, lease: { token: string } | null, proposal: { revision: number, fingerprint: string } | null }
    | { __typename: 'UserError', code: ErrorCode, message: string }
   };

export type ApprovalsReviewMutationVariables = Exact<{
  token: string;
  decision: ProposalReviewDecision;
  revision?: number | null | undefined;
  fingerprint?: string | null | undefined;
  reason?: string | null | undefined;
}>;


export type ApprovalsReviewMutation = { reviewProposal:
    | { __typename: 'ReviewProposalPayload', proposal: { state: ProposalState } }
    | { __typename: 'UserError', code: ErrorCode, message: string }
   };

export type ApprovalsReleaseLeaseMutationVariables = Exact<{
  token: string;
}>;


export type ApprovalsReleaseLeaseMutation = { releaseProposalLease:
    | { __typename: 'ReleaseProposalLeasePayload' }
    | { __typename: 'UserError' }
   };

export type ApprovalsCancelMutationVariables = Exact<{
  id: string | number;
  reason: string;
}>;


export type ApprovalsCancelMutation = { cancelProposal:
    | { __typename: 'CancelProposalPayload' }
    | { __typename: 'UserError', code: ErrorCode, message: string }
   };

export type ApprovalsHoldMutationVariables = Exact<{
  id: string | number;
  reason: string;
}>;


export type ApprovalsHoldMutation = { holdProposal:
    | { __typename: 'HoldProposalPayload' }
    | { __typename: 'UserError', code: ErrorCode, message: string }
   };

export type ApprovalsResumeMutationVariables = Exact<{
  id: string | number;
  reason: string;
}>;


export type ApprovalsResumeMutation = { resumeProposal:
    | { __typename: 'ResumeProposalPayload' }
    | { __typename: 'UserError', code: ErrorCode, message: string }
   };

export type ApprovalsEscalateMutationVariables = Exact<{
  id: string | number;
  reason: string;
  to: string;
}>;


export type ApprovalsEscalateMutation = { escalateProposal:
    | { __typename: 'EscalateProposalPayload' }
    | { __typename: 'UserError', code: ErrorCode, message: string }
   };

export type ApprovalsReconcileMutationVariables = Exact<{
  id: string | number;
  executed: boolean;
  evidence: string;
  fingerprint?: string | null | undefined;
}>;


export type ApprovalsReconcileMutation = { reconcileProposal:
    | { __typename: 'ReconcileProposalPayload' }
    | { __typename: 'UserError', code: ErrorCode, message: string }
   };

export type ApprovalsEventsSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type ApprovalsEventsSubscription = { proposalEvents: { sequence: number, type: EventType, serverTime: string, proposal: { id: string } | null } };

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


export type DashboardChartHistoryQuery = { serverTime: string, events: { edges: Array<{ node: { sequence: number, type: EventType, occurredAt: string, details: Record<string, unknown> } }>, pageInfo: { hasPreviousPage: boolean, startCursor: string | null } } };

export type DashboardStatsSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type DashboardStatsSubscription = { queueStats: { pending: number, unclaimed: number, activeLeases: number, expiredLeases: number, accepted: number, corrected: number, rejected: number, oldestPendingCreatedAt: string | null, sequence: number, serverTime: string } };

export type DashboardEventsSubscriptionVariables = Exact<{
  afterSequence?: number | null | undefined;
  filter?: QueueEventFilter | null | undefined;
}>;


export type DashboardEventsSubscription = { queueEvents: { sequence: number, type: EventType, occurredAt: string, actor: string, serverTime: string, toStatus: ItemStatus | null, leaseExpiresAt: string | null, item: { batchId: string, recordId: string } | null } };

export type DashboardChartEventsSubscriptionVariables = Exact<{
  afterSequence?: number | null | undefined;
}>;


export type DashboardChartEventsSubscription = { queueEvents: { sequence: number, type: EventType, occurredAt: string, serverTime: string, details: Record<string, unknown> } };

export type DashboardProposalStatsQueryVariables = Exact<{ [key: string]: never; }>;


export type DashboardProposalStatsQuery = { serverTime: string, proposalStats: { needingReconciliation: number, executionFailures: number, stale: number, decisionWaitP50Seconds: number | null, decisionWaitP95Seconds: number | null, byState: Array<{ key: string, count: number }>, pendingByAge: Array<{ key: string, count: number }>, pendingByRisk: Array<{ key: string, count: number }> }, proposals: { edges: Array<{ node: { approvalExpiresAt: string | null } }>, pageInfo: { hasNextPage: boolean } } };

export type DashboardProposalChangesSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type DashboardProposalChangesSubscription = { proposalEvents: { sequence: number, serverTime: string } };

export type ReviewViewerQueryVariables = Exact<{ [key: string]: never; }>;


export type ReviewViewerQuery = { serverTime: string, viewer: { name: string, roles: Array<Role> }, categories: Array<{ name: string }> };

export type ReviewClaimMutationVariables = Exact<{
  batchId?: string | null | undefined;
  leaseSeconds?: number | null | undefined;
}>;


export type ReviewClaimMutation = { claimItem:
    | { __typename: 'ClaimItemPayload', claimed: boolean, serverTime: string, item: { id: string, batchId: string, recordId: string, proposedCategory: string, reason: string, addedBy: string, createdAt: string, leaseNumber: number } | null, lease: { token: string, leaseExpiresAt: string } | null }
    | { __typename: 'UserError', code: ErrorCode, field: string | null, message: string }
   };

export type ReviewRenewMutationVariables = Exact<{
  token: string;
  leaseSeconds?: number | null | undefined;
}>;


export type ReviewRenewMutation = { renewLease:
    | { __typename: 'RenewLeasePayload', serverTime: string, item: { leaseExpiresAt: string | null } }
    | { __typename: 'UserError', code: ErrorCode, message: string }
   };

export type ReviewReleaseMutationVariables = Exact<{
  token: string;
}>;


export type ReviewReleaseMutation = { releaseLease:
    | { __typename: 'ReleaseLeasePayload', serverTime: string }
    | { __typename: 'UserError', code: ErrorCode, message: string }
   };

export type ReviewDecideMutationVariables = Exact<{
  token: string;
  decision: Decision;
  category?: string | null | undefined;
}>;


export type ReviewDecideMutation = { decideItem:
    | { __typename: 'DecideItemPayload', serverTime: string, item: { status: ItemStatus, finalCategory: string | null } }
    | { __typename: 'UserError', code: ErrorCode, field: string | null, message: string }
   };

export type ReviewLeaseNoticesSubscriptionVariables = Exact<{
  token: string;
}>;


export type ReviewLeaseNoticesSubscription = { leaseEvents: { kind: LeaseNoticeKind, leaseExpiresAt: string | null, serverTime: string, event: { actor: string } | null } };

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

export const ApprovalsViewerDocument = new TypedDocumentString(`
    query ApprovalsViewer {
  serverTime
  viewer {
    name
    roles
  }
}
    `, {"hash":"sha256:fd329d46446c83c78eefd07c645d1427d57b053a66907283165b0ce4716a6a2d"}) as unknown as TypedDocumentString<ApprovalsViewerQuery, ApprovalsViewerQueryVariables>;
export const ApprovalsQueueDocument = new TypedDocumentString(`
    query ApprovalsQueue($filter: ProposalFilter, $first: Int) {
  serverTime
  proposals(filter: $filter, first: $first) {
    edges {
      node {
        id
        batchId
        recordId
        revision
        action
        riskLevel
        state
        blockedReason
        approvalsRequired
        approvals {
          approver
          voidedAt
        }
        deadline
        proposedBy
        assignee
        createdAt
        target {
          system
          recordId
        }
      }
    }
    pageInfo {
      hasNextPage
    }
  }
}
    `, {"hash":"sha256:fb14f634f9707852b60b79ce3e15f2a7fc1eabefe047a985d22278f1bcbe412f"}) as unknown as TypedDocumentString<ApprovalsQueueQuery, ApprovalsQueueQueryVariables>;
export const ApprovalsProposalDocument = new TypedDocumentString(`
    query ApprovalsProposal($id: ID!) {
  serverTime
  node(id: $id) {
    ... on Proposal {
      id
      batchId
      recordId
      revision
      version
      action
      parameters
      target {
        system
        recordId
      }
      currentValue
      proposedValue
      reason
      dataSource
      fingerprint
      impact
      constraints
      riskLevel
      state
      stateReason
      blockedReason
      approvalsRequired
      approvals {
        approver
        approvedAt
        voidedAt
        voidReason
      }
      approvalExpiresAt
      approvedAt
      deadline
      proposedBy
      assignee
      claimedBy
      escalatedTo
      heldBy
      heldFrom
      rule
      createdAt
      nextRevision {
        id
        revision
        state
      }
      previousRevision {
        id
        revision
      }
      history(last: 50) {
        edges {
          node {
            sequence
            type
            occurredAt
            actor
            details
          }
        }
      }
    }
  }
}
    `, {"hash":"sha256:2b21c705170b3bb5a644429100d069c4294f4e9733b85cef8602f9a2063ffc0e"}) as unknown as TypedDocumentString<ApprovalsProposalQuery, ApprovalsProposalQueryVariables>;
export const ApprovalsClaimDocument = new TypedDocumentString(`
    mutation ApprovalsClaim($id: ID!) {
  claimProposal(input: {id: $id, leaseSeconds: 120}) {
    __typename
    ... on ClaimProposalPayload {
      claimed
      lease {
        token
      }
      proposal {
        revision
        fingerprint
      }
    }
    ... on UserError {
      code
      message
    }
  }
}
    `, {"hash":"sha256:10e2dcc6c1b4fae9908ba9362d14ec28630db545ff01f7ee149aa58e6bb0a0f8"}) as unknown as TypedDocumentString<ApprovalsClaimMutation, ApprovalsClaimMutationVariables>;
export const ApprovalsReviewDocument = new TypedDocumentString(`
    mutation ApprovalsReview($token: String!, $decision: ProposalReviewDecision!, $revision: Int, $fingerprint: String, $reason: String) {
  reviewProposal(
    input: {token: $token, decision: $decision, revision: $revision, fingerprint: $fingerprint, reason: $reason}
  ) {
    __typename
    ... on ReviewProposalPayload {
      proposal {
        state
      }
    }
    ... on UserError {
      code
      message
    }
  }
}
    `, {"hash":"sha256:266f6a86e0185092c22dd47494395fbbb80a0deacdb71db1658c88bf62bce950"}) as unknown as TypedDocumentString<ApprovalsReviewMutation, ApprovalsReviewMutationVariables>;
export const ApprovalsReleaseLeaseDocument = new TypedDocumentString(`
    mutation ApprovalsReleaseLease($token: String!) {
  releaseProposalLease(input: {token: $token}) {
    __typename
  }
}
    `, {"hash":"sha256:6011be5a405986a6a519438a163421e891c25db6779956067c3e0d1cdd6a1b72"}) as unknown as TypedDocumentString<ApprovalsReleaseLeaseMutation, ApprovalsReleaseLeaseMutationVariables>;
export const ApprovalsCancelDocument = new TypedDocumentString(`
    mutation ApprovalsCancel($id: ID!, $reason: String!) {
  cancelProposal(input: {id: $id, reason: $reason}) {
    __typename
    ... on UserError {
      code
      message
    }
  }
}
    `, {"hash":"sha256:e34f28c8043934cdec83dc52d697d7244c88752e424efab5ea09ec1b321067a7"}) as unknown as TypedDocumentString<ApprovalsCancelMutation, ApprovalsCancelMutationVariables>;
export const ApprovalsHoldDocument = new TypedDocumentString(`
    mutation ApprovalsHold($id: ID!, $reason: String!) {
  holdProposal(input: {id: $id, reason: $reason}) {
    __typename
    ... on UserError {
      code
      message
    }
  }
}
    `, {"hash":"sha256:637192ae8bf563784e28327435481da97c4d04c3b218dcd684d507171d1899f9"}) as unknown as TypedDocumentString<ApprovalsHoldMutation, ApprovalsHoldMutationVariables>;
export const ApprovalsResumeDocument = new TypedDocumentString(`
    mutation ApprovalsResume($id: ID!, $reason: String!) {
  resumeProposal(input: {id: $id, reason: $reason}) {
    __typename
    ... on UserError {
      code
      message
    }
  }
}
    `, {"hash":"sha256:cbcdaf7294ad8c1cb8360710b380b84394c02467c1b499b8e2e007732352c8c0"}) as unknown as TypedDocumentString<ApprovalsResumeMutation, ApprovalsResumeMutationVariables>;
export const ApprovalsEscalateDocument = new TypedDocumentString(`
    mutation ApprovalsEscalate($id: ID!, $reason: String!, $to: String!) {
  escalateProposal(input: {id: $id, reason: $reason, to: $to}) {
    __typename
    ... on UserError {
      code
      message
    }
  }
}
    `, {"hash":"sha256:d90a28225b81f68d755d3fd5115ca80bf975c954d751fd441be739d873a23812"}) as unknown as TypedDocumentString<ApprovalsEscalateMutation, ApprovalsEscalateMutationVariables>;
export const ApprovalsReconcileDocument = new TypedDocumentString(`
    mutation ApprovalsReconcile($id: ID!, $executed: Boolean!, $evidence: String!, $fingerprint: String) {
  reconcileProposal(
    input: {id: $id, executed: $executed, evidence: $evidence, fingerprint: $fingerprint}
  ) {
    __typename
    ... on UserError {
      code
      message
    }
  }
}
    `, {"hash":"sha256:34833d91a25a1f18b2d648a1a640b076a6f20b5b0b404a16c727b1936f33ab99"}) as unknown as TypedDocumentString<ApprovalsReconcileMutation, ApprovalsReconcileMutationVariables>;
export const ApprovalsEventsDocument = new TypedDocumentString(`
    subscription ApprovalsEvents {
  proposalEvents {
    sequence
    type
    serverTime
    proposal {
      id
    }
  }
}
    `, {"hash":"sha256:b06662192e7711213d06ca8d98af5f316caefa829b6a18795d7b9fd18381335d"}) as unknown as TypedDocumentString<ApprovalsEventsSubscription, ApprovalsEventsSubscriptionVariables>;
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
        details
      }
    }
    pageInfo {
      hasPreviousPage
      startCursor
    }
  }
}
    `, {"hash":"sha256:2796da15a998106053e5aa4d429e09965f9c8e7757d67be2894d8851f31659f9"}) as unknown as TypedDocumentString<DashboardChartHistoryQuery, DashboardChartHistoryQueryVariables>;
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
export const DashboardChartEventsDocument = new TypedDocumentString(`
    subscription DashboardChartEvents($afterSequence: Int) {
  queueEvents(
    afterSequence: $afterSequence
    filter: {types: [ITEM_DECIDED, LEASE_EXPIRED]}
  ) {
    sequence
    type
    occurredAt
    serverTime
    details
  }
}
    `, {"hash":"sha256:5dbaf8f3c7d0dfa7dcde6f3b6ba511e5780408c3ba44ffd3ea5d5db589f8f30a"}) as unknown as TypedDocumentString<DashboardChartEventsSubscription, DashboardChartEventsSubscriptionVariables>;
export const DashboardProposalStatsDocument = new TypedDocumentString(`
    query DashboardProposalStats {
  serverTime
  proposalStats {
    byState {
      key
      count
    }
    pendingByAge {
      key
      count
    }
    pendingByRisk {
      key
      count
    }
    needingReconciliation
    executionFailures
    stale
    decisionWaitP50Seconds
    decisionWaitP95Seconds
  }
  proposals(filter: {states: [APPROVED]}, first: 100) {
    edges {
      node {
        approvalExpiresAt
      }
    }
    pageInfo {
      hasNextPage
    }
  }
}
    `, {"hash":"sha256:97d2826be366bb10812cbb3fc264cdaab49d0ad8cee84477c2aef47263c044e4"}) as unknown as TypedDocumentString<DashboardProposalStatsQuery, DashboardProposalStatsQueryVariables>;
export const DashboardProposalChangesDocument = new TypedDocumentString(`
    subscription DashboardProposalChanges {
  proposalEvents {
    sequence
    serverTime
  }
}
    `, {"hash":"sha256:0a863d30083a18ea2de0101d4f8728e91d559311f63e6685d84f7db95fd03274"}) as unknown as TypedDocumentString<DashboardProposalChangesSubscription, DashboardProposalChangesSubscriptionVariables>;
export const ReviewViewerDocument = new TypedDocumentString(`
    query ReviewViewer {
  serverTime
  viewer {
    name
    roles
  }
  categories {
    name
  }
}
    `, {"hash":"sha256:316a5ddc3b73042753d7fd284cd3bbeb4f21976bfd47aa55ff0cd5db7024c9c1"}) as unknown as TypedDocumentString<ReviewViewerQuery, ReviewViewerQueryVariables>;
export const ReviewClaimDocument = new TypedDocumentString(`
    mutation ReviewClaim($batchId: String, $leaseSeconds: Int) {
  claimItem(
    input: {batchId: $batchId, leaseSeconds: $leaseSeconds, releaseOnDisconnect: true}
  ) {
    __typename
    ... on ClaimItemPayload {
      claimed
      serverTime
      item {
        id
        batchId
        recordId
        proposedCategory
        reason
        addedBy
        createdAt
        leaseNumber
      }
      lease {
        token
        leaseExpiresAt
      }
    }
    ... on UserError {
      code
      field
      message
    }
  }
}
    `, {"hash":"sha256:878d9d7bf0b203b7abb9fc8354db6ab86bc77bad74b3ce24cf0025f5759b173a"}) as unknown as TypedDocumentString<ReviewClaimMutation, ReviewClaimMutationVariables>;
export const ReviewRenewDocument = new TypedDocumentString(`
    mutation ReviewRenew($token: String!, $leaseSeconds: Int) {
  renewLease(input: {token: $token, leaseSeconds: $leaseSeconds}) {
    __typename
    ... on RenewLeasePayload {
      serverTime
      item {
        leaseExpiresAt
      }
    }
    ... on UserError {
      code
      message
    }
  }
}
    `, {"hash":"sha256:53128f49f15e03b97590b873c75d05cc7b6325666f4b25c4992100840eddd032"}) as unknown as TypedDocumentString<ReviewRenewMutation, ReviewRenewMutationVariables>;
export const ReviewReleaseDocument = new TypedDocumentString(`
    mutation ReviewRelease($token: String!) {
  releaseLease(input: {token: $token}) {
    __typename
    ... on ReleaseLeasePayload {
      serverTime
    }
    ... on UserError {
      code
      message
    }
  }
}
    `, {"hash":"sha256:c9091018e2e8f7003c222f5a5ddf0aa1d41125145cc11dcb097eb07aee4690ee"}) as unknown as TypedDocumentString<ReviewReleaseMutation, ReviewReleaseMutationVariables>;
export const ReviewDecideDocument = new TypedDocumentString(`
    mutation ReviewDecide($token: String!, $decision: Decision!, $category: String) {
  decideItem(input: {token: $token, decision: $decision, category: $category}) {
    __typename
    ... on DecideItemPayload {
      serverTime
      item {
        status
        finalCategory
      }
    }
    ... on UserError {
      code
      field
      message
    }
  }
}
    `, {"hash":"sha256:ab05424e7c8449c8f34df18c4421de848695b13ae6aaa203186f3b1606a637a5"}) as unknown as TypedDocumentString<ReviewDecideMutation, ReviewDecideMutationVariables>;
export const ReviewLeaseNoticesDocument = new TypedDocumentString(`
    subscription ReviewLeaseNotices($token: String!) {
  leaseEvents(token: $token) {
    kind
    leaseExpiresAt
    serverTime
    event {
      actor
    }
  }
}
    `, {"hash":"sha256:feb2d47546dcbb05c36d04dc3c9d0efcb8108ded54476e0806a3777766359183"}) as unknown as TypedDocumentString<ReviewLeaseNoticesSubscription, ReviewLeaseNoticesSubscriptionVariables>;