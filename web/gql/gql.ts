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
};
const documents: Documents = {
    "\n  query DashboardViewer {\n    serverTime\n    viewer {\n      name\n      roles\n    }\n  }\n": types.DashboardViewerDocument,
    "\n  query DashboardLatestEvent {\n    serverTime\n    events(last: 1) {\n      edges {\n        node {\n          sequence\n        }\n      }\n    }\n  }\n": types.DashboardLatestEventDocument,
    "\n  query DashboardItems($filter: ItemFilter, $first: Int) {\n    serverTime\n    items(filter: $filter, first: $first) {\n      edges {\n        node {\n          id\n          batchId\n          recordId\n          proposedCategory\n          status\n          claimState\n          claimedBy\n          leaseExpiresAt\n          finalCategory\n          reviewedBy\n        }\n      }\n      pageInfo {\n        hasNextPage\n      }\n    }\n  }\n": types.DashboardItemsDocument,
    "\n  query DashboardChartHistory($before: String) {\n    serverTime\n    events(last: 100, before: $before, filter: { types: [ITEM_DECIDED, LEASE_EXPIRED] }) {\n      edges {\n        node {\n          sequence\n          type\n          occurredAt\n        }\n      }\n      pageInfo {\n        hasPreviousPage\n        startCursor\n      }\n    }\n  }\n": types.DashboardChartHistoryDocument,
    "\n  subscription DashboardStats {\n    queueStats {\n      pending\n      unclaimed\n      activeLeases\n      expiredLeases\n      accepted\n      corrected\n      rejected\n      oldestPendingCreatedAt\n      sequence\n      serverTime\n    }\n  }\n": types.DashboardStatsDocument,
    "\n  subscription DashboardEvents($afterSequence: Int, $filter: QueueEventFilter) {\n    queueEvents(afterSequence: $afterSequence, filter: $filter) {\n      sequence\n      type\n      occurredAt\n      actor\n      serverTime\n      toStatus\n      leaseExpiresAt\n      item {\n        batchId\n        recordId\n      }\n    }\n  }\n": types.DashboardEventsDocument,
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


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
