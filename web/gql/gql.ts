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
    "\n  query ApprovalsViewer {\n    serverTime\n    viewer {\n      name\n      roles\n    }\n  }\n": typeof types.ApprovalsViewerDocument,
    "\n  query ApprovalsQueue($filter: ProposalFilter, $first: Int) {\n    serverTime\n    proposals(filter: $filter, first: $first) {\n      edges {\n        node {\n          id\n          batchId\n          recordId\n          revision\n          action\n          riskLevel\n          state\n          blockedReason\n          approvalsRequired\n          approvals {\n            approver\n            voidedAt\n          }\n          deadline\n          proposedBy\n          assignee\n          createdAt\n          target {\n            system\n            recordId\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n      }\n    }\n  }\n": typeof types.ApprovalsQueueDocument,
    "\n  query ApprovalsProposal($id: ID!) {\n    serverTime\n    node(id: $id) {\n      ... on Proposal {\n        id\n        batchId\n        recordId\n        revision\n        version\n        action\n        parameters\n        target {\n          system\n          recordId\n        }\n        currentValue\n        proposedValue\n        reason\n        dataSource\n        fingerprint\n        impact\n        constraints\n        riskLevel\n        state\n        stateReason\n        blockedReason\n        approvalsRequired\n        approvals {\n          approver\n          approvedAt\n          voidedAt\n          voidReason\n        }\n        approvalExpiresAt\n        approvedAt\n        deadline\n        proposedBy\n        assignee\n        claimedBy\n        escalatedTo\n        heldBy\n        heldFrom\n        rule\n        createdAt\n        nextRevision {\n          id\n          revision\n          state\n        }\n        previousRevision {\n          id\n          revision\n        }\n        history(last: 50) {\n          edges {\n            node {\n              sequence\n              type\n              occurredAt\n              actor\n              details\n            }\n          }\n        }\n      }\n    }\n  }\n": typeof types.ApprovalsProposalDocument,
    "\n  mutation ApprovalsClaim($id: ID!) {\n    claimProposal(input: { id: $id, leaseSeconds: 120 }) {\n      __typename\n      ... on ClaimProposalPayload {\n        claimed\n        lease {\n          token\n        }\n        proposal {\n          revision\n          fingerprint\n        }\n      }\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n": typeof types.ApprovalsClaimDocument,
    "\n  mutation ApprovalsReview($token: String!, $decision: ProposalReviewDecision!, $revision: Int, $fingerprint: String, $reason: String) {\n    reviewProposal(input: { token: $token, decision: $decision, revision: $revision, fingerprint: $fingerprint, reason: $reason }) {\n      __typename\n      ... on ReviewProposalPayload {\n        proposal {\n          state\n        }\n      }\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n": typeof types.ApprovalsReviewDocument,
    "\n  mutation ApprovalsReleaseLease($token: String!) {\n    releaseProposalLease(input: { token: $token }) {\n      __typename\n    }\n  }\n": typeof types.ApprovalsReleaseLeaseDocument,
    "\n  mutation ApprovalsCancel($id: ID!, $reason: String!) {\n    cancelProposal(input: { id: $id, reason: $reason }) {\n      __typename\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n": typeof types.ApprovalsCancelDocument,
    "\n  mutation ApprovalsHold($id: ID!, $reason: String!) {\n    holdProposal(input: { id: $id, reason: $reason }) {\n      __typename\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n": typeof types.ApprovalsHoldDocument,
    "\n  mutation ApprovalsResume($id: ID!, $reason: String!) {\n    resumeProposal(input: { id: $id, reason: $reason }) {\n      __typename\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n": typeof types.ApprovalsResumeDocument,
    "\n  mutation ApprovalsEscalate($id: ID!, $reason: String!, $to: String!) {\n    escalateProposal(input: { id: $id, reason: $reason, to: $to }) {\n      __typename\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n": typeof types.ApprovalsEscalateDocument,
    "\n  mutation ApprovalsReconcile($id: ID!, $executed: Boolean!, $evidence: String!, $fingerprint: String) {\n    reconcileProposal(input: { id: $id, executed: $executed, evidence: $evidence, fingerprint: $fingerprint }) {\n      __typename\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n": typeof types.ApprovalsReconcileDocument,
    "\n  subscription ApprovalsEvents {\n    proposalEvents {\n      sequence\n      type\n      serverTime\n      proposal {\n        id\n      }\n    }\n  }\n": typeof types.ApprovalsEventsDocument,
    "\n  query DashboardViewer {\n    serverTime\n    viewer {\n      name\n      roles\n    }\n  }\n": typeof types.DashboardViewerDocument,
    "\n  query DashboardLatestEvent {\n    serverTime\n    events(last: 1) {\n      edges {\n        node {\n          sequence\n        }\n      }\n    }\n  }\n": typeof types.DashboardLatestEventDocument,
    "\n  query DashboardItems($filter: ItemFilter, $first: Int) {\n    serverTime\n    items(filter: $filter, first: $first) {\n      edges {\n        node {\n          id\n          batchId\n          recordId\n          proposedCategory\n          status\n          claimState\n          claimedBy\n          leaseExpiresAt\n          finalCategory\n          reviewedBy\n        }\n      }\n      pageInfo {\n        hasNextPage\n      }\n    }\n  }\n": typeof types.DashboardItemsDocument,
    "\n  query DashboardChartHistory($before: String) {\n    serverTime\n    events(last: 100, before: $before, filter: { types: [ITEM_DECIDED, LEASE_EXPIRED] }) {\n      edges {\n        node {\n          sequence\n          type\n          occurredAt\n          details\n        }\n      }\n      pageInfo {\n        hasPreviousPage\n        startCursor\n      }\n    }\n  }\n": typeof types.DashboardChartHistoryDocument,
    "\n  subscription DashboardStats {\n    queueStats {\n      pending\n      unclaimed\n      activeLeases\n      expiredLeases\n      accepted\n      corrected\n      rejected\n      oldestPendingCreatedAt\n      sequence\n      serverTime\n    }\n  }\n": typeof types.DashboardStatsDocument,
    "\n  subscription DashboardEvents($afterSequence: Int, $filter: QueueEventFilter) {\n    queueEvents(afterSequence: $afterSequence, filter: $filter) {\n      sequence\n      type\n      occurredAt\n      actor\n      serverTime\n      toStatus\n      leaseExpiresAt\n      item {\n        batchId\n        recordId\n      }\n    }\n  }\n": typeof types.DashboardEventsDocument,
    "\n  subscription DashboardChartEvents($afterSequence: Int) {\n    queueEvents(afterSequence: $afterSequence, filter: { types: [ITEM_DECIDED, LEASE_EXPIRED] }) {\n      sequence\n      type\n      occurredAt\n      serverTime\n      details\n    }\n  }\n": typeof types.DashboardChartEventsDocument,
    "\n  query DashboardProposalStats {\n    serverTime\n    proposalStats {\n      byState {\n        key\n        count\n      }\n      pendingByAge {\n        key\n        count\n      }\n      pendingByRisk {\n        key\n        count\n      }\n      needingReconciliation\n      executionFailures\n      stale\n      decisionWaitP50Seconds\n      decisionWaitP95Seconds\n    }\n    proposals(filter: { states: [APPROVED] }, first: 100) {\n      edges {\n        node {\n          approvalExpiresAt\n        }\n      }\n      pageInfo {\n        hasNextPage\n      }\n    }\n  }\n": typeof types.DashboardProposalStatsDocument,
    "\n  subscription DashboardProposalChanges {\n    proposalEvents {\n      sequence\n      serverTime\n    }\n  }\n": typeof types.DashboardProposalChangesDocument,
    "\n  query ReviewViewer {\n    serverTime\n    viewer {\n      name\n      roles\n    }\n    categories {\n      name\n    }\n  }\n": typeof types.ReviewViewerDocument,
    "\n  mutation ReviewClaim($batchId: String, $leaseSeconds: Int) {\n    claimItem(input: { batchId: $batchId, leaseSeconds: $leaseSeconds, releaseOnDisconnect: true }) {\n      __typename\n      ... on ClaimItemPayload {\n        claimed\n        serverTime\n        item {\n          id\n          batchId\n          recordId\n          proposedCategory\n          reason\n          addedBy\n          createdAt\n          leaseNumber\n        }\n        lease {\n          token\n          leaseExpiresAt\n        }\n      }\n      ... on UserError {\n        code\n        field\n        message\n      }\n    }\n  }\n": typeof types.ReviewClaimDocument,
    "\n  mutation ReviewRenew($token: String!, $leaseSeconds: Int) {\n    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {\n      __typename\n      ... on RenewLeasePayload {\n        serverTime\n        item {\n          leaseExpiresAt\n        }\n      }\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n": typeof types.ReviewRenewDocument,
    "\n  mutation ReviewRelease($token: String!) {\n    releaseLease(input: { token: $token }) {\n      __typename\n      ... on ReleaseLeasePayload {\n        serverTime\n      }\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n": typeof types.ReviewReleaseDocument,
    "\n  mutation ReviewDecide($token: String!, $decision: Decision!, $category: String) {\n    decideItem(input: { token: $token, decision: $decision, category: $category }) {\n      __typename\n      ... on DecideItemPayload {\n        serverTime\n        item {\n          status\n          finalCategory\n        }\n      }\n      ... on UserError {\n        code\n        field\n        message\n      }\n    }\n  }\n": typeof types.ReviewDecideDocument,
    "\n  subscription ReviewLeaseNotices($token: String!) {\n    leaseEvents(token: $token) {\n      kind\n      leaseExpiresAt\n      serverTime\n      event {\n        actor\n      }\n    }\n  }\n": typeof types.ReviewLeaseNoticesDocument,
};
const documents: Documents = {
    "\n  query ApprovalsViewer {\n    serverTime\n    viewer {\n      name\n      roles\n    }\n  }\n": types.ApprovalsViewerDocument,
    "\n  query ApprovalsQueue($filter: ProposalFilter, $first: Int) {\n    serverTime\n    proposals(filter: $filter, first: $first) {\n      edges {\n        node {\n          id\n          batchId\n          recordId\n          revision\n          action\n          riskLevel\n          state\n          blockedReason\n          approvalsRequired\n          approvals {\n            approver\n            voidedAt\n          }\n          deadline\n          proposedBy\n          assignee\n          createdAt\n          target {\n            system\n            recordId\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n      }\n    }\n  }\n": types.ApprovalsQueueDocument,
    "\n  query ApprovalsProposal($id: ID!) {\n    serverTime\n    node(id: $id) {\n      ... on Proposal {\n        id\n        batchId\n        recordId\n        revision\n        version\n        action\n        parameters\n        target {\n          system\n          recordId\n        }\n        currentValue\n        proposedValue\n        reason\n        dataSource\n        fingerprint\n        impact\n        constraints\n        riskLevel\n        state\n        stateReason\n        blockedReason\n        approvalsRequired\n        approvals {\n          approver\n          approvedAt\n          voidedAt\n          voidReason\n        }\n        approvalExpiresAt\n        approvedAt\n        deadline\n        proposedBy\n        assignee\n        claimedBy\n        escalatedTo\n        heldBy\n        heldFrom\n        rule\n        createdAt\n        nextRevision {\n          id\n          revision\n          state\n        }\n        previousRevision {\n          id\n          revision\n        }\n        history(last: 50) {\n          edges {\n            node {\n              sequence\n              type\n              occurredAt\n              actor\n              details\n            }\n          }\n        }\n      }\n    }\n  }\n": types.ApprovalsProposalDocument,
    "\n  mutation ApprovalsClaim($id: ID!) {\n    claimProposal(input: { id: $id, leaseSeconds: 120 }) {\n      __typename\n      ... on ClaimProposalPayload {\n        claimed\n        lease {\n          token\n        }\n        proposal {\n          revision\n          fingerprint\n        }\n      }\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n": types.ApprovalsClaimDocument,
    "\n  mutation ApprovalsReview($token: String!, $decision: ProposalReviewDecision!, $revision: Int, $fingerprint: String, $reason: String) {\n    reviewProposal(input: { token: $token, decision: $decision, revision: $revision, fingerprint: $fingerprint, reason: $reason }) {\n      __typename\n      ... on ReviewProposalPayload {\n        proposal {\n          state\n        }\n      }\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n": types.ApprovalsReviewDocument,
    "\n  mutation ApprovalsReleaseLease($token: String!) {\n    releaseProposalLease(input: { token: $token }) {\n      __typename\n    }\n  }\n": types.ApprovalsReleaseLeaseDocument,
    "\n  mutation ApprovalsCancel($id: ID!, $reason: String!) {\n    cancelProposal(input: { id: $id, reason: $reason }) {\n      __typename\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n": types.ApprovalsCancelDocument,
    "\n  mutation ApprovalsHold($id: ID!, $reason: String!) {\n    holdProposal(input: { id: $id, reason: $reason }) {\n      __typename\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n": types.ApprovalsHoldDocument,
    "\n  mutation ApprovalsResume($id: ID!, $reason: String!) {\n    resumeProposal(input: { id: $id, reason: $reason }) {\n      __typename\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n": types.ApprovalsResumeDocument,
    "\n  mutation ApprovalsEscalate($id: ID!, $reason: String!, $to: String!) {\n    escalateProposal(input: { id: $id, reason: $reason, to: $to }) {\n      __typename\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n": types.ApprovalsEscalateDocument,
    "\n  mutation ApprovalsReconcile($id: ID!, $executed: Boolean!, $evidence: String!, $fingerprint: String) {\n    reconcileProposal(input: { id: $id, executed: $executed, evidence: $evidence, fingerprint: $fingerprint }) {\n      __typename\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n": types.ApprovalsReconcileDocument,
    "\n  subscription ApprovalsEvents {\n    proposalEvents {\n      sequence\n      type\n      serverTime\n      proposal {\n        id\n      }\n    }\n  }\n": types.ApprovalsEventsDocument,
    "\n  query DashboardViewer {\n    serverTime\n    viewer {\n      name\n      roles\n    }\n  }\n": types.DashboardViewerDocument,
    "\n  query DashboardLatestEvent {\n    serverTime\n    events(last: 1) {\n      edges {\n        node {\n          sequence\n        }\n      }\n    }\n  }\n": types.DashboardLatestEventDocument,
    "\n  query DashboardItems($filter: ItemFilter, $first: Int) {\n    serverTime\n    items(filter: $filter, first: $first) {\n      edges {\n        node {\n          id\n          batchId\n          recordId\n          proposedCategory\n          status\n          claimState\n          claimedBy\n          leaseExpiresAt\n          finalCategory\n          reviewedBy\n        }\n      }\n      pageInfo {\n        hasNextPage\n      }\n    }\n  }\n": types.DashboardItemsDocument,
    "\n  query DashboardChartHistory($before: String) {\n    serverTime\n    events(last: 100, before: $before, filter: { types: [ITEM_DECIDED, LEASE_EXPIRED] }) {\n      edges {\n        node {\n          sequence\n          type\n          occurredAt\n          details\n        }\n      }\n      pageInfo {\n        hasPreviousPage\n        startCursor\n      }\n    }\n  }\n": types.DashboardChartHistoryDocument,
    "\n  subscription DashboardStats {\n    queueStats {\n      pending\n      unclaimed\n      activeLeases\n      expiredLeases\n      accepted\n      corrected\n      rejected\n      oldestPendingCreatedAt\n      sequence\n      serverTime\n    }\n  }\n": types.DashboardStatsDocument,
    "\n  subscription DashboardEvents($afterSequence: Int, $filter: QueueEventFilter) {\n    queueEvents(afterSequence: $afterSequence, filter: $filter) {\n      sequence\n      type\n      occurredAt\n      actor\n      serverTime\n      toStatus\n      leaseExpiresAt\n      item {\n        batchId\n        recordId\n      }\n    }\n  }\n": types.DashboardEventsDocument,
    "\n  subscription DashboardChartEvents($afterSequence: Int) {\n    queueEvents(afterSequence: $afterSequence, filter: { types: [ITEM_DECIDED, LEASE_EXPIRED] }) {\n      sequence\n      type\n      occurredAt\n      serverTime\n      details\n    }\n  }\n": types.DashboardChartEventsDocument,
    "\n  query DashboardProposalStats {\n    serverTime\n    proposalStats {\n      byState {\n        key\n        count\n      }\n      pendingByAge {\n        key\n        count\n      }\n      pendingByRisk {\n        key\n        count\n      }\n      needingReconciliation\n      executionFailures\n      stale\n      decisionWaitP50Seconds\n      decisionWaitP95Seconds\n    }\n    proposals(filter: { states: [APPROVED] }, first: 100) {\n      edges {\n        node {\n          approvalExpiresAt\n        }\n      }\n      pageInfo {\n        hasNextPage\n      }\n    }\n  }\n": types.DashboardProposalStatsDocument,
    "\n  subscription DashboardProposalChanges {\n    proposalEvents {\n      sequence\n      serverTime\n    }\n  }\n": types.DashboardProposalChangesDocument,
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
export function graphql(source: "\n  query ApprovalsViewer {\n    serverTime\n    viewer {\n      name\n      roles\n    }\n  }\n"): typeof import('./graphql.js').ApprovalsViewerDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ApprovalsQueue($filter: ProposalFilter, $first: Int) {\n    serverTime\n    proposals(filter: $filter, first: $first) {\n      edges {\n        node {\n          id\n          batchId\n          recordId\n          revision\n          action\n          riskLevel\n          state\n          blockedReason\n          approvalsRequired\n          approvals {\n            approver\n            voidedAt\n          }\n          deadline\n          proposedBy\n          assignee\n          createdAt\n          target {\n            system\n            recordId\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n      }\n    }\n  }\n"): typeof import('./graphql.js').ApprovalsQueueDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ApprovalsProposal($id: ID!) {\n    serverTime\n    node(id: $id) {\n      ... on Proposal {\n        id\n        batchId\n        recordId\n        revision\n        version\n        action\n        parameters\n        target {\n          system\n          recordId\n        }\n        currentValue\n        proposedValue\n        reason\n        dataSource\n        fingerprint\n        impact\n        constraints\n        riskLevel\n        state\n        stateReason\n        blockedReason\n        approvalsRequired\n        approvals {\n          approver\n          approvedAt\n          voidedAt\n          voidReason\n        }\n        approvalExpiresAt\n        approvedAt\n        deadline\n        proposedBy\n        assignee\n        claimedBy\n        escalatedTo\n        heldBy\n        heldFrom\n        rule\n        createdAt\n        nextRevision {\n          id\n          revision\n          state\n        }\n        previousRevision {\n          id\n          revision\n        }\n        history(last: 50) {\n          edges {\n            node {\n              sequence\n              type\n              occurredAt\n              actor\n              details\n            }\n          }\n        }\n      }\n    }\n  }\n"): typeof import('./graphql.js').ApprovalsProposalDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ApprovalsClaim($id: ID!) {\n    claimProposal(input: { id: $id, leaseSeconds: 120 }) {\n      __typename\n      ... on ClaimProposalPayload {\n        claimed\n        lease {\n          token\n        }\n        proposal {\n          revision\n          fingerprint\n        }\n      }\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n"): typeof import('./graphql.js').ApprovalsClaimDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ApprovalsReview($token: String!, $decision: ProposalReviewDecision!, $revision: Int, $fingerprint: String, $reason: String) {\n    reviewProposal(input: { token: $token, decision: $decision, revision: $revision, fingerprint: $fingerprint, reason: $reason }) {\n      __typename\n      ... on ReviewProposalPayload {\n        proposal {\n          state\n        }\n      }\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n"): typeof import('./graphql.js').ApprovalsReviewDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ApprovalsReleaseLease($token: String!) {\n    releaseProposalLease(input: { token: $token }) {\n      __typename\n    }\n  }\n"): typeof import('./graphql.js').ApprovalsReleaseLeaseDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ApprovalsCancel($id: ID!, $reason: String!) {\n    cancelProposal(input: { id: $id, reason: $reason }) {\n      __typename\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n"): typeof import('./graphql.js').ApprovalsCancelDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ApprovalsHold($id: ID!, $reason: String!) {\n    holdProposal(input: { id: $id, reason: $reason }) {\n      __typename\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n"): typeof import('./graphql.js').ApprovalsHoldDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ApprovalsResume($id: ID!, $reason: String!) {\n    resumeProposal(input: { id: $id, reason: $reason }) {\n      __typename\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n"): typeof import('./graphql.js').ApprovalsResumeDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ApprovalsEscalate($id: ID!, $reason: String!, $to: String!) {\n    escalateProposal(input: { id: $id, reason: $reason, to: $to }) {\n      __typename\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n"): typeof import('./graphql.js').ApprovalsEscalateDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ApprovalsReconcile($id: ID!, $executed: Boolean!, $evidence: String!, $fingerprint: String) {\n    reconcileProposal(input: { id: $id, executed: $executed, evidence: $evidence, fingerprint: $fingerprint }) {\n      __typename\n      ... on UserError {\n        code\n        message\n      }\n    }\n  }\n"): typeof import('./graphql.js').ApprovalsReconcileDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ApprovalsEvents {\n    proposalEvents {\n      sequence\n      type\n      serverTime\n      proposal {\n        id\n      }\n    }\n  }\n"): typeof import('./graphql.js').ApprovalsEventsDocument;
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
export function graphql(source: "\n  query DashboardChartHistory($before: String) {\n    serverTime\n    events(last: 100, before: $before, filter: { types: [ITEM_DECIDED, LEASE_EXPIRED] }) {\n      edges {\n        node {\n          sequence\n          type\n          occurredAt\n          details\n        }\n      }\n      pageInfo {\n        hasPreviousPage\n        startCursor\n      }\n    }\n  }\n"): typeof import('./graphql.js').DashboardChartHistoryDocument;
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
export function graphql(source: "\n  subscription DashboardChartEvents($afterSequence: Int) {\n    queueEvents(afterSequence: $afterSequence, filter: { types: [ITEM_DECIDED, LEASE_EXPIRED] }) {\n      sequence\n      type\n      occurredAt\n      serverTime\n      details\n    }\n  }\n"): typeof import('./graphql.js').DashboardChartEventsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DashboardProposalStats {\n    serverTime\n    proposalStats {\n      byState {\n        key\n        count\n      }\n      pendingByAge {\n        key\n        count\n      }\n      pendingByRisk {\n        key\n        count\n      }\n      needingReconciliation\n      executionFailures\n      stale\n      decisionWaitP50Seconds\n      decisionWaitP95Seconds\n    }\n    proposals(filter: { states: [APPROVED] }, first: 100) {\n      edges {\n        node {\n          approvalExpiresAt\n        }\n      }\n      pageInfo {\n        hasNextPage\n      }\n    }\n  }\n"): typeof import('./graphql.js').DashboardProposalStatsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription DashboardProposalChanges {\n    proposalEvents {\n      sequence\n      serverTime\n    }\n  }\n"): typeof import('./graphql.js').DashboardProposalChangesDocument;
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
