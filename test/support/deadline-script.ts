// The deadline sweep's part of test/db/proposal-write-calls.test.ts's script: recordProposalDeadlines (the
// announcer's, with automatic escalation) over what the script left behind and proposals set up for each of
// its paths, in batches smaller than the work so every place it stops is met.
import type { ManualClock } from '../../src/domain/clock.js';
import type { Actor } from '../../src/services/context.js';
import {
  claimExecution,
  claimProposal,
  type ProposalDeps,
  recordProposalDeadlines,
  reviewProposal,
  startExecutionAttempt,
  submitProposal,
} from '../../src/services/proposals/index.js';
import { MINUTE, proposalInput } from './proposals.js';

const who = (name: string): Actor => ({ name, authenticated: true });

/** Deadlines and approval validity, lapsed review and execution leases, lapsed approvals and escalations. */
export async function deadlines(deps: ProposalDeps, step: (work: () => Promise<unknown>) => Promise<void>): Promise<void> {
  const clock = deps.clock as ManualClock;
  const submit = async (recordId: string, extra: Parameters<typeof proposalInput>[1] = {}) =>
    (await submitProposal(deps, who('agent'), proposalInput(recordId, { batchId: 'sweep', targetSystem: `sweep-${recordId}`, ...extra })))
      .proposal.id;
  const soon = new Date(clock.now().getTime() + 5 * MINUTE);
  await submit('d1', { deadline: soon }); // PENDING past its deadline: EXPIRED (DEADLINE)
  await submit('d2', { action: 'restock', riskLevel: 'MEDIUM', approvalValiditySeconds: 60 }); // APPROVED past its approval
  await submit('d3', { action: 'restock', riskLevel: 'MEDIUM', deadline: soon }); // APPROVED past its deadline
  const leased = await submit('d4');
  await claimProposal(deps, who('rev'), { id: leased, leaseSeconds: 60 }); // its review lease lapses: recorded
  // Approvals lapsing while more are awaited, in an order that is neither their proposals' ids nor its reverse.
  const high = await submit('d5', { riskLevel: 'HIGH' });
  const critical = await submit('d7', { riskLevel: 'CRITICAL' });
  const later = await submit('d8', { riskLevel: 'HIGH' });
  const approve = (name: string, id: number) =>
    step(async () => {
      const claimed = await claimProposal(deps, who(name), { id });
      return reviewProposal(deps, who(name), { token: claimed?.token as string, decision: 'APPROVE', revision: 1 });
    });
  await approve('rev', critical); // lapses after 900 s
  await approve('rev', later); // after 3600 s
  await submit('d6', { action: 'restock', riskLevel: 'MEDIUM' });
  await step(async () => {
    const run = await claimExecution(deps, who('exec'), { targetSystems: ['sweep-d6'], leaseSeconds: 120 });
    return startExecutionAttempt(deps, who('exec'), { token: run?.token as string, fingerprint: 'v1-d6' });
  }); // its execution lease lapses with the attempt open: OUTCOME_UNKNOWN, the attempt UNKNOWN
  const escalating = { ...deps, escalation: { pendingAfterSeconds: 7_200, outcomeUnknownAfterSeconds: 600, to: 'RECONCILER' } };
  const sweep = async () => {
    for (let batches = 0; batches < 100; batches++) {
      const changed = await recordProposalDeadlines(escalating, 3);
      await step(async () => ({ changed }));
      if (changed === 0) return;
    }
  };
  clock.advance(MINUTE);
  await approve('rev', high); // after 3600 s, a minute after d8's
  clock.advance(9 * MINUTE);
  await sweep();
  await approve('rev2', critical); // after 900 s
  clock.advance(10 * MINUTE);
  await sweep(); // rev's approval of d7 lapses, rev2's stands: 1 left
  clock.advance(61 * MINUTE); // d7's, d8's and d5's approvals lapse, in that order; OUTCOME_UNKNOWN since the first sweep are due
  await sweep();
  clock.advance(3 * 3_600_000); // every PENDING one is old enough to escalate
  await sweep();
}
