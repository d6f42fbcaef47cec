// The action-proposal loop, both backends side by side in one run (issue 18): whole loops per second over
// HTTP, each as the three parties send it — an agent submits a proposal, a reviewer claims it by id and
// approves it, an executor claims the execution, starts an attempt and reports SUCCEEDED — by several
// workers at once (each with a proposer, a reviewer and an executor key of its own), on a fresh database
// of each backend with one server. The write lock's holds come from the server's /metrics; afterwards
// every loop counted must be an EXECUTED proposal with one EXECUTION_SUCCEEDED event.
import type { DatabaseLocation } from '../src/config/database-location.js';
import type { Role } from '../src/domain/access.js';
import { type GraphQLClient, gqlBody, graphqlClient } from './http.js';
import type { IntakeStore } from './intake.js';
import { type BenchKey, makeKeys, principals } from './keys.js';
import { type LockHolds, scrapeLockHolds } from './lock-holds.js';
import { startServer } from './server.js';

type Backend = DatabaseLocation['dialect'];

export interface ProposalLoopMeasurement {
  backend: Backend;
  workers: number;
  seconds: number;
  loops: number;
  loopsPerSecond: number;
  /** Requests answered with an error or an unexpected payload (none expected). */
  errors: number;
  /** Since the server started (warm-up included): the write lock per form, p50/p99 per batch. */
  lockHolds: LockHolds[];
  /** Counted in the database afterwards: EXECUTED proposals and EXECUTION_SUCCEEDED events. */
  stored: { executed: number; succeeded: number };
}

const SUBMIT = `mutation($recordId: String!) { submitProposal(input: { batchId: "loop", recordId: $recordId, action: "set_price",
  parameters: { sku: "A-1", price: 1299 }, reason: "Competitor lowered the price.", target: { system: "shop", recordId: $recordId },
  currentValue: 1499, proposedValue: 1299, dataSource: "crawler", riskLevel: LOW, fingerprint: "fp-1" }) {
  ... on SubmitProposalPayload { proposal { id } } } }`;
const CLAIM = 'mutation($id: ID) { claimProposal(input: { id: $id }) { ... on ClaimProposalPayload { lease { token } } } }';
const APPROVE = `mutation($token: String!) { reviewProposal(input: { token: $token, decision: APPROVE, revision: 1 }) {
  ... on ReviewProposalPayload { proposal { state } } } }`;
const CLAIM_EXECUTION = 'mutation { claimExecution(input: {}) { ... on ClaimExecutionPayload { claimed lease { token } } } }';
const START = `mutation($token: String!) { startExecutionAttempt(input: { token: $token, fingerprint: "fp-1" }) {
  ... on StartExecutionAttemptPayload { proceed } } }`;
const SUCCEED = `mutation($token: String!) { reportExecutionResult(input: { token: $token, outcome: SUCCEEDED }) {
  ... on ReportExecutionResultPayload { proposal { state } } } }`;

/** Counts the loop's failed requests; each step answers its payload's field at `path`, or null. */
function stepper(client: GraphQLClient, failures: { count: number }) {
  return async (key: BenchKey, query: string, variables: Record<string, unknown>, path: string[]): Promise<unknown> => {
    const reply = await client.post(gqlBody(query, variables), { authorization: key.authorization });
    let value: unknown = reply.status === 200 ? (JSON.parse(reply.body) as { data?: unknown }).data : undefined;
    for (const field of path) value = (value as Record<string, unknown> | null | undefined)?.[field];
    if (value === undefined || value === null) failures.count++;
    return value ?? null;
  };
}

/** Loops of submit → claim → approve → claimExecution → attempt → SUCCEEDED, `workers` at once, for `seconds` after `warmUpSeconds`. */
export async function measureProposalLoop(
  store: IntakeStore,
  backend: Backend,
  workers: number,
  seconds: number,
  warmUpSeconds = 1,
): Promise<ProposalLoopMeasurement> {
  const keys = await makeKeys(store.location, [
    { name: 'loop-admin', roles: ['ADMIN'] as Role[] },
    ...principals('loop-agent', workers, ['PROPOSER']),
    ...principals('loop-reviewer', workers, ['REVIEWER']),
    ...principals('loop-executor', workers, ['EXECUTOR']),
  ]);
  const [admin] = keys;
  if (!admin) throw new Error('no admin key was made');
  const role = (kind: string, index: number) => keys.find((key) => key.name === `loop-${kind}-${index}`) as BenchKey;
  const server = await startServer({ ...store.server, synchronous: 'NORMAL' });
  const client = graphqlClient(server.port, workers);
  const failures = { count: 0 };
  const step = stepper(client, failures);
  let counting = false;
  let stopping = false;
  let loops = 0;
  let next = 0;
  try {
    const run = async (index: number) => {
      const [agent, reviewer, executor] = [role('agent', index), role('reviewer', index), role('executor', index)];
      while (!stopping) {
        const id = await step(agent, SUBMIT, { recordId: `r${next++}` }, ['submitProposal', 'proposal', 'id']);
        const review = id && (await step(reviewer, CLAIM, { id }, ['claimProposal', 'lease', 'token']));
        if (review) await step(reviewer, APPROVE, { token: review }, ['reviewProposal', 'proposal', 'state']);
        // Another worker's executor may have taken this worker's approved proposal: nothing to claim is an answer.
        const claim = (await step(executor, CLAIM_EXECUTION, {}, ['claimExecution'])) as {
          claimed?: boolean;
          lease?: { token: string };
        } | null;
        const token = claim?.claimed ? claim.lease?.token : null;
        if (!token) continue;
        if (!(await step(executor, START, { token }, ['startExecutionAttempt', 'proceed']))) continue;
        const state = await step(executor, SUCCEED, { token }, ['reportExecutionResult', 'proposal', 'state']);
        if (state === 'EXECUTED' && counting) loops++;
      }
    };
    const running = Promise.all(Array.from({ length: workers }, (_, index) => run(index)));
    await new Promise((resolve) => setTimeout(resolve, warmUpSeconds * 1000));
    failures.count = 0;
    counting = true;
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    counting = false;
    const measured = (performance.now() - started) / 1000;
    const counted = loops;
    const errors = failures.count;
    stopping = true;
    await running;
    return {
      backend,
      workers,
      seconds: measured,
      loops: counted,
      loopsPerSecond: counted / measured,
      errors,
      lockHolds: await scrapeLockHolds([server.port], admin.authorization),
      stored: {
        executed: await store.count(`SELECT count(*) FROM "Proposal" WHERE "state" = 'EXECUTED'`),
        succeeded: await store.count(`SELECT count(*) FROM "Event" WHERE "type" = 'EXECUTION_SUCCEEDED'`),
      },
    };
  } finally {
    client.close();
    await server.stop();
  }
}
