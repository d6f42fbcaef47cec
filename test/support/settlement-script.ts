// The settlement part of test/db/proposal-write-calls.test.ts's script: every path and refusal of
// reconcileProposal and reviewExecutedProposal, run the same way on either backend.
import type { ManualClock } from '../../src/domain/clock.js';
import type { Actor } from '../../src/services/context.js';
import {
  claimExecution,
  type ProposalDeps,
  reconcileProposal,
  recordManualExecution,
  reportExecutionResult,
  reviewExecutedProposal,
  startExecutionAttempt,
  submitProposal,
} from '../../src/services/proposals/index.js';
import { MINUTE, proposalInput } from './proposals.js';

const who = (name: string, authenticated = true): Actor => ({ name, authenticated });

/** OUTCOME_UNKNOWN settled each way (EXECUTED, back to APPROVED, STALE, EXPIRED), reviews after execution, and their refusals. */
export async function settlements(deps: ProposalDeps, step: (work: () => Promise<unknown>) => Promise<void>): Promise<void> {
  const clock = deps.clock as ManualClock;
  // A policy approves restock at MEDIUM (approvers: 0): APPROVED at submission, reviewed after execution.
  const restock = async (recordId: string, extra: Parameters<typeof proposalInput>[1] = {}) =>
    (
      await submitProposal(
        deps,
        who('agent'),
        proposalInput(recordId, {
          batchId: 'settle',
          action: 'restock',
          riskLevel: 'MEDIUM',
          targetSystem: `settle-${recordId}`,
          approvalValiditySeconds: 600,
          ...extra,
        }),
      )
    ).proposal.id;
  const ids = {
    s1: await restock('s1'),
    s2: await restock('s2'),
    s3: await restock('s3'),
    s4: await restock('s4'),
    s5: await restock('s5', { deadline: new Date(clock.now().getTime() + 5 * MINUTE) }),
    s6: await restock('s6'),
  };
  // Made against the fingerprint s3's reconciler replaces: STALE with it.
  await submitProposal(deps, who('ivy'), proposalInput('s3', { batchId: 'settle-sibling', targetSystem: 'settle-s3' }));
  const byHand = (id: number, fingerprint: string) =>
    step(() => recordManualExecution(deps, who('hand'), { id, fingerprint, evidence: 'done by hand', reason: 'integration down' }));
  for (const id of [ids.s1, ids.s3, ids.s4, ids.s5]) await byHand(id, 'not what was approved'); // OUTCOME_UNKNOWN
  await byHand(ids.s6, 'v1-s6'); // EXECUTED, its review afterwards PENDING
  // s2 by automation: claimed, attempted, its outcome unknown.
  await step(async () => {
    const run = await claimExecution(deps, who('w'), { targetSystems: ['settle-s2'] });
    await startExecutionAttempt(deps, who('w'), { token: run?.token as string, fingerprint: 'v1-s2' });
    return reportExecutionResult(deps, who('w'), { token: run?.token as string, outcome: 'UNKNOWN' });
  });
  const reconcile = (name: string, id: number, executed: boolean, fingerprint: string | null = null, authenticated = true) =>
    step(() => reconcileProposal(deps, who(name, authenticated), { id, executed, evidence: `checked by ${name}`, fingerprint }));
  await reconcile('recon', 999_999, true); // PROPOSAL_NOT_FOUND
  await reconcile('agent', ids.s1, true); // its proposer: SELF_RECONCILIATION
  await reconcile('hand', ids.s1, true); // recorded it by hand: SELF_RECONCILIATION
  await reconcile('w', ids.s2, false, 'v1-s2'); // claimed and attempted it: SELF_RECONCILIATION
  await reconcile('hand', ids.s1, true, null, false); // the command line: EXECUTED, its review afterwards PENDING
  await reconcile('recon', ids.s2, false, 'v1-s2'); // nothing changed, still valid: back to APPROVED
  await reconcile('recon', ids.s3, false, 'v2-s3'); // another fingerprint: STALE, remembered, ivy's s3 STALE too
  await reconcile('recon', ids.s1, true); // EXECUTED: PROPOSAL_STATE_CONFLICT
  clock.advance(11 * MINUTE); // s4's approval (600 s) and s5's deadline (5 min) have passed
  await reconcile('recon', ids.s4, false, 'v1-s4'); // EXPIRED (APPROVAL_VALIDITY)
  await reconcile('recon', ids.s5, false, 'v1-s5'); // EXPIRED (DEADLINE)
  const review = (name: string, id: number, verdict: string, comment: string | null = null) =>
    step(() => reviewExecutedProposal(deps, who(name), { id, verdict, comment }));
  await review('lead', 999_999, 'CONFIRMED'); // PROPOSAL_NOT_FOUND
  await review('agent', ids.s1, 'CONFIRMED'); // its proposer: SELF_APPROVAL
  await review('lead', ids.s1, 'CONFIRMED');
  await review('lead2', ids.s1, 'PROBLEM', 'twice'); // already reviewed: PROPOSAL_STATE_CONFLICT
  await review('lead', ids.s6, 'PROBLEM', 'the count is off by one "迷惑"');
  await review('lead', ids.s2, 'CONFIRMED'); // APPROVED, needs none: PROPOSAL_STATE_CONFLICT
}
