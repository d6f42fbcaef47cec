// Action-proposal statistics (services/proposal-stats.ts) and the proposal series of GET /metrics, on a
// known set of proposals built through the services on the real server with the manual clock: every
// state, pending proposals on each side of each age boundary, and decisions with known waits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Proposal } from '../../src/db/client.js';
import { type ProposalStats, proposalStats } from '../../src/services/proposal-stats.js';
import {
  cancelProposal,
  claimExecution,
  claimProposal,
  type NewProposal,
  type ProposalDeps,
  type ReviewDecision,
  reportExecutionResult,
  reportTargetState,
  reviewProposal,
  startExecutionAttempt,
  submitProposal,
} from '../../src/services/proposals/index.js';
import { EXECUTOR, MINUTE, PROPOSER, proposalInput, REVIEWER } from '../support/proposals.js';
import { startTestServer, type TestServer } from '../support/server.js';

const HOUR = 60 * MINUTE;

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)$/;

/** Sample values by series (e.g. `leasehold_proposals{state="PENDING"}`), and each family's TYPE. */
async function scrape(server: TestServer): Promise<Map<string, number> & { types: Map<string, string> }> {
  const viewer = await server.as('prometheus', ['VIEWER']);
  const response = await fetch(`${server.url}/metrics`, { headers: viewer.headers });
  expect(response.status).toBe(200);
  const values = Object.assign(new Map<string, number>(), { types: new Map<string, string>() });
  for (const line of (await response.text()).split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) values.types.set(type[1] as string, type[2] as string);
    const match = SAMPLE.exec(line);
    if (match && !line.startsWith('#')) values.set(`${match[1]}${match[2] ?? ''}`, Number(match[3]));
  }
  return values;
}

describe('proposal statistics of an empty queue', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('counts zero everywhere and has no oldest age or wait quantiles', async () => {
    const stats = await proposalStats({ db: server.db, clock: server.clock });
    expect(Object.values(stats.byState).every((count) => count === 0)).toBe(true);
    expect(Object.keys(stats.byState)).toHaveLength(12);
    expect(stats.pendingByAge).toEqual({ lt_1h: 0, '1h_to_4h': 0, '4h_to_24h': 0, gte_24h: 0 });
    expect(stats.oldestPendingAgeSeconds).toBeNull();
    expect(stats.waitTimes).toEqual({ decisions: 0, p50Seconds: null, p95Seconds: null });

    const metrics = await scrape(server);
    expect(
      Object.fromEntries([...metrics.types].filter(([name]) => /^leasehold_(proposal|oldest_pending_proposal|execution)/.test(name))),
    ).toEqual({
      leasehold_proposals: 'gauge',
      leasehold_proposals_pending_by_age: 'gauge',
      leasehold_proposals_needing_reconciliation: 'gauge',
      leasehold_proposals_awaiting_review_after_execution: 'gauge',
      leasehold_oldest_pending_proposal_age_seconds: 'gauge',
      leasehold_proposal_decisions_total: 'counter',
      leasehold_proposal_expiries_total: 'counter',
      leasehold_execution_failures_total: 'counter',
      leasehold_execution_outcome_unknown_total: 'counter',
    });
    expect(metrics.get('leasehold_proposals{state="PENDING"}')).toBe(0);
    expect(metrics.get('leasehold_proposals_pending_by_age{bucket="gte_24h"}')).toBe(0);
    expect(metrics.get('leasehold_proposals_needing_reconciliation')).toBe(0);
    expect(metrics.get('leasehold_oldest_pending_proposal_age_seconds')).toBe(0);
    expect(metrics.get('leasehold_proposal_decisions_total{decision="approved"}')).toBe(0);
    expect(metrics.get('leasehold_proposal_expiries_total')).toBe(0);
    expect(metrics.get('leasehold_execution_failures_total')).toBe(0);
    expect(metrics.get('leasehold_execution_outcome_unknown_total')).toBe(0);
  });
});

