// The server remembers each target's current state (issue 17, item 2), on a real database (SQLite or PostgreSQL,
// as the run's backend) with a manual clock: reports and executions' fingerprints are remembered in their own
// transaction; submission and approval against another fingerprint are refused (STALE_FINGERPRINT); an attempt
// started with an old read after a report that arrived while the proposal was EXECUTING does not proceed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { ManualClock } from '../../src/domain/clock.js';
import { DomainError } from '../../src/domain/errors.js';
import type { Actor } from '../../src/services/context.js';
import {
  claimExecution,
  claimProposal,
  type NewProposal,
  type ProposalDeps,
  reconcileProposal,
  reportExecutionResult,
  reportTargetState,
  reviewProposal,
  startExecutionAttempt,
  submitProposal,
} from '../../src/services/proposals/index.js';
import { type TestDatabase, testDatabase } from '../support/database.js';

const T0 = Date.UTC(2026, 11, 2, 9, 0, 0);
const MINUTE = 60_000;
const who = (name: string): Actor => ({ name, authenticated: true });
const PROPOSER = who('pricing-agent');
const ALICE = who('alice');
const WORKER = who('worker-1');
const RECONCILER = who('ops-reconciler');
const SYNC = { ...who('shop-sync'), roles: new Set(['EXECUTOR'] as const) };
const FP_A = 'sha256:price=1300;v=7';
const FP_B = 'sha256:price=1250;v=8';
const FP_C = 'sha256:price=1200;v=9';

