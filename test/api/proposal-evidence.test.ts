// Reviewer context and evidence (issue 17, item 9), through the real server over HTTP: impact, constraints and
// rule on submission (bounded, stored, part of the revision); the attempt's response and correlation id copied
// into the immutable history; a reconciliation that ends STALE or EXPIRED records PROPOSAL_STALE /
// PROPOSAL_EXPIRED too (counted by leasehold_proposal_expiries_total, seen by type-filtered readers).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';

type Body = { data?: Record<string, any> | null; errors?: { message: string }[] };

const SUBMIT = `mutation($recordId: String!, $revision: Int, $impact: String, $constraints: String, $rule: String, $fingerprint: String!) {
  submitProposal(input: { batchId: "evidence", recordId: $recordId, revision: $revision, action: "refund", parameters: { amount: 5 },
    reason: "Duplicate charge", target: { system: "billing", recordId: $recordId }, dataSource: "ledger", riskLevel: LOW,
    fingerprint: $fingerprint, impact: $impact, constraints: $constraints, rule: $rule }) {
    ... on SubmitProposalPayload { created proposal { id revision state impact constraints rule } }
    ... on UserError { code field message } } }`;
const CLAIM = `mutation($id: ID) { claimProposal(input: { id: $id, leaseSeconds: 120 }) {
  ... on ClaimProposalPayload { claimed lease { token } } ... on UserError { code message } } }`;
const DECIDE = `mutation($token: String!, $decision: ProposalReviewDecision!, $revision: Int, $reason: String) {
  reviewProposal(input: { token: $token, decision: $decision, revision: $revision, reason: $reason }) {
    ... on ReviewProposalPayload { proposal { state } } ... on UserError { code field message } } }`;
const CLAIM_EXECUTION = `mutation { claimExecution(input: { leaseSeconds: 120 }) {
  ... on ClaimExecutionPayload { claimed lease { token } proposal { id } } } }`;
const START = `mutation($token: String!, $fingerprint: String!, $correlationId: String) {
  startExecutionAttempt(input: { token: $token, fingerprint: $fingerprint, correlationId: $correlationId }) {
    ... on StartExecutionAttemptPayload { proceed } } }`;
const REPORT = `mutation($token: String!, $outcome: ExecutionOutcome!, $response: JSON, $correlationId: String) {
  reportExecutionResult(input: { token: $token, outcome: $outcome, response: $response, correlationId: $correlationId }) {
    ... on ReportExecutionResultPayload { proposal { state attempts { correlationId response }
      history(last: 1) { edges { node { type details } } } } }
    ... on UserError { code field message } } }`;
const RECONCILE = `mutation($id: ID!, $fingerprint: String!) {
  reconcileProposal(input: { id: $id, executed: false, evidence: "billing has no record of the operation id", fingerprint: $fingerprint }) {
    ... on ReconcileProposalPayload { proposal { state history(last: 2) { edges { node { type actor details } } } } }
    ... on UserError { code field message } } }`;
const EVENTS_OF_TYPE = `query($types: [EventType!]) { events(first: 50, filter: { types: $types }) { edges { node { type proposal { id } } } } }`;

