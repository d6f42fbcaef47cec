// Auto-execution with review afterwards (issue 17, item 7), through the real server over HTTP: a policy with
// approvers: 0 for an action or risk level (never HIGH or CRITICAL: refused at start with one line) approves a
// proposal at submission (the event names the policy); it runs through the same exactly-once execution; once
// EXECUTED it waits for an approver's review (reviewExecutedProposal → PROPOSAL_REVIEWED_AFTER), listed by the
// afterReview filter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { DEFAULT_POLICIES } from '../../src/domain/proposal.js';
import { databaseUrlOf, spawnServer } from '../support/process.js';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';

type Body = { data?: Record<string, any> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] };

const SUBMIT = `mutation($recordId: String!, $action: String!, $risk: RiskLevel!) {
  submitProposal(input: { batchId: "auto", recordId: $recordId, action: $action, parameters: { sku: "A-1", quantity: 5 },
    reason: "Stock below the reorder point", target: { system: "warehouse", recordId: $recordId }, dataSource: "inventory feed",
    riskLevel: $risk, fingerprint: "fp-1" }) {
    ... on SubmitProposalPayload { created proposal { id state approvalsRequired autoApprovedBy afterReview operationId
      history(first: 10) { edges { node { type actor details } } } } }
    ... on UserError { code field message } } }`;
const CLAIM_EXECUTION = `mutation { claimExecution(input: { leaseSeconds: 120 }) {
  ... on ClaimExecutionPayload { claimed operationId lease { token } proposal { id state } } } }`;
const START = `mutation($token: String!) { startExecutionAttempt(input: { token: $token, fingerprint: "fp-1" }) {
  ... on StartExecutionAttemptPayload { proceed } } }`;
const SUCCEED = `mutation($token: String!) { reportExecutionResult(input: { token: $token, outcome: SUCCEEDED }) {
  ... on ReportExecutionResultPayload { proposal { id state afterReview } } } }`;
const REVIEW_AFTER = `mutation($id: ID!, $verdict: AfterReviewVerdict!, $comment: String) {
  reviewExecutedProposal(input: { id: $id, verdict: $verdict, comment: $comment }) {
    ... on ReviewExecutedProposalPayload { proposal { state afterReview afterReviewedBy afterReviewedAt
      history(last: 1) { edges { node { type actor details } } } } }
    ... on UserError { code field message } } }`;
const AWAITING = `{ proposals(first: 20, filter: { afterReview: [PENDING] }) { edges { node { id afterReview blockedReason } } } }`;
const CLAIM = `mutation($id: ID) { claimProposal(input: { id: $id, leaseSeconds: 120 }) { ... on ClaimProposalPayload { claimed lease { token } proposal { id } } } }`;
const APPROVE = `mutation($token: String!) { reviewProposal(input: { token: $token, decision: APPROVE, revision: 1 }) {
  ... on ReviewProposalPayload { proposal { state } } } }`;

