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
    "\n  mutation ErrSetUp($names: [String!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n      ... on AddCategoriesPayload { categories { name } }\n      ... on UserError { code field message }\n    }\n  }\n": typeof types.ErrSetUpDocument,
    "\n  mutation ErrRetire($name: String!) {\n    retireCategory(input: { name: $name }) {\n      __typename\n      ... on RetireCategoryPayload { category { name retired } }\n      ... on UserError { code field message }\n    }\n  }\n": typeof types.ErrRetireDocument,
    "\n  mutation ErrAdd($input: AddItemInput!) {\n    addItem(input: $input) {\n      __typename\n      ... on AddItemPayload { item { id version } }\n      ... on UserError { code field message }\n    }\n  }\n": typeof types.ErrAddDocument,
    "\n  mutation ErrAddMany($items: [AddItemInput!]!) {\n    addItems(input: { items: $items }) {\n      __typename\n      ... on AddItemsPayload {\n        addedCount\n        refusedCount\n        entries { index item { id } error { __typename code field } }\n      }\n      ... on UserError { code field message }\n    }\n  }\n": typeof types.ErrAddManyDocument,
    "\n  mutation ErrClaim($leaseSeconds: Int, $batchId: String) {\n    claimItem(input: { leaseSeconds: $leaseSeconds, batchId: $batchId }) {\n      __typename\n      ... on ClaimItemPayload { claimed item { recordId } lease { token } }\n      ... on UserError { code field message }\n    }\n  }\n": typeof types.ErrClaimDocument,
    "\n  mutation ErrRenew($token: String!, $leaseSeconds: Int) {\n    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on RenewLeasePayload { item { leaseExpiresAt } }\n      ... on UserError { code field message }\n    }\n  }\n": typeof types.ErrRenewDocument,
    "\n  mutation ErrRelease($token: String!) {\n    releaseLease(input: { token: $token }) {\n      __typename\n      ... on ReleaseLeasePayload { item { claimState } }\n      ... on UserError { code field message }\n    }\n  }\n": typeof types.ErrReleaseDocument,
    "\n  mutation ErrDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { status finalCategory } }\n      ... on UserError { code field message }\n    }\n  }\n": typeof types.ErrDecideDocument,
    "\n  query ErrShow($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { status claimState claimedBy leaseExpiresAt version finalCategory }\n      ... on UserError { code field }\n    }\n  }\n": typeof types.ErrShowDocument,
    "\n  query ErrCategories {\n    categories(includeRetired: true) { name retired }\n  }\n": typeof types.ErrCategoriesDocument,
    "\n  query ErrItemsPage($first: Int, $last: Int, $after: String, $before: String) {\n    items(first: $first, last: $last, after: $after, before: $before) { edges { cursor } }\n  }\n": typeof types.ErrItemsPageDocument,
    "\n  query ErrEventsPage($first: Int, $last: Int, $after: String, $before: String) {\n    events(first: $first, last: $last, after: $after, before: $before) { edges { cursor } }\n  }\n": typeof types.ErrEventsPageDocument,
    "\n  query ErrHistoryPage($batchId: String!, $recordId: String!, $first: Int, $last: Int, $after: String) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { history(first: $first, last: $last, after: $after) { edges { cursor } } }\n    }\n  }\n": typeof types.ErrHistoryPageDocument,
    "\n  mutation ErrCreateKey($name: String!, $roles: [Role!]!) {\n    createApiKey(input: { name: $name, roles: $roles }) {\n      __typename\n      ... on CreateApiKeyPayload { key apiKey { id } }\n      ... on UserError { code field message }\n    }\n  }\n": typeof types.ErrCreateKeyDocument,
    "\n  mutation ErrRevokeKey($id: Int!) {\n    revokeApiKey(input: { id: $id }) {\n      __typename\n      ... on RevokeApiKeyPayload { apiKey { id revokedBy } }\n      ... on UserError { code field message }\n    }\n  }\n": typeof types.ErrRevokeKeyDocument,
    "\n  query ErrApiKeys {\n    apiKeys { id }\n  }\n": typeof types.ErrApiKeysDocument,
    "\n  query ErrLastEvent {\n    events(last: 1) { edges { node { sequence } } }\n  }\n": typeof types.ErrLastEventDocument,
    "\n  query ErrEventsAfter($afterSequence: Int) {\n    events(first: 100, filter: { afterSequence: $afterSequence }) { edges { node { type actor details } } }\n  }\n": typeof types.ErrEventsAfterDocument,
    "\n  query ErrErrorCodeEnum {\n    __type(name: \"ErrorCode\") { enumValues { name } }\n  }\n": typeof types.ErrErrorCodeEnumDocument,
    "\n  fragment HiEvent on Event {\n    id\n    sequence\n    type\n    actor\n    occurredAt\n    categoryName\n    fromStatus\n    toStatus\n    leaseExpiresAt\n    leaseNumber\n    itemVersion\n    details\n    item { id batchId recordId version }\n  }\n": typeof types.HiEventFragmentDoc,
    "\n  fragment HiPageInfo on PageInfo {\n    startCursor\n    endCursor\n    hasNextPage\n    hasPreviousPage\n  }\n": typeof types.HiPageInfoFragmentDoc,
    "\n  mutation HiSetUp($names: [String!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n      ... on UserError { code field message }\n    }\n  }\n": typeof types.HiSetUpDocument,
    "\n  mutation HiRetire($name: String!) {\n    retireCategory(input: { name: $name }) {\n      __typename\n      ... on UserError { code field message }\n    }\n  }\n": typeof types.HiRetireDocument,
    "\n  mutation HiAdd($input: AddItemInput!) {\n    addItem(input: $input) {\n      __typename\n      ... on AddItemPayload { item { id version } }\n      ... on UserError { code field message }\n    }\n  }\n": typeof types.HiAddDocument,
    "\n  mutation HiAddMany($items: [AddItemInput!]!) {\n    addItems(input: { items: $items }) {\n      __typename\n      ... on AddItemsPayload { addedCount refusedCount }\n      ... on UserError { code field message }\n    }\n  }\n": typeof types.HiAddManyDocument,
    "\n  mutation HiClaim($leaseSeconds: Int, $batchId: String) {\n    claimItem(input: { leaseSeconds: $leaseSeconds, batchId: $batchId }) {\n      __typename\n      ... on ClaimItemPayload { claimed item { id recordId version } lease { token expiresAt } }\n      ... on UserError { code field message }\n    }\n  }\n": typeof types.HiClaimDocument,
    "\n  mutation HiRenew($token: String!, $leaseSeconds: Int) {\n    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on RenewLeasePayload { item { version leaseExpiresAt } }\n      ... on UserError { code field message }\n    }\n  }\n": typeof types.HiRenewDocument,
    "\n  mutation HiRelease($token: String!) {\n    releaseLease(input: { token: $token }) {\n      __typename\n      ... on ReleaseLeasePayload { item { version } }\n      ... on UserError { code field message }\n    }\n  }\n": typeof types.HiReleaseDocument,
    "\n  mutation HiDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { version } }\n      ... on UserError { code field message }\n    }\n  }\n": typeof types.HiDecideDocument,
    "\n  mutation HiCreateKey($name: String!, $roles: [Role!]!) {\n    createApiKey(input: { name: $name, roles: $roles }) {\n      __typename\n      ... on CreateApiKeyPayload { key apiKey { id prefix } }\n      ... on UserError { code field message }\n    }\n  }\n": typeof types.HiCreateKeyDocument,
    "\n  mutation HiRevokeKey($id: Int!) {\n    revokeApiKey(input: { id: $id }) {\n      __typename\n      ... on UserError { code field message }\n    }\n  }\n": typeof types.HiRevokeKeyDocument,
    "\n  query HiEvents($first: Int, $last: Int, $after: String, $before: String, $filter: EventFilter) {\n    events(first: $first, last: $last, after: $after, before: $before, filter: $filter) {\n      edges { cursor node { ...HiEvent } }\n      pageInfo { ...HiPageInfo }\n    }\n  }\n": typeof types.HiEventsDocument,
    "\n  query HiHistory($batchId: String!, $recordId: String!, $first: Int, $last: Int, $after: String, $before: String) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item {\n        id\n        version\n        history(first: $first, last: $last, after: $after, before: $before) {\n          edges { cursor node { ...HiEvent } }\n          pageInfo { ...HiPageInfo }\n        }\n      }\n    }\n  }\n": typeof types.HiHistoryDocument,
    "\n  query HiNode($id: ID!) {\n    node(id: $id) {\n      __typename\n      id\n      ... on Item { batchId recordId status }\n      ... on Event { sequence type }\n    }\n  }\n": typeof types.HiNodeDocument,
    "\n  query HiNodes($ids: [ID!]!) {\n    nodes(ids: $ids) {\n      __typename\n      id\n      ... on Item { batchId recordId }\n      ... on Event { sequence type }\n    }\n  }\n": typeof types.HiNodesDocument,
    "\n  query HiItems($filter: ItemFilter, $first: Int, $after: String) {\n    items(filter: $filter, first: $first, after: $after) {\n      edges { cursor node { batchId recordId } }\n      pageInfo { ...HiPageInfo }\n    }\n  }\n": typeof types.HiItemsDocument,
    "\n  query HiEverything($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item {\n        id batchId recordId status proposedCategory finalCategory reason reviewedBy decidedAt createdAt addedBy\n        claimState claimedBy claimedAt leaseExpiresAt version\n        history(first: 100) { edges { cursor node { ...HiEvent } } }\n      }\n    }\n    items(first: 100) { edges { cursor node { id claimedBy leaseExpiresAt version } } }\n    events(first: 100) { edges { cursor node { ...HiEvent } } }\n  }\n": typeof types.HiEverythingDocument,
    "\n  mutation IcAddCategories($names: [String!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n      ... on AddCategoriesPayload { categories { name createdAt createdBy retired retiredAt retiredBy } }\n      ... on UserError { code field }\n    }\n  }\n": typeof types.IcAddCategoriesDocument,
    "\n  mutation IcRetire($name: String!) {\n    retireCategory(input: { name: $name }) {\n      __typename\n      ... on RetireCategoryPayload { category { name createdAt createdBy retired retiredAt retiredBy } }\n      ... on UserError { code field }\n    }\n  }\n": typeof types.IcRetireDocument,
    "\n  query IcCategories($includeRetired: Boolean!) {\n    categories(includeRetired: $includeRetired) { name retired retiredAt retiredBy createdBy }\n  }\n": typeof types.IcCategoriesDocument,
    "\n  query IcCategoriesDefault {\n    categories { name retired }\n  }\n": typeof types.IcCategoriesDefaultDocument,
    "\n  mutation IcAdd($input: AddItemInput!) {\n    addItem(input: $input) {\n      __typename\n      ... on AddItemPayload {\n        serverTime\n        item { batchId recordId proposedCategory reason status claimState createdAt addedBy version finalCategory }\n      }\n      ... on UserError { code field }\n    }\n  }\n": typeof types.IcAddDocument,
    "\n  mutation IcAddMany($items: [AddItemInput!]!) {\n    addItems(input: { items: $items }) {\n      __typename\n      ... on AddItemsPayload {\n        addedCount\n        refusedCount\n        entries {\n          index\n          item { batchId recordId proposedCategory reason status createdAt addedBy }\n          error { __typename code field message }\n        }\n      }\n      ... on UserError { code field }\n    }\n  }\n": typeof types.IcAddManyDocument,
    "\n  mutation IcClaim($batchId: String) {\n    claimItem(input: { batchId: $batchId }) {\n      __typename\n      ... on ClaimItemPayload { claimed item { batchId recordId claimedBy } lease { token holder } }\n      ... on UserError { code field }\n    }\n  }\n": typeof types.IcClaimDocument,
    "\n  mutation IcDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { status proposedCategory finalCategory reviewedBy } }\n      ... on UserError { code field }\n    }\n  }\n": typeof types.IcDecideDocument,
    "\n  query IcShow($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { batchId recordId proposedCategory finalCategory reason status }\n      ... on UserError { code field }\n    }\n  }\n": typeof types.IcShowDocument,
    "\n  query IcAddedEvents($afterSequence: Int) {\n    events(first: 100, filter: { types: [ITEM_ADDED], afterSequence: $afterSequence }) {\n      edges { node { sequence type details } }\n    }\n  }\n": typeof types.IcAddedEventsDocument,
    "\n  mutation IcCreateKey($name: String!) {\n    createApiKey(input: { name: $name, roles: [REVIEWER] }) {\n      __typename\n      ... on CreateApiKeyPayload { key apiKey { name roles } }\n      ... on UserError { code field }\n    }\n  }\n": typeof types.IcCreateKeyDocument,
    "\n  query IcEventsAfter($afterSequence: Int) {\n    events(first: 100, filter: { afterSequence: $afterSequence }) { edges { node { type actor details } } }\n  }\n": typeof types.IcEventsAfterDocument,
    "\n  query IcLastEvent {\n    events(last: 1) { edges { node { sequence } } }\n  }\n": typeof types.IcLastEventDocument,
    "\n  fragment LcItem on Item {\n    id\n    batchId\n    recordId\n    status\n    proposedCategory\n    finalCategory\n    reviewedBy\n    decidedAt\n    createdAt\n    claimState\n    claimedBy\n    claimedAt\n    leaseExpiresAt\n    version\n  }\n": typeof types.LcItemFragmentDoc,
    "\n  mutation LcSetUp($names: [String!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n    }\n  }\n": typeof types.LcSetUpDocument,
    "\n  mutation LcAdd($input: AddItemInput!) {\n    addItem(input: $input) {\n      __typename\n      ... on AddItemPayload { item { ...LcItem } }\n      ... on UserError { code field }\n    }\n  }\n": typeof types.LcAddDocument,
    "\n  mutation LcClaim($leaseSeconds: Int, $batchId: String) {\n    claimItem(input: { leaseSeconds: $leaseSeconds, batchId: $batchId }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        serverTime\n        item { ...LcItem }\n        lease { token holder claimedAt expiresAt }\n      }\n      ... on UserError { code field }\n    }\n  }\n": typeof types.LcClaimDocument,
    "\n  mutation LcClaimDefault {\n    claimItem(input: {}) {\n      __typename\n      ... on ClaimItemPayload { claimed lease { claimedAt expiresAt } }\n      ... on UserError { code field }\n    }\n  }\n": typeof types.LcClaimDefaultDocument,
    "\n  mutation LcRenew($token: String!, $leaseSeconds: Int) {\n    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on RenewLeasePayload { serverTime item { ...LcItem } }\n      ... on UserError { code field }\n    }\n  }\n": typeof types.LcRenewDocument,
    "\n  mutation LcRenewDefault($token: String!) {\n    renewLease(input: { token: $token }) {\n      __typename\n      ... on RenewLeasePayload { item { leaseExpiresAt } }\n      ... on UserError { code field }\n    }\n  }\n": typeof types.LcRenewDefaultDocument,
    "\n  mutation LcRelease($token: String!) {\n    releaseLease(input: { token: $token }) {\n      __typename\n      ... on ReleaseLeasePayload { item { ...LcItem } }\n      ... on UserError { code field }\n    }\n  }\n": typeof types.LcReleaseDocument,
    "\n  mutation LcDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { ...LcItem } }\n      ... on UserError { code field }\n    }\n  }\n": typeof types.LcDecideDocument,
    "\n  query LcShow($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { ...LcItem }\n      ... on UserError { code field }\n    }\n  }\n": typeof types.LcShowDocument,
    "\n  query LcEventCount {\n    events(last: 1) { edges { node { sequence } } }\n  }\n": typeof types.LcEventCountDocument,
    "\n  query LcEventsAfter($afterSequence: Int) {\n    events(first: 100, filter: { afterSequence: $afterSequence }) { edges { node { type actor details } } }\n  }\n": typeof types.LcEventsAfterDocument,
    "\n  mutation TutorialSetUp($names: [String!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n      ... on AddCategoriesPayload { categories { name } }\n    }\n  }\n": typeof types.TutorialSetUpDocument,
    "\n  mutation TutorialAdd($input: AddItemInput!) {\n    addItem(input: $input) {\n      __typename\n      ... on AddItemPayload { item { batchId recordId status claimState } }\n    }\n  }\n": typeof types.TutorialAddDocument,
    "\n  mutation TutorialClaim($leaseSeconds: Int) {\n    claimItem(input: { leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        serverTime\n        item { batchId recordId proposedCategory reason claimedBy claimState }\n        lease { token holder claimedAt expiresAt }\n      }\n      ... on UserError { code field }\n    }\n  }\n": typeof types.TutorialClaimDocument,
    "\n  mutation TutorialRenew($token: String!, $leaseSeconds: Int) {\n    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on RenewLeasePayload { item { leaseExpiresAt } }\n      ... on UserError { code }\n    }\n  }\n": typeof types.TutorialRenewDocument,
    "\n  mutation TutorialDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { batchId recordId status finalCategory reviewedBy } }\n      ... on UserError { code }\n    }\n  }\n": typeof types.TutorialDecideDocument,
    "\n  query TutorialShow($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { batchId recordId status proposedCategory finalCategory addedBy reviewedBy claimedBy claimState }\n      ... on UserError { code }\n    }\n  }\n": typeof types.TutorialShowDocument,
    "\n  mutation ConcurrentSetUp($names: [String!]!, $items: [AddItemInput!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n    }\n    addItems(input: { items: $items }) {\n      __typename\n      ... on AddItemsPayload { addedCount refusedCount }\n    }\n  }\n": typeof types.ConcurrentSetUpDocument,
    "\n  mutation ConcurrentClaim {\n    claimItem(input: { leaseSeconds: 600 }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        item { id batchId recordId claimedBy version }\n        lease { token holder }\n      }\n      ... on UserError { code message }\n    }\n  }\n": typeof types.ConcurrentClaimDocument,
    "\n  mutation ConcurrentDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { id status finalCategory reviewedBy claimState } }\n      ... on UserError { code message }\n    }\n  }\n": typeof types.ConcurrentDecideDocument,
};
const documents: Documents = {
    "\n  mutation ErrSetUp($names: [String!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n      ... on AddCategoriesPayload { categories { name } }\n      ... on UserError { code field message }\n    }\n  }\n": types.ErrSetUpDocument,
    "\n  mutation ErrRetire($name: String!) {\n    retireCategory(input: { name: $name }) {\n      __typename\n      ... on RetireCategoryPayload { category { name retired } }\n      ... on UserError { code field message }\n    }\n  }\n": types.ErrRetireDocument,
    "\n  mutation ErrAdd($input: AddItemInput!) {\n    addItem(input: $input) {\n      __typename\n      ... on AddItemPayload { item { id version } }\n      ... on UserError { code field message }\n    }\n  }\n": types.ErrAddDocument,
    "\n  mutation ErrAddMany($items: [AddItemInput!]!) {\n    addItems(input: { items: $items }) {\n      __typename\n      ... on AddItemsPayload {\n        addedCount\n        refusedCount\n        entries { index item { id } error { __typename code field } }\n      }\n      ... on UserError { code field message }\n    }\n  }\n": types.ErrAddManyDocument,
    "\n  mutation ErrClaim($leaseSeconds: Int, $batchId: String) {\n    claimItem(input: { leaseSeconds: $leaseSeconds, batchId: $batchId }) {\n      __typename\n      ... on ClaimItemPayload { claimed item { recordId } lease { token } }\n      ... on UserError { code field message }\n    }\n  }\n": types.ErrClaimDocument,
    "\n  mutation ErrRenew($token: String!, $leaseSeconds: Int) {\n    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on RenewLeasePayload { item { leaseExpiresAt } }\n      ... on UserError { code field message }\n    }\n  }\n": types.ErrRenewDocument,
    "\n  mutation ErrRelease($token: String!) {\n    releaseLease(input: { token: $token }) {\n      __typename\n      ... on ReleaseLeasePayload { item { claimState } }\n      ... on UserError { code field message }\n    }\n  }\n": types.ErrReleaseDocument,
    "\n  mutation ErrDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { status finalCategory } }\n      ... on UserError { code field message }\n    }\n  }\n": types.ErrDecideDocument,
    "\n  query ErrShow($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { status claimState claimedBy leaseExpiresAt version finalCategory }\n      ... on UserError { code field }\n    }\n  }\n": types.ErrShowDocument,
    "\n  query ErrCategories {\n    categories(includeRetired: true) { name retired }\n  }\n": types.ErrCategoriesDocument,
    "\n  query ErrItemsPage($first: Int, $last: Int, $after: String, $before: String) {\n    items(first: $first, last: $last, after: $after, before: $before) { edges { cursor } }\n  }\n": types.ErrItemsPageDocument,
    "\n  query ErrEventsPage($first: Int, $last: Int, $after: String, $before: String) {\n    events(first: $first, last: $last, after: $after, before: $before) { edges { cursor } }\n  }\n": types.ErrEventsPageDocument,
    "\n  query ErrHistoryPage($batchId: String!, $recordId: String!, $first: Int, $last: Int, $after: String) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { history(first: $first, last: $last, after: $after) { edges { cursor } } }\n    }\n  }\n": types.ErrHistoryPageDocument,
    "\n  mutation ErrCreateKey($name: String!, $roles: [Role!]!) {\n    createApiKey(input: { name: $name, roles: $roles }) {\n      __typename\n      ... on CreateApiKeyPayload { key apiKey { id } }\n      ... on UserError { code field message }\n    }\n  }\n": types.ErrCreateKeyDocument,
    "\n  mutation ErrRevokeKey($id: Int!) {\n    revokeApiKey(input: { id: $id }) {\n      __typename\n      ... on RevokeApiKeyPayload { apiKey { id revokedBy } }\n      ... on UserError { code field message }\n    }\n  }\n": types.ErrRevokeKeyDocument,
    "\n  query ErrApiKeys {\n    apiKeys { id }\n  }\n": types.ErrApiKeysDocument,
    "\n  query ErrLastEvent {\n    events(last: 1) { edges { node { sequence } } }\n  }\n": types.ErrLastEventDocument,
    "\n  query ErrEventsAfter($afterSequence: Int) {\n    events(first: 100, filter: { afterSequence: $afterSequence }) { edges { node { type actor details } } }\n  }\n": types.ErrEventsAfterDocument,
    "\n  query ErrErrorCodeEnum {\n    __type(name: \"ErrorCode\") { enumValues { name } }\n  }\n": types.ErrErrorCodeEnumDocument,
    "\n  fragment HiEvent on Event {\n    id\n    sequence\n    type\n    actor\n    occurredAt\n    categoryName\n    fromStatus\n    toStatus\n    leaseExpiresAt\n    leaseNumber\n    itemVersion\n    details\n    item { id batchId recordId version }\n  }\n": types.HiEventFragmentDoc,
    "\n  fragment HiPageInfo on PageInfo {\n    startCursor\n    endCursor\n    hasNextPage\n    hasPreviousPage\n  }\n": types.HiPageInfoFragmentDoc,
    "\n  mutation HiSetUp($names: [String!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n      ... on UserError { code field message }\n    }\n  }\n": types.HiSetUpDocument,
    "\n  mutation HiRetire($name: String!) {\n    retireCategory(input: { name: $name }) {\n      __typename\n      ... on UserError { code field message }\n    }\n  }\n": types.HiRetireDocument,
    "\n  mutation HiAdd($input: AddItemInput!) {\n    addItem(input: $input) {\n      __typename\n      ... on AddItemPayload { item { id version } }\n      ... on UserError { code field message }\n    }\n  }\n": types.HiAddDocument,
    "\n  mutation HiAddMany($items: [AddItemInput!]!) {\n    addItems(input: { items: $items }) {\n      __typename\n      ... on AddItemsPayload { addedCount refusedCount }\n      ... on UserError { code field message }\n    }\n  }\n": types.HiAddManyDocument,
    "\n  mutation HiClaim($leaseSeconds: Int, $batchId: String) {\n    claimItem(input: { leaseSeconds: $leaseSeconds, batchId: $batchId }) {\n      __typename\n      ... on ClaimItemPayload { claimed item { id recordId version } lease { token expiresAt } }\n      ... on UserError { code field message }\n    }\n  }\n": types.HiClaimDocument,
    "\n  mutation HiRenew($token: String!, $leaseSeconds: Int) {\n    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on RenewLeasePayload { item { version leaseExpiresAt } }\n      ... on UserError { code field message }\n    }\n  }\n": types.HiRenewDocument,
    "\n  mutation HiRelease($token: String!) {\n    releaseLease(input: { token: $token }) {\n      __typename\n      ... on ReleaseLeasePayload { item { version } }\n      ... on UserError { code field message }\n    }\n  }\n": types.HiReleaseDocument,
    "\n  mutation HiDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { version } }\n      ... on UserError { code field message }\n    }\n  }\n": types.HiDecideDocument,
    "\n  mutation HiCreateKey($name: String!, $roles: [Role!]!) {\n    createApiKey(input: { name: $name, roles: $roles }) {\n      __typename\n      ... on CreateApiKeyPayload { key apiKey { id prefix } }\n      ... on UserError { code field message }\n    }\n  }\n": types.HiCreateKeyDocument,
    "\n  mutation HiRevokeKey($id: Int!) {\n    revokeApiKey(input: { id: $id }) {\n      __typename\n      ... on UserError { code field message }\n    }\n  }\n": types.HiRevokeKeyDocument,
    "\n  query HiEvents($first: Int, $last: Int, $after: String, $before: String, $filter: EventFilter) {\n    events(first: $first, last: $last, after: $after, before: $before, filter: $filter) {\n      edges { cursor node { ...HiEvent } }\n      pageInfo { ...HiPageInfo }\n    }\n  }\n": types.HiEventsDocument,
    "\n  query HiHistory($batchId: String!, $recordId: String!, $first: Int, $last: Int, $after: String, $before: String) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item {\n        id\n        version\n        history(first: $first, last: $last, after: $after, before: $before) {\n          edges { cursor node { ...HiEvent } }\n          pageInfo { ...HiPageInfo }\n        }\n      }\n    }\n  }\n": types.HiHistoryDocument,
    "\n  query HiNode($id: ID!) {\n    node(id: $id) {\n      __typename\n      id\n      ... on Item { batchId recordId status }\n      ... on Event { sequence type }\n    }\n  }\n": types.HiNodeDocument,
    "\n  query HiNodes($ids: [ID!]!) {\n    nodes(ids: $ids) {\n      __typename\n      id\n      ... on Item { batchId recordId }\n      ... on Event { sequence type }\n    }\n  }\n": types.HiNodesDocument,
    "\n  query HiItems($filter: ItemFilter, $first: Int, $after: String) {\n    items(filter: $filter, first: $first, after: $after) {\n      edges { cursor node { batchId recordId } }\n      pageInfo { ...HiPageInfo }\n    }\n  }\n": types.HiItemsDocument,
    "\n  query HiEverything($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item {\n        id batchId recordId status proposedCategory finalCategory reason reviewedBy decidedAt createdAt addedBy\n        claimState claimedBy claimedAt leaseExpiresAt version\n        history(first: 100) { edges { cursor node { ...HiEvent } } }\n      }\n    }\n    items(first: 100) { edges { cursor node { id claimedBy leaseExpiresAt version } } }\n    events(first: 100) { edges { cursor node { ...HiEvent } } }\n  }\n": types.HiEverythingDocument,
    "\n  mutation IcAddCategories($names: [String!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n      ... on AddCategoriesPayload { categories { name createdAt createdBy retired retiredAt retiredBy } }\n      ... on UserError { code field }\n    }\n  }\n": types.IcAddCategoriesDocument,
    "\n  mutation IcRetire($name: String!) {\n    retireCategory(input: { name: $name }) {\n      __typename\n      ... on RetireCategoryPayload { category { name createdAt createdBy retired retiredAt retiredBy } }\n      ... on UserError { code field }\n    }\n  }\n": types.IcRetireDocument,
    "\n  query IcCategories($includeRetired: Boolean!) {\n    categories(includeRetired: $includeRetired) { name retired retiredAt retiredBy createdBy }\n  }\n": types.IcCategoriesDocument,
    "\n  query IcCategoriesDefault {\n    categories { name retired }\n  }\n": types.IcCategoriesDefaultDocument,
    "\n  mutation IcAdd($input: AddItemInput!) {\n    addItem(input: $input) {\n      __typename\n      ... on AddItemPayload {\n        serverTime\n        item { batchId recordId proposedCategory reason status claimState createdAt addedBy version finalCategory }\n      }\n      ... on UserError { code field }\n    }\n  }\n": types.IcAddDocument,
    "\n  mutation IcAddMany($items: [AddItemInput!]!) {\n    addItems(input: { items: $items }) {\n      __typename\n      ... on AddItemsPayload {\n        addedCount\n        refusedCount\n        entries {\n          index\n          item { batchId recordId proposedCategory reason status createdAt addedBy }\n          error { __typename code field message }\n        }\n      }\n      ... on UserError { code field }\n    }\n  }\n": types.IcAddManyDocument,
    "\n  mutation IcClaim($batchId: String) {\n    claimItem(input: { batchId: $batchId }) {\n      __typename\n      ... on ClaimItemPayload { claimed item { batchId recordId claimedBy } lease { token holder } }\n      ... on UserError { code field }\n    }\n  }\n": types.IcClaimDocument,
    "\n  mutation IcDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { status proposedCategory finalCategory reviewedBy } }\n      ... on UserError { code field }\n    }\n  }\n": types.IcDecideDocument,
    "\n  query IcShow($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { batchId recordId proposedCategory finalCategory reason status }\n      ... on UserError { code field }\n    }\n  }\n": types.IcShowDocument,
    "\n  query IcAddedEvents($afterSequence: Int) {\n    events(first: 100, filter: { types: [ITEM_ADDED], afterSequence: $afterSequence }) {\n      edges { node { sequence type details } }\n    }\n  }\n": types.IcAddedEventsDocument,
    "\n  mutation IcCreateKey($name: String!) {\n    createApiKey(input: { name: $name, roles: [REVIEWER] }) {\n      __typename\n      ... on CreateApiKeyPayload { key apiKey { name roles } }\n      ... on UserError { code field }\n    }\n  }\n": types.IcCreateKeyDocument,
    "\n  query IcEventsAfter($afterSequence: Int) {\n    events(first: 100, filter: { afterSequence: $afterSequence }) { edges { node { type actor details } } }\n  }\n": types.IcEventsAfterDocument,
    "\n  query IcLastEvent {\n    events(last: 1) { edges { node { sequence } } }\n  }\n": types.IcLastEventDocument,
    "\n  fragment LcItem on Item {\n    id\n    batchId\n    recordId\n    status\n    proposedCategory\n    finalCategory\n    reviewedBy\n    decidedAt\n    createdAt\n    claimState\n    claimedBy\n    claimedAt\n    leaseExpiresAt\n    version\n  }\n": types.LcItemFragmentDoc,
    "\n  mutation LcSetUp($names: [String!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n    }\n  }\n": types.LcSetUpDocument,
    "\n  mutation LcAdd($input: AddItemInput!) {\n    addItem(input: $input) {\n      __typename\n      ... on AddItemPayload { item { ...LcItem } }\n      ... on UserError { code field }\n    }\n  }\n": types.LcAddDocument,
    "\n  mutation LcClaim($leaseSeconds: Int, $batchId: String) {\n    claimItem(input: { leaseSeconds: $leaseSeconds, batchId: $batchId }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        serverTime\n        item { ...LcItem }\n        lease { token holder claimedAt expiresAt }\n      }\n      ... on UserError { code field }\n    }\n  }\n": types.LcClaimDocument,
    "\n  mutation LcClaimDefault {\n    claimItem(input: {}) {\n      __typename\n      ... on ClaimItemPayload { claimed lease { claimedAt expiresAt } }\n      ... on UserError { code field }\n    }\n  }\n": types.LcClaimDefaultDocument,
    "\n  mutation LcRenew($token: String!, $leaseSeconds: Int) {\n    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on RenewLeasePayload { serverTime item { ...LcItem } }\n      ... on UserError { code field }\n    }\n  }\n": types.LcRenewDocument,
    "\n  mutation LcRenewDefault($token: String!) {\n    renewLease(input: { token: $token }) {\n      __typename\n      ... on RenewLeasePayload { item { leaseExpiresAt } }\n      ... on UserError { code field }\n    }\n  }\n": types.LcRenewDefaultDocument,
    "\n  mutation LcRelease($token: String!) {\n    releaseLease(input: { token: $token }) {\n      __typename\n      ... on ReleaseLeasePayload { item { ...LcItem } }\n      ... on UserError { code field }\n    }\n  }\n": types.LcReleaseDocument,
    "\n  mutation LcDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { ...LcItem } }\n      ... on UserError { code field }\n    }\n  }\n": types.LcDecideDocument,
    "\n  query LcShow($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { ...LcItem }\n      ... on UserError { code field }\n    }\n  }\n": types.LcShowDocument,
    "\n  query LcEventCount {\n    events(last: 1) { edges { node { sequence } } }\n  }\n": types.LcEventCountDocument,
    "\n  query LcEventsAfter($afterSequence: Int) {\n    events(first: 100, filter: { afterSequence: $afterSequence }) { edges { node { type actor details } } }\n  }\n": types.LcEventsAfterDocument,
    "\n  mutation TutorialSetUp($names: [String!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n      ... on AddCategoriesPayload { categories { name } }\n    }\n  }\n": types.TutorialSetUpDocument,
    "\n  mutation TutorialAdd($input: AddItemInput!) {\n    addItem(input: $input) {\n      __typename\n      ... on AddItemPayload { item { batchId recordId status claimState } }\n    }\n  }\n": types.TutorialAddDocument,
    "\n  mutation TutorialClaim($leaseSeconds: Int) {\n    claimItem(input: { leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        serverTime\n        item { batchId recordId proposedCategory reason claimedBy claimState }\n        lease { token holder claimedAt expiresAt }\n      }\n      ... on UserError { code field }\n    }\n  }\n": types.TutorialClaimDocument,
    "\n  mutation TutorialRenew($token: String!, $leaseSeconds: Int) {\n    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on RenewLeasePayload { item { leaseExpiresAt } }\n      ... on UserError { code }\n    }\n  }\n": types.TutorialRenewDocument,
    "\n  mutation TutorialDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { batchId recordId status finalCategory reviewedBy } }\n      ... on UserError { code }\n    }\n  }\n": types.TutorialDecideDocument,
    "\n  query TutorialShow($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { batchId recordId status proposedCategory finalCategory addedBy reviewedBy claimedBy claimState }\n      ... on UserError { code }\n    }\n  }\n": types.TutorialShowDocument,
    "\n  mutation ConcurrentSetUp($names: [String!]!, $items: [AddItemInput!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n    }\n    addItems(input: { items: $items }) {\n      __typename\n      ... on AddItemsPayload { addedCount refusedCount }\n    }\n  }\n": types.ConcurrentSetUpDocument,
    "\n  mutation ConcurrentClaim {\n    claimItem(input: { leaseSeconds: 600 }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        item { id batchId recordId claimedBy version }\n        lease { token holder }\n      }\n      ... on UserError { code message }\n    }\n  }\n": types.ConcurrentClaimDocument,
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
export function graphql(source: "\n  mutation ErrSetUp($names: [String!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n      ... on AddCategoriesPayload { categories { name } }\n      ... on UserError { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation ErrSetUp($names: [String!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n      ... on AddCategoriesPayload { categories { name } }\n      ... on UserError { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ErrRetire($name: String!) {\n    retireCategory(input: { name: $name }) {\n      __typename\n      ... on RetireCategoryPayload { category { name retired } }\n      ... on UserError { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation ErrRetire($name: String!) {\n    retireCategory(input: { name: $name }) {\n      __typename\n      ... on RetireCategoryPayload { category { name retired } }\n      ... on UserError { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ErrAdd($input: AddItemInput!) {\n    addItem(input: $input) {\n      __typename\n      ... on AddItemPayload { item { id version } }\n      ... on UserError { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation ErrAdd($input: AddItemInput!) {\n    addItem(input: $input) {\n      __typename\n      ... on AddItemPayload { item { id version } }\n      ... on UserError { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ErrAddMany($items: [AddItemInput!]!) {\n    addItems(input: { items: $items }) {\n      __typename\n      ... on AddItemsPayload {\n        addedCount\n        refusedCount\n        entries { index item { id } error { __typename code field } }\n      }\n      ... on UserError { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation ErrAddMany($items: [AddItemInput!]!) {\n    addItems(input: { items: $items }) {\n      __typename\n      ... on AddItemsPayload {\n        addedCount\n        refusedCount\n        entries { index item { id } error { __typename code field } }\n      }\n      ... on UserError { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ErrClaim($leaseSeconds: Int, $batchId: String) {\n    claimItem(input: { leaseSeconds: $leaseSeconds, batchId: $batchId }) {\n      __typename\n      ... on ClaimItemPayload { claimed item { recordId } lease { token } }\n      ... on UserError { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation ErrClaim($leaseSeconds: Int, $batchId: String) {\n    claimItem(input: { leaseSeconds: $leaseSeconds, batchId: $batchId }) {\n      __typename\n      ... on ClaimItemPayload { claimed item { recordId } lease { token } }\n      ... on UserError { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ErrRenew($token: String!, $leaseSeconds: Int) {\n    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on RenewLeasePayload { item { leaseExpiresAt } }\n      ... on UserError { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation ErrRenew($token: String!, $leaseSeconds: Int) {\n    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on RenewLeasePayload { item { leaseExpiresAt } }\n      ... on UserError { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ErrRelease($token: String!) {\n    releaseLease(input: { token: $token }) {\n      __typename\n      ... on ReleaseLeasePayload { item { claimState } }\n      ... on UserError { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation ErrRelease($token: String!) {\n    releaseLease(input: { token: $token }) {\n      __typename\n      ... on ReleaseLeasePayload { item { claimState } }\n      ... on UserError { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ErrDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { status finalCategory } }\n      ... on UserError { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation ErrDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { status finalCategory } }\n      ... on UserError { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ErrShow($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { status claimState claimedBy leaseExpiresAt version finalCategory }\n      ... on UserError { code field }\n    }\n  }\n"): (typeof documents)["\n  query ErrShow($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { status claimState claimedBy leaseExpiresAt version finalCategory }\n      ... on UserError { code field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ErrCategories {\n    categories(includeRetired: true) { name retired }\n  }\n"): (typeof documents)["\n  query ErrCategories {\n    categories(includeRetired: true) { name retired }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ErrItemsPage($first: Int, $last: Int, $after: String, $before: String) {\n    items(first: $first, last: $last, after: $after, before: $before) { edges { cursor } }\n  }\n"): (typeof documents)["\n  query ErrItemsPage($first: Int, $last: Int, $after: String, $before: String) {\n    items(first: $first, last: $last, after: $after, before: $before) { edges { cursor } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ErrEventsPage($first: Int, $last: Int, $after: String, $before: String) {\n    events(first: $first, last: $last, after: $after, before: $before) { edges { cursor } }\n  }\n"): (typeof documents)["\n  query ErrEventsPage($first: Int, $last: Int, $after: String, $before: String) {\n    events(first: $first, last: $last, after: $after, before: $before) { edges { cursor } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ErrHistoryPage($batchId: String!, $recordId: String!, $first: Int, $last: Int, $after: String) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { history(first: $first, last: $last, after: $after) { edges { cursor } } }\n    }\n  }\n"): (typeof documents)["\n  query ErrHistoryPage($batchId: String!, $recordId: String!, $first: Int, $last: Int, $after: String) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { history(first: $first, last: $last, after: $after) { edges { cursor } } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ErrCreateKey($name: String!, $roles: [Role!]!) {\n    createApiKey(input: { name: $name, roles: $roles }) {\n      __typename\n      ... on CreateApiKeyPayload { key apiKey { id } }\n      ... on UserError { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation ErrCreateKey($name: String!, $roles: [Role!]!) {\n    createApiKey(input: { name: $name, roles: $roles }) {\n      __typename\n      ... on CreateApiKeyPayload { key apiKey { id } }\n      ... on UserError { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ErrRevokeKey($id: Int!) {\n    revokeApiKey(input: { id: $id }) {\n      __typename\n      ... on RevokeApiKeyPayload { apiKey { id revokedBy } }\n      ... on UserError { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation ErrRevokeKey($id: Int!) {\n    revokeApiKey(input: { id: $id }) {\n      __typename\n      ... on RevokeApiKeyPayload { apiKey { id revokedBy } }\n      ... on UserError { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ErrApiKeys {\n    apiKeys { id }\n  }\n"): (typeof documents)["\n  query ErrApiKeys {\n    apiKeys { id }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ErrLastEvent {\n    events(last: 1) { edges { node { sequence } } }\n  }\n"): (typeof documents)["\n  query ErrLastEvent {\n    events(last: 1) { edges { node { sequence } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ErrEventsAfter($afterSequence: Int) {\n    events(first: 100, filter: { afterSequence: $afterSequence }) { edges { node { type actor details } } }\n  }\n"): (typeof documents)["\n  query ErrEventsAfter($afterSequence: Int) {\n    events(first: 100, filter: { afterSequence: $afterSequence }) { edges { node { type actor details } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ErrErrorCodeEnum {\n    __type(name: \"ErrorCode\") { enumValues { name } }\n  }\n"): (typeof documents)["\n  query ErrErrorCodeEnum {\n    __type(name: \"ErrorCode\") { enumValues { name } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment HiEvent on Event {\n    id\n    sequence\n    type\n    actor\n    occurredAt\n    categoryName\n    fromStatus\n    toStatus\n    leaseExpiresAt\n    leaseNumber\n    itemVersion\n    details\n    item { id batchId recordId version }\n  }\n"): (typeof documents)["\n  fragment HiEvent on Event {\n    id\n    sequence\n    type\n    actor\n    occurredAt\n    categoryName\n    fromStatus\n    toStatus\n    leaseExpiresAt\n    leaseNumber\n    itemVersion\n    details\n    item { id batchId recordId version }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment HiPageInfo on PageInfo {\n    startCursor\n    endCursor\n    hasNextPage\n    hasPreviousPage\n  }\n"): (typeof documents)["\n  fragment HiPageInfo on PageInfo {\n    startCursor\n    endCursor\n    hasNextPage\n    hasPreviousPage\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation HiSetUp($names: [String!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n      ... on UserError { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation HiSetUp($names: [String!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n      ... on UserError { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation HiRetire($name: String!) {\n    retireCategory(input: { name: $name }) {\n      __typename\n      ... on UserError { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation HiRetire($name: String!) {\n    retireCategory(input: { name: $name }) {\n      __typename\n      ... on UserError { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation HiAdd($input: AddItemInput!) {\n    addItem(input: $input) {\n      __typename\n      ... on AddItemPayload { item { id version } }\n      ... on UserError { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation HiAdd($input: AddItemInput!) {\n    addItem(input: $input) {\n      __typename\n      ... on AddItemPayload { item { id version } }\n      ... on UserError { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation HiAddMany($items: [AddItemInput!]!) {\n    addItems(input: { items: $items }) {\n      __typename\n      ... on AddItemsPayload { addedCount refusedCount }\n      ... on UserError { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation HiAddMany($items: [AddItemInput!]!) {\n    addItems(input: { items: $items }) {\n      __typename\n      ... on AddItemsPayload { addedCount refusedCount }\n      ... on UserError { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation HiClaim($leaseSeconds: Int, $batchId: String) {\n    claimItem(input: { leaseSeconds: $leaseSeconds, batchId: $batchId }) {\n      __typename\n      ... on ClaimItemPayload { claimed item { id recordId version } lease { token expiresAt } }\n      ... on UserError { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation HiClaim($leaseSeconds: Int, $batchId: String) {\n    claimItem(input: { leaseSeconds: $leaseSeconds, batchId: $batchId }) {\n      __typename\n      ... on ClaimItemPayload { claimed item { id recordId version } lease { token expiresAt } }\n      ... on UserError { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation HiRenew($token: String!, $leaseSeconds: Int) {\n    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on RenewLeasePayload { item { version leaseExpiresAt } }\n      ... on UserError { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation HiRenew($token: String!, $leaseSeconds: Int) {\n    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on RenewLeasePayload { item { version leaseExpiresAt } }\n      ... on UserError { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation HiRelease($token: String!) {\n    releaseLease(input: { token: $token }) {\n      __typename\n      ... on ReleaseLeasePayload { item { version } }\n      ... on UserError { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation HiRelease($token: String!) {\n    releaseLease(input: { token: $token }) {\n      __typename\n      ... on ReleaseLeasePayload { item { version } }\n      ... on UserError { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation HiDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { version } }\n      ... on UserError { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation HiDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { version } }\n      ... on UserError { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation HiCreateKey($name: String!, $roles: [Role!]!) {\n    createApiKey(input: { name: $name, roles: $roles }) {\n      __typename\n      ... on CreateApiKeyPayload { key apiKey { id prefix } }\n      ... on UserError { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation HiCreateKey($name: String!, $roles: [Role!]!) {\n    createApiKey(input: { name: $name, roles: $roles }) {\n      __typename\n      ... on CreateApiKeyPayload { key apiKey { id prefix } }\n      ... on UserError { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation HiRevokeKey($id: Int!) {\n    revokeApiKey(input: { id: $id }) {\n      __typename\n      ... on UserError { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation HiRevokeKey($id: Int!) {\n    revokeApiKey(input: { id: $id }) {\n      __typename\n      ... on UserError { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query HiEvents($first: Int, $last: Int, $after: String, $before: String, $filter: EventFilter) {\n    events(first: $first, last: $last, after: $after, before: $before, filter: $filter) {\n      edges { cursor node { ...HiEvent } }\n      pageInfo { ...HiPageInfo }\n    }\n  }\n"): (typeof documents)["\n  query HiEvents($first: Int, $last: Int, $after: String, $before: String, $filter: EventFilter) {\n    events(first: $first, last: $last, after: $after, before: $before, filter: $filter) {\n      edges { cursor node { ...HiEvent } }\n      pageInfo { ...HiPageInfo }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query HiHistory($batchId: String!, $recordId: String!, $first: Int, $last: Int, $after: String, $before: String) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item {\n        id\n        version\n        history(first: $first, last: $last, after: $after, before: $before) {\n          edges { cursor node { ...HiEvent } }\n          pageInfo { ...HiPageInfo }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query HiHistory($batchId: String!, $recordId: String!, $first: Int, $last: Int, $after: String, $before: String) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item {\n        id\n        version\n        history(first: $first, last: $last, after: $after, before: $before) {\n          edges { cursor node { ...HiEvent } }\n          pageInfo { ...HiPageInfo }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query HiNode($id: ID!) {\n    node(id: $id) {\n      __typename\n      id\n      ... on Item { batchId recordId status }\n      ... on Event { sequence type }\n    }\n  }\n"): (typeof documents)["\n  query HiNode($id: ID!) {\n    node(id: $id) {\n      __typename\n      id\n      ... on Item { batchId recordId status }\n      ... on Event { sequence type }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query HiNodes($ids: [ID!]!) {\n    nodes(ids: $ids) {\n      __typename\n      id\n      ... on Item { batchId recordId }\n      ... on Event { sequence type }\n    }\n  }\n"): (typeof documents)["\n  query HiNodes($ids: [ID!]!) {\n    nodes(ids: $ids) {\n      __typename\n      id\n      ... on Item { batchId recordId }\n      ... on Event { sequence type }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query HiItems($filter: ItemFilter, $first: Int, $after: String) {\n    items(filter: $filter, first: $first, after: $after) {\n      edges { cursor node { batchId recordId } }\n      pageInfo { ...HiPageInfo }\n    }\n  }\n"): (typeof documents)["\n  query HiItems($filter: ItemFilter, $first: Int, $after: String) {\n    items(filter: $filter, first: $first, after: $after) {\n      edges { cursor node { batchId recordId } }\n      pageInfo { ...HiPageInfo }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query HiEverything($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item {\n        id batchId recordId status proposedCategory finalCategory reason reviewedBy decidedAt createdAt addedBy\n        claimState claimedBy claimedAt leaseExpiresAt version\n        history(first: 100) { edges { cursor node { ...HiEvent } } }\n      }\n    }\n    items(first: 100) { edges { cursor node { id claimedBy leaseExpiresAt version } } }\n    events(first: 100) { edges { cursor node { ...HiEvent } } }\n  }\n"): (typeof documents)["\n  query HiEverything($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item {\n        id batchId recordId status proposedCategory finalCategory reason reviewedBy decidedAt createdAt addedBy\n        claimState claimedBy claimedAt leaseExpiresAt version\n        history(first: 100) { edges { cursor node { ...HiEvent } } }\n      }\n    }\n    items(first: 100) { edges { cursor node { id claimedBy leaseExpiresAt version } } }\n    events(first: 100) { edges { cursor node { ...HiEvent } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation IcAddCategories($names: [String!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n      ... on AddCategoriesPayload { categories { name createdAt createdBy retired retiredAt retiredBy } }\n      ... on UserError { code field }\n    }\n  }\n"): (typeof documents)["\n  mutation IcAddCategories($names: [String!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n      ... on AddCategoriesPayload { categories { name createdAt createdBy retired retiredAt retiredBy } }\n      ... on UserError { code field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation IcRetire($name: String!) {\n    retireCategory(input: { name: $name }) {\n      __typename\n      ... on RetireCategoryPayload { category { name createdAt createdBy retired retiredAt retiredBy } }\n      ... on UserError { code field }\n    }\n  }\n"): (typeof documents)["\n  mutation IcRetire($name: String!) {\n    retireCategory(input: { name: $name }) {\n      __typename\n      ... on RetireCategoryPayload { category { name createdAt createdBy retired retiredAt retiredBy } }\n      ... on UserError { code field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query IcCategories($includeRetired: Boolean!) {\n    categories(includeRetired: $includeRetired) { name retired retiredAt retiredBy createdBy }\n  }\n"): (typeof documents)["\n  query IcCategories($includeRetired: Boolean!) {\n    categories(includeRetired: $includeRetired) { name retired retiredAt retiredBy createdBy }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query IcCategoriesDefault {\n    categories { name retired }\n  }\n"): (typeof documents)["\n  query IcCategoriesDefault {\n    categories { name retired }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation IcAdd($input: AddItemInput!) {\n    addItem(input: $input) {\n      __typename\n      ... on AddItemPayload {\n        serverTime\n        item { batchId recordId proposedCategory reason status claimState createdAt addedBy version finalCategory }\n      }\n      ... on UserError { code field }\n    }\n  }\n"): (typeof documents)["\n  mutation IcAdd($input: AddItemInput!) {\n    addItem(input: $input) {\n      __typename\n      ... on AddItemPayload {\n        serverTime\n        item { batchId recordId proposedCategory reason status claimState createdAt addedBy version finalCategory }\n      }\n      ... on UserError { code field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation IcAddMany($items: [AddItemInput!]!) {\n    addItems(input: { items: $items }) {\n      __typename\n      ... on AddItemsPayload {\n        addedCount\n        refusedCount\n        entries {\n          index\n          item { batchId recordId proposedCategory reason status createdAt addedBy }\n          error { __typename code field message }\n        }\n      }\n      ... on UserError { code field }\n    }\n  }\n"): (typeof documents)["\n  mutation IcAddMany($items: [AddItemInput!]!) {\n    addItems(input: { items: $items }) {\n      __typename\n      ... on AddItemsPayload {\n        addedCount\n        refusedCount\n        entries {\n          index\n          item { batchId recordId proposedCategory reason status createdAt addedBy }\n          error { __typename code field message }\n        }\n      }\n      ... on UserError { code field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation IcClaim($batchId: String) {\n    claimItem(input: { batchId: $batchId }) {\n      __typename\n      ... on ClaimItemPayload { claimed item { batchId recordId claimedBy } lease { token holder } }\n      ... on UserError { code field }\n    }\n  }\n"): (typeof documents)["\n  mutation IcClaim($batchId: String) {\n    claimItem(input: { batchId: $batchId }) {\n      __typename\n      ... on ClaimItemPayload { claimed item { batchId recordId claimedBy } lease { token holder } }\n      ... on UserError { code field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation IcDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { status proposedCategory finalCategory reviewedBy } }\n      ... on UserError { code field }\n    }\n  }\n"): (typeof documents)["\n  mutation IcDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { status proposedCategory finalCategory reviewedBy } }\n      ... on UserError { code field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query IcShow($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { batchId recordId proposedCategory finalCategory reason status }\n      ... on UserError { code field }\n    }\n  }\n"): (typeof documents)["\n  query IcShow($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { batchId recordId proposedCategory finalCategory reason status }\n      ... on UserError { code field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query IcAddedEvents($afterSequence: Int) {\n    events(first: 100, filter: { types: [ITEM_ADDED], afterSequence: $afterSequence }) {\n      edges { node { sequence type details } }\n    }\n  }\n"): (typeof documents)["\n  query IcAddedEvents($afterSequence: Int) {\n    events(first: 100, filter: { types: [ITEM_ADDED], afterSequence: $afterSequence }) {\n      edges { node { sequence type details } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation IcCreateKey($name: String!) {\n    createApiKey(input: { name: $name, roles: [REVIEWER] }) {\n      __typename\n      ... on CreateApiKeyPayload { key apiKey { name roles } }\n      ... on UserError { code field }\n    }\n  }\n"): (typeof documents)["\n  mutation IcCreateKey($name: String!) {\n    createApiKey(input: { name: $name, roles: [REVIEWER] }) {\n      __typename\n      ... on CreateApiKeyPayload { key apiKey { name roles } }\n      ... on UserError { code field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query IcEventsAfter($afterSequence: Int) {\n    events(first: 100, filter: { afterSequence: $afterSequence }) { edges { node { type actor details } } }\n  }\n"): (typeof documents)["\n  query IcEventsAfter($afterSequence: Int) {\n    events(first: 100, filter: { afterSequence: $afterSequence }) { edges { node { type actor details } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query IcLastEvent {\n    events(last: 1) { edges { node { sequence } } }\n  }\n"): (typeof documents)["\n  query IcLastEvent {\n    events(last: 1) { edges { node { sequence } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment LcItem on Item {\n    id\n    batchId\n    recordId\n    status\n    proposedCategory\n    finalCategory\n    reviewedBy\n    decidedAt\n    createdAt\n    claimState\n    claimedBy\n    claimedAt\n    leaseExpiresAt\n    version\n  }\n"): (typeof documents)["\n  fragment LcItem on Item {\n    id\n    batchId\n    recordId\n    status\n    proposedCategory\n    finalCategory\n    reviewedBy\n    decidedAt\n    createdAt\n    claimState\n    claimedBy\n    claimedAt\n    leaseExpiresAt\n    version\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation LcSetUp($names: [String!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n    }\n  }\n"): (typeof documents)["\n  mutation LcSetUp($names: [String!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation LcAdd($input: AddItemInput!) {\n    addItem(input: $input) {\n      __typename\n      ... on AddItemPayload { item { ...LcItem } }\n      ... on UserError { code field }\n    }\n  }\n"): (typeof documents)["\n  mutation LcAdd($input: AddItemInput!) {\n    addItem(input: $input) {\n      __typename\n      ... on AddItemPayload { item { ...LcItem } }\n      ... on UserError { code field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation LcClaim($leaseSeconds: Int, $batchId: String) {\n    claimItem(input: { leaseSeconds: $leaseSeconds, batchId: $batchId }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        serverTime\n        item { ...LcItem }\n        lease { token holder claimedAt expiresAt }\n      }\n      ... on UserError { code field }\n    }\n  }\n"): (typeof documents)["\n  mutation LcClaim($leaseSeconds: Int, $batchId: String) {\n    claimItem(input: { leaseSeconds: $leaseSeconds, batchId: $batchId }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        serverTime\n        item { ...LcItem }\n        lease { token holder claimedAt expiresAt }\n      }\n      ... on UserError { code field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation LcClaimDefault {\n    claimItem(input: {}) {\n      __typename\n      ... on ClaimItemPayload { claimed lease { claimedAt expiresAt } }\n      ... on UserError { code field }\n    }\n  }\n"): (typeof documents)["\n  mutation LcClaimDefault {\n    claimItem(input: {}) {\n      __typename\n      ... on ClaimItemPayload { claimed lease { claimedAt expiresAt } }\n      ... on UserError { code field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation LcRenew($token: String!, $leaseSeconds: Int) {\n    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on RenewLeasePayload { serverTime item { ...LcItem } }\n      ... on UserError { code field }\n    }\n  }\n"): (typeof documents)["\n  mutation LcRenew($token: String!, $leaseSeconds: Int) {\n    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on RenewLeasePayload { serverTime item { ...LcItem } }\n      ... on UserError { code field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation LcRenewDefault($token: String!) {\n    renewLease(input: { token: $token }) {\n      __typename\n      ... on RenewLeasePayload { item { leaseExpiresAt } }\n      ... on UserError { code field }\n    }\n  }\n"): (typeof documents)["\n  mutation LcRenewDefault($token: String!) {\n    renewLease(input: { token: $token }) {\n      __typename\n      ... on RenewLeasePayload { item { leaseExpiresAt } }\n      ... on UserError { code field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation LcRelease($token: String!) {\n    releaseLease(input: { token: $token }) {\n      __typename\n      ... on ReleaseLeasePayload { item { ...LcItem } }\n      ... on UserError { code field }\n    }\n  }\n"): (typeof documents)["\n  mutation LcRelease($token: String!) {\n    releaseLease(input: { token: $token }) {\n      __typename\n      ... on ReleaseLeasePayload { item { ...LcItem } }\n      ... on UserError { code field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation LcDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { ...LcItem } }\n      ... on UserError { code field }\n    }\n  }\n"): (typeof documents)["\n  mutation LcDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { ...LcItem } }\n      ... on UserError { code field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query LcShow($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { ...LcItem }\n      ... on UserError { code field }\n    }\n  }\n"): (typeof documents)["\n  query LcShow($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { ...LcItem }\n      ... on UserError { code field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query LcEventCount {\n    events(last: 1) { edges { node { sequence } } }\n  }\n"): (typeof documents)["\n  query LcEventCount {\n    events(last: 1) { edges { node { sequence } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query LcEventsAfter($afterSequence: Int) {\n    events(first: 100, filter: { afterSequence: $afterSequence }) { edges { node { type actor details } } }\n  }\n"): (typeof documents)["\n  query LcEventsAfter($afterSequence: Int) {\n    events(first: 100, filter: { afterSequence: $afterSequence }) { edges { node { type actor details } } }\n  }\n"];
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
export function graphql(source: "\n  mutation TutorialClaim($leaseSeconds: Int) {\n    claimItem(input: { leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        serverTime\n        item { batchId recordId proposedCategory reason claimedBy claimState }\n        lease { token holder claimedAt expiresAt }\n      }\n      ... on UserError { code field }\n    }\n  }\n"): (typeof documents)["\n  mutation TutorialClaim($leaseSeconds: Int) {\n    claimItem(input: { leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        serverTime\n        item { batchId recordId proposedCategory reason claimedBy claimState }\n        lease { token holder claimedAt expiresAt }\n      }\n      ... on UserError { code field }\n    }\n  }\n"];
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
export function graphql(source: "\n  query TutorialShow($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { batchId recordId status proposedCategory finalCategory addedBy reviewedBy claimedBy claimState }\n      ... on UserError { code }\n    }\n  }\n"): (typeof documents)["\n  query TutorialShow($batchId: String!, $recordId: String!) {\n    item(batchId: $batchId, recordId: $recordId) {\n      __typename\n      ... on Item { batchId recordId status proposedCategory finalCategory addedBy reviewedBy claimedBy claimState }\n      ... on UserError { code }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConcurrentSetUp($names: [String!]!, $items: [AddItemInput!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n    }\n    addItems(input: { items: $items }) {\n      __typename\n      ... on AddItemsPayload { addedCount refusedCount }\n    }\n  }\n"): (typeof documents)["\n  mutation ConcurrentSetUp($names: [String!]!, $items: [AddItemInput!]!) {\n    addCategories(input: { names: $names }) {\n      __typename\n    }\n    addItems(input: { items: $items }) {\n      __typename\n      ... on AddItemsPayload { addedCount refusedCount }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConcurrentClaim {\n    claimItem(input: { leaseSeconds: 600 }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        item { id batchId recordId claimedBy version }\n        lease { token holder }\n      }\n      ... on UserError { code message }\n    }\n  }\n"): (typeof documents)["\n  mutation ConcurrentClaim {\n    claimItem(input: { leaseSeconds: 600 }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        item { id batchId recordId claimedBy version }\n        lease { token holder }\n      }\n      ... on UserError { code message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConcurrentDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { id status finalCategory reviewedBy claimState } }\n      ... on UserError { code message }\n    }\n  }\n"): (typeof documents)["\n  mutation ConcurrentDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload { item { id status finalCategory reviewedBy claimState } }\n      ... on UserError { code message }\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;