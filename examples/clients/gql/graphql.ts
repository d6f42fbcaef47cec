/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** A proposal to review. Text must be trimmed and free of control characters. */
export type AddItemInput = {
  /** Batch id, 1–100 characters; (batchId, recordId) must be new. */
  batchId: string;
  /** An allowed, unretired category (≤ 50 characters). */
  proposedCategory: string;
  /** Why the machine proposes it, 1–1000 characters. */
  reason: string;
  /** Record id, 1–100 characters. */
  recordId: string;
};

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

export type LatestQueryVariables = Exact<{ [key: string]: never; }>;


export type LatestQuery = { events: { __typename: 'EventConnection', edges: Array<{ __typename: 'EventEdge', node: { __typename: 'Event', id: string, sequence: number } }> } };

export type WatchSubscriptionVariables = Exact<{
  batchId: string;
  afterSequence?: number | null | undefined;
}>;


export type WatchSubscription = { queueEvents: { __typename: 'Event', sequence: number, type: EventType, item: { __typename: 'Item', id: string, recordId: string, status: ItemStatus, claimState: ClaimState } | null } };

export type AddMutationVariables = Exact<{
  input: AddItemInput;
}>;


export type AddMutation = { addItem:
    | { __typename: 'AddItemPayload', item: { __typename: 'Item', id: string, recordId: string, status: ItemStatus } }
    | { __typename: 'UserError', message: string }
   };

export type ClaimMutationVariables = Exact<{
  batchId: string;
}>;


export type ClaimMutation = { claimItem:
    | { __typename: 'ClaimItemPayload', claimed: boolean, item: { __typename: 'Item', id: string, recordId: string, claimState: ClaimState } | null, lease: { __typename: 'IssuedLease', token: string, leaseExpiresAt: string } | null }
    | { __typename: 'UserError', message: string }
   };

export type DecideMutationVariables = Exact<{
  token: string;
}>;


export type DecideMutation = { decideItem:
    | { __typename: 'DecideItemPayload', item: { __typename: 'Item', id: string, status: ItemStatus, claimState: ClaimState } }
    | { __typename: 'UserError', message: string }
   };

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

export const LatestDocument = new TypedDocumentString(`
    query Latest {
  events(last: 1) {
    __typename
    edges {
      __typename
      node {
        __typename
        id
        sequence
      }
    }
  }
}
    `, {"hash":"sha256:326098421289ee79d3415ee803a3aeebf75c7e0265ff59dfa519323d64060720"}) as unknown as TypedDocumentString<LatestQuery, LatestQueryVariables>;
export const WatchDocument = new TypedDocumentString(`
    subscription Watch($batchId: String!, $afterSequence: Int) {
  queueEvents(afterSequence: $afterSequence, filter: {batchId: $batchId}) {
    __typename
    sequence
    type
    item {
      __typename
      id
      recordId
      status
      claimState
    }
  }
}
    `, {"hash":"sha256:9817ce200ddfbb58e39c6d75471c168ac7e0f1ebd08a510b0c2e136797a8fb27"}) as unknown as TypedDocumentString<WatchSubscription, WatchSubscriptionVariables>;
export const AddDocument = new TypedDocumentString(`
    mutation Add($input: AddItemInput!) {
  addItem(input: $input) {
    __typename
    ... on AddItemPayload {
      item {
        __typename
        id
        recordId
        status
      }
    }
    ... on Error {
      message
    }
  }
}
    `, {"hash":"sha256:6e263be7f29a1cb9c9a0ca26e11ab682bc7e844b452d4b7383ba00ff87526e76"}) as unknown as TypedDocumentString<AddMutation, AddMutationVariables>;
export const ClaimDocument = new TypedDocumentString(`
    mutation Claim($batchId: String!) {
  claimItem(input: {batchId: $batchId, leaseSeconds: 60}) {
    __typename
    ... on ClaimItemPayload {
      claimed
      item {
        __typename
        id
        recordId
        claimState
      }
      lease {
        __typename
        token
        leaseExpiresAt
      }
    }
    ... on Error {
      message
    }
  }
}
    `, {"hash":"sha256:3d10ab53de408f6ec8c5001af9aedccf5ce86de95a596638a54815e6ead0e0a7"}) as unknown as TypedDocumentString<ClaimMutation, ClaimMutationVariables>;
export const DecideDocument = new TypedDocumentString(`
    mutation Decide($token: String!) {
  decideItem(input: {token: $token, decision: ACCEPTED}) {
    __typename
    ... on DecideItemPayload {
      item {
        __typename
        id
        status
        claimState
      }
    }
    ... on Error {
      message
    }
  }
}
    `, {"hash":"sha256:16744cac7b79f0f955cfe61d5b97f9b8b4dd7b3af07052b747afc886829a5924"}) as unknown as TypedDocumentString<DecideMutation, DecideMutationVariables>;