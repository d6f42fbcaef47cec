// Action proposals, review leases: claiming a proposal for review (the next one, or one by id), renewing a
// review or execution lease, and giving a review lease back. Each is a write call on PostgreSQL (see
// db/write-calls.ts); the TypeScript forms here are SQLite's path and the specification.
import type { Proposal, TxSql, WriteTx } from '../../db/client.js';
import { type CallAnswer, type JsonProposal, proposalFromJson } from '../../db/write-calls.js';
import { DomainError } from '../../domain/errors.js';
import { hashLeaseToken, issueLeaseToken, leaseExpiry } from '../../domain/lease.js';
import { RISK_LEVELS, type RiskLevel } from '../../domain/proposal.js';
import { LIMITS, validateLeaseSeconds, validateToken } from '../../domain/validation.js';
import type { Actor } from '../context.js';
import {
  alreadyApproved,
  changedProposal,
  checkHeld,
  type LeaseKind,
  loadForUpdate,
  move,
  NO_LEASE,
  type ProposalDeps,
  proposalEvent,
  proposalNotFound,
} from './shared.js';

export interface ProposalClaim {
  proposal: Proposal;
  token: string;
}

/**
 * Leases the next PENDING proposal for review: earliest deadline first, then oldest. Never one the
 * caller proposed or already approved. Null when none is claimable (a normal answer). With `id`, that
 * proposal or a refusal saying why not (`riskLevels` then does not apply).
 */
export async function claimProposal(
  deps: ProposalDeps,
  actor: Actor,
  input: { leaseSeconds?: number | null; riskLevels?: readonly string[] | null; id?: number | null },
): Promise<ProposalClaim | null> {
  const leaseSeconds = validateLeaseSeconds(input.leaseSeconds ?? LIMITS.defaultLeaseSeconds);
  const risks = input.riskLevels?.length
    ? input.riskLevels.filter((risk): risk is RiskLevel => (RISK_LEVELS as readonly string[]).includes(risk))
    : null;
  const id = input.id ?? null;
  const token = issueLeaseToken();
  const claimConflict = () => new DomainError('CLAIM_CONFLICT', 'The proposal was claimed by someone else; claim again.');
  const work = async (tx: WriteTx, sql: TxSql): Promise<ProposalClaim | null> => {
    const now = deps.clock.now();
    const candidate =
      id !== null
        ? await chosenForReview(tx, actor, id, now)
        : await tx.proposal.findFirst({
            where: {
              state: 'PENDING',
              OR: [{ leaseTokenHash: null }, { leaseExpiresAt: { lte: now } }],
              proposedBy: { not: actor.name },
              approvals: { none: { approver: actor.name, voidedAt: null } },
              ...(risks ? { riskLevel: { in: risks } } : {}),
              AND: [{ OR: [{ deadline: null }, { deadline: { gt: now } }] }],
            },
            orderBy: [{ deadline: { sort: 'asc', nulls: 'last' } }, { createdAt: 'asc' }, { id: 'asc' }],
          });
    if (!candidate) return null;
    if (candidate.leaseTokenHash !== null && !candidate.leaseExpiryRecorded) {
      await proposalEvent(sql, candidate, 'PROPOSAL_LEASE_EXPIRED', 'system', now, {
        holder: candidate.claimedBy,
        kind: candidate.leaseKind,
      });
    }
    const claimed = await tx.proposal.updateMany({
      where: { id: candidate.id, version: candidate.version, state: 'PENDING' },
      data: {
        leaseKind: 'REVIEW',
        leaseTokenHash: hashLeaseToken(token),
        claimedBy: actor.name,
        claimedAt: now,
        leaseExpiresAt: leaseExpiry(now, leaseSeconds),
        leaseNumber: candidate.leaseNumber + 1,
        leaseExpiryRecorded: false,
        version: candidate.version + 1,
      },
    });
    if (claimed.count !== 1) throw claimConflict();
    const proposal = await loadForUpdate(tx, candidate.id);
    await proposalEvent(sql, proposal, 'PROPOSAL_LEASE_CLAIMED', actor.name, now, { holder: actor.name, leaseSeconds, kind: 'REVIEW' });
    return { proposal, token };
  };
  return deps.db.perform({
    work,
    call: {
      fields: {
        op: 'proposalClaim',
        leaseSeconds,
        tokenHash: hashLeaseToken(token),
        holder: actor.name,
        riskLevels: id === null ? risks : null,
        id,
      },
      clock: deps.clock,
      answer: (answer) => {
        if (answer.none) return null;
        if (answer.refused) {
          const found = answer.proposal ? proposalFromJson(answer.proposal) : null;
          checkReviewable(found, actor, id as number, new Date(answer.at));
          if (answer.approved) throw alreadyApproved('id');
          throw new Error('The database refused a claim the same rules allow.');
        }
        if (answer.conflict) throw claimConflict();
        return { proposal: proposalFromJson(answer.proposal as JsonProposal), token };
      },
    },
  });
}

