// Seed B's queue filters for proposals (issue 17, item 5: age, impact, assignee, deadline) by their results, on
// the run's backend: every filter alone and in combination, paged both ways, equals the same filter applied by
// hand to every row. (test/db/query-plans.test.ts proves they read along an index; this proves what they return.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase, type Proposal } from '../../src/db/client.js';
import { ManualClock } from '../../src/domain/clock.js';
import type { RiskLevel } from '../../src/domain/proposal.js';
import type { Actor } from '../../src/services/context.js';
import { listProposals, type ProposalFilter } from '../../src/services/proposal-queries.js';
import { assignProposal, cancelProposal, holdProposal, type ProposalDeps, submitProposal } from '../../src/services/proposals/index.js';
import { type TestDatabase, testDatabase } from '../support/database.js';

const T0 = Date.UTC(2026, 11, 2, 8, 0, 0);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const PROPOSER: Actor = { name: 'queue-agent', authenticated: true };
const LEAD = { name: 'queue-lead', authenticated: true, isAdmin: true };
const RISKS: RiskLevel[] = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'];
const ASSIGNEES = ['erin', 'kai', null];

describe('the proposal queue filters by age, impact, assignee and deadline (issue 17, item 5)', () => {
  let temp: TestDatabase;
  let db: Database;
  let deps: ProposalDeps;
  let rows: Proposal[] = [];
  const at = (minutes: number) => new Date(T0 + minutes * MINUTE);

  beforeAll(async () => {
    temp = await testDatabase();
    db = await openDatabase({ location: temp.location, synchronous: 'NORMAL' });
    const clock = new ManualClock(T0);
    deps = { db, clock };
    // 24 proposals ten minutes apart: risk levels in turn, every other one with a deadline 1–12 h after it,
    // assigned to erin, kai or nobody; some held, some cancelled (a filter never hides a state by itself).
    for (let n = 0; n < 24; n++) {
      const { proposal } = await submitProposal(deps, PROPOSER, {
        batchId: 'queue',
        recordId: `q-${n}`,
        action: 'refund',
        parameters: { n },
        reason: 'Queue filters.',
        targetSystem: 'billing',
        targetId: `acct-${n}`,
        currentValue: 1,
        proposedValue: 2,
        dataSource: 'ledger',
        riskLevel: RISKS[n % 4] as RiskLevel,
        fingerprint: 'fp',
        deadline: n % 2 === 0 ? new Date(clock.now().getTime() + ((n % 12) + 1) * HOUR) : null,
      });
      const assignee = ASSIGNEES[n % 3] ?? null;
      if (assignee) await assignProposal(deps, LEAD, { id: proposal.id, assignee });
      if (n % 5 === 0) await holdProposal(deps, LEAD, { id: proposal.id, reason: 'Held for the test.' });
      if (n % 7 === 3) await cancelProposal(deps, LEAD, { id: proposal.id, reason: 'Cancelled for the test.' });
      clock.advance(10 * MINUTE);
    }
    rows = await db.read.proposal.findMany({ orderBy: { id: 'asc' } });
  });
  afterAll(async () => {
    await db.close();
    await temp.cleanup();
  });

  /** The filter applied by hand: createdAfter inclusive, createdBefore and deadlineBefore exclusive, no deadline never before. */
  const oracle = (filter: ProposalFilter) =>
    rows
      .filter(
        (row) =>
          (!filter.states || filter.states.includes(row.state)) &&
          (!filter.riskLevels || filter.riskLevels.includes(row.riskLevel)) &&
          (filter.assignee == null || row.assignee === filter.assignee) &&
          (!filter.createdAfter || row.createdAt.getTime() >= filter.createdAfter.getTime()) &&
          (!filter.createdBefore || row.createdAt.getTime() < filter.createdBefore.getTime()) &&
          (!filter.deadlineBefore || (row.deadline !== null && row.deadline.getTime() < filter.deadlineBefore.getTime())),
      )
      .map((row) => row.id);

  const cases: [string, ProposalFilter][] = [
    ['age: older than 2 h (createdBefore)', { createdBefore: at(120) }],
    ['age: the last hour (createdAfter, inclusive)', { createdAfter: at(180) }],
    ['age: a window', { createdAfter: at(60), createdBefore: at(150) }],
    ['impact: HIGH and CRITICAL', { riskLevels: ['HIGH', 'CRITICAL'] }],
    ['impact: CRITICAL only', { riskLevels: ['CRITICAL'] }],
    ['assignee erin', { assignee: 'erin' }],
    ['assignee nobody has', { assignee: 'nobody' }],
    ['deadline within 5 h of the start (exclusive; none without a deadline)', { deadlineBefore: at(300) }],
    ['waiting (PENDING, ON_HOLD) and HIGH+ impact', { states: ['PENDING', 'ON_HOLD'], riskLevels: ['HIGH', 'CRITICAL'] }],
    ['erin’s pending ones due within 8 h', { assignee: 'erin', states: ['PENDING'], deadlineBefore: at(480) }],
    ['kai’s, older than 1 h, MEDIUM+', { assignee: 'kai', createdBefore: at(170), riskLevels: ['MEDIUM', 'HIGH', 'CRITICAL'] }],
    ['held ones', { states: ['ON_HOLD'] }],
    ['all conditions, none matching', { assignee: 'erin', riskLevels: ['LOW'], states: ['CANCELLED'], deadlineBefore: at(1) }],
  ];

  it('the seeded queue has something for every filter to keep and to drop', () => {
    for (const [label, filter] of cases.slice(0, -2)) {
      const kept = oracle(filter).length;
      if (label !== 'assignee nobody has') expect(kept, label).toBeGreaterThan(0);
      expect(kept, label).toBeLessThan(rows.length);
    }
  });

  it.each(cases)('%s: the same proposals as the filter by hand, in id order, paged forwards and backwards', async (_label, filter) => {
    const expected = oracle(filter);
    expect(await listProposals(deps, filter, { limit: 100, inverted: false }).then((page) => page.map((row) => row.id))).toEqual(expected);
    // Pages of 3 forwards, then backwards from the end, cover the same list.
    const forwards: number[] = [];
    for (let afterId: number | null = null; ; ) {
      const page = await listProposals(deps, filter, { limit: 3, inverted: false, afterId });
      forwards.push(...page.map((row) => row.id));
      if (page.length < 3) break;
      afterId = page.at(-1)?.id ?? null;
    }
    expect(forwards).toEqual(expected);
    const backwards = await listProposals(deps, filter, { limit: 3, inverted: true });
    expect(backwards.map((row) => row.id).sort((a, b) => a - b)).toEqual(expected.slice(-3));
  });
});
