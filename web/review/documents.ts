// The reviewer's page's GraphQL operations, typed by codegen (npm run codegen writes ../gql/ from these).
import { graphql } from '../gql/index.js';

export const ReviewViewerQuery = graphql(`
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
`);

/** Sent over the WebSocket: the lease is released when this page's connection closes (a closed tab frees the item). */
export const ReviewClaimMutation = graphql(`
  mutation ReviewClaim($batchId: String, $leaseSeconds: Int) {
    claimItem(input: { batchId: $batchId, leaseSeconds: $leaseSeconds, releaseOnDisconnect: true }) {
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
`);

export const ReviewRenewMutation = graphql(`
  mutation ReviewRenew($token: String!, $leaseSeconds: Int) {
    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {
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
`);

export const ReviewReleaseMutation = graphql(`
  mutation ReviewRelease($token: String!) {
    releaseLease(input: { token: $token }) {
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
`);

export const ReviewDecideMutation = graphql(`
  mutation ReviewDecide($token: String!, $decision: Decision!, $category: String) {
    decideItem(input: { token: $token, decision: $decision, category: $category }) {
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
`);

export const ReviewLeaseNoticesSubscription = graphql(`
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
`);
