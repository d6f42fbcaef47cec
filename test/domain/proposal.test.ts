// The action-proposal state machine checked cell by cell against a table written from SPEC §3, plus approval expiry and blocked reasons.
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import {
  type ApprovalPolicy,
  approvalExpiry,
  blockedReason,
  DEFAULT_POLICIES,
  fixedOutcomes,
  outcomesWith,
  PROPOSAL_OPERATIONS,
  PROPOSAL_STATES,
  type ProposalOperation,
  type ProposalState,
  type ProposalView,
  RISK_LEVELS,
  type TransitionFacts,
  transition,
} from '../../src/domain/proposal.js';

function refusal(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError, but nothing was thrown');
}

const STATES: ProposalState[] = [
  'PENDING',
  'APPROVED',
  'REJECTED',
  'CHANGES_REQUESTED',
  'CANCELLED',
  'EXPIRED',
  'STALE',
  'EXECUTING',
  'EXECUTED',
  'FAILED',
  'OUTCOME_UNKNOWN',
  'ON_HOLD',
];

const OPERATIONS: ProposalOperation[] = [
  'APPROVE',
  'AUTO_APPROVE',
  'REJECT',
  'REQUEST_CHANGES',
  'CANCEL',
  'EXPIRE',
  'MARK_STALE',
  'CLAIM_EXECUTION',
  'SUCCEED',
  'FAIL_BEFORE_SEND',
  'FAIL_REJECTED_BY_REMOTE',
  'OUTCOME_UNKNOWN',
  'RECONCILE_EXECUTED',
  'RECONCILE_NOT_EXECUTED',
  'RECORD_MANUAL_EXECUTION',
  'HOLD',
  'RESUME',
];

/** Facts under which every guarded transition takes its most permissive branch: they cannot unlock a refused cell. */
const FAVOURABLE: TransitionFacts = {
  approvalsAfter: 1,
  approvalsRequired: 1,
  approvalValid: true,
  fingerprintMatches: true,
  wasApproved: true,
  heldFrom: 'APPROVED',
  stillValid: true,
};

/**
 * The expected machine, written from SPEC §3 and issue 6 (not from TRANSITIONS). Guarded cells show
 * their outcome under FAVOURABLE facts; their other branches are tested below. Every cell not listed
 * must be refused.
 */
const EXPECTED: Record<ProposalState, Partial<Record<ProposalOperation, ProposalState>>> = {
  PENDING: {
    APPROVE: 'APPROVED',
    // A policy with approvers: 0 (LOW or MEDIUM) approves it at submission; reviewed after execution.
    AUTO_APPROVE: 'APPROVED',
    REJECT: 'REJECTED',
    REQUEST_CHANGES: 'CHANGES_REQUESTED',
    CANCEL: 'CANCELLED',
    EXPIRE: 'EXPIRED',
    MARK_STALE: 'STALE',
    // Stopped without cancelling (issue 17, item 5).
    HOLD: 'ON_HOLD',
  },
  APPROVED: {
    // Not yet running: the proposer or an admin may still withdraw it.
    CANCEL: 'CANCELLED',
    EXPIRE: 'EXPIRED',
    MARK_STALE: 'STALE',
    CLAIM_EXECUTION: 'EXECUTING',
    RECORD_MANUAL_EXECUTION: 'EXECUTED',
    HOLD: 'ON_HOLD',
  },
  EXECUTING: {
    SUCCEED: 'EXECUTED',
    FAIL_BEFORE_SEND: 'APPROVED',
    FAIL_REJECTED_BY_REMOTE: 'FAILED',
    OUTCOME_UNKNOWN: 'OUTCOME_UNKNOWN',
    // The fingerprint checked right before execution differs: execution stops.
    MARK_STALE: 'STALE',
  },
  OUTCOME_UNKNOWN: {
    RECONCILE_EXECUTED: 'EXECUTED',
    RECONCILE_NOT_EXECUTED: 'APPROVED',
  },
  // Nothing claims, reviews, executes or expires it; it may be resumed, withdrawn, or made STALE by changed data.
  ON_HOLD: {
    RESUME: 'APPROVED',
    CANCEL: 'CANCELLED',
    MARK_STALE: 'STALE',
  },
  REJECTED: {},
  CHANGES_REQUESTED: {},
  CANCELLED: {},
  // A record of what an approved revision had done by hand anyway: never "not executed" (issue 17, item 1).
  EXPIRED: { RECORD_MANUAL_EXECUTION: 'OUTCOME_UNKNOWN' },
  STALE: { RECORD_MANUAL_EXECUTION: 'OUTCOME_UNKNOWN' },
  EXECUTED: {},
  FAILED: {},
};

