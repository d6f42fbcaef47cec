// Action proposals through the GraphQL API, as an agent, reviewers, executors and an admin use them:
// approve → execute exactly once; stale data before execution; a lost response reconciled; live events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';
import { connectWs, waitFor } from '../support/ws.js';

type Body = { data?: Record<string, any> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] };

async function run(client: TestClient, url: string, query: string, variables: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const body = (await (await postGraphQL(url, query, variables, client.headers)).json()) as Body;
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data ?? {};
}

const SUBMIT = `mutation($recordId: String!, $risk: RiskLevel!, $fingerprint: String!, $revision: Int) {
  submitProposal(input: { batchId: "refunds", recordId: $recordId, revision: $revision, action: "refund", parameters: { invoice: "inv-7", amount: 120 },
    reason: "Duplicate charge", target: { system: "billing", recordId: $recordId }, currentValue: { paid: 240 }, proposedValue: { paid: 120 },
    dataSource: "ledger export 2026-11-30", riskLevel: $risk, fingerprint: $fingerprint }) {
    ... on SubmitProposalPayload { created proposal { id state revision approvalsRequired blockedReason } }
    ... on UserError { code field message }
  }
}`;
const CLAIM = `mutation { claimProposal(input: { leaseSeconds: 120 }) {
  ... on ClaimProposalPayload { claimed proposal { id revision fingerprint parameters } lease { token holder kind } }
  ... on UserError { code message } } }`;
const REVIEW = `mutation($token: String!, $decision: ProposalReviewDecision!, $revision: Int, $reason: String) {
  reviewProposal(input: { token: $token, decision: $decision, revision: $revision, reason: $reason }) {
    ... on ReviewProposalPayload { proposal { state approvalsRequired approvals { approver } operationId blockedReason } }
    ... on UserError { code field message } } }`;
const CLAIM_EXECUTION = `mutation { claimExecution(input: { leaseSeconds: 60 }) {
  ... on ClaimExecutionPayload { claimed operationId lease { token kind } proposal { id state } }
  ... on UserError { code message } } }`;
const START = `mutation($token: String!, $fingerprint: String!) { startExecutionAttempt(input: { token: $token, fingerprint: $fingerprint, correlationId: "corr-1" }) {
  ... on StartExecutionAttemptPayload { proceed proposal { state stateReason } attempt { number operationId } }
  ... on UserError { code message } } }`;
const REPORT = `mutation($token: String!, $outcome: ExecutionOutcome!) { reportExecutionResult(input: { token: $token, outcome: $outcome, response: { status: 202 } }) {
  ... on ReportExecutionResultPayload { proposal { state blockedReason attempts { number outcome response } } }
  ... on UserError { code message } } }`;

