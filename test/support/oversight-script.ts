// The oversight part of test/db/proposal-write-calls.test.ts's script: every path of holdProposal,
// resumeProposal, escalateProposal and assignProposal, run the same way on either backend.
import type { ManualClock } from '../../src/domain/clock.js';
import type { Actor } from '../../src/services/context.js';
import {
  assignProposal,
  claimProposal,
  escalateProposal,
  holdProposal,
  type ProposalDeps,
  resumeProposal,
  submitProposal,
} from '../../src/services/proposals/index.js';
import { MINUTE, proposalInput } from './proposals.js';

const who = (name: string, authenticated = true): Actor => ({ name, authenticated });

/** Holds (with a lease active, lapsed or none), resumptions (still valid, past the deadline, past the approval), escalations and assignments, and their refusals. */
export async function oversight(deps: ProposalDeps, step: (work: () => Promise<unknown>) => Promise<void>): Promise<void> {
  const clock = deps.clock as ManualClock;
  const submit = async (recordId: string, extra: Parameters<typeof proposalInput>[1] = {}) =>
    (await submitProposal(deps, who('agent'), proposalInput(recordId, { batchId: 'oversight', ...extra }))).proposal.id;
  const leased = await submit('o1');
  const lapsing = await submit('o2', { deadline: new Date(clock.now().getTime() + 30 * MINUTE) });
  const approved = await submit('o3', { action: 'restock', riskLevel: 'MEDIUM', targetSystem: 'wh-o3', approvalValiditySeconds: 600 });
  const plain = await submit('o4');
  await claimProposal(deps, who('rev'), { id: leased });
  await claimProposal(deps, who('rev2'), { id: lapsing, leaseSeconds: 60 });
  const hold = (id: number, name = 'admin') => step(() => holdProposal(deps, who(name), { id, reason: `held by ${name}` }));
  const resume = (id: number) => step(() => resumeProposal(deps, who('admin'), { id, reason: 'go on' }));
  const escalate = (id: number, to: string) => step(() => escalateProposal(deps, who('lead'), { id, to, reason: `to ${to}` }));
  const assign = (id: number, assignee: string | null) => step(() => assignProposal(deps, who('lead'), { id, assignee }));
  await escalate(leased, 'ADMIN'); // under rev's lease: the event carries its number
  await escalate(leased, 'dana'); // again, to a principal: previouslyEscalatedTo
  await assign(leased, 'erin');
  await assign(leased, null);
  await hold(leased); // rev's active lease ends with the hold
  await hold(leased); // ON_HOLD: PROPOSAL_STATE_CONFLICT
  await resume(plain); // PENDING: PROPOSAL_STATE_CONFLICT
  await resume(999_999); // PROPOSAL_NOT_FOUND
  await hold(999_999); // PROPOSAL_NOT_FOUND
  await escalate(999_999, 'ADMIN'); // PROPOSAL_NOT_FOUND
  clock.advance(2 * MINUTE); // rev2's lease (60 s) lapsed, not yet recorded
  await hold(lapsing); // PROPOSAL_LEASE_EXPIRED first, then held with no lease ended
  await hold(approved, 'ops');
  await assign(approved, 'frank'); // a held proposal is live
  await resume(leased); // back to PENDING
  clock.advance(30 * MINUTE); // o2's deadline and o3's approval (600 s) have passed
  await resume(lapsing); // EXPIRED: DEADLINE
  await resume(approved); // EXPIRED: APPROVAL_VALIDITY, approvals (none counted by a policy) voided
  await escalate(lapsing, 'ADMIN'); // EXPIRED is final: PROPOSAL_STATE_CONFLICT
  await assign(approved, 'gus'); // PROPOSAL_STATE_CONFLICT
  await hold(approved); // PROPOSAL_STATE_CONFLICT
}