const FINAL: ProposalState[] = ['REJECTED', 'CHANGES_REQUESTED', 'CANCELLED', 'EXPIRED', 'STALE', 'EXECUTED', 'FAILED'];

describe('the catalogue the table walks', () => {
  it('lists exactly the states and operations the module defines', () => {
    expect([...STATES].sort()).toEqual(Object.keys(PROPOSAL_STATES).sort());
    expect([...OPERATIONS].sort()).toEqual(Object.keys(PROPOSAL_OPERATIONS).sort());
  });

  it('has an expected row for every state', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...STATES].sort());
  });
});

describe('transition: every state × every operation', () => {
  const cells = STATES.flatMap((state) => OPERATIONS.map((operation) => [state, operation, EXPECTED[state][operation] ?? null] as const));

  it(`walks all ${STATES.length * OPERATIONS.length} cells`, () => {
    expect(cells).toHaveLength(204);
  });

  it.each(cells)('%s + %s → %s', (state, operation, expected) => {
    if (expected === null) {
      const error = refusal(() => transition(state, operation, FAVOURABLE));
      expect(error.code).toBe('PROPOSAL_STATE_CONFLICT');
      expect(error.message).toContain(state);
      expect(error.message).toContain(operation);
    } else {
      expect(transition(state, operation, FAVOURABLE)).toBe(expected);
    }
  });
});

describe('final states accept nothing', () => {
  it.each(FINAL)('%s refuses every operation, saying it is final', (state) => {
    // EXPIRED and STALE still take a record of what was done by hand (below): no workflow step.
    for (const operation of OPERATIONS.filter((operation) => EXPECTED[state][operation] === undefined)) {
      const error = refusal(() => transition(state, operation, FAVOURABLE));
      expect(error.code).toBe('PROPOSAL_STATE_CONFLICT');
      expect(error.message).toMatch(/final/);
    }
  });

  const liveRefusals: [ProposalState, ProposalOperation][] = [
    ['PENDING', 'CLAIM_EXECUTION'],
    ['APPROVED', 'APPROVE'],
    ['EXECUTING', 'CANCEL'],
    ['OUTCOME_UNKNOWN', 'CLAIM_EXECUTION'],
  ];
  it.each(liveRefusals)('a refusal in the live state %s (%s) does not call it final', (state, operation) => {
    const error = refusal(() => transition(state, operation));
    expect(error.code).toBe('PROPOSAL_STATE_CONFLICT');
    expect(error.message).not.toMatch(/final/);
  });
});

describe('APPROVE from PENDING: partial until enough distinct approvers', () => {
  const cases: [number, number, ProposalState][] = [
    [0, 1, 'PENDING'],
    [1, 1, 'APPROVED'],
    [1, 2, 'PENDING'],
    [2, 2, 'APPROVED'],
    [1, 3, 'PENDING'],
    [2, 3, 'PENDING'],
    [3, 3, 'APPROVED'],
    [4, 3, 'APPROVED'],
  ];
  it.each(cases)('%i of %i approvals → %s', (approvalsAfter, approvalsRequired, expected) => {
    expect(transition('PENDING', 'APPROVE', { approvalsAfter, approvalsRequired })).toBe(expected);
  });

  it('without counts it stays PENDING: an unknown count is never an approval', () => {
    expect(transition('PENDING', 'APPROVE')).toBe('PENDING');
    expect(transition('PENDING', 'APPROVE', { approvalsRequired: 2 })).toBe('PENDING');
  });
});

