// Issue 17, item 9: every state change of a proposal says where it came from. One database (the run's backend)
// and a manual clock; a walk through every state-changing operation — submission with auto-approval, approval
// (recorded and final), rejection, changes, cancellation, expiry by sweep, by attempt, by reconciliation and on
// resume, staleness by report, by attempt and by reconciliation, automatic and manual claims, every reported
// outcome, a lapsed execution lease, reconciliation both ways, manual records (fine, failed checks, too late),
// hold and resume — then, over the whole history: each event that changes the state carries `details.from`, the
// state before it; each state-change event type carries `from` always; and the walk took every edge of the
// transition table (so a new operation without a step here fails the test).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { ManualClock } from '../../src/domain/clock.js';
import { type ProposalState, TRANSITIONS, type TransitionFacts } from '../../src/domain/proposal.js';
import type { Actor } from '../../src/services/context.js';
import {
  assignProposal,
  cancelProposal,
  claimExecution,
  claimManualExecution,
  claimProposal,
  escalateProposal,
  holdProposal,
  type NewProposal,
  type ProposalDeps,
  reconcileProposal,
  recordManualExecution,
  recordProposalDeadlines,
  releaseProposalLease,
  reportExecutionResult,
  reportTargetState,
  resumeProposal,
  reviewExecutedProposal,
  reviewProposal,
  startExecutionAttempt,
  submitProposal,
} from '../../src/services/proposals/index.js';
import { type TestDatabase, testDatabase } from '../support/database.js';

const T0 = Date.UTC(2026, 11, 2, 9, 0, 0);
const SECOND = 1000;
const who = (name: string): Actor => ({ name, authenticated: true });
const PROPOSER = who('walk-agent');
const ALICE = who('alice');
const BOB = who('bob');
const WORKER = who('worker-1');
const HAND = who('operator-on-call');
const RECONCILER = who('ops-reconciler');
const ADMIN = { ...who('ops-admin'), isAdmin: true };
const SYNC = { ...who('inventory-sync'), roles: new Set(['EXECUTOR'] as const) };
const FP = 'sha256:v1';
const FP_CHANGED = 'sha256:v2';

/** The event types that record a state change (or, for an approval short of the quorum, a step of one). */
const STATE_CHANGE_TYPES = new Set([
  'PROPOSAL_APPROVAL_RECORDED',
  'PROPOSAL_APPROVED',
  'PROPOSAL_REJECTED',
  'PROPOSAL_CHANGES_REQUESTED',
  'PROPOSAL_CANCELLED',
  'PROPOSAL_EXPIRED',
  'PROPOSAL_STALE',
  'EXECUTION_CLAIMED',
  'EXECUTION_SUCCEEDED',
  'EXECUTION_RETURNED',
  'EXECUTION_FAILED',
  'EXECUTION_OUTCOME_UNKNOWN',
  'PROPOSAL_RECONCILED',
  'MANUAL_EXECUTION_RECORDED',
  'PROPOSAL_HELD',
  'PROPOSAL_RESUMED',
]);

/** Every (from → to) the transition table allows, its conditional outcomes evaluated over every combination of facts. */
function tableEdges(): Set<string> {
  const edges = new Set<string>();
  const flags = [true, false, undefined];
  const facts: TransitionFacts[] = [];
  for (const approvalValid of flags)
    for (const fingerprintMatches of flags)
      for (const stillValid of flags)
        for (const wasApproved of flags)
          for (const heldFrom of ['PENDING', 'APPROVED', null] as const)
            for (const approvalsAfter of [0, 1, 2])
              facts.push({ approvalValid, fingerprintMatches, stillValid, wasApproved, heldFrom, approvalsAfter, approvalsRequired: 2 });
  for (const [from, operations] of Object.entries(TRANSITIONS)) {
    for (const outcome of Object.values(operations)) {
      for (const fact of typeof outcome === 'function' ? facts : [{}]) {
        try {
          const to = typeof outcome === 'function' ? outcome(fact) : outcome;
          if (to !== from) edges.add(`${from} → ${to}`);
        } catch {
          // A refusal for these facts (a manual record of a revision never approved): no edge.
        }
      }
    }
  }
  return edges;
}

