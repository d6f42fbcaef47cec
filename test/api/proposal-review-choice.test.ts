// A reviewer may claim a chosen proposal by id, not only the next one, and gets a typed refusal saying why
// when it may not; a decision may carry a comment, kept in its event (issue 17, item 9). Over GraphQL on
// the real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';

type Body = { data?: Record<string, any> | null; errors?: { message: string }[] };

const SUBMIT = `mutation($recordId: String!) {
  submitProposal(input: { batchId: "choice", recordId: $recordId, action: "refund", parameters: { amount: 5 },
    reason: "Duplicate charge", target: { system: "billing", recordId: $recordId }, dataSource: "ledger", riskLevel: LOW, fingerprint: "fp" }) {
    ... on SubmitProposalPayload { proposal { id } } ... on UserError { code message } } }`;
const CLAIM_ID = `mutation($id: ID) { claimProposal(input: { leaseSeconds: 60, id: $id }) {
  ... on ClaimProposalPayload { claimed proposal { id } lease { token } }
  ... on UserError { code field message } } }`;
const APPROVE = `mutation($token: String!, $comment: String) { reviewProposal(input: { token: $token, decision: APPROVE, revision: 1, comment: $comment }) {
  ... on ReviewProposalPayload { proposal { state history(first: 20) { edges { node { type actor details } } } } }
  ... on UserError { code field message } } }`;

describe('claiming a chosen proposal, and a comment with a decision', () => {
  let server: TestServer;
  let agent: TestClient;
  let rei: TestClient;
  let kai: TestClient;
  beforeAll(async () => {
    server = await startTestServer();
    agent = await server.as('choice-agent', ['PROPOSER', 'REVIEWER']);
    rei = await server.as('rei', ['REVIEWER']);
    kai = await server.as('kai', ['REVIEWER']);
  });
  afterAll(() => server.stop());

  async function run(client: TestClient, query: string, variables: Record<string, unknown> = {}) {
    const body = (await (await postGraphQL(server.url, query, variables, client.headers)).json()) as Body;
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    return body.data ?? {};
  }
  const submit = async (recordId: string) => (await run(agent, SUBMIT, { recordId })).submitProposal.proposal.id as string;
  const claim = async (client: TestClient, id: string | null) => (await run(client, CLAIM_ID, { id })).claimProposal;

  it('takes the proposal named, not the oldest; others asking for it, or for one they may not review, are told why', async () => {
    const older = await submit('older');
    const chosen = await submit('chosen');
    const mine = await claim(rei, chosen);
    expect(mine).toMatchObject({ claimed: true, proposal: { id: chosen } });

    expect(await claim(kai, chosen)).toMatchObject({
      code: 'CLAIM_CONFLICT',
      field: 'id',
      message: expect.stringContaining("rei's review lease"),
    });
    expect(await claim(agent, older)).toMatchObject({ code: 'SELF_APPROVAL', field: 'id' });
    expect(await claim(kai, 'bm90LWEtcHJvcG9zYWw')).toMatchObject({ code: 'INVALID_ARGUMENT' });

    const approved = (await run(rei, APPROVE, { token: mine.lease.token, comment: 'Only after the customer confirms by mail.' }))
      .reviewProposal;
    expect(approved.proposal.state).toBe('APPROVED');
    const recorded = approved.proposal.history.edges.find((edge: any) => edge.node.type === 'PROPOSAL_APPROVAL_RECORDED');
    expect(recorded.node.details).toMatchObject({ approver: 'rei', comment: 'Only after the customer confirms by mail.' });
    expect(await claim(kai, chosen)).toMatchObject({ code: 'PROPOSAL_STATE_CONFLICT', message: expect.stringContaining('APPROVED') });

    // Without an id: the next one, as before (the older one is still waiting).
    expect(await claim(kai, null)).toMatchObject({ claimed: true, proposal: { id: older } });
  });

  it('refuses a comment that is not valid text, and records none when none is given', async () => {
    const id = await submit('plain');
    const lease = await claim(rei, id);
    expect((await run(rei, APPROVE, { token: lease.lease.token, comment: '  padded  ' })).reviewProposal).toMatchObject({
      code: 'INVALID_TEXT',
      field: 'comment',
    });
    const approved = (await run(rei, APPROVE, { token: lease.lease.token })).reviewProposal;
    const recorded = approved.proposal.history.edges.find((edge: any) => edge.node.type === 'PROPOSAL_APPROVAL_RECORDED');
    expect(recorded.node.details.comment).toBeNull();
  });
});
