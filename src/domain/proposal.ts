// Action proposals (seed B): the state machine as one transition table, the approval policies per
// risk level, and why a proposal is not moving. Every state change goes through `transition()`.
import { DomainError } from './errors.js';

export const PROPOSAL_STATES = {
  PENDING: 'Waiting for reviewers: claim it, then approve, reject or request changes.',
  APPROVED: 'Approved by enough distinct reviewers; waiting for an executor while the approval is valid.',
  REJECTED: 'A reviewer rejected it. Final.',
  CHANGES_REQUESTED: 'A reviewer asked for changes; the proposer submits a new revision, reviewed from scratch. Final for this revision.',
  CANCELLED: 'The proposer or an admin withdrew it. Final.',
  EXPIRED: 'Its deadline or its approval’s validity passed before it was executed. Final; a new revision needs a new approval.',
  STALE: 'The target’s data changed after the proposal was made (fingerprint mismatch); approvals are void. Final for this revision.',
  EXECUTING: 'One executor holds it under an execution lease and may be carrying it out now.',
  EXECUTED: 'Carried out (reported by its executor, reconciled, or recorded as done by hand). Final.',
  FAILED: 'The remote system refused it without effect and it will not be retried. Final.',
  OUTCOME_UNKNOWN:
    'Execution may or may not have taken effect; blocked until a reconciler (RECONCILER) reconciles it. Never re-run automatically.',
} as const;

export type ProposalState = keyof typeof PROPOSAL_STATES;

export const RISK_LEVELS = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** What may happen to a proposal. Each maps to an event type of the same meaning. */
export const PROPOSAL_OPERATIONS = {
  APPROVE: 'A reviewer holding the review lease approves the exact revision it reviewed.',
  AUTO_APPROVE:
    'At submission, a policy with approvers: 0 for its action and risk level (LOW or MEDIUM only) approves it; it is reviewed after execution.',
  REJECT: 'A reviewer holding the review lease rejects it, with a reason.',
  REQUEST_CHANGES: 'A reviewer holding the review lease asks for a new revision, with a reason.',
  CANCEL: 'The proposer or an admin withdraws it, with a reason.',
  EXPIRE: 'Its deadline, or its approval’s validity, passed.',
  MARK_STALE: 'The target’s fingerprint no longer matches the one reviewed.',
  CLAIM_EXECUTION: 'An executor takes it under an execution lease (one winner).',
  SUCCEED: 'The executor reports the effect took place.',
  FAIL_BEFORE_SEND: 'The executor reports it failed before anything was sent: back to APPROVED if still valid.',
  FAIL_REJECTED_BY_REMOTE: 'The remote system refused it and says nothing changed: FAILED.',
  OUTCOME_UNKNOWN: 'Failure after sending, an unknown result, or the execution lease lapsed.',
  RECONCILE_EXECUTED: 'A reconciler confirms, with evidence, that it took effect.',
  RECONCILE_NOT_EXECUTED: 'A reconciler confirms it did not take effect: back to APPROVED only if still valid and unchanged.',
  RECORD_MANUAL_EXECUTION:
    'An executor records that it was carried out by hand: EXECUTED when the checks hold, else OUTCOME_UNKNOWN (never "not executed").',
} as const;

export type ProposalOperation = keyof typeof PROPOSAL_OPERATIONS;

/** The facts some transitions depend on, all computed inside the transaction. */
export interface TransitionFacts {
  /** Approvals of this revision that will count after this operation (for APPROVE). */
  approvalsAfter?: number;
  approvalsRequired?: number;
  /** The approval is still within its validity and the deadline has not passed. */
  approvalValid?: boolean;
  /** The fingerprint presented matches the one the proposal was reviewed with. */
  fingerprintMatches?: boolean;
  /** This revision was approved at some point (it has an operation id), for a manual record after it went EXPIRED or STALE. */
  wasApproved?: boolean;
}

