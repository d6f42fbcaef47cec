// Auto-execution with review afterwards (issue 17, item 7), the pure rules: which setting decides how many
// approvers a proposal needs (HIGH and CRITICAL never 0), and the review after execution given once.
import { describe, expect, it } from 'vitest';
import { approversFor, reviewAfter } from '../../src/domain/auto-execution.js';
import { DomainError } from '../../src/domain/errors.js';
import { blockedReason, DEFAULT_POLICIES, type Policies } from '../../src/domain/proposal.js';

const zeroEverywhere: Policies = {
  LOW: { ...DEFAULT_POLICIES.LOW, approvers: 0 },
  MEDIUM: { ...DEFAULT_POLICIES.MEDIUM, approvers: 0 },
  HIGH: { ...DEFAULT_POLICIES.HIGH, approvers: 0 },
  CRITICAL: { ...DEFAULT_POLICIES.CRITICAL, approvers: 0 },
};

describe('approversFor', () => {
  it('takes the action’s own count over the risk level’s policy, and names the setting', () => {
    const actions = { restock: { approvers: { LOW: 0, MEDIUM: 2 } } };
    expect(approversFor(DEFAULT_POLICIES, actions, 'restock', 'LOW')).toEqual({
      approvers: 0,
      policy: 'PROPOSAL_ACTIONS.restock.approvers.LOW',
    });
    expect(approversFor(DEFAULT_POLICIES, actions, 'restock', 'MEDIUM')).toEqual({
      approvers: 2,
      policy: 'PROPOSAL_ACTIONS.restock.approvers.MEDIUM',
    });
    expect(approversFor(DEFAULT_POLICIES, actions, 'restock', 'HIGH')).toEqual({ approvers: 2, policy: 'APPROVAL_POLICIES.HIGH' });
    expect(approversFor(DEFAULT_POLICIES, actions, 'refund', 'LOW')).toEqual({ approvers: 1, policy: 'APPROVAL_POLICIES.LOW' });
    // An inherited property is no action's setting.
    expect(approversFor(DEFAULT_POLICIES, actions, 'constructor', 'LOW').policy).toBe('APPROVAL_POLICIES.LOW');
  });

  it('never gives HIGH or CRITICAL fewer than one approver, whatever a setting says (fails closed)', () => {
    const actions = { payout: { approvers: { HIGH: 0, CRITICAL: 0 } } };
    for (const risk of ['HIGH', 'CRITICAL'] as const) {
      expect(approversFor(zeroEverywhere, {}, 'refund', risk).approvers).toBe(1);
      expect(approversFor(DEFAULT_POLICIES, actions, 'payout', risk).approvers).toBe(1);
    }
    expect(approversFor(zeroEverywhere, {}, 'refund', 'MEDIUM').approvers).toBe(0);
  });
});

describe('reviewAfter', () => {
  it('gives the verdict to a proposal awaiting review, and refuses any other once', () => {
    expect(reviewAfter('PENDING', 'CONFIRMED', 'EXECUTED')).toBe('CONFIRMED');
    expect(reviewAfter('PENDING', 'PROBLEM', 'EXECUTED')).toBe('PROBLEM');
    for (const current of ['NOT_NEEDED', 'CONFIRMED', 'PROBLEM'] as const) {
      let error: unknown;
      try {
        reviewAfter(current, 'CONFIRMED', 'EXECUTED');
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).code).toBe('PROPOSAL_STATE_CONFLICT');
    }
  });
});

describe('blockedReason of a proposal a policy approved', () => {
  const view = {
    approvals: 0,
    approvalsRequired: 0,
    leaseHolder: null,
    leaseExpiresAt: null,
    approvalExpiresAt: new Date('2026-12-02T10:00:00Z'),
    deadline: null,
    autoApprovedBy: 'PROPOSAL_ACTIONS.restock.approvers.LOW',
  };
  const now = new Date('2026-12-02T09:00:00Z');

  it('says, while APPROVED, which policy approved it and that a review follows execution', () => {
    expect(blockedReason({ ...view, state: 'APPROVED', afterReview: 'NOT_NEEDED' }, now)).toMatch(
      /^Approved at submission by PROPOSAL_ACTIONS\.restock\.approvers\.LOW \(approvers: 0\), to be reviewed after execution\. Waiting for an executor/,
    );
  });

  it('names the next action once EXECUTED and awaiting review, and nothing once reviewed', () => {
    expect(blockedReason({ ...view, state: 'EXECUTED', afterReview: 'PENDING' }, now)).toContain(
      'a REVIEWER other than its proposer reviews it afterwards (reviewExecutedProposal',
    );
    expect(blockedReason({ ...view, state: 'EXECUTED', afterReview: 'CONFIRMED' }, now)).toBeNull();
    expect(blockedReason({ ...view, state: 'EXECUTED', autoApprovedBy: null, afterReview: 'NOT_NEEDED' }, now)).toBeNull();
  });
});
