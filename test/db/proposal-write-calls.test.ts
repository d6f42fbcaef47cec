// Submissions, review leases, execution claims, attempts and results, approvals, rejections, requests for changes and
// cancellations of action proposals run on PostgreSQL as write calls (migrations 20261203120000_proposal_lease_calls,
// 20261203130000_execution_claim_call, 20261203140000_proposal_refusal_calls, 20261203150000_proposal_approval_call,
// 20261203160000_proposal_submission_call, 20261203170000_execution_attempt_calls,
// 20261203180000_proposal_oversight_calls, 20261203190000_manual_execution_calls,
// 20261203200000_reconcile_and_after_review_calls, 20261203210000_proposal_deadline_sweep_call):
// they must answer, refuse and write exactly what their TypeScript forms do on SQLite, and run as nothing but
// the one statement of their batch while they hold the write lock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WRITE_MODES } from '../../src/config/database-location.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { WRITE_BATCH } from '../../src/db/write-calls.js';
import { ManualClock } from '../../src/domain/clock.js';
import { DomainError } from '../../src/domain/errors.js';
import type { Actor } from '../../src/services/context.js';
import {
  assignProposal,
  cancelProposal,
  claimExecution,
  claimManualExecution,
  claimProposal,
  escalateProposal,
  holdProposal,
  type ProposalDeps,
  recordManualExecution,
  recordProposalDeadlines,
  releaseProposalLease,
  renewProposalLease,
  reportExecutionResult,
  resumeProposal,
  reviewExecutedProposal,
  reviewProposal,
  startExecutionAttempt,
  submitProposal,
} from '../../src/services/proposals/index.js';
import { createPostgresDatabase, type TestDatabase, tempDatabaseFile } from '../support/database.js';
import { deadlines } from '../support/deadline-script.js';
import { executions } from '../support/execution-script.js';
import { manualExecutions } from '../support/manual-execution-script.js';
import { oversight } from '../support/oversight-script.js';
import { MINUTE, proposalInput } from '../support/proposals.js';
import { settlements } from '../support/settlement-script.js';
import { recordWriterStatements, rows } from '../support/write-calls.js';

const START = Date.UTC(2026, 11, 3, 12, 0, 0);
const who = (name: string, authenticated = true): Actor => ({ name, authenticated });

type Outcome = Record<string, unknown> | string | null;

/** A proposal as a step returned it (whether it holds a lease and an operation id, not their random values), a refusal's code, or null. */
function outcomeOf(value: unknown): Outcome {
  if (value === null) return null;
  const proposal = (value as { proposal?: unknown }).proposal ?? value;
  const { leaseTokenHash, operationId, ...rest } = proposal as Record<string, unknown>;
  return { ...rest, leased: leaseTokenHash !== null, operation: operationId !== null };
}

