// Escalation and assignment (issue 17, item 5b and 5c): automatic escalation by the deadline announcer
// (PROPOSAL_ESCALATION) of PENDING proposals past an age and of OUTCOME_UNKNOWN ones unreconciled too long,
// each once, when it falls due by the manual clock, also with a second server on the same database; by hand
// (escalateProposal) over GraphQL; and assignProposal with the `assignee` filter.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { escalationConfig } from '../../src/config/workflow.js';
import { type Database, type EventType, openDatabase } from '../../src/db/client.js';
import type { EscalationPolicy } from '../../src/domain/escalation.js';
import { Live } from '../../src/events/live.js';
import { createLogger } from '../../src/logger.js';
import {
  claimExecution,
  claimProposal,
  holdProposal,
  type NewProposal,
  type ProposalDeps,
  recordProposalDeadlines,
  reportExecutionResult,
  reviewProposal,
  startExecutionAttempt,
  submitProposal,
} from '../../src/services/proposals/index.js';
import { EXECUTOR, MINUTE, PROPOSER, proposalInput, REVIEWER } from '../support/proposals.js';
import { postGraphQL, startTestServer, type TestServer } from '../support/server.js';

const POLICY: EscalationPolicy = { pendingAfterSeconds: 3600, outcomeUnknownAfterSeconds: 600, to: 'ADMIN' };