describe('auto-execution with review afterwards', () => {
  let server: TestServer;
  let agent: TestClient;
  let rei: TestClient;
  let exa: TestClient;

  beforeAll(async () => {
    server = await startTestServer({
      config: {
        // MEDIUM: 0 for every action; restock also at LOW (its own policy wins over APPROVAL_POLICIES).
        approvalPolicies: { ...DEFAULT_POLICIES, MEDIUM: { ...DEFAULT_POLICIES.MEDIUM, approvers: 0 } },
        proposalRules: { actions: { restock: { approvers: { LOW: 0 } } }, targetStateReporters: {} },
      },
    });
    // The proposer may review too: it must still never review its own proposal afterwards.
    agent = await server.as('restock-agent', ['PROPOSER', 'REVIEWER']);
    rei = await server.as('rei', ['REVIEWER']);
    exa = await server.as('exa', ['EXECUTOR']);
  });
  afterAll(() => server.stop());

  async function post(client: TestClient, query: string, variables: Record<string, unknown> = {}) {
    const body = (await (await postGraphQL(server.url, query, variables, client.headers)).json()) as Body;
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    return body.data ?? {};
  }
  const submit = async (recordId: string, action: string, risk: string) =>
    (await post(agent, SUBMIT, { recordId, action, risk })).submitProposal;
  async function awaitingCounts() {
    const stats = (await post(rei, '{ proposalStats { awaitingReviewAfterExecution } }')).proposalStats.awaitingReviewAfterExecution;
    const text = await (await fetch(`${server.url}/metrics`, { headers: rei.headers })).text();
    const metrics = Number(/^leasehold_proposals_awaiting_review_after_execution (\S+)$/m.exec(text)?.[1]);
    return { stats, metrics };
  }
  async function execute(): Promise<string> {
    const claim = (await post(exa, CLAIM_EXECUTION)).claimExecution;
    expect(claim.claimed).toBe(true);
    expect((await post(exa, START, { token: claim.lease.token })).startExecutionAttempt.proceed).toBe(true);
    const done = (await post(exa, SUCCEED, { token: claim.lease.token })).reportExecutionResult.proposal;
    expect(done.state).toBe('EXECUTED');
    return done.id as string;
  }

  it('approves at submission only where a policy says approvers: 0, naming the policy in the event', async () => {
    const restock = await submit('sku-1', 'restock', 'LOW');
    expect(restock.proposal).toMatchObject({
      state: 'APPROVED',
      approvalsRequired: 0,
      autoApprovedBy: 'PROPOSAL_ACTIONS.restock.approvers.LOW',
      afterReview: 'NOT_NEEDED',
      operationId: expect.any(String),
    });
    const events = restock.proposal.history.edges.map((edge: any) => edge.node);
    expect(events.map((event: any) => event.type)).toEqual(['PROPOSAL_SUBMITTED', 'PROPOSAL_APPROVED']);
    expect(events[0].details.state).toBe('PENDING');
    expect(events[1]).toMatchObject({
      actor: 'system',
      details: { from: 'PENDING', state: 'APPROVED', policy: 'PROPOSAL_ACTIONS.restock.approvers.LOW', approvals: 0, approvalsRequired: 0 },
    });

    // A risk level whose policy says 0, for any action.
    expect((await submit('inv-2', 'refund', 'MEDIUM')).proposal).toMatchObject({
      state: 'APPROVED',
      autoApprovedBy: 'APPROVAL_POLICIES.MEDIUM',
    });
    // Neither: approved by people first.
    expect((await submit('inv-3', 'refund', 'LOW')).proposal).toMatchObject({
      state: 'PENDING',
      approvalsRequired: 1,
      autoApprovedBy: null,
    });
    // HIGH is never auto-approved, whatever the action.
    expect((await submit('sku-4', 'restock', 'HIGH')).proposal).toMatchObject({ state: 'PENDING', approvalsRequired: 2 });
  });

  it('runs through the same exactly-once claim: of 12 simultaneous claims one wins', async () => {
    // Drain what the previous test approved (each stays EXECUTING under its lease), so the race is about one proposal.
    for (let n = 0; n < 10 && (await post(exa, CLAIM_EXECUTION)).claimExecution.claimed; n++);
    const { proposal } = await submit('sku-race', 'restock', 'LOW');
    const executors = await Promise.all(Array.from({ length: 12 }, (_, n) => server.as(`racer-${n}`, ['EXECUTOR'])));
    const claims = await Promise.all(executors.map((client) => post(client, CLAIM_EXECUTION)));
    const won = claims.filter((data) => data.claimExecution.claimed);
    expect(won).toHaveLength(1);
    expect(won[0]?.claimExecution).toMatchObject({ operationId: proposal.operationId, proposal: { id: proposal.id, state: 'EXECUTING' } });
  });

  it('once EXECUTED it awaits an approver’s review afterwards (not its proposer’s), listed by the filter; reviewed once', async () => {
    const { proposal } = await submit('sku-5', 'restock', 'LOW');
    expect((await post(rei, AWAITING)).proposals.edges).toEqual([]);
    const id = await execute();
    expect(id).toBe(proposal.id);
    expect((await post(rei, AWAITING)).proposals.edges).toEqual([
      { node: { id, afterReview: 'PENDING', blockedReason: expect.stringContaining('reviews it afterwards (reviewExecutedProposal') } },
    ]);
    // Counted for the queue's statistics and /metrics, like the other queues waiting for people.
    expect(await awaitingCounts()).toEqual({ stats: 1, metrics: 1 });

    expect((await post(agent, REVIEW_AFTER, { id, verdict: 'CONFIRMED' })).reviewExecutedProposal).toMatchObject({
      code: 'SELF_APPROVAL',
      field: 'id',
    });
    expect((await post(rei, REVIEW_AFTER, { id, verdict: 'PROBLEM' })).reviewExecutedProposal).toMatchObject({
      code: 'INVALID_TEXT',
      field: 'comment',
    });
    const reviewed = (
      await post(rei, REVIEW_AFTER, { id, verdict: 'PROBLEM', comment: 'Ordered twice: sku-5 already had a pending order.' })
    ).reviewExecutedProposal.proposal;
    expect(reviewed).toMatchObject({
      state: 'EXECUTED',
      afterReview: 'PROBLEM',
      afterReviewedBy: 'rei',
      afterReviewedAt: expect.any(String),
    });
    expect(reviewed.history.edges[0].node).toMatchObject({
      type: 'PROPOSAL_REVIEWED_AFTER',
      actor: 'rei',
      details: {
        reviewer: 'rei',
        verdict: 'PROBLEM',
        comment: 'Ordered twice: sku-5 already had a pending order.',
        from: 'PENDING',
        policy: 'PROPOSAL_ACTIONS.restock.approvers.LOW',
      },
    });
    expect((await post(rei, AWAITING)).proposals.edges).toEqual([]);
    expect(await awaitingCounts()).toEqual({ stats: 0, metrics: 0 });
    expect((await post(rei, REVIEW_AFTER, { id, verdict: 'CONFIRMED' })).reviewExecutedProposal).toMatchObject({
      code: 'PROPOSAL_STATE_CONFLICT',
      message: expect.stringContaining('already reviewed after execution (PROBLEM)'),
    });
  });

  it('a proposal people approved before execution needs no review afterwards, nor does one not yet executed', async () => {
    const auto = (await submit('sku-6', 'restock', 'LOW')).proposal;
    expect((await post(rei, REVIEW_AFTER, { id: auto.id, verdict: 'CONFIRMED' })).reviewExecutedProposal).toMatchObject({
      code: 'PROPOSAL_STATE_CONFLICT',
      message: expect.stringContaining('it is APPROVED'),
    });

    const manual = (await submit('inv-7', 'refund', 'LOW')).proposal;
    const lease = (await post(rei, CLAIM, { id: manual.id })).claimProposal;
    expect(lease.proposal.id).toBe(manual.id);
    expect((await post(rei, APPROVE, { token: lease.lease.token })).reviewProposal.proposal.state).toBe('APPROVED');
    // Executors take the earliest approval expiry first: run both, then look at the one people approved.
    await execute();
    await execute();
    const after = (await post(rei, `query($id: ID!) { node(id: $id) { ... on Proposal { state afterReview } } }`, { id: manual.id })).node;
    expect(after).toEqual({ state: 'EXECUTED', afterReview: 'NOT_NEEDED' });
    expect((await post(rei, REVIEW_AFTER, { id: manual.id, verdict: 'CONFIRMED' })).reviewExecutedProposal).toMatchObject({
      code: 'PROPOSAL_STATE_CONFLICT',
      message: expect.stringContaining('needs no review after execution'),
    });
    const confirmed = (await post(rei, REVIEW_AFTER, { id: auto.id, verdict: 'CONFIRMED' })).reviewExecutedProposal.proposal;
    expect(confirmed).toMatchObject({ afterReview: 'CONFIRMED' });
    expect(confirmed.history.edges[0].node.details).toMatchObject({ verdict: 'CONFIRMED', comment: null });
  });
});

