// The example executor (examples/executor) against a real in-process Leasehold and the simulated billing service: every failure ends where its failure matrix says, and no refund is ever applied twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExecutor } from '../../examples/executor/executor.js';
import { reconcile } from '../../examples/executor/reconcile.js';
import { type Account, fingerprintOf, type RemoteService, startRemoteService } from '../../examples/executor/remote-service.js';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';

type Body<T> = { data?: T | null; errors?: { message: string }[] };

interface Shown {
  state: string;
  stateReason: string | null;
  operationId: string | null;
  attempts: { number: number; operationId: string; outcome: string | null; response: unknown; correlationId: string | null }[];
  history: { edges: { node: { type: string; actor: string; details: Record<string, unknown> } }[] };
}

const SUBMIT = `mutation($recordId: String!, $account: String!, $amount: Int!, $fingerprint: String!, $current: JSON) {
  submitProposal(input: { batchId: "example-executor", recordId: $recordId, action: "refund", parameters: { amount: $amount },
    reason: "Duplicate charge", target: { system: "billing", recordId: $account }, currentValue: $current,
    dataSource: "billing GET /accounts", riskLevel: LOW, fingerprint: $fingerprint }) {
    ... on SubmitProposalPayload { proposal { id } }
    ... on UserError { code message }
  }
}`;
const CLAIM = `mutation { claimProposal(input: { leaseSeconds: 120 }) {
  ... on ClaimProposalPayload { claimed proposal { id } lease { token } } ... on UserError { code message } } }`;
const APPROVE = `mutation($token: String!) { reviewProposal(input: { token: $token, decision: APPROVE, revision: 1 }) {
  ... on ReviewProposalPayload { proposal { state operationId } } ... on UserError { code message } } }`;
const SHOW = `query($id: ID!) { node(id: $id) { ... on Proposal {
  state stateReason operationId
  attempts { number operationId outcome response correlationId }
  history(first: 50) { edges { node { type actor details } } } } } }`;