describe('automatic escalation, announced when it falls due', () => {
  let server: TestServer;
  let deps: ProposalDeps;

  beforeEach(async () => {
    server = await startTestServer({ config: { proposalEscalation: POLICY } });
    deps = { db: server.db, clock: server.clock, escalation: POLICY };
  });

  afterEach(async () => {
    await server.stop();
  });

  const events = (type: EventType, proposalId?: number) =>
    server.db.read.event.findMany({ where: { type, ...(proposalId === undefined ? {} : { proposalId }) }, orderBy: { id: 'asc' } });
  const proposal = (id: number) => server.db.read.proposal.findUniqueOrThrow({ where: { id } });
  const details = (event: { details: string } | undefined) => JSON.parse(event?.details ?? '{}') as Record<string, unknown>;
  const errorLogs = () => server.logs.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);

  async function submit(recordId: string, extra: Partial<NewProposal> = {}) {
    const { proposal: submitted } = await submitProposal(deps, PROPOSER, proposalInput(recordId, extra));
    await server.settle();
    return submitted;
  }

  /** Approves, claims and starts executing `id`, then reports UNKNOWN (which does not date it: the announcer does). */
  async function makeUnknown(id: number, recordId: string) {
    const claim = await claimProposal(deps, REVIEWER, { id });
    await reviewProposal(deps, REVIEWER, { token: claim?.token ?? '', decision: 'APPROVE', revision: 1 });
    const execution = await claimExecution(deps, EXECUTOR, { leaseSeconds: 60 });
    expect(execution?.proposal.id).toBe(id);
    await startExecutionAttempt(deps, EXECUTOR, { token: execution?.token ?? '', fingerprint: `v1-${recordId}` });
    await reportExecutionResult(deps, EXECUTOR, { token: execution?.token ?? '', outcome: 'UNKNOWN' });
    await server.settle();
  }

  it('escalates a PENDING proposal once it is older than pendingAfterSeconds: one PROPOSAL_ESCALATED by "system", not a moment early', async () => {
    const submitted = await submit('old-pending');
    server.clock.advance(3600_000 - 1);
    await server.settle();
    expect(await events('PROPOSAL_ESCALATED')).toEqual([]);

    // Nothing but the clock moves: only the announcer's timer can record this.
    server.clock.advance(1);
    await server.settle();
    const recorded = await events('PROPOSAL_ESCALATED');
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ proposalId: submitted.id, actor: 'system', occurredAt: server.clock.now() });
    expect(details(recorded[0])).toMatchObject({ from: 'PENDING', state: 'PENDING', to: 'ADMIN', toKind: 'ROLE', automatic: true });
    expect(details(recorded[0]).reason).toContain('more than 3600 s');
    expect(await proposal(submitted.id)).toMatchObject({ state: 'PENDING', escalatedTo: 'ADMIN', escalatedAt: server.clock.now() });

    server.clock.advance(24 * 60 * MINUTE);
    await server.settle();
    expect(await events('PROPOSAL_ESCALATED')).toHaveLength(1);
    expect(errorLogs()).toEqual([]);
  });

  it('does not escalate by age a proposal that was decided, held or escalated by hand before', async () => {
    const decided = await submit('decided');
    const held = await submit('held');
    const byHand = await submit('by-hand');
    const claim = await claimProposal(deps, REVIEWER, { id: decided.id });
    await reviewProposal(deps, REVIEWER, { token: claim?.token ?? '', decision: 'REJECT', reason: 'No.' });
    await holdProposal(deps, REVIEWER, { id: held.id, reason: 'Wait for the customer.' });
    const admin = await server.as('esc-admin', ['ADMIN']);
    const id = Buffer.from(`Proposal:${byHand.id}`).toString('base64');
    const response = await postGraphQL(
      server.url,
      `mutation($id: ID!) { escalateProposal(input: { id: $id, reason: "Customer waiting.", to: "pricing-lead" }) {
        ... on EscalateProposalPayload { proposal { escalatedTo escalatedAt blockedReason } } ... on UserError { code message } } }`,
      { id },
      admin.headers,
    );
    const escalated = ((await response.json()) as { data: { escalateProposal: { proposal: Record<string, unknown> } } }).data
      .escalateProposal.proposal;
    expect(escalated).toMatchObject({ escalatedTo: 'pricing-lead', escalatedAt: server.clock.now().toISOString() });
    expect(escalated.blockedReason).toContain('Escalated to pricing-lead.');
    await server.settle();

    server.clock.advance(2 * 3600_000);
    await server.settle();
    const recorded = await events('PROPOSAL_ESCALATED');
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ proposalId: byHand.id, actor: 'esc-admin' });
    expect(details(recorded[0])).toMatchObject({ to: 'pricing-lead', toKind: 'PRINCIPAL', automatic: false, reason: 'Customer waiting.' });
  });

  it('escalates an OUTCOME_UNKNOWN proposal unreconciled for outcomeUnknownAfterSeconds, once, counting from when it became unknown', async () => {
    const submitted = await submit('unknown');
    // Old enough to be escalated as PENDING first: that escalation does not stand in for the later one.
    server.clock.advance(3600_000);
    await server.settle();
    expect(await events('PROPOSAL_ESCALATED', submitted.id)).toHaveLength(1);
    await makeUnknown(submitted.id, 'unknown');
    const becameUnknown = server.clock.now();
    expect(await proposal(submitted.id)).toMatchObject({ state: 'OUTCOME_UNKNOWN', outcomeUnknownAt: becameUnknown, escalatedAt: null });

    server.clock.advance(600_000 - 1);
    await server.settle();
    expect(await events('PROPOSAL_ESCALATED', submitted.id)).toHaveLength(1);
    server.clock.advance(1);
    await server.settle();
    const recorded = await events('PROPOSAL_ESCALATED', submitted.id);
    expect(recorded).toHaveLength(2);
    expect(recorded[1]).toMatchObject({ actor: 'system', occurredAt: server.clock.now() });
    expect(details(recorded[1])).toMatchObject({ from: 'OUTCOME_UNKNOWN', to: 'ADMIN', automatic: true, previouslyEscalatedTo: 'ADMIN' });
    expect(details(recorded[1]).reason).toContain(`unknown since ${becameUnknown.toISOString()}`);

    server.clock.advance(60 * MINUTE);
    await server.settle();
    expect(await events('PROPOSAL_ESCALATED', submitted.id)).toHaveLength(2);
    expect(errorLogs()).toEqual([]);
  });

  describe('with a second server on the same database', () => {
    let elsewhere: Database;
    let otherLive: Live;

    beforeEach(async () => {
      elsewhere = await openDatabase({ location: server.db.location, synchronous: 'NORMAL' });
      const logger = createLogger('error', { write: () => true } as unknown as NodeJS.WritableStream);
      otherLive = new Live({ db: elsewhere, clock: server.clock, logger, leaseWarningMs: 60_000, escalation: POLICY });
      otherLive.start();
    });

    afterEach(async () => {
      await otherLive.stop();
      await elsewhere.close();
    });

    const settleBoth = async () => {
      for (let round = 0; round < 2; round++) {
        await server.settle();
        await otherLive.settled();
      }
    };

    it('both announcers, and recordProposalDeadlines on both connections, escalate each proposal once', async () => {
      const submitted = await Promise.all(
        Array.from({ length: 30 }, (_, index) => submitProposal(deps, PROPOSER, proposalInput(`dual-${index}`))),
      );
      await settleBoth();
      server.clock.advance(3600_000);
      await Promise.all([
        recordProposalDeadlines(deps, 200),
        recordProposalDeadlines({ db: elsewhere, clock: server.clock, escalation: POLICY }, 200),
      ]);
      await settleBoth();
      const recorded = await events('PROPOSAL_ESCALATED');
      expect(recorded).toHaveLength(submitted.length);
      expect(new Set(recorded.map((event) => event.proposalId)).size).toBe(submitted.length);
    });
  });
});