/** The same script on either backend: every kind of review claim, renewal, release, execution claim, approval, rejection and cancellation, and every refusal they give. */
async function script(db: Database): Promise<Outcome[]> {
  const clock = new ManualClock(START);
  // restock: at least MEDIUM, and a policy approves it at MEDIUM (approvers: 0), to be reviewed after execution.
  const rules = { actions: { restock: { minimumRisk: 'MEDIUM' as const, approvers: { MEDIUM: 0 } } }, targetStateReporters: {} };
  const deps: ProposalDeps = { db, clock, rules };
  const outcomes: Outcome[] = [];
  const tokens: Record<string, string> = {};
  const step = async (work: () => Promise<unknown>) => {
    try {
      outcomes.push(outcomeOf(await work()));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      outcomes.push(error.code);
    }
  };
  const claim = (name: string, input: Parameters<typeof claimProposal>[2] = {}, key = name) =>
    step(async () => {
      const claimed = await claimProposal(deps, who(name), input);
      if (claimed) tokens[key] = claimed.token;
      return claimed;
    });
  const submit = (name: string, recordId: string, extra: Parameters<typeof proposalInput>[1] = {}) =>
    step(async () => {
      const { proposal, created } = await submitProposal(deps, who(name), proposalInput(recordId, extra));
      return { ...proposal, created };
    });
  const ids: Record<string, number> = {};
  for (const [recordId, by, extra] of [
    ['p1', 'agent', {}],
    ['p2', 'agent', { riskLevel: 'HIGH', deadline: new Date(START + 60 * MINUTE) }],
    ['p3', 'alice', { riskLevel: 'MEDIUM' }],
    ['p4', 'agent', { deadline: new Date(START + 10 * MINUTE) }],
    ['p5', 'agent', { riskLevel: 'HIGH' }],
  ] as const) {
    ids[recordId] = (await submitProposal(deps, who(by), proposalInput(recordId, extra))).proposal.id;
    clock.advance(1_000);
  }
  // Submissions: a retry, a conflict, a past deadline, the action's risk floor, a policy's approval.
  await submit('agent', 'p1'); // the same content again: the stored one, not created
  await submit('agent', 'p1', { reason: 'another reason' }); // PROPOSAL_CONFLICT
  await submit('bob', 'p1'); // another proposer: PROPOSAL_CONFLICT
  await submit('agent', 'late', { deadline: new Date(START) }); // INVALID_ARGUMENT
  await submit('agent', 'r1', { action: 'restock' }); // LOW: RISK_BELOW_MINIMUM
  const restock = { action: 'restock', targetSystem: 'warehouse', riskLevel: 'MEDIUM', approvalValiditySeconds: 600 } as const;
  await submit('agent', 'r2', { ...restock, deadline: new Date(START + 5 * MINUTE) }); // APPROVED by the policy, until its deadline
  await submit('agent', 'r3', restock); // APPROVED for its own window (600 s)
  await submit('agent', 'r3', restock); // not created
  await submit('agent', 'p1', { revision: 1_001 }); // INVALID_ARGUMENT, before the database
  await claim('alice'); // p4: the earliest deadline
  await claim('bob', { riskLevels: ['HIGH'], leaseSeconds: 120 }); // p2
  await claim('carol', { riskLevels: ['NOPE'] }); // no such risk level: nothing
  await claim('carol', { id: ids.p2 }); // bob's: CLAIM_CONFLICT
  await claim('carol', { id: ids.p3 });
  await claim('alice', { id: 999_999 }); // PROPOSAL_NOT_FOUND
  await claim('alice', { id: ids.p3 }); // hers: SELF_APPROVAL
  clock.advance(500);
  await step(() => renewProposalLease(deps, who('alice'), { token: tokens.alice as string, leaseSeconds: 600 }));
  await step(() => renewProposalLease(deps, who('bob'), { token: tokens.alice as string })); // NOT_LEASE_HOLDER
  await step(() => renewProposalLease(deps, who('mallory', false), { token: tokens.carol as string, leaseSeconds: 90 })); // the command line
  await step(() => releaseProposalLease(deps, who('carol'), { token: tokens.carol as string }));
  await step(() => releaseProposalLease(deps, who('carol'), { token: tokens.carol as string })); // CLAIM_NOT_FOUND
  await step(() => releaseProposalLease(deps, who('carol'), { token: 'not a token' })); // INVALID_TOKEN
  await claim('agent', { leaseSeconds: 3600 }); // every other one is agent's own: p3
  // Bob approves p2 (HIGH: two approvals), which stays PENDING without a lease.
  await step(() => reviewProposal(deps, who('bob'), { token: tokens.bob as string, decision: 'APPROVE', revision: 1 }));
  await claim('bob', { id: ids.p2 }); // ALREADY_APPROVED
  await claim('bob', { leaseSeconds: 60 }, 'bob-p1'); // not p2 (his approval), not p4 (alice's): p1
  clock.advance(11 * MINUTE); // p4's deadline passed; alice's and bob's leases lapsed
  await claim('dave', { id: ids.p4 }); // DEADLINE_PASSED
  await step(() => renewProposalLease(deps, who('alice'), { token: tokens.alice as string })); // CLAIM_EXPIRED
  await step(() => releaseProposalLease(deps, who('bob'), { token: tokens['bob-p1'] as string })); // CLAIM_EXPIRED
  await claim('erin'); // p2 (bob approved it, erin did not)
  await claim('frank', { riskLevels: ['LOW', 'NOPE'] }); // p1: bob's lapsed lease recorded, then replaced
  await claim('grace', { id: ids.p5 });
  // Execution claims: p1 (LOW) and p3 (MEDIUM: its approvers may not execute it) approved.
  await step(() => reviewProposal(deps, who('frank'), { token: tokens.frank as string, decision: 'APPROVE', revision: 1 }));
  await step(() => reviewProposal(deps, who('agent'), { token: tokens.agent as string, decision: 'APPROVE', revision: 1 }));
  const execute = (name: string, input: Parameters<typeof claimExecution>[2] = {}) =>
    step(async () => {
      const claimed = await claimExecution(deps, who(name), input);
      if (claimed) tokens[`${name}-execution`] = claimed.token;
      return claimed;
    });
  await execute('agent'); // p1 is its own, p3 it approved: nothing
  await execute('worker', { actions: ['nope'] }); // nothing of that action
  await execute('worker', { actions: ['set_price'], targetSystems: ['shop'] }); // p3: its approval runs out first
  await execute('frank', { targetSystems: ['shop', 'crm'] }); // p1: a LOW proposal's approver may execute it
  await execute('worker'); // nothing left
  // An execution lease renews; it is never released.
  await step(() => renewProposalLease(deps, who('worker'), { token: tokens['worker-execution'] as string, leaseSeconds: 300 }));
  await step(() => releaseProposalLease(deps, who('worker'), { token: tokens['worker-execution'] as string })); // CLAIM_NOT_FOUND
  // Rejections, requests for changes and cancellations.
  for (const [recordId, by, extra] of [
    ['p6', 'agent', {}],
    ['p7', 'agent', { riskLevel: 'MEDIUM' }],
    ['p8', 'ivy', {}],
    ['p9', 'agent', { deadline: new Date(clock.now().getTime() + 60_000) }],
    ['p10', 'agent', {}],
  ] as const) {
    ids[recordId] = (await submitProposal(deps, who(by), proposalInput(recordId, extra))).proposal.id;
    clock.advance(1_000);
  }
  const decide = (name: string, key: string, input: Omit<Parameters<typeof reviewProposal>[2], 'token'>) =>
    step(() => reviewProposal(deps, who(name), { token: tokens[key] as string, ...input }));
  await claim('ivy', { id: ids.p6 });
  await decide('bob', 'ivy', { decision: 'REJECT', reason: 'not the holder' }); // NOT_LEASE_HOLDER
  await decide('ivy', 'ivy', { decision: 'REJECT', reason: 'price floor', comment: null });
  await decide('ivy', 'ivy', { decision: 'REJECT', reason: 'again' }); // CLAIM_NOT_FOUND
  await claim('jack', { id: ids.p7 });
  await decide('jack', 'jack', { decision: 'REQUEST_CHANGES', reason: 'name the source', comment: '"quoted" \\ 迷惑' });
  // Revisions: only after CHANGES_REQUESTED (and STALE, EXPIRED, FAILED), by the same proposer, at no lower risk.
  await submit('agent', 'p7', { revision: 2 }); // LOW after MEDIUM: RISK_BELOW_MINIMUM
  await submit('ivy', 'p7', { revision: 2, riskLevel: 'MEDIUM' }); // another proposer: PREVIOUS_REVISION_INVALID
  await submit('agent', 'p6', { revision: 2 }); // after REJECTED: PREVIOUS_REVISION_INVALID
  await submit('agent', 'p7', { revision: 3, riskLevel: 'MEDIUM' }); // no revision 2: PREVIOUS_REVISION_INVALID
  await submit('agent', 'p7', { revision: 2, riskLevel: 'HIGH', fingerprint: 'v2-p7' }); // created, previousId set
  await submit('agent', 'p7', { revision: 2, riskLevel: 'HIGH', fingerprint: 'v2-p7' }); // not created
  await submit('agent', 'p7', { revision: 3, riskLevel: 'HIGH' }); // revision 2 is PENDING: PREVIOUS_REVISION_INVALID
  await claim('kim', { id: ids.p9, leaseSeconds: 300 });
  clock.advance(61_000);
  await decide('kim', 'kim', { decision: 'REQUEST_CHANGES', reason: 'late' }); // DEADLINE_PASSED
  const cancel = (name: string, id: number | undefined, isAdmin = false) =>
    step(() => cancelProposal(deps, { ...who(name), isAdmin }, { id: id as number, reason: `cancelled by ${name}` }));
  await cancel('agent', ids.p5); // grace's review lease ends with it
  await cancel('agent', ids.p5); // CANCELLED is final: PROPOSAL_STATE_CONFLICT
  await cancel('mallory', ids.p2); // NOT_PROPOSER
  await cancel('admin', ids.p1, true); // EXECUTING: PROPOSAL_STATE_CONFLICT
  await cancel('admin', 999_999, true); // PROPOSAL_NOT_FOUND
  await cancel('admin', ids.p2, true); // bob's approval voided
  await step(() => holdProposal(deps, who('admin'), { id: ids.p10 as number, reason: 'hold' }));
  await cancel('agent', ids.p10); // from ON_HOLD: where it was held from is forgotten
  await claim('henry'); // ivy's p8, the one left
  // Approvals: refusals first, then a HIGH proposal whose first approval lapses before the second comes.
  for (const recordId of ['p11', 'p12']) {
    ids[recordId] = (await submitProposal(deps, who('agent'), proposalInput(recordId, { riskLevel: 'HIGH' }))).proposal.id;
    clock.advance(1_000);
  }
  await claim('lee', { id: ids.p11 });
  await decide('lee', 'lee', { decision: 'APPROVE', revision: 2 }); // REVISION_MISMATCH (revision)
  await decide('lee', 'lee', { decision: 'APPROVE', revision: 1, fingerprint: 'v0-p11' }); // REVISION_MISMATCH (fingerprint)
  await decide('lee', 'lee', { decision: 'APPROVE', revision: 1, fingerprint: 'v1-p11', comment: 'first of two' });
  await claim('moe', { id: ids.p12 });
  // A report racing the review: the remembered fingerprint differs from p12's (written straight into the table).
  await db.write((tx) =>
    tx.targetState.create({
      data: { targetSystem: 'shop', targetId: 'p12', fingerprint: 'v2-p12', reportedAt: clock.now(), reportedBy: 'sync', source: 'REPORT' },
    }),
  );
  await decide('moe', 'moe', { decision: 'APPROVE', revision: 1 }); // STALE_FINGERPRINT
  await submit('agent', 'p12', { batchId: 'again' }); // made against v1-p12: STALE_FINGERPRINT
  await submit('agent', 'p12', { batchId: 'again', fingerprint: 'v2-p12' }); // the remembered one: created
  clock.advance(3_601_000); // lee's approval of p11 has lapsed
  await claim('moe', { id: ids.p11 }, 'moe-p11');
  await decide('moe', 'moe-p11', { decision: 'APPROVE', revision: 1 }); // lee's lapses: 1 of 2, still PENDING
  clock.advance(1_000);
  await claim('lee', { id: ids.p11 }, 'lee-again');
  await decide('lee', 'lee-again', { decision: 'APPROVE', revision: 1 }); // his lapsed one replaced: APPROVED
  await executions(deps, step, execute, tokens);
  await oversight(deps, step);
  await manualExecutions(deps, step);
  await settlements(deps, step);
  await deadlines(deps, step);
  return outcomes;
}