describe('outcomes that depend on approval validity and the fingerprint', () => {
  // [approvalValid, fingerprintMatches, back-to-runnable outcome]
  const recoverable: [boolean, boolean, ProposalState][] = [
    [true, true, 'APPROVED'],
    [false, true, 'EXPIRED'],
    [true, false, 'STALE'],
    // Both checks fail: the data changed, so a new revision with the new fingerprint is what is needed.
    [false, false, 'STALE'],
  ];

  it.each(recoverable)(
    'EXECUTING + FAIL_BEFORE_SEND with approval valid %s, fingerprint matching %s → %s',
    (approvalValid, fingerprintMatches, expected) => {
      expect(transition('EXECUTING', 'FAIL_BEFORE_SEND', { approvalValid, fingerprintMatches })).toBe(expected);
    },
  );

  it.each(recoverable)(
    'OUTCOME_UNKNOWN + RECONCILE_NOT_EXECUTED with approval valid %s, fingerprint matching %s → %s',
    (approvalValid, fingerprintMatches, expected) => {
      expect(transition('OUTCOME_UNKNOWN', 'RECONCILE_NOT_EXECUTED', { approvalValid, fingerprintMatches })).toBe(expected);
    },
  );

  // What was done by hand is never recorded as "not executed": failed checks → OUTCOME_UNKNOWN, for a reconciler.
  const manual: [boolean, boolean, ProposalState][] = [
    [true, true, 'EXECUTED'],
    [false, true, 'OUTCOME_UNKNOWN'],
    [true, false, 'OUTCOME_UNKNOWN'],
    [false, false, 'OUTCOME_UNKNOWN'],
  ];
  it.each(manual)(
    'APPROVED + RECORD_MANUAL_EXECUTION with approval valid %s, fingerprint matching %s → %s',
    (approvalValid, fingerprintMatches, expected) => {
      expect(transition('APPROVED', 'RECORD_MANUAL_EXECUTION', { approvalValid, fingerprintMatches })).toBe(expected);
    },
  );

  it('APPROVED + RECORD_MANUAL_EXECUTION fails closed to OUTCOME_UNKNOWN: EXECUTED only with both checks established', () => {
    expect(transition('APPROVED', 'RECORD_MANUAL_EXECUTION')).toBe('OUTCOME_UNKNOWN');
    expect(transition('APPROVED', 'RECORD_MANUAL_EXECUTION', { approvalValid: true })).toBe('OUTCOME_UNKNOWN');
    expect(transition('APPROVED', 'RECORD_MANUAL_EXECUTION', { fingerprintMatches: true })).toBe('OUTCOME_UNKNOWN');
  });

  it.each(['EXPIRED', 'STALE'] as const)('%s + RECORD_MANUAL_EXECUTION → OUTCOME_UNKNOWN only for a revision once approved', (state) => {
    expect(transition(state, 'RECORD_MANUAL_EXECUTION', { wasApproved: true })).toBe('OUTCOME_UNKNOWN');
    expect(refusal(() => transition(state, 'RECORD_MANUAL_EXECUTION', { wasApproved: false })).code).toBe('PROPOSAL_STATE_CONFLICT');
    expect(refusal(() => transition(state, 'RECORD_MANUAL_EXECUTION')).message).toContain('never approved');
  });

  const guarded: [ProposalState, ProposalOperation][] = [
    ['EXECUTING', 'FAIL_BEFORE_SEND'],
    ['OUTCOME_UNKNOWN', 'RECONCILE_NOT_EXECUTED'],
  ];
  it.each(guarded)(
    '%s + %s fails closed: an unverified fingerprint is a mismatch, an unverified approval is not valid',
    (state, operation) => {
      expect(transition(state, operation)).toBe('STALE');
      expect(transition(state, operation, { approvalValid: true })).toBe('STALE');
      expect(transition(state, operation, { fingerprintMatches: true })).toBe('EXPIRED');
    },
  );

  it('RECONCILE_EXECUTED and SUCCEED do not depend on validity: the effect already happened', () => {
    expect(transition('OUTCOME_UNKNOWN', 'RECONCILE_EXECUTED', { approvalValid: false, fingerprintMatches: false })).toBe('EXECUTED');
    expect(transition('EXECUTING', 'SUCCEED', { approvalValid: false, fingerprintMatches: false })).toBe('EXECUTED');
  });

  it('facts never unlock a refused cell', () => {
    const error = refusal(() => transition('OUTCOME_UNKNOWN', 'CLAIM_EXECUTION', FAVOURABLE));
    expect(error.code).toBe('PROPOSAL_STATE_CONFLICT');
    expect(refusal(() => transition('EXPIRED', 'RECONCILE_NOT_EXECUTED', FAVOURABLE)).code).toBe('PROPOSAL_STATE_CONFLICT');
  });
});

