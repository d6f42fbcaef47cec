/* eslint-disable */
import * as types from './graphql.js';



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
    "query Latest { events(last: 1) { __typename edges { __typename node { __typename id sequence } } } }": typeof types.LatestDocument,
    "subscription Watch($batchId: String!, $afterSequence: Int) {\n  queueEvents(afterSequence: $afterSequence, filter: { batchId: $batchId }) {\n    __typename sequence type item { __typename id recordId status claimState }\n  }\n}": typeof types.WatchDocument,
    "mutation Add($input: AddItemInput!) {\n  addItem(input: $input) {\n    __typename\n    ... on AddItemPayload { item { __typename id recordId status } }\n    ... on Error { message }\n  }\n}": typeof types.AddDocument,
    "mutation Claim($batchId: String!) {\n  claimItem(input: { batchId: $batchId, leaseSeconds: 60 }) {\n    __typename\n    ... on ClaimItemPayload { claimed item { __typename id recordId claimState } lease { __typename token leaseExpiresAt } }\n    ... on Error { message }\n  }\n}": typeof types.ClaimDocument,
    "mutation Decide($token: String!) {\n  decideItem(input: { token: $token, decision: ACCEPTED }) {\n    __typename\n    ... on DecideItemPayload { item { __typename id status claimState } }\n    ... on Error { message }\n  }\n}": typeof types.DecideDocument,
};
const documents: Documents = {
    "query Latest { events(last: 1) { __typename edges { __typename node { __typename id sequence } } } }": types.LatestDocument,
    "subscription Watch($batchId: String!, $afterSequence: Int) {\n  queueEvents(afterSequence: $afterSequence, filter: { batchId: $batchId }) {\n    __typename sequence type item { __typename id recordId status claimState }\n  }\n}": types.WatchDocument,
    "mutation Add($input: AddItemInput!) {\n  addItem(input: $input) {\n    __typename\n    ... on AddItemPayload { item { __typename id recordId status } }\n    ... on Error { message }\n  }\n}": types.AddDocument,
    "mutation Claim($batchId: String!) {\n  claimItem(input: { batchId: $batchId, leaseSeconds: 60 }) {\n    __typename\n    ... on ClaimItemPayload { claimed item { __typename id recordId claimState } lease { __typename token leaseExpiresAt } }\n    ... on Error { message }\n  }\n}": types.ClaimDocument,
    "mutation Decide($token: String!) {\n  decideItem(input: { token: $token, decision: ACCEPTED }) {\n    __typename\n    ... on DecideItemPayload { item { __typename id status claimState } }\n    ... on Error { message }\n  }\n}": types.DecideDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query Latest { events(last: 1) { __typename edges { __typename node { __typename id sequence } } } }"): typeof import('./graphql.js').LatestDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "subscription Watch($batchId: String!, $afterSequence: Int) {\n  queueEvents(afterSequence: $afterSequence, filter: { batchId: $batchId }) {\n    __typename sequence type item { __typename id recordId status claimState }\n  }\n}"): typeof import('./graphql.js').WatchDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation Add($input: AddItemInput!) {\n  addItem(input: $input) {\n    __typename\n    ... on AddItemPayload { item { __typename id recordId status } }\n    ... on Error { message }\n  }\n}"): typeof import('./graphql.js').AddDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation Claim($batchId: String!) {\n  claimItem(input: { batchId: $batchId, leaseSeconds: 60 }) {\n    __typename\n    ... on ClaimItemPayload { claimed item { __typename id recordId claimState } lease { __typename token leaseExpiresAt } }\n    ... on Error { message }\n  }\n}"): typeof import('./graphql.js').ClaimDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation Decide($token: String!) {\n  decideItem(input: { token: $token, decision: ACCEPTED }) {\n    __typename\n    ... on DecideItemPayload { item { __typename id status claimState } }\n    ... on Error { message }\n  }\n}"): typeof import('./graphql.js').DecideDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
