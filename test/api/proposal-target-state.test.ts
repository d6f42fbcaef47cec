// The server remembers the target's current state (issue 17, item 2), over HTTP: a viewer reads it
// (targetState), a submission against an older fingerprint is a typed STALE_FINGERPRINT naming the field, and
// a report that arrives while a proposal is EXECUTING makes startExecutionAttempt with the old read answer
// proceed: false (it answered proceed: true before). A manual lease reads MANUAL_EXECUTION.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';

type Body = { data?: Record<string, any> | null; errors?: { message: string }[] };

async function run(client: TestClient, url: string, query: string, variables: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const body = (await (await postGraphQL(url, query, variables, client.headers)).json()) as Body;
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data ?? {};
}

const SUBMIT = `mutation($recordId: String!, $fingerprint: String!) {
  submitProposal(input: { batchId: "ts", recordId: $recordId, action: "refund", parameters: { invoice: "inv-9" },
    reason: "Duplicate charge", target: { system: "billing", recordId: "inv-9" }, currentValue: { paid: 240 }, proposedValue: { paid: 120 },
    dataSource: "ledger", riskLevel: LOW, fingerprint: $fingerprint }) {
    ... on SubmitProposalPayload { proposal { id } }
    ... on UserError { code field message } } }`;
const REPORT_STATE = `mutation($fingerprint: String!) { reportTargetState(input: { target: { system: "billing", recordId: "inv-9" }, fingerprint: $fingerprint }) {
  ... on ReportTargetStatePayload { staleProposals { id state } } ... on UserError { code message } } }`;
const TARGET_STATE = `query { targetState(system: "billing", recordId: "inv-9") { system recordId fingerprint reportedAt reportedBy source } }`;
const CLAIM = `mutation($id: ID!) { claimProposal(input: { id: $id }) { ... on ClaimProposalPayload { lease { token } } ... on UserError { code message } } }`;
const APPROVE = `mutation($token: String!) { reviewProposal(input: { token: $token, decision: APPROVE, revision: 1 }) {
  ... on ReviewProposalPayload { proposal { state } } ... on UserError { code field message } } }`;
const CLAIM_EXECUTION = `mutation { claimExecution(input: { leaseSeconds: 60 }) {
  ... on ClaimExecutionPayload { claimed proposal { id leaseKind } lease { token kind } } ... on UserError { code message } } }`;
const CLAIM_MANUAL = `mutation($id: ID!) { claimManualExecution(input: { id: $id, reason: "Billing API down." }) {
  ... on ClaimManualExecutionPayload { proposal { leaseKind } lease { token kind } } ... on UserError { code message } } }`;
const START = `mutation($token: String!, $fingerprint: String!) { startExecutionAttempt(input: { token: $token, fingerprint: $fingerprint }) {
  ... on StartExecutionAttemptPayload { proceed proposal { state stateReason } } ... on UserError { code message } } }`;
const RESULT = `mutation($token: String!, $fingerprint: String) { reportExecutionResult(input: { token: $token, outcome: SUCCEEDED, fingerprint: $fingerprint }) {
  ... on ReportExecutionResultPayload { proposal { state } } ... on UserError { code message } } }`;

