// Action proposals (seed B): the state machine as one transition table, the approval policies per
// risk level, and why a proposal is not moving. Every state change goes through `transition()`.
import { PERMISSIONS } from './access.js';
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
  ON_HOLD:
    'Stopped on purpose (holdProposal, with a reason) from PENDING or APPROVED: nobody may claim, review or execute it until an ADMIN resumes it (back to where it was if still valid, else EXPIRED). Not cancelled.',
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
  HOLD: 'Someone allowed to stop it (holdProposal) holds it, with a reason: nothing may claim or execute it meanwhile.',
  RESUME: 'An ADMIN resumes it (resumeProposal), with a reason: back to the state it was held from if still valid, else EXPIRED.',
  RECORD_MANUAL_EXECUTION:
    'An executor records that it was carried out by hand: EXECUTED when the checks hold, else OUTCOME_UNKNOWN (never "not executed").',
} as const;

export type ProposalOperation = keyof typeof PROPOSAL_OPERATIONS;

/** The states a proposal may be held from (and resumed to). */
export const HOLDABLE_STATES = ['PENDING', 'APPROVED'] as const satisfies readonly ProposalState[];

/** The facts some transitions depend on, all computed inside the transaction. */
export interface TransitionFacts {
  /** Approvals of this revision that will count after this operation (for APPROVE). */
  approvalsAfter?: number;
  approvalsRequired?: number;
  /** The approval is still within its validity and the deadline has not passed. */
  approvalValid?: boolean;
  /** The fingerprint presented matches the one the proposal was reviewed with. */
  fingerprintMatches?: boolean;
  /** RESUME: the state it was held from. */
  heldFrom?: ProposalState | null;
  /** RESUME: its deadline has not passed and, held from APPROVED, its approval is still valid. */
  stillValid?: boolean;
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

/** Back to where it was held from while that still holds; EXPIRED otherwise, or when where it was is unknown (fails closed). */
const resumed: Outcome = (facts) =>
  facts.stillValid === true && (facts.heldFrom === 'PENDING' || facts.heldFrom === 'APPROVED') ? facts.heldFrom : 'EXPIRED';

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
    HOLD: 'ON_HOLD',
  },
  APPROVED: {
    CANCEL: 'CANCELLED',
    EXPIRE: 'EXPIRED',
    MARK_STALE: 'STALE',
    CLAIM_EXECUTION: 'EXECUTING',
    HOLD: 'ON_HOLD',
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
  // Time does not act on a held proposal (no EXPIRE): resuming checks it. Its data may still change, and it may be withdrawn.
  ON_HOLD: {
    RESUME: resumed,
    CANCEL: 'CANCELLED',
    MARK_STALE: 'STALE',
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

/**
 * Where `operation` takes each state it takes without further facts (a string outcome in TRANSITIONS): what a
 * write call that runs in the database is sent, so the machine stays here.
 */
export function fixedOutcomes(operation: ProposalOperation): Partial<Record<ProposalState, ProposalState>> {
  const outcomes: Partial<Record<ProposalState, ProposalState>> = {};
  for (const state of Object.keys(TRANSITIONS) as ProposalState[]) {
    const outcome = TRANSITIONS[state][operation];
    if (typeof outcome === 'string') outcomes[state] = outcome;
  }
  return outcomes;
}

/**
 * Where `operation` takes each state it is allowed from, given `facts`: what a write call is sent when the
 * outcome depends on facts only the database finds (one map per combination of them). A state the operation
 * refuses under these facts is left out: the database answers it as found, and `transition` gives the refusal.
 */
export function outcomesWith(operation: ProposalOperation, facts: TransitionFacts): Partial<Record<ProposalState, ProposalState>> {
  const outcomes: Partial<Record<ProposalState, ProposalState>> = {};
  for (const state of Object.keys(TRANSITIONS) as ProposalState[]) {
    if (TRANSITIONS[state][operation] === undefined) continue;
    try {
      outcomes[state] = transition(state, operation, facts);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
    }
  }
  return outcomes;
}

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
  /** ON_HOLD: where it was held from, by whom, and why (its stateReason). */
  heldFrom?: ProposalState | null;
  heldBy?: string | null;
  stateReason?: string | null;
  /** Who should look at it, and to whom it was last escalated. */
  assignee?: string | null;
  escalatedTo?: string | null;
  /** Its risk level's policy, to say what happens after approval (who executes, by when). */
  policy?: Pick<ApprovalPolicy, 'validitySeconds' | 'executorMustDifferFromApprovers'> | null;
  /** The policy that approved it at submission (approvers: 0), and where its review after execution stands. */
  autoApprovedBy?: string | null;
  afterReview?: string | null;
}

/** Who may execute it once approved. */
function executorClause(proposal: ProposalView): string {
  return proposal.policy?.executorMustDifferFromApprovers
    ? 'an EXECUTOR that is neither its proposer nor one of its approvers'
    : 'an EXECUTOR that is not its proposer';
}

/** What happens once the approvals are in: who executes it, and by when. */
function afterApproval(proposal: ProposalView): string {
  const window = proposal.policy
    ? ` within ${proposal.policy.validitySeconds} s of the oldest approval counted`
    : ' while the approval is valid';
  const deadline = proposal.deadline ? ` and before the deadline ${proposal.deadline.toISOString()}` : '';
  return `After approval: ${executorClause(proposal)} claims it (claimExecution) and carries it out${window}${deadline}, or it expires.`;
}

/** Who is to look at it, and whom it was escalated to, when known. */
function attention(proposal: ProposalView): string {
  const parts = [
    proposal.assignee ? ` Assigned to ${proposal.assignee}.` : '',
    proposal.escalatedTo ? ` Escalated to ${proposal.escalatedTo}.` : '',
  ];
  return parts.join('');
}

/** A held proposal's way back: to where it was if that still holds at `now`, else EXPIRED. */
function resumeOutcome(proposal: ProposalView, now: Date): string {
  const deadlinePassed = proposal.deadline !== null && proposal.deadline.getTime() <= now.getTime();
  if (proposal.heldFrom === 'APPROVED') {
    const lapsed = proposal.approvalExpiresAt === null || proposal.approvalExpiresAt.getTime() <= now.getTime();
    if (deadlinePassed || lapsed) return 'EXPIRED (its approval or deadline has passed meanwhile)';
    return `APPROVED (its approval is valid until ${proposal.approvalExpiresAt?.toISOString()})`;
  }
  if (proposal.heldFrom === 'PENDING')
    return deadlinePassed ? 'EXPIRED (its deadline has passed meanwhile)' : 'PENDING, claimable by reviewers again';
  return 'EXPIRED (where it was held from is not known)';
}

/**
 * Why a proposal is not moving, the next action and who takes it (wait for reviewers, request changes, cancel,
 * escalate, resume from hold, reconcile), and, before execution, what happens after approval (who executes, by
 * when). Null when it is final and nothing is expected.
 */
export function blockedReason(proposal: ProposalView, now: Date): string | null {
  const held = proposal.leaseHolder !== null && proposal.leaseExpiresAt !== null && proposal.leaseExpiresAt > now;
  const others = ` Its proposer or an ADMIN may cancel it; a ${PERMISSIONS.holdProposal.join(', ')} may hold it (holdProposal) and a ${PERMISSIONS.escalateProposal.join(', ')} may escalate it (escalateProposal).`;
  switch (proposal.state) {
    case 'PENDING': {
      const count = `${proposal.approvals} of ${proposal.approvalsRequired} approvals`;
      const step = held
        ? `Under review by ${proposal.leaseHolder} until ${proposal.leaseExpiresAt?.toISOString()} (${count}): wait for the decision (approve, reject or request changes).`
        : `Waiting for a reviewer to claim it (${count}${proposal.deadline ? `; deadline ${proposal.deadline.toISOString()}` : ''}): a REVIEWER claims it, then approves, rejects or requests changes.`;
      return `${step}${attention(proposal)}${others} ${afterApproval(proposal)}`;
    }
    case 'APPROVED': {
      const auto = proposal.autoApprovedBy
        ? `Approved at submission by ${proposal.autoApprovedBy} (approvers: 0), to be reviewed after execution. `
        : '';
      return `${auto}Waiting for an executor to claim it; the approval is valid until ${proposal.approvalExpiresAt?.toISOString()}: ${executorClause(proposal)} claims it (claimExecution) and carries it out before then, or it expires.${attention(proposal)}${others}`;
    }
    case 'EXECUTED':
      // Approved by a policy without a review before: the review comes now.
      return proposal.afterReview === 'PENDING'
        ? `Executed without a review before (approved by ${proposal.autoApprovedBy}): a REVIEWER other than its proposer reviews it afterwards (reviewExecutedProposal: CONFIRMED, or PROBLEM with a comment).${attention(proposal)}`
        : null;
    case 'EXECUTING':
      return `Being executed by ${proposal.leaseHolder} (execution lease until ${proposal.leaseExpiresAt?.toISOString()}): wait for its result; if the lease lapses the outcome becomes unknown and a reconciler must reconcile it.`;
    case 'OUTCOME_UNKNOWN':
      return `Execution may or may not have taken effect: a reconciler (RECONCILER role; not its proposer or executor) must check the remote system with the operation id and reconcile it.${attention(proposal)} Never re-run automatically; escalate it if nobody does.`;
    case 'ON_HOLD':
      return `On hold${proposal.heldBy ? ` by ${proposal.heldBy}` : ''}${proposal.stateReason ? ` (${proposal.stateReason})` : ''}: nobody may claim, review or execute it. To go on, a principal with the ${PERMISSIONS.resumeProposal.join(' or ')} role resumes it (resumeProposal): it would now return to ${resumeOutcome(proposal, now)}. Its proposer or an ADMIN may cancel it instead.${attention(proposal)}`;
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
