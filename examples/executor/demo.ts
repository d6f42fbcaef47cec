// Runnable demo (`npx tsx examples/executor/demo.ts`): the simulated billing service plus the example executor against a Leasehold server.
import { runExecutor } from './executor.js';
import { leaseholdClient } from './leasehold-client.js';
import { reconcile } from './reconcile.js';
import { fingerprintOf, startRemoteService } from './remote-service.js';

const url = process.env.LEASEHOLD_URL ?? 'http://127.0.0.1:4000';
const key = process.env.LEASEHOLD_KEY;
const proposerKey = process.env.LEASEHOLD_PROPOSER_KEY;
const reconcilerKey = process.env.LEASEHOLD_RECONCILER_KEY;
const port = Number(process.env.BILLING_PORT ?? 4100);
const leaseSeconds = Number(process.env.LEASE_SECONDS ?? 60);

if (!key) {
  process.stderr.write(
    'Set LEASEHOLD_KEY to an API key with the EXECUTOR role, e.g. `npx leasehold keys create --name billing-executor --role EXECUTOR`.\n' +
      'Optional: LEASEHOLD_URL (default http://127.0.0.1:4000), BILLING_PORT (4100), LEASE_SECONDS (60),\n' +
      'LEASEHOLD_PROPOSER_KEY (submit a sample refund), LEASEHOLD_RECONCILER_KEY (a RECONCILER key: reconcile OUTCOME_UNKNOWN every 15 s).\n',
  );
  process.exit(2);
}

const log = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), ...line })}\n`);

const billing = await startRemoteService({
  port,
  accounts: [
    { id: 'acct-1', balance: 50_000 },
    { id: 'acct-2', balance: 8_000 },
  ],
});
log({
  msg: 'billing service listening',
  url: billing.url,
  try: [
    `curl -s ${billing.url}/accounts/acct-1`,
    `curl -s -X POST ${billing.url}/_faults -H 'content-type: application/json' -d '{"fault":"drop-response"}'`,
    `curl -s -X PUT ${billing.url}/accounts/acct-1 -H 'content-type: application/json' -d '{"balance":49000}'`,
  ],
});

if (proposerKey) {
  // What a proposer does: read the account, fingerprint exactly what it saw, propose against that.
  const account = billing.account('acct-1') ?? null;
  const client = leaseholdClient({ url, key: proposerKey });
  const submitted = await client.mutate<{ created: boolean; proposal: { id: string; state: string } }>(
    'submitProposal',
    `mutation DemoSubmit($recordId: String!, $fingerprint: String!, $current: JSON, $proposed: JSON) {
      submitProposal(input: { batchId: "demo-refunds", recordId: $recordId, action: "refund", parameters: { amount: 1200 },
        reason: "Duplicate charge on invoice 7", target: { system: "billing", recordId: "acct-1" }, currentValue: $current,
        proposedValue: $proposed, dataSource: "billing GET /accounts/acct-1", riskLevel: LOW, fingerprint: $fingerprint }) {
        __typename
        ... on SubmitProposalPayload { created proposal { id state } }
        ... on UserError { code field message }
      }
    }`,
    {
      recordId: `demo-${Date.now()}`,
      fingerprint: fingerprintOf(account),
      current: account,
      proposed: account && { ...account, balance: account.balance - 1200 },
    },
  );
  log({ msg: 'sample proposal submitted: claim and approve it as a REVIEWER (claimProposal, reviewProposal)', ...submitted });
}

const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());

let reconciler: NodeJS.Timeout | undefined;
if (reconcilerKey) {
  reconciler = setInterval(() => {
    reconcile({ url, key: reconcilerKey, remoteUrl: billing.url }).then(
      (findings) => {
        for (const finding of findings) log({ msg: 'reconciled', ...finding });
      },
      (error: unknown) => log({ msg: 'reconcile failed', error: String(error) }),
    );
  }, 15_000);
}

log({ msg: 'executor running; Ctrl-C to stop', leasehold: url, leaseSeconds });
try {
  await runExecutor({
    url,
    key,
    remoteUrl: billing.url,
    leaseSeconds,
    signal: stop.signal,
    onEvent: (event) => {
      if (event.type !== 'idle') log({ msg: 'executor', ...event });
    },
  });
} catch (error) {
  log({ msg: 'executor stopped', error: String(error) });
  process.exitCode = 1;
} finally {
  clearInterval(reconciler);
  await billing.stop();
}
