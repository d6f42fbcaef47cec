// The manual path that prevents parallel execution (issue 17, item 1), over HTTP against two real servers on
// one database: an operator's claimManualExecution races ten executors' claimExecution and exactly one wins;
// the manual lease then runs the same attempt and result as automation; a record of something already done
// by hand whose checks no longer hold ends OUTCOME_UNKNOWN, its reason kept apart from its evidence.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, testDatabase } from '../support/database.js';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';

type Body = { data?: Record<string, any> | null; errors?: { message: string }[] };

async function run(client: TestClient, url: string, query: string, variables: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const body = (await (await postGraphQL(url, query, variables, client.headers)).json()) as Body;
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data ?? {};
}

const SUBMIT = `mutation($recordId: String!, $fingerprint: String!) {
  submitProposal(input: { batchId: "manual", recordId: $recordId, action: "refund", parameters: { invoice: $recordId },
    reason: "Duplicate charge", target: { system: "billing", recordId: $recordId }, currentValue: { paid: 240 }, proposedValue: { paid: 120 },
    dataSource: "ledger", riskLevel: LOW, fingerprint: $fingerprint }) {
    ... on SubmitProposalPayload { proposal { id } }
    ... on UserError { code message } } }`;
const CLAIM = `mutation($id: ID!) { claimProposal(input: { id: $id, leaseSeconds: 120 }) {
  ... on ClaimProposalPayload { lease { token } } ... on UserError { code message } } }`;
const APPROVE = `mutation($token: String!) { reviewProposal(input: { token: $token, decision: APPROVE, revision: 1 }) {
  ... on ReviewProposalPayload { proposal { state operationId } } ... on UserError { code message } } }`;
const CLAIM_EXECUTION = `mutation { claimExecution(input: { leaseSeconds: 60 }) {
  ... on ClaimExecutionPayload { claimed proposal { id } lease { token } } ... on UserError { code message } } }`;
const CLAIM_MANUAL = `mutation($id: ID!, $reason: String!) { claimManualExecution(input: { id: $id, reason: $reason, leaseSeconds: 600 }) {
  ... on ClaimManualExecutionPayload { operationId proposal { id state leaseKind claimedBy } lease { token claimedBy } }
  ... on UserError { code field message } } }`;
const START = `mutation($token: String!, $fingerprint: String!) { startExecutionAttempt(input: { token: $token, fingerprint: $fingerprint }) {
  ... on StartExecutionAttemptPayload { proceed attempt { number operationId } } ... on UserError { code message } } }`;
const REPORT = `mutation($token: String!) { reportExecutionResult(input: { token: $token, outcome: SUCCEEDED, response: { ticket: "OPS-9" } }) {
  ... on ReportExecutionResultPayload { proposal { state } } ... on UserError { code message } } }`;
const RECORD = `mutation($id: ID!, $fingerprint: String!) {
  recordManualExecution(input: { id: $id, fingerprint: $fingerprint, reason: "Billing API down since 08:40.", evidence: "Refunded in the billing console, ticket OPS-12." }) {
    ... on RecordManualExecutionPayload { proposal { state stateReason blockedReason } }
    ... on UserError { code field message } } }`;
const SUBMIT_SIBLING = SUBMIT.replace('batchId: "manual"', 'batchId: "manual-sibling"');
const RECORD_AFTER = `mutation($id: ID!, $fingerprint: String!, $after: String) {
  recordManualExecution(input: { id: $id, fingerprint: $fingerprint, fingerprintAfter: $after, reason: "Billing API down.", evidence: "Refunded in the console, ticket OPS-14." }) {
    ... on RecordManualExecutionPayload { proposal { state } }
    ... on UserError { code field message } } }`;
const TARGET_STATE = `query($recordId: String!) { targetState(system: "billing", recordId: $recordId) { fingerprint reportedBy source } }`;
const STATE = `query($id: ID!) { node(id: $id) { ... on Proposal { state stateReason } } }`;
const HISTORY = `query($id: ID!) { node(id: $id) { ... on Proposal { history(first: 20) { edges { node { type actor details } } } } } }`;

