// Example executor: carries out approved "refund" proposals against the billing service, passing the operation id as idempotency key.
import { randomUUID } from 'node:crypto';
import { describeError, type LeaseholdClient, LeaseholdRefusal, LeaseholdUnavailable, leaseholdClient } from './leasehold-client.js';

/** What the executor tells Leasehold about an attempt (the API's ExecutionOutcome). */
export type Outcome = 'SUCCEEDED' | 'FAILED_BEFORE_SEND' | 'REJECTED_BY_REMOTE' | 'UNKNOWN';

export interface ExecutorOptions {
  /** Leasehold's base URL, e.g. http://127.0.0.1:4000 */
  url: string;
  /** An API key with the EXECUTOR role. */
  key: string;
  /** The billing service's base URL. */
  remoteUrl: string;
  /** Execution lease length, 30–3600 s (default 60). */
  leaseSeconds?: number;
  /** Handle at most one proposal and return; otherwise loop until `signal` aborts. */
  once?: boolean;
  signal?: AbortSignal;
  /** How long one call to the billing service may take (default 10 s); past it the outcome is UNKNOWN. */
  requestTimeoutMs?: number;
  /** How often to renew the execution lease while working on it (default a third of the lease). */
  renewEveryMs?: number;
  /** Loop mode: the pause when nothing is ready, and the first pause after a failure (default 2 s). */
  pollIntervalMs?: number;
  /**
   * Loop mode: after failures in a row (Leasehold or the billing service unreachable, a refund that could
   * not be sent), each pause doubles from `pollIntervalMs` up to this (default 60 s), with jitter (between
   * half and all of it) so that several executors do not retry in step. A success or an empty queue resets it.
   */
  maxBackoffMs?: number;
  /** How the loop waits (tests pass one that records the pauses); default a timer that `signal` cuts short. */
  pause?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Called at every step, for logs and metrics. Awaited: keep it quick. */
  onEvent?: (event: ExecutorEvent) => void | Promise<void>;
}

export type ExecutorEvent =
  | { type: 'claimed'; proposalId: string; operationId: string; action: string; target: string }
  | { type: 'attempt-started'; proposalId: string; operationId: string; attempt: number; fingerprint: string }
  | { type: 'remote-answered'; proposalId: string; status: number; replayed: boolean }
  | { type: 'lease-renewed'; proposalId: string; expiresAt: string }
  | { type: 'lease-renewal-failed'; proposalId: string; error: string }
  | { type: 'finished'; report: ExecutionReport }
  | { type: 'idle' }
  | { type: 'error'; error: string };

/** How one claimed proposal ended, from the executor's side. */
export interface ExecutionReport {
  proposalId: string;
  operationId: string;
  /** What was reported; null when nothing ran (STALE or EXPIRED at the check) or nothing could be reported. */
  outcome: Outcome | null;
  /** The proposal's state afterwards as Leasehold answered it; null when the report did not get through. */
  state: string | null;
  /** Why, in one sentence. */
  why: string;
  /** The billing service's answer, when it gave one. */
  remote?: RemoteAnswer;
}

export interface RemoteAnswer {
  status: number;
  body: unknown;
  /** The service answered from its idempotency store: this key had already taken effect. */
  replayed: boolean;
}

/**
 * Statuses the billing service documents as "refused, nothing changed": safe to report as
 * REJECTED_BY_REMOTE (→ FAILED). Everything else that is not 2xx — 5xx, 408, 409, 429, anything
 * unexpected — may have taken effect, so it is UNKNOWN. Widen this list only from the remote's contract.
 */
export const REFUSED_STATUSES: ReadonlySet<number> = new Set([400, 404, 412, 422]);

/** Connection errors that prove the request never left this process: nothing can have happened. */
const NEVER_SENT_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND']);

/** The outcome an HTTP answer from the billing service means. */
export function outcomeOfStatus(status: number): Outcome {
  if (status >= 200 && status < 300) return 'SUCCEEDED';
  return REFUSED_STATUSES.has(status) ? 'REJECTED_BY_REMOTE' : 'UNKNOWN';
}