describe('the remembered target state over GraphQL', () => {
  let server: TestServer;
  let agent: TestClient;
  let reviewer: TestClient;
  let executor: TestClient;
  let sync: TestClient;
  let viewer: TestClient;
  beforeAll(async () => {
    server = await startTestServer();
    agent = await server.as('billing-agent', ['PROPOSER']);
    reviewer = await server.as('rei', ['REVIEWER']);
    executor = await server.as('exa', ['EXECUTOR']);
    sync = await server.as('billing-sync', ['EXECUTOR']);
    viewer = await server.as('vic', ['VIEWER']);
  });
  afterAll(() => server.stop());

  async function approved(recordId: string, fingerprint: string): Promise<string> {
    const id = (await run(agent, server.url, SUBMIT, { recordId, fingerprint })).submitProposal.proposal.id as string;
    const token = (await run(reviewer, server.url, CLAIM, { id })).claimProposal.lease.token;
    expect((await run(reviewer, server.url, APPROVE, { token })).reviewProposal.proposal.state).toBe('APPROVED');
    return id;
  }

  it('a system or record that is not valid text (empty, a NUL, 201 characters) is a typed INVALID_TEXT naming the argument, on every backend', async () => {
    const READ = `query($system: String!, $recordId: String!) { targetState(system: $system, recordId: $recordId) { fingerprint } }`;
    for (const [variables, field] of [
      [{ system: '\u0000', recordId: 'inv-9' }, 'system'],
      [{ system: 'billing', recordId: '' }, 'recordId'],
      [{ system: 'x'.repeat(201), recordId: 'inv-9' }, 'system'],
    ] as const) {
      const body = (await (await postGraphQL(server.url, READ, variables, viewer.headers)).json()) as {
        errors?: { extensions?: { code?: string; field?: string } }[];
      };
      expect(body.errors?.map((error) => [error.extensions?.code, error.extensions?.field])).toEqual([['INVALID_TEXT', field]]);
    }
  });

  it('a report while EXECUTING: startExecutionAttempt with the old read answers proceed: false; the state is readable and refuses old submissions', async () => {
    expect((await run(viewer, server.url, TARGET_STATE)).targetState).toBeNull();
    await approved('exec-1', 'fp-1');
    const claim = (await run(executor, server.url, CLAIM_EXECUTION)).claimExecution;
    expect(claim).toMatchObject({ claimed: true, proposal: { leaseKind: 'EXECUTION' }, lease: { kind: 'EXECUTION' } });
    expect((await run(sync, server.url, REPORT_STATE, { fingerprint: 'fp-2' })).reportTargetState.staleProposals).toEqual([]);
    expect((await run(viewer, server.url, TARGET_STATE)).targetState).toMatchObject({
      system: 'billing',
      recordId: 'inv-9',
      fingerprint: 'fp-2',
      reportedAt: new Date(Date.UTC(2026, 10, 30, 9, 0, 0)).toISOString(),
      reportedBy: 'billing-sync',
      source: 'REPORT',
    });
    const started = (await run(executor, server.url, START, { token: claim.lease.token, fingerprint: 'fp-1' })).startExecutionAttempt;
    expect(started).toMatchObject({ proceed: false, proposal: { state: 'STALE' } });
    expect(started.proposal.stateReason).toContain('fp-2');

    const old = (await run(agent, server.url, SUBMIT, { recordId: 'exec-2', fingerprint: 'fp-1' })).submitProposal;
    expect(old).toMatchObject({ code: 'STALE_FINGERPRINT', field: 'fingerprint' });
    expect(old.message).toContain('fp-2');
  });

  it('an execution reports the fingerprint after its effect: remembered as EXECUTION; a manual lease reads MANUAL_EXECUTION', async () => {
    const id = await approved('exec-3', 'fp-2');
    const manual = (await run(executor, server.url, CLAIM_MANUAL, { id })).claimManualExecution;
    expect(manual).toMatchObject({ proposal: { leaseKind: 'MANUAL_EXECUTION' }, lease: { kind: 'MANUAL_EXECUTION' } });
    expect((await run(executor, server.url, START, { token: manual.lease.token, fingerprint: 'fp-2' })).startExecutionAttempt.proceed).toBe(
      true,
    );
    const done = (await run(executor, server.url, RESULT, { token: manual.lease.token, fingerprint: 'fp-3' })).reportExecutionResult;
    expect(done.proposal.state).toBe('EXECUTED');
    expect((await run(viewer, server.url, TARGET_STATE)).targetState).toMatchObject({
      fingerprint: 'fp-3',
      reportedBy: 'exa',
      source: 'EXECUTION',
    });
  });
});