describe.each(WRITE_MODES)('proposal lease calls (PostgreSQL, PG_WRITE_MODE=%s) against their TypeScript forms', (writeMode) => {
  let database: TestDatabase;
  let postgres: Database;
  beforeAll(async () => {
    database = await createPostgresDatabase();
    postgres = await openDatabase({ location: database.location, writeMode });
  });
  afterAll(async () => {
    await postgres.close();
    await database.cleanup();
  });

  it('claims, renewals and releases of review leases answer, refuse and write exactly as on SQLite', async () => {
    const file = tempDatabaseFile();
    const sqlite = await openDatabase({ file: file.file });
    try {
      const expected = await script(sqlite);
      const actual = await script(postgres);
      expect(actual).toEqual(expected);
      // Every refusal of the three operations was met, so the comparison covers them.
      for (const code of [
        'CLAIM_CONFLICT',
        'PROPOSAL_NOT_FOUND',
        'SELF_APPROVAL',
        'NOT_LEASE_HOLDER',
        'CLAIM_NOT_FOUND',
        'INVALID_TOKEN',
        'ALREADY_APPROVED',
        'DEADLINE_PASSED',
        'CLAIM_EXPIRED',
        'NOT_PROPOSER',
        'PROPOSAL_STATE_CONFLICT',
        'REVISION_MISMATCH',
        'STALE_FINGERPRINT',
        'PROPOSAL_CONFLICT',
        'INVALID_ARGUMENT',
        'RISK_BELOW_MINIMUM',
        'PREVIOUS_REVISION_INVALID',
        'ATTEMPT_IN_PROGRESS',
        'ATTEMPT_NOT_STARTED',
        'EXECUTOR_IS_APPROVER',
        'SELF_RECONCILIATION',
      ])
        expect(expected).toContain(code);
      const sqliteEvents = await rows(sqlite, 'Event');
      expect(sqliteEvents.map((event) => event.type)).toEqual(
        expect.arrayContaining([
          'PROPOSAL_LEASE_CLAIMED',
          'PROPOSAL_LEASE_RENEWED',
          'PROPOSAL_LEASE_RELEASED',
          'PROPOSAL_LEASE_EXPIRED',
          'PROPOSAL_HELD',
          'PROPOSAL_RESUMED',
          'PROPOSAL_ESCALATED',
          'PROPOSAL_ASSIGNED',
          'MANUAL_EXECUTION_RECORDED',
          'EXECUTION_OUTCOME_UNKNOWN',
          'PROPOSAL_RECONCILED',
          'PROPOSAL_REVIEWED_AFTER',
          'PROPOSAL_APPROVAL_LAPSED',
          'PROPOSAL_EXPIRED',
        ]),
      );
      expect(await rows(postgres, 'Event')).toEqual(sqliteEvents);
      expect(await rows(postgres, 'Proposal')).toEqual(await rows(sqlite, 'Proposal'));
      expect(await rows(postgres, 'ProposalApproval')).toEqual(await rows(sqlite, 'ProposalApproval'));
      expect(await rows(postgres, 'ExecutionAttempt')).toEqual(await rows(sqlite, 'ExecutionAttempt'));
      expect(await rows(postgres, 'TargetState')).toEqual(await rows(sqlite, 'TargetState'));
    } finally {
      await sqlite.close();
      file.cleanup();
    }
  });

  it('the same submissions sent to three instances at once: each proposal stored once, created once', async () => {
    const others = await Promise.all([1, 2].map(() => openDatabase({ location: database.location, writeMode })));
    const instances = [postgres, ...others];
    const clock = new ManualClock(START + 48 * 3_600_000);
    try {
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, n) =>
          submitProposal(
            { db: instances[n % 3] as Database, clock },
            who('agent'),
            proposalInput(`twice-${n % 10}`, { batchId: writeMode }),
          ),
        ),
      );
      expect(new Set(answers.map((answer) => answer.proposal.id)).size).toBe(10);
      expect(answers.filter((answer) => answer.created)).toHaveLength(10);
    } finally {
      await Promise.all(others.map((other) => other.close()));
    }
  });
});