describe('action proposals over GraphQL', () => {
  let server: TestServer;
  let agent: TestClient;
  let reviewer: TestClient;
  let executor: TestClient;
  let admin: TestClient;
  let reconciler: TestClient;
  beforeAll(async () => {
    server = await startTestServer();
    agent = await server.as('billing-agent', ['PROPOSER', 'REVIEWER']);
    reviewer = await server.as('rei', ['REVIEWER']);
    executor = await server.as('exa', ['EXECUTOR']);
    admin = await server.as('root', ['ADMIN']);
    reconciler = await server.as('ops-reconciler', ['RECONCILER']);
  });
  afterAll(() => server.stop());

  it('goes from submission to one execution, with the operation id kept and every step in the history', async () => {
    const submitted = await run(agent, server.url, SUBMIT, { recordId: 'happy', risk: 'LOW', fingerprint: 'fp-a' });
    expect(submitted.submitProposal).toMatchObject({ created: true, proposal: { state: 'PENDING', revision: 1, approvalsRequired: 1 } });
    expect(submitted.submitProposal.proposal.blockedReason).toContain('Waiting for a reviewer');
    // The same submission again is the same proposal (idempotent intake).
    const again = await run(agent, server.url, SUBMIT, { recordId: 'happy', risk: 'LOW', fingerprint: 'fp-a' });
    expect(again.submitProposal).toMatchObject({ created: false, proposal: { id: submitted.submitProposal.proposal.id } });

    // The proposer also reviews, but never its own proposal.
    expect((await run(agent, server.url, CLAIM)).claimProposal).toMatchObject({ claimed: false });
    const claim = (await run(reviewer, server.url, CLAIM)).claimProposal;
    expect(claim).toMatchObject({
      claimed: true,
      proposal: { revision: 1, parameters: { invoice: 'inv-7', amount: 120 } },
      lease: { holder: 'rei', kind: 'REVIEW' },
    });

    const wrongRevision = await run(reviewer, server.url, REVIEW, { token: claim.lease.token, decision: 'APPROVE', revision: 2 });
    expect(wrongRevision.reviewProposal).toMatchObject({
      code: 'REVISION_MISMATCH',
      field: 'revision',
      message: 'You reviewed revision 2, but the proposal is revision 1; look at it again.',
    });
    const approved = (await run(reviewer, server.url, REVIEW, { token: claim.lease.token, decision: 'APPROVE', revision: 1 }))
      .reviewProposal;
    expect(approved.proposal).toMatchObject({ state: 'APPROVED', approvals: [{ approver: 'rei' }] });
    const operationId = approved.proposal.operationId as string;
    expect(operationId).toMatch(/^[0-9a-f-]{36}$/);

    const execution = (await run(executor, server.url, CLAIM_EXECUTION)).claimExecution;
    expect(execution).toMatchObject({ claimed: true, operationId, lease: { kind: 'EXECUTION' }, proposal: { state: 'EXECUTING' } });
    const started = (await run(executor, server.url, START, { token: execution.lease.token, fingerprint: 'fp-a' })).startExecutionAttempt;
    expect(started).toMatchObject({ proceed: true, attempt: { number: 1, operationId } });
    // No blind re-send: a second attempt waits for the first one's result.
    expect(
      (await run(executor, server.url, START, { token: execution.lease.token, fingerprint: 'fp-a' })).startExecutionAttempt,
    ).toMatchObject({
      code: 'ATTEMPT_IN_PROGRESS',
    });
    const done = (await run(executor, server.url, REPORT, { token: execution.lease.token, outcome: 'SUCCEEDED' })).reportExecutionResult;
    expect(done.proposal).toMatchObject({
      state: 'EXECUTED',
      blockedReason: null,
      attempts: [{ number: 1, outcome: 'SUCCEEDED', response: { status: 202 } }],
    });

    const history = await run(
      admin,
      server.url,
      'query($id: ID!) { node(id: $id) { ... on Proposal { history(first: 20) { edges { node { type actor details } } } } } }',
      { id: submitted.submitProposal.proposal.id },
    );
    expect(
      history.node.history.edges.map((edge: { node: { type: string; actor: string } }) => `${edge.node.type}:${edge.node.actor}`),
    ).toEqual([
      'PROPOSAL_SUBMITTED:billing-agent',
      'PROPOSAL_LEASE_CLAIMED:rei',
      'PROPOSAL_APPROVAL_RECORDED:rei',
      'PROPOSAL_APPROVED:rei',
      'EXECUTION_CLAIMED:exa',
      'EXECUTION_ATTEMPT_STARTED:exa',
      'EXECUTION_SUCCEEDED:exa',
    ]);
    // Every event that moves the proposal to another state names the state it left (`from`).
    const details = history.node.history.edges.map((edge: { node: { type: string; details: Record<string, unknown> } }) => ({
      type: edge.node.type,
      ...edge.node.details,
    }));
    for (const [index, event] of details.entries()) {
      const before = details[index - 1];
      if (before && event.state !== before.state) expect(event, event.type).toMatchObject({ from: before.state });
    }
    expect(details.find((event: { type: string }) => event.type === 'PROPOSAL_APPROVED')).toMatchObject({
      from: 'PENDING',
      state: 'APPROVED',
    });
  });

  it('refuses oversized JSON and unknown proposals with coded errors, changing nothing', async () => {
    const big = { blob: 'x'.repeat(17_000) };
    const body = (await (
      await postGraphQL(
        server.url,
        `mutation($p: JSONObject!) { submitProposal(input: { batchId: "b", recordId: "big", action: "a", parameters: $p, reason: "r",
          target: { system: "s", recordId: "i" }, dataSource: "d", riskLevel: LOW, fingerprint: "f" }) { ... on UserError { code field } } }`,
        { p: big },
        agent.headers,
      )
    ).json()) as Body;
    expect(body.data?.submitProposal).toEqual({ code: 'INVALID_JSON', field: 'parameters' });
    expect(await server.db.read.proposal.count({ where: { recordId: 'big' } })).toBe(0);
    const unknown = Buffer.from('Proposal:424242').toString('base64');
    const cancel = await run(
      admin,
      server.url,
      'mutation($id: ID!) { cancelProposal(input: { id: $id, reason: "r" }) { ... on UserError { code field } } }',
      { id: unknown },
    );
    expect(cancel.cancelProposal).toEqual({ code: 'PROPOSAL_NOT_FOUND', field: 'id' });
  });

  it('gives an approved proposal to exactly one of many executors claiming at once', async () => {
    await run(agent, server.url, SUBMIT, { recordId: 'race', risk: 'LOW', fingerprint: 'fp-r' });
    const claim = (await run(reviewer, server.url, CLAIM)).claimProposal;
    await run(reviewer, server.url, REVIEW, { token: claim.lease.token, decision: 'APPROVE', revision: 1 });
    const executors = await Promise.all(Array.from({ length: 12 }, (_, n) => server.as(`racer-${n}`, ['EXECUTOR'])));
    const results = await Promise.all(executors.map((client) => run(client, server.url, CLAIM_EXECUTION)));
    expect(results.filter((result) => result.claimExecution.claimed)).toHaveLength(1);
  });

  it('stops before execution when the data changed, and voids the approval', async () => {
    await run(agent, server.url, SUBMIT, { recordId: 'stale', risk: 'LOW', fingerprint: 'fp-old' });
    const claim = (await run(reviewer, server.url, CLAIM)).claimProposal;
    await run(reviewer, server.url, REVIEW, { token: claim.lease.token, decision: 'APPROVE', revision: 1 });
    const execution = (await run(executor, server.url, CLAIM_EXECUTION)).claimExecution;
    const started = (await run(executor, server.url, START, { token: execution.lease.token, fingerprint: 'fp-new' })).startExecutionAttempt;
    expect(started).toMatchObject({ proceed: false, attempt: null, proposal: { state: 'STALE' } });
    expect(started.proposal.stateReason).toContain('fp-new');
    // Revision 2, made against the new data, is reviewed from scratch.
    const revised = (await run(agent, server.url, SUBMIT, { recordId: 'stale', risk: 'LOW', fingerprint: 'fp-new', revision: 2 }))
      .submitProposal;
    expect(revised).toMatchObject({ created: true, proposal: { state: 'PENDING', revision: 2 } });
    // The proposer withdraws it again; someone else may not.
    const cancel =
      'mutation($id: ID!) { cancelProposal(input: { id: $id, reason: "Superseded" }) { ... on CancelProposalPayload { proposal { state stateReason } } ... on UserError { code } } }';
    expect(
      (await run(await server.as('other-agent', ['PROPOSER']), server.url, cancel, { id: revised.proposal.id })).cancelProposal,
    ).toEqual({ code: 'NOT_PROPOSER' });
    expect((await run(agent, server.url, cancel, { id: revised.proposal.id })).cancelProposal).toEqual({
      proposal: { state: 'CANCELLED', stateReason: 'Superseded' },
    });
  });

  it('blocks a lost response as OUTCOME_UNKNOWN until a reconciler reconciles it; re-checked, it runs again under the same operation id', async () => {
    await run(agent, server.url, SUBMIT, { recordId: 'lost', risk: 'LOW', fingerprint: 'fp-l' });
    const claim = (await run(reviewer, server.url, CLAIM)).claimProposal;
    const approved = (await run(reviewer, server.url, REVIEW, { token: claim.lease.token, decision: 'APPROVE', revision: 1 }))
      .reviewProposal;
    const first = (await run(executor, server.url, CLAIM_EXECUTION)).claimExecution;
    await run(executor, server.url, START, { token: first.lease.token, fingerprint: 'fp-l' });
    const unknown = (await run(executor, server.url, REPORT, { token: first.lease.token, outcome: 'UNKNOWN' })).reportExecutionResult;
    expect(unknown.proposal.state).toBe('OUTCOME_UNKNOWN');
    expect(unknown.proposal.blockedReason).toContain('reconcile');
    // Never re-run automatically: no executor gets it.
    expect((await run(await server.as('exb', ['EXECUTOR']), server.url, CLAIM_EXECUTION)).claimExecution).toMatchObject({ claimed: false });

    const id = claim.proposal.id;
    const forbidden = (await (
      await postGraphQL(
        server.url,
        'mutation($id: ID!) { reconcileProposal(input: { id: $id, executed: false, evidence: "x", fingerprint: "fp-l" }) { __typename } }',
        { id },
        executor.headers,
      )
    ).json()) as Body;
    expect(forbidden.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const reconciled = await run(
      reconciler,
      server.url,
      'mutation($id: ID!) { reconcileProposal(input: { id: $id, executed: false, evidence: "billing has no request with this operation id", fingerprint: "fp-l" }) { ... on ReconcileProposalPayload { proposal { state operationId } } } }',
      { id },
    );
    expect(reconciled.reconcileProposal.proposal).toEqual({ state: 'APPROVED', operationId: approved.proposal.operationId });
    const second = (await run(executor, server.url, CLAIM_EXECUTION)).claimExecution;
    expect(second).toMatchObject({ claimed: true, operationId: approved.proposal.operationId });
    const retry = (await run(executor, server.url, START, { token: second.lease.token, fingerprint: 'fp-l' })).startExecutionAttempt;
    expect(retry.attempt).toEqual({ number: 2, operationId: approved.proposal.operationId });
  });

  it('lets an executor ask only for what it can run; a remote refusal is FAILED and may be revised', async () => {
    await run(agent, server.url, SUBMIT, { recordId: 'filtered', risk: 'LOW', fingerprint: 'fp-f' });
    const claim = (await run(reviewer, server.url, CLAIM)).claimProposal;
    await run(reviewer, server.url, REVIEW, { token: claim.lease.token, decision: 'APPROVE', revision: 1 });
    const only = (filter: string) =>
      `mutation { claimExecution(input: { ${filter} }) { ... on ClaimExecutionPayload { claimed lease { token } proposal { recordId } } } }`;
    expect((await run(executor, server.url, only('actions: ["close-account"]'))).claimExecution).toMatchObject({ claimed: false });
    expect((await run(executor, server.url, only('targetSystems: ["crm"]'))).claimExecution).toMatchObject({ claimed: false });
    const mine = (await run(executor, server.url, only('actions: ["refund"], targetSystems: ["billing"]'))).claimExecution;
    expect(mine).toMatchObject({ claimed: true, proposal: { recordId: 'filtered' } });
    await run(executor, server.url, START, { token: mine.lease.token, fingerprint: 'fp-f' });
    const refused = (await run(executor, server.url, REPORT, { token: mine.lease.token, outcome: 'REJECTED_BY_REMOTE' }))
      .reportExecutionResult;
    expect(refused.proposal.state).toBe('FAILED');
    const revised = (await run(agent, server.url, SUBMIT, { recordId: 'filtered', risk: 'LOW', fingerprint: 'fp-f2', revision: 2 }))
      .submitProposal;
    expect(revised).toMatchObject({ created: true, proposal: { state: 'PENDING', revision: 2 } });
    const cancel = 'mutation($id: ID!) { cancelProposal(input: { id: $id, reason: "Not needed" }) { __typename } }';
    await run(agent, server.url, cancel, { id: revised.proposal.id });
  });

  it('reports queue statistics: by state, waiting, and what needs an admin', async () => {
    const stats = (
      await run(reviewer, server.url, '{ proposalStats { byState { key count } needingReconciliation executionFailures approved } }')
    ).proposalStats;
    const byState = Object.fromEntries(stats.byState.map((entry: { key: string; count: number }) => [entry.key, entry.count]));
    // happy: EXECUTED; race: EXECUTING; stale: STALE and its revision CANCELLED; lost: EXECUTING again;
    // filtered: FAILED and its revision CANCELLED.
    expect(byState).toMatchObject({ EXECUTED: 1, EXECUTING: 2, STALE: 1, CANCELLED: 2, FAILED: 1, OUTCOME_UNKNOWN: 0 });
    expect(stats).toMatchObject({ needingReconciliation: 0, executionFailures: 1, approved: 5 });
  });

  it('pushes proposal events to subscribers as they happen', async () => {
    const viewer = await server.as('dash', ['VIEWER']);
    const ws = await connectWs(server.url, viewer.headers);
    try {
      const events = ws.subscribe<{ proposalEvents: { type: string; proposal: { state: string } } }>(
        'subscription { proposalEvents { type actor proposal { state } } }',
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      await run(agent, server.url, SUBMIT, { recordId: 'live', risk: 'HIGH', fingerprint: 'fp-v' });
      const claim = (await run(reviewer, server.url, CLAIM)).claimProposal;
      await run(reviewer, server.url, REVIEW, { token: claim.lease.token, decision: 'REJECT', reason: 'Not a duplicate' });
      await waitFor(() => events.data.length >= 3);
      expect(events.data.map((event) => event.proposalEvents.type)).toEqual([
        'PROPOSAL_SUBMITTED',
        'PROPOSAL_LEASE_CLAIMED',
        'PROPOSAL_REJECTED',
      ]);
    } finally {
      await ws.close();
    }
  });
  it('takes the target as recordId, or by its deprecated old name id, never both or neither', async () => {
    const submit = (recordId: string, target: string) => `mutation { submitProposal(input: { batchId: "targets", recordId: "${recordId}",
      action: "refund", parameters: {}, reason: "r", target: ${target}, dataSource: "d", riskLevel: LOW, fingerprint: "f" }) {
      ... on SubmitProposalPayload { proposal { target { system recordId } } } ... on UserError { code field } } }`;
    const old = await run(agent, server.url, submit('old-name', '{ system: "crm", id: "c-1" }'));
    expect(old.submitProposal).toEqual({ proposal: { target: { system: 'crm', recordId: 'c-1' } } });
    const both = await run(agent, server.url, submit('both', '{ system: "crm", id: "c-1", recordId: "c-1" }'));
    expect(both.submitProposal).toEqual({ code: 'INVALID_ARGUMENT', field: 'target.recordId' });
    const neither = await run(agent, server.url, submit('neither', '{ system: "crm" }'));
    expect(neither.submitProposal).toEqual({ code: 'INVALID_ARGUMENT', field: 'target.recordId' });
  });
});
