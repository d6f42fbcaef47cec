// Stop safely, and say who can restart (issue 17, item 5a): holdProposal / resumeProposal over GraphQL on the
// real server. A hold stops claims (review and execution), a manual record and the clock without cancelling;
// it ends an active review lease; only an ADMIN resumes, back where it was or EXPIRED if that no longer holds;
// every step is an event pushed live over WebSocket.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';
import { connectWs, waitFor } from '../support/ws.js';

type Body = { data?: Record<string, any> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] };

const MINUTE = 60_000;
const FIELDS = 'id state stateReason heldFrom heldBy blockedReason approvals { approver voidReason }';
const SUBMIT = `mutation($recordId: String!, $deadline: DateTime) {
  submitProposal(input: { batchId: "holds", recordId: $recordId, action: "refund", parameters: { amount: 5 }, reason: "Duplicate charge",
    target: { system: "billing", recordId: $recordId }, dataSource: "ledger", riskLevel: LOW, fingerprint: "fp", deadline: $deadline }) {
    ... on SubmitProposalPayload { proposal { id } } ... on UserError { code message } } }`;
const CLAIM = `mutation($id: ID) { claimProposal(input: { leaseSeconds: 600, id: $id }) {
  ... on ClaimProposalPayload { claimed proposal { id } lease { token } } ... on UserError { code field message } } }`;
const APPROVE = `mutation($token: String!) { reviewProposal(input: { token: $token, decision: APPROVE, revision: 1 }) {
  ... on ReviewProposalPayload { proposal { ${FIELDS} approvalExpiresAt } } ... on UserError { code field message } } }`;
const HOLD = `mutation($id: ID!, $reason: String!) { holdProposal(input: { id: $id, reason: $reason }) {
  ... on HoldProposalPayload { proposal { ${FIELDS} } } ... on UserError { code field message } } }`;
const RESUME = `mutation($id: ID!, $reason: String!) { resumeProposal(input: { id: $id, reason: $reason }) {
  ... on ResumeProposalPayload { proposal { ${FIELDS} history(first: 30) { edges { node { type actor details } } } } }
  ... on UserError { code field message } } }`;
const CANCEL = `mutation($id: ID!) { cancelProposal(input: { id: $id, reason: "Not needed." }) {
  ... on CancelProposalPayload { proposal { ${FIELDS} } } ... on UserError { code message } } }`;
const CLAIM_EXECUTION = `mutation { claimExecution(input: { leaseSeconds: 60 }) {
  ... on ClaimExecutionPayload { claimed proposal { id } } ... on UserError { code message } } }`;
const MANUAL = `mutation($id: ID!) { recordManualExecution(input: { id: $id, fingerprint: "fp", reason: "Billing API down.", evidence: "Done in the console." }) {
  ... on RecordManualExecutionPayload { proposal { state } } ... on UserError { code message } } }`;
const REPORT_STATE = `mutation($recordId: String!) { reportTargetState(input: { target: { system: "billing", recordId: $recordId }, fingerprint: "fp-2" }) {
  __typename ... on UserError { code message } } }`;
const PROPOSAL = `query($id: ID!) { node(id: $id) { ... on Proposal { ${FIELDS} } } }`;

