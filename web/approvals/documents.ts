// The approvals page's GraphQL operations, typed by codegen (npm run codegen writes ../gql/ from these).
import { graphql } from '../gql/index.js';

export const ApprovalsViewerQuery = graphql(`
  query ApprovalsViewer {
    serverTime
    viewer {
      name
      roles
    }
  }
`);

export const ProposalQueueQuery = graphql(`
  query ApprovalsQueue($filter: ProposalFilter, $first: Int) {
    serverTime
    proposals(filter: $filter, first: $first) {
      edges {
        node {
          id
          batchId
          recordId
          revision
          action
          riskLevel
          state
          blockedReason
          approvalsRequired
          approvals {
            approver
            voidedAt
          }
          deadline
          proposedBy
          assignee
          createdAt
          target {
            system
            recordId
          }
        }
      }
      pageInfo {
        hasNextPage
      }
    }
  }
`);

export const ProposalDetailQuery = graphql(`
  query ApprovalsProposal($id: ID!) {
    serverTime
    node(id: $id) {
      ... on Proposal {
        id
        batchId
        recordId
        revision
        version
        action
        parameters
        target {
          system
          recordId
        }
        currentValue
        proposedValue
        reason
        dataSource
        fingerprint
        impact
        constraints
        riskLevel
        state
        stateReason
        blockedReason
        approvalsRequired
        approvals {
          approver
          approvedAt
          voidedAt
          voidReason
        }
        approvalExpiresAt
        approvedAt
        deadline
        proposedBy
        assignee
        claimedBy
        escalatedTo
        heldBy
        heldFrom
        rule
        createdAt
        nextRevision {
          id
          revision
          state
        }
        previousRevision {
          id
          revision
        }
        history(last: 50) {
          edges {
            node {
              sequence
              type
              occurredAt
              actor
              details
            }
          }
        }
      }
    }
  }
`);

export const ClaimProposalMutation = graphql(`
  mutation ApprovalsClaim($id: ID!) {
    claimProposal(input: { id: $id, leaseSeconds: 120 }) {
      __typename
      ... on ClaimProposalPayload {
        claimed
        lease {
          token
        }
        proposal {
          revision
          fingerprint
        }
      }
      ... on UserError {
        code
        message
      }
    }
  }
`);

export const ReviewProposalMutation = graphql(`
  mutation ApprovalsReview($token: String!, $decision: ProposalReviewDecision!, $revision: Int, $fingerprint: String, $reason: String) {
    reviewProposal(input: { token: $token, decision: $decision, revision: $revision, fingerprint: $fingerprint, reason: $reason }) {
      __typename
      ... on ReviewProposalPayload {
        proposal {
          state
        }
      }
      ... on UserError {
        code
        message
      }
    }
  }
`);

export const ReleaseProposalLeaseMutation = graphql(`
  mutation ApprovalsReleaseLease($token: String!) {
    releaseProposalLease(input: { token: $token }) {
      __typename
    }
  }
`);

export const CancelProposalMutation = graphql(`
  mutation ApprovalsCancel($id: ID!, $reason: String!) {
    cancelProposal(input: { id: $id, reason: $reason }) {
      __typename
      ... on UserError {
        code
        message
      }
    }
  }
`);

export const HoldProposalMutation = graphql(`
  mutation ApprovalsHold($id: ID!, $reason: String!) {
    holdProposal(input: { id: $id, reason: $reason }) {
      __typename
      ... on UserError {
        code
        message
      }
    }
  }
`);

export const ResumeProposalMutation = graphql(`
  mutation ApprovalsResume($id: ID!, $reason: String!) {
    resumeProposal(input: { id: $id, reason: $reason }) {
      __typename
      ... on UserError {
        code
        message
      }
    }
  }
`);

export const EscalateProposalMutation = graphql(`
  mutation ApprovalsEscalate($id: ID!, $reason: String!, $to: String!) {
    escalateProposal(input: { id: $id, reason: $reason, to: $to }) {
      __typename
      ... on UserError {
        code
        message
      }
    }
  }
`);

export const ReconcileProposalMutation = graphql(`
  mutation ApprovalsReconcile($id: ID!, $executed: Boolean!, $evidence: String!, $fingerprint: String) {
    reconcileProposal(input: { id: $id, executed: $executed, evidence: $evidence, fingerprint: $fingerprint }) {
      __typename
      ... on UserError {
        code
        message
      }
    }
  }
`);

export const ProposalEventsSubscription = graphql(`
  subscription ApprovalsEvents {
    proposalEvents {
      sequence
      type
      serverTime
      proposal {
        id
      }
    }
  }
`);