describe('the example executor', () => {
  let server: TestServer;
  let remote: RemoteService;
  let proposer: TestClient;
  let reviewer: TestClient;
  let executor: TestClient;
  let admin: TestClient;
  let reconciler: TestClient;

  beforeAll(async () => {
    server = await startTestServer();
    remote = await startRemoteService();
    proposer = await server.as('refund-agent', ['PROPOSER']);
    reviewer = await server.as('rita', ['REVIEWER']);
    executor = await server.as('billing-executor', ['EXECUTOR']);
    admin = await server.as('ops-admin', ['ADMIN']);
    reconciler = await server.as('ops-reconciler', ['RECONCILER']);
  });
  afterAll(async () => {
    await remote.stop();
    await server.stop();
  });

  async function run<T>(client: TestClient, query: string, variables: Record<string, unknown> = {}): Promise<T> {
    const body = (await (await postGraphQL(server.url, query, variables, client.headers)).json()) as Body<T>;
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    return body.data as T;
  }

  /** An account on the billing service and an approved refund proposal made against what the proposer read there. */
  async function approvedRefund(account: Account, amount: number): Promise<{ id: string; operationId: string }> {
    remote.setAccount(account);
    const read = (await (await fetch(`${remote.url}/accounts/${account.id}`)).json()) as { account: Account; fingerprint: string };
    // The proposer computes the fingerprint with the exported function and gets what the service says.
    expect(read.fingerprint).toBe(fingerprintOf(read.account));
    const submitted = (
      await run<{ submitProposal: { proposal?: { id: string }; code?: string } }>(proposer, SUBMIT, {
        recordId: account.id,
        account: account.id,
        amount,
        fingerprint: read.fingerprint,
        current: read.account,
      })
    ).submitProposal;
    const id = submitted.proposal?.id;
    if (!id) throw new Error(`not submitted: ${JSON.stringify(submitted)}`);
    const claim = (await run<{ claimProposal: { proposal: { id: string }; lease: { token: string } } }>(reviewer, CLAIM)).claimProposal;
    expect(claim.proposal.id).toBe(id);
    const approved = (
      await run<{ reviewProposal: { proposal: { state: string; operationId: string } } }>(reviewer, APPROVE, { token: claim.lease.token })
    ).reviewProposal;
    expect(approved.proposal.state).toBe('APPROVED');
    return { id, operationId: approved.proposal.operationId };
  }

  const execute = (options: Partial<Parameters<typeof runExecutor>[0]> = {}) =>
    runExecutor({ url: server.url, key: executor.key, remoteUrl: remote.url, leaseSeconds: 60, once: true, ...options });
  const reconcileAll = () => reconcile({ url: server.url, key: reconciler.key, remoteUrl: remote.url });
  const show = async (id: string) => (await run<{ node: Shown }>(admin, SHOW, { id })).node;
  const effectsOf = (operationId: string) => remote.effects.filter((effect) => effect.key === operationId);
  const historyTypes = (proposal: Shown) => proposal.history.edges.map((edge) => edge.node.type);
  const remembered = async (account: string) =>
    (
      await run<{ targetState: { fingerprint: string; reportedBy: string; source: string } | null }>(
        admin,
        'query($id: String!) { targetState(system: "billing", recordId: $id) { fingerprint reportedBy source } }',
        { id: account },
      )
    ).targetState;

  it('carries out an approved refund once and reports SUCCEEDED with the service’s answer', async () => {
    const { id, operationId } = await approvedRefund({ id: 'acct-happy', balance: 10_000 }, 1_200);
    const [report] = await execute();
    expect(report).toMatchObject({ proposalId: id, operationId, outcome: 'SUCCEEDED', state: 'EXECUTED' });
    expect(remote.account('acct-happy')?.balance).toBe(8_800);
    expect(effectsOf(operationId)).toHaveLength(1);
    const proposal = await show(id);
    expect(proposal.state).toBe('EXECUTED');
    expect(proposal.attempts).toEqual([
      {
        number: 1,
        operationId,
        outcome: 'SUCCEEDED',
        correlationId: effectsOf(operationId)[0]?.result.refundId,
        response: { status: 201, replayed: false, body: expect.objectContaining({ amount: 1_200, balanceAfter: 8_800, operationId }) },
      },
    ]);
    // The result carries the account's fingerprint read after the refund: Leasehold remembers it (issue 17, item 2).
    const after = fingerprintOf({ id: 'acct-happy', balance: 8_800 });
    const succeeded = proposal.history.edges.find((edge) => edge.node.type === 'EXECUTION_SUCCEEDED');
    expect(succeeded?.node.details).toMatchObject({ from: 'EXECUTING', reportedFingerprint: after });
    expect(await remembered('acct-happy')).toEqual({ fingerprint: after, reportedBy: 'billing-executor', source: 'EXECUTION' });
    // Nothing else is ready: a second run claims nothing.
    expect(await execute()).toEqual([]);
  });

  it('stops before sending when the account changed since the proposal: STALE, no refund', async () => {
    const { id, operationId } = await approvedRefund({ id: 'acct-moved', balance: 10_000 }, 1_000);
    remote.setAccount({ id: 'acct-moved', balance: 9_500 });
    const [report] = await execute();
    expect(report).toMatchObject({ proposalId: id, outcome: null, state: 'STALE' });
    expect(remote.account('acct-moved')?.balance).toBe(9_500);
    expect(remote.operations.has(operationId)).toBe(false);
    const proposal = await show(id);
    expect(proposal).toMatchObject({ state: 'STALE', attempts: [] });
    expect(proposal.stateReason).toContain(fingerprintOf({ id: 'acct-moved', balance: 9_500 }).slice(0, 60));
  });

  it('reports a refusal that changed nothing (422) as REJECTED_BY_REMOTE: FAILED', async () => {
    const { id, operationId } = await approvedRefund({ id: 'acct-poor', balance: 500 }, 1_000);
    const [report] = await execute();
    expect(report).toMatchObject({ proposalId: id, outcome: 'REJECTED_BY_REMOTE', state: 'FAILED', remote: { status: 422 } });
    expect(remote.account('acct-poor')?.balance).toBe(500);
    expect(remote.operations.has(operationId)).toBe(false);
    // Refused, the account is unchanged, and the report says so with its fingerprint.
    expect(await remembered('acct-poor')).toMatchObject({
      fingerprint: fingerprintOf({ id: 'acct-poor', balance: 500 }),
      source: 'EXECUTION',
    });
  });

  it.each([
    ['failure after accepting (500 after the refund)', 'fail-after-applying'],
    ['lost response (refund applied, connection dropped)', 'drop-response'],
  ] as const)(
    '%s → UNKNOWN → OUTCOME_UNKNOWN; reconcile finds it applied once and marks it EXECUTED with evidence',
    async (_name, fault) => {
      const account = `acct-${fault}`;
      const { id, operationId } = await approvedRefund({ id: account, balance: 5_000 }, 700);
      remote.failNext(fault);
      const [report] = await execute();
      expect(report).toMatchObject({ proposalId: id, outcome: 'UNKNOWN', state: 'OUTCOME_UNKNOWN' });
      expect(effectsOf(operationId)).toHaveLength(1);
      // The effect may still land: no fingerprint is reported with UNKNOWN.
      expect(await remembered(account)).toBeNull();
      expect(remote.account(account)?.balance).toBe(4_300);
      // Never re-run automatically: no executor gets it.
      expect(await execute()).toEqual([]);

      // The billing service cannot be asked: the helper leaves it alone rather than guess.
      await remote.stop();
      const blind = (await reconcileAll()).find((finding) => finding.proposalId === id);
      expect(blind).toMatchObject({ executed: null, state: null });
      expect(blind?.error).toContain('could not be asked');
      expect((await show(id)).state).toBe('OUTCOME_UNKNOWN');
      await remote.start();

      const finding = (await reconcileAll()).find((found) => found.proposalId === id);
      expect(finding).toMatchObject({ operationId, executed: true, state: 'EXECUTED' });
      const proposal = await show(id);
      expect(proposal.state).toBe('EXECUTED');
      expect(proposal.stateReason).toContain(`/operations/${operationId}: applied at`);
      expect(proposal.stateReason).toContain(effectsOf(operationId)[0]?.result.refundId);
      expect(proposal.attempts).toMatchObject([{ number: 1, outcome: 'UNKNOWN' }]);
      const reconciled = proposal.history.edges.find((edge) => edge.node.type === 'PROPOSAL_RECONCILED');
      expect(reconciled?.node).toMatchObject({ actor: 'ops-reconciler', details: { executed: true, from: 'OUTCOME_UNKNOWN' } });
      expect(effectsOf(operationId)).toHaveLength(1);
      expect(remote.account(account)?.balance).toBe(4_300);
    },
  );

  it('failure before processing (503) → UNKNOWN (sent, so not provably harmless); reconcile finds nothing applied → APPROVED → runs once under the same operation id', async () => {
    const { id, operationId } = await approvedRefund({ id: 'acct-busy', balance: 3_000 }, 300);
    remote.failNext('fail-before-processing');
    const [report] = await execute();
    expect(report).toMatchObject({ proposalId: id, outcome: 'UNKNOWN', state: 'OUTCOME_UNKNOWN', remote: { status: 503 } });
    expect(remote.operations.has(operationId)).toBe(false);

    const finding = (await reconcileAll()).find((found) => found.proposalId === id);
    expect(finding).toMatchObject({ executed: false, state: 'APPROVED' });
    expect(finding?.evidence).toContain(fingerprintOf({ id: 'acct-busy', balance: 3_000 }));

    const [retry] = await execute();
    expect(retry).toMatchObject({ proposalId: id, operationId, outcome: 'SUCCEEDED', state: 'EXECUTED' });
    expect(effectsOf(operationId)).toHaveLength(1);
    expect(remote.account('acct-busy')?.balance).toBe(2_700);
    expect((await show(id)).attempts).toMatchObject([
      { number: 1, operationId, outcome: 'UNKNOWN' },
      { number: 2, operationId, outcome: 'SUCCEEDED' },
    ]);
  });

  it('never applies twice: the first attempt’s request lands late, after the second attempt with the same operation id succeeded', async () => {
    const { id, operationId } = await approvedRefund({ id: 'acct-late', balance: 2_000 }, 250);
    // Attempt 1's request gets stuck on the way; the executor gives up on it.
    remote.failNext('hold');
    const [timedOut] = await execute({ requestTimeoutMs: 300 });
    expect(timedOut).toMatchObject({ proposalId: id, outcome: 'UNKNOWN', state: 'OUTCOME_UNKNOWN' });
    expect(timedOut?.why).toContain('may or may not');
    // Truthfully not applied yet, so reconciliation sends it back for another attempt.
    expect((await reconcileAll()).find((found) => found.proposalId === id)).toMatchObject({ executed: false, state: 'APPROVED' });
    const [second] = await execute();
    expect(second).toMatchObject({ proposalId: id, operationId, outcome: 'SUCCEEDED', state: 'EXECUTED' });
    expect(remote.account('acct-late')?.balance).toBe(1_750);

    // Now attempt 1's request arrives: same key, so the service answers from its store and refunds nothing.
    const late = await remote.releaseHeld();
    expect(late).toEqual([{ status: 201, replayed: true, body: effectsOf(operationId)[0]?.result }]);
    expect(effectsOf(operationId)).toHaveLength(1);
    expect(remote.account('acct-late')?.balance).toBe(1_750);
  });

  it('a repeated request with one idempotency key is answered from the store, even at the same moment', async () => {
    remote.setAccount({ id: 'acct-repeat', balance: 1_000 });
    const post = () =>
      fetch(`${remote.url}/refunds`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'op-repeat' },
        body: JSON.stringify({ accountId: 'acct-repeat', amount: 100 }),
      });
    const answers = await Promise.all([post(), post(), post()]);
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201]);
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === 'true')).toHaveLength(2);
    expect(effectsOf('op-repeat')).toHaveLength(1);
    expect(remote.account('acct-repeat')?.balance).toBe(900);
    const other = await fetch(`${remote.url}/refunds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'op-repeat' },
      body: JSON.stringify({ accountId: 'acct-repeat', amount: 999 }),
    });
    expect(other.status).toBe(409);
    expect(remote.account('acct-repeat')?.balance).toBe(900);
  });

  it('connection refused before sending → FAILED_BEFORE_SEND: APPROVED again, then carried out under the same operation id', async () => {
    const { id, operationId } = await approvedRefund({ id: 'acct-down', balance: 4_000 }, 400);
    // The service goes down between the fingerprint check and the call.
    const [refused] = await execute({
      onEvent: async (event) => {
        if (event.type === 'attempt-started') await remote.stop();
      },
    });
    await remote.start();
    expect(refused).toMatchObject({ proposalId: id, outcome: 'FAILED_BEFORE_SEND', state: 'APPROVED' });
    expect(refused?.why).toContain('ECONNREFUSED');
    expect(remote.operations.has(operationId)).toBe(false);

    // Down before the executor could even read the account: nothing sent, no attempt.
    await remote.stop();
    const [unread] = await execute();
    await remote.start();
    expect(unread).toMatchObject({ proposalId: id, outcome: 'FAILED_BEFORE_SEND', state: 'APPROVED' });

    const [done] = await execute();
    expect(done).toMatchObject({ proposalId: id, operationId, outcome: 'SUCCEEDED', state: 'EXECUTED' });
    expect(effectsOf(operationId)).toHaveLength(1);
    expect((await show(id)).attempts).toMatchObject([
      { number: 1, operationId, outcome: 'FAILED_BEFORE_SEND' },
      { number: 2, operationId, outcome: 'SUCCEEDED' },
    ]);
  });

  it('keeps the execution lease alive while a slow call is in flight', async () => {
    const { id, operationId } = await approvedRefund({ id: 'acct-slow', balance: 1_000 }, 100);
    remote.failNext('hold');
    // The service answers only once the lease has been renewed.
    const [report] = await execute({
      renewEveryMs: 50,
      onEvent: async (event) => {
        if (event.type === 'lease-renewed') await remote.releaseHeld();
      },
    });
    expect(report).toMatchObject({ proposalId: id, outcome: 'SUCCEEDED', state: 'EXECUTED' });
    expect(effectsOf(operationId)).toHaveLength(1);
    const renewals = (await show(id)).history.edges.filter(
      (edge) => edge.node.type === 'PROPOSAL_LEASE_RENEWED' && edge.node.details.kind === 'EXECUTION',
    );
    expect(renewals.length).toBeGreaterThanOrEqual(1);
    expect(historyTypes(await show(id)).at(-1)).toBe('EXECUTION_SUCCEEDED');
  });

  it('claims only the actions and systems it carries out: an approved proposal for another executor never blocks a refund', async () => {
    // Approved first, so first in line for any executor that claims whatever is next.
    const other = (
      await run<{ submitProposal: { proposal?: { id: string } } }>(
        proposer,
        `mutation { submitProposal(input: { batchId: "example-executor", recordId: "crm-7", action: "notify", parameters: { template: "welcome" },
          reason: "Onboarding", target: { system: "crm", recordId: "contact-7" }, dataSource: "crm", riskLevel: LOW, fingerprint: "fp-7" }) {
          ... on SubmitProposalPayload { proposal { id } } } }`,
      )
    ).submitProposal.proposal?.id;
    const claim = (await run<{ claimProposal: { proposal: { id: string }; lease: { token: string } } }>(reviewer, CLAIM)).claimProposal;
    expect(claim.proposal.id).toBe(other);
    await run(reviewer, APPROVE, { token: claim.lease.token });
    const { id, operationId } = await approvedRefund({ id: 'acct-filtered', balance: 2_000 }, 250);

    const [report] = await execute();
    expect(report).toMatchObject({ proposalId: id, operationId, outcome: 'SUCCEEDED', state: 'EXECUTED' });
    // The other proposal was never claimed, and is still waiting for an executor that carries it out.
    const untouched = await show(other as string);
    expect(untouched.state).toBe('APPROVED');
    expect(historyTypes(untouched)).not.toContain('EXECUTION_CLAIMED');
    expect(await execute()).toEqual([]);
  });

  it('backs off after failures in a row (doubling from the poll interval up to the cap, jittered), and a success resets it', async () => {
    const { id, operationId } = await approvedRefund({ id: 'acct-backoff', balance: 3_000 }, 300);
    await remote.stop();
    const stop = new AbortController();
    const pauses: number[] = [];
    const reports = await runExecutor({
      url: server.url,
      key: executor.key,
      remoteUrl: remote.url,
      leaseSeconds: 60,
      pollIntervalMs: 1_000,
      maxBackoffMs: 5_000,
      signal: stop.signal,
      // Recorded instead of waited for; after six failures the service is back, and after its first idle pause the loop stops.
      pause: async (ms) => {
        pauses.push(ms);
        if (pauses.length === 6) await remote.start();
        if (pauses.length === 7) stop.abort();
      },
    });
    expect(reports.slice(0, 6).every((report) => report.outcome === 'FAILED_BEFORE_SEND' && report.proposalId === id)).toBe(true);
    expect(reports[6]).toMatchObject({ proposalId: id, operationId, outcome: 'SUCCEEDED', state: 'EXECUTED' });
    // Each pause lies between half and all of its ceiling: 1, 2, 4 s, then the 5 s cap.
    const ceilings = [1_000, 2_000, 4_000, 5_000, 5_000, 5_000];
    for (const [n, ceiling] of ceilings.entries()) {
      expect(pauses[n]).toBeGreaterThanOrEqual(ceiling / 2);
      expect(pauses[n]).toBeLessThanOrEqual(ceiling);
    }
    // Done, the queue is empty: the plain poll interval again.
    expect(pauses[6]).toBe(1_000);
    expect(effectsOf(operationId)).toHaveLength(1);
  });
});