describe('manual execution, reserved like automation’s (two servers, one database)', () => {
  let database: TestDatabase;
  let one: TestServer;
  let two: TestServer;
  let agent: TestClient;
  let reviewer: TestClient;
  let operator: TestClient;
  let executors: { client: TestClient; url: string }[];
  beforeAll(async () => {
    database = await testDatabase();
    one = await startTestServer({ database });
    two = await startTestServer({ database });
    agent = await one.as('billing-agent', ['PROPOSER']);
    reviewer = await one.as('rei', ['REVIEWER']);
    operator = await one.as('ops-olga', ['EXECUTOR']);
    executors = await Promise.all(
      Array.from({ length: 10 }, async (_, n) => ({
        client: await one.as(`auto-${n}`, ['EXECUTOR']),
        url: n % 2 === 0 ? one.url : two.url,
      })),
    );
  });
  afterAll(async () => {
    await two?.stop();
    await one?.stop();
    await database?.cleanup();
  });

  async function approved(recordId: string, fingerprint = 'fp-1'): Promise<{ id: string; operationId: string }> {
    const id = (await run(agent, one.url, SUBMIT, { recordId, fingerprint })).submitProposal.proposal.id as string;
    const token = (await run(reviewer, one.url, CLAIM, { id })).claimProposal.lease.token;
    const review = (await run(reviewer, two.url, APPROVE, { token })).reviewProposal;
    expect(review.proposal.state).toBe('APPROVED');
    return { id, operationId: review.proposal.operationId };
  }

  it('one manual claim against ten automatic claims at once: exactly one wins, every round', async () => {
    const winners: string[] = [];
    for (let round = 0; round < 5; round++) {
      const { id } = await approved(`race-${round}`);
      const [manual, ...automatic] = await Promise.all([
        run(operator, round % 2 === 0 ? two.url : one.url, CLAIM_MANUAL, { id, reason: 'Billing API down.' }),
        ...executors.map(({ client, url }) => run(client, url, CLAIM_EXECUTION)),
      ]);
      const manualWon = manual.claimManualExecution.proposal !== undefined;
      const automaticWins = automatic.filter((answer) => answer.claimExecution.claimed === true);
      expect(Number(manualWon) + automaticWins.length, `round ${round}`).toBe(1);
      if (!manualWon) expect(manual.claimManualExecution).toMatchObject({ code: 'PROPOSAL_STATE_CONFLICT', field: 'id' });
      // Whoever lost finds nothing now: the winner holds it under its execution lease.
      expect((await run(executors[0]?.client as TestClient, one.url, CLAIM_EXECUTION)).claimExecution.claimed).toBe(false);
      winners.push(manualWon ? 'manual' : 'automatic');
    }
    expect(winners).toHaveLength(5);
  });

  it('while an operator holds the manual claim automation finds nothing; the same attempt, operation id and result follow', async () => {
    const { id, operationId } = await approved('held');
    const claim = (await run(operator, two.url, CLAIM_MANUAL, { id, reason: 'Billing API down since 08:40.' })).claimManualExecution;
    expect(claim).toMatchObject({
      operationId,
      proposal: { id, state: 'EXECUTING', claimedBy: 'ops-olga' },
      lease: { claimedBy: 'ops-olga' },
    });
    const automatic = await Promise.all(executors.map(({ client, url }) => run(client, url, CLAIM_EXECUTION)));
    expect(automatic.every((answer) => answer.claimExecution.claimed === false)).toBe(true);
    const started = (await run(operator, one.url, START, { token: claim.lease.token, fingerprint: 'fp-1' })).startExecutionAttempt;
    expect(started).toMatchObject({ proceed: true, attempt: { number: 1, operationId } });
    expect((await run(operator, two.url, REPORT, { token: claim.lease.token })).reportExecutionResult.proposal.state).toBe('EXECUTED');
    const history = (await run(operator, one.url, HISTORY, { id })).node.history.edges.map(
      (edge: { node: { type: string; actor: string; details: Record<string, unknown> } }) => edge.node,
    );
    expect(history.find((event: { type: string }) => event.type === 'EXECUTION_CLAIMED')).toMatchObject({
      actor: 'ops-olga',
      details: { from: 'APPROVED', manual: true, reason: 'Billing API down since 08:40.', operationId },
    });
  });

  it('a record after the fact with a stale fingerprint ends OUTCOME_UNKNOWN, never "not executed", reason apart from evidence', async () => {
    const { id } = await approved('after-the-fact');
    const recorded = (await run(operator, two.url, RECORD, { id, fingerprint: 'fp-2' })).recordManualExecution;
    expect(recorded.proposal.state).toBe('OUTCOME_UNKNOWN');
    expect(recorded.proposal.stateReason).toContain('a reconciler must check');
    expect(recorded.proposal.blockedReason).toContain('reconciler');
    const last = (await run(operator, one.url, HISTORY, { id })).node.history.edges.at(-1).node;
    expect(last).toMatchObject({
      type: 'EXECUTION_OUTCOME_UNKNOWN',
      actor: 'ops-olga',
      details: {
        from: 'APPROVED',
        state: 'OUTCOME_UNKNOWN',
        manual: true,
        why: 'FINGERPRINT_CHANGED',
        reason: 'Billing API down since 08:40.',
        evidence: 'Refunded in the billing console, ticket OPS-12.',
        reportedFingerprint: 'fp-2',
      },
    });
  });

  it('a record that ends EXECUTED remembers fingerprintAfter as the target’s state and stales its other open proposals', async () => {
    const { id } = await approved('after-state');
    const sibling = (await run(agent, one.url, SUBMIT_SIBLING, { recordId: 'after-state', fingerprint: 'fp-1' })).submitProposal.proposal
      .id;
    // Bounded and typed like every fingerprint: nothing recorded when it is invalid.
    for (const after of ['', 'x'.repeat(201), ' fp-2']) {
      const refused = (await run(operator, two.url, RECORD_AFTER, { id, fingerprint: 'fp-1', after })).recordManualExecution;
      expect(refused).toMatchObject({ code: 'INVALID_TEXT', field: 'fingerprintAfter' });
    }
    expect((await run(reviewer, one.url, TARGET_STATE, { recordId: 'after-state' })).targetState).toBeNull();
    const recorded = (await run(operator, two.url, RECORD_AFTER, { id, fingerprint: 'fp-1', after: 'fp-2' })).recordManualExecution;
    expect(recorded.proposal.state).toBe('EXECUTED');
    const remembered = (await run(reviewer, one.url, TARGET_STATE, { recordId: 'after-state' })).targetState;
    expect(remembered).toEqual({ fingerprint: 'fp-2', reportedBy: 'ops-olga', source: 'EXECUTION' });
    const other = (await run(reviewer, one.url, STATE, { id: sibling })).node;
    expect(other.state).toBe('STALE');
    expect(other.stateReason).toContain('fp-2');
    const last = (await run(operator, one.url, HISTORY, { id })).node.history.edges.at(-1).node;
    expect(last).toMatchObject({ type: 'MANUAL_EXECUTION_RECORDED', details: { reportedFingerprint: 'fp-1', fingerprintAfter: 'fp-2' } });
  });

  it('a record that ends OUTCOME_UNKNOWN keeps fingerprintAfter in the event only: the target’s state is not known', async () => {
    const { id } = await approved('after-unknown');
    const sibling = (await run(agent, one.url, SUBMIT_SIBLING, { recordId: 'after-unknown', fingerprint: 'fp-1' })).submitProposal.proposal
      .id;
    const recorded = (await run(operator, two.url, RECORD_AFTER, { id, fingerprint: 'fp-x', after: 'fp-9' })).recordManualExecution;
    expect(recorded.proposal.state).toBe('OUTCOME_UNKNOWN');
    expect((await run(reviewer, one.url, TARGET_STATE, { recordId: 'after-unknown' })).targetState).toBeNull();
    expect((await run(reviewer, one.url, STATE, { id: sibling })).node.state).toBe('PENDING');
    const last = (await run(operator, one.url, HISTORY, { id })).node.history.edges.at(-1).node;
    expect(last).toMatchObject({ type: 'EXECUTION_OUTCOME_UNKNOWN', details: { reportedFingerprint: 'fp-x', fingerprintAfter: 'fp-9' } });
  });
});