describe('RESUME from ON_HOLD: back where it was only while that still holds', () => {
  const cases: [ProposalState | null | undefined, boolean | undefined, ProposalState][] = [
    ['PENDING', true, 'PENDING'],
    ['APPROVED', true, 'APPROVED'],
    ['PENDING', false, 'EXPIRED'],
    ['APPROVED', false, 'EXPIRED'],
    // Fails closed: validity not established, or where it was held from unknown or impossible.
    ['APPROVED', undefined, 'EXPIRED'],
    [null, true, 'EXPIRED'],
    [undefined, true, 'EXPIRED'],
    ['EXECUTING', true, 'EXPIRED'],
  ];
  it.each(cases)('held from %s, still valid %s → %s', (heldFrom, stillValid, expected) => {
    expect(transition('ON_HOLD', 'RESUME', { heldFrom, stillValid })).toBe(expected);
  });

  it('only PENDING and APPROVED may be held; a held proposal is not final', () => {
    for (const state of STATES) {
      if (state === 'PENDING' || state === 'APPROVED') expect(transition(state, 'HOLD')).toBe('ON_HOLD');
      else expect(refusal(() => transition(state, 'HOLD', FAVOURABLE)).code).toBe('PROPOSAL_STATE_CONFLICT');
    }
    for (const operation of ['APPROVE', 'CLAIM_EXECUTION', 'EXPIRE', 'RECORD_MANUAL_EXECUTION', 'HOLD'] as const) {
      expect(refusal(() => transition('ON_HOLD', operation, FAVOURABLE)).message).not.toMatch(/final/);
    }
  });
});

describe('the outcomes a write call is sent', () => {
  it('fixedOutcomes: where an operation takes each state without further facts', () => {
    expect(fixedOutcomes('HOLD')).toEqual({ PENDING: 'ON_HOLD', APPROVED: 'ON_HOLD' });
    // RESUME depends on facts: no fixed outcome.
    expect(fixedOutcomes('RESUME')).toEqual({});
  });

  it('outcomesWith: each state the operation takes under the facts, those it refuses under them left out', () => {
    const approved = { approvalValid: false, fingerprintMatches: true, wasApproved: true };
    expect(outcomesWith('RECORD_MANUAL_EXECUTION', approved)).toEqual({
      APPROVED: 'OUTCOME_UNKNOWN',
      EXPIRED: 'OUTCOME_UNKNOWN',
      STALE: 'OUTCOME_UNKNOWN',
    });
    // Never approved: EXPIRED and STALE refuse (nothing done by hand can be this revision's execution).
    expect(outcomesWith('RECORD_MANUAL_EXECUTION', { ...approved, wasApproved: false })).toEqual({ APPROVED: 'OUTCOME_UNKNOWN' });
    expect(outcomesWith('RESUME', { heldFrom: 'APPROVED', stillValid: true })).toEqual({ ON_HOLD: 'APPROVED' });
  });
});