/**
 * The outcome a failed fetch means. Only a refused connection or an unknown host proves nothing was
 * sent; a reset, a closed socket or a timeout can come after the service applied the refund.
 */
export function outcomeOfNetworkError(error: unknown): Outcome {
  const codes = errorCodes(error);
  return codes.length > 0 && codes.every((code) => NEVER_SENT_CODES.has(code)) ? 'FAILED_BEFORE_SEND' : 'UNKNOWN';
}

function errorCodes(error: unknown): string[] {
  // fetch wraps the socket error: TypeError("fetch failed", { cause: Error { code } }), and trying
  // several addresses gives an AggregateError of them.
  const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
  if (cause instanceof AggregateError) return cause.errors.flatMap(errorCodes);
  const code = (cause as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? [code] : [];
}

/** What this executor carries out: it claims only these, so proposals for other executors never block it. */
export const CARRIES_OUT = { actions: ['refund'], targetSystems: ['billing'] } as const;

const CLAIM = `mutation ExampleClaimExecution($leaseSeconds: Int!, $actions: [String!], $targetSystems: [String!]) {
  claimExecution(input: { leaseSeconds: $leaseSeconds, actions: $actions, targetSystems: $targetSystems }) {
    __typename
    ... on ClaimExecutionPayload { claimed operationId lease { token } proposal { id action parameters target { system recordId } } }
    ... on UserError { code field message }
  }
}`;
const START = `mutation ExampleStartAttempt($token: String!, $fingerprint: String!, $correlationId: String) {
  startExecutionAttempt(input: { token: $token, fingerprint: $fingerprint, correlationId: $correlationId }) {
    __typename
    ... on StartExecutionAttemptPayload { proceed proposal { state stateReason } attempt { number } }
    ... on UserError { code field message }
  }
}`;
const REPORT = `mutation ExampleReport($token: String!, $outcome: ExecutionOutcome!, $response: JSON, $correlationId: String, $fingerprint: String) {
  reportExecutionResult(input: { token: $token, outcome: $outcome, response: $response, correlationId: $correlationId, fingerprint: $fingerprint }) {
    __typename
    ... on ReportExecutionResultPayload { proposal { state } }
    ... on UserError { code field message }
  }
}`;
const RENEW = `mutation ExampleRenew($token: String!, $leaseSeconds: Int!) {
  renewProposalLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {
    __typename
    ... on RenewProposalLeasePayload { proposal { leaseExpiresAt } }
    ... on UserError { code field message }
  }
}`;
const READ_BACK = `query ExampleReadBack($id: ID!) { node(id: $id) { ... on Proposal { state attempts { number outcome } } } }`;

interface Claim {
  token: string;
  operationId: string;
  proposal: { id: string; action: string; parameters: Record<string, unknown>; target: { system: string; recordId: string } };
}

/** Claims and carries out approved proposals until aborted, or one with `once`. Returns what it handled. */
export async function runExecutor(options: ExecutorOptions): Promise<ExecutionReport[]> {
  const client = leaseholdClient({ url: options.url, key: options.key });
  const emit = async (event: ExecutorEvent) => options.onEvent?.(event);
  const pollMs = options.pollIntervalMs ?? 2_000;
  const maxBackoffMs = options.maxBackoffMs ?? 60_000;
  const wait = options.pause ?? pause;
  /** Failures in a row: the next pause is pollMs × 2^(failures − 1), at most maxBackoffMs, jittered. */
  let failures = 0;
  const backOff = () => {
    const ceiling = Math.min(maxBackoffMs, pollMs * 2 ** Math.min(failures, 30));
    failures++;
    return wait(ceiling / 2 + Math.random() * (ceiling / 2), options.signal);
  };
  const reports: ExecutionReport[] = [];
  while (!options.signal?.aborted) {
    let report: ExecutionReport | null;
    try {
      report = await executeNext(client, options, emit);
    } catch (error) {
      // A refusal of claimExecution itself (bad key, missing role) will not heal by waiting.
      if (options.once || error instanceof LeaseholdRefusal) throw error;
      await emit({ type: 'error', error: describeError(error) });
      await backOff();
      continue;
    }
    if (report) reports.push(report);
    if (options.once) break;
    if (report?.outcome === 'FAILED_BEFORE_SEND') {
      // It is APPROVED again and would be handed straight back: give the billing service time to recover.
      await backOff();
      continue;
    }
    failures = 0;
    if (!report) {
      await emit({ type: 'idle' });
      await wait(pollMs, options.signal);
    }
  }
  return reports;
}

/** Claims the next approved proposal and carries it out; null when none is ready. */
async function executeNext(
  client: LeaseholdClient,
  options: ExecutorOptions,
  emit: (event: ExecutorEvent) => Promise<void>,
): Promise<ExecutionReport | null> {
  const leaseSeconds = options.leaseSeconds ?? 60;
  const claimed = await client.mutate<{
    claimed: boolean;
    operationId: string | null;
    lease: { token: string } | null;
    proposal: Claim['proposal'] | null;
  }>('claimExecution', CLAIM, { leaseSeconds, actions: CARRIES_OUT.actions, targetSystems: CARRIES_OUT.targetSystems });
  if (!claimed.claimed || !claimed.lease || !claimed.proposal || !claimed.operationId) return null;
  const claim: Claim = { token: claimed.lease.token, operationId: claimed.operationId, proposal: claimed.proposal };
  const { proposal } = claim;
  await emit({
    type: 'claimed',
    proposalId: proposal.id,
    operationId: claim.operationId,
    action: proposal.action,
    target: `${proposal.target.system}/${proposal.target.recordId}`,
  });

  // From now on the lease must outlive the work, however long the billing service takes.
  const lease = keepLeaseAlive(client, claim, leaseSeconds, options.renewEveryMs ?? (leaseSeconds * 1000) / 3, emit);
  let result: Attempted;
  try {
    result = await attempt(client, claim, options, emit);
  } finally {
    // Stopped (and any renewal in flight awaited) before reporting, so a late renewal cannot race the report.
    await lease.stop();
  }
  const report: ExecutionReport =
    result.kind === 'done'
      ? { proposalId: proposal.id, operationId: claim.operationId, outcome: null, state: result.state, why: result.why }
      : await reportResult(client, claim, result);
  await emit({ type: 'finished', report });
  return report;
}

type Attempted =
  | { kind: 'done'; state: string | null; why: string }
  | {
      kind: 'report';
      outcome: Outcome;
      why: string;
      remote?: RemoteAnswer;
      correlationId?: string;
      /** The account's fingerprint as read after the attempt (or before it, when nothing was sent); Leasehold remembers it. */
      fingerprint?: string;
    };

/** Everything between the claim and the report: which call, the fingerprint check, the call itself. */
async function attempt(
  client: LeaseholdClient,
  claim: Claim,
  options: ExecutorOptions,
  emit: (event: ExecutorEvent) => Promise<void>,
): Promise<Attempted> {
  const { proposal } = claim;
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  if (
    !(CARRIES_OUT.actions as readonly string[]).includes(proposal.action) ||
    !(CARRIES_OUT.targetSystems as readonly string[]).includes(proposal.target.system)
  ) {
    // The claim asked for these only, so this is a server that ignored the filters: give it back untouched.
    return {
      kind: 'report',
      outcome: 'FAILED_BEFORE_SEND',
      why: `This executor does not carry out ${proposal.action} on ${proposal.target.system}.`,
    };
  }

  let fingerprint: string;
  try {
    fingerprint = await readFingerprint(options.remoteUrl, proposal.target.recordId, timeoutMs);
  } catch (error) {
    // Only a read failed: nothing was sent, so the proposal may go back to APPROVED (same operation id).
    return { kind: 'report', outcome: 'FAILED_BEFORE_SEND', why: `Could not read the account's fingerprint: ${describeError(error)}.` };
  }

  const correlationId = randomUUID();
  let started: { proceed: boolean; proposal: { state: string; stateReason: string | null }; attempt: { number: number } | null };
  try {
    started = await client.mutate('startExecutionAttempt', START, { token: claim.token, fingerprint, correlationId });
  } catch (error) {
    if (error instanceof LeaseholdRefusal) return { kind: 'done', state: null, why: `Leasehold refused the attempt: ${error.message}.` };
    // Whether the attempt was recorded is unknown, but nothing was sent: say so, and send nothing.
    return { kind: 'report', outcome: 'FAILED_BEFORE_SEND', why: `Could not start the attempt: ${describeError(error)}.`, fingerprint };
  }
  if (!started.proceed || !started.attempt) {
    return {
      kind: 'done',
      state: started.proposal.state,
      why: started.proposal.stateReason ?? `The proposal is ${started.proposal.state}.`,
    };
  }
  await emit({
    type: 'attempt-started',
    proposalId: proposal.id,
    operationId: claim.operationId,
    attempt: started.attempt.number,
    fingerprint,
  });

  const request = { accountId: proposal.target.recordId, amount: proposal.parameters.amount };
  let response: Response;
  try {
    response = await fetch(`${options.remoteUrl}/refunds`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        // The same for every attempt of this approval: a repeat can never refund twice.
        'idempotency-key': claim.operationId,
        // The service re-checks the fingerprint as it applies the refund, closing the gap since the check above.
        'if-match': fingerprint,
        'x-correlation-id': correlationId,
      },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const outcome = outcomeOfNetworkError(error);
    const why =
      outcome === 'FAILED_BEFORE_SEND'
        ? `The billing service refused the connection (${describeError(error)}): nothing was sent.`
        : `No answer from the billing service after sending (${describeError(error)}): the refund may or may not have been applied.`;
    // Nothing was sent: the account still reads as it did just before. Sent: it may still change, so say nothing.
    return { kind: 'report', outcome, why, correlationId, ...(outcome === 'FAILED_BEFORE_SEND' ? { fingerprint } : {}) };
  }
  const body = await readJson(response);
  const remote: RemoteAnswer = { status: response.status, body, replayed: response.headers.get('idempotent-replayed') === 'true' };
  await emit({ type: 'remote-answered', proposalId: proposal.id, status: remote.status, replayed: remote.replayed });
  const outcome = outcomeOfStatus(response.status);
  const why =
    outcome === 'SUCCEEDED'
      ? `The billing service confirmed the refund${remote.replayed ? ' (already applied under this operation id: answered from its idempotency store)' : ''}.`
      : outcome === 'REJECTED_BY_REMOTE'
        ? `The billing service refused it with ${response.status}, nothing changed.`
        : `The billing service answered ${response.status} after receiving it: the refund may or may not have been applied.`;
  const refundId = (body as { refundId?: unknown } | null)?.refundId;
  // Applied or refused, the account is settled: read it again so Leasehold remembers what it holds now (other
  // proposals made against the old reading become STALE). UNKNOWN may still land, so nothing is read for it.
  const after =
    outcome === 'UNKNOWN'
      ? undefined
      : await readFingerprint(options.remoteUrl, proposal.target.recordId, timeoutMs).catch(() => undefined);
  return {
    kind: 'report',
    outcome,
    why,
    remote,
    correlationId: typeof refundId === 'string' ? refundId : correlationId,
    ...(after === undefined ? {} : { fingerprint: after }),
  };
}

/** GET /accounts/:id → its fingerprint (also given for a missing account, which then reads as changed). */
async function readFingerprint(remoteUrl: string, accountId: string, timeoutMs: number): Promise<string> {
  const response = await fetch(`${remoteUrl}/accounts/${encodeURIComponent(accountId)}`, { signal: AbortSignal.timeout(timeoutMs) });
  const body = (await readJson(response)) as { fingerprint?: unknown } | null;
  if ((response.status !== 200 && response.status !== 404) || typeof body?.fingerprint !== 'string') {
    throw new Error(`GET /accounts/${accountId} answered ${response.status}`);
  }
  return body.fingerprint;
}

/**
 * reportExecutionResult, repeated while Leasehold is unreachable: the report is not the action, so
 * repeating it is safe. If it never gets through, the lease lapses and Leasehold itself marks the
 * proposal OUTCOME_UNKNOWN, for the reconcile helper.
 */
async function reportResult(client: LeaseholdClient, claim: Claim, result: Attempted & { kind: 'report' }): Promise<ExecutionReport> {
  const base = {
    proposalId: claim.proposal.id,
    operationId: claim.operationId,
    outcome: result.outcome,
    why: result.why,
    remote: result.remote,
  };
  const response = result.remote ? boundedResponse(result.remote) : { error: result.why };
  for (let tries = 1; ; tries++) {
    try {
      const payload = await client.mutate<{ proposal: { state: string } }>('reportExecutionResult', REPORT, {
        token: claim.token,
        outcome: result.outcome,
        response,
        correlationId: result.correlationId ?? null,
        fingerprint: result.fingerprint ?? null,
      });
      return { ...base, state: payload.proposal.state };
    } catch (error) {
      if (error instanceof LeaseholdUnavailable && tries < 4) {
        await pause(250 * 2 ** (tries - 1));
        continue;
      }
      if (error instanceof LeaseholdRefusal && error.code === 'CLAIM_NOT_FOUND' && tries > 1) {
        // An earlier try may have landed and ended the lease: look before calling it lost.
        const landed = await readBack(client, claim.proposal.id, result.outcome);
        if (landed) return { ...base, state: landed };
      }
      return { ...base, state: null, why: `${result.why} The report did not get through: ${describeError(error)}.` };
    }
  }
}

async function readBack(client: LeaseholdClient, proposalId: string, outcome: Outcome): Promise<string | null> {
  try {
    const data = await client.request<{ node: { state: string; attempts: { outcome: string | null }[] } | null }>(READ_BACK, {
      id: proposalId,
    });
    return data.node?.attempts.at(-1)?.outcome === outcome ? data.node.state : null;
  } catch {
    return null;
  }
}

/** Renews the execution lease every `everyMs` until stopped. A failed renewal is reported, not fatal: the call already in flight cannot be taken back. */
function keepLeaseAlive(
  client: LeaseholdClient,
  claim: Claim,
  leaseSeconds: number,
  everyMs: number,
  emit: (event: ExecutorEvent) => Promise<void>,
): { stop(): Promise<void> } {
  let inFlight: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (inFlight) return;
    inFlight = client
      .mutate<{ proposal: { leaseExpiresAt: string } }>('renewProposalLease', RENEW, { token: claim.token, leaseSeconds })
      .then(
        (payload) => emit({ type: 'lease-renewed', proposalId: claim.proposal.id, expiresAt: payload.proposal.leaseExpiresAt }),
        (error: unknown) => emit({ type: 'lease-renewal-failed', proposalId: claim.proposal.id, error: describeError(error) }),
      )
      .finally(() => {
        inFlight = null;
      });
  }, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await inFlight;
    },
  };
}

/** The service's answer, kept under Leasehold's 16 KiB limit for an attempt's response. */
function boundedResponse(remote: RemoteAnswer): unknown {
  const full = { status: remote.status, replayed: remote.replayed, body: remote.body };
  const text = JSON.stringify(full);
  return text.length <= 12_000 ? full : { status: remote.status, replayed: remote.replayed, bodyTruncated: text.slice(0, 12_000) };
}

async function readJson(response: Response): Promise<unknown> {
  try {
    return (await response.json()) as unknown;
  } catch {
    // The status line is what counts; a body cut short does not change what the status said.
    return null;
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
