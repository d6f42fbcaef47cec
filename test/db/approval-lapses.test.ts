// Approvals age one by one (seed B; issue 17, item 3), on a real database (SQLite or PostgreSQL, as the
// run's backend) with a manual clock: while a proposal waits for more approvals, each counts for the
// approval window from when it was given; past it, it lapses (PROPOSAL_APPROVAL_LAPSED, recorded once by
// whichever comes first, the deadline announcer or the next approval), no longer counts and is never reused.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { ManualClock } from '../../src/domain/clock.js';
import type { Actor } from '../../src/services/context.js';
import {
  claimProposal,
  nextProposalDeadline,
  type ProposalDeps,
  recordProposalDeadlines,
  reviewProposal,
  submitProposal,
} from '../../src/services/proposals/index.js';
import { BACKEND, type TestDatabase, testDatabase } from '../support/database.js';
import { PROPOSER, proposalInput } from '../support/proposals.js';

const T0 = Date.UTC(2026, 11, 2, 9, 0, 0);
const SECOND = 1000;
const who = (name: string): Actor => ({ name, authenticated: true });
const ALICE = who('alice');
const BOB = who('bob');
const CAROL = who('carol');

describe(`approvals age one by one (${BACKEND})`, () => {
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

  /** A HIGH proposal (two approvers) whose approvals count for `seconds` each. */
  const submitHigh = async (seconds = 60) =>
    (await submitProposal(deps, PROPOSER, proposalInput('sku-1', { riskLevel: 'HIGH', approvalValiditySeconds: seconds }))).proposal;
  const approve = async (reviewer: Actor, id: number) => {
    const claim = await claimProposal(deps, reviewer, {});
    expect(claim?.proposal.id).toBe(id);
    return reviewProposal(deps, reviewer, { token: claim?.token ?? '', decision: 'APPROVE', revision: claim?.proposal.revision ?? null });
  };
  const events = async (id: number) =>
    (await db.read.event.findMany({ where: { proposalId: id }, orderBy: { id: 'asc' } })).map((event) => ({
      type: event.type,
      actor: event.actor,
      details: JSON.parse(event.details) as Record<string, unknown>,
    }));

  it('a first approval 65 s old no longer counts toward a quorum with a 60 s window: the second approval leaves it PENDING, 1 of 2', async () => {
    const proposal = await submitHigh(60);
    await approve(ALICE, proposal.id);
    clock.advance(65 * SECOND);
    const after = await approve(BOB, proposal.id);
    expect(after).toMatchObject({ state: 'PENDING', operationId: null, approvalExpiresAt: null });
    const lapsed = (await events(proposal.id)).filter((event) => event.type === 'PROPOSAL_APPROVAL_LAPSED');
    expect(lapsed).toEqual([
      {
        type: 'PROPOSAL_APPROVAL_LAPSED',
        actor: 'system',
        details: expect.objectContaining({
          approver: ALICE.name,
          approvedAt: new Date(T0).toISOString(),
          lapsedAt: new Date(T0 + 60 * SECOND).toISOString(),
          approvals: 0,
          approvalsRequired: 2,
        }),
      },
    ]);
    const recorded = (await events(proposal.id)).filter((event) => event.type === 'PROPOSAL_APPROVAL_RECORDED');
    expect(recorded.at(-1)?.details).toMatchObject({ approver: BOB.name, approvals: 1, approvalsRequired: 2 });
    // Never reused: the lapsed approval stays void.
    const rows = await db.read.proposalApproval.findMany({ where: { proposalId: proposal.id }, orderBy: { id: 'asc' } });
    expect(rows.map((row) => [row.approver, row.voidReason])).toEqual([
      [ALICE.name, 'LAPSED'],
      [BOB.name, null],
    ]);
  });

  it('the lapse is recorded when it falls due (the deadline announcer’s work), once, and the approver may approve again', async () => {
    const proposal = await submitHigh(60);
    await approve(ALICE, proposal.id);
    expect(await nextProposalDeadline(deps)).toEqual(new Date(T0 + 60 * SECOND));
    clock.advance(59 * SECOND);
    expect(await recordProposalDeadlines(deps, 100)).toBe(0);
    clock.advance(1 * SECOND);
    expect(await recordProposalDeadlines(deps, 100)).toBe(1);
    expect(await recordProposalDeadlines(deps, 100)).toBe(0);
    expect((await events(proposal.id)).filter((event) => event.type === 'PROPOSAL_APPROVAL_LAPSED')).toHaveLength(1);
    expect(await nextProposalDeadline(deps)).toBeNull();
    // Alice's approval no longer stands, so her claims take the proposal again, and a fresh approval counts.
    clock.advance(5 * SECOND);
    const again = await approve(ALICE, proposal.id);
    expect(again.state).toBe('PENDING');
    const approved = await approve(BOB, proposal.id);
    expect(approved.state).toBe('APPROVED');
    // Valid for the window from the oldest approval counted (Alice's fresh one), not from the last.
    expect(approved.approvalExpiresAt).toEqual(new Date(T0 + 65 * SECOND + 60 * SECOND));
    // Once approved, the approvals do not lapse one by one: the proposal's approval expiry governs.
    expect(await db.read.proposalApproval.count({ where: { proposalId: proposal.id, lapsesAt: { not: null } } })).toBe(0);
    expect(await nextProposalDeadline(deps)).toEqual(approved.approvalExpiresAt);
  });

  it('approvals within their windows make the quorum: approved until the first of them lapses', async () => {
    const proposal = await (async () =>
      (await submitProposal(deps, PROPOSER, proposalInput('sku-2', { riskLevel: 'CRITICAL', approvalValiditySeconds: 60 }))).proposal)();
    await approve(ALICE, proposal.id);
    clock.advance(30 * SECOND);
    await approve(BOB, proposal.id);
    clock.advance(29 * SECOND);
    const approved = await approve(CAROL, proposal.id);
    expect(approved.state).toBe('APPROVED');
    expect(approved.approvalExpiresAt).toEqual(new Date(T0 + 60 * SECOND));
    expect((await events(proposal.id)).map((event) => event.type)).not.toContain('PROPOSAL_APPROVAL_LAPSED');
  });
});
