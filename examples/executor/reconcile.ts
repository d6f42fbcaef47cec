// Reconciler's helper: settles OUTCOME_UNKNOWN billing proposals by asking the billing service whether their operation id took effect.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeError, LeaseholdRefusal, leaseholdClient } from './leasehold-client.js';

export interface ReconcileOptions {
  /** Leasehold's base URL. */
  url: string;
  /** An API key with the RECONCILER role (reconcileProposal needs it; ADMIN does not reconcile). */
  key: string;
  /** The billing service's base URL. */
  remoteUrl: string;
  /** Only proposals whose target is in this system (default "billing"): the only one this helper can ask. */
  targetSystem?: string;
  timeoutMs?: number;
}

/** What the helper found for one proposal and what it did. */
export interface ReconcileFinding {
  proposalId: string;
  operationId: string | null;
  /** What the billing service says; null when it could not be asked (the proposal is left as it is). */
  executed: boolean | null;
  /** The proposal's state afterwards: EXECUTED, or APPROVED / STALE / EXPIRED after "not executed"; null if untouched. */
  state: string | null;
  /** The evidence recorded in the proposal's history. */
  evidence: string | null;
  error?: string;
}

const LIST = `query ExampleUnknownProposals($after: String, $system: String) {
  proposals(first: 50, after: $after, filter: { states: [OUTCOME_UNKNOWN], targetSystem: $system }) {
    pageInfo { hasNextPage endCursor }
    edges { node { id operationId target { system recordId } } }
  }
}`;
const RECONCILE = `mutation ExampleReconcile($id: ID!, $executed: Boolean!, $evidence: String!, $fingerprint: String) {
  reconcileProposal(input: { id: $id, executed: $executed, evidence: $evidence, fingerprint: $fingerprint }) {
    __typename
    ... on ReconcileProposalPayload { proposal { state } }
    ... on UserError { code field message }
  }
}`;

interface Unknown {
  id: string;
  operationId: string | null;
  target: { system: string; recordId: string };
}

/**
 * For each OUTCOME_UNKNOWN proposal: GET /operations/:operationId. Applied → reconciled as executed,
 * with the service's record as evidence. Not applied → reconciled as not executed with the account's
 * fingerprint now, which Leasehold re-checks (APPROVED again only if unchanged and still valid). No
 * answer → left alone: a guess either way could refund twice or never.
 */
export async function reconcile(options: ReconcileOptions): Promise<ReconcileFinding[]> {
  const client = leaseholdClient({ url: options.url, key: options.key });
  const timeoutMs = options.timeoutMs ?? 10_000;
  // Listed in full first: reconciling takes proposals out of the filtered list while it is paged.
  const pending: Unknown[] = [];
  let after: string | null = null;
  do {
    const page: { proposals: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; edges: { node: Unknown }[] } } =
      await client.request(LIST, { after, system: options.targetSystem ?? 'billing' });
    pending.push(...page.proposals.edges.map((edge) => edge.node));
    after = page.proposals.pageInfo.hasNextPage ? page.proposals.pageInfo.endCursor : null;
  } while (after !== null);

  const findings: ReconcileFinding[] = [];
  for (const proposal of pending) {
    const finding: ReconcileFinding = {
      proposalId: proposal.id,
      operationId: proposal.operationId,
      executed: null,
      state: null,
      evidence: null,
    };
    findings.push(finding);
    if (!proposal.operationId) {
      finding.error = 'No operation id: it was never approved, so there is nothing to look up.';
      continue;
    }
    let settle: { executed: boolean; evidence: string; fingerprint?: string };
    try {
      settle = await askBilling(options.remoteUrl, proposal.operationId, proposal.target.recordId, timeoutMs);
    } catch (error) {
      finding.error = `The billing service could not be asked: ${describeError(error)}. Left OUTCOME_UNKNOWN.`;
      continue;
    }
    finding.executed = settle.executed;
    finding.evidence = settle.evidence;
    try {
      const payload = await client.mutate<{ proposal: { state: string } }>('reconcileProposal', RECONCILE, {
        id: proposal.id,
        executed: settle.executed,
        evidence: settle.evidence,
        fingerprint: settle.fingerprint ?? null,
      });
      finding.state = payload.proposal.state;
    } catch (error) {
      finding.error = error instanceof LeaseholdRefusal ? error.message : describeError(error);
    }
  }
  return findings;
}

async function askBilling(
  remoteUrl: string,
  operationId: string,
  accountId: string,
  timeoutMs: number,
): Promise<{ executed: boolean; evidence: string; fingerprint?: string }> {
  const response = await fetch(`${remoteUrl}/operations/${encodeURIComponent(operationId)}`, { signal: AbortSignal.timeout(timeoutMs) });
  const body = (await response.json().catch(() => null)) as {
    applied?: boolean;
    appliedAt?: string;
    result?: { refundId?: string; amount?: number; accountId?: string; balanceAfter?: number };
  } | null;
  if (response.status === 200 && body?.applied === true) {
    const r = body.result ?? {};
    return {
      executed: true,
      evidence: `billing GET /operations/${operationId}: applied at ${body.appliedAt}, refund ${r.refundId} of ${r.amount} on account ${r.accountId}, balance after ${r.balanceAfter}.`,
    };
  }
  if (response.status === 404 && body?.applied === false) {
    // "Not applied" is only worth something with the account as it is now: Leasehold compares it with the approved one.
    const account = await fetch(`${remoteUrl}/accounts/${encodeURIComponent(accountId)}`, { signal: AbortSignal.timeout(timeoutMs) });
    const state = (await account.json().catch(() => null)) as { fingerprint?: unknown } | null;
    if ((account.status !== 200 && account.status !== 404) || typeof state?.fingerprint !== 'string') {
      throw new Error(`GET /accounts/${accountId} answered ${account.status}`);
    }
    return {
      executed: false,
      evidence: `billing GET /operations/${operationId} answered 404 (no such operation) at ${new Date().toISOString()}; account ${accountId} fingerprint now ${state.fingerprint}.`,
      fingerprint: state.fingerprint,
    };
  }
  throw new Error(`GET /operations/${operationId} answered ${response.status}`);
}

// `npx tsx examples/executor/reconcile.ts`: one pass with LEASEHOLD_URL, LEASEHOLD_RECONCILER_KEY and BILLING_URL.
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const key = process.env.LEASEHOLD_RECONCILER_KEY;
  if (!key) {
    process.stderr.write(
      'Set LEASEHOLD_RECONCILER_KEY to an API key with the RECONCILER role (and LEASEHOLD_URL, BILLING_URL if not the defaults).\n',
    );
    process.exit(2);
  }
  const findings = await reconcile({
    url: process.env.LEASEHOLD_URL ?? 'http://127.0.0.1:4000',
    key,
    remoteUrl: process.env.BILLING_URL ?? 'http://127.0.0.1:4100',
  });
  for (const finding of findings) process.stdout.write(`${JSON.stringify(finding)}\n`);
  process.exitCode = findings.some((finding) => finding.error) ? 1 : 0;
}
