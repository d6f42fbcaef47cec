// Proposal deadlines announced when they pass (SPEC §3, §4), on the real server with the manual clock:
// a deadline or an approval's validity → EXPIRED, a lapsed execution lease → OUTCOME_UNKNOWN, a lapsed
// review lease → PROPOSAL_LEASE_EXPIRED, an approval past its window while more are needed →
// PROPOSAL_APPROVAL_LAPSED, each recorded exactly once, also with a second server (its own
// connections and announcer) on the same database. Proposals are made through the services directly.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database, type EventType, openDatabase } from '../../src/db/client.js';
import { Live } from '../../src/events/live.js';
import { createLogger } from '../../src/logger.js';
import type { Actor } from '../../src/services/context.js';
import {
  claimExecution,
  claimProposal,
  type NewProposal,
  type ProposalDeps,
  recordProposalDeadlines,
  renewProposalLease,
  reviewProposal,
  startExecutionAttempt,
  submitProposal,
} from '../../src/services/proposals/index.js';
import { EXECUTOR, MINUTE, PROPOSER, proposalInput, REVIEWER } from '../support/proposals.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectWs, waitFor } from '../support/ws.js';

const OTHER_REVIEWER: Actor = { name: 'okafor', authenticated: true };

describe('proposal deadlines, announced when they pass', () => {
  let server: TestServer;
  let deps: ProposalDeps;

  beforeEach(async () => {
    server = await startTestServer();
    deps = { db: server.db, clock: server.clock };
  });

  afterEach(async () => {
    await server.stop();
  });

  const events = (type: EventType, proposalId?: number) =>
    server.db.read.event.findMany({ where: { type, ...(proposalId === undefined ? {} : { proposalId }) }, orderBy: { id: 'asc' } });
  const proposal = (id: number) => server.db.read.proposal.findUniqueOrThrow({ where: { id } });
  const errorLogs = () => server.logs.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);

  /** Submits, and lets the announcer see the submission (so its timer is armed before the clock moves). */
  async function submit(recordId: string, extra: Partial<NewProposal> = {}) {
    const { proposal: submitted } = await submitProposal(deps, PROPOSER, proposalInput(recordId, extra));
    await server.settle();
    return submitted;
  }

  /** Claims the next proposal as REVIEWER and approves it (LOW risk: one approval suffices). */
  async function approveNext(expectedId: number) {
    const claim = await claimProposal(deps, REVIEWER, {});
    expect(claim?.proposal.id).toBe(expectedId);
    const approved = await reviewProposal(deps, REVIEWER, { token: claim?.token ?? '', decision: 'APPROVE', revision: 1 });
    expect(approved.state).toBe('APPROVED');
    await server.settle();
    return approved;
  }

  it('expires a pending proposal when its deadline passes: one PROPOSAL_EXPIRED by "system", not a moment early', async () => {
    const deadline = new Date(server.clock.now().getTime() + 10 * MINUTE);
    const submitted = await submit('sku-1', { deadline });

    server.clock.advance(10 * MINUTE - 1);
    await server.settle();
    expect((await proposal(submitted.id)).state).toBe('PENDING');
    expect(await events('PROPOSAL_EXPIRED')).toEqual([]);

    // Nothing but the clock moves: only the announcer's timer can record this.
    server.clock.advance(1);
    await server.settle();
    const expired = await proposal(submitted.id);
    expect(expired).toMatchObject({ state: 'EXPIRED', stateReason: 'The deadline passed.' });
    const recorded = await events('PROPOSAL_EXPIRED');
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ proposalId: submitted.id, actor: 'system', occurredAt: deadline });
    expect(JSON.parse(recorded[0]?.details ?? '{}')).toMatchObject({ from: 'PENDING', why: 'DEADLINE', state: 'EXPIRED' });

    server.clock.advance(60 * MINUTE);
    await server.settle();
    expect(await events('PROPOSAL_EXPIRED')).toHaveLength(1);
    expect(errorLogs()).toEqual([]);
  });

  it('re-arms for an earlier deadline that arrives while the timer waits for a later one', async () => {
    const start = server.clock.now().getTime();
    const late = await submit('sku-late', { deadline: new Date(start + 60 * MINUTE) });
    const early = await submit('sku-early', { deadline: new Date(start + 5 * MINUTE) });

    server.clock.advance(5 * MINUTE);
    await server.settle();
    expect((await proposal(early.id)).state).toBe('EXPIRED');
    expect((await proposal(late.id)).state).toBe('PENDING');

    server.clock.advance(55 * MINUTE);
    await server.settle();
    expect((await proposal(late.id)).state).toBe('EXPIRED');
    expect((await events('PROPOSAL_EXPIRED')).map((event) => event.proposalId)).toEqual([early.id, late.id]);
  });

  it("expires an approved proposal when the approval's validity lapses before execution", async () => {
    const submitted = await submit('sku-2', { approvalValiditySeconds: 600 });
    const approved = await approveNext(submitted.id);
    expect(approved.approvalExpiresAt).toEqual(new Date(server.clock.now().getTime() + 600_000));

    server.clock.advance(600_000);
    await server.settle();
    expect(await proposal(submitted.id)).toMatchObject({ state: 'EXPIRED', stateReason: 'The approval expired before execution.' });
    const recorded = await events('PROPOSAL_EXPIRED', submitted.id);
    expect(recorded).toHaveLength(1);
    expect(JSON.parse(recorded[0]?.details ?? '{}')).toMatchObject({ from: 'APPROVED', why: 'APPROVAL_VALIDITY' });
    // The approval is void: it can never be used again.
    expect(await server.db.read.proposalApproval.findMany({ where: { proposalId: submitted.id } })).toMatchObject([
      { approver: REVIEWER.name, voidReason: 'EXPIRED' },
    ]);
  });

  it('records an approval that lapses while the proposal waits for a second approver, when it falls due, once', async () => {
    const submitted = await submit('sku-lapse', { riskLevel: 'HIGH', approvalValiditySeconds: 60 });
    const claim = await claimProposal(deps, REVIEWER, {});
    expect(claim?.proposal.id).toBe(submitted.id);
    const first = await reviewProposal(deps, REVIEWER, { token: claim?.token ?? '', decision: 'APPROVE', revision: 1 });
    expect(first.state).toBe('PENDING');
    await server.settle();
    // A subscriber following the proposal, caught up before the lapse: it is pushed to it live (issue 17, item 3).
    const viewer = await server.as('lapse-viewer', ['VIEWER']);
    const ws = await connectWs(server.url, viewer.headers);
    const pushed = ws.subscribe<{ proposalEvents: { type: string; actor: string } }>(
      'subscription($id: ID) { proposalEvents(id: $id, afterSequence: 0) { type actor } }',
      { id: Buffer.from(`Proposal:${submitted.id}`).toString('base64') },
    );
    await waitFor(
      () => pushed.data.length >= 3,
      5_000,
      () => JSON.stringify(pushed.data),
    );

    server.clock.advance(59_999);
    await server.settle();
    expect(await events('PROPOSAL_APPROVAL_LAPSED', submitted.id)).toHaveLength(0);
    server.clock.advance(1);
    await server.settle();
    const lapsed = await events('PROPOSAL_APPROVAL_LAPSED', submitted.id);
    expect(lapsed.map((event) => [event.actor, JSON.parse(event.details).approver, JSON.parse(event.details).approvals])).toEqual([
      ['system', REVIEWER.name, 0],
    ]);
    await waitFor(
      () => pushed.data.length >= 4,
      5_000,
      () => JSON.stringify(pushed.data),
    );
    expect(pushed.data.map((event) => [event.proposalEvents.type, event.proposalEvents.actor])).toEqual([
      ['PROPOSAL_SUBMITTED', PROPOSER.name],
      ['PROPOSAL_LEASE_CLAIMED', REVIEWER.name],
      ['PROPOSAL_APPROVAL_RECORDED', REVIEWER.name],
      ['PROPOSAL_APPROVAL_LAPSED', 'system'],
    ]);
    await ws.close();
    expect(await proposal(submitted.id)).toMatchObject({ state: 'PENDING' });
    server.clock.advance(600_000);
    await server.settle();
    expect(await events('PROPOSAL_APPROVAL_LAPSED', submitted.id)).toHaveLength(1);
    expect(errorLogs()).toEqual([]);
  });

  it('makes an execution whose lease lapsed OUTCOME_UNKNOWN exactly once; the worker’s token is dead', async () => {
    const submitted = await submit('sku-3');
    await approveNext(submitted.id);
    const execution = await claimExecution(deps, EXECUTOR, { leaseSeconds: 60 });
    expect(execution?.proposal.id).toBe(submitted.id);
    const token = execution?.token ?? '';
    const started = await startExecutionAttempt(deps, EXECUTOR, { token, fingerprint: 'v1-sku-3', correlationId: 'req-1' });
    expect(started.attempt).not.toBeNull();
    await server.settle();

    // A renewal moves the lapse: the timer follows it.
    server.clock.advance(50_000);
    await renewProposalLease(deps, EXECUTOR, { token, leaseSeconds: 60 });
    await server.settle();
    server.clock.advance(59_999);
    await server.settle();
    expect((await proposal(submitted.id)).state).toBe('EXECUTING');

    server.clock.advance(1);
    await server.settle();
    const unknown = await proposal(submitted.id);
    expect(unknown).toMatchObject({ state: 'OUTCOME_UNKNOWN', leaseTokenHash: null, leaseExpiryRecorded: true });
    const recorded = await events('EXECUTION_OUTCOME_UNKNOWN');
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ proposalId: submitted.id, actor: 'system' });
    expect(JSON.parse(recorded[0]?.details ?? '{}')).toMatchObject({
      from: 'EXECUTING',
      why: 'EXECUTION_LEASE_LAPSED',
      executor: EXECUTOR.name,
    });
    await expect(startExecutionAttempt(deps, EXECUTOR, { token, fingerprint: 'v1-sku-3' })).rejects.toMatchObject({
      code: 'CLAIM_NOT_FOUND',
    });

    server.clock.advance(60 * MINUTE);
    await server.settle();
    expect(await events('EXECUTION_OUTCOME_UNKNOWN')).toHaveLength(1);
    // Never re-run on its own: nothing is claimable for execution.
    expect(await claimExecution(deps, EXECUTOR, {})).toBeNull();
  });

  it('records a lapsed review lease once; the proposal stays PENDING and claimable, and a re-claim adds no second lapse', async () => {
    const submitted = await submit('sku-4');
    const claim = await claimProposal(deps, REVIEWER, { leaseSeconds: 30 });
    expect(claim?.proposal.id).toBe(submitted.id);
    await server.settle();

    server.clock.advance(30_000);
    await server.settle();
    expect(await proposal(submitted.id)).toMatchObject({ state: 'PENDING', leaseExpiryRecorded: true });
    expect(await events('PROPOSAL_LEASE_EXPIRED')).toMatchObject([{ proposalId: submitted.id, actor: 'system' }]);

    const reclaim = await claimProposal(deps, OTHER_REVIEWER, {});
    expect(reclaim?.proposal.id).toBe(submitted.id);
    await server.settle();
    expect(await events('PROPOSAL_LEASE_EXPIRED')).toHaveLength(1);
  });

  it('records more than one batch falling due at the same moment', async () => {
    const deadline = new Date(server.clock.now().getTime() + 5 * MINUTE);
    const count = 230;
    await Promise.all(
      Array.from({ length: count }, (_, index) => submitProposal(deps, PROPOSER, proposalInput(`bulk-${index}`, { deadline }))),
    );
    await server.settle();

    server.clock.advance(5 * MINUTE);
    await server.settle();
    expect(await server.db.read.proposal.count({ where: { state: 'EXPIRED' } })).toBe(count);
    expect(await events('PROPOSAL_EXPIRED')).toHaveLength(count);
  });

  describe('with a second server on the same database', () => {
    let elsewhere: Database;
    let otherLive: Live;
    const otherLogs: string[] = [];

    beforeEach(async () => {
      otherLogs.length = 0;
      // Its own writer, reader, tail and announcer: its commits reach this server only through the
      // database (the SQLite file's data_version, PostgreSQL's notifications).
      elsewhere = await openDatabase({ location: server.db.location, synchronous: 'NORMAL' });
      const logger = createLogger('debug', {
        write(line: string) {
          otherLogs.push(line);
          return true;
        },
      } as unknown as NodeJS.WritableStream);
      otherLive = new Live({ db: elsewhere, clock: server.clock, logger, leaseWarningMs: 60_000 });
      otherLive.start();
    });

    afterEach(async () => {
      await otherLive.stop();
      await elsewhere.close();
    });

    const settleBoth = async () => {
      // Each one's commits reach the other through the database: go round until both are quiet.
      for (let round = 0; round < 2; round++) {
        await server.settle();
        await otherLive.settled();
      }
    };

    it('both announcers fire; each deadline and each lapsed execution lease is recorded once', async () => {
      const start = server.clock.now().getTime();
      const deadlines = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          submitProposal(deps, PROPOSER, proposalInput(`dual-${index}`, { deadline: new Date(start + 10 * MINUTE) })),
        ),
      );
      const executing = await submit('dual-exec');
      await settleBoth();

      server.clock.advance(10 * MINUTE);
      await settleBoth();
      const expiredEvents = await events('PROPOSAL_EXPIRED');
      expect(expiredEvents.map((event) => event.proposalId).sort((a, b) => Number(a) - Number(b))).toEqual(
        deadlines.map(({ proposal: submitted }) => submitted.id),
      );

      await approveNext(executing.id);
      const execution = await claimExecution(deps, EXECUTOR, { leaseSeconds: 30 });
      await startExecutionAttempt(deps, EXECUTOR, { token: execution?.token ?? '', fingerprint: 'v1-dual-exec' });
      await settleBoth();
      server.clock.advance(30_000);
      await settleBoth();
      expect(await events('EXECUTION_OUTCOME_UNKNOWN')).toMatchObject([{ proposalId: executing.id, actor: 'system' }]);
      expect((await proposal(executing.id)).state).toBe('OUTCOME_UNKNOWN');

      server.clock.advance(60 * MINUTE);
      await settleBoth();
      expect(await events('PROPOSAL_EXPIRED')).toHaveLength(12);
      expect(await events('EXECUTION_OUTCOME_UNKNOWN')).toHaveLength(1);
      expect(errorLogs()).toEqual([]);
      expect(otherLogs.filter((line) => (JSON.parse(line) as { level: number }).level >= 50)).toEqual([]);
    });

    it('recordProposalDeadlines racing on two connections (and the announcers) changes each proposal once', async () => {
      const start = server.clock.now().getTime();
      const submitted = await Promise.all(
        Array.from({ length: 40 }, (_, index) =>
          submitProposal(deps, PROPOSER, proposalInput(`race-${index}`, { deadline: new Date(start + 10 * MINUTE) })),
        ),
      );
      await settleBoth();

      server.clock.advance(10 * MINUTE);
      const [here, there] = await Promise.all([
        recordProposalDeadlines(deps, 200),
        recordProposalDeadlines({ db: elsewhere, clock: server.clock }, 200),
      ]);
      await settleBoth();
      // Whoever won (these two calls or either announcer), the changes add up to one per proposal.
      expect(here + there).toBeLessThanOrEqual(submitted.length);
      const recorded = await events('PROPOSAL_EXPIRED');
      expect(recorded).toHaveLength(submitted.length);
      expect(new Set(recorded.map((event) => event.proposalId)).size).toBe(submitted.length);
      expect(await server.db.read.proposal.count({ where: { state: 'EXPIRED' } })).toBe(submitted.length);
    });
  });
});
