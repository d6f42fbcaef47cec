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
          details
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

/** The chart's live part: decisions (with how long their lease was held) and lease expiries. */
export const ChartEventsSubscription = graphql(`
  subscription DashboardChartEvents($afterSequence: Int) {
    queueEvents(afterSequence: $afterSequence, filter: { types: [ITEM_DECIDED, LEASE_EXPIRED] }) {
      sequence
      type
      occurredAt
      serverTime
      details
    }
  }
`);

/** The proposals panel: maintained counts, and the approved proposals (at most 100) to find approvals about to expire. */
export const ProposalStatsQuery = graphql(`
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
    proposals(filter: { states: [APPROVED] }, first: 100) {
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
`);

/** Any change to a proposal: the proposals panel reads its counts again. */
export const ProposalChangesSubscription = graphql(`
  subscription DashboardProposalChanges {
    proposalEvents {
      sequence
      serverTime
    }
  }
`);