describe('proposal statistics of a known queue', () => {
  let server: TestServer;
  let deps: ProposalDeps;
  let t0: number;
  let stats: ProposalStats;

  /** Sets the clock to `t0 + offset` and lets the announcers record what fell due on the way. */
  async function at(offset: number) {
    server.clock.set(t0 + offset);
    await server.settle();
  }

  async function submit(recordId: string, extra: Partial<NewProposal> = {}): Promise<Proposal> {
    return (await submitProposal(deps, PROPOSER, proposalInput(recordId, extra))).proposal;
  }

  /** Claims the next proposal (it must be `expected`) and decides it. */
  async function decide(expected: Proposal, decision: ReviewDecision, riskLevels?: string[]) {
    const claim = await claimProposal(deps, REVIEWER, { riskLevels });
    expect(claim?.proposal.id).toBe(expected.id);
    return reviewProposal(deps, REVIEWER, { token: claim?.token ?? '', decision, revision: 1, reason: 'Not this way.' });
  }

  async function execute(expected: Proposal, outcome: 'SUCCEEDED' | 'REJECTED_BY_REMOTE' | null, leaseSeconds = 300) {
    const execution = await claimExecution(deps, EXECUTOR, { leaseSeconds });
    expect(execution?.proposal.id).toBe(expected.id);
    const token = execution?.token ?? '';
    await startExecutionAttempt(deps, EXECUTOR, { token, fingerprint: expected.fingerprint });
    if (outcome) await reportExecutionResult(deps, EXECUTOR, { token, outcome });
  }

  beforeAll(async () => {
    server = await startTestServer();
    deps = { db: server.db, clock: server.clock };
    t0 = server.clock.now().getTime();

    // At t0, in claim order (same createdAt: by id). F has a deadline, so it would be claimed first: it
    // expires before any review.
    const executed = await submit('a-executed');
    const rejected = await submit('b-rejected');
    const changes = await submit('c-changes');
    const failed = await submit('d-failed');
    const unknown = await submit('e-unknown');
    const approved = await submit('j-approved');
    const partial = await submit('g-partial', { riskLevel: 'HIGH' });
    const stale = await submit('h-stale');
    const cancelled = await submit('i-cancelled');
    await submit('f-expired', { deadline: new Date(t0 + 10 * MINUTE) });

    await at(5 * MINUTE);
    // HIGH needs two approvers: one approval leaves it PENDING (not a decision).
    expect((await decide(partial, 'APPROVE', ['HIGH'])).state).toBe('PENDING');
    await reportTargetState(
      deps,
      { name: 'shop-sync', authenticated: true, roles: new Set(['EXECUTOR'] as const) },
      { targetSystem: 'shop', targetId: 'h-stale', fingerprint: 'v2-h-stale' },
    );
    await cancelProposal(deps, { ...PROPOSER, isAdmin: false }, { id: cancelled.id, reason: 'Price war is over.' });

    await at(10 * MINUTE); // f-expired's deadline
    expect((await decide(executed, 'APPROVE')).state).toBe('APPROVED'); // waited 600 s
    await execute(executed, 'SUCCEEDED');
    await at(20 * MINUTE);
    expect((await decide(rejected, 'REJECT')).state).toBe('REJECTED'); // 1200 s
    await at(30 * MINUTE);
    expect((await decide(changes, 'REQUEST_CHANGES')).state).toBe('CHANGES_REQUESTED'); // 1800 s
    await at(40 * MINUTE);
    await decide(failed, 'APPROVE'); // 2400 s
    await execute(failed, 'REJECTED_BY_REMOTE');
    await at(50 * MINUTE);
    await decide(unknown, 'APPROVE'); // 3000 s
    await execute(unknown, null, 60);
    await at(51 * MINUTE); // its execution lease lapses: OUTCOME_UNKNOWN

    // Pending proposals of every age at t0 + 30 h, on both sides of each bucket boundary.
    await at(6 * HOUR);
    await submit('k-24h'); // exactly 24 h old at the end: gte_24h
    await at(10 * HOUR);
    await submit('l-20h');
    await at(26 * HOUR);
    await submit('m-4h'); // exactly 4 h: 4h_to_24h
    await at(27 * HOUR);
    await submit('n-3h');
    await at(29 * HOUR);
    expect((await decide(approved, 'APPROVE')).state).toBe('APPROVED'); // 104 400 s (29 h)
    await submit('o-1h'); // exactly 1 h: 1h_to_4h
    await at(29 * HOUR + 30 * MINUTE);
    await submit('p-30m');
    await at(30 * HOUR);
    await submit('q-0');
    await server.settle();

    stats = await proposalStats(deps);
    // The scenario itself: the target report made h-stale STALE.
    expect((await server.db.read.proposal.findUniqueOrThrow({ where: { id: stale.id } })).state).toBe('STALE');
  });

  afterAll(async () => {
    await server.stop();
  });

  it('counts proposals by state', () => {
    expect(stats.computedAt).toEqual(new Date(t0 + 30 * HOUR));
    expect(stats.byState).toEqual({
      PENDING: 8,
      APPROVED: 1,
      REJECTED: 1,
      CHANGES_REQUESTED: 1,
      CANCELLED: 1,
      EXPIRED: 1,
      STALE: 1,
      EXECUTING: 0,
      EXECUTED: 1,
      FAILED: 1,
      OUTCOME_UNKNOWN: 1,
      ON_HOLD: 0,
    });
  });

  it('buckets pending proposals by age (lower bounds inclusive) and reports the oldest', () => {
    expect(stats.pendingByAge).toEqual({ lt_1h: 2, '1h_to_4h': 2, '4h_to_24h': 2, gte_24h: 2 });
    expect(stats.oldestPendingAgeSeconds).toBe(30 * 3600);
  });

  it('totals outcomes: ever approved, rejected, changes requested, expired, failed, stale, needing reconciliation', () => {
    expect(stats.totals).toEqual({
      approved: 4,
      rejected: 1,
      changesRequested: 1,
      expired: 1,
      failed: 1,
      stale: 1,
      needingReconciliation: 1,
    });
  });

  it('gives nearest-rank p50 and p95 of the wait from submission to decision (a partial approval is no decision)', () => {
    // Waits: 600, 1200, 1800, 2400, 3000, 104 400 s. p50 = 3rd of 6, p95 = 6th of 6.
    expect(stats.waitTimes).toEqual({ decisions: 6, p50Seconds: 1800, p95Seconds: 104_400 });
  });

  it('GET /metrics (VIEWER key) shows the proposal gauges and the counters from events', async () => {
    const metrics = await scrape(server);
    const expected: Record<string, number> = {
      'leasehold_proposals{state="PENDING"}': 8,
      'leasehold_proposals{state="APPROVED"}': 1,
      'leasehold_proposals{state="EXECUTING"}': 0,
      'leasehold_proposals{state="EXECUTED"}': 1,
      'leasehold_proposals{state="FAILED"}': 1,
      'leasehold_proposals{state="OUTCOME_UNKNOWN"}': 1,
      'leasehold_proposals{state="STALE"}': 1,
      'leasehold_proposals{state="CANCELLED"}': 1,
      'leasehold_proposals_pending_by_age{bucket="lt_1h"}': 2,
      'leasehold_proposals_pending_by_age{bucket="1h_to_4h"}': 2,
      'leasehold_proposals_pending_by_age{bucket="4h_to_24h"}': 2,
      'leasehold_proposals_pending_by_age{bucket="gte_24h"}': 2,
      leasehold_proposals_needing_reconciliation: 1,
      leasehold_oldest_pending_proposal_age_seconds: 30 * 3600,
      'leasehold_proposal_decisions_total{decision="approved"}': 4,
      'leasehold_proposal_decisions_total{decision="rejected"}': 1,
      'leasehold_proposal_decisions_total{decision="changes_requested"}': 1,
      leasehold_proposal_expiries_total: 1,
      leasehold_execution_failures_total: 1,
      leasehold_execution_outcome_unknown_total: 1,
      // Proposal events are not item decisions or item lease lapses.
      'leasehold_decisions_total{decision="REJECTED"}': 0,
      leasehold_lease_expiries_total: 0,
    };
    expect(Object.fromEntries(Object.keys(expected).map((series) => [series, metrics.get(series)]))).toEqual(expected);
  });
});
