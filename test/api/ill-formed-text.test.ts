// Ill-formed UTF-16 (issue 15, item 5): a lone surrogate ("\ud800" in the request's JSON) in any text input is
// refused with INVALID_TEXT naming the field, over HTTP and WebSocket, and nothing is written. Stored, it would
// become invalid UTF-8 and read back as U+FFFD: two inputs alike, and an id that does not find its own item.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';
import { connectWs } from '../support/ws.js';

type Body = { data?: Record<string, Record<string, unknown>> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] };

const HIGH = '\uD800';
const LOW = '\uDFFF';

let server: TestServer;
let proposer: TestClient;
let reviewer: TestClient;
let executor: TestClient;
let admin: TestClient;
let reconciler: TestClient;
/** A review lease on item "ill/held", a proposal under review, one under execution (its attempt started), and its id. */
const held = { itemToken: '', reviewToken: '', executionToken: '', proposalId: '' };

/** Sends `variables` as JSON with the lone surrogates as \u escapes (what JSON.stringify writes for them). */
async function post(client: TestClient, query: string, variables: Record<string, unknown>): Promise<Body> {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...client.headers },
    body: JSON.stringify({ query, variables }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Body;
}

async function ok(
  client: TestClient,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<Record<string, Record<string, unknown>>> {
  const body = (await (await postGraphQL(server.url, query, variables, client.headers)).json()) as Body;
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  const data = body.data ?? {};
  for (const value of Object.values(data)) expect(value?.__typename, JSON.stringify(value)).not.toBe('UserError');
  return data;
}

/** The lease token in a claim's payload. */
function leaseToken(data: Record<string, Record<string, unknown>>, field: string): string {
  return (data[field]?.lease as { token?: string } | undefined)?.token ?? '';
}

/** Everything a refused operation must leave as it was (the refusals' own history records aside). */
async function snapshot() {
  const read = server.db.read;
  return {
    items: await read.item.findMany({ orderBy: { id: 'asc' } }),
    categories: await read.category.findMany({ orderBy: { name: 'asc' } }),
    apiKeys: await read.apiKey.count(),
    proposals: await read.proposal.findMany({ orderBy: { id: 'asc' } }),
    approvals: await read.proposalApproval.count(),
    attempts: await read.executionAttempt.findMany({ orderBy: { id: 'asc' } }),
    events: await read.event.count({ where: { type: { not: 'OPERATION_REFUSED' } } }),
  };
}

const USER_ERROR = '__typename ... on UserError { code field }';
const ADD_ITEM = `mutation($input: AddItemInput!) { addItem(input: $input) { ${USER_ERROR} } }`;
const item = (extra: Record<string, string> = {}) => ({ batchId: 'ill', recordId: 'r', proposedCategory: 'c', reason: 'why', ...extra });
const SUBMIT = `mutation($input: SubmitProposalInput!) { submitProposal(input: $input) { ${USER_ERROR} ... on SubmitProposalPayload { proposal { id } } } }`;
const proposal = (recordId: string, extra: Record<string, unknown> = {}) => ({
  batchId: 'ill',
  recordId,
  action: 'refund',
  parameters: { amount: 1 },
  reason: 'why',
  target: { system: 'billing', recordId },
  dataSource: 'ledger',
  riskLevel: 'LOW',
  fingerprint: `fp-${recordId}`,
  ...extra,
});

beforeAll(async () => {
  server = await startTestServer();
  proposer = await server.as('ill-proposer', ['PROPOSER']);
  reviewer = await server.as('ill-reviewer', ['REVIEWER']);
  executor = await server.as('ill-executor', ['EXECUTOR']);
  admin = await server.as('ill-admin', ['ADMIN']);
  reconciler = await server.as('ill-reconciler', ['RECONCILER']);
  await ok(admin, 'mutation { addCategories(input: { names: ["c", "d"] }) { __typename } }');
  await ok(proposer, ADD_ITEM, { input: item({ recordId: 'held' }) });
  const claim = await ok(reviewer, 'mutation { claimItem(input: {}) { ... on ClaimItemPayload { lease { token } } } }');
  held.itemToken = leaseToken(claim, 'claimItem');
  // One proposal to execute (approved, claimed for execution, its attempt started), one left under review.
  const first = await ok(proposer, SUBMIT, { input: proposal('p-run') });
  held.proposalId = (first.submitProposal?.proposal as { id?: string } | undefined)?.id ?? '';
  const claimProposal = 'mutation { claimProposal(input: {}) { ... on ClaimProposalPayload { lease { token } } } }';
  const review = await ok(reviewer, claimProposal);
  await ok(
    reviewer,
    'mutation($token: String!) { reviewProposal(input: { token: $token, decision: APPROVE, revision: 1 }) { __typename } }',
    {
      token: leaseToken(review, 'claimProposal'),
    },
  );
  const execution = await ok(executor, 'mutation { claimExecution(input: {}) { ... on ClaimExecutionPayload { lease { token } } } }');
  held.executionToken = leaseToken(execution, 'claimExecution');
  await ok(
    executor,
    'mutation($token: String!) { startExecutionAttempt(input: { token: $token, fingerprint: "fp-p-run" }) { __typename } }',
    { token: held.executionToken },
  );
  await ok(proposer, SUBMIT, { input: proposal('p-review') });
  held.reviewToken = leaseToken(await ok(reviewer, claimProposal), 'claimProposal');
});
afterAll(() => server.stop());

/** [what, who, query, variables, the field named, the operation's root field]. */
type Case = [string, () => TestClient, string, () => Record<string, unknown>, string, string];

const CASES: Case[] = [
  [
    'addItem.batchId (a lone high surrogate)',
    () => proposer,
    ADD_ITEM,
    () => ({ input: item({ batchId: `b${HIGH}` }) }),
    'batchId',
    'addItem',
  ],
  [
    'addItem.recordId (a lone low surrogate)',
    () => proposer,
    ADD_ITEM,
    () => ({ input: item({ recordId: `r${LOW}` }) }),
    'recordId',
    'addItem',
  ],
  [
    'addItem.recordId (a pair the wrong way round)',
    () => proposer,
    ADD_ITEM,
    () => ({ input: item({ recordId: `r${LOW}${HIGH}` }) }),
    'recordId',
    'addItem',
  ],
  [
    'addItem.proposedCategory',
    () => proposer,
    ADD_ITEM,
    () => ({ input: item({ proposedCategory: `c${HIGH}` }) }),
    'proposedCategory',
    'addItem',
  ],
  [
    'addItem.reason (a high surrogate at the end)',
    () => proposer,
    ADD_ITEM,
    () => ({ input: item({ reason: `why \uD83D` }) }),
    'reason',
    'addItem',
  ],
  [
    'addCategories.names[1] (all or nothing)',
    () => admin,
    `mutation($names: [String!]!) { addCategories(input: { names: $names }) { ${USER_ERROR} } }`,
    () => ({ names: ['fine', `e${HIGH}`] }),
    'names[1]',
    'addCategories',
  ],
  [
    'createApiKey.name',
    () => admin,
    `mutation($name: String!) { createApiKey(input: { name: $name, roles: [VIEWER] }) { ${USER_ERROR} } }`,
    () => ({ name: `key${HIGH}` }),
    'name',
    'createApiKey',
  ],
  [
    'claimItem.batchId',
    () => reviewer,
    `mutation($batchId: String) { claimItem(input: { batchId: $batchId }) { ${USER_ERROR} } }`,
    () => ({ batchId: `ill${LOW}` }),
    'batchId',
    'claimItem',
  ],
  [
    'decideItem.category',
    () => reviewer,
    `mutation($token: String!, $category: String) { decideItem(input: { token: $token, decision: CORRECTED, category: $category }) { ${USER_ERROR} } }`,
    () => ({ token: held.itemToken, category: `d${HIGH}` }),
    'category',
    'decideItem',
  ],
  ...(['action', 'reason', 'dataSource', 'fingerprint'] as const).map(
    (field): Case => [
      `submitProposal.${field}`,
      () => proposer,
      SUBMIT,
      () => ({ input: proposal('p-new', { [field]: `x${HIGH}` }) }),
      field,
      'submitProposal',
    ],
  ),
  ...(['system', 'recordId'] as const).map(
    (field): Case => [
      `submitProposal.target.${field}`,
      () => proposer,
      SUBMIT,
      () => ({ input: proposal('p-new', { target: { system: 'billing', recordId: 'p-new', [field]: `x${LOW}` } }) }),
      `target.${field}`,
      'submitProposal',
    ],
  ),
  [
    'submitProposal.parameters (a string inside the JSON)',
    () => proposer,
    SUBMIT,
    () => ({ input: proposal('p-new', { parameters: { note: [`n${HIGH}`] } }) }),
    'parameters',
    'submitProposal',
  ],
  [
    'submitProposal.parameters (a key of the JSON)',
    () => proposer,
    SUBMIT,
    () => ({ input: proposal('p-new', { parameters: { [`k${LOW}`]: 1 } }) }),
    'parameters',
    'submitProposal',
  ],
  [
    'submitProposal.proposedValue',
    () => proposer,
    SUBMIT,
    () => ({ input: proposal('p-new', { proposedValue: `v${HIGH}` }) }),
    'proposedValue',
    'submitProposal',
  ],
  [
    'reviewProposal.reason',
    () => reviewer,
    `mutation($token: String!, $reason: String) { reviewProposal(input: { token: $token, decision: REJECT, reason: $reason }) { ${USER_ERROR} } }`,
    () => ({ token: held.reviewToken, reason: `no${HIGH}` }),
    'reason',
    'reviewProposal',
  ],
  [
    'cancelProposal.reason',
    () => proposer,
    `mutation($id: ID!, $reason: String!) { cancelProposal(input: { id: $id, reason: $reason }) { ${USER_ERROR} } }`,
    () => ({ id: held.proposalId, reason: `stop${LOW}` }),
    'reason',
    'cancelProposal',
  ],
  [
    'reportExecutionResult.correlationId',
    () => executor,
    `mutation($token: String!, $id: String) { reportExecutionResult(input: { token: $token, outcome: SUCCEEDED, correlationId: $id }) { ${USER_ERROR} } }`,
    () => ({ token: held.executionToken, id: `corr${HIGH}` }),
    'correlationId',
    'reportExecutionResult',
  ],
  [
    'reportExecutionResult.response',
    () => executor,
    `mutation($token: String!, $response: JSON) { reportExecutionResult(input: { token: $token, outcome: SUCCEEDED, response: $response }) { ${USER_ERROR} } }`,
    () => ({ token: held.executionToken, response: { body: `ok${LOW}` } }),
    'response',
    'reportExecutionResult',
  ],
  [
    'reconcileProposal.evidence',
    () => reconciler,
    `mutation($id: ID!, $evidence: String!) { reconcileProposal(input: { id: $id, executed: true, evidence: $evidence }) { ${USER_ERROR} } }`,
    () => ({ id: held.proposalId, evidence: `seen${HIGH}` }),
    'evidence',
    'reconcileProposal',
  ],
  [
    'reportTargetState.fingerprint',
    () => executor,
    `mutation($fingerprint: String!) { reportTargetState(input: { target: { system: "billing", recordId: "p-run" }, fingerprint: $fingerprint }) { ${USER_ERROR} } }`,
    () => ({ fingerprint: `fp${LOW}` }),
    'fingerprint',
    'reportTargetState',
  ],
  [
    'item(recordId) (a lookup)',
    () => proposer,
    `query($recordId: String!) { item(batchId: "ill", recordId: $recordId) { ${USER_ERROR} } }`,
    () => ({ recordId: `held${HIGH}` }),
    'recordId',
    'item',
  ],
];

describe('a lone surrogate in a text input is refused with INVALID_TEXT naming the field, and nothing is written', () => {
  it.each(CASES)('over HTTP: %s', async (_what, who, query, variables, field, root) => {
    const sent = JSON.stringify({ variables: variables() });
    expect(sent).toMatch(/\\ud[89a-f][0-9a-f]{2}/);
    const before = await snapshot();
    const body = await post(who(), query, variables());
    expect(body.errors).toBeUndefined();
    expect(body.data?.[root]).toEqual({ __typename: 'UserError', code: 'INVALID_TEXT', field });
    expect(await snapshot()).toEqual(before);
  });

  it.each(CASES.filter((_, index) => index % 4 === 0))('over WebSocket: %s', async (_what, who, query, variables, field, root) => {
    const ws = await connectWs(server.url, who().headers);
    try {
      const before = await snapshot();
      const result = await ws.execute<Record<string, unknown>>(query, variables());
      expect(result.errors).toBeUndefined();
      expect(result.data?.[root]).toEqual({ __typename: 'UserError', code: 'INVALID_TEXT', field });
      expect(await snapshot()).toEqual(before);
    } finally {
      await ws.close();
    }
  });

  it('still takes well-formed text beyond the BMP (surrogate pairs), and it reads back as given', async () => {
    const recordId = 'r😀𠮷';
    await ok(proposer, ADD_ITEM, { input: item({ recordId }) });
    const found = await ok(
      proposer,
      'query($recordId: String!) { item(batchId: "ill", recordId: $recordId) { ... on Item { recordId } } }',
      {
        recordId,
      },
    );
    expect(found.item).toEqual({ recordId });
  });
});
