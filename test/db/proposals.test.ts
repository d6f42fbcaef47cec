// Action proposals on a real database (SQLite or PostgreSQL, as the run's backend) with a manual clock: seed B's own test list — approval, rejection, changes, expiry, cancellation, stale data, exactly-once execution, reconciliation, the manual path and its audit trail.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase, type Proposal } from '../../src/db/client.js';
import { ManualClock } from '../../src/domain/clock.js';
import { DomainError } from '../../src/domain/errors.js';
import { hashLeaseToken, issueLeaseToken } from '../../src/domain/lease.js';
import type { Actor } from '../../src/services/context.js';
import {
  cancelProposal,
  claimExecution,
  claimManualExecution,
  claimProposal,
  type NewProposal,
  nextProposalDeadline,
  type ProposalDeps,
  reconcileProposal,
  recordManualExecution,
  recordProposalDeadlines,
  releaseProposalLease,
  renewProposalLease,
  reportExecutionResult,
  reportTargetState,
  reviewProposal,
  startExecutionAttempt,
  submitProposal,
} from '../../src/services/proposals/index.js';
import { type TestDatabase, testDatabase } from '../support/database.js';

const T0 = Date.UTC(2026, 10, 30, 9, 0, 0);
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

const who = (name: string): Actor => ({ name, authenticated: true });
const PROPOSER = who('pricing-agent');
const ALICE = who('alice');
const BOB = who('bob');
const CAROL = who('carol');
const WORKER = who('worker-1');
const WORKER2 = who('worker-2');
const ADMIN = { ...who('ops-admin'), isAdmin: true };
/** Settles OUTCOME_UNKNOWN (the RECONCILER role, checked by the API; the service refuses its own work). */
const RECONCILER = who('ops-reconciler');
/** An integration reporting target state (the EXECUTOR role: may report any system not named in TARGET_STATE_REPORTERS). */
const SYNC = { ...who('inventory-sync'), roles: new Set(['EXECUTOR'] as const) };
const REVIEWERS = [ALICE, BOB, CAROL];

const FP = 'sha256:price=1300;v=7';
const FP_CHANGED = 'sha256:price=1250;v=8';

function proposalInput(overrides: Partial<NewProposal> = {}): NewProposal {
  return {
    batchId: 'repricing-2026-11',
    recordId: 'sku-100',
    action: 'setPrice',
    parameters: { sku: 'sku-100', price: 1200 },
    reason: 'Competitor price dropped by 8%.',
    targetSystem: 'shop',
    targetId: 'sku-100',
    currentValue: 1300,
    proposedValue: 1200,
    dataSource: 'competitor-feed',
    riskLevel: 'LOW',
    fingerprint: FP,
    ...overrides,
  };
}

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError, but the operation succeeded');
}

/** A fresh migrated database and a manual clock at T0 for every test, so claims see only this test's proposals. */
function useProposalDatabase() {
  let temp: TestDatabase | null = null;
  let db: Database | null = null;
  let clock = new ManualClock(T0);
  beforeEach(async () => {
    temp = await testDatabase();
    db = await openDatabase({ location: temp.location, synchronous: 'NORMAL' });
    clock = new ManualClock(T0);
  });
  afterEach(async () => {
    await db?.close();
    await temp?.cleanup();
    db = null;
    temp = null;
  });
  const context = {
    get db(): Database {
      if (!db) throw new Error('the database opens in beforeEach');
      return db;
    },
    get clock(): ManualClock {
      return clock;
    },
    get deps(): ProposalDeps {
      return { db: context.db, clock };
    },
    submit: async (overrides: Partial<NewProposal> = {}, actor: Actor = PROPOSER) =>
      (await submitProposal(context.deps, actor, proposalInput(overrides))).proposal,
    /** `reviewer` claims the next proposal (it must be `id`) and approves the revision it was shown. */
    approve: async (reviewer: Actor, id: number) => {
      const claim = await claimProposal(context.deps, reviewer, {});
      expect(claim?.proposal.id).toBe(id);
      return reviewProposal(context.deps, reviewer, {
        token: claim?.token ?? '',
        decision: 'APPROVE',
        revision: claim?.proposal.revision ?? null,
      });
    },
    /** Submits and gathers as many distinct approvals as the risk level needs. */
    approved: async (overrides: Partial<NewProposal> = {}) => {
      let proposal = await context.submit(overrides);
      for (const reviewer of REVIEWERS.slice(0, proposal.approvalsRequired)) proposal = await context.approve(reviewer, proposal.id);
      expect(proposal.state).toBe('APPROVED');
      return proposal;
    },
    /** An approved LOW proposal that `executor` has claimed and started one attempt of. */
    executing: async (overrides: Partial<NewProposal> = {}, executor: Actor = WORKER, leaseSeconds = 300) => {
      const proposal = await context.approved(overrides);
      const claim = await claimExecution(context.deps, executor, { leaseSeconds });
      expect(claim?.proposal.id).toBe(proposal.id);
      const started = await startExecutionAttempt(context.deps, executor, { token: claim?.token ?? '', fingerprint: proposal.fingerprint });
      expect(started.attempt).not.toBeNull();
      return { proposal: started.proposal, token: claim?.token ?? '', operationId: claim?.operationId ?? '' };
    },
    row: (id: number) => context.db.read.proposal.findUniqueOrThrow({ where: { id } }),
    approvals: (id: number) => context.db.read.proposalApproval.findMany({ where: { proposalId: id }, orderBy: { id: 'asc' } }),
    attempts: (id: number) => context.db.read.executionAttempt.findMany({ where: { proposalId: id }, orderBy: { number: 'asc' } }),
    events: async (id: number) =>
      (await context.db.read.event.findMany({ where: { proposalId: id }, orderBy: { id: 'asc' } })).map((event) => ({
        type: event.type,
        actor: event.actor,
        details: JSON.parse(event.details) as Record<string, unknown>,
      })),
  };
  return context;
}

describe('intake: idempotent submission of a proposal', () => {
  const t = useProposalDatabase();

  const required: [string, number][] = [
    ['LOW', 1],
    ['MEDIUM', 1],
    ['HIGH', 2],
    ['CRITICAL', 3],
  ];
  it.each(required)('a %s proposal starts PENDING at revision 1 needing %i distinct approver(s)', async (riskLevel, approvers) => {
    const { proposal, created } = await submitProposal(t.deps, PROPOSER, proposalInput({ riskLevel }));
    expect(created).toBe(true);
    expect(proposal).toMatchObject({
      state: 'PENDING',
      revision: 1,
      previousId: null,
      approvalsRequired: approvers,
      proposedBy: PROPOSER.name,
    });
    expect(proposal.operationId).toBeNull();
    const events = await t.events(proposal.id);
    expect(events).toEqual([expect.objectContaining({ type: 'PROPOSAL_SUBMITTED', actor: PROPOSER.name })]);
  });

  it('the same content again returns the same proposal with created false, and records nothing new', async () => {
    const first = await submitProposal(t.deps, PROPOSER, proposalInput());
    t.clock.advance(MINUTE);
    const again = await submitProposal(t.deps, PROPOSER, proposalInput());
    expect(again.created).toBe(false);
    expect(again.proposal.id).toBe(first.proposal.id);
    expect(await t.db.read.proposal.count()).toBe(1);
    expect((await t.events(first.proposal.id)).map((event) => event.type)).toEqual(['PROPOSAL_SUBMITTED']);
  });

  it('a retried submission never resets a proposal that has moved on', async () => {
    const proposal = await t.approved();
    const again = await submitProposal(t.deps, PROPOSER, proposalInput());
    expect(again.created).toBe(false);
    expect(again.proposal).toMatchObject({ id: proposal.id, state: 'APPROVED', operationId: proposal.operationId });
  });

  it('a retry of an accepted submission after its deadline passed still returns the stored proposal', async () => {
    const first = await t.submit({ deadline: new Date(T0 + HOUR) });
    t.clock.advance(2 * HOUR);
    await recordProposalDeadlines(t.deps, 100);
    const again = await submitProposal(t.deps, PROPOSER, proposalInput({ deadline: new Date(T0 + HOUR) }));
    expect(again.created).toBe(false);
    expect(again.proposal).toMatchObject({ id: first.id, state: 'EXPIRED' });
  });

  const differences: [string, Partial<NewProposal>][] = [
    ['parameters', { parameters: { sku: 'sku-100', price: 1100 } }],
    ['reason', { reason: 'Another reason.' }],
    ['proposed value', { proposedValue: 1100 }],
    ['fingerprint', { fingerprint: FP_CHANGED }],
    ['risk level', { riskLevel: 'HIGH' }],
    ['deadline', { deadline: new Date(T0 + HOUR) }],
    ['approval validity', { approvalValiditySeconds: 600 }],
  ];
  it.each(differences)(
    'the same (batchId, recordId, revision) with a different %s → PROPOSAL_CONFLICT, the stored one unchanged',
    async (_label, change) => {
      const original = await t.submit();
      const error = await refusal(submitProposal(t.deps, PROPOSER, proposalInput(change)));
      expect(error.code).toBe('PROPOSAL_CONFLICT');
      expect(await t.db.read.proposal.count()).toBe(1);
      expect(await t.row(original.id)).toEqual(original);
    },
  );

  it('the same content from another proposer is a conflict, not someone else’s proposal handed back', async () => {
    await t.submit();
    expect((await refusal(submitProposal(t.deps, who('other-agent'), proposalInput()))).code).toBe('PROPOSAL_CONFLICT');
  });

  it.each([
    ['null', null],
    ['undefined', undefined],
    ['empty', ''],
  ] as const)('a %s fingerprint is refused (INVALID_TEXT on fingerprint) and nothing is stored', async (_label, fingerprint) => {
    const error = await refusal(submitProposal(t.deps, PROPOSER, proposalInput({ fingerprint })));
    expect(error.code).toBe('INVALID_TEXT');
    expect(error.field).toBe('fingerprint');
    expect(await t.db.read.proposal.count()).toBe(0);
    expect(await t.db.read.event.count({ where: { type: 'PROPOSAL_SUBMITTED' } })).toBe(0);
  });

  it('revision 2 is refused while revision 1 is still PENDING, and when revision 1 does not exist', async () => {
    expect((await refusal(submitProposal(t.deps, PROPOSER, proposalInput({ revision: 2 })))).code).toBe('PREVIOUS_REVISION_INVALID');
    await t.submit();
    expect((await refusal(submitProposal(t.deps, PROPOSER, proposalInput({ revision: 2 })))).code).toBe('PREVIOUS_REVISION_INVALID');
  });
});

