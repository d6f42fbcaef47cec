// Action proposals, what every lifecycle stage uses: the limits and JSON rule, the policy lookup, and the
// one way each stage loads a proposal, moves it (compare-and-set on state and version), ends its lease,
// voids its approvals, marks it STALE, checks a lease token and records its event.
import type { Proposal, TxSql, WriteTx } from '../../db/client.js';
import { appendEvent } from '../../db/event-store.js';
import { type CallAnswer, type JsonProposal, proposalFromJson } from '../../db/write-calls.js';
import { DomainError } from '../../domain/errors.js';
import type { EscalationPolicy } from '../../domain/escalation.js';
import type { EventDetails } from '../../domain/events.js';
import { hashLeaseToken, isLapsed } from '../../domain/lease.js';
import {
  type ApprovalPolicy,
  DEFAULT_POLICIES,
  outcomesWith,
  type Policies,
  type ProposalOperation,
  type ProposalState,
  type RiskLevel,
  transition,
} from '../../domain/proposal.js';
import { DEFAULT_PROPOSAL_RULES, type ProposalRules } from '../../domain/proposal-rules.js';
import { validateJsonStrings, validateToken } from '../../domain/validation.js';
import type { Actor, ServiceDeps } from '../context.js';

/** What every stage validates against: text lengths in characters, JSON in bytes, times in seconds. */
export const PROPOSAL_LIMITS = {
  action: 100,
  target: 100,
  dataSource: 200,
  fingerprint: 200,
  jsonBytes: 16_384,
  evidence: 2_000,
  /** impact, constraints and rule on a submission. */
  context: 2_000,
  minValiditySeconds: 60,
  maxValiditySeconds: 30 * 24 * 3600,
  maxExecutionLeaseSeconds: 3600,
} as const;

export type { Policies } from '../../domain/proposal.js';

export interface ProposalDeps extends ServiceDeps {
  policies?: Policies;
  /** Risk floors per action and who may report each target system's state; none and EXECUTORs by default. */
  rules?: ProposalRules;
  /** Automatic escalation (PROPOSAL_ESCALATION), run by the deadline announcer; none by default. */
  escalation?: EscalationPolicy | null;
}

export const policyOf = (deps: ProposalDeps, risk: RiskLevel): ApprovalPolicy => (deps.policies ?? DEFAULT_POLICIES)[risk];

export const rulesOf = (deps: ProposalDeps): ProposalRules => deps.rules ?? DEFAULT_PROPOSAL_RULES;

/** How deep a JSON value may nest: far beyond real data, and well short of the stack JSON.stringify needs. */
const MAX_JSON_DEPTH = 64;

/** Whether `value` nests deeper than `max` (iterative, so any depth can be measured). */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

export function jsonText(value: unknown, field: string, mustBeObject = false): string {
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) {
    throw new DomainError('INVALID_JSON', `${field} must not nest deeper than ${MAX_JSON_DEPTH} levels.`, field);
  }
  validateJsonStrings(value, field);
  if (mustBeObject && (value === null || typeof value !== 'object' || Array.isArray(value))) {
    throw new DomainError('INVALID_JSON', `${field} must be a JSON object.`, field);
  }
  const text = JSON.stringify(value ?? null);
  if (Buffer.byteLength(text) > PROPOSAL_LIMITS.jsonBytes) {
    throw new DomainError('INVALID_JSON', `${field} must be at most ${PROPOSAL_LIMITS.jsonBytes} bytes of JSON.`, field);
  }
  return text;
}

/**
 * The first 60 characters of a fingerprint, for a reason or a message: counted in code points, so a
 * character is never cut in half (a UTF-16 slice could leave half of one, which no UTF-8 store keeps).
 * PostgreSQL's `left(text, 60)` gives the same.
 */
export function fingerprintStart(fingerprint: string): string {
  return fingerprint.length <= 60 ? fingerprint : Array.from(fingerprint).slice(0, 60).join('');
}

export async function proposalEvent(
  sql: TxSql,
  proposal: Proposal,
  type: Parameters<typeof appendEvent>[1]['type'],
  actor: string,
  at: Date,
  details: EventDetails,
) {
  await appendEvent(sql, {
    type,
    actor,
    at,
    proposalId: proposal.id,
    leaseNumber: proposal.leaseKind ? proposal.leaseNumber : undefined,
    details: { state: proposal.state, revision: proposal.revision, ...details },
  });
}