describe('holding and resuming a proposal', () => {
  let server: TestServer;
  let agent: TestClient;
  let rei: TestClient;
  let kai: TestClient;
  let executor: TestClient;
  let admin: TestClient;
  beforeAll(async () => {
    server = await startTestServer();
    agent = await server.as('hold-agent', ['PROPOSER']);
    rei = await server.as('rei', ['REVIEWER']);
    kai = await server.as('kai', ['REVIEWER']);
    executor = await server.as('exe', ['EXECUTOR']);
    admin = await server.as('boss', ['ADMIN']);
  });
  afterAll(() => server.stop());

  async function run(client: TestClient, query: string, variables: Record<string, unknown> = {}) {
    const body = (await (await postGraphQL(server.url, query, variables, client.headers)).json()) as Body;
    return body;
  }
  async function data(client: TestClient, query: string, variables: Record<string, unknown> = {}) {
    const body = await run(client, query, variables);
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    return body.data ?? {};
  }
  const submit = async (recordId: string, deadline?: Date) =>
    (await data(agent, SUBMIT, { recordId, deadline: deadline?.toISOString() ?? null })).submitProposal.proposal.id as string;
  const hold = async (client: TestClient, id: string, reason = 'Customer disputes the charge.') =>
    (await data(client, HOLD, { id, reason })).holdProposal;
  const resume = async (client: TestClient, id: string, reason = 'Dispute settled.') =>
    (await data(client, RESUME, { id, reason })).resumeProposal;
  const proposal = async (id: string) => (await data(kai, PROPOSAL, { id })).node;
  async function approve(id: string) {
    const claim = (await data(rei, CLAIM, { id })).claimProposal;
    const approved = (await data(rei, APPROVE, { token: claim.lease.token })).reviewProposal.proposal;
    expect(approved.state).toBe('APPROVED');
    return approved;
  }

  it('holds a PENDING proposal under review: the review lease ends, nothing can claim it, only an ADMIN resumes it', async () => {
    const id = await submit('under-review');
    const claim = (await data(rei, CLAIM, { id })).claimProposal;
    expect(claim.claimed).toBe(true);

    const held = await hold(kai, id);
    expect(held.proposal).toMatchObject({
      state: 'ON_HOLD',
      heldFrom: 'PENDING',
      heldBy: 'kai',
      stateReason: 'Customer disputes the charge.',
    });
    expect(held.proposal.blockedReason).toMatch(
      /^On hold by kai \(Customer disputes the charge\.\): nobody may claim, review or execute it/,
    );
    expect(held.proposal.blockedReason).toMatch(/ADMIN role resumes it \(resumeProposal\): it would now return to PENDING/);

    // The reviewer's lease ended with the hold: its decision is refused, and nobody may take it.
    expect((await data(rei, APPROVE, { token: claim.lease.token })).reviewProposal).toMatchObject({ code: 'CLAIM_NOT_FOUND' });
    expect((await data(kai, CLAIM, { id })).claimProposal).toMatchObject({
      code: 'PROPOSAL_STATE_CONFLICT',
      message: expect.stringContaining('ON_HOLD'),
    });
    expect((await data(kai, CLAIM, { id: null })).claimProposal).toMatchObject({ claimed: false });
    // Holding twice is a state conflict, not a second hold.
    expect(await hold(kai, id)).toMatchObject({ code: 'PROPOSAL_STATE_CONFLICT' });

    // Least privilege: a proposer may not hold, a reviewer may not resume (FORBIDDEN, recorded as refusals).
    const byProposer = await run(agent, HOLD, { id, reason: 'Mine.' });
    expect(byProposer.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const byReviewer = await run(kai, RESUME, { id, reason: 'Go on.' });
    expect(byReviewer.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(byReviewer.errors?.[0]?.message).toContain('ADMIN');

    const resumed = await resume(admin, id);
    expect(resumed.proposal).toMatchObject({ state: 'PENDING', heldFrom: null, heldBy: null, stateReason: 'Dispute settled.' });
    const history = resumed.proposal.history.edges.map((edge: any) => edge.node);
    expect(history.find((event: any) => event.type === 'PROPOSAL_HELD')).toMatchObject({
      actor: 'kai',
      details: {
        from: 'PENDING',
        state: 'ON_HOLD',
        reason: 'Customer disputes the charge.',
        endedLease: true,
        leaseHolder: 'rei',
        leaseKind: 'REVIEW',
      },
    });
    expect(history.find((event: any) => event.type === 'PROPOSAL_RESUMED')).toMatchObject({
      actor: 'boss',
      details: { from: 'ON_HOLD', state: 'PENDING', heldFrom: 'PENDING', heldBy: 'kai', reason: 'Dispute settled.' },
    });
    expect(await resume(admin, id)).toMatchObject({ code: 'PROPOSAL_STATE_CONFLICT' });
    // Claimable again.
    expect((await data(kai, CLAIM, { id })).claimProposal).toMatchObject({ claimed: true });
  });

  it('holds an APPROVED proposal: no execution claim and no manual record while held; resumed while valid → APPROVED', async () => {
    const id = await submit('approved');
    await approve(id);
    const held = await hold(executor, id, 'The customer called: wait.');
    expect(held.proposal).toMatchObject({ state: 'ON_HOLD', heldFrom: 'APPROVED', heldBy: 'exe' });
    expect(held.proposal.approvals).toEqual([{ approver: 'rei', voidReason: null }]);

    expect((await data(executor, CLAIM_EXECUTION)).claimExecution).toMatchObject({ claimed: false });
    expect((await data(executor, MANUAL, { id })).recordManualExecution).toMatchObject({
      code: 'PROPOSAL_STATE_CONFLICT',
      message: expect.stringContaining('ON_HOLD'),
    });

    const resumed = await resume(admin, id, 'The customer confirmed.');
    expect(resumed.proposal).toMatchObject({ state: 'APPROVED', heldFrom: null });
    expect((await data(executor, CLAIM_EXECUTION)).claimExecution).toMatchObject({ claimed: true, proposal: { id } });
  });

  it('time does not expire a held proposal; resuming after its approval lapsed makes it EXPIRED, approvals void (fails closed)', async () => {
    const id = await submit('lapsing');
    const approved = await approve(id);
    await hold(kai, id);
    await server.settle();
    server.clock.advance(new Date(approved.approvalExpiresAt).getTime() - server.clock.now().getTime() + MINUTE);
    await server.settle();
    expect((await proposal(id)).state).toBe('ON_HOLD');
    expect((await proposal(id)).blockedReason).toMatch(/return to EXPIRED \(its approval or deadline has passed meanwhile\)/);

    const resumed = await resume(admin, id);
    expect(resumed.proposal).toMatchObject({
      state: 'EXPIRED',
      stateReason: 'The approval expired while it was on hold.',
      approvals: [{ approver: 'rei', voidReason: 'EXPIRED' }],
    });
    const types = resumed.proposal.history.edges.map((edge: any) => edge.node.type);
    expect(types.slice(-2)).toEqual(['PROPOSAL_RESUMED', 'PROPOSAL_EXPIRED']);
    const expired = resumed.proposal.history.edges.at(-1).node;
    expect(expired).toMatchObject({ actor: 'boss', details: { from: 'ON_HOLD', why: 'APPROVAL_VALIDITY', voidedApprovals: 1 } });
  });

  it('a pending proposal whose deadline passed while held resumes to EXPIRED', async () => {
    const id = await submit('deadline', new Date(server.clock.now().getTime() + 10 * MINUTE));
    await hold(kai, id);
    await server.settle();
    server.clock.advance(11 * MINUTE);
    await server.settle();
    expect((await proposal(id)).state).toBe('ON_HOLD');
    expect((await resume(admin, id)).proposal).toMatchObject({
      state: 'EXPIRED',
      stateReason: 'The deadline passed while it was on hold.',
    });
  });

  it('a held proposal may still be cancelled, or made STALE by a changed target; final ones cannot be held', async () => {
    const cancelled = await submit('cancelled');
    await hold(kai, cancelled);
    expect((await data(agent, CANCEL, { id: cancelled })).cancelProposal.proposal).toMatchObject({
      state: 'CANCELLED',
      heldFrom: null,
      heldBy: null,
    });
    expect(await hold(kai, cancelled)).toMatchObject({ code: 'PROPOSAL_STATE_CONFLICT', message: expect.stringContaining('final') });

    const stale = await submit('stale');
    await approve(stale);
    await hold(kai, stale);
    expect((await data(executor, REPORT_STATE, { recordId: 'stale' })).reportTargetState).toMatchObject({
      __typename: 'ReportTargetStatePayload',
    });
    expect(await proposal(stale)).toMatchObject({ state: 'STALE', heldFrom: null, approvals: [{ approver: 'rei', voidReason: 'STALE' }] });
  });

  it('pushes PROPOSAL_HELD and PROPOSAL_RESUMED to subscribers as they happen', async () => {
    const id = await submit('live');
    const viewer = await server.as('hold-viewer', ['VIEWER']);
    const ws = await connectWs(server.url, viewer.headers);
    try {
      // Replayed from the start of the history, then live: no wait for the subscription to be in place.
      const events = ws.subscribe<{ proposalEvents: { type: string; actor: string; proposal: { state: string } } }>(
        'subscription($id: ID) { proposalEvents(id: $id, afterSequence: 0) { type actor proposal { state } } }',
        { id },
      );
      await hold(kai, id);
      await resume(admin, id);
      await waitFor(
        () => events.data.length >= 3,
        5_000,
        () => JSON.stringify(events.data),
      );
      expect(events.data.map((event) => [event.proposalEvents.type, event.proposalEvents.actor])).toEqual([
        ['PROPOSAL_SUBMITTED', 'hold-agent'],
        ['PROPOSAL_HELD', 'kai'],
        ['PROPOSAL_RESUMED', 'boss'],
      ]);
    } finally {
      await ws.close();
    }
  });
});
