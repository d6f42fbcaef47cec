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
    "\n  query DashboardViewer {\n    serverTime\n    viewer {\n      name\n      roles\n    }\n  }\n": typeof types.DashboardViewerDocument,
    "\n  query DashboardLatestEvent {\n    serverTime\n    events(last: 1) {\n      edges {\n        node {\n          sequence\n        }\n      }\n    }\n  }\n": typeof types.DashboardLatestEventDocument,
    "\n  query DashboardItems($filter: ItemFilter, $first: Int) {\n    serverTime\n    items(filter: $filter, first: $first) {\n      edges {\n        node {\n          id\n          batchId\n          recordId\n          proposedCategory\n          status\n          claimState\n          claimedBy\n          leaseExpiresAt\n          finalCategory\n          reviewedBy\n        }\n      }\n      pageInfo {\n        hasNextPage\n      }\n    }\n  }\n": typeof types.DashboardItemsDocument,
    "\n  query DashboardChartHistory($before: String) {\n    serverTime\n    events(last: 100, before: $before, filter: { types: [ITEM_DECIDED, LEASE_EXPIRED] }) {\n      edges {\n        node {\n          sequence\n          type\n          occurredAt\n        }\n      }\n      pageInfo {\n        hasPreviousPage\n        startCursor\n      }\n    }\n  }\n": typeof types.DashboardChartHistoryDocument,
    "\n  subscription DashboardStats {\n    queueStats {\n      pending\n      unclaimed\n      activeLeases\n      expiredLeases\n      accepted\n      corrected\n      rejected\n      oldestPendingCreatedAt\n      sequence\n      serverTime\n    }\n  }\n": typeof types.DashboardStatsDocument,
    "\n  subscription DashboardEvents($afterSequence: Int, $filter: QueueEventFilter) {\n    queueEvents(afterSequence: $afterSequence, filter: $filter) {\n      sequence\n      type\n      occurredAt\n      actor\n      serverTime\n      toStatus\n      leaseExpiresAt\n      item {\n        batchId\n        recordId\n      }\n    }\n  }\n": typeof types.DashboardEventsDocument,
    "\n  query ReviewViewer {\n    serverTime\n    viewer {\n      name\n      roles\n    }\n    categories {\n      name\n    }\n  }\n": typeof types.ReviewViewerDocument,
    "\n  mutation ReviewClaim($batchId: String, $leaseSeconds: Int) {\n    claimItem(input: { batchId: $batchId, leaseSeconds: $leaseSeconds, releaseOnDisconnect: true }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        serverTime\n        item {\n          id\n          batchId\n          recordId\n          proposedCategory\n          reason\n          addedBy\n          createdAt\n          leaseNumber\n        }\n        lease {\n          token\n          leaseExpiresAt\n        }\n      }\n      ... on UserError {\n        code\n        field\n        message\n      }\n    }\n  }\n": typeof types.ReviewClaimDocument,
    "\n  mutation ReviewRenew($token: String!, $leaseSeconds: Int) {\n    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on RenewLeasePayload {\n        serverTime\n        item {\n          leaseExpiresAt\n        }\n      }\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n": typeof types.ReviewRenewDocument,
    "\n  mutation ReviewRelease($token: String!) {\n    releaseLease(input: { token: $token }) {\n      __typename\n      ... on ReleaseLeasePayload {\n        serverTime\n      }\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n": typeof types.ReviewReleaseDocument,
    "\n  mutation ReviewDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload {\n        serverTime\n        item {\n          status\n          finalCategory\n        }\n      }\n      ... on UserError {\n        code\n        field\n        message\n      }\n    }\n  }\n": typeof types.ReviewDecideDocument,
    "\n  subscription ReviewLeaseNotices($token: String!) {\n    leaseEvents(token: $token) {\n      kind\n      leaseExpiresAt\n      serverTime\n      event {\n        actor\n      }\n    }\n  }\n": typeof types.ReviewLeaseNoticesDocument,
};
const documents: Documents = {
    "\n  query DashboardViewer {\n    serverTime\n    viewer {\n      name\n      roles\n    }\n  }\n": types.DashboardViewerDocument,
    "\n  query DashboardLatestEvent {\n    serverTime\n    events(last: 1) {\n      edges {\n        node {\n          sequence\n        }\n      }\n    }\n  }\n": types.DashboardLatestEventDocument,
    "\n  query DashboardItems($filter: ItemFilter, $first: Int) {\n    serverTime\n    items(filter: $filter, first: $first) {\n      edges {\n        node {\n          id\n          batchId\n          recordId\n          proposedCategory\n          status\n          claimState\n          claimedBy\n          leaseExpiresAt\n          finalCategory\n          reviewedBy\n        }\n      }\n      pageInfo {\n        hasNextPage\n      }\n    }\n  }\n": types.DashboardItemsDocument,
    "\n  query DashboardChartHistory($before: String) {\n    serverTime\n    events(last: 100, before: $before, filter: { types: [ITEM_DECIDED, LEASE_EXPIRED] }) {\n      edges {\n        node {\n          sequence\n          type\n          occurredAt\n        }\n      }\n      pageInfo {\n        hasPreviousPage\n        startCursor\n      }\n    }\n  }\n": types.DashboardChartHistoryDocument,
    "\n  subscription DashboardStats {\n    queueStats {\n      pending\n      unclaimed\n      activeLeases\n      expiredLeases\n      accepted\n      corrected\n      rejected\n      oldestPendingCreatedAt\n      sequence\n      serverTime\n    }\n  }\n": types.DashboardStatsDocument,
    "\n  subscription DashboardEvents($afterSequence: Int, $filter: QueueEventFilter) {\n    queueEvents(afterSequence: $afterSequence, filter: $filter) {\n      sequence\n      type\n      occurredAt\n      actor\n      serverTime\n      toStatus\n      leaseExpiresAt\n      item {\n        batchId\n        recordId\n      }\n    }\n  }\n": types.DashboardEventsDocument,
    "\n  query ReviewViewer {\n    serverTime\n    viewer {\n      name\n      roles\n    }\n    categories {\n      name\n    }\n  }\n": types.ReviewViewerDocument,
    "\n  mutation ReviewClaim($batchId: String, $leaseSeconds: Int) {\n    claimItem(input: { batchId: $batchId, leaseSeconds: $leaseSeconds, releaseOnDisconnect: true }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        serverTime\n        item {\n          id\n          batchId\n          recordId\n          proposedCategory\n          reason\n          addedBy\n          createdAt\n          leaseNumber\n        }\n        lease {\n          token\n          leaseExpiresAt\n        }\n      }\n      ... on UserError {\n        code\n        field\n        message\n      }\n    }\n  }\n": types.ReviewClaimDocument,
    "\n  mutation ReviewRenew($token: String!, $leaseSeconds: Int) {\n    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on RenewLeasePayload {\n        serverTime\n        item {\n          leaseExpiresAt\n        }\n      }\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n": types.ReviewRenewDocument,
    "\n  mutation ReviewRelease($token: String!) {\n    releaseLease(input: { token: $token }) {\n      __typename\n      ... on ReleaseLeasePayload {\n        serverTime\n      }\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n": types.ReviewReleaseDocument,
    "\n  mutation ReviewDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload {\n        serverTime\n        item {\n          status\n          finalCategory\n        }\n      }\n      ... on UserError {\n        code\n        field\n        message\n      }\n    }\n  }\n": types.ReviewDecideDocument,
    "\n  subscription ReviewLeaseNotices($token: String!) {\n    leaseEvents(token: $token) {\n      kind\n      leaseExpiresAt\n      serverTime\n      event {\n        actor\n      }\n    }\n  }\n": types.ReviewLeaseNoticesDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DashboardViewer {\n    serverTime\n    viewer {\n      name\n      roles\n    }\n  }\n"): typeof import('./graphql.js').DashboardViewerDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DashboardLatestEvent {\n    serverTime\n    events(last: 1) {\n      edges {\n        node {\n          sequence\n        }\n      }\n    }\n  }\n"): typeof import('./graphql.js').DashboardLatestEventDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DashboardItems($filter: ItemFilter, $first: Int) {\n    serverTime\n    items(filter: $filter, first: $first) {\n      edges {\n        node {\n          id\n          batchId\n          recordId\n          proposedCategory\n          status\n          claimState\n          claimedBy\n          leaseExpiresAt\n          finalCategory\n          reviewedBy\n        }\n      }\n      pageInfo {\n        hasNextPage\n      }\n    }\n  }\n"): typeof import('./graphql.js').DashboardItemsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DashboardChartHistory($before: String) {\n    serverTime\n    events(last: 100, before: $before, filter: { types: [ITEM_DECIDED, LEASE_EXPIRED] }) {\n      edges {\n        node {\n          sequence\n          type\n          occurredAt\n        }\n      }\n      pageInfo {\n        hasPreviousPage\n        startCursor\n      }\n    }\n  }\n"): typeof import('./graphql.js').DashboardChartHistoryDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription DashboardStats {\n    queueStats {\n      pending\n      unclaimed\n      activeLeases\n      expiredLeases\n      accepted\n      corrected\n      rejected\n      oldestPendingCreatedAt\n      sequence\n      serverTime\n    }\n  }\n"): typeof import('./graphql.js').DashboardStatsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription DashboardEvents($afterSequence: Int, $filter: QueueEventFilter) {\n    queueEvents(afterSequence: $afterSequence, filter: $filter) {\n      sequence\n      type\n      occurredAt\n      actor\n      serverTime\n      toStatus\n      leaseExpiresAt\n      item {\n        batchId\n        recordId\n      }\n    }\n  }\n"): typeof import('./graphql.js').DashboardEventsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ReviewViewer {\n    serverTime\n    viewer {\n      name\n      roles\n    }\n    categories {\n      name\n    }\n  }\n"): typeof import('./graphql.js').ReviewViewerDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ReviewClaim($batchId: String, $leaseSeconds: Int) {\n    claimItem(input: { batchId: $batchId, leaseSeconds: $leaseSeconds, releaseOnDisconnect: true }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        serverTime\n        item {\n          id\n          batchId\n          recordId\n          proposedCategory\n          reason\n          addedBy\n          createdAt\n          leaseNumber\n        }\n        lease {\n          token\n          leaseExpiresAt\n        }\n      }\n      ... on UserError {\n        code\n        field\n        message\n      }\n    }\n  }\n"): typeof import('./graphql.js').ReviewClaimDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ReviewRenew($token: String!, $leaseSeconds: Int) {\n    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on RenewLeasePayload {\n        serverTime\n        item {\n          leaseExpiresAt\n        }\n      }\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n"): typeof import('./graphql.js').ReviewRenewDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ReviewRelease($token: String!) {\n    releaseLease(input: { token: $token }) {\n      __typename\n      ... on ReleaseLeasePayload {\n        serverTime\n      }\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n"): typeof import('./graphql.js').ReviewReleaseDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ReviewDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload {\n        serverTime\n        item {\n          status\n          finalCategory\n        }\n      }\n      ... on UserError {\n        code\n        field\n        message\n      }\n    }\n  }\n"): typeof import('./graphql.js').ReviewDecideDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ReviewLeaseNotices($token: String!) {\n    leaseEvents(token: $token) {\n      kind\n      leaseExpiresAt\n      serverTime\n      event {\n        actor\n      }\n    }\n  }\n"): typeof import('./graphql.js').ReviewLeaseNoticesDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
