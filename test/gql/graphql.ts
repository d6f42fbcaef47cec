/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
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
  /** The item changed while this decision ran. */
  | 'DECISION_CONFLICT'
  /** The category already exists, or is listed twice. */
  | 'DUPLICATE_CATEGORY'
  /** An item with this (batchId, recordId) already exists. */
  | 'DUPLICATE_ITEM'
  /** An argument is outside its documented range. */
  | 'INVALID_ARGUMENT'
  /** Text input is empty, too long, padded with whitespace or contains control characters. */
  | 'INVALID_TEXT'
  /** The lease token is not 20–200 characters of A–Z, a–z, 0–9, "-" or "_". */
  | 'INVALID_TOKEN'
  /** No item has this id or (batchId, recordId). */
  | 'ITEM_NOT_FOUND'
  /** leaseSeconds must be a whole number from 30 to 3600. */
  | 'LEASE_OUT_OF_RANGE'
  /** A single call may add at most 500 items. */
  | 'TOO_MANY_ITEMS'
  /** ACCEPTED and REJECTED decisions take no category. */
  | 'UNEXPECTED_CATEGORY'
  /** The category is not an allowed category. */
  | 'UNKNOWN_CATEGORY';

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

export type TutorialSetUpMutationVariables = Exact<{
  names: Array<string> | string;
}>;


export type TutorialSetUpMutation = { addCategories:
    | { __typename: 'AddCategoriesPayload', categories: Array<{ name: string }> }
    | { __typename: 'UserError' }
   };

export type TutorialAddMutationVariables = Exact<{
  input: AddItemInput;
}>;


export type TutorialAddMutation = { addItem:
    | { __typename: 'AddItemPayload', item: { batchId: string, recordId: string, status: ItemStatus, claimState: ClaimState } }
    | { __typename: 'UserError' }
   };

export type TutorialClaimMutationVariables = Exact<{
  reviewer: string;
  leaseSeconds?: number | null | undefined;
}>;


export type TutorialClaimMutation = { claimItem:
    | { __typename: 'ClaimItemPayload', claimed: boolean, serverTime: string, item: { batchId: string, recordId: string, proposedCategory: string, reason: string, claimedBy: string | null, claimState: ClaimState } | null, lease: { token: string, holder: string, claimedAt: string, expiresAt: string } | null }
    | { __typename: 'UserError', code: ErrorCode, field: string | null }
   };

export type TutorialRenewMutationVariables = Exact<{
  token: string;
  leaseSeconds?: number | null | undefined;
}>;


export type TutorialRenewMutation = { renewLease:
    | { __typename: 'RenewLeasePayload', item: { leaseExpiresAt: string | null } }
    | { __typename: 'UserError', code: ErrorCode }
   };

export type TutorialDecideMutationVariables = Exact<{
  token: string;
  decision: Decision;
  category?: string | null | undefined;
}>;


export type TutorialDecideMutation = { decideItem:
    | { __typename: 'DecideItemPayload', item: { batchId: string, recordId: string, status: ItemStatus, finalCategory: string | null, reviewedBy: string | null } }
    | { __typename: 'UserError', code: ErrorCode }
   };

export type TutorialShowQueryVariables = Exact<{
  batchId: string;
  recordId: string;
}>;


export type TutorialShowQuery = { item:
    | { __typename: 'Item', batchId: string, recordId: string, status: ItemStatus, proposedCategory: string, finalCategory: string | null, reviewedBy: string | null, claimedBy: string | null, claimState: ClaimState }
    | { __typename: 'UserError', code: ErrorCode }
   };

export type ConcurrentSetUpMutationVariables = Exact<{
  names: Array<string> | string;
  items: Array<AddItemInput> | AddItemInput;
}>;


export type ConcurrentSetUpMutation = { addCategories:
    | { __typename: 'AddCategoriesPayload' }
    | { __typename: 'UserError' }
  , addItems:
    | { __typename: 'AddItemsPayload', addedCount: number, refusedCount: number }
    | { __typename: 'UserError' }
   };

export type ConcurrentClaimMutationVariables = Exact<{
  reviewer: string;
}>;


export type ConcurrentClaimMutation = { claimItem:
    | { __typename: 'ClaimItemPayload', claimed: boolean, item: { id: string, batchId: string, recordId: string, claimedBy: string | null, version: number } | null, lease: { token: string, holder: string } | null }
    | { __typename: 'UserError', code: ErrorCode, message: string }
   };

export type ConcurrentDecideMutationVariables = Exact<{
  token: string;
  decision: Decision;
  category?: string | null | undefined;
}>;


export type ConcurrentDecideMutation = { decideItem:
    | { __typename: 'DecideItemPayload', item: { id: string, status: ItemStatus, finalCategory: string | null, reviewedBy: string | null, claimState: ClaimState } }
    | { __typename: 'UserError', code: ErrorCode, message: string }
   };