/** No proposal has the id a request named. */
export const proposalNotFound = (id: number) => new DomainError('PROPOSAL_NOT_FOUND', `No proposal has id ${id}.`, 'id');

export async function loadForUpdate(tx: WriteTx, id: number): Promise<Proposal> {
  const proposal = await tx.proposal.findUnique({ where: { id } });
  if (!proposal) throw proposalNotFound(id);
  return proposal;
}

/**
 * Where `operation` takes each state, for each combination of the approval still valid (`valid|lapsed`) and the
 * fingerprint presented matching (`same|changed`): the write call's `to` when the database finds those facts.
 */
export function outcomesByValidityAndFingerprint(
  operation: ProposalOperation,
): Record<string, Partial<Record<ProposalState, ProposalState>>> {
  const to: Record<string, Partial<Record<ProposalState, ProposalState>>> = {};
  for (const approvalValid of [true, false]) {
    for (const fingerprintMatches of [true, false]) {
      to[`${approvalValid ? 'valid' : 'lapsed'}/${fingerprintMatches ? 'same' : 'changed'}`] = outcomesWith(operation, {
        approvalValid,
        fingerprintMatches,
      });
    }
  }
  return to;
}

/** The caller's approval of this revision stands (`field`: where the request named the proposal). */
export const alreadyApproved = (field: 'id' | 'token') => new DomainError('ALREADY_APPROVED', 'You already approved this revision.', field);

/** A compare-and-set lost: someone changed the proposal between this operation's read and its write. */
export const changedWhileRunning = () =>
  new DomainError('PROPOSAL_STATE_CONFLICT', 'The proposal changed while this ran; look it up again.');

/** Applies a state change with a compare-and-set on (state, version), so a concurrent change loses loudly. */
export async function move(
  tx: WriteTx,
  proposal: Proposal,
  to: ProposalState,
  data: Partial<Omit<Proposal, 'id'>> = {},
): Promise<Proposal> {
  // A proposal a policy approved (approvers: 0) waits for its review afterwards once carried out, whichever path did it.
  if (to === 'EXECUTED' && proposal.state !== 'EXECUTED' && proposal.autoApprovedBy !== null) data = { afterReview: 'PENDING', ...data };
  const entering = proposal.state !== to;
  data = {
    // Leaving a hold (resumed, cancelled, made STALE) forgets where it was held from.
    ...(entering && proposal.state === 'ON_HOLD' ? { heldFrom: null, heldBy: null } : {}),
    // Each time it becomes OUTCOME_UNKNOWN it is escalated anew; the announcer dates it if the caller did not.
    ...(entering && to === 'OUTCOME_UNKNOWN' ? { escalatedAt: null, outcomeUnknownAt: null } : {}),
    ...data,
  };
  const changed = await tx.proposal.updateMany({
    where: { id: proposal.id, version: proposal.version, state: proposal.state },
    data: { ...data, state: to, version: proposal.version + 1 },
  });
  if (changed.count !== 1) throw changedWhileRunning();
  return { ...proposal, ...data, state: to, version: proposal.version + 1 };
}

export const NO_LEASE = {
  leaseKind: null,
  manualLease: null,
  leaseTokenHash: null,
  claimedBy: null,
  claimedAt: null,
  leaseExpiresAt: null,
} as const;

export async function voidApprovals(tx: WriteTx, proposalId: number, now: Date, reason: string): Promise<number> {
  const voided = await tx.proposalApproval.updateMany({
    where: { proposalId, voidedAt: null },
    data: { voidedAt: now, voidReason: reason, lapsesAt: null },
  });
  return voided.count;
}

/**
 * Approvals age one by one: while `current` waits for more approvals, each counts for the approval window
 * from when it was given (`lapsesAt`). Voids those past it (reason LAPSED) with one PROPOSAL_APPROVAL_LAPSED
 * event each, so they no longer count and are never reused; the proposal's version moves on if any did.
 * Returns the proposal as it now stands.
 */