describe('review after execution, whichever path executed it', () => {
  let server: TestServer;
  let agent: TestClient;
  let exa: TestClient;
  let rec: TestClient;
  beforeAll(async () => {
    server = await startTestServer({
      config: { proposalRules: { actions: { restock: { approvers: { LOW: 0 } } }, targetStateReporters: {} } },
    });
    agent = await server.as('restock-agent', ['PROPOSER']);
    exa = await server.as('exa', ['EXECUTOR']);
    rec = await server.as('rec', ['RECONCILER']);
  });
  afterAll(() => server.stop());

  async function post(client: TestClient, query: string, variables: Record<string, unknown> = {}) {
    const body = (await (await postGraphQL(server.url, query, variables, client.headers)).json()) as Body;
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    return body.data ?? {};
  }

  it('a manual execution and a reconciliation that finds it executed both queue it for review afterwards', async () => {
    const byHand = (await post(agent, SUBMIT, { recordId: 'sku-hand', action: 'restock', risk: 'LOW' })).submitProposal.proposal;
    const recorded = (
      await post(
        exa,
        `mutation($id: ID!) { recordManualExecution(input: { id: $id, fingerprint: "fp-1", reason: "warehouse system down",
          evidence: "ordered by phone, PO 4471" }) { ... on RecordManualExecutionPayload { proposal { state afterReview } } } }`,
        { id: byHand.id },
      )
    ).recordManualExecution.proposal;
    expect(recorded).toEqual({ state: 'EXECUTED', afterReview: 'PENDING' });

    const lost = (await post(agent, SUBMIT, { recordId: 'sku-lost', action: 'restock', risk: 'LOW' })).submitProposal.proposal;
    const claim = (await post(exa, CLAIM_EXECUTION)).claimExecution;
    expect(claim.proposal.id).toBe(lost.id);
    await post(exa, START, { token: claim.lease.token });
    await post(exa, `mutation($token: String!) { reportExecutionResult(input: { token: $token, outcome: UNKNOWN }) { __typename } }`, {
      token: claim.lease.token,
    });
    const reconciled = (
      await post(
        rec,
        `mutation($id: ID!) { reconcileProposal(input: { id: $id, executed: true, evidence: "PO 4472 exists" }) {
          ... on ReconcileProposalPayload { proposal { state afterReview } } } }`,
        { id: lost.id },
      )
    ).reconcileProposal.proposal;
    expect(reconciled).toEqual({ state: 'EXECUTED', afterReview: 'PENDING' });
  });
});