/** The proposal `id`, if `actor` may take it for review now; otherwise a refusal saying why. */
async function chosenForReview(tx: WriteTx, actor: Actor, id: number, now: Date): Promise<Proposal> {
  const chosen = checkReviewable(await tx.proposal.findUnique({ where: { id } }), actor, id, now);
  const approved = await tx.proposalApproval.findFirst({ where: { proposalId: id, approver: actor.name, voidedAt: null } });
  if (approved) throw alreadyApproved('id');
  return chosen;
}

/** chosenForReview's rules for the proposal found (null: none), but for the caller's own approval of it. */
function checkReviewable(chosen: Proposal | null, actor: Actor, id: number, now: Date): Proposal {
  if (!chosen) throw proposalNotFound(id);
  if (chosen.state !== 'PENDING') {
    throw new DomainError('PROPOSAL_STATE_CONFLICT', `Proposal ${id} is ${chosen.state}: only a PENDING proposal is reviewed.`, 'id');
  }
  if (chosen.proposedBy === actor.name) throw new DomainError('SELF_APPROVAL', 'You proposed this; another reviewer must review it.', 'id');
  if (chosen.deadline && chosen.deadline.getTime() <= now.getTime()) {
    throw new DomainError('DEADLINE_PASSED', `The deadline passed at ${chosen.deadline.toISOString()}.`, 'id');
  }
  if (chosen.leaseTokenHash !== null && chosen.leaseExpiresAt !== null && chosen.leaseExpiresAt.getTime() > now.getTime()) {
    throw new DomainError(
      'CLAIM_CONFLICT',
      `Proposal ${id} is under ${chosen.claimedBy}'s ${chosen.leaseKind === 'EXECUTION' ? 'execution' : 'review'} lease until ${chosen.leaseExpiresAt.toISOString()}.`,
      'id',
    );
  }
  return chosen;
}

/** The lease's kind as renewProposalLease checks it: the found proposal's, when it is an execution lease. */
const renewedKind = (found: Proposal | null): LeaseKind => (found?.leaseKind === 'EXECUTION' ? 'EXECUTION' : 'REVIEW');

/** Renews a review or execution lease from now. */
export async function renewProposalLease(
  deps: ProposalDeps,
  actor: Actor,
  input: { token: string; leaseSeconds?: number | null },
): Promise<Proposal> {
  const leaseSeconds = validateLeaseSeconds(input.leaseSeconds ?? LIMITS.defaultLeaseSeconds);
  const tokenHash = hashLeaseToken(validateToken(input.token));
  return deps.db.perform({
    work: async (tx, sql) => {
      const now = deps.clock.now();
      const found = await tx.proposal.findUnique({ where: { leaseTokenHash: tokenHash } });
      const held = checkHeld(found, actor, now, renewedKind(found));
      const proposal = await move(tx, held, held.state, { leaseExpiresAt: leaseExpiry(now, leaseSeconds) });
      await proposalEvent(sql, proposal, 'PROPOSAL_LEASE_RENEWED', actor.name, now, {
        holder: held.claimedBy,
        leaseSeconds,
        kind: held.leaseKind,
      });
      return proposal;
    },
    call: {
      fields: { op: 'proposalRenew', leaseSeconds, tokenHash, actor: actor.name, authenticated: actor.authenticated },
      clock: deps.clock,
      answer: (answer) => heldProposalChange(answer, actor, renewedKind),
    },
  });
}

/** Gives a proposal back undecided (review leases only: an execution must report its outcome). */
export async function releaseProposalLease(deps: ProposalDeps, actor: Actor, input: { token: string }): Promise<Proposal> {
  const tokenHash = hashLeaseToken(validateToken(input.token));
  return deps.db.perform({
    work: async (tx, sql) => {
      const now = deps.clock.now();
      const held = checkHeld(await tx.proposal.findUnique({ where: { leaseTokenHash: tokenHash } }), actor, now, 'REVIEW');
      const proposal = await move(tx, held, held.state, NO_LEASE);
      await proposalEvent(sql, proposal, 'PROPOSAL_LEASE_RELEASED', actor.name, now, { holder: held.claimedBy });
      return proposal;
    },
    call: {
      fields: { op: 'proposalRelease', tokenHash, actor: actor.name, authenticated: actor.authenticated },
      clock: deps.clock,
      answer: (answer) => heldProposalChange(answer, actor, () => 'REVIEW'),
    },
  });
}

/** A renewal's or release's answer: the proposal after it, or the refusal heldBy gives for the proposal found. */
function heldProposalChange(answer: CallAnswer, actor: Actor, kind: (found: Proposal | null) => LeaseKind): Proposal {
  return changedProposal(answer, (found, now) => {
    checkHeld(found, actor, now, kind(found));
  });
}
