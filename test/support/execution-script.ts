// The attempts part of test/db/proposal-write-calls.test.ts's script: every path of startExecutionAttempt and
// reportExecutionResult, run the same way on either backend.
import type { ManualClock } from '../../src/domain/clock.js';
import type { Actor } from '../../src/services/context.js';
import {
  type claimExecution,
  claimProposal,
  type ProposalDeps,
  reportExecutionResult,
  reportTargetState,
  reviewProposal,
  startExecutionAttempt,
  submitProposal,
} from '../../src/services/proposals/index.js';
import { proposalInput } from './proposals.js';

const who = (name: string, authenticated = true): Actor => ({ name, authenticated });

/**
 * Attempts and their reported outcomes: proposals a policy approves at submission (restock, MEDIUM), each on
 * a system of its own so each executor claims the one meant for it.
 */
export async function executions(
  deps: ProposalDeps,
  step: (work: () => Promise<unknown>) => Promise<void>,
  execute: (name: string, input?: Parameters<typeof claimExecution>[2]) => Promise<void>,
  tokens: Record<string, string>,
): Promise<void> {
  const clock = deps.clock as ManualClock;
  const smile = '🙂'.repeat(40);
  const restock = (n: number, extra: Parameters<typeof proposalInput>[1] = {}) =>
    step(async () => {
      const { proposal } = await submitProposal(
        deps,
        who('agent'),
        proposalInput(`x${n}`, { action: 'restock', riskLevel: 'MEDIUM', targetSystem: `wh-${n}`, ...extra }),
      );
      return proposal;
    });
  for (let n = 1; n <= 8; n++)
    await restock(n, n === 4 ? { fingerprint: smile } : n === 5 || n === 6 ? { approvalValiditySeconds: 60 } : {});
  // Not yet executing, of x3's target, made against the fingerprint x3's report replaces: STALE with it.
  await step(
    async () => (await submitProposal(deps, who('ivy'), proposalInput('x3', { batchId: 'other', targetSystem: 'wh-3' }))).proposal,
  );
  for (let n = 1; n <= 8; n++) await execute(`w${n}`, { targetSystems: [`wh-${n}`] });
  const start = (n: number, fingerprint: string, name = `w${n}`, correlationId: string | null = null) =>
    step(async () => {
      const started = await startExecutionAttempt(deps, who(name), {
        token: tokens[`w${n}-execution`] as string,
        fingerprint,
        correlationId,
      });
      return { ...started.proposal, attempt: started.attempt?.number ?? null };
    });
  const report = (n: number, input: Omit<Parameters<typeof reportExecutionResult>[2], 'token'>, name = `w${n}`) =>
    step(() => reportExecutionResult(deps, who(name), { token: tokens[`w${n}-execution`] as string, ...input }));
  await start(1, 'v1-x1', 'w1', 'c-1');
  await start(1, 'v1-x1'); // ATTEMPT_IN_PROGRESS
  await report(1, { outcome: 'SUCCEEDED', response: { ok: true, note: '"迷惑" \\' }, fingerprint: 'v2-x1' }); // EXECUTED, reviewed afterwards
  await report(2, { outcome: 'SUCCEEDED' }); // ATTEMPT_NOT_STARTED
  await report(2, { outcome: 'UNKNOWN' }, 'mallory'); // NOT_LEASE_HOLDER
  await start(2, 'v1-x2', 'mallory'); // NOT_LEASE_HOLDER
  await step(() => startExecutionAttempt(deps, who('w2'), { token: tokens.lee as string, fingerprint: 'v1-x2' })); // an ended lease: CLAIM_NOT_FOUND
  // A live review lease is not an execution lease: CLAIM_NOT_FOUND for its holder, by either step.
  const x12 = await submitProposal(deps, who('agent'), proposalInput('x12', { targetSystem: 'wh-12' }));
  const review = await claimProposal(deps, who('w12'), { id: x12.proposal.id });
  await step(() => startExecutionAttempt(deps, who('w12'), { token: review?.token as string, fingerprint: 'v0-x12' })); // not made STALE either
  await step(() => reportExecutionResult(deps, who('w12'), { token: review?.token as string, outcome: 'FAILED_BEFORE_SEND' }));
  await start(2, 'v0-x2'); // another fingerprint: STALE, no attempt
  await start(3, 'v1-x3');
  await report(3, { outcome: 'FAILED_BEFORE_SEND', fingerprint: 'v2-x3', correlationId: 'c-3' }); // STALE; ivy's x3 too
  await start(4, `a${'🙃'.repeat(40)}`); // STALE, the reason cut as JavaScript cuts (in the middle of a character)
  await report(6, { outcome: 'FAILED_BEFORE_SEND' }); // none started: back to APPROVED
  await execute('w6', { targetSystems: ['wh-6'] });
  await start(6, 'v1-x6');
  await start(7, 'v1-x7');
  await report(7, { outcome: 'REJECTED_BY_REMOTE', response: [1, 2] }); // FAILED
  await start(8, 'v1-x8');
  await report(8, { outcome: 'UNKNOWN', correlationId: 'remote-8' }); // OUTCOME_UNKNOWN
  // x10, approved by a reviewer for 60 s: its approval is voided when it expires at the attempt.
  const x10 = await submitProposal(deps, who('agent'), proposalInput('x10', { targetSystem: 'wh-10', approvalValiditySeconds: 60 }));
  await step(async () => {
    const claimed = await claimProposal(deps, who('rev'), { id: x10.proposal.id });
    return reviewProposal(deps, who('rev'), { token: claimed?.token as string, decision: 'APPROVE', revision: 1 });
  });
  await execute('w10', { targetSystems: ['wh-10'] });
  clock.advance(61_000); // x5's, x6's and x10's approvals (60 s) have run out; the leases have not
  await start(5, 'v1-x5'); // EXPIRED, no attempt
  await start(10, 'v1-x10'); // EXPIRED, rev's approval voided
  await report(6, { outcome: 'FAILED_BEFORE_SEND' }); // EXPIRED, not back to APPROVED
  await report(6, { outcome: 'UNKNOWN' }); // the lease ended with it: CLAIM_NOT_FOUND
  // A report of a target with a PENDING and an APPROVED proposal made against another fingerprint: both STALE.
  await step(async () => (await submitProposal(deps, who('agent'), proposalInput('x11', { targetSystem: 'wh-11' }))).proposal);
  await restock(11, { batchId: 'restock' });
  await step(async () => {
    const stale = await reportTargetState(
      deps,
      { ...who('sync'), roles: new Set(['EXECUTOR'] as const) },
      {
        targetSystem: 'wh-11',
        targetId: 'x11',
        fingerprint: `v2-${'🙂'.repeat(70)}`,
      },
    );
    return { stale: stale.map(({ id, state, stateReason, version }) => ({ id, state, stateReason, version })) };
  });
  // A report of x1's target since its proposal was approved: the next one of it may not run on an old read.
  await restock(9, { targetSystem: 'wh-1', fingerprint: 'v2-x1' });
  await execute('w9', { targetSystems: ['wh-1'] });
  await step(() =>
    reportTargetState(
      deps,
      { ...who('w9'), roles: new Set(['EXECUTOR'] as const) },
      { targetSystem: 'wh-1', targetId: 'x9', fingerprint: 'v3-x9' },
    ),
  );
  await start(9, 'v2-x1'); // the remembered v3-x9 differs: STALE
  clock.advance(3_600_000);
  await execute('w7', { targetSystems: ['wh-7'] }); // FAILED is final: nothing
  await start(8, 'v1-x8'); // the lease ended: CLAIM_NOT_FOUND
}