describe('approvers: 0 settings', () => {
  it('take 0 for LOW and MEDIUM, and refuse it for HIGH and CRITICAL with one line', () => {
    expect(
      loadConfig({ APPROVAL_POLICIES: '{"LOW":{"approvers":0,"validitySeconds":600,"executorMustDifferFromApprovers":false}}' })
        .approvalPolicies.LOW,
    ).toEqual({ approvers: 0, validitySeconds: 600, executorMustDifferFromApprovers: false });
    expect(loadConfig({ PROPOSAL_ACTIONS: '{"restock":{"approvers":{"LOW":0,"MEDIUM":0}}}' }).proposalRules.actions).toEqual({
      restock: { approvers: { LOW: 0, MEDIUM: 0 } },
    });
    const bad: [Record<string, string>, RegExp][] = [
      [
        { APPROVAL_POLICIES: '{"HIGH":{"approvers":0,"validitySeconds":600,"executorMustDifferFromApprovers":true}}' },
        /^Invalid configuration: APPROVAL_POLICIES: HIGH\.approvers: HIGH and CRITICAL always need at least one approver/,
      ],
      [
        { APPROVAL_POLICIES: '{"CRITICAL":{"approvers":0,"validitySeconds":600,"executorMustDifferFromApprovers":true}}' },
        /^Invalid configuration: APPROVAL_POLICIES: CRITICAL\.approvers: HIGH and CRITICAL always need at least one approver/,
      ],
      [
        { PROPOSAL_ACTIONS: '{"restock":{"approvers":{"HIGH":0}}}' },
        /^Invalid configuration: PROPOSAL_ACTIONS: restock\.approvers\.HIGH: HIGH and CRITICAL always need at least one approver/,
      ],
      [{ PROPOSAL_ACTIONS: '{"restock":{"approvers":{"LOW":-1}}}' }, /^Invalid configuration: PROPOSAL_ACTIONS: restock\.approvers\.LOW: /],
      [{ PROPOSAL_ACTIONS: '{"restock":{"approvers":{"SEVERE":0}}}' }, /^Invalid configuration: PROPOSAL_ACTIONS: restock\.approvers: /],
    ];
    for (const [env, message] of bad) {
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(message);
      try {
        loadConfig(env);
      } catch (error) {
        expect((error as Error).message).not.toContain('\n');
      }
    }
  });

  it('a HIGH policy with approvers: 0 ends the server’s start with one line', async () => {
    const child = spawnServer({
      PORT: '0',
      DATABASE_URL: databaseUrlOf(`${process.env.TMPDIR ?? '/tmp'}/auto-never-made-${process.pid}.db`),
      PROPOSAL_ACTIONS: '{"payout":{"approvers":{"CRITICAL":0}}}',
    });
    try {
      expect(await child.exited).toBe(1);
      expect(child.stderr).toHaveLength(1);
      expect(JSON.parse(child.stderr[0] as string).msg).toMatch(
        /^Invalid configuration: PROPOSAL_ACTIONS: payout\.approvers\.CRITICAL: HIGH and CRITICAL always need at least one approver/,
      );
    } finally {
      await child.kill();
    }
  });
});