describe('approval policies per risk level', () => {
  it('every risk level requires at least one approver and a positive validity window', () => {
    for (const risk of RISK_LEVELS) {
      expect(DEFAULT_POLICIES[risk].approvers).toBeGreaterThanOrEqual(1);
      expect(DEFAULT_POLICIES[risk].validitySeconds).toBeGreaterThan(0);
    }
  });

  it('a higher risk never needs fewer approvers nor gets a longer window, and high risk needs two', () => {
    for (let index = 1; index < RISK_LEVELS.length; index++) {
      const lower = DEFAULT_POLICIES[RISK_LEVELS[index - 1] as (typeof RISK_LEVELS)[number]];
      const higher = DEFAULT_POLICIES[RISK_LEVELS[index] as (typeof RISK_LEVELS)[number]];
      expect(higher.approvers).toBeGreaterThanOrEqual(lower.approvers);
      expect(higher.validitySeconds).toBeLessThanOrEqual(lower.validitySeconds);
    }
    expect(DEFAULT_POLICIES.LOW.approvers).toBe(1);
    expect(DEFAULT_POLICIES.HIGH.approvers).toBe(2);
    expect(DEFAULT_POLICIES.HIGH.executorMustDifferFromApprovers).toBe(true);
  });
});

describe('approvalExpiry: the policy window, a shorter requested one, never past the deadline', () => {
  const now = new Date(Date.UTC(2026, 10, 30, 9, 0, 0));
  const policy: ApprovalPolicy = { approvers: 1, validitySeconds: 3600, executorMustDifferFromApprovers: false };
  const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);

  const cases: [string, number | null, Date | null, Date][] = [
    ['the policy window when nothing else is given', null, null, at(3600)],
    ['a requested window shorter than the policy', 600, null, at(600)],
    ['the policy window when the requested one is longer (a proposer cannot extend it)', 7200, null, at(3600)],
    ['a requested window equal to the policy', 3600, null, at(3600)],
    ['the deadline when it comes before the policy window', null, at(1800), at(1800)],
    ['the deadline when it comes before the requested window', 600, at(300), at(300)],
    ['the requested window when the deadline is later', 600, at(5000), at(600)],
    ['the policy window when the deadline is later', null, at(86_400), at(3600)],
    ['the deadline when it coincides with the window', null, at(3600), at(3600)],
  ];
  it.each(cases)('%s', (_label, requested, deadline, expected) => {
    expect(approvalExpiry(now, policy, requested, deadline)).toEqual(expected);
  });

  it('uses each default policy’s own window', () => {
    for (const risk of RISK_LEVELS) {
      expect(approvalExpiry(now, DEFAULT_POLICIES[risk], null, null)).toEqual(at(DEFAULT_POLICIES[risk].validitySeconds));
    }
  });
});