describe('PROPOSAL_ESCALATION configuration', () => {
  it('reads the policy, and ends the start with one line naming what is wrong', () => {
    expect(escalationConfig(undefined)).toBeNull();
    expect(escalationConfig('{"pendingAfterSeconds":3600,"outcomeUnknownAfterSeconds":600,"to":"ADMIN"}')).toEqual(POLICY);
    expect(escalationConfig('{"outcomeUnknownAfterSeconds":600,"to":"night-shift"}')).toEqual({
      pendingAfterSeconds: null,
      outcomeUnknownAfterSeconds: 600,
      to: 'night-shift',
    });
    expect(() => escalationConfig('{"to":"ADMIN"}')).toThrow(
      /PROPOSAL_ESCALATION: .*give pendingAfterSeconds, outcomeUnknownAfterSeconds or both/,
    );
    expect(() => escalationConfig('{"pendingAfterSeconds":10,"to":"ADMIN"}')).toThrow(/pendingAfterSeconds: must be at least 60 seconds/);
    expect(() => escalationConfig('{"pendingAfterSeconds":600,"to":"system"}')).toThrow(/to: must name a role or a principal/);
    expect(() => escalationConfig('{"pendingAfterSeconds":600,"to":"night\\u0007shift"}')).toThrow(/to: must name a role or a principal/);
    expect(() => escalationConfig('{"pendingAfterSeconds":600,"to":" ADMIN"}')).toThrow(/to: must name a role or a principal/);
    expect(() => escalationConfig('{"pendingAfterSeconds":600,"to":"ADMIN","extra":1}')).toThrow(/PROPOSAL_ESCALATION/);
    expect(() => escalationConfig('not json')).toThrow(/PROPOSAL_ESCALATION must be JSON/);
  });
});

describe('assigning a proposal, and the queue filtered by assignee', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer();
  });
  afterEach(() => server.stop());

  it('names who should look at it (not a lease), lists by assignee, clears it; final ones and proposers are refused', async () => {
    const deps: ProposalDeps = { db: server.db, clock: server.clock };
    const first = (await submitProposal(deps, PROPOSER, proposalInput('assign-1'))).proposal;
    const second = (await submitProposal(deps, PROPOSER, proposalInput('assign-2'))).proposal;
    const lead = await server.as('queue-lead', ['REVIEWER']);
    const agent = await server.as('assign-agent', ['PROPOSER']);
    const gid = (id: number) => Buffer.from(`Proposal:${id}`).toString('base64');
    const ASSIGN = `mutation($id: ID!, $assignee: String) { assignProposal(input: { id: $id, assignee: $assignee }) {
      ... on AssignProposalPayload { proposal { id assignee claimedBy blockedReason history(first: 10) { edges { node { type actor details } } } } }
      ... on UserError { code message } } }`;
    const LIST = `query($assignee: String) { proposals(first: 10, filter: { assignee: $assignee }) { edges { node { id assignee } } } }`;
    const post = async (client: { headers: Record<string, string> }, query: string, variables: Record<string, unknown>) =>
      (await (await postGraphQL(server.url, query, variables, client.headers)).json()) as {
        data?: Record<string, any>;
        errors?: { extensions?: Record<string, unknown> }[];
      };

    const assigned = (await post(lead, ASSIGN, { id: gid(first.id), assignee: 'mori' })).data?.assignProposal.proposal;
    expect(assigned).toMatchObject({ assignee: 'mori', claimedBy: null });
    expect(assigned.blockedReason).toContain('Assigned to mori.');
    expect(assigned.history.edges.at(-1).node).toMatchObject({
      type: 'PROPOSAL_ASSIGNED',
      actor: 'queue-lead',
      details: { assignee: 'mori', previousAssignee: null },
    });
    // Not a lease: anyone may still claim it.
    expect(await claimProposal(deps, REVIEWER, { id: first.id })).not.toBeNull();

    const listed = (await post(lead, LIST, { assignee: 'mori' })).data?.proposals.edges.map((edge: any) => edge.node);
    expect(listed).toEqual([{ id: gid(first.id), assignee: 'mori' }]);
    expect((await post(lead, LIST, { assignee: 'nobody' })).data?.proposals.edges).toEqual([]);

    const cleared = (await post(lead, ASSIGN, { id: gid(first.id), assignee: null })).data?.assignProposal.proposal;
    expect(cleared.assignee).toBeNull();
    expect((await post(lead, LIST, { assignee: 'mori' })).data?.proposals.edges).toEqual([]);

    expect((await post(agent, ASSIGN, { id: gid(second.id), assignee: 'mori' })).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await post(lead, ASSIGN, { id: gid(second.id), assignee: ' padded' })).data?.assignProposal).toMatchObject({
      code: 'INVALID_TEXT',
    });
    const cancelled = await server.as('assign-admin', ['ADMIN']);
    await post(cancelled, `mutation($id: ID!) { cancelProposal(input: { id: $id, reason: "Withdrawn." }) { __typename } }`, {
      id: gid(second.id),
    });
    expect((await post(lead, ASSIGN, { id: gid(second.id), assignee: 'mori' })).data?.assignProposal).toMatchObject({
      code: 'PROPOSAL_STATE_CONFLICT',
    });
  });
});