describe('fromState on every state change (issue 17, item 9)', () => {
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
  });

  it('each event that changes a proposal’s state names the state it left, and the walk covers every edge of the table', async () => {
    const deps: ProposalDeps = {
      db: db as Database,
      clock,
      // "restock" at LOW is approved at submission by policy and reviewed after execution.
      rules: { actions: { restock: { approvers: { LOW: 0 } } }, targetStateReporters: {} },
    };
    let serial = 0;
    /** A fresh proposal of its own action and target, so claims by action pick exactly it. */
    const submit = async (extra: Partial<NewProposal> = {}) => {
      serial++;
      const name = `walk-${serial}`;
      return (
        await submitProposal(deps, PROPOSER, {
          batchId: 'from-state',
          recordId: name,
          action: extra.action ?? name,
          parameters: { n: serial },
          reason: 'Walk every transition.',
          targetSystem: 'shop',
          targetId: name,
          currentValue: 1,
          proposedValue: 2,
          dataSource: 'test',
          riskLevel: 'LOW',
          fingerprint: FP,
          ...extra,
        })
      ).proposal;
    };
    const decide = async (reviewer: Actor, id: number, decision: 'APPROVE' | 'REJECT' | 'REQUEST_CHANGES', revision = 1) => {
      const claim = await claimProposal(deps, reviewer, { id });
      expect(claim?.proposal.id).toBe(id);
      return reviewProposal(deps, reviewer, { token: claim?.token ?? '', decision, revision, reason: 'Checked.' });
    };
    const approved = async (extra: Partial<NewProposal> = {}) => {
      const proposal = await submit(extra);
      const done = await decide(ALICE, proposal.id, 'APPROVE');
      expect(done.state).toBe('APPROVED');
      return done;
    };
    const claimed = async (proposal: { action: string }) => {
      const claim = await claimExecution(deps, WORKER, { leaseSeconds: 300, actions: [proposal.action] });
      expect(claim).not.toBeNull();
      return claim?.token ?? '';
    };
    const executing = async (extra: Partial<NewProposal> = {}) => {
      const proposal = await approved(extra);
      const token = await claimed(proposal);
      expect((await startExecutionAttempt(deps, WORKER, { token, fingerprint: FP })).attempt).not.toBeNull();
      return { proposal, token };
    };
    const unknown = async (extra: Partial<NewProposal> = {}) => {
      const { proposal, token } = await executing(extra);
      expect((await reportExecutionResult(deps, WORKER, { token, outcome: 'UNKNOWN' })).state).toBe('OUTCOME_UNKNOWN');
      return proposal;
    };
    const sweep = () => recordProposalDeadlines(deps, 100);
    const state = async (id: number) => (await deps.db.read.proposal.findUniqueOrThrow({ where: { id } })).state;

    // PENDING → REJECTED, → CHANGES_REQUESTED; a release of the review lease changes nothing.
    const rejected = await submit();
    const lease = await claimProposal(deps, ALICE, { id: rejected.id });
    await releaseProposalLease(deps, ALICE, { token: lease?.token ?? '' });
    expect((await decide(ALICE, rejected.id, 'REJECT')).state).toBe('REJECTED');
    const changed = await submit({ recordId: 'walk-changes' });
    expect((await decide(ALICE, changed.id, 'REQUEST_CHANGES')).state).toBe('CHANGES_REQUESTED');
    // Its revision 2: PENDING → CANCELLED by its proposer.
    const second = await submit({ recordId: 'walk-changes', revision: 2, action: changed.action, targetId: changed.targetId });
    expect((await cancelProposal(deps, { ...PROPOSER, isAdmin: false }, { id: second.id, reason: 'Not needed.' })).state).toBe('CANCELLED');

    // HIGH: the first approval is recorded (PENDING → PENDING), lapses unused, then two fresh ones → APPROVED → CANCELLED.
    const high = await submit({ riskLevel: 'HIGH', approvalValiditySeconds: 60 });
    expect((await decide(ALICE, high.id, 'APPROVE')).state).toBe('PENDING');
    clock.advance(61 * SECOND);
    await sweep();
    expect((await decide(ALICE, high.id, 'APPROVE')).state).toBe('PENDING');
    expect((await decide(BOB, high.id, 'APPROVE')).state).toBe('APPROVED');
    expect((await cancelProposal(deps, ADMIN, { id: high.id, reason: 'Withdrawn.' })).state).toBe('CANCELLED');

    // Expiries: PENDING past its deadline and APPROVED past its validity, at the sweep.
    const late = await submit({ deadline: new Date(clock.now().getTime() + 120 * SECOND) });
    const lapsing = await approved({ approvalValiditySeconds: 60 });
    clock.advance(121 * SECOND);
    await sweep();
    expect([await state(late.id), await state(lapsing.id)]).toEqual(['EXPIRED', 'EXPIRED']);
    // EXPIRED → OUTCOME_UNKNOWN: it was done by hand anyway.
    const lateRecord = { id: lapsing.id, fingerprint: FP, reason: 'Console.', evidence: 'Ticket 1.' };
    expect((await recordManualExecution(deps, HAND, lateRecord)).state).toBe('OUTCOME_UNKNOWN');

    // Staleness by report: PENDING → STALE, APPROVED → STALE, then STALE → OUTCOME_UNKNOWN by a manual record.
    const pendingStale = await submit();
    const approvedStale = await approved();
    for (const target of [pendingStale, approvedStale]) {
      await reportTargetState(deps, SYNC, { targetSystem: 'shop', targetId: target.targetId, fingerprint: FP_CHANGED });
    }
    expect([await state(pendingStale.id), await state(approvedStale.id)]).toEqual(['STALE', 'STALE']);
    const staleRecord = { id: approvedStale.id, fingerprint: FP_CHANGED, reason: 'Console.', evidence: 'Ticket 2.' };
    expect((await recordManualExecution(deps, HAND, staleRecord)).state).toBe('OUTCOME_UNKNOWN');

    // Manual records of an APPROVED one: checks hold → EXECUTED; a changed fingerprint → OUTCOME_UNKNOWN.
    const byHand = await approved();
    expect(
      (await recordManualExecution(deps, HAND, { id: byHand.id, fingerprint: FP, reason: 'API down.', evidence: 'Done.' })).state,
    ).toBe('EXECUTED');
    const byHandChanged = await approved();
    const changedRecord = { id: byHandChanged.id, fingerprint: FP_CHANGED, reason: 'API down.', evidence: 'Done.' };
    expect((await recordManualExecution(deps, HAND, changedRecord)).state).toBe('OUTCOME_UNKNOWN');

    // A manual claim (APPROVED → EXECUTING) and its result (→ EXECUTED), as automation would.
    const manual = await approved();
    const manualClaim = await claimManualExecution(deps, HAND, { id: manual.id, reason: 'Integration down.', leaseSeconds: 300 });
    await startExecutionAttempt(deps, HAND, { token: manualClaim.token, fingerprint: FP });
    expect((await reportExecutionResult(deps, HAND, { token: manualClaim.token, outcome: 'SUCCEEDED' })).state).toBe('EXECUTED');

    // Auto-approval (PENDING → APPROVED by policy), executed, then reviewed afterwards (no state change).
    const auto = await submit({ action: 'restock' });
    expect(auto.state).toBe('APPROVED');
    const autoRun = await claimed(auto);
    await startExecutionAttempt(deps, WORKER, { token: autoRun, fingerprint: FP });
    await reportExecutionResult(deps, WORKER, { token: autoRun, outcome: 'SUCCEEDED' });
    expect((await reviewExecutedProposal(deps, ALICE, { id: auto.id, verdict: 'CONFIRMED' })).afterReview).toBe('CONFIRMED');

    // Every reported outcome from EXECUTING: → APPROVED (failed before sending), then → EXECUTED; → FAILED;
    // → STALE (failed before sending, the target reads differently); → EXPIRED at the attempt; → STALE at the attempt.
    const retried = await executing();
    expect((await reportExecutionResult(deps, WORKER, { token: retried.token, outcome: 'FAILED_BEFORE_SEND' })).state).toBe('APPROVED');
    const again = await claimed(retried.proposal);
    await startExecutionAttempt(deps, WORKER, { token: again, fingerprint: FP });
    expect((await reportExecutionResult(deps, WORKER, { token: again, outcome: 'SUCCEEDED' })).state).toBe('EXECUTED');
    const refused = await executing();
    expect((await reportExecutionResult(deps, WORKER, { token: refused.token, outcome: 'REJECTED_BY_REMOTE' })).state).toBe('FAILED');
    const movedOn = await executing();
    const movedReport = { token: movedOn.token, outcome: 'FAILED_BEFORE_SEND' as const, fingerprint: FP_CHANGED };
    expect((await reportExecutionResult(deps, WORKER, movedReport)).state).toBe('STALE');
    const tooLate = await approved({ approvalValiditySeconds: 60 });
    const tooLateToken = await claimed(tooLate);
    clock.advance(61 * SECOND);
    expect((await startExecutionAttempt(deps, WORKER, { token: tooLateToken, fingerprint: FP })).proposal.state).toBe('EXPIRED');
    const staleAtAttempt = await approved();
    const staleToken = await claimed(staleAtAttempt);
    expect((await startExecutionAttempt(deps, WORKER, { token: staleToken, fingerprint: FP_CHANGED })).proposal.state).toBe('STALE');

    // EXECUTING → OUTCOME_UNKNOWN when the execution lease lapses; reconciled not executed → APPROVED, then
    // held (APPROVED → ON_HOLD), resumed (→ APPROVED), and cancelled by an admin.
    const vanished = await executing();
    clock.advance(301 * SECOND);
    await sweep();
    expect(await state(vanished.proposal.id)).toBe('OUTCOME_UNKNOWN');
    const notDone = { id: vanished.proposal.id, executed: false, evidence: 'No trace.', fingerprint: FP };
    expect((await reconcileProposal(deps, RECONCILER, notDone)).state).toBe('APPROVED');
    expect((await holdProposal(deps, BOB, { id: vanished.proposal.id, reason: 'Audit first.' })).state).toBe('ON_HOLD');
    expect((await resumeProposal(deps, ADMIN, { id: vanished.proposal.id, reason: 'Audit done.' })).state).toBe('APPROVED');
    expect((await cancelProposal(deps, ADMIN, { id: vanished.proposal.id, reason: 'Not any more.' })).state).toBe('CANCELLED');

    // Reconciliation: executed → EXECUTED; not executed, target changed → STALE; not executed, approval lapsed → EXPIRED.
    const found = await unknown();
    expect((await reconcileProposal(deps, RECONCILER, { id: found.id, executed: true, evidence: 'Applied.' })).state).toBe('EXECUTED');
    const moved = await unknown();
    const movedReconcile = { id: moved.id, executed: false, evidence: 'Not applied; moved.', fingerprint: FP_CHANGED };
    expect((await reconcileProposal(deps, RECONCILER, movedReconcile)).state).toBe('STALE');
    const lapsed = await unknown({ approvalValiditySeconds: 60 });
    clock.advance(61 * SECOND);
    const lapsedReconcile = { id: lapsed.id, executed: false, evidence: 'Not applied.', fingerprint: FP };
    expect((await reconcileProposal(deps, RECONCILER, lapsedReconcile)).state).toBe('EXPIRED');

    // Holds from PENDING: resumed → PENDING (escalated and assigned meanwhile: no state change), then → REJECTED;
    // held past its deadline and resumed → EXPIRED; held and cancelled; held and made STALE by a report.
    const paused = await submit();
    await holdProposal(deps, BOB, { id: paused.id, reason: 'Check the feed.' });
    await escalateProposal(deps, BOB, { id: paused.id, reason: 'Needs a lead.', to: 'ADMIN' });
    await assignProposal(deps, ADMIN, { id: paused.id, assignee: 'alice' });
    expect((await resumeProposal(deps, ADMIN, { id: paused.id, reason: 'Feed fine.' })).state).toBe('PENDING');
    expect((await decide(ALICE, paused.id, 'REJECT')).state).toBe('REJECTED');
    const heldLate = await submit({ deadline: new Date(clock.now().getTime() + 120 * SECOND) });
    await holdProposal(deps, BOB, { id: heldLate.id, reason: 'Wait.' });
    clock.advance(121 * SECOND);
    expect((await resumeProposal(deps, ADMIN, { id: heldLate.id, reason: 'Go on.' })).state).toBe('EXPIRED');
    const heldCancelled = await submit();
    await holdProposal(deps, BOB, { id: heldCancelled.id, reason: 'Wait.' });
    expect((await cancelProposal(deps, { ...PROPOSER, isAdmin: false }, { id: heldCancelled.id, reason: 'Dropped.' })).state).toBe(
      'CANCELLED',
    );
    const heldStale = await submit();
    await holdProposal(deps, BOB, { id: heldStale.id, reason: 'Wait.' });
    await reportTargetState(deps, SYNC, { targetSystem: 'shop', targetId: heldStale.targetId, fingerprint: FP_CHANGED });
    expect(await state(heldStale.id)).toBe('STALE');

    // The whole history, proposal by proposal, in order.
    const events = await deps.db.read.event.findMany({ where: { proposalId: { not: null } }, orderBy: { id: 'asc' } });
    const walked = new Map<number, ProposalState>();
    const edges = new Set<string>();
    const missing: string[] = [];
    for (const event of events) {
      const details = JSON.parse(event.details) as { state?: ProposalState; from?: unknown };
      const id = event.proposalId as number;
      const before = walked.get(id);
      if (event.type === 'PROPOSAL_SUBMITTED') {
        expect(details.state).toBe('PENDING');
      } else if (details.state !== before) {
        // A change of state: `from` is the state it left.
        if (details.from !== before)
          missing.push(`${event.type} of proposal ${id} (${before} → ${details.state}) has from ${details.from}`);
        edges.add(`${before} → ${details.state}`);
      }
      if (STATE_CHANGE_TYPES.has(event.type) && typeof details.from !== 'string') {
        missing.push(`${event.type} of proposal ${id} has no from`);
      }
      walked.set(id, details.state as ProposalState);
    }
    expect(missing).toEqual([]);
    // Every state-change event type was met, and every edge of the table was walked.
    expect(new Set(events.map((event) => event.type).filter((type) => STATE_CHANGE_TYPES.has(type)))).toEqual(STATE_CHANGE_TYPES);
    expect([...tableEdges()].filter((edge) => !edges.has(edge))).toEqual([]);
    // The new operations and the three the issue named, by type: each with its from.
    const from = (type: string, extra: (details: Record<string, unknown>) => boolean = () => true) =>
      events
        .filter((event) => event.type === type)
        .map((event) => JSON.parse(event.details) as Record<string, unknown>)
        .filter(extra)
        .map((details) => details.from);
    expect(new Set(from('PROPOSAL_APPROVED', (details) => details.policy !== undefined))).toEqual(new Set(['PENDING']));
    expect(new Set(from('PROPOSAL_APPROVED'))).toEqual(new Set(['PENDING']));
    expect(new Set(from('PROPOSAL_APPROVAL_RECORDED'))).toEqual(new Set(['PENDING']));
    expect(new Set(from('EXECUTION_CLAIMED', (details) => details.manual === true))).toEqual(new Set(['APPROVED']));
    expect(new Set(from('EXECUTION_CLAIMED'))).toEqual(new Set(['APPROVED']));
    expect(new Set(from('PROPOSAL_HELD'))).toEqual(new Set(['PENDING', 'APPROVED']));
    expect(new Set(from('PROPOSAL_RESUMED'))).toEqual(new Set(['ON_HOLD']));
  });
});