type Outcome = ProposalState | ((facts: TransitionFacts) => ProposalState);

/**
 * Back to APPROVED only when nothing has changed and the approval still holds. Fails closed: a fact
 * not established (undefined) counts against.
 */
const recoverable: Outcome = (facts) =>
  facts.fingerprintMatches !== true ? 'STALE' : facts.approvalValid === true ? 'APPROVED' : 'EXPIRED';

/**
 * A record of something already done by hand never makes it "not executed": when the checks hold it is
 * EXECUTED, otherwise OUTCOME_UNKNOWN for a reconciler. Fails closed (an unverified fact is a failed check).
 */
const recordedByHand: Outcome = (facts) =>
  facts.fingerprintMatches === true && facts.approvalValid === true ? 'EXECUTED' : 'OUTCOME_UNKNOWN';

/**
 * After an approved revision went EXPIRED or STALE, a manual record of what was done anyway goes to
 * OUTCOME_UNKNOWN for reconciliation; a revision never approved cannot have been executed as approved.
 */
const recordedTooLate: Outcome = (facts) => {
  if (facts.wasApproved !== true) {
    throw new DomainError(
      'PROPOSAL_STATE_CONFLICT',
      'This revision was never approved, so nothing done by hand can be recorded as its execution.',
    );
  }
  return 'OUTCOME_UNKNOWN';
};

/**
 * The whole machine: for each state, the operations it accepts and where they lead. Anything not
 * listed is refused with PROPOSAL_STATE_CONFLICT, naming the state and the operation.
 */
export const TRANSITIONS: Record<ProposalState, Partial<Record<ProposalOperation, Outcome>>> = {
  PENDING: {
    AUTO_APPROVE: 'APPROVED',
    APPROVE: (facts) => ((facts.approvalsAfter ?? 0) >= (facts.approvalsRequired ?? 1) ? 'APPROVED' : 'PENDING'),
    REJECT: 'REJECTED',
    REQUEST_CHANGES: 'CHANGES_REQUESTED',
    CANCEL: 'CANCELLED',
    EXPIRE: 'EXPIRED',
    MARK_STALE: 'STALE',
  },
  APPROVED: {
    CANCEL: 'CANCELLED',
    EXPIRE: 'EXPIRED',
    MARK_STALE: 'STALE',
    CLAIM_EXECUTION: 'EXECUTING',
    RECORD_MANUAL_EXECUTION: recordedByHand,
  },
  EXECUTING: {
    SUCCEED: 'EXECUTED',
    FAIL_BEFORE_SEND: recoverable,
    FAIL_REJECTED_BY_REMOTE: 'FAILED',
    OUTCOME_UNKNOWN: 'OUTCOME_UNKNOWN',
    // The fingerprint presented when the attempt starts differs: nothing ran.
    MARK_STALE: 'STALE',
  },
  OUTCOME_UNKNOWN: {
    RECONCILE_EXECUTED: 'EXECUTED',
    RECONCILE_NOT_EXECUTED: recoverable,
  },
  REJECTED: {},
  CHANGES_REQUESTED: {},
  CANCELLED: {},
  // Final for the workflow; only a record of what was already done by hand (approved revisions only).
  EXPIRED: { RECORD_MANUAL_EXECUTION: recordedTooLate },
  STALE: { RECORD_MANUAL_EXECUTION: recordedTooLate },
  EXECUTED: {},
  FAILED: {},
};

/** States no workflow step leaves (a record of what was already done by hand is not a step). */
export const FINAL_STATES: ReadonlySet<ProposalState> = new Set(
  (Object.keys(TRANSITIONS) as ProposalState[]).filter((state) =>
    Object.keys(TRANSITIONS[state]).every((operation) => operation === 'RECORD_MANUAL_EXECUTION'),
  ),
);