export const TutorialSetUpDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"TutorialSetUp"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"names"}},"type":{"kind":"NonNullType","type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"addCategories"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"names"},"value":{"kind":"Variable","name":{"kind":"Name","value":"names"}}}]}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"AddCategoriesPayload"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"categories"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}}]}}]}}]}}]}}]} as unknown as DocumentNode<TutorialSetUpMutation, TutorialSetUpMutationVariables>;
export const TutorialAddDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"TutorialAdd"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"AddItemInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"addItem"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"AddItemPayload"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"item"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"recordId"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"claimState"}}]}}]}}]}}]}}]} as unknown as DocumentNode<TutorialAddMutation, TutorialAddMutationVariables>;
export const TutorialClaimDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"TutorialClaim"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"reviewer"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"leaseSeconds"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"claimItem"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"reviewer"},"value":{"kind":"Variable","name":{"kind":"Name","value":"reviewer"}}},{"kind":"ObjectField","name":{"kind":"Name","value":"leaseSeconds"},"value":{"kind":"Variable","name":{"kind":"Name","value":"leaseSeconds"}}}]}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ClaimItemPayload"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"claimed"}},{"kind":"Field","name":{"kind":"Name","value":"serverTime"}},{"kind":"Field","name":{"kind":"Name","value":"item"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"recordId"}},{"kind":"Field","name":{"kind":"Name","value":"proposedCategory"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"claimedBy"}},{"kind":"Field","name":{"kind":"Name","value":"claimState"}}]}},{"kind":"Field","name":{"kind":"Name","value":"lease"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"token"}},{"kind":"Field","name":{"kind":"Name","value":"holder"}},{"kind":"Field","name":{"kind":"Name","value":"claimedAt"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}}]}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"UserError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"field"}}]}}]}}]}}]} as unknown as DocumentNode<TutorialClaimMutation, TutorialClaimMutationVariables>;
export const TutorialRenewDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"TutorialRenew"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"token"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"leaseSeconds"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"renewLease"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"token"},"value":{"kind":"Variable","name":{"kind":"Name","value":"token"}}},{"kind":"ObjectField","name":{"kind":"Name","value":"leaseSeconds"},"value":{"kind":"Variable","name":{"kind":"Name","value":"leaseSeconds"}}}]}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"RenewLeasePayload"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"item"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"leaseExpiresAt"}}]}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"UserError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}}]}}]}}]}}]} as unknown as DocumentNode<TutorialRenewMutation, TutorialRenewMutationVariables>;
export const TutorialDecideDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"TutorialDecide"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"token"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"decision"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Decision"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"category"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"decideItem"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"token"},"value":{"kind":"Variable","name":{"kind":"Name","value":"token"}}},{"kind":"ObjectField","name":{"kind":"Name","value":"decision"},"value":{"kind":"Variable","name":{"kind":"Name","value":"decision"}}},{"kind":"ObjectField","name":{"kind":"Name","value":"category"},"value":{"kind":"Variable","name":{"kind":"Name","value":"category"}}}]}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"DecideItemPayload"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"item"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"recordId"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"finalCategory"}},{"kind":"Field","name":{"kind":"Name","value":"reviewedBy"}}]}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"UserError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}}]}}]}}]}}]} as unknown as DocumentNode<TutorialDecideMutation, TutorialDecideMutationVariables>;
export const TutorialShowDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"TutorialShow"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"batchId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"recordId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"item"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"batchId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"batchId"}}},{"kind":"Argument","name":{"kind":"Name","value":"recordId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"recordId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Item"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"recordId"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"proposedCategory"}},{"kind":"Field","name":{"kind":"Name","value":"finalCategory"}},{"kind":"Field","name":{"kind":"Name","value":"reviewedBy"}},{"kind":"Field","name":{"kind":"Name","value":"claimedBy"}},{"kind":"Field","name":{"kind":"Name","value":"claimState"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"UserError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}}]}}]}}]}}]} as unknown as DocumentNode<TutorialShowQuery, TutorialShowQueryVariables>;
export const ConcurrentSetUpDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"ConcurrentSetUp"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"names"}},"type":{"kind":"NonNullType","type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"items"}},"type":{"kind":"NonNullType","type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"AddItemInput"}}}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"addCategories"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"names"},"value":{"kind":"Variable","name":{"kind":"Name","value":"names"}}}]}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}}]}},{"kind":"Field","name":{"kind":"Name","value":"addItems"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"items"},"value":{"kind":"Variable","name":{"kind":"Name","value":"items"}}}]}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"AddItemsPayload"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"addedCount"}},{"kind":"Field","name":{"kind":"Name","value":"refusedCount"}}]}}]}}]}}]} as unknown as DocumentNode<ConcurrentSetUpMutation, ConcurrentSetUpMutationVariables>;
export const ConcurrentClaimDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"ConcurrentClaim"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"reviewer"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"claimItem"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"reviewer"},"value":{"kind":"Variable","name":{"kind":"Name","value":"reviewer"}}},{"kind":"ObjectField","name":{"kind":"Name","value":"leaseSeconds"},"value":{"kind":"IntValue","value":"600"}}]}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ClaimItemPayload"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"claimed"}},{"kind":"Field","name":{"kind":"Name","value":"item"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"recordId"}},{"kind":"Field","name":{"kind":"Name","value":"claimedBy"}},{"kind":"Field","name":{"kind":"Name","value":"version"}}]}},{"kind":"Field","name":{"kind":"Name","value":"lease"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"token"}},{"kind":"Field","name":{"kind":"Name","value":"holder"}}]}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"UserError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]}}]} as unknown as DocumentNode<ConcurrentClaimMutation, ConcurrentClaimMutationVariables>;
export const ConcurrentDecideDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"ConcurrentDecide"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"token"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"decision"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Decision"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"category"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"decideItem"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"token"},"value":{"kind":"Variable","name":{"kind":"Name","value":"token"}}},{"kind":"ObjectField","name":{"kind":"Name","value":"decision"},"value":{"kind":"Variable","name":{"kind":"Name","value":"decision"}}},{"kind":"ObjectField","name":{"kind":"Name","value":"category"},"value":{"kind":"Variable","name":{"kind":"Name","value":"category"}}}]}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"DecideItemPayload"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"item"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"finalCategory"}},{"kind":"Field","name":{"kind":"Name","value":"reviewedBy"}},{"kind":"Field","name":{"kind":"Name","value":"claimState"}}]}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"UserError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]}}]} as unknown as DocumentNode<ConcurrentDecideMutation, ConcurrentDecideMutationVariables>;