export async function lapseApprovals(tx: WriteTx, sql: TxSql, current: Proposal, now: Date): Promise<Proposal> {
  const due = await tx.proposalApproval.findMany({
    where: { proposalId: current.id, voidedAt: null, lapsesAt: { lte: now } },
    orderBy: { id: 'asc' },
  });
  if (due.length === 0) return current;
  await tx.proposalApproval.updateMany({
    where: { id: { in: due.map((approval) => approval.id) } },
    data: { voidedAt: now, voidReason: 'LAPSED', lapsesAt: null },
  });
  const proposal = await move(tx, current, current.state);
  const left = await tx.proposalApproval.count({ where: { proposalId: current.id, voidedAt: null } });
  for (const approval of due) {
    await proposalEvent(sql, proposal, 'PROPOSAL_APPROVAL_LAPSED', 'system', now, {
      approver: approval.approver,
      approvedAt: approval.approvedAt.toISOString(),
      lapsedAt: (approval.lapsesAt as Date).toISOString(),
      approvals: left,
      approvalsRequired: current.approvalsRequired,
    });
  }
  return proposal;
}

/** The target's data changed under `current`: STALE, lease ended, approvals void, event recorded. */
export async function markStale(
  tx: WriteTx,
  sql: TxSql,
  current: Proposal,
  change: { actor: Actor; now: Date; fingerprint: string; reason: string },
): Promise<Proposal> {
  const proposal = await move(tx, current, transition(current.state, 'MARK_STALE'), { ...NO_LEASE, stateReason: change.reason });
  const voided = await voidApprovals(tx, current.id, change.now, 'STALE');
  await proposalEvent(sql, proposal, 'PROPOSAL_STALE', change.actor.name, change.now, {
    from: current.state,
    reportedFingerprint: change.fingerprint,
    voidedApprovals: voided,
  });
  return proposal;
}

/** The proposal whose current lease this token proves, held by `actor` and unexpired. */
export async function heldBy(tx: WriteTx, token: string, actor: Actor, now: Date, kind: LeaseKind): Promise<Proposal> {
  return checkHeld(await tx.proposal.findUnique({ where: { leaseTokenHash: hashLeaseToken(validateToken(token)) } }), actor, now, kind);
}

export type LeaseKind = 'REVIEW' | 'EXECUTION';

/** heldBy's rules for the proposal found holding the token (null: none). */
export function checkHeld(proposal: Proposal | null, actor: Actor, now: Date, kind: LeaseKind): Proposal {
  if (!proposal || proposal.leaseKind !== kind || proposal.leaseExpiresAt === null) {
    throw new DomainError('CLAIM_NOT_FOUND', `No proposal holds this ${kind === 'REVIEW' ? 'review' : 'execution'} lease token.`, 'token');
  }
  if (actor.authenticated && proposal.claimedBy !== actor.name) {
    throw new DomainError('NOT_LEASE_HOLDER', 'This lease is held by another principal; only its holder may use it.', 'token');
  }
  if (isLapsed(proposal.leaseExpiresAt, now)) {
    throw new DomainError('CLAIM_EXPIRED', 'This lease has expired: claim the proposal again to get a new token.', 'token');
  }
  return proposal;
}

/** Whether an approval may still be acted on at `now`: unexpired, and the deadline not reached. */
export function approvalStillValid(proposal: Proposal, now: Date): boolean {
  return (
    proposal.approvalExpiresAt !== null &&
    proposal.approvalExpiresAt.getTime() > now.getTime() &&
    (proposal.deadline === null || proposal.deadline.getTime() > now.getTime())
  );
}

/**
 * A proposal operation's answer: the proposal after it, or, refused, the refusal `refuse` finds for the
 * proposal as found (it throws; the same rules never allow what the database refused).
 */
export function changedProposal(answer: CallAnswer, refuse: (found: Proposal | null, now: Date) => void): Proposal {
  if (answer.refused) {
    refuse(answer.proposal ? proposalFromJson(answer.proposal) : null, new Date(answer.at));
    throw new Error('The database refused an operation the same rules allow.');
  }
  if (answer.conflict) throw changedWhileRunning();
  return proposalFromJson(answer.proposal as JsonProposal);
}
