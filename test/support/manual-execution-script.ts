// The execution-by-hand part of test/db/proposal-write-calls.test.ts's script: every path and refusal of
// claimManualExecution and recordManualExecution, run the same way on either backend.
import type { ManualClock } from '../../src/domain/clock.js';
import type { Actor } from '../../src/services/context.js';
import {
  claimManualExecution,
  claimProposal,
  holdProposal,
  type ProposalDeps,
  recordManualExecution,
  reportTargetState,
  resumeProposal,
  reviewProposal,
  submitProposal,
} from '../../src/services/proposals/index.js';
import { MINUTE, proposalInput } from './proposals.js';

const who = (name: string, authenticated = true): Actor => ({ name, authenticated });

/** Claims and records of executions by hand: each outcome (EXECUTED, OUTCOME_UNKNOWN for each reason) and each refusal. */
export async function manualExecutions(deps: ProposalDeps, step: (work: () => Promise<unknown>) => Promise<void>): Promise<void> {
  const clock = deps.clock as ManualClock;
  const submit = async (recordId: string, extra: Parameters<typeof proposalInput>[1] = {}) =>
    (await submitProposal(deps, who('agent'), proposalInput(recordId, { batchId: 'by-hand', targetSystem: `hand-${recordId}`, ...extra })))
      .proposal.id;
  // A policy approves restock at MEDIUM (approvers: 0): APPROVED at submission, reviewed after execution.
  const restock = (recordId: string, extra: Parameters<typeof proposalInput>[1] = {}) =>
    submit(recordId, { action: 'restock', riskLevel: 'MEDIUM', approvalValiditySeconds: 600, ...extra });
  const m1 = await restock('m1');
  const m2 = await restock('m2', { fingerprint: '🙂'.repeat(70) });
  const m3 = await restock('m3', { approvalValiditySeconds: 60 });
  const m4 = await restock('m4', { approvalValiditySeconds: 60 });
  const m5 = await restock('m5', { deadline: new Date(clock.now().getTime() + 90_000) });
  const m6 = await restock('m6');
  const m9 = await restock('m9');
  const pending = await submit('m7');
  // The same target as m1, made against another fingerprint: STALE once m1's record remembers the new one.
  const sibling = await submit('m1', { batchId: 'sibling', targetSystem: 'hand-m1', fingerprint: 'v0-m1' });
  // MEDIUM, approved by a reviewer: the policy keeps its approvers from executing it.
  const reviewed = await submit('m8', { riskLevel: 'MEDIUM' });
  const lapsing = await submit('m10', { riskLevel: 'MEDIUM', approvalValiditySeconds: 60 });
  const approve = (name: string, id: number) =>
    step(async () => {
      const claimed = await claimProposal(deps, who(name), { id });
      return reviewProposal(deps, who(name), { token: claimed?.token as string, decision: 'APPROVE', revision: 1 });
    });
  await approve('rev', reviewed);
  await approve('rev2', lapsing);
  // m7 (PENDING, never approved) and m9 (APPROVED) made STALE by reports of their targets.
  const report = (recordId: string) =>
    step(async () => {
      const stale = await reportTargetState(
        deps,
        { ...who('sync'), roles: new Set(['EXECUTOR'] as const) },
        { targetSystem: `hand-${recordId}`, targetId: recordId, fingerprint: 'v9' },
      );
      return { stale: stale.map(({ id, state, stateReason, version }) => ({ id, state, stateReason, version })) };
    });
  await report('m7');
  await report('m9');
  const claim = (name: string, id: number, leaseSeconds: number | null = null) =>
    step(async () => {
      const claimed = await claimManualExecution(deps, who(name), { id, reason: `by hand, ${name}`, leaseSeconds });
      return { ...claimed.proposal, operationId: claimed.operationId };
    });
  const record = (name: string, id: number, fingerprint: string, fingerprintAfter: string | null = null) =>
    step(() =>
      recordManualExecution(deps, who(name), {
        id,
        fingerprint,
        evidence: `ticket ${id} "done" \\ 迷惑`,
        reason: 'integration down',
        fingerprintAfter,
      }),
    );
  await claim('hand', 999_999); // PROPOSAL_NOT_FOUND
  await claim('hand', pending); // STALE: PROPOSAL_STATE_CONFLICT
  await claim('agent', m6); // its own: SELF_APPROVAL
  await claim('rev', reviewed); // its approver: EXECUTOR_IS_APPROVER
  await claim('hand', m6, 120); // EXECUTING under a manual execution lease
  await claim('hand2', m6); // EXECUTING: PROPOSAL_STATE_CONFLICT naming the holder
  await record('hand2', m6, 'v1-m6'); // EXECUTING: PROPOSAL_STATE_CONFLICT
  await record('hand', 999_999, 'v1'); // PROPOSAL_NOT_FOUND
  await record('agent', m1, 'v1-m1'); // SELF_APPROVAL
  await record('rev', reviewed, 'v1-m8'); // EXECUTOR_IS_APPROVER
  await record('hand', pending, 'v1-m7'); // STALE, never approved: PROPOSAL_STATE_CONFLICT
  await record('hand', m1, 'v1-m1', 'v2-m1'); // EXECUTED, after-review PENDING; v2-m1 remembered, the sibling STALE
  await record('hand', m2, `x${'🙃'.repeat(70)}`); // another fingerprint: OUTCOME_UNKNOWN (FINGERPRINT_CHANGED)
  await record('hand', m1, 'v1-m1'); // EXECUTED: PROPOSAL_STATE_CONFLICT
  await step(() => holdProposal(deps, who('admin'), { id: m4, reason: 'wait' }));
  await step(() => holdProposal(deps, who('admin'), { id: lapsing, reason: 'wait' }));
  clock.advance(2 * MINUTE); // m3's and m4's approvals (60 s) and m5's deadline (90 s) have passed
  await claim('hand', m3); // approval no longer valid (validity): PROPOSAL_STATE_CONFLICT
  await claim('hand', m5); // (deadline): PROPOSAL_STATE_CONFLICT
  await record('hand', m3, 'v1-m3'); // OUTCOME_UNKNOWN (APPROVAL_EXPIRED)
  await step(() => resumeProposal(deps, who('admin'), { id: m4, reason: 'go' })); // EXPIRED
  await record('hand', m4, 'v1-m4'); // OUTCOME_UNKNOWN (ALREADY_EXPIRED), its approval's time ended now
  await step(() => resumeProposal(deps, who('admin'), { id: lapsing, reason: 'go' })); // EXPIRED, rev2's approval void
  await record('rev2', lapsing, 'v1-m10'); // a void approval does not keep its approver out: OUTCOME_UNKNOWN
  await record('hand', m4, 'v1-m4'); // OUTCOME_UNKNOWN: PROPOSAL_STATE_CONFLICT
  await record('hand', sibling, 'v0-m1'); // STALE, never approved: PROPOSAL_STATE_CONFLICT
  await record('hand', m9, 'v1-m9'); // OUTCOME_UNKNOWN (ALREADY_STALE)
}