describe('approval by distinct reviewers, never the proposer', () => {
  const t = useProposalDatabase();

  it.each(['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'])(
    '%s: stays PENDING until its policy’s count of distinct approvers is reached',
    async (riskLevel) => {
      const submitted = await t.submit({ riskLevel });
      let proposal = submitted;
      for (const [index, reviewer] of REVIEWERS.slice(0, submitted.approvalsRequired).entries()) {
        proposal = await t.approve(reviewer, submitted.id);
        const done = index + 1 === submitted.approvalsRequired;
        expect(proposal.state).toBe(done ? 'APPROVED' : 'PENDING');
        expect(proposal.operationId === null).toBe(!done);
      }
      const approvals = await t.approvals(submitted.id);
      expect(new Set(approvals.map((approval) => approval.approver)).size).toBe(submitted.approvalsRequired);
      expect(approvals.every((approval) => approval.voidedAt === null)).toBe(true);
    },
  );

  it('one approval approves a LOW proposal: operation id made, validity from the policy, the lease ended, events recorded', async () => {
    const submitted = await t.submit();
    t.clock.advance(5 * MINUTE);
    const proposal = await t.approve(ALICE, submitted.id);
    expect(proposal.state).toBe('APPROVED');
    expect(proposal.operationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(proposal.approvalExpiresAt).toEqual(new Date(T0 + 5 * MINUTE + 24 * HOUR));
    expect(proposal).toMatchObject({ leaseTokenHash: null, claimedBy: null, leaseExpiresAt: null });
    const events = await t.events(submitted.id);
    expect(events.map((event) => event.type)).toEqual([
      'PROPOSAL_SUBMITTED',
      'PROPOSAL_LEASE_CLAIMED',
      'PROPOSAL_APPROVAL_RECORDED',
      'PROPOSAL_APPROVED',
    ]);
    expect(events.at(-1)).toMatchObject({ actor: ALICE.name, details: { operationId: proposal.operationId } });
  });

  it('HIGH needs two: the first approver’s claims skip it afterwards, a second reviewer completes it, validity counts from the first approval counted', async () => {
    const submitted = await t.submit({ riskLevel: 'HIGH' });
    const first = await t.approve(ALICE, submitted.id);
    expect(first).toMatchObject({ state: 'PENDING', operationId: null, approvalExpiresAt: null });
    expect(await claimProposal(t.deps, ALICE, {})).toBeNull();
    t.clock.advance(10 * MINUTE);
    const second = await t.approve(BOB, submitted.id);
    expect(second.state).toBe('APPROVED');
    // Each approval is valid for the window from when it was given: the quorum holds until the oldest lapses.
    expect(second.approvalExpiresAt).toEqual(new Date(T0 + HOUR));
    const recorded = (await t.events(submitted.id)).filter((event) => event.type === 'PROPOSAL_APPROVAL_RECORDED');
    expect(recorded.map((event) => [event.actor, event.details.approvals, event.details.approvalsRequired])).toEqual([
      [ALICE.name, 1, 2],
      [BOB.name, 2, 2],
    ]);
  });

  it('the proposer’s claims skip its own proposals and take someone else’s', async () => {
    const own = await t.submit();
    expect(await claimProposal(t.deps, PROPOSER, {})).toBeNull();
    const foreign = await t.submit({ batchId: 'other-batch' }, who('other-agent'));
    const claim = await claimProposal(t.deps, PROPOSER, {});
    expect(claim?.proposal.id).toBe(foreign.id);
    expect(claim?.proposal.id).not.toBe(own.id);
  });

  it('approving one’s own proposal is refused even with a lease obtained some other way (SELF_APPROVAL)', async () => {
    const proposal = await t.submit();
    const token = issueLeaseToken();
    await t.db.write((tx) =>
      tx.proposal.update({
        where: { id: proposal.id },
        data: {
          leaseKind: 'REVIEW',
          leaseTokenHash: hashLeaseToken(token),
          claimedBy: PROPOSER.name,
          claimedAt: t.clock.now(),
          leaseExpiresAt: new Date(T0 + 5 * MINUTE),
        },
      }),
    );
    const error = await refusal(reviewProposal(t.deps, PROPOSER, { token, decision: 'APPROVE', revision: 1 }));
    expect(error.code).toBe('SELF_APPROVAL');
    expect((await t.row(proposal.id)).state).toBe('PENDING');
    expect(await t.approvals(proposal.id)).toEqual([]);
  });

  it('a second approval by the same reviewer is refused (ALREADY_APPROVED), even if its claim got through', async () => {
    const proposal = await t.submit({ riskLevel: 'HIGH' });
    const claim = await claimProposal(t.deps, BOB, {});
    expect(claim?.proposal.id).toBe(proposal.id);
    // Bob's approval arrives by another path while he holds the lease: the decision must check on its own.
    await t.db.write((tx) =>
      tx.proposalApproval.create({ data: { proposalId: proposal.id, approver: BOB.name, approvedAt: t.clock.now() } }),
    );
    const error = await refusal(reviewProposal(t.deps, BOB, { token: claim?.token ?? '', decision: 'APPROVE', revision: 1 }));
    expect(error.code).toBe('ALREADY_APPROVED');
    expect((await t.row(proposal.id)).state).toBe('PENDING');
    expect(await t.approvals(proposal.id)).toHaveLength(1);
  });

  it('an approval must name the revision reviewed: none or another one → REVISION_MISMATCH, nothing recorded, the lease kept', async () => {
    const proposal = await t.submit();
    const claim = await claimProposal(t.deps, ALICE, {});
    const token = claim?.token ?? '';
    for (const revision of [null, 2, 0]) {
      const error = await refusal(reviewProposal(t.deps, ALICE, { token, decision: 'APPROVE', revision }));
      expect(error.code).toBe('REVISION_MISMATCH');
      // Only the revision differs (issue 17, item 10): the message names the revisions, never "another fingerprint".
      expect(error.field).toBe('revision');
      expect(error.message).not.toMatch(/fingerprint/i);
      if (revision !== null)
        expect(error.message).toBe(`You reviewed revision ${revision}, but the proposal is revision 1; look at it again.`);
    }
    // The same fingerprint with the wrong revision is still about the revision only.
    const sameFingerprint = await refusal(reviewProposal(t.deps, ALICE, { token, decision: 'APPROVE', revision: 2, fingerprint: FP }));
    expect(sameFingerprint.field).toBe('revision');
    expect(sameFingerprint.message).not.toMatch(/fingerprint/i);
    const byFingerprint = await refusal(
      reviewProposal(t.deps, ALICE, { token, decision: 'APPROVE', revision: 1, fingerprint: FP_CHANGED }),
    );
    expect(byFingerprint.code).toBe('REVISION_MISMATCH');
    expect(byFingerprint.field).toBe('fingerprint');
    expect(byFingerprint.message).toBe(`You reviewed fingerprint ${FP_CHANGED}, but revision 1 has another fingerprint; look at it again.`);
    expect(await t.approvals(proposal.id)).toEqual([]);
    expect((await reviewProposal(t.deps, ALICE, { token, decision: 'APPROVE', revision: 1, fingerprint: FP })).state).toBe('APPROVED');
  });

  it('only one of two reviewers racing from two connections gets the lease, so a 1-approver proposal is approved once', async () => {
    const proposal = await t.submit();
    const other = await openDatabase({ location: t.db.location, synchronous: 'NORMAL' });
    try {
      const claims = await Promise.all([
        claimProposal(t.deps, ALICE, {}),
        claimProposal({ db: other, clock: t.clock }, BOB, {}),
        claimProposal(t.deps, CAROL, {}),
      ]);
      const winners = claims.filter((claim) => claim !== null);
      expect(winners).toHaveLength(1);
      const [winner] = winners;
      const holder = claims.indexOf(winner ?? null);
      const reviewer = [ALICE, BOB, CAROL][holder] as Actor;
      await reviewProposal(t.deps, reviewer, { token: winner?.token ?? '', decision: 'APPROVE', revision: 1 });
      for (const loser of [ALICE, BOB, CAROL].filter((actor) => actor !== reviewer)) {
        expect(await claimProposal(t.deps, loser, {})).toBeNull();
      }
      expect(await t.approvals(proposal.id)).toHaveLength(1);
      expect((await t.events(proposal.id)).filter((event) => event.type === 'PROPOSAL_APPROVED')).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it('a reviewer whose lease lapsed cannot approve: CLAIM_EXPIRED, and after a re-claim by another CLAIM_NOT_FOUND', async () => {
    const proposal = await t.submit();
    const stale = await claimProposal(t.deps, ALICE, { leaseSeconds: 30 });
    t.clock.advance(30 * SECOND);
    expect((await refusal(reviewProposal(t.deps, ALICE, { token: stale?.token ?? '', decision: 'APPROVE', revision: 1 }))).code).toBe(
      'CLAIM_EXPIRED',
    );
    const fresh = await claimProposal(t.deps, BOB, {});
    expect(fresh?.proposal.id).toBe(proposal.id);
    expect((await refusal(reviewProposal(t.deps, ALICE, { token: stale?.token ?? '', decision: 'APPROVE', revision: 1 }))).code).toBe(
      'CLAIM_NOT_FOUND',
    );
    expect((await reviewProposal(t.deps, BOB, { token: fresh?.token ?? '', decision: 'APPROVE', revision: 1 })).state).toBe('APPROVED');
    expect((await t.approvals(proposal.id)).map((approval) => approval.approver)).toEqual([BOB.name]);
  });

  it('a lapsed review lease is recorded once by the deadline sweep, and a released one is claimable again', async () => {
    const proposal = await t.submit();
    await claimProposal(t.deps, ALICE, { leaseSeconds: 30 });
    t.clock.advance(30 * SECOND);
    expect(await recordProposalDeadlines(t.deps, 100)).toBe(1);
    expect(await recordProposalDeadlines(t.deps, 100)).toBe(0);
    expect((await t.events(proposal.id)).filter((event) => event.type === 'PROPOSAL_LEASE_EXPIRED')).toHaveLength(1);
    const claim = await claimProposal(t.deps, BOB, {});
    await releaseProposalLease(t.deps, BOB, { token: claim?.token ?? '' });
    expect((await claimProposal(t.deps, CAROL, {}))?.proposal.id).toBe(proposal.id);
  });
});

describe('rejection and changes requested', () => {
  const t = useProposalDatabase();

  it('REJECT with a reason ends it: REJECTED, reason kept and recorded, nothing else accepted', async () => {
    const proposal = await t.submit();
    const claim = await claimProposal(t.deps, ALICE, {});
    const rejected = await reviewProposal(t.deps, ALICE, {
      token: claim?.token ?? '',
      decision: 'REJECT',
      reason: 'Below the floor price.',
    });
    expect(rejected).toMatchObject({ state: 'REJECTED', stateReason: 'Below the floor price.', leaseTokenHash: null });
    expect((await t.events(proposal.id)).at(-1)).toMatchObject({
      type: 'PROPOSAL_REJECTED',
      actor: ALICE.name,
      details: { reason: 'Below the floor price.' },
    });
    expect(await claimProposal(t.deps, BOB, {})).toBeNull();
    expect((await refusal(cancelProposal(t.deps, ADMIN, { id: proposal.id, reason: 'Too late.' }))).code).toBe('PROPOSAL_STATE_CONFLICT');
    expect((await refusal(submitProposal(t.deps, PROPOSER, proposalInput({ revision: 2 })))).code).toBe('PREVIOUS_REVISION_INVALID');
  });

  it.each(['REJECT', 'REQUEST_CHANGES'] as const)('%s without a reason is refused and the proposal stays PENDING', async (decision) => {
    const proposal = await t.submit();
    const claim = await claimProposal(t.deps, ALICE, {});
    for (const reason of [null, '', '  padded  ']) {
      expect((await refusal(reviewProposal(t.deps, ALICE, { token: claim?.token ?? '', decision, reason }))).code).toBe('INVALID_TEXT');
    }
    expect((await t.row(proposal.id)).state).toBe('PENDING');
  });

  it('REQUEST_CHANGES → a new revision linked to the old one, reviewed from scratch by the same policy', async () => {
    const first = await t.submit({ riskLevel: 'HIGH' });
    await t.approve(ALICE, first.id);
    const claim = await claimProposal(t.deps, BOB, {});
    const changed = await reviewProposal(t.deps, BOB, { token: claim?.token ?? '', decision: 'REQUEST_CHANGES', reason: 'Round to 1190.' });
    expect(changed).toMatchObject({ state: 'CHANGES_REQUESTED', stateReason: 'Round to 1190.' });
    expect((await t.events(first.id)).at(-1)).toMatchObject({
      type: 'PROPOSAL_CHANGES_REQUESTED',
      actor: BOB.name,
      details: { reason: 'Round to 1190.' },
    });
    // Alice's approval of revision 1 is void: it cannot count for revision 2.
    expect((await t.approvals(first.id)).map((approval) => approval.voidedAt !== null)).toEqual([true]);

    const { proposal: second, created } = await submitProposal(
      t.deps,
      PROPOSER,
      proposalInput({ riskLevel: 'HIGH', revision: 2, parameters: { sku: 'sku-100', price: 1190 }, proposedValue: 1190 }),
    );
    expect(created).toBe(true);
    expect(second).toMatchObject({ revision: 2, previousId: first.id, state: 'PENDING', approvalsRequired: 2 });
    expect((await t.events(second.id))[0]).toMatchObject({ type: 'PROPOSAL_SUBMITTED', details: { previousId: first.id } });

    // Alice, who approved revision 1, may review revision 2 again; one approval is not enough.
    const claimByAlice = await claimProposal(t.deps, ALICE, {});
    expect(claimByAlice?.proposal.id).toBe(second.id);
    // Approving while naming the revision she reviewed before is refused.
    expect(
      (await refusal(reviewProposal(t.deps, ALICE, { token: claimByAlice?.token ?? '', decision: 'APPROVE', revision: 1 }))).code,
    ).toBe('REVISION_MISMATCH');
    const once = await reviewProposal(t.deps, ALICE, { token: claimByAlice?.token ?? '', decision: 'APPROVE', revision: 2 });
    expect(once.state).toBe('PENDING');
    expect((await t.approve(CAROL, second.id)).state).toBe('APPROVED');
    expect((await t.row(first.id)).state).toBe('CHANGES_REQUESTED');
  });

  it('the next revision must come from the same proposer and follow directly', async () => {
    const first = await t.submit();
    const claim = await claimProposal(t.deps, ALICE, {});
    await reviewProposal(t.deps, ALICE, { token: claim?.token ?? '', decision: 'REQUEST_CHANGES', reason: 'Explain the source.' });
    expect((await refusal(submitProposal(t.deps, who('other-agent'), proposalInput({ revision: 2 })))).code).toBe(
      'PREVIOUS_REVISION_INVALID',
    );
    expect((await refusal(submitProposal(t.deps, PROPOSER, proposalInput({ revision: 3 })))).code).toBe('PREVIOUS_REVISION_INVALID');
    const second = await t.submit({ revision: 2, reason: 'Competitor feed, checked twice.' });
    expect(second.previousId).toBe(first.id);
    expect((await refusal(submitProposal(t.deps, PROPOSER, proposalInput({ revision: 3 })))).code).toBe('PREVIOUS_REVISION_INVALID');
  });
});

describe('expiry: deadlines and approval validity', () => {
  const t = useProposalDatabase();

  it('a PENDING proposal past its deadline becomes EXPIRED at the sweep, once, its partial approvals voided', async () => {
    const proposal = await t.submit({ riskLevel: 'HIGH', deadline: new Date(T0 + HOUR) });
    await t.approve(ALICE, proposal.id);
    expect(await nextProposalDeadline(t.deps)).toEqual(new Date(T0 + HOUR));
    t.clock.advance(HOUR - 1);
    expect(await recordProposalDeadlines(t.deps, 100)).toBe(0);
    t.clock.advance(1);
    // Past the deadline nobody can claim it, even before the sweep records it.
    expect(await claimProposal(t.deps, BOB, {})).toBeNull();
    expect(await recordProposalDeadlines(t.deps, 100)).toBe(1);
    expect(await recordProposalDeadlines(t.deps, 100)).toBe(0);
    expect(await t.row(proposal.id)).toMatchObject({ state: 'EXPIRED', stateReason: 'The deadline passed.' });
    expect((await t.approvals(proposal.id)).map((approval) => approval.voidReason)).toEqual(['EXPIRED']);
    expect((await t.events(proposal.id)).filter((event) => event.type === 'PROPOSAL_EXPIRED')).toEqual([
      expect.objectContaining({ actor: 'system', details: expect.objectContaining({ from: 'PENDING', why: 'DEADLINE' }) }),
    ]);
    expect(await nextProposalDeadline(t.deps)).toBeNull();
  });

  it('a reviewer still holding the lease when the deadline passes cannot decide (DEADLINE_PASSED)', async () => {
    const proposal = await t.submit({ deadline: new Date(T0 + MINUTE) });
    const claim = await claimProposal(t.deps, ALICE, { leaseSeconds: 300 });
    t.clock.advance(MINUTE);
    expect((await refusal(reviewProposal(t.deps, ALICE, { token: claim?.token ?? '', decision: 'APPROVE', revision: 1 }))).code).toBe(
      'DEADLINE_PASSED',
    );
    expect(await t.approvals(proposal.id)).toEqual([]);
  });

  it('the approval’s validity never outlasts the deadline', async () => {
    const proposal = await t.submit({ deadline: new Date(T0 + 2 * HOUR) });
    expect((await t.approve(ALICE, proposal.id)).approvalExpiresAt).toEqual(new Date(T0 + 2 * HOUR));
    const shorter = await t.submit({ recordId: 'sku-200', targetId: 'sku-200', approvalValiditySeconds: 600 });
    expect((await t.approve(ALICE, shorter.id)).approvalExpiresAt).toEqual(new Date(T0 + 600 * SECOND));
  });

  it('an APPROVED proposal past its approval validity is not claimable, becomes EXPIRED at the sweep, approvals voided', async () => {
    const proposal = await t.approved({ approvalValiditySeconds: 600 });
    expect(await nextProposalDeadline(t.deps)).toEqual(new Date(T0 + 600 * SECOND));
    t.clock.advance(600 * SECOND);
    expect(await claimExecution(t.deps, WORKER, {})).toBeNull();
    expect(await recordProposalDeadlines(t.deps, 100)).toBe(1);
    expect(await t.row(proposal.id)).toMatchObject({ state: 'EXPIRED' });
    expect(await t.approvals(proposal.id)).toEqual([
      expect.objectContaining({ approver: ALICE.name, voidReason: 'EXPIRED', voidedAt: t.clock.now() }),
    ]);
    expect((await t.events(proposal.id)).at(-1)).toMatchObject({
      type: 'PROPOSAL_EXPIRED',
      actor: 'system',
      details: { from: 'APPROVED', why: 'APPROVAL_VALIDITY' },
    });
    expect(await claimExecution(t.deps, WORKER, {})).toBeNull();
  });

  it('an expired approval is never reused: the next revision needs a fresh approval and gets a new operation id', async () => {
    const first = await t.approved({ approvalValiditySeconds: 600 });
    t.clock.advance(600 * SECOND);
    await recordProposalDeadlines(t.deps, 100);
    const second = await t.submit({ revision: 2, approvalValiditySeconds: 600 });
    expect(second).toMatchObject({ state: 'PENDING', previousId: first.id, operationId: null });
    expect(await claimExecution(t.deps, WORKER, {})).toBeNull();
    const approved = await t.approve(ALICE, second.id);
    expect(approved.operationId).not.toBeNull();
    expect(approved.operationId).not.toBe(first.operationId);
  });

  it('an approval that lapses between the execution claim and the attempt stops it: EXPIRED, no attempt', async () => {
    const proposal = await t.approved({ approvalValiditySeconds: 600 });
    t.clock.advance(500 * SECOND);
    const claim = await claimExecution(t.deps, WORKER, { leaseSeconds: 300 });
    t.clock.advance(100 * SECOND);
    const started = await startExecutionAttempt(t.deps, WORKER, { token: claim?.token ?? '', fingerprint: FP });
    expect(started.attempt).toBeNull();
    expect(started.proposal.state).toBe('EXPIRED');
    expect(await t.attempts(proposal.id)).toEqual([]);
    expect((await t.approvals(proposal.id)).every((approval) => approval.voidedAt !== null)).toBe(true);
  });

  it('a retry after FAILED_BEFORE_SEND is refused once the approval has lapsed: EXPIRED, not back to APPROVED', async () => {
    const proposal = await t.approved({ approvalValiditySeconds: 600 });
    t.clock.advance(500 * SECOND);
    const claim = await claimExecution(t.deps, WORKER, { leaseSeconds: 300 });
    await startExecutionAttempt(t.deps, WORKER, { token: claim?.token ?? '', fingerprint: FP });
    t.clock.advance(100 * SECOND);
    const after = await reportExecutionResult(t.deps, WORKER, { token: claim?.token ?? '', outcome: 'FAILED_BEFORE_SEND' });
    expect(after.state).toBe('EXPIRED');
    expect((await t.approvals(proposal.id)).every((approval) => approval.voidReason === 'EXPIRED')).toBe(true);
    expect(await claimExecution(t.deps, WORKER, {})).toBeNull();
  });

  it('a failure before any attempt started says so (not "Attempt 0"); after one, it names the attempt', async () => {
    await t.approved({ approvalValiditySeconds: 600 });
    const claim = await claimExecution(t.deps, WORKER, { leaseSeconds: 300 });
    const before = await reportExecutionResult(t.deps, WORKER, { token: claim?.token ?? '', outcome: 'FAILED_BEFORE_SEND' });
    expect(before.stateReason).toBe('Failed before sending, before any attempt was started.');
    const again = await claimExecution(t.deps, WORKER, { leaseSeconds: 300 });
    await startExecutionAttempt(t.deps, WORKER, { token: again?.token ?? '', fingerprint: FP });
    const after = await reportExecutionResult(t.deps, WORKER, { token: again?.token ?? '', outcome: 'FAILED_BEFORE_SEND' });
    expect(after.stateReason).toBe('Attempt 1 ended FAILED_BEFORE_SEND.');
  });
});

describe('cancellation', () => {
  const t = useProposalDatabase();

  it('the proposer cancels a PENDING proposal: CANCELLED, partial approvals voided, actor and reason recorded', async () => {
    const proposal = await t.submit({ riskLevel: 'HIGH' });
    await t.approve(ALICE, proposal.id);
    const cancelled = await cancelProposal(t.deps, { ...PROPOSER, isAdmin: false }, { id: proposal.id, reason: 'Price feed was wrong.' });
    expect(cancelled).toMatchObject({ state: 'CANCELLED', stateReason: 'Price feed was wrong.' });
    expect((await t.approvals(proposal.id)).map((approval) => approval.voidReason)).toEqual(['CANCELLED']);
    expect((await t.events(proposal.id)).at(-1)).toMatchObject({
      type: 'PROPOSAL_CANCELLED',
      actor: PROPOSER.name,
      details: { from: 'PENDING', reason: 'Price feed was wrong.', voidedApprovals: 1 },
    });
    expect(await claimProposal(t.deps, BOB, {})).toBeNull();
  });

  it('an admin cancels an APPROVED proposal: no executor can claim it afterwards', async () => {
    const proposal = await t.approved();
    const cancelled = await cancelProposal(t.deps, ADMIN, { id: proposal.id, reason: 'Campaign postponed.' });
    expect(cancelled.state).toBe('CANCELLED');
    expect((await t.events(proposal.id)).at(-1)).toMatchObject({
      type: 'PROPOSAL_CANCELLED',
      actor: ADMIN.name,
      details: { from: 'APPROVED', reason: 'Campaign postponed.' },
    });
    expect(await claimExecution(t.deps, WORKER, {})).toBeNull();
  });

  it.each([
    ['a reviewer', ALICE],
    ['an executor', WORKER],
  ])('%s who is neither proposer nor admin → NOT_PROPOSER, nothing changed or recorded', async (_label, actor) => {
    const proposal = await t.submit();
    const before = await t.events(proposal.id);
    const error = await refusal(cancelProposal(t.deps, { ...actor, isAdmin: false }, { id: proposal.id, reason: 'Not mine to cancel.' }));
    expect(error.code).toBe('NOT_PROPOSER');
    expect((await t.row(proposal.id)).state).toBe('PENDING');
    expect(await t.events(proposal.id)).toEqual(before);
  });

  it('a cancellation needs a reason, and an executing proposal cannot be cancelled', async () => {
    const { proposal } = await t.executing();
    expect((await refusal(cancelProposal(t.deps, ADMIN, { id: proposal.id, reason: '' }))).code).toBe('INVALID_TEXT');
    expect((await refusal(cancelProposal(t.deps, ADMIN, { id: proposal.id, reason: 'Stop it.' }))).code).toBe('PROPOSAL_STATE_CONFLICT');
    expect((await t.row(proposal.id)).state).toBe('EXECUTING');
  });
});

describe('stale data: the fingerprint at approval and right before execution', () => {
  const t = useProposalDatabase();

  it('while PENDING: a changed target fingerprint makes it STALE, ends the review lease, and is recorded with its reporter', async () => {
    const proposal = await t.submit();
    const untouched = await t.submit({ batchId: 'other-batch', targetId: 'sku-999' });
    const claim = await claimProposal(t.deps, ALICE, {});
    expect(await reportTargetState(t.deps, SYNC, { targetSystem: 'shop', targetId: 'sku-100', fingerprint: FP })).toEqual([]);
    const stale = await reportTargetState(t.deps, SYNC, {
      targetSystem: 'shop',
      targetId: 'sku-100',
      fingerprint: FP_CHANGED,
    });
    expect(stale.map((row) => [row.id, row.state])).toEqual([[proposal.id, 'STALE']]);
    expect((await t.row(untouched.id)).state).toBe('PENDING');
    expect((await refusal(reviewProposal(t.deps, ALICE, { token: claim?.token ?? '', decision: 'APPROVE', revision: 1 }))).code).toBe(
      'CLAIM_NOT_FOUND',
    );
    expect((await t.events(proposal.id)).at(-1)).toMatchObject({
      type: 'PROPOSAL_STALE',
      actor: 'inventory-sync',
      details: { from: 'PENDING', reportedFingerprint: FP_CHANGED },
    });
    // The proposer resubmits against the current data: a new revision, linked.
    const next = await t.submit({ revision: 2, fingerprint: FP_CHANGED, currentValue: 1250 });
    expect(next).toMatchObject({ previousId: proposal.id, state: 'PENDING' });
  });

  it('while APPROVED: STALE, approvals voided, no executor can take it', async () => {
    const proposal = await t.approved({ riskLevel: 'HIGH' });
    await reportTargetState(t.deps, SYNC, { targetSystem: 'shop', targetId: 'sku-100', fingerprint: FP_CHANGED });
    expect((await t.row(proposal.id)).state).toBe('STALE');
    expect((await t.approvals(proposal.id)).map((approval) => approval.voidReason)).toEqual(['STALE', 'STALE']);
    expect(await claimExecution(t.deps, CAROL, {})).toBeNull();
  });

  it('just before execution: a different fingerprint at the attempt → STALE, attempt null, nothing runs, the lease is gone', async () => {
    const proposal = await t.approved();
    const claim = await claimExecution(t.deps, WORKER, {});
    const started = await startExecutionAttempt(t.deps, WORKER, { token: claim?.token ?? '', fingerprint: FP_CHANGED });
    expect(started.attempt).toBeNull();
    expect(started.proposal.state).toBe('STALE');
    expect(await t.attempts(proposal.id)).toEqual([]);
    expect((await t.approvals(proposal.id)).every((approval) => approval.voidReason === 'STALE')).toBe(true);
    expect((await refusal(reportExecutionResult(t.deps, WORKER, { token: claim?.token ?? '', outcome: 'SUCCEEDED' }))).code).toBe(
      'CLAIM_NOT_FOUND',
    );
    expect((await t.events(proposal.id)).at(-1)).toMatchObject({
      type: 'PROPOSAL_STALE',
      actor: WORKER.name,
      details: { from: 'EXECUTING', reportedFingerprint: FP_CHANGED },
    });
    expect(await claimExecution(t.deps, WORKER2, {})).toBeNull();
  });
});

describe('exactly-once execution', () => {
  const t = useProposalDatabase();

  it('two processes claiming the same approved proposal at once: exactly one winner', async () => {
    const proposal = await t.approved();
    const other = await openDatabase({ location: t.db.location, synchronous: 'NORMAL' });
    try {
      const claims = await Promise.all([claimExecution(t.deps, WORKER, {}), claimExecution({ db: other, clock: t.clock }, WORKER2, {})]);
      const winners = claims.filter((claim) => claim !== null);
      expect(winners).toHaveLength(1);
      expect(winners[0]?.proposal.id).toBe(proposal.id);
      expect(winners[0]?.operationId).toBe(proposal.operationId);
      expect((await t.events(proposal.id)).filter((event) => event.type === 'EXECUTION_CLAIMED')).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it('two processes draining a queue of approved proposals: every one claimed exactly once', async () => {
    const ids: number[] = [];
    for (let index = 0; index < 6; index++) ids.push((await t.approved({ recordId: `sku-${index}`, targetId: `sku-${index}` })).id);
    const other = await openDatabase({ location: t.db.location, synchronous: 'NORMAL' });
    try {
      const drain = async (deps: ProposalDeps, executor: Actor) => {
        const taken: number[] = [];
        for (let claim = await claimExecution(deps, executor, {}); claim; claim = await claimExecution(deps, executor, {}))
          taken.push(claim.proposal.id);
        return taken;
      };
      const [first, second] = await Promise.all([drain(t.deps, WORKER), drain({ db: other, clock: t.clock }, WORKER2)]);
      expect([...first, ...second].sort((a, b) => a - b)).toEqual(ids);
      expect(await t.db.read.event.count({ where: { type: 'EXECUTION_CLAIMED' } })).toBe(6);
    } finally {
      await other.close();
    }
  });

  it('a retry after FAILED_BEFORE_SEND keeps the operation id; the attempt number goes up; success → EXECUTED, final', async () => {
    const { proposal, token, operationId } = await t.executing({}, WORKER);
    expect(operationId).toBe(proposal.operationId);
    const back = await reportExecutionResult(t.deps, WORKER, {
      token,
      outcome: 'FAILED_BEFORE_SEND',
      response: { error: 'connection refused' },
    });
    expect(back).toMatchObject({ state: 'APPROVED', operationId, leaseTokenHash: null });

    const retry = await claimExecution(t.deps, WORKER2, {});
    expect(retry?.operationId).toBe(operationId);
    const started = await startExecutionAttempt(t.deps, WORKER2, { token: retry?.token ?? '', fingerprint: FP, correlationId: 'corr-2' });
    expect(started.attempt).toMatchObject({ number: 2, operationId, executor: WORKER2.name, correlationId: 'corr-2' });
    const done = await reportExecutionResult(t.deps, WORKER2, {
      token: retry?.token ?? '',
      outcome: 'SUCCEEDED',
      response: { status: 200 },
    });
    expect(done.state).toBe('EXECUTED');

    const attempts = await t.attempts(proposal.id);
    expect(attempts.map((attempt) => [attempt.number, attempt.operationId, attempt.outcome, attempt.executor])).toEqual([
      [1, operationId, 'FAILED_BEFORE_SEND', WORKER.name],
      [2, operationId, 'SUCCEEDED', WORKER2.name],
    ]);
    expect(JSON.parse(attempts[1]?.response ?? 'null')).toEqual({ status: 200 });
    const types = (await t.events(proposal.id)).map((event) => event.type);
    expect(types.filter((type) => type.startsWith('EXECUTION_'))).toEqual([
      'EXECUTION_CLAIMED',
      'EXECUTION_ATTEMPT_STARTED',
      'EXECUTION_RETURNED',
      'EXECUTION_CLAIMED',
      'EXECUTION_ATTEMPT_STARTED',
      'EXECUTION_SUCCEEDED',
    ]);
    expect(await claimExecution(t.deps, WORKER, {})).toBeNull();
    expect((await refusal(cancelProposal(t.deps, ADMIN, { id: proposal.id, reason: 'Undo.' }))).code).toBe('PROPOSAL_STATE_CONFLICT');
  });

  it('the remote refusing it without effect → FAILED, final, never retried', async () => {
    const { proposal, token } = await t.executing();
    expect(
      (await reportExecutionResult(t.deps, WORKER, { token, outcome: 'REJECTED_BY_REMOTE', response: { code: 'PRICE_LOCKED' } })).state,
    ).toBe('FAILED');
    expect(await claimExecution(t.deps, WORKER, {})).toBeNull();
    expect((await refusal(reconcileProposal(t.deps, RECONCILER, { id: proposal.id, executed: true, evidence: 'x' }))).code).toBe(
      'PROPOSAL_STATE_CONFLICT',
    );
  });

  it('only the lease holder reports, and only after starting an attempt', async () => {
    const proposal = await t.approved();
    const claim = await claimExecution(t.deps, WORKER, {});
    const token = claim?.token ?? '';
    expect((await refusal(reportExecutionResult(t.deps, WORKER, { token, outcome: 'SUCCEEDED' }))).code).toBe('ATTEMPT_NOT_STARTED');
    await startExecutionAttempt(t.deps, WORKER, { token, fingerprint: FP });
    expect((await refusal(reportExecutionResult(t.deps, WORKER2, { token, outcome: 'SUCCEEDED' }))).code).toBe('NOT_LEASE_HOLDER');
    expect((await t.row(proposal.id)).state).toBe('EXECUTING');
  });

  it('the remote failing after accepting (UNKNOWN) → OUTCOME_UNKNOWN: blocked, never re-run, untouched by the sweep even past validity', async () => {
    const { proposal, token } = await t.executing({ approvalValiditySeconds: 600 });
    const unknown = await reportExecutionResult(t.deps, WORKER, { token, outcome: 'UNKNOWN', response: { status: 502 } });
    expect(unknown.state).toBe('OUTCOME_UNKNOWN');
    expect(await claimExecution(t.deps, WORKER2, {})).toBeNull();
    t.clock.advance(HOUR);
    expect(await recordProposalDeadlines(t.deps, 100)).toBe(0);
    expect((await t.row(proposal.id)).state).toBe('OUTCOME_UNKNOWN');
    expect((await t.attempts(proposal.id)).map((attempt) => attempt.outcome)).toEqual(['UNKNOWN']);
  });

  it('a lost response: the execution lease lapses → OUTCOME_UNKNOWN at the sweep; the late report is refused', async () => {
    const { proposal, token } = await t.executing({}, WORKER, 60);
    expect(await nextProposalDeadline(t.deps)).toEqual(new Date(T0 + 60 * SECOND));
    t.clock.advance(60 * SECOND);
    expect(await recordProposalDeadlines(t.deps, 100)).toBe(1);
    expect(await t.row(proposal.id)).toMatchObject({ state: 'OUTCOME_UNKNOWN', leaseTokenHash: null });
    expect((await t.events(proposal.id)).at(-1)).toMatchObject({
      type: 'EXECUTION_OUTCOME_UNKNOWN',
      actor: 'system',
      details: { from: 'EXECUTING', why: 'EXECUTION_LEASE_LAPSED', executor: WORKER.name },
    });
    expect(await recordProposalDeadlines(t.deps, 100)).toBe(0);
    expect((await refusal(reportExecutionResult(t.deps, WORKER, { token, outcome: 'SUCCEEDED' }))).code).toBe('CLAIM_NOT_FOUND');
    expect(await claimExecution(t.deps, WORKER2, {})).toBeNull();
  });

  it('the attempt whose lease lapsed is recorded as ended with an unknown outcome, not left running', async () => {
    const { proposal } = await t.executing({}, WORKER, 60);
    t.clock.advance(60 * SECOND);
    await recordProposalDeadlines(t.deps, 100);
    expect((await t.attempts(proposal.id)).map((attempt) => attempt.outcome)).toEqual(['UNKNOWN']);
  });

  it('renewing the execution lease keeps it EXECUTING past the first expiry', async () => {
    const { proposal, token } = await t.executing({}, WORKER, 60);
    t.clock.advance(50 * SECOND);
    await renewProposalLease(t.deps, WORKER, { token, leaseSeconds: 60 });
    t.clock.advance(50 * SECOND);
    expect(await recordProposalDeadlines(t.deps, 100)).toBe(0);
    expect((await t.row(proposal.id)).state).toBe('EXECUTING');
  });
});

describe('reconciliation of an unknown outcome', () => {
  const t = useProposalDatabase();

  const unknownOutcome = async (overrides: Partial<NewProposal> = {}) => {
    const { proposal, token, operationId } = await t.executing(overrides);
    await reportExecutionResult(t.deps, WORKER, { token, outcome: 'UNKNOWN' });
    return { proposal, operationId };
  };

  it('executed, with evidence → EXECUTED; the reconciler and the evidence are recorded', async () => {
    const { proposal, operationId } = await unknownOutcome();
    const evidence = `Shop API shows operation ${operationId} applied at 09:00:03.`;
    const settled = await reconcileProposal(t.deps, RECONCILER, { id: proposal.id, executed: true, evidence });
    expect(settled).toMatchObject({ state: 'EXECUTED', stateReason: evidence });
    expect((await t.events(proposal.id)).at(-1)).toMatchObject({
      type: 'PROPOSAL_RECONCILED',
      actor: RECONCILER.name,
      details: { from: 'OUTCOME_UNKNOWN', executed: true, evidence },
    });
    expect(await claimExecution(t.deps, WORKER2, {})).toBeNull();
  });

  it('not executed, approval valid and fingerprint unchanged → APPROVED again, same operation id, next attempt numbered 2', async () => {
    const { proposal, operationId } = await unknownOutcome();
    const back = await reconcileProposal(t.deps, RECONCILER, {
      id: proposal.id,
      executed: false,
      evidence: 'No trace of the operation id in the shop.',
      fingerprint: FP,
    });
    expect(back).toMatchObject({ state: 'APPROVED', operationId });
    const claim = await claimExecution(t.deps, WORKER2, {});
    expect(claim?.operationId).toBe(operationId);
    const started = await startExecutionAttempt(t.deps, WORKER2, { token: claim?.token ?? '', fingerprint: FP });
    expect(started.attempt?.number).toBe(2);
  });

  it('not executed but the target changed → STALE, approvals voided', async () => {
    const { proposal } = await unknownOutcome();
    const settled = await reconcileProposal(t.deps, RECONCILER, {
      id: proposal.id,
      executed: false,
      evidence: 'Not applied; price moved.',
      fingerprint: FP_CHANGED,
    });
    expect(settled.state).toBe('STALE');
    expect((await t.approvals(proposal.id)).every((approval) => approval.voidReason === 'STALE')).toBe(true);
    expect(await claimExecution(t.deps, WORKER2, {})).toBeNull();
  });

  it('not executed but the approval lapsed meanwhile → EXPIRED, approvals voided', async () => {
    const { proposal } = await unknownOutcome({ approvalValiditySeconds: 600 });
    t.clock.advance(600 * SECOND);
    const settled = await reconcileProposal(t.deps, RECONCILER, {
      id: proposal.id,
      executed: false,
      evidence: 'Not applied.',
      fingerprint: FP,
    });
    expect(settled.state).toBe('EXPIRED');
    expect((await t.approvals(proposal.id)).every((approval) => approval.voidReason === 'EXPIRED')).toBe(true);
    expect(await claimExecution(t.deps, WORKER2, {})).toBeNull();
  });

  it('not executed needs the target’s current fingerprint; evidence is always required; only OUTCOME_UNKNOWN can be reconciled', async () => {
    const { proposal } = await unknownOutcome();
    expect(
      (await refusal(reconcileProposal(t.deps, RECONCILER, { id: proposal.id, executed: false, evidence: 'Not applied.' }))).code,
    ).toBe('INVALID_TEXT');
    expect((await refusal(reconcileProposal(t.deps, RECONCILER, { id: proposal.id, executed: true, evidence: '' }))).code).toBe(
      'INVALID_TEXT',
    );
    expect((await t.row(proposal.id)).state).toBe('OUTCOME_UNKNOWN');
    const approved = await t.approved({ recordId: 'sku-200', targetId: 'sku-200' });
    expect(
      (await refusal(reconcileProposal(t.deps, RECONCILER, { id: approved.id, executed: true, evidence: 'Done by hand.' }))).code,
    ).toBe('PROPOSAL_STATE_CONFLICT');
  });
});

describe('separation of duties at execution', () => {
  const t = useProposalDatabase();

  it('MEDIUM (executor must differ): the approver’s claim skips it and takes one it did not approve', async () => {
    const mine = await t.approved({ riskLevel: 'MEDIUM' });
    const theirs = await t.submit({ riskLevel: 'MEDIUM', recordId: 'sku-200', targetId: 'sku-200' });
    await t.approve(BOB, theirs.id);
    const claim = await claimExecution(t.deps, ALICE, {});
    expect(claim?.proposal.id).toBe(theirs.id);
    expect(await claimExecution(t.deps, ALICE, {})).toBeNull();
    expect((await claimExecution(t.deps, WORKER, {}))?.proposal.id).toBe(mine.id);
  });

  it('the skipping goes on past any number of proposals the executor approved: a claimable one is never missed', async () => {
    const mine: number[] = [];
    for (let index = 0; index < 55; index++)
      mine.push((await t.approved({ riskLevel: 'MEDIUM', recordId: `sku-${index}`, targetId: `sku-${index}` })).id);
    const theirs = await t.submit({ riskLevel: 'MEDIUM', recordId: 'sku-last', targetId: 'sku-last' });
    await t.approve(BOB, theirs.id);
    expect((await claimExecution(t.deps, ALICE, {}))?.proposal.id).toBe(theirs.id);
  });

  it('HIGH: neither approver may execute; a third principal may', async () => {
    const proposal = await t.approved({ riskLevel: 'HIGH' });
    expect(await claimExecution(t.deps, ALICE, {})).toBeNull();
    expect(await claimExecution(t.deps, BOB, {})).toBeNull();
    expect((await claimExecution(t.deps, CAROL, {}))?.proposal.id).toBe(proposal.id);
  });

  it('LOW (executor may be an approver): the approver may execute it', async () => {
    const proposal = await t.approved({ riskLevel: 'LOW' });
    expect((await claimExecution(t.deps, ALICE, {}))?.proposal.id).toBe(proposal.id);
  });

  it('the proposer never executes its own proposal, even at LOW risk', async () => {
    const proposal = await t.approved({ riskLevel: 'LOW' });
    expect(await claimExecution(t.deps, PROPOSER, {})).toBeNull();
    const error = await refusal(
      recordManualExecution(t.deps, PROPOSER, {
        id: proposal.id,
        fingerprint: FP,
        reason: 'Billing API down.',
        evidence: 'Changed it in the admin UI.',
      }),
    );
    expect(error.code).toBe('SELF_APPROVAL');
    expect((await t.row(proposal.id)).state).toBe('APPROVED');
  });

  it('manual execution by an approver is refused when the policy requires another executor (EXECUTOR_IS_APPROVER)', async () => {
    const proposal = await t.approved({ riskLevel: 'MEDIUM' });
    const error = await refusal(
      recordManualExecution(t.deps, ALICE, {
        id: proposal.id,
        fingerprint: FP,
        reason: 'Billing API down.',
        evidence: 'Changed it in the admin UI.',
      }),
    );
    expect(error.code).toBe('EXECUTOR_IS_APPROVER');
    expect((await t.row(proposal.id)).state).toBe('APPROVED');
    expect((await t.events(proposal.id)).map((event) => event.type)).not.toContain('MANUAL_EXECUTION_RECORDED');
  });

  it('a server-configured policy replaces the defaults', async () => {
    const policies = {
      LOW: { approvers: 2, validitySeconds: 120, executorMustDifferFromApprovers: true },
      MEDIUM: { approvers: 1, validitySeconds: 3600, executorMustDifferFromApprovers: true },
      HIGH: { approvers: 2, validitySeconds: 3600, executorMustDifferFromApprovers: true },
      CRITICAL: { approvers: 3, validitySeconds: 900, executorMustDifferFromApprovers: true },
    };
    const deps = { ...t.deps, policies };
    const { proposal } = await submitProposal(deps, PROPOSER, proposalInput({ riskLevel: 'LOW' }));
    expect(proposal.approvalsRequired).toBe(2);
    for (const reviewer of [ALICE, BOB]) {
      const claim = await claimProposal(deps, reviewer, {});
      await reviewProposal(deps, reviewer, { token: claim?.token ?? '', decision: 'APPROVE', revision: 1 });
    }
    const approved = await t.row(proposal.id);
    expect(approved.state).toBe('APPROVED');
    expect(approved.approvalExpiresAt).toEqual(new Date(T0 + 120 * SECOND));
    expect(await claimExecution(deps, ALICE, {})).toBeNull();
  });
});

describe('the manual path', () => {
  const t = useProposalDatabase();

  it('an executor records a manual execution: EXECUTED, its actor, reason and evidence apart in the history', async () => {
    const proposal = await t.approved();
    const evidence = 'Applied in the shop admin during the API outage; ticket OPS-123.';
    const done = await recordManualExecution(t.deps, WORKER, { id: proposal.id, fingerprint: FP, reason: 'Shop API down.', evidence });
    expect(done).toMatchObject({ state: 'EXECUTED', stateReason: evidence });
    expect((await t.events(proposal.id)).at(-1)).toMatchObject({
      type: 'MANUAL_EXECUTION_RECORDED',
      actor: WORKER.name,
      details: { from: 'APPROVED', reason: 'Shop API down.', evidence, operationId: proposal.operationId },
    });
    expect(await claimExecution(t.deps, WORKER2, {})).toBeNull();
  });

  it('a record whose checks no longer hold never says "not executed": a changed fingerprint or a lapsed approval → OUTCOME_UNKNOWN', async () => {
    const changed = await t.approved();
    const record = { reason: 'Shop API down.', evidence: 'Set the price in the shop admin.' };
    const unknown = await recordManualExecution(t.deps, WORKER, { id: changed.id, fingerprint: FP_CHANGED, ...record });
    expect(unknown.state).toBe('OUTCOME_UNKNOWN');
    expect(unknown.stateReason).toContain('a reconciler must check');
    // The operator's reason and the evidence stay apart from the server's explanation.
    expect((await t.events(changed.id)).at(-1)).toMatchObject({
      type: 'EXECUTION_OUTCOME_UNKNOWN',
      actor: WORKER.name,
      details: { from: 'APPROVED', manual: true, why: 'FINGERPRINT_CHANGED', ...record, reportedFingerprint: FP_CHANGED },
    });

    const lapsed = await t.approved({ recordId: 'sku-200', targetId: 'sku-200', approvalValiditySeconds: 600 });
    t.clock.advance(600 * SECOND);
    expect((await recordManualExecution(t.deps, WORKER, { id: lapsed.id, fingerprint: FP, ...record })).state).toBe('OUTCOME_UNKNOWN');
    expect((await t.events(lapsed.id)).at(-1)).toMatchObject({ details: { why: 'APPROVAL_EXPIRED' } });
    // The one who recorded it does not reconcile it; another reconciler does.
    expect((await refusal(reconcileProposal(t.deps, WORKER, { id: lapsed.id, executed: true, evidence: 'Me.' }))).code).toBe(
      'SELF_RECONCILIATION',
    );
    expect((await reconcileProposal(t.deps, RECONCILER, { id: lapsed.id, executed: true, evidence: 'Shop audit log.' })).state).toBe(
      'EXECUTED',
    );
  });

  it('a record after the approved revision went EXPIRED → OUTCOME_UNKNOWN, and "not executed" never revives the approval', async () => {
    const expired = await t.approved({ approvalValiditySeconds: 600 });
    t.clock.advance(601 * SECOND);
    await recordProposalDeadlines(t.deps, 10);
    expect((await t.row(expired.id)).state).toBe('EXPIRED');
    const record = { fingerprint: FP, reason: 'Shop API down.', evidence: 'Done at 09:09 in the shop admin.' };
    expect((await recordManualExecution(t.deps, WORKER, { id: expired.id, ...record })).state).toBe('OUTCOME_UNKNOWN');
    expect((await t.events(expired.id)).at(-1)).toMatchObject({ details: { from: 'EXPIRED', why: 'ALREADY_EXPIRED' } });
    const back = await reconcileProposal(t.deps, RECONCILER, {
      id: expired.id,
      executed: false,
      evidence: 'Not in the log.',
      fingerprint: FP,
    });
    expect(back.state).toBe('EXPIRED');

    // A revision that was never approved cannot have been executed as approved.
    const never = await t.submit({ recordId: 'sku-300', targetId: 'sku-300' });
    await reportTargetState(t.deps, SYNC, { targetSystem: 'shop', targetId: 'sku-300', fingerprint: FP_CHANGED });
    expect((await t.row(never.id)).state).toBe('STALE');
    expect((await refusal(recordManualExecution(t.deps, WORKER, { id: never.id, ...record }))).code).toBe('PROPOSAL_STATE_CONFLICT');
  });

  it('claimManualExecution reserves an approved proposal: automation finds nothing, then the same attempt and result as automation', async () => {
    const proposal = await t.approved();
    const manual = await claimManualExecution(t.deps, WORKER, { id: proposal.id, reason: 'Shop API down since 08:40.', leaseSeconds: 600 });
    expect(manual.proposal).toMatchObject({ state: 'EXECUTING', leaseKind: 'EXECUTION', claimedBy: WORKER.name });
    expect(manual.operationId).toBe(proposal.operationId);
    expect((await t.events(proposal.id)).at(-1)).toMatchObject({
      type: 'EXECUTION_CLAIMED',
      actor: WORKER.name,
      details: { from: 'APPROVED', manual: true, reason: 'Shop API down since 08:40.', operationId: proposal.operationId },
    });
    expect(await claimExecution(t.deps, WORKER2, {})).toBeNull();
    expect((await refusal(claimManualExecution(t.deps, WORKER2, { id: proposal.id, reason: 'Me too.' }))).code).toBe(
      'PROPOSAL_STATE_CONFLICT',
    );
    await renewProposalLease(t.deps, WORKER, { token: manual.token, leaseSeconds: 900 });
    const started = await startExecutionAttempt(t.deps, WORKER, { token: manual.token, fingerprint: FP });
    expect(started.attempt).toMatchObject({ number: 1, operationId: proposal.operationId });
    const done = await reportExecutionResult(t.deps, WORKER, { token: manual.token, outcome: 'SUCCEEDED', response: { ticket: 'OPS-9' } });
    expect(done.state).toBe('EXECUTED');
  });

  it("claimManualExecution runs the same checks: not one's own, not an approver where the policy says so, a valid approval", async () => {
    const mine = await t.approved();
    expect((await refusal(claimManualExecution(t.deps, PROPOSER, { id: mine.id, reason: 'r' }))).code).toBe('SELF_APPROVAL');
    const medium = await t.approved({ recordId: 'sku-200', targetId: 'sku-200', riskLevel: 'MEDIUM' });
    expect((await refusal(claimManualExecution(t.deps, ALICE, { id: medium.id, reason: 'r' }))).code).toBe('EXECUTOR_IS_APPROVER');
    t.clock.advance(25 * HOUR);
    const lapsed = await refusal(claimManualExecution(t.deps, WORKER, { id: mine.id, reason: 'r' }));
    expect(lapsed).toMatchObject({ code: 'PROPOSAL_STATE_CONFLICT', field: 'id' });
    expect(lapsed.message).toContain('no longer valid');
    expect((await t.row(mine.id)).state).toBe('APPROVED');
    // A lapsed manual lease is like a vanished executor's: the outcome is unknown.
    const fresh = await t.approved({ recordId: 'sku-300', targetId: 'sku-300' });
    await claimManualExecution(t.deps, WORKER, { id: fresh.id, reason: 'r', leaseSeconds: 60 });
    t.clock.advance(61 * SECOND);
    await recordProposalDeadlines(t.deps, 10);
    expect((await t.row(fresh.id)).state).toBe('OUTCOME_UNKNOWN');
  });

  it('nothing unapproved, and nothing already being executed, can be recorded as done by hand', async () => {
    const { proposal: executing } = await t.executing({ recordId: 'sku-200', targetId: 'sku-200' });
    const pending = await t.submit();
    expect(
      (
        await refusal(
          recordManualExecution(t.deps, WORKER, { id: pending.id, fingerprint: FP, reason: 'Billing API down.', evidence: 'Did it.' }),
        )
      ).code,
    ).toBe('PROPOSAL_STATE_CONFLICT');
    const held = await refusal(
      recordManualExecution(t.deps, WORKER2, { id: executing.id, fingerprint: FP, reason: 'Billing API down.', evidence: 'Did it.' }),
    );
    // Saying who holds it and what to do instead.
    expect(held).toMatchObject({ code: 'PROPOSAL_STATE_CONFLICT', field: 'id' });
    expect(held.message).toContain(`under ${WORKER.name}'s execution lease`);
    expect(held.message).toContain('reportExecutionResult');
    expect((await t.row(pending.id)).state).toBe('PENDING');
    expect((await t.row(executing.id)).state).toBe('EXECUTING');
  });
});

describe('every manual intervention is an event with its actor and its reason or evidence', () => {
  const t = useProposalDatabase();

  const interventions: [
    string,
    (proposal: Proposal) => Promise<unknown>,
    string,
    string,
    Record<string, unknown>,
    (o: Partial<NewProposal>) => Promise<Proposal>,
  ][] = [
    [
      'cancel by the proposer',
      (p) => cancelProposal(t.deps, { ...PROPOSER, isAdmin: false }, { id: p.id, reason: 'Superseded.' }),
      'PROPOSAL_CANCELLED',
      PROPOSER.name,
      { reason: 'Superseded.' },
      (o) => t.submit(o),
    ],
    [
      'cancel by an admin',
      (p) => cancelProposal(t.deps, ADMIN, { id: p.id, reason: 'Freeze week.' }),
      'PROPOSAL_CANCELLED',
      ADMIN.name,
      { reason: 'Freeze week.' },
      (o) => t.approved(o),
    ],
    [
      'a target state report',
      () => reportTargetState(t.deps, SYNC, { targetSystem: 'shop', targetId: 'sku-1', fingerprint: FP_CHANGED }),
      'PROPOSAL_STALE',
      'inventory-sync',
      { reportedFingerprint: FP_CHANGED },
      (o) => t.submit(o),
    ],
    [
      'a manual execution',
      (p) => recordManualExecution(t.deps, WORKER, { id: p.id, fingerprint: FP, reason: 'Billing API down.', evidence: 'Ticket OPS-7.' }),
      'MANUAL_EXECUTION_RECORDED',
      WORKER.name,
      { evidence: 'Ticket OPS-7.' },
      (o) => t.approved(o),
    ],
    [
      'a reconciliation',
      (p) => reconcileProposal(t.deps, RECONCILER, { id: p.id, executed: true, evidence: 'Remote log line 4411.' }),
      'PROPOSAL_RECONCILED',
      RECONCILER.name,
      { evidence: 'Remote log line 4411.', executed: true },
      async (o) => {
        const { token } = await t.executing(o);
        return reportExecutionResult(t.deps, WORKER, { token, outcome: 'UNKNOWN' });
      },
    ],
  ];

  it.each(interventions)('%s', async (_label, act, type, actor, details, setUp) => {
    const proposal = await setUp({ recordId: 'sku-1', targetId: 'sku-1' });
    const before = (await t.events(proposal.id)).length;
    t.clock.advance(MINUTE);
    await act(proposal);
    const events = await t.events(proposal.id);
    expect(events).toHaveLength(before + 1);
    expect(events.at(-1)).toMatchObject({ type, actor, details: expect.objectContaining(details) });
    const row = await t.db.read.event.findFirstOrThrow({ where: { proposalId: proposal.id }, orderBy: { id: 'desc' } });
    expect(row.occurredAt).toEqual(t.clock.now());
  });
});
