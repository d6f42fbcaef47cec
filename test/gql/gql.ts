/* eslint-disable */
import * as types from './graphql.js';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  mutation TutorialSetUp($names: [String!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n      ... on AddCategoriesPayload { categories { name } }\n    }\n  }\n": typeof types.TutorialSetUpDocument,
    "\n  mutation TutorialAdd($input: AddItemInput!) {\n    addItem(input: $input) {\n      __typename\n      ... on AddItemPayload { item { batchId recordId status claimState } }\n    }\n  }\n": typeof types.TutorialAddDocument,
    "\n  mutation TutorialClaim($reviewer: String!, $leaseSeconds: Int) {\n    claimItem(input: { reviewer: $reviewer, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        serverTime\n        item { batchId recordId proposedCategory reason claimedBy claimState }\n        lease { token holder claimedAt expiresAt }\n      }\n      ... on UserError { code field }\n    }\n  }\n": typeof types.TutorialClaimDocument,
    "\n  mutation TutorialRenew($token: String!, $leaseSeconds: Int) {\n    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on RenewLeasePayload { item { leaseExpiresAt } }\n      ... on UserError { code }\n    }\n  }\n": typeof types.TutorialRenewDocument,
    "\n  mutation TutorialDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { batchId recordId status finalCategory reviewedBy } }\n      ... on UserError { code }\n    }\n  }\n": typeof types.TutorialDecideDocument,
    "\n  query TutorialShow($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { batchId recordId status proposedCategory finalCategory reviewedBy claimedBy claimState }\n      ... on UserError { code }\n    }\n  }\n": typeof types.TutorialShowDocument,
    "\n  mutation ConcurrentSetUp($names: [String!]!, $items: [AddItemInput!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n    }\n    addItems(input: { items: $items }) {\n      __typename\n      ... on AddItemsPayload { addedCount refusedCount }\n    }\n  }\n": typeof types.ConcurrentSetUpDocument,
    "\n  mutation ConcurrentClaim($reviewer: String!) {\n    claimItem(input: { reviewer: $reviewer, leaseSeconds: 600 }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        item { id batchId recordId claimedBy version }\n        lease { token holder }\n      }\n      ... on UserError { code message }\n    }\n  }\n": typeof types.ConcurrentClaimDocument,
    "\n  mutation ConcurrentDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { id status finalCategory reviewedBy claimState } }\n      ... on UserError { code message }\n    }\n  }\n": typeof types.ConcurrentDecideDocument,
};
const documents: Documents = {
    "\n  mutation TutorialSetUp($names: [String!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n      ... on AddCategoriesPayload { categories { name } }\n    }\n  }\n": types.TutorialSetUpDocument,
    "\n  mutation TutorialAdd($input: AddItemInput!) {\n    addItem(input: $input) {\n      __typename\n      ... on AddItemPayload { item { batchId recordId status claimState } }\n    }\n  }\n": types.TutorialAddDocument,
    "\n  mutation TutorialClaim($reviewer: String!, $leaseSeconds: Int) {\n    claimItem(input: { reviewer: $reviewer, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        serverTime\n        item { batchId recordId proposedCategory reason claimedBy claimState }\n        lease { token holder claimedAt expiresAt }\n      }\n      ... on UserError { code field }\n    }\n  }\n": types.TutorialClaimDocument,
    "\n  mutation TutorialRenew($token: String!, $leaseSeconds: Int) {\n    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on RenewLeasePayload { item { leaseExpiresAt } }\n      ... on UserError { code }\n    }\n  }\n": types.TutorialRenewDocument,
    "\n  mutation TutorialDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { batchId recordId status finalCategory reviewedBy } }\n      ... on UserError { code }\n    }\n  }\n": types.TutorialDecideDocument,
    "\n  query TutorialShow($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { batchId recordId status proposedCategory finalCategory reviewedBy claimedBy claimState }\n      ... on UserError { code }\n    }\n  }\n": types.TutorialShowDocument,
    "\n  mutation ConcurrentSetUp($names: [String!]!, $items: [AddItemInput!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n    }\n    addItems(input: { items: $items }) {\n      __typename\n      ... on AddItemsPayload { addedCount refusedCount }\n    }\n  }\n": types.ConcurrentSetUpDocument,
    "\n  mutation ConcurrentClaim($reviewer: String!) {\n    claimItem(input: { reviewer: $reviewer, leaseSeconds: 600 }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        item { id batchId recordId claimedBy version }\n        lease { token holder }\n      }\n      ... on UserError { code message }\n    }\n  }\n": types.ConcurrentClaimDocument,
    "\n  mutation ConcurrentDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { id status finalCategory reviewedBy claimState } }\n      ... on UserError { code message }\n    }\n  }\n": types.ConcurrentDecideDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation TutorialSetUp($names: [String!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n      ... on AddCategoriesPayload { categories { name } }\n    }\n  }\n"): (typeof documents)["\n  mutation TutorialSetUp($names: [String!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n      ... on AddCategoriesPayload { categories { name } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation TutorialAdd($input: AddItemInput!) {\n    addItem(input: $input) {\n      __typename\n      ... on AddItemPayload { item { batchId recordId status claimState } }\n    }\n  }\n"): (typeof documents)["\n  mutation TutorialAdd($input: AddItemInput!) {\n    addItem(input: $input) {\n      __typename\n      ... on AddItemPayload { item { batchId recordId status claimState } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation TutorialClaim($reviewer: String!, $leaseSeconds: Int) {\n    claimItem(input: { reviewer: $reviewer, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        serverTime\n        item { batchId recordId proposedCategory reason claimedBy claimState }\n        lease { token holder claimedAt expiresAt }\n      }\n      ... on UserError { code field }\n    }\n  }\n"): (typeof documents)["\n  mutation TutorialClaim($reviewer: String!, $leaseSeconds: Int) {\n    claimItem(input: { reviewer: $reviewer, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        serverTime\n        item { batchId recordId proposedCategory reason claimedBy claimState }\n        lease { token holder claimedAt expiresAt }\n      }\n      ... on UserError { code field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation TutorialRenew($token: String!, $leaseSeconds: Int) {\n    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on RenewLeasePayload { item { leaseExpiresAt } }\n      ... on UserError { code }\n    }\n  }\n"): (typeof documents)["\n  mutation TutorialRenew($token: String!, $leaseSeconds: Int) {\n    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on RenewLeasePayload { item { leaseExpiresAt } }\n      ... on UserError { code }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation TutorialDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { batchId recordId status finalCategory reviewedBy } }\n      ... on UserError { code }\n    }\n  }\n"): (typeof documents)["\n  mutation TutorialDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { batchId recordId status finalCategory reviewedBy } }\n      ... on UserError { code }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TutorialShow($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { batchId recordId status proposedCategory finalCategory reviewedBy claimedBy claimState }\n      ... on UserError { code }\n    }\n  }\n"): (typeof documents)["\n  query TutorialShow($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { batchId recordId status proposedCategory finalCategory reviewedBy claimedBy claimState }\n      ... on UserError { code }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConcurrentSetUp($names: [String!]!, $items: [AddItemInput!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n    }\n    addItems(input: { items: $items }) {\n      __typename\n      ... on AddItemsPayload { addedCount refusedCount }\n    }\n  }\n"): (typeof documents)["\n  mutation ConcurrentSetUp($names: [String!]!, $items: [AddItemInput!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n    }\n    addItems(input: { items: $items }) {\n      __typename\n      ... on AddItemsPayload { addedCount refusedCount }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConcurrentClaim($reviewer: String!) {\n    claimItem(input: { reviewer: $reviewer, leaseSeconds: 600 }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        item { id batchId recordId claimedBy version }\n        lease { token holder }\n      }\n      ... on UserError { code message }\n    }\n  }\n"): (typeof documents)["\n  mutation ConcurrentClaim($reviewer: String!) {\n    claimItem(input: { reviewer: $reviewer, leaseSeconds: 600 }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        item { id batchId recordId claimedBy version }\n        lease { token holder }\n      }\n      ... on UserError { code message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConcurrentDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { id status finalCategory reviewedBy claimState } }\n      ... on UserError { code message }\n    }\n  }\n"): (typeof documents)["\n  mutation ConcurrentDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { id status finalCategory reviewedBy claimState } }\n      ... on UserError { code message }\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;