describe('blockedReason for every state', () => {
  const now = new Date(Date.UTC(2026, 10, 30, 9, 0, 0));
  const later = new Date(now.getTime() + 300_000);
  const earlier = new Date(now.getTime() - 1_000);
  const view = (overrides: Partial<ProposalView>): ProposalView => ({
    state: 'PENDING',
    approvals: 0,
    approvalsRequired: 2,
    leaseHolder: null,
    leaseExpiresAt: null,
    approvalExpiresAt: null,
    deadline: null,
    ...overrides,
  });

  it('PENDING and unclaimed: waiting for a reviewer, with the count and the deadline', () => {
    const reason = blockedReason(view({ approvals: 1, deadline: later }), now);
    expect(reason).toMatch(/claim/i);
    expect(reason).toContain('1 of 2 approvals');
    expect(reason).toContain(later.toISOString());
  });

  it('PENDING without a deadline does not invent one', () => {
    const reason = blockedReason(view({}), now);
    expect(reason).toContain('0 of 2 approvals');
    expect(reason).not.toMatch(/deadline/);
  });

  it('PENDING under an active review lease: who holds it and until when', () => {
    const reason = blockedReason(view({ leaseHolder: 'alice', leaseExpiresAt: later }), now);
    expect(reason).toContain('alice');
    expect(reason).toContain(later.toISOString());
    expect(reason).toContain('0 of 2 approvals');
  });

  it('PENDING with a lapsed review lease is waiting for a reviewer again, not held by the old one', () => {
    const reason = blockedReason(view({ leaseHolder: 'alice', leaseExpiresAt: earlier }), now);
    expect(reason).not.toContain('alice');
    expect(reason).toMatch(/claim/i);
  });

  it('APPROVED: waiting for an executor, with the approval’s expiry', () => {
    const reason = blockedReason(view({ state: 'APPROVED', approvals: 2, approvalExpiresAt: later }), now);
    expect(reason).toMatch(/executor/i);
    expect(reason).toContain(later.toISOString());
  });

  it('EXECUTING: the executor and its lease, and what its lapse means', () => {
    const reason = blockedReason(view({ state: 'EXECUTING', leaseHolder: 'worker-1', leaseExpiresAt: later }), now);
    expect(reason).toContain('worker-1');
    expect(reason).toContain(later.toISOString());
    expect(reason).toMatch(/unknown/i);
  });

  it('OUTCOME_UNKNOWN: a reconciler (not its proposer or executor) must reconcile it with the operation id', () => {
    const reason = blockedReason(view({ state: 'OUTCOME_UNKNOWN' }), now);
    expect(reason).toMatch(/RECONCILER role; not its proposer or executor/);
    expect(reason).toMatch(/reconcile/i);
    expect(reason).toMatch(/operation id/i);
  });

  const proposerMustAct: [ProposalState, RegExp][] = [
    ['CHANGES_REQUESTED', /new revision/],
    ['STALE', /new revision/],
    ['EXPIRED', /new revision/],
  ];
  it.each(proposerMustAct)('%s: the proposer must submit a new revision', (state, pattern) => {
    expect(blockedReason(view({ state }), now)).toMatch(pattern);
  });

  it('STALE names the fingerprint as the cause', () => {
    expect(blockedReason(view({ state: 'STALE' }), now)).toMatch(/fingerprint/);
  });

  it.each(['REJECTED', 'CANCELLED', 'EXECUTED', 'FAILED'] as const)('%s: final and nothing is expected → null', (state) => {
    expect(blockedReason(view({ state }), now)).toBeNull();
  });

  // Issue 17, item 5: the next action and who takes it, and what happens after approval.
  const policy = { validitySeconds: 3600, executorMustDifferFromApprovers: true };

  it('PENDING names the next actions (review, cancel, hold, escalate) and what happens after approval: who executes, by when', () => {
    const reason = blockedReason(view({ deadline: later, policy }), now) ?? '';
    expect(reason).toMatch(/REVIEWER claims it, then approves, rejects or requests changes/);
    expect(reason).toMatch(/proposer or an ADMIN may cancel it/);
    expect(reason).toMatch(/may hold it \(holdProposal\)/);
    expect(reason).toMatch(/may escalate it \(escalateProposal\)/);
    expect(reason).toMatch(/After approval: an EXECUTOR that is neither its proposer nor one of its approvers claims it/);
    expect(reason).toContain('within 3600 s of the oldest approval counted');
    expect(reason).toContain(`before the deadline ${later.toISOString()}`);
    // Without executor separation, only the proposer is excluded.
    const low = blockedReason(view({ policy: { validitySeconds: 86_400, executorMustDifferFromApprovers: false } }), now) ?? '';
    expect(low).toMatch(/an EXECUTOR that is not its proposer claims it/);
    expect(low).not.toMatch(/deadline/);
  });

  it('PENDING under review: wait for the decision; assignee and escalation are named', () => {
    const reason = blockedReason(view({ leaseHolder: 'alice', leaseExpiresAt: later, assignee: 'bob', escalatedTo: 'ADMIN' }), now) ?? '';
    expect(reason).toMatch(/wait for the decision/);
    expect(reason).toContain('Assigned to bob.');
    expect(reason).toContain('Escalated to ADMIN.');
  });

  it('APPROVED: who executes it and by when, and that it may still be held or cancelled', () => {
    const reason = blockedReason(view({ state: 'APPROVED', approvalExpiresAt: later, policy }), now) ?? '';
    expect(reason).toMatch(/an EXECUTOR that is neither its proposer nor one of its approvers claims it \(claimExecution\)/);
    expect(reason).toContain(`valid until ${later.toISOString()}`);
    expect(reason).toMatch(/or it expires/);
    expect(reason).toMatch(/may hold it/);
  });

  it('ON_HOLD from PENDING: who held it and why, that only an ADMIN resumes it, and where it would go', () => {
    const held = { state: 'ON_HOLD' as const, heldFrom: 'PENDING' as const, heldBy: 'carol', stateReason: 'Customer complaint.' };
    const reason = blockedReason(view({ ...held, deadline: later }), now) ?? '';
    expect(reason).toContain('On hold by carol (Customer complaint.)');
    expect(reason).toMatch(/nobody may claim, review or execute it/);
    expect(reason).toMatch(/a principal with the ADMIN role resumes it \(resumeProposal\)/);
    expect(reason).toMatch(/return to PENDING/);
    expect(reason).toMatch(/may cancel it/);
    expect(blockedReason(view({ ...held, deadline: earlier }), now)).toMatch(/return to EXPIRED \(its deadline has passed meanwhile\)/);
  });

  it('ON_HOLD from APPROVED: back to APPROVED while the approval is valid, else EXPIRED; unknown origin fails closed', () => {
    const held = { state: 'ON_HOLD' as const, heldFrom: 'APPROVED' as const };
    expect(blockedReason(view({ ...held, approvalExpiresAt: later }), now)).toContain(
      `return to APPROVED (its approval is valid until ${later.toISOString()})`,
    );
    expect(blockedReason(view({ ...held, approvalExpiresAt: earlier }), now)).toMatch(/return to EXPIRED/);
    expect(blockedReason(view({ ...held, approvalExpiresAt: later, deadline: earlier }), now)).toMatch(/return to EXPIRED/);
    expect(blockedReason(view({ state: 'ON_HOLD' }), now)).toMatch(/return to EXPIRED \(where it was held from is not known\)/);
  });

  it('OUTCOME_UNKNOWN: never re-run; escalate if nobody reconciles; the escalation is named', () => {
    const reason = blockedReason(view({ state: 'OUTCOME_UNKNOWN', escalatedTo: 'RECONCILER' }), now) ?? '';
    expect(reason).toMatch(/Never re-run automatically; escalate it if nobody does/);
    expect(reason).toContain('Escalated to RECONCILER.');
  });

  it('EXECUTING: wait for its result', () => {
    expect(blockedReason(view({ state: 'EXECUTING', leaseHolder: 'worker-1', leaseExpiresAt: later }), now)).toMatch(/wait for its result/);
  });

  it('every state has an answer (a reason or a deliberate null)', () => {
    for (const state of STATES) {
      const reason = blockedReason(view({ state, leaseHolder: 'x', leaseExpiresAt: later, approvalExpiresAt: later }), now);
      if (['REJECTED', 'CANCELLED', 'EXECUTED', 'FAILED'].includes(state)) expect(reason).toBeNull();
      else expect(reason?.length ?? 0).toBeGreaterThan(10);
    }
  });
});