describe('proposal lease calls (PostgreSQL)', () => {
  let database: TestDatabase;
  let postgres: Database;
  beforeAll(async () => {
    database = await createPostgresDatabase();
    postgres = await openDatabase({ location: database.location });
  });
  afterAll(async () => {
    await postgres.close();
    await database.cleanup();
  });

  it('many proposers, reviewers and executors at once: each submission, claim, renewal, release, assignment, escalation, hold, resumption, poll, attempt, result, review after execution, execution by hand and deadline sweep is part of one statement, nothing else runs under the write lock, and no proposal is leased twice', async () => {
    const clock = new ManualClock(START + 24 * 3_600_000);
    const deps: ProposalDeps = { db: postgres, clock };
    const { sent, stop: stopRecording } = recordWriterStatements();
    const held: { form: string; writes: number }[] = [];
    const stop = postgres.onLockHeld((_seconds, form, writes) => held.push({ form, writes }));
    const reviewers = Array.from({ length: 10 }, (_, n) => who(`reviewer-${n}`));
    try {
      // Twelve submissions, each sent twice at once (a client's retry): twelve proposals, each once.
      const submitted = await Promise.all(
        [...Array.from({ length: 12 }, (_, n) => n), ...Array.from({ length: 12 }, (_, n) => n)].map((n) =>
          submitProposal(deps, who('agent'), proposalInput(`lock-${n}`)),
        ),
      );
      expect(new Set(submitted.map((answer) => answer.proposal.id)).size).toBe(12);
      expect(submitted.filter((answer) => answer.created)).toHaveLength(12);
      const claims = await Promise.all(reviewers.map((reviewer) => claimProposal(deps, reviewer, {})));
      expect(new Set(claims.map((claim) => claim?.proposal.id)).size).toBe(10);
      await Promise.all(claims.map((claim, n) => renewProposalLease(deps, reviewers[n] as Actor, { token: claim?.token as string })));
      await Promise.all(claims.map((claim, n) => releaseProposalLease(deps, reviewers[n] as Actor, { token: claim?.token as string })));
      // Oversight at once: each proposal assigned, half escalated, half held and resumed.
      const lead = { ...who('lead'), isAdmin: true };
      const leased = claims.map((claim) => claim?.proposal.id as number);
      await Promise.all(leased.map((id, n) => assignProposal(deps, lead, { id, assignee: `reviewer-${(n + 1) % 10}` })));
      await Promise.all(leased.slice(0, 5).map((id) => escalateProposal(deps, lead, { id, to: 'ADMIN', reason: 'slow' })));
      await Promise.all(leased.slice(5).map((id) => holdProposal(deps, lead, { id, reason: 'wait' })));
      const resumed = await Promise.all(leased.slice(5).map((id) => resumeProposal(deps, lead, { id, reason: 'go' })));
      expect(resumed.map((proposal) => proposal.state)).toEqual(['PENDING', 'PENDING', 'PENDING', 'PENDING', 'PENDING']);
      // Executors polling with nothing approved: a statement too, not a transaction held across round trips.
      const polls = await Promise.all(reviewers.slice(0, 5).map((executor) => claimExecution(deps, executor, {})));
      expect(polls).toEqual([null, null, null, null, null]);
      // Five proposals a policy approves at submission, then five executors at once: claim, attempt, result.
      const restocked = { ...deps, rules: { actions: { restock: { approvers: { MEDIUM: 0 } } }, targetStateReporters: {} } };
      await Promise.all(
        Array.from({ length: 5 }, (_, n) =>
          submitProposal(restocked, who('agent'), proposalInput(`run-${n}`, { action: 'restock', riskLevel: 'MEDIUM' })),
        ),
      );
      const executors = reviewers.slice(5);
      const runs = await Promise.all(executors.map((executor) => claimExecution(deps, executor, {})));
      const attempts = await Promise.all(
        runs.map((run, n) =>
          startExecutionAttempt(deps, executors[n] as Actor, {
            token: run?.token as string,
            fingerprint: run?.proposal.fingerprint as string,
          }),
        ),
      );
      expect(attempts.map((started) => started.attempt?.number)).toEqual([1, 1, 1, 1, 1]);
      const results = await Promise.all(
        runs.map((run, n) => reportExecutionResult(deps, executors[n] as Actor, { token: run?.token as string, outcome: 'SUCCEEDED' })),
      );
      expect(results.map((proposal) => proposal.state)).toEqual(['EXECUTED', 'EXECUTED', 'EXECUTED', 'EXECUTED', 'EXECUTED']);
      // Each reviewed after execution (a policy approved it), at once.
      const reviewed = await Promise.all(results.map(({ id }) => reviewExecutedProposal(deps, lead, { id, verdict: 'CONFIRMED' })));
      expect(reviewed.map((proposal) => proposal.afterReview)).toEqual(['CONFIRMED', 'CONFIRMED', 'CONFIRMED', 'CONFIRMED', 'CONFIRMED']);
      // By hand, at once: two claimed for execution, three recorded as done.
      const byHand = await Promise.all(
        Array.from({ length: 5 }, (_, n) =>
          submitProposal(restocked, who('agent'), proposalInput(`hand-${n}`, { action: 'restock', riskLevel: 'MEDIUM' })),
        ),
      );
      const manual = await Promise.all(
        byHand.map(({ proposal }, n) =>
          n < 2
            ? claimManualExecution(deps, executors[n] as Actor, { id: proposal.id, reason: 'integration down' }).then(
                (claim) => claim.proposal,
              )
            : recordManualExecution(deps, executors[n] as Actor, {
                id: proposal.id,
                fingerprint: proposal.fingerprint,
                evidence: `ticket ${n}`,
                reason: 'integration down',
              }),
        ),
      );
      expect(manual.map((proposal) => proposal.state)).toEqual(['EXECUTING', 'EXECUTING', 'EXECUTED', 'EXECUTED', 'EXECUTED']);
      // The announcer's deadline sweep, beside two writers: one statement as well, with nothing due.
      const [swept] = await Promise.all([
        recordProposalDeadlines(deps, 200),
        assignProposal(deps, lead, { id: leased[0] as number, assignee: null }),
        assignProposal(deps, lead, { id: leased[1] as number, assignee: null }),
      ]);
      expect(swept).toBe(0);
    } finally {
      stopRecording();
      stop();
    }
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.filter((text) => text !== WRITE_BATCH)).toEqual([]);
    expect(sent.length).toBeLessThan(50);
    expect(held.every((hold) => hold.form === 'statement')).toBe(true);
    expect(held.reduce((sum, hold) => sum + hold.writes, 0)).toBe(24 + 35 + 25 + 20 + 5 + 10 + 3);
  });
});