describe('reviewer context and evidence', () => {
  let server: TestServer;
  let agent: TestClient;
  let rei: TestClient;
  let exa: TestClient;
  let rec: TestClient;

  beforeAll(async () => {
    server = await startTestServer();
    agent = await server.as('evidence-agent', ['PROPOSER']);
    rei = await server.as('rei', ['REVIEWER']);
    exa = await server.as('exa', ['EXECUTOR']);
    rec = await server.as('rec', ['RECONCILER']);
  });
  afterAll(() => server.stop());

  async function post(client: TestClient, query: string, variables: Record<string, unknown> = {}) {
    const body = (await (await postGraphQL(server.url, query, variables, client.headers)).json()) as Body;
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    return body.data ?? {};
  }
  const submit = async (variables: Record<string, unknown>) =>
    (await post(agent, SUBMIT, { fingerprint: 'fp-1', ...variables })).submitProposal;
  async function approve(id: string, revision = 1) {
    const lease = (await post(rei, CLAIM, { id })).claimProposal;
    expect(lease.claimed).toBe(true);
    expect((await post(rei, DECIDE, { token: lease.lease.token, decision: 'APPROVE', revision })).reviewProposal.proposal.state).toBe(
      'APPROVED',
    );
  }
  /** Approves, claims and starts it: the execution lease token. */
  async function running(recordId: string, correlationId: string | null = null): Promise<{ id: string; token: string }> {
    const { proposal } = await submit({ recordId });
    await approve(proposal.id);
    const claim = (await post(exa, CLAIM_EXECUTION)).claimExecution;
    expect(claim.proposal.id).toBe(proposal.id);
    expect((await post(exa, START, { token: claim.lease.token, fingerprint: 'fp-1', correlationId })).startExecutionAttempt.proceed).toBe(
      true,
    );
    return { id: proposal.id, token: claim.lease.token };
  }

  it('impact, constraints and rule are stored and returned, bounded, part of the revision’s content', async () => {
    const context = {
      impact: 'Refunds 5 EUR to customer C-17; their invoice 2026-118 shows 0 due afterwards.',
      constraints: 'At most one refund per invoice; never above the amount charged.',
      rule: 'Duplicate-charge rule R4: two captures of the same order within 60 s; the second is refunded.',
    };
    const first = await submit({ recordId: 'ctx-1', ...context });
    expect(first).toMatchObject({ created: true, proposal: { revision: 1, ...context } });
    // The same submission again is answered as stored; other context is other content.
    expect(await submit({ recordId: 'ctx-1', ...context })).toMatchObject({ created: false, proposal: { id: first.proposal.id } });
    expect(await submit({ recordId: 'ctx-1', ...context, constraints: 'None.' })).toMatchObject({ code: 'PROPOSAL_CONFLICT' });
    // Optional: without them, null.
    expect((await submit({ recordId: 'ctx-0' })).proposal).toMatchObject({ impact: null, constraints: null, rule: null });
    for (const field of ['impact', 'constraints', 'rule']) {
      expect(await submit({ recordId: `ctx-long-${field}`, [field]: 'x'.repeat(2001) })).toMatchObject({ code: 'INVALID_TEXT', field });
      expect(await submit({ recordId: `ctx-pad-${field}`, [field]: ' padded ' })).toMatchObject({ code: 'INVALID_TEXT', field });
    }
    expect((await submit({ recordId: 'ctx-max', impact: 'y'.repeat(2000) })).proposal.impact).toHaveLength(2000);

    // A revision may change them; revision 1 keeps its own, and approving names the revision reviewed.
    const lease = (await post(rei, CLAIM, { id: first.proposal.id })).claimProposal;
    await post(rei, DECIDE, { token: lease.lease.token, decision: 'REQUEST_CHANGES', reason: 'Say which invoice line.' });
    const second = await submit({ recordId: 'ctx-1', revision: 2, ...context, impact: 'Refunds 5 EUR on line 2 of invoice 2026-118.' });
    expect(second.proposal).toMatchObject({ revision: 2, impact: 'Refunds 5 EUR on line 2 of invoice 2026-118.', rule: context.rule });
    const firstNow = (await post(rei, `query($id: ID!) { node(id: $id) { ... on Proposal { impact state } } }`, { id: first.proposal.id }))
      .node;
    expect(firstNow).toEqual({ impact: context.impact, state: 'CHANGES_REQUESTED' });
    const again = (await post(rei, CLAIM, { id: second.proposal.id })).claimProposal;
    expect((await post(rei, DECIDE, { token: again.lease.token, decision: 'APPROVE', revision: 1 })).reviewProposal).toMatchObject({
      code: 'REVISION_MISMATCH',
    });
  });

  it('the attempt’s response and correlation id are copied into the history, not only onto the attempt', async () => {
    const { token } = await running('resp-1', 'exa-attempt-1');
    const response = { status: 'applied', refundId: 'rf-9', amount: 5 };
    const done = (await post(exa, REPORT, { token, outcome: 'SUCCEEDED', response, correlationId: 'billing-req-77' })).reportExecutionResult
      .proposal;
    expect(done.attempts).toEqual([{ correlationId: 'billing-req-77', response }]);
    const event = done.history.edges[0].node;
    expect(event.type).toBe('EXECUTION_SUCCEEDED');
    expect(event.details.correlationId).toBe('billing-req-77');
    expect(JSON.parse(event.details.response)).toEqual(response);

    // Without one in the report, the attempt's own correlation id; an oversized response is refused.
    const other = await running('resp-2', 'exa-attempt-2');
    expect(
      (await post(exa, REPORT, { token: other.token, outcome: 'UNKNOWN', response: { body: 'z'.repeat(17_000) } })).reportExecutionResult,
    ).toMatchObject({ code: 'INVALID_JSON', field: 'response' });
    const unknown = (await post(exa, REPORT, { token: other.token, outcome: 'UNKNOWN', response: 'timeout after 30 s' }))
      .reportExecutionResult.proposal;
    expect(unknown.state).toBe('OUTCOME_UNKNOWN');
    expect(unknown.history.edges[0].node).toMatchObject({
      type: 'EXECUTION_OUTCOME_UNKNOWN',
      details: { correlationId: 'exa-attempt-2', response: '"timeout after 30 s"' },
    });
  });

  it('a reconciliation that ends STALE or EXPIRED records PROPOSAL_STALE / PROPOSAL_EXPIRED too', async () => {
    const stale = await running('rec-stale');
    await post(exa, REPORT, { token: stale.token, outcome: 'UNKNOWN' });
    const staled = (await post(rec, RECONCILE, { id: stale.id, fingerprint: 'fp-2' })).reconcileProposal.proposal;
    expect(staled.state).toBe('STALE');
    expect(staled.history.edges.map((edge: any) => edge.node)).toMatchObject([
      { type: 'PROPOSAL_RECONCILED', actor: 'rec', details: { executed: false, from: 'OUTCOME_UNKNOWN' } },
      {
        type: 'PROPOSAL_STALE',
        actor: 'rec',
        details: { from: 'OUTCOME_UNKNOWN', state: 'STALE', reportedFingerprint: 'fp-2', voidedApprovals: 1, via: 'RECONCILIATION' },
      },
    ]);

    const expired = await running('rec-expired');
    await post(exa, REPORT, { token: expired.token, outcome: 'UNKNOWN' });
    server.clock.advance(25 * 3600 * 1000); // LOW approvals are valid 24 h
    const expiredNow = (await post(rec, RECONCILE, { id: expired.id, fingerprint: 'fp-1' })).reconcileProposal.proposal;
    expect(expiredNow.state).toBe('EXPIRED');
    expect(expiredNow.history.edges.map((edge: any) => edge.node)).toMatchObject([
      { type: 'PROPOSAL_RECONCILED' },
      { type: 'PROPOSAL_EXPIRED', actor: 'rec', details: { from: 'OUTCOME_UNKNOWN', state: 'EXPIRED', why: 'APPROVAL_VALIDITY' } },
    ]);

    // leasehold_proposal_expiries_total counts it (it missed expiries by reconciliation, which wrote no PROPOSAL_EXPIRED).
    const expiries = async () => {
      const text = await (await fetch(`${server.url}/metrics`, { headers: rei.headers })).text();
      return Number(/^leasehold_proposal_expiries_total (\S+)$/m.exec(text)?.[1]);
    };
    await expect.poll(expiries).toBe(1);

    // A reader filtering the history by type sees both.
    const byType = (await post(rei, EVENTS_OF_TYPE, { types: ['PROPOSAL_STALE', 'PROPOSAL_EXPIRED'] })).events.edges.map(
      (edge: any) => `${edge.node.type} ${edge.node.proposal.id}`,
    );
    expect(byType).toEqual(expect.arrayContaining([`PROPOSAL_STALE ${stale.id}`, `PROPOSAL_EXPIRED ${expired.id}`]));
  });
});
