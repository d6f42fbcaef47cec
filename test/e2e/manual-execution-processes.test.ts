// Two real server processes on one database (a SQLite file, or one PostgreSQL database) race a manual and
// automatic executions of one approved proposal (issue 17, item 1): an operator's claimManualExecution on one
// process against ten executors' claimExecution spread over both, all at once. Exactly one wins each round,
// and the history holds exactly one EXECUTION_CLAIMED per proposal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, testDatabase } from '../support/database.js';
import { createKeys, type KeyHolder, post, type StartedServer, startServerProcess, withDatabase } from '../support/process.js';

const ROUNDS = 6;
const EXECUTORS = 10;

const SUBMIT = `mutation($recordId: String!) {
  submitProposal(input: { batchId: "two-processes", recordId: $recordId, action: "refund", parameters: { invoice: $recordId },
    reason: "Duplicate charge", target: { system: "billing", recordId: $recordId }, currentValue: { paid: 240 }, proposedValue: { paid: 120 },
    dataSource: "ledger", riskLevel: LOW, fingerprint: "fp-1" }) {
    __typename ... on SubmitProposalPayload { proposal { id } } } }`;
const CLAIM = `mutation($id: ID!) { claimProposal(input: { id: $id }) { __typename ... on ClaimProposalPayload { lease { token } } } }`;
const APPROVE = `mutation($token: String!) { reviewProposal(input: { token: $token, decision: APPROVE, revision: 1 }) {
  __typename ... on ReviewProposalPayload { proposal { state } } } }`;
const CLAIM_EXECUTION = `mutation { claimExecution(input: { leaseSeconds: 60 }) {
  __typename ... on ClaimExecutionPayload { claimed proposal { id } } ... on UserError { code message } } }`;
const CLAIM_MANUAL = `mutation($id: ID!) { claimManualExecution(input: { id: $id, reason: "Billing API down." }) {
  __typename ... on ClaimManualExecutionPayload { proposal { id leaseKind } } ... on UserError { code field message } } }`;

async function ask(server: StartedServer, caller: KeyHolder, query: string, variables: Record<string, unknown> = {}) {
  const { status, body } = await post(server.url, query, variables, caller.headers);
  if (status !== 200 || body.errors !== undefined || !body.data)
    throw new Error(`${server.url} answered ${status}: ${JSON.stringify(body)}`);
  return body.data as Record<string, any>;
}

describe('manual and automatic execution racing across two processes', () => {
  let database: TestDatabase;
  let a: StartedServer;
  let b: StartedServer;
  let agent: KeyHolder;
  let reviewer: KeyHolder;
  let operator: KeyHolder;
  let executors: KeyHolder[];

  beforeAll(async () => {
    database = await testDatabase();
    const keys = await createKeys(database, [
      { name: 'billing-agent', roles: ['PROPOSER'] },
      { name: 'rei', roles: ['REVIEWER'] },
      { name: 'ops-olga', roles: ['EXECUTOR'] },
      ...Array.from({ length: EXECUTORS }, (_, n) => ({ name: `auto-${n}`, roles: ['EXECUTOR' as const] })),
    ]);
    [agent, reviewer, operator] = keys as [KeyHolder, KeyHolder, KeyHolder];
    executors = keys.slice(3);
    const env = { SQLITE_SYNCHRONOUS: 'NORMAL' };
    [a, b] = await Promise.all([startServerProcess(env, { database }), startServerProcess(env, { database })]);
  });
  afterAll(async () => {
    await Promise.all([a?.kill(), b?.kill()]);
    await database?.cleanup();
  });

  it(`exactly one of a manual claim and ${EXECUTORS} automatic claims wins, in each of ${ROUNDS} rounds`, async () => {
    const ids: string[] = [];
    const winners: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const id = (await ask(a, agent, SUBMIT, { recordId: `inv-${round}` })).submitProposal.proposal.id as string;
      const token = (await ask(b, reviewer, CLAIM, { id })).claimProposal.lease.token;
      expect((await ask(a, reviewer, APPROVE, { token })).reviewProposal.proposal.state).toBe('APPROVED');
      const manualAt = round % 2 === 0 ? a : b;
      const [manual, ...automatic] = await Promise.all([
        ask(manualAt, operator, CLAIM_MANUAL, { id }),
        ...executors.map((executor, n) => ask(n % 2 === 0 ? a : b, executor, CLAIM_EXECUTION)),
      ]);
      const manualWon = manual.claimManualExecution.__typename === 'ClaimManualExecutionPayload';
      if (manualWon) expect(manual.claimManualExecution.proposal).toEqual({ id, leaseKind: 'MANUAL_EXECUTION' });
      else expect(manual.claimManualExecution).toMatchObject({ code: 'PROPOSAL_STATE_CONFLICT', field: 'id' });
      const automaticWins = automatic.filter((answer) => answer.claimExecution.claimed === true);
      for (const won of automaticWins) expect(won.claimExecution.proposal.id).toBe(id);
      expect(Number(manualWon) + automaticWins.length, `round ${round}`).toBe(1);
      ids.push(id);
      winners.push(manualWon ? 'manual' : 'automatic');
    }
    expect(winners).toHaveLength(ROUNDS);
    // The history agrees: one EXECUTION_CLAIMED per proposal, every proposal EXECUTING.
    await withDatabase(database, async (db) => {
      const claims = await db.read.event.groupBy({ by: ['proposalId'], where: { type: 'EXECUTION_CLAIMED' }, _count: { _all: true } });
      expect(claims).toHaveLength(ROUNDS);
      for (const claim of claims) expect(claim._count._all).toBe(1);
      expect(await db.read.proposal.count({ where: { state: 'EXECUTING' } })).toBe(ROUNDS);
    });
  });
});
