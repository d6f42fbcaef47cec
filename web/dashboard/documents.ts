// The dashboard's GraphQL operations, typed by codegen (npm run codegen writes ./gql/ from these).
import { graphql } from '../gql/index.js';

export const ViewerQuery = graphql(`
  query DashboardViewer {
    serverTime
    viewer {
      name
      roles
    }
  }
`);

export const LatestEventQuery = graphql(`
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
`);

export const ItemsQuery = graphql(`
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
`);

export const ChartHistoryQuery = graphql(`
  query DashboardChartHistory($before: String) {
    serverTime
    events(last: 100, before: $before, filter: { types: [ITEM_DECIDED, LEASE_EXPIRED] }) {
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
`);

export const StatsSubscription = graphql(`
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
`);

export const EventsSubscription = graphql(`
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
`);