function input(overrides: Partial<NewProposal> = {}): NewProposal {
  return {
    batchId: 'repricing',
    recordId: 'sku-1',
    action: 'setPrice',
    parameters: { sku: 'sku-1', price: 1200 },
    reason: 'Competitor price dropped.',
    targetSystem: 'shop',
    targetId: 'sku-1',
    currentValue: 1300,
    proposedValue: 1200,
    dataSource: 'competitor-feed',
    riskLevel: 'LOW',
    fingerprint: FP_A,
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

describe('the remembered target state', () => {
  let temp: TestDatabase;
  let db: Database;
  let clock: ManualClock;
  let deps: ProposalDeps;
  beforeEach(async () => {
    temp = await testDatabase();
    db = await openDatabase({ location: temp.location, synchronous: 'NORMAL' });
    clock = new ManualClock(T0);
    deps = { db, clock };
  });
  afterEach(async () => {
    await db.close();
    await temp.cleanup();
  });

  const remembered = () =>
    db.read.targetState.findUnique({ where: { targetSystem_targetId: { targetSystem: 'shop', targetId: 'sku-1' } } });
  const row = (id: number) => db.read.proposal.findUniqueOrThrow({ where: { id } });

  async function approved(overrides: Partial<NewProposal> = {}) {
    const { proposal } = await submitProposal(deps, PROPOSER, input(overrides));
    const claim = await claimProposal(deps, ALICE, { id: proposal.id });
    return reviewProposal(deps, ALICE, { token: claim?.token ?? '', decision: 'APPROVE', revision: proposal.revision });
  }

  async function executing(overrides: Partial<NewProposal> = {}) {
    const proposal = await approved(overrides);
    const claim = await claimExecution(deps, WORKER, { leaseSeconds: 300 });
    expect(claim?.proposal.id).toBe(proposal.id);
    return { proposal, token: claim?.token ?? '' };
  }

  it('reportTargetState remembers the fingerprint, when, by whom and how; the next report replaces it', async () => {
    expect(await remembered()).toBeNull();
    await reportTargetState(deps, SYNC, { targetSystem: 'shop', targetId: 'sku-1', fingerprint: FP_A });
    expect(await remembered()).toMatchObject({ fingerprint: FP_A, reportedAt: new Date(T0), reportedBy: 'shop-sync', source: 'REPORT' });
    clock.advance(MINUTE);
    await reportTargetState(deps, SYNC, { targetSystem: 'shop', targetId: 'sku-1', fingerprint: FP_B });
    expect(await remembered()).toMatchObject({ fingerprint: FP_B, reportedAt: new Date(T0 + MINUTE) });
    expect(await db.read.targetState.count()).toBe(1);
  });

  it('first reports of one target racing from two connections all succeed and leave one row', async () => {
    const other = await openDatabase({ location: temp.location, synchronous: 'NORMAL' });
    try {
      const reports = Array.from({ length: 12 }, (_, n) =>
        reportTargetState({ db: n % 2 === 0 ? db : other, clock }, SYNC, {
          targetSystem: 'shop',
          targetId: 'sku-1',
          fingerprint: `fp-${n}`,
        }),
      );
      expect((await Promise.allSettled(reports)).filter((report) => report.status === 'rejected')).toEqual([]);
      expect(await db.read.targetState.count()).toBe(1);
      expect((await remembered())?.fingerprint).toMatch(/^fp-\d+$/);
    } finally {
      await other.close();
    }
  });

  it('a submission against another fingerprint than the remembered one is refused (STALE_FINGERPRINT, field fingerprint)', async () => {
    await reportTargetState(deps, SYNC, { targetSystem: 'shop', targetId: 'sku-1', fingerprint: FP_B });
    const error = await refusal(submitProposal(deps, PROPOSER, input({ fingerprint: FP_A })));
    expect(error).toMatchObject({ code: 'STALE_FINGERPRINT', field: 'fingerprint' });
    expect(error.message).toContain(FP_B);
    expect(error.message).toContain('shop-sync');
    expect(await db.read.proposal.count()).toBe(0);
    // Against the remembered one it is accepted; another target is not concerned.
    expect((await submitProposal(deps, PROPOSER, input({ fingerprint: FP_B }))).created).toBe(true);
    expect((await submitProposal(deps, PROPOSER, input({ recordId: 'sku-2', targetId: 'sku-2', fingerprint: FP_A }))).created).toBe(true);
  });

  it('a retry of an accepted submission is still answered after a report made it STALE', async () => {
    const { proposal } = await submitProposal(deps, PROPOSER, input());
    await reportTargetState(deps, SYNC, { targetSystem: 'shop', targetId: 'sku-1', fingerprint: FP_B });
    const again = await submitProposal(deps, PROPOSER, input());
    expect(again).toMatchObject({ created: false, proposal: { id: proposal.id, state: 'STALE' } });
  });

  it('an approval of a revision whose fingerprint is not the remembered one is refused, nothing recorded', async () => {
    const { proposal } = await submitProposal(deps, PROPOSER, input());
    const claim = await claimProposal(deps, ALICE, { id: proposal.id });
    // A remembered state the proposal disagrees with, as a process without this rule would have left it
    // (every writer here also makes the proposal STALE in the same transaction).
    await db.write(async (tx) => {
      await tx.targetState.create({
        data: {
          targetSystem: 'shop',
          targetId: 'sku-1',
          fingerprint: FP_B,
          reportedAt: new Date(T0),
          reportedBy: 'old-sync',
          source: 'REPORT',
        },
      });
    });
    const error = await refusal(reviewProposal(deps, ALICE, { token: claim?.token ?? '', decision: 'APPROVE', revision: 1 }));
    expect(error).toMatchObject({ code: 'STALE_FINGERPRINT', field: 'fingerprint' });
    expect(await row(proposal.id)).toMatchObject({ state: 'PENDING', claimedBy: 'alice' });
    expect(await db.read.proposalApproval.count()).toBe(0);
  });

  it('a report while EXECUTING leaves the execution alone, but an attempt started with the old read does not proceed', async () => {
    const { proposal, token } = await executing();
    expect(await reportTargetState(deps, SYNC, { targetSystem: 'shop', targetId: 'sku-1', fingerprint: FP_B })).toEqual([]);
    expect((await row(proposal.id)).state).toBe('EXECUTING');
    const started = await startExecutionAttempt(deps, WORKER, { token, fingerprint: FP_A });
    expect(started.attempt).toBeNull();
    expect(started.proposal.state).toBe('STALE');
    expect(started.proposal.stateReason).toContain(FP_B);
    expect(await db.read.executionAttempt.count()).toBe(0);
    expect((await db.read.proposalApproval.findMany()).every((approval) => approval.voidedAt !== null)).toBe(true);
  });

  it('a success reported with the fingerprint after it is remembered, and makes other proposals of the target STALE at once', async () => {
    const { proposal, token } = await executing();
    const other = (await submitProposal(deps, PROPOSER, input({ recordId: 'sku-1-b', parameters: { sku: 'sku-1', price: 1100 } })))
      .proposal;
    await startExecutionAttempt(deps, WORKER, { token, fingerprint: FP_A });
    clock.advance(MINUTE);
    const done = await reportExecutionResult(deps, WORKER, { token, outcome: 'SUCCEEDED', fingerprint: FP_C });
    expect(done.state).toBe('EXECUTED');
    expect(await remembered()).toMatchObject({ fingerprint: FP_C, reportedBy: WORKER.name, source: 'EXECUTION' });
    expect((await row(other.id)).state).toBe('STALE');
    expect((await row(proposal.id)).state).toBe('EXECUTED');
    expect((await refusal(submitProposal(deps, PROPOSER, input({ recordId: 'sku-1-c', fingerprint: FP_A })))).code).toBe(
      'STALE_FINGERPRINT',
    );
  });

  it('nothing sent, but the target reads differently: FAILED_BEFORE_SEND with another fingerprint → STALE, not back to APPROVED', async () => {
    const { proposal, token } = await executing();
    const back = await reportExecutionResult(deps, WORKER, { token, outcome: 'FAILED_BEFORE_SEND', fingerprint: FP_B });
    expect(back.state).toBe('STALE');
    expect(await remembered()).toMatchObject({ fingerprint: FP_B, source: 'EXECUTION' });
    expect((await row(proposal.id)).state).toBe('STALE');
  });

  it('a reconciliation remembers the fingerprint the reconciler read', async () => {
    const { token } = await executing();
    await startExecutionAttempt(deps, WORKER, { token, fingerprint: FP_A });
    const unknown = await reportExecutionResult(deps, WORKER, { token, outcome: 'UNKNOWN' });
    await reconcileProposal(deps, RECONCILER, { id: unknown.id, executed: true, evidence: 'Shop audit log.', fingerprint: FP_C });
    expect(await remembered()).toMatchObject({ fingerprint: FP_C, reportedBy: RECONCILER.name, source: 'RECONCILIATION' });
  });
});
