// Action proposals (seed B): the public API of the proposal workflow, one module per lifecycle stage.
// Each operation is one transaction that checks the caller, the current state (through domain/proposal.ts
// `transition`) and the data, then writes the change and its events together. Import from here.

export { reviewExecutedProposal } from './after-review.js';
export { type ExecutionOutcome, reportExecutionResult, startExecutionAttempt } from './attempts.js';
export { claimExecution, claimManualExecution, type ExecutionClaim, recordManualExecution } from './execution.js';
export { type NewProposal, submitProposal } from './intake.js';
export { assignProposal, escalateProposal, holdProposal, resumeProposal } from './oversight.js';
export { nextProposalDeadline, reconcileProposal, recordProposalDeadlines } from './recovery.js';
export { cancelProposal, type ReviewDecision, type ReviewInput, reviewProposal } from './review.js';
export { claimProposal, type ProposalClaim, releaseProposalLease, renewProposalLease } from './review-leases.js';
export { type Policies, PROPOSAL_LIMITS, type ProposalDeps } from './shared.js';
export { reportTargetState } from './target-state.js';