/** Where `operation` takes a proposal in `state`, or a PROPOSAL_STATE_CONFLICT refusal. */
export function transition(state: ProposalState, operation: ProposalOperation, facts: TransitionFacts = {}): ProposalState {
  const outcome = TRANSITIONS[state][operation];
  if (outcome === undefined) {
    throw new DomainError(
      'PROPOSAL_STATE_CONFLICT',
      `A proposal that is ${state} cannot take ${operation}${FINAL_STATES.has(state) ? ' (it is final)' : ''}.`,
    );
  }
  return typeof outcome === 'function' ? outcome(facts) : outcome;
}

/** How many distinct approvers, how long an approval stays valid, and whether executors must differ. */
export interface ApprovalPolicy {
  approvers: number;
  validitySeconds: number;
  executorMustDifferFromApprovers: boolean;
}

/** Approval policies by risk level; the server's configuration (APPROVAL_POLICIES) may replace the defaults. */
export type Policies = Record<RiskLevel, ApprovalPolicy>;

export const DEFAULT_POLICIES: Policies = {
  LOW: { approvers: 1, validitySeconds: 24 * 3600, executorMustDifferFromApprovers: false },
  MEDIUM: { approvers: 1, validitySeconds: 4 * 3600, executorMustDifferFromApprovers: true },
  HIGH: { approvers: 2, validitySeconds: 3600, executorMustDifferFromApprovers: true },
  CRITICAL: { approvers: 3, validitySeconds: 900, executorMustDifferFromApprovers: true },
};

/** The approval's expiry: the policy's window or the proposal's own (shorter) one, never past the deadline. */
export function approvalExpiry(now: Date, policy: ApprovalPolicy, requestedSeconds: number | null, deadline: Date | null): Date {
  const seconds = Math.min(policy.validitySeconds, requestedSeconds ?? Number.POSITIVE_INFINITY);
  const expiry = now.getTime() + seconds * 1000;
  return new Date(deadline ? Math.min(expiry, deadline.getTime()) : expiry);
}

/** The proposal fields `blockedReason` needs. */
export interface ProposalView {
  state: ProposalState;
  approvals: number;
  approvalsRequired: number;
  leaseHolder: string | null;
  leaseExpiresAt: Date | null;
  approvalExpiresAt: Date | null;
  deadline: Date | null;
}

/** Why a proposal is not moving, and what would move it. Null when it is final and nothing is expected. */
export function blockedReason(proposal: ProposalView, now: Date): string | null {
  const held = proposal.leaseHolder !== null && proposal.leaseExpiresAt !== null && proposal.leaseExpiresAt > now;
  switch (proposal.state) {
    case 'PENDING': {
      const count = `${proposal.approvals} of ${proposal.approvalsRequired} approvals`;
      if (held) return `Under review by ${proposal.leaseHolder} until ${proposal.leaseExpiresAt?.toISOString()} (${count}).`;
      return `Waiting for a reviewer to claim it (${count}${proposal.deadline ? `; deadline ${proposal.deadline.toISOString()}` : ''}).`;
    }
    case 'APPROVED':
      return `Waiting for an executor to claim it; the approval is valid until ${proposal.approvalExpiresAt?.toISOString()}.`;
    case 'EXECUTING':
      return `Being executed by ${proposal.leaseHolder} (execution lease until ${proposal.leaseExpiresAt?.toISOString()}); if it lapses the outcome becomes unknown.`;
    case 'OUTCOME_UNKNOWN':
      return 'Execution may or may not have taken effect: a reconciler (RECONCILER role; not its proposer or executor) must check the remote system with the operation id and reconcile it.';
    case 'CHANGES_REQUESTED':
      return 'A reviewer asked for changes: the proposer must submit a new revision.';
    case 'STALE':
      return 'The target’s data changed since this revision was made: the proposer must submit a new revision with the current fingerprint.';
    case 'EXPIRED':
      return 'Expired before execution: submit a new revision for a new approval.';
    default:
      return null;
  }
}
