// Least privilege in the proposal workflow (issue 17, item 4), through the real server over HTTP and WebSocket:
// (a) risk is not the proposer's to lower (PROPOSAL_ACTIONS floors, revisions never below the previous one);
// (b) only a RECONCILER reconciles, never a proposal it proposed or executed; (c) reportTargetState only by
// principals allowed for the target system (TARGET_STATE_REPORTERS, EXECUTORs by default). Every refusal is
// typed and recorded as OPERATION_REFUSED. Bad settings end the start with one line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rolesOf } from '../../src/cli/keys.js';
import { loadConfig } from '../../src/config.js';
import { validateRoles } from '../../src/services/api-keys.js';
import { databaseUrlOf, spawnServer } from '../support/process.js';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';
import { connectWs } from '../support/ws.js';

type Body = { data?: Record<string, any> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] };

const SECOND = 1000;

async function post(server: TestServer, client: TestClient, query: string, variables: Record<string, unknown> = {}): Promise<Body> {
  return (await (await postGraphQL(server.url, query, variables, client.headers)).json()) as Body;
}

async function run(server: TestServer, client: TestClient, query: string, variables: Record<string, unknown> = {}) {
  const body = await post(server, client, query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data ?? {};
}

const SUBMIT = `mutation($recordId: String!, $action: String!, $risk: RiskLevel!, $system: String!, $fingerprint: String!, $revision: Int) {
  submitProposal(input: { batchId: "lp", recordId: $recordId, revision: $revision, action: $action, parameters: { amount: 5 },
    reason: "Duplicate charge", target: { system: $system, recordId: $recordId }, dataSource: "ledger", riskLevel: $risk, fingerprint: $fingerprint }) {
    __typename
    ... on SubmitProposalPayload { created proposal { id state revision riskLevel } }
    ... on UserError { code field message }
  }
}`;
const CLAIM = `mutation($id: ID) { claimProposal(input: { id: $id, leaseSeconds: 120 }) {
  ... on ClaimProposalPayload { claimed proposal { id } lease { token } } } }`;
const APPROVE = `mutation($token: String!) { reviewProposal(input: { token: $token, decision: APPROVE, revision: 1 }) {
  ... on ReviewProposalPayload { proposal { state } } ... on UserError { code message } } }`;
const CLAIM_EXECUTION = `mutation($lease: Int) { claimExecution(input: { leaseSeconds: $lease }) {
  ... on ClaimExecutionPayload { claimed lease { token } proposal { id } } } }`;
const START = `mutation($token: String!, $fingerprint: String!) { startExecutionAttempt(input: { token: $token, fingerprint: $fingerprint }) {
  ... on StartExecutionAttemptPayload { proceed } } }`;
const REPORT_UNKNOWN = `mutation($token: String!) { reportExecutionResult(input: { token: $token, outcome: UNKNOWN }) {
  ... on ReportExecutionResultPayload { proposal { state } } } }`;
const RECONCILE = `mutation($id: ID!) { reconcileProposal(input: { id: $id, executed: true, evidence: "billing shows it applied" }) {
  __typename
  ... on ReconcileProposalPayload { proposal { state } }
  ... on UserError { code field message } } }`;
const REPORT_STATE = `mutation($system: String!, $recordId: String!, $fingerprint: String!) {
  reportTargetState(input: { target: { system: $system, recordId: $recordId }, fingerprint: $fingerprint }) {
    __typename
    ... on ReportTargetStatePayload { staleProposals { id state } }
    ... on UserError { code field message } } }`;

describe('least privilege in the proposal workflow', () => {
  let server: TestServer;
  let agent: TestClient;
  let reviewer: TestClient;
  let executor: TestClient;
  let reconciler: TestClient;
  let admin: TestClient;
  let sync: TestClient;

  beforeAll(async () => {
    server = await startTestServer({
      config: {
        proposalRules: { actions: { refund: { minimumRisk: 'HIGH' } }, targetStateReporters: { billing: ['billing-sync'] } },
      },
    });
    agent = await server.as('refund-agent', ['PROPOSER']);
    reviewer = await server.as('rita', ['REVIEWER']);
    executor = await server.as('exa', ['EXECUTOR']);
    reconciler = await server.as('ops-reconciler', ['RECONCILER']);
    admin = await server.as('ops-admin', ['ADMIN']);
    // An integration that only watches billing: no role that would let it execute or review anything.
    sync = await server.as('billing-sync', ['VIEWER']);
  });
  afterAll(() => server.stop());

  const refusals = async (actor: string, code: string) =>
    (await server.db.read.event.findMany({ where: { type: 'OPERATION_REFUSED', actor }, orderBy: { id: 'asc' } }))
      .map((event) => JSON.parse(event.details) as Record<string, unknown>)
      .filter((details) => details.code === code);

  /** Submitted by `proposer`, approved by rita: APPROVED. */
  async function approved(proposer: TestClient, recordId: string, system = 'shop'): Promise<string> {
    const submitted = await run(server, proposer, SUBMIT, { recordId, action: 'note', risk: 'LOW', system, fingerprint: 'fp-1' });
    const id = submitted.submitProposal.proposal.id as string;
    const claim = (await run(server, reviewer, CLAIM, { id })).claimProposal;
    expect(claim.proposal.id).toBe(id);
    expect((await run(server, reviewer, APPROVE, { token: claim.lease.token })).reviewProposal.proposal.state).toBe('APPROVED');
    return id;
  }

  /** Approved, claimed by `executing`, attempted and reported UNKNOWN: OUTCOME_UNKNOWN. */
  async function unknownOutcome(proposer: TestClient, executing: TestClient, recordId: string): Promise<string> {
    const id = await approved(proposer, recordId);
    const claim = (await run(server, executing, CLAIM_EXECUTION, { lease: 60 })).claimExecution;
    expect(claim.proposal.id).toBe(id);
    expect((await run(server, executing, START, { token: claim.lease.token, fingerprint: 'fp-1' })).startExecutionAttempt.proceed).toBe(
      true,
    );
    expect((await run(server, executing, REPORT_UNKNOWN, { token: claim.lease.token })).reportExecutionResult.proposal.state).toBe(
      'OUTCOME_UNKNOWN',
    );
    return id;
  }

  describe('(a) risk is not the proposer’s to lower', () => {
    it('refuses a submission below the action’s configured floor, over HTTP and WebSocket, records it, stores nothing', async () => {
      const low = { recordId: 'refund-1', action: 'refund', risk: 'MEDIUM', system: 'billing', fingerprint: 'fp-1' };
      const refused = (await run(server, agent, SUBMIT, low)).submitProposal;
      expect(refused).toEqual({
        __typename: 'UserError',
        code: 'RISK_BELOW_MINIMUM',
        field: 'riskLevel',
        message:
          'riskLevel MEDIUM is below the minimum HIGH configured for the action "refund" (PROPOSAL_ACTIONS); submit it as HIGH or higher.',
      });
      const ws = await connectWs(server.url, agent.headers);
      try {
        const overWs = await ws.execute<{ submitProposal: Record<string, unknown> }>(SUBMIT, { ...low, risk: 'LOW' });
        expect(overWs.data?.submitProposal).toMatchObject({ code: 'RISK_BELOW_MINIMUM', field: 'riskLevel' });
      } finally {
        await ws.close();
      }
      expect(await server.db.read.proposal.count({ where: { recordId: 'refund-1' } })).toBe(0);
      expect(await refusals('refund-agent', 'RISK_BELOW_MINIMUM')).toEqual([
        expect.objectContaining({ operation: 'submitProposal', field: 'riskLevel' }),
        expect.objectContaining({ operation: 'submitProposal', field: 'riskLevel' }),
      ]);
      // At or above the floor it is accepted; an action without a floor takes any level.
      expect((await run(server, agent, SUBMIT, { ...low, risk: 'HIGH' })).submitProposal).toMatchObject({
        created: true,
        proposal: { riskLevel: 'HIGH' },
      });
      expect(
        (await run(server, agent, SUBMIT, { recordId: 'note-1', action: 'note', risk: 'LOW', system: 'crm', fingerprint: 'fp-1' }))
          .submitProposal,
      ).toMatchObject({ created: true, proposal: { riskLevel: 'LOW' } });
    });

    it('refuses a revision below the previous revision’s risk level', async () => {
      const first = { recordId: 'price-1', action: 'setPrice', risk: 'CRITICAL', system: 'shop', fingerprint: 'fp-1' };
      const submitted = (await run(server, agent, SUBMIT, first)).submitProposal;
      expect(submitted).toMatchObject({ created: true, proposal: { riskLevel: 'CRITICAL' } });
      // The data changed: revision 1 is STALE, so the proposer may revise it.
      const stale = (await run(server, executor, REPORT_STATE, { system: 'shop', recordId: 'price-1', fingerprint: 'fp-2' }))
        .reportTargetState;
      expect(stale.staleProposals).toEqual([{ id: submitted.proposal.id, state: 'STALE' }]);
      const lower = (await run(server, agent, SUBMIT, { ...first, risk: 'HIGH', fingerprint: 'fp-2', revision: 2 })).submitProposal;
      expect(lower).toEqual({
        __typename: 'UserError',
        code: 'RISK_BELOW_MINIMUM',
        field: 'riskLevel',
        message: "riskLevel HIGH is below revision 1's CRITICAL: a revision may not lower the risk level; submit it as CRITICAL or higher.",
      });
      expect(await server.db.read.proposal.count({ where: { recordId: 'price-1', revision: 2 } })).toBe(0);
      expect((await run(server, agent, SUBMIT, { ...first, fingerprint: 'fp-2', revision: 2 })).submitProposal).toMatchObject({
        created: true,
        proposal: { revision: 2, riskLevel: 'CRITICAL' },
      });
    });
  });

  describe('(b) reconciliation is the RECONCILER’s, never on its own work', () => {
    it('an ADMIN may not reconcile; a RECONCILER may', async () => {
      const id = await unknownOutcome(agent, executor, 'rec-1');
      const forbidden = await post(server, admin, RECONCILE, { id });
      expect(forbidden.errors?.map((error) => error.extensions?.code)).toEqual(['FORBIDDEN']);
      expect(forbidden.errors?.[0]?.message).toContain('needs one of the roles RECONCILER');
      expect((await run(server, reconciler, RECONCILE, { id })).reconcileProposal).toEqual({
        __typename: 'ReconcileProposalPayload',
        proposal: { state: 'EXECUTED' },
      });
    });

    it('refuses a reconciler that proposed the proposal (SELF_RECONCILIATION), recorded', async () => {
      const both = await server.as('agent-and-reconciler', ['PROPOSER', 'RECONCILER']);
      const id = await unknownOutcome(both, executor, 'rec-2');
      expect((await run(server, both, RECONCILE, { id })).reconcileProposal).toEqual({
        __typename: 'UserError',
        code: 'SELF_RECONCILIATION',
        field: 'id',
        message: 'You proposed this; another reconciler must settle it.',
      });
      expect(await refusals('agent-and-reconciler', 'SELF_RECONCILIATION')).toHaveLength(1);
      expect((await run(server, reconciler, RECONCILE, { id })).reconcileProposal.proposal.state).toBe('EXECUTED');
    });

    it('refuses a reconciler that executed it: ran an attempt, or only claimed it and let the lease lapse', async () => {
      const both = await server.as('executor-and-reconciler', ['EXECUTOR', 'RECONCILER']);
      const attempted = await unknownOutcome(agent, both, 'rec-3');
      const ws = await connectWs(server.url, both.headers);
      try {
        const overWs = await ws.execute<{ reconcileProposal: Record<string, unknown> }>(RECONCILE, { id: attempted });
        expect(overWs.data?.reconcileProposal).toMatchObject({ code: 'SELF_RECONCILIATION', field: 'id' });
      } finally {
        await ws.close();
      }
      // Claimed, never attempted, its lease lapsed: OUTCOME_UNKNOWN, and the claimer is still its executor.
      const claimedOnly = await approved(agent, 'rec-4');
      const claim = (await run(server, both, CLAIM_EXECUTION, { lease: 30 })).claimExecution;
      expect(claim.proposal.id).toBe(claimedOnly);
      server.clock.advance(31 * SECOND);
      await server.settle();
      const shown = await run(server, admin, 'query($id: ID!) { node(id: $id) { ... on Proposal { state } } }', { id: claimedOnly });
      expect(shown.node.state).toBe('OUTCOME_UNKNOWN');
      expect((await run(server, both, RECONCILE, { id: claimedOnly })).reconcileProposal).toEqual({
        __typename: 'UserError',
        code: 'SELF_RECONCILIATION',
        field: 'id',
        message: 'You executed this (you claimed its execution); another reconciler must settle it.',
      });
      expect(await refusals('executor-and-reconciler', 'SELF_RECONCILIATION')).toHaveLength(2);
      expect((await run(server, reconciler, RECONCILE, { id: claimedOnly })).reconcileProposal.proposal.state).toBe('EXECUTED');
    });

    it('API keys can be made with the RECONCILER role', async () => {
      const made = await run(
        server,
        admin,
        'mutation { createApiKey(input: { name: "made-reconciler", roles: [RECONCILER] }) { ... on CreateApiKeyPayload { apiKey { roles } } } }',
      );
      expect(made.createApiKey.apiKey.roles).toEqual(['RECONCILER']);
      // The command line's `keys create --role reconciler` and the key service take it too.
      expect(rolesOf(['reconciler,executor'])).toEqual(['EXECUTOR', 'RECONCILER']);
      expect(validateRoles(['RECONCILER'])).toEqual(['RECONCILER']);
    });
  });

  describe('(c) reportTargetState only by principals allowed for the target system', () => {
    it('a PROPOSER may not report at all (FORBIDDEN, recorded)', async () => {
      const body = await post(server, agent, REPORT_STATE, { system: 'shop', recordId: 'x', fingerprint: 'fp' });
      expect(body.errors?.map((error) => error.extensions?.code)).toEqual(['FORBIDDEN']);
      expect(body.errors?.[0]?.message).toContain('EXECUTOR (or a name in TARGET_STATE_REPORTERS)');
      expect((await refusals('refund-agent', 'FORBIDDEN')).filter((details) => details.operation === 'reportTargetState')).toHaveLength(1);
    });

    it('a system named in TARGET_STATE_REPORTERS takes reports only from its principals, whatever their roles', async () => {
      const submitted = await run(server, agent, SUBMIT, {
        recordId: 'acct-9',
        action: 'refund',
        risk: 'HIGH',
        system: 'billing',
        fingerprint: 'fp-1',
      });
      const id = submitted.submitProposal.proposal.id;
      // An EXECUTOR, over HTTP and WebSocket: refused for billing, typed, recorded; nothing changes.
      expect(
        (await run(server, executor, REPORT_STATE, { system: 'billing', recordId: 'acct-9', fingerprint: 'fp-2' })).reportTargetState,
      ).toEqual({
        __typename: 'UserError',
        code: 'NOT_TARGET_STATE_REPORTER',
        field: 'target.system',
        message: 'exa may not report the state of "billing": TARGET_STATE_REPORTERS allows only billing-sync for it.',
      });
      const ws = await connectWs(server.url, executor.headers);
      try {
        const overWs = await ws.execute<{ reportTargetState: Record<string, unknown> }>(REPORT_STATE, {
          system: 'billing',
          recordId: 'acct-9',
          fingerprint: 'fp-2',
        });
        expect(overWs.data?.reportTargetState).toMatchObject({ code: 'NOT_TARGET_STATE_REPORTER' });
      } finally {
        await ws.close();
      }
      expect(await refusals('exa', 'NOT_TARGET_STATE_REPORTER')).toEqual([
        expect.objectContaining({ operation: 'reportTargetState', field: 'target.system' }),
        expect.objectContaining({ operation: 'reportTargetState', field: 'target.system' }),
      ]);
      expect((await server.db.read.proposal.findFirstOrThrow({ where: { recordId: 'acct-9' } })).state).toBe('PENDING');
      expect(await server.db.read.event.count({ where: { type: 'TARGET_STATE_REPORTED', actor: 'exa' } })).toBe(1); // price-1's, above

      // billing-sync (VIEWER only) may report billing, over WebSocket too...
      const syncWs = await connectWs(server.url, sync.headers);
      try {
        const reported = await syncWs.execute<{ reportTargetState: Record<string, unknown> }>(REPORT_STATE, {
          system: 'billing',
          recordId: 'acct-9',
          fingerprint: 'fp-2',
        });
        expect(reported.data?.reportTargetState).toEqual({
          __typename: 'ReportTargetStatePayload',
          staleProposals: [{ id, state: 'STALE' }],
        });
      } finally {
        await syncWs.close();
      }
      // ...but no other system: it is not an EXECUTOR.
      expect((await run(server, sync, REPORT_STATE, { system: 'shop', recordId: 'x', fingerprint: 'fp' })).reportTargetState).toEqual({
        __typename: 'UserError',
        code: 'NOT_TARGET_STATE_REPORTER',
        field: 'target.system',
        message:
          'billing-sync may not report the state of "shop": it is not named in TARGET_STATE_REPORTERS, so only principals with the EXECUTOR role may.',
      });
      expect(await refusals('billing-sync', 'NOT_TARGET_STATE_REPORTER')).toHaveLength(1);
    });
  });
});

describe('PROPOSAL_ACTIONS and TARGET_STATE_REPORTERS settings', () => {
  it('parses them, and refuses bad values with one line naming what is wrong', () => {
    expect(loadConfig({}).proposalRules).toEqual({ actions: {}, targetStateReporters: {} });
    expect(
      loadConfig({
        PROPOSAL_ACTIONS: '{"refund":{"minimumRisk":"HIGH"}}',
        TARGET_STATE_REPORTERS: '{"billing":["billing-sync","billing-executor"]}',
      }).proposalRules,
    ).toEqual({ actions: { refund: { minimumRisk: 'HIGH' } }, targetStateReporters: { billing: ['billing-sync', 'billing-executor'] } });
    const bad: [Record<string, string>, RegExp][] = [
      [{ PROPOSAL_ACTIONS: '{refund' }, /^Invalid configuration: PROPOSAL_ACTIONS must be JSON: /],
      [{ PROPOSAL_ACTIONS: '{"refund":{"minimumRisk":"SEVERE"}}' }, /^Invalid configuration: PROPOSAL_ACTIONS: refund\.minimumRisk: /],
      [{ PROPOSAL_ACTIONS: '{"refund":{"minimumRisk":"HIGH","max":1}}' }, /^Invalid configuration: PROPOSAL_ACTIONS: refund: /],
      [{ PROPOSAL_ACTIONS: '["refund"]' }, /^Invalid configuration: PROPOSAL_ACTIONS: \(top\): /],
      [
        { TARGET_STATE_REPORTERS: '{"billing":[]}' },
        /^Invalid configuration: TARGET_STATE_REPORTERS: billing: must name at least one principal$/,
      ],
      [{ TARGET_STATE_REPORTERS: '{"billing":"billing-sync"}' }, /^Invalid configuration: TARGET_STATE_REPORTERS: billing: /],
    ];
    for (const [env, message] of bad) expect(() => loadConfig(env), JSON.stringify(env)).toThrow(message);
  });

  it('a bad PROPOSAL_ACTIONS ends the server’s start with one line', async () => {
    const child = spawnServer({
      PORT: '0',
      DATABASE_URL: databaseUrlOf(`${process.env.TMPDIR ?? '/tmp'}/lp-never-made-${process.pid}.db`),
      PROPOSAL_ACTIONS: '{"refund":{"minimumRisk":"SEVERE"}}',
    });
    try {
      expect(await child.exited).toBe(1);
      expect(child.stderr).toHaveLength(1);
      expect(JSON.parse(child.stderr[0] as string).msg).toMatch(/^Invalid configuration: PROPOSAL_ACTIONS: refund\.minimumRisk: /);
    } finally {
      await child.kill();
    }
  });
});
