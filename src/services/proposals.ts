// Action proposals (seed B): intake, review under leases, approvals per policy, stale data, exactly-once
// execution, expiry, reconciliation and manual execution. Each operation is one transaction that
// checks the caller, the current state (through domain/proposal.ts `transition`) and the data, then
// writes the change and its events together.
import { randomUUID } from 'node:crypto';
import type { ExecutionAttempt, Proposal, TxSql, WriteTx } from '../db/client.js';
import { appendEvent } from '../db/event-store.js';
import { DomainError } from '../domain/errors.js';
import type { EventDetails } from '../domain/events.js';
import { hashLeaseToken, isLapsed, issueLeaseToken, leaseExpiry } from '../domain/lease.js';
import {
  type ApprovalPolicy,
  approvalExpiry,
  DEFAULT_POLICIES,
  type Policies,
  type ProposalOperation,
  type ProposalState,
  RISK_LEVELS,
  type RiskLevel,
  transition,
} from '../domain/proposal.js';
import { LIMITS, validateJsonStrings, validateLeaseSeconds, validateText, validateToken } from '../domain/validation.js';
import type { Actor, ServiceDeps } from './context.js';

export const PROPOSAL_LIMITS = {
  action: 100,
  target: 100,
  dataSource: 200,
  fingerprint: 200,
  jsonBytes: 16_384,
  evidence: 2_000,
  minValiditySeconds: 60,
  maxValiditySeconds: 30 * 24 * 3600,
  maxExecutionLeaseSeconds: 3600,
} as const;

export type { Policies } from '../domain/proposal.js';

export interface ProposalDeps extends ServiceDeps {
  policies?: Policies;
}

const policyOf = (deps: ProposalDeps, risk: RiskLevel): ApprovalPolicy => (deps.policies ?? DEFAULT_POLICIES)[risk];

export interface NewProposal {
  batchId: string;
  recordId: string;
  revision?: number | null;
  action: string;
  parameters: unknown;
  reason: string;
  targetSystem: string;
  targetId: string;
  currentValue: unknown;
  proposedValue: unknown;
  dataSource: string;
  riskLevel: string;
  fingerprint: string | null | undefined;
  approvalValiditySeconds?: number | null;
  deadline?: Date | null;
}

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

function jsonText(value: unknown, field: string, mustBeObject = false): string {
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

function validateNewProposal(input: NewProposal) {
  const revision = input.revision ?? 1;
  if (!Number.isInteger(revision) || revision < 1 || revision > 1_000) {
    throw new DomainError('INVALID_ARGUMENT', 'revision must be a whole number from 1 to 1000.', 'revision');
  }
  if (input.fingerprint == null || input.fingerprint === '') {
    throw new DomainError('INVALID_TEXT', 'fingerprint is required: the target data’s fingerprint as the proposer saw it.', 'fingerprint');
  }
  if (!(RISK_LEVELS as readonly string[]).includes(input.riskLevel)) {
    throw new DomainError('INVALID_ARGUMENT', `riskLevel must be one of ${RISK_LEVELS.join(', ')}.`, 'riskLevel');
  }
  const validity = input.approvalValiditySeconds ?? null;
  if (
    validity !== null &&
    (!Number.isInteger(validity) || validity < PROPOSAL_LIMITS.minValiditySeconds || validity > PROPOSAL_LIMITS.maxValiditySeconds)
  ) {
    throw new DomainError(
      'INVALID_ARGUMENT',
      `approvalValiditySeconds must be a whole number from ${PROPOSAL_LIMITS.minValiditySeconds} to ${PROPOSAL_LIMITS.maxValiditySeconds}.`,
      'approvalValiditySeconds',
    );
  }
  return {
    batchId: validateText(input.batchId, 'batchId', LIMITS.batchId),
    recordId: validateText(input.recordId, 'recordId', LIMITS.recordId),
    revision,
    action: validateText(input.action, 'action', PROPOSAL_LIMITS.action),
    parameters: jsonText(input.parameters, 'parameters', true),
    reason: validateText(input.reason, 'reason', LIMITS.reason),
    targetSystem: validateText(input.targetSystem, 'target.system', PROPOSAL_LIMITS.target),
    targetId: validateText(input.targetId, 'target.recordId', PROPOSAL_LIMITS.target),
    currentValue: jsonText(input.currentValue, 'currentValue'),
    proposedValue: jsonText(input.proposedValue, 'proposedValue'),
    dataSource: validateText(input.dataSource, 'dataSource', PROPOSAL_LIMITS.dataSource),
    riskLevel: input.riskLevel as RiskLevel,
    fingerprint: validateText(input.fingerprint, 'fingerprint', PROPOSAL_LIMITS.fingerprint),
    approvalValiditySeconds: validity,
    deadline: input.deadline ?? null,
  };
}

const SAME_CONTENT = [
  'action',
  'parameters',
  'reason',
  'targetSystem',
  'targetId',
  'currentValue',
  'proposedValue',
  'dataSource',
  'riskLevel',
  'fingerprint',
] as const;

/** States after which the proposer may submit the next revision. */
const REVISABLE: ReadonlySet<ProposalState> = new Set(['CHANGES_REQUESTED', 'STALE', 'EXPIRED', 'FAILED']);

async function proposalEvent(
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

/**
 * Submits a proposal. Idempotent: the same (batchId, recordId, revision) with the same content returns
 * the stored proposal (`created: false`); with other content it is refused (PROPOSAL_CONFLICT).
 */
export async function submitProposal(
  deps: ProposalDeps,
  actor: Actor,
  input: NewProposal,
): Promise<{ proposal: Proposal; created: boolean }> {
  const valid = validateNewProposal(input);
  return deps.db.write(async (tx, sql) => {
    const now = deps.clock.now();
    const existing = await tx.proposal.findUnique({
      where: { batchId_recordId_revision: { batchId: valid.batchId, recordId: valid.recordId, revision: valid.revision } },
    });
    if (existing) {
      const same =
        SAME_CONTENT.every((field) => existing[field] === valid[field]) &&
        existing.proposedBy === actor.name &&
        existing.approvalValiditySeconds === valid.approvalValiditySeconds &&
        (existing.deadline?.getTime() ?? null) === (valid.deadline?.getTime() ?? null);
      if (!same) {
        throw new DomainError(
          'PROPOSAL_CONFLICT',
          `Proposal (${valid.batchId}, ${valid.recordId}) revision ${valid.revision} exists with different content; submit the next revision instead.`,
          'revision',
        );
      }
      return { proposal: existing, created: false };
    }
    // Checked only for a new proposal: a retry of an accepted submission returns it even after its deadline.
    if (valid.deadline && valid.deadline.getTime() <= now.getTime()) {
      throw new DomainError('INVALID_ARGUMENT', 'deadline must be in the future.', 'deadline');
    }
    let previousId: number | null = null;
    if (valid.revision > 1) {
      const previous = await tx.proposal.findUnique({
        where: { batchId_recordId_revision: { batchId: valid.batchId, recordId: valid.recordId, revision: valid.revision - 1 } },
      });
      if (!previous || !REVISABLE.has(previous.state) || previous.proposedBy !== actor.name) {
        throw new DomainError(
          'PREVIOUS_REVISION_INVALID',
          `Revision ${valid.revision} must follow revision ${valid.revision - 1} by the same proposer, ended in CHANGES_REQUESTED, STALE, EXPIRED or FAILED.`,
          'revision',
        );
      }
      previousId = previous.id;
    } else {
      const later = await tx.proposal.count({ where: { batchId: valid.batchId, recordId: valid.recordId } });
      if (later > 0) throw new DomainError('PROPOSAL_CONFLICT', 'This (batchId, recordId) already has revisions.', 'revision');
    }
    const proposal = await tx.proposal.create({
      data: { ...valid, previousId, proposedBy: actor.name, createdAt: now, approvalsRequired: policyOf(deps, valid.riskLevel).approvers },
    });
    await proposalEvent(sql, proposal, 'PROPOSAL_SUBMITTED', actor.name, now, {
      batchId: proposal.batchId,
      recordId: proposal.recordId,
      action: proposal.action,
      riskLevel: proposal.riskLevel,
      target: `${proposal.targetSystem}/${proposal.targetId}`,
      previousId,
    });
    return { proposal, created: true };
  });
}

async function loadForUpdate(tx: WriteTx, id: number): Promise<Proposal> {
  const proposal = await tx.proposal.findUnique({ where: { id } });
  if (!proposal) throw new DomainError('PROPOSAL_NOT_FOUND', `No proposal has id ${id}.`, 'id');
  return proposal;
}

/** Applies a state change with a compare-and-set on (state, version), so a concurrent change loses loudly. */
async function move(tx: WriteTx, proposal: Proposal, to: ProposalState, data: Partial<Omit<Proposal, 'id'>> = {}): Promise<Proposal> {
  const changed = await tx.proposal.updateMany({
    where: { id: proposal.id, version: proposal.version, state: proposal.state },
    data: { ...data, state: to, version: proposal.version + 1 },
  });
  if (changed.count !== 1) throw new DomainError('PROPOSAL_STATE_CONFLICT', 'The proposal changed while this ran; look it up again.');
  return { ...proposal, ...data, state: to, version: proposal.version + 1 };
}

const NO_LEASE = { leaseKind: null, leaseTokenHash: null, claimedBy: null, claimedAt: null, leaseExpiresAt: null } as const;

async function voidApprovals(tx: WriteTx, proposalId: number, now: Date, reason: string): Promise<number> {
  const voided = await tx.proposalApproval.updateMany({
    where: { proposalId, voidedAt: null },
    data: { voidedAt: now, voidReason: reason },
  });
  return voided.count;
}

/** The target's data changed under `current`: STALE, lease ended, approvals void, event recorded. */
async function markStale(
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
async function heldBy(tx: WriteTx, token: string, actor: Actor, now: Date, kind: 'REVIEW' | 'EXECUTION'): Promise<Proposal> {
  const proposal = await tx.proposal.findUnique({ where: { leaseTokenHash: hashLeaseToken(validateToken(token)) } });
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

export interface ProposalClaim {
  proposal: Proposal;
  token: string;
}

/**
 * Leases the next PENDING proposal for review: earliest deadline first, then oldest. Never one the
 * caller proposed or already approved. Null when none is claimable (a normal answer).
 */
export async function claimProposal(
  deps: ProposalDeps,
  actor: Actor,
  input: { leaseSeconds?: number | null; riskLevels?: readonly string[] | null },
): Promise<ProposalClaim | null> {
  const leaseSeconds = validateLeaseSeconds(input.leaseSeconds ?? LIMITS.defaultLeaseSeconds);
  const risks = input.riskLevels?.length
    ? input.riskLevels.filter((risk): risk is RiskLevel => (RISK_LEVELS as readonly string[]).includes(risk))
    : null;
  const token = issueLeaseToken();
  return deps.db.write(async (tx, sql) => {
    const now = deps.clock.now();
    const candidate = await tx.proposal.findFirst({
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
    if (claimed.count !== 1) throw new DomainError('CLAIM_CONFLICT', 'The proposal was claimed by someone else; claim again.');
    const proposal = await loadForUpdate(tx, candidate.id);
    await proposalEvent(sql, proposal, 'PROPOSAL_LEASE_CLAIMED', actor.name, now, { holder: actor.name, leaseSeconds, kind: 'REVIEW' });
    return { proposal, token };
  });
}

/** Renews a review or execution lease from now. */
export async function renewProposalLease(
  deps: ProposalDeps,
  actor: Actor,
  input: { token: string; leaseSeconds?: number | null },
): Promise<Proposal> {
  const leaseSeconds = validateLeaseSeconds(input.leaseSeconds ?? LIMITS.defaultLeaseSeconds);
  return deps.db.write(async (tx, sql) => {
    const now = deps.clock.now();
    const hash = hashLeaseToken(validateToken(input.token));
    const found = await tx.proposal.findUnique({ where: { leaseTokenHash: hash } });
    const held = await heldBy(tx, input.token, actor, now, found?.leaseKind === 'EXECUTION' ? 'EXECUTION' : 'REVIEW');
    const proposal = await move(tx, held, held.state, { leaseExpiresAt: leaseExpiry(now, leaseSeconds) });
    await proposalEvent(sql, proposal, 'PROPOSAL_LEASE_RENEWED', actor.name, now, {
      holder: held.claimedBy,
      leaseSeconds,
      kind: held.leaseKind,
    });
    return proposal;
  });
}

/** Gives a proposal back undecided (review leases only: an execution must report its outcome). */
export async function releaseProposalLease(deps: ProposalDeps, actor: Actor, input: { token: string }): Promise<Proposal> {
  return deps.db.write(async (tx, sql) => {
    const now = deps.clock.now();
    const held = await heldBy(tx, input.token, actor, now, 'REVIEW');
    const proposal = await move(tx, held, held.state, NO_LEASE);
    await proposalEvent(sql, proposal, 'PROPOSAL_LEASE_RELEASED', actor.name, now, { holder: held.claimedBy });
    return proposal;
  });
}

export type ReviewDecision = 'APPROVE' | 'REJECT' | 'REQUEST_CHANGES';

export interface ReviewInput {
  token: string;
  decision: ReviewDecision;
  /** The revision the reviewer reviewed (APPROVE). */
  revision?: number | null;
  /** Optionally, the fingerprint the reviewer saw; compared too. */
  fingerprint?: string | null;
  /** Required for REJECT and REQUEST_CHANGES. */
  reason?: string | null;
}

/** Records a reviewer's decision under its review lease; the lease ends with it. */
export async function reviewProposal(deps: ProposalDeps, actor: Actor, input: ReviewInput): Promise<Proposal> {
  const reason = input.decision === 'APPROVE' ? null : validateText(input.reason ?? '', 'reason', LIMITS.reason);
  if (input.decision === 'APPROVE' && input.revision == null) {
    throw new DomainError('REVISION_MISMATCH', 'Name the revision you reviewed.', 'revision');
  }
  return deps.db.write(async (tx, sql) => {
    const now = deps.clock.now();
    const held = await heldBy(tx, input.token, actor, now, 'REVIEW');
    if (held.proposedBy === actor.name) {
      throw new DomainError('SELF_APPROVAL', 'You proposed this; another reviewer must review it.', 'token');
    }
    if (held.deadline && held.deadline.getTime() <= now.getTime()) {
      throw new DomainError('DEADLINE_PASSED', `The deadline passed at ${held.deadline.toISOString()}.`, 'token');
    }
    if (input.decision !== 'APPROVE') {
      const operation: ProposalOperation = input.decision === 'REJECT' ? 'REJECT' : 'REQUEST_CHANGES';
      const proposal = await move(tx, held, transition(held.state, operation), { ...NO_LEASE, stateReason: reason });
      await voidApprovals(tx, held.id, now, operation);
      await proposalEvent(sql, proposal, operation === 'REJECT' ? 'PROPOSAL_REJECTED' : 'PROPOSAL_CHANGES_REQUESTED', actor.name, now, {
        from: held.state,
        reason,
      });
      return proposal;
    }
    if (input.revision !== held.revision) {
      throw new DomainError(
        'REVISION_MISMATCH',
        `You reviewed revision ${input.revision}, but the proposal is revision ${held.revision}; look at it again.`,
        'revision',
      );
    }
    if (input.fingerprint != null && input.fingerprint !== held.fingerprint) {
      throw new DomainError(
        'REVISION_MISMATCH',
        `You reviewed fingerprint ${[...input.fingerprint].slice(0, 40).join('')}, but revision ${held.revision} has another fingerprint; look at it again.`,
        'fingerprint',
      );
    }
    const already = await tx.proposalApproval.findUnique({ where: { proposalId_approver: { proposalId: held.id, approver: actor.name } } });
    if (already) throw new DomainError('ALREADY_APPROVED', 'You already approved this revision.', 'token');
    await tx.proposalApproval.create({ data: { proposalId: held.id, approver: actor.name, approvedAt: now } });
    const approvals = await tx.proposalApproval.count({ where: { proposalId: held.id, voidedAt: null } });
    const to = transition(held.state, 'APPROVE', { approvalsAfter: approvals, approvalsRequired: held.approvalsRequired });
    const policy = policyOf(deps, held.riskLevel);
    const approved =
      to === 'APPROVED'
        ? {
            approvedAt: now,
            approvalExpiresAt: approvalExpiry(now, policy, held.approvalValiditySeconds, held.deadline),
            operationId: randomUUID(),
          }
        : {};
    const proposal = await move(tx, held, to, { ...NO_LEASE, ...approved });
    await proposalEvent(sql, proposal, 'PROPOSAL_APPROVAL_RECORDED', actor.name, now, {
      from: held.state,
      approver: actor.name,
      approvals,
      approvalsRequired: held.approvalsRequired,
    });
    if (to === 'APPROVED') {
      await proposalEvent(sql, proposal, 'PROPOSAL_APPROVED', actor.name, now, {
        from: held.state,
        approvals,
        approvalExpiresAt: proposal.approvalExpiresAt?.toISOString() ?? null,
        operationId: proposal.operationId,
      });
    }
    return proposal;
  });
}

/** Withdraws a PENDING or APPROVED proposal: by its proposer, or by an admin. */
export async function cancelProposal(
  deps: ProposalDeps,
  actor: Actor & { isAdmin: boolean },
  input: { id: number; reason: string },
): Promise<Proposal> {
  const reason = validateText(input.reason, 'reason', LIMITS.reason);
  return deps.db.write(async (tx, sql) => {
    const now = deps.clock.now();
    const current = await loadForUpdate(tx, input.id);
    if (!actor.isAdmin && current.proposedBy !== actor.name) {
      throw new DomainError('NOT_PROPOSER', 'Only the proposer or an admin may cancel a proposal.', 'id');
    }
    const proposal = await move(tx, current, transition(current.state, 'CANCEL'), { ...NO_LEASE, stateReason: reason });
    const voided = await voidApprovals(tx, current.id, now, 'CANCELLED');
    await proposalEvent(sql, proposal, 'PROPOSAL_CANCELLED', actor.name, now, { from: current.state, reason, voidedApprovals: voided });
    return proposal;
  });
}

/**
 * Records a target's current fingerprint. Every PENDING or APPROVED proposal of that target reviewed
 * against another fingerprint becomes STALE, its approvals void. Returns those proposals.
 */
export async function reportTargetState(
  deps: ProposalDeps,
  actor: Actor,
  input: { targetSystem: string; targetId: string; fingerprint: string },
): Promise<Proposal[]> {
  const targetSystem = validateText(input.targetSystem, 'target.system', PROPOSAL_LIMITS.target);
  const targetId = validateText(input.targetId, 'target.recordId', PROPOSAL_LIMITS.target);
  const fingerprint = validateText(input.fingerprint, 'fingerprint', PROPOSAL_LIMITS.fingerprint);
  return deps.db.write(async (tx, sql) => {
    const now = deps.clock.now();
    await appendEvent(sql, {
      type: 'TARGET_STATE_REPORTED',
      actor: actor.name,
      at: now,
      details: { target: `${targetSystem}/${targetId}`, fingerprint },
    });
    const affected = await tx.proposal.findMany({
      where: { targetSystem, targetId, state: { in: ['PENDING', 'APPROVED'] }, fingerprint: { not: fingerprint } },
      orderBy: { id: 'asc' },
    });
    const stale: Proposal[] = [];
    for (const current of affected) {
      const reason = `The target's fingerprint is now ${fingerprint.slice(0, 60)}; this revision was made against ${current.fingerprint.slice(0, 60)}.`;
      const proposal = await markStale(tx, sql, current, { actor, now, fingerprint, reason });
      stale.push(proposal);
    }
    return stale;
  });
}

export interface ExecutionClaim {
  proposal: Proposal;
  token: string;
  operationId: string;
}

/**
 * Takes the next APPROVED proposal whose approval is still valid, under an execution lease: one
 * winner (a compare-and-set on the state). Never one the executor proposed, nor, when the policy
 * says so, one it approved. Null when none is ready.
 */
export async function claimExecution(
  deps: ProposalDeps,
  actor: Actor,
  input: { leaseSeconds?: number | null; actions?: readonly string[] | null; targetSystems?: readonly string[] | null },
): Promise<ExecutionClaim | null> {
  const leaseSeconds = validateLeaseSeconds(input.leaseSeconds ?? LIMITS.defaultLeaseSeconds);
  // An executor that can only run some actions, or reach some systems, asks only for those.
  const actions = input.actions?.length
    ? input.actions.map((action, n) => validateText(action, `actions[${n}]`, PROPOSAL_LIMITS.action))
    : null;
  const systems = input.targetSystems?.length
    ? input.targetSystems.map((system, n) => validateText(system, `targetSystems[${n}]`, PROPOSAL_LIMITS.target))
    : null;
  const token = issueLeaseToken();
  return deps.db.write(async (tx, sql) => {
    const now = deps.clock.now();
    // Where the policy separates executors from approvers, proposals this executor approved are skipped in the query itself.
    const separated = RISK_LEVELS.filter((risk) => policyOf(deps, risk).executorMustDifferFromApprovers);
    const current = await tx.proposal.findFirst({
      where: {
        state: 'APPROVED',
        approvalExpiresAt: { gt: now },
        proposedBy: { not: actor.name },
        ...(actions ? { action: { in: actions } } : {}),
        ...(systems ? { targetSystem: { in: systems } } : {}),
        OR: [{ riskLevel: { notIn: separated } }, { approvals: { none: { approver: actor.name, voidedAt: null } } }],
      },
      orderBy: [{ approvalExpiresAt: 'asc' }, { id: 'asc' }],
    });
    if (!current) return null;
    const proposal = await move(tx, current, transition(current.state, 'CLAIM_EXECUTION'), {
      leaseKind: 'EXECUTION',
      leaseTokenHash: hashLeaseToken(token),
      claimedBy: actor.name,
      claimedAt: now,
      leaseExpiresAt: leaseExpiry(now, leaseSeconds),
      leaseNumber: current.leaseNumber + 1,
      leaseExpiryRecorded: false,
    });
    await proposalEvent(sql, proposal, 'EXECUTION_CLAIMED', actor.name, now, {
      from: current.state,
      executor: actor.name,
      operationId: proposal.operationId,
      leaseSeconds,
    });
    return { proposal, token, operationId: proposal.operationId as string };
  });
}

/**
 * Compares the target's current fingerprint with the approved one and starts an attempt. On a
 * mismatch the proposal becomes STALE and `attempt` is null: nothing may run. Past the approval's
 * validity it becomes EXPIRED, likewise.
 */
export async function startExecutionAttempt(
  deps: ProposalDeps,
  actor: Actor,
  input: { token: string; fingerprint: string; correlationId?: string | null },
): Promise<{ proposal: Proposal; attempt: ExecutionAttempt | null }> {
  const fingerprint = validateText(input.fingerprint, 'fingerprint', PROPOSAL_LIMITS.fingerprint);
  const correlationId = input.correlationId == null ? null : validateText(input.correlationId, 'correlationId', LIMITS.reason);
  return deps.db.write(async (tx, sql) => {
    const now = deps.clock.now();
    const held = await heldBy(tx, input.token, actor, now, 'EXECUTION');
    if (fingerprint !== held.fingerprint) {
      const reason = `At execution the target's fingerprint was ${fingerprint.slice(0, 60)}, not the approved ${held.fingerprint.slice(0, 60)}.`;
      const proposal = await markStale(tx, sql, held, { actor, now, fingerprint, reason });
      return { proposal, attempt: null };
    }
    if (!approvalStillValid(held, now)) {
      const proposal = await move(
        tx,
        held,
        transition(held.state, 'FAIL_BEFORE_SEND', { approvalValid: false, fingerprintMatches: true }),
        {
          ...NO_LEASE,
          stateReason: 'The approval expired before the attempt started.',
        },
      );
      await voidApprovals(tx, held.id, now, 'EXPIRED');
      await proposalEvent(sql, proposal, 'PROPOSAL_EXPIRED', actor.name, now, { from: held.state, why: 'APPROVAL_VALIDITY' });
      return { proposal, attempt: null };
    }
    const open = await tx.executionAttempt.findFirst({ where: { proposalId: held.id, outcome: null } });
    if (open) {
      throw new DomainError(
        'ATTEMPT_IN_PROGRESS',
        `Attempt ${open.number} has no reported result: report it (UNKNOWN if you cannot tell) instead of sending again.`,
        'token',
      );
    }
    const number = (await tx.executionAttempt.count({ where: { proposalId: held.id } })) + 1;
    const attempt = await tx.executionAttempt.create({
      data: { proposalId: held.id, operationId: held.operationId as string, number, executor: actor.name, correlationId, startedAt: now },
    });
    await proposalEvent(sql, held, 'EXECUTION_ATTEMPT_STARTED', actor.name, now, {
      attempt: number,
      operationId: held.operationId,
      correlationId,
    });
    return { proposal: held, attempt };
  });
}

function approvalStillValid(proposal: Proposal, now: Date): boolean {
  return (
    proposal.approvalExpiresAt !== null &&
    proposal.approvalExpiresAt.getTime() > now.getTime() &&
    (proposal.deadline === null || proposal.deadline.getTime() > now.getTime())
  );
}

export type ExecutionOutcome = 'SUCCEEDED' | 'FAILED_BEFORE_SEND' | 'REJECTED_BY_REMOTE' | 'UNKNOWN';

const OUTCOME_OPERATION: Record<ExecutionOutcome, ProposalOperation> = {
  SUCCEEDED: 'SUCCEED',
  FAILED_BEFORE_SEND: 'FAIL_BEFORE_SEND',
  REJECTED_BY_REMOTE: 'FAIL_REJECTED_BY_REMOTE',
  UNKNOWN: 'OUTCOME_UNKNOWN',
};

/** Records how the current attempt ended; the execution lease ends with it. */
export async function reportExecutionResult(
  deps: ProposalDeps,
  actor: Actor,
  input: { token: string; outcome: ExecutionOutcome; response?: unknown; correlationId?: string | null },
): Promise<Proposal> {
  const response = input.response === undefined ? null : jsonText(input.response, 'response');
  const correlationId = input.correlationId == null ? null : validateText(input.correlationId, 'correlationId', LIMITS.reason);
  return deps.db.write(async (tx, sql) => {
    const now = deps.clock.now();
    const held = await heldBy(tx, input.token, actor, now, 'EXECUTION');
    const attempt = await tx.executionAttempt.findFirst({ where: { proposalId: held.id, outcome: null }, orderBy: { number: 'desc' } });
    if (!attempt && input.outcome !== 'FAILED_BEFORE_SEND') {
      throw new DomainError('ATTEMPT_NOT_STARTED', 'Start an attempt (startExecutionAttempt) before reporting its result.', 'token');
    }
    if (attempt) {
      await tx.executionAttempt.update({
        where: { id: attempt.id },
        data: { outcome: input.outcome, response, finishedAt: now, correlationId: correlationId ?? attempt.correlationId },
      });
    }
    const valid = approvalStillValid(held, now);
    const to = transition(held.state, OUTCOME_OPERATION[input.outcome], { approvalValid: valid, fingerprintMatches: true });
    const proposal = await move(tx, held, to, {
      ...NO_LEASE,
      stateReason:
        input.outcome === 'SUCCEEDED'
          ? null
          : attempt
            ? `Attempt ${attempt.number} ended ${input.outcome}.`
            : 'Failed before sending, before any attempt was started.',
    });
    if (to === 'EXPIRED') await voidApprovals(tx, held.id, now, 'EXPIRED');
    const type =
      to === 'EXECUTED'
        ? 'EXECUTION_SUCCEEDED'
        : to === 'FAILED'
          ? 'EXECUTION_FAILED'
          : to === 'OUTCOME_UNKNOWN'
            ? 'EXECUTION_OUTCOME_UNKNOWN'
            : to === 'APPROVED'
              ? 'EXECUTION_RETURNED'
              : 'PROPOSAL_EXPIRED';
    await proposalEvent(sql, proposal, type, actor.name, now, {
      from: held.state,
      attempt: attempt?.number ?? null,
      outcome: input.outcome,
      operationId: held.operationId,
    });
    return proposal;
  });
}

/** An admin settles an OUTCOME_UNKNOWN: executed (with evidence), or not executed (re-checked before it may run again). */
export async function reconcileProposal(
  deps: ProposalDeps,
  actor: Actor,
  input: { id: number; executed: boolean; evidence: string; fingerprint?: string | null },
): Promise<Proposal> {
  const evidence = validateText(input.evidence, 'evidence', PROPOSAL_LIMITS.evidence);
  if (!input.executed && (input.fingerprint == null || input.fingerprint === '')) {
    throw new DomainError(
      'INVALID_TEXT',
      'Give the target’s current fingerprint: it is re-checked before the proposal may run again.',
      'fingerprint',
    );
  }
  return deps.db.write(async (tx, sql) => {
    const now = deps.clock.now();
    const current = await loadForUpdate(tx, input.id);
    const operation: ProposalOperation = input.executed ? 'RECONCILE_EXECUTED' : 'RECONCILE_NOT_EXECUTED';
    const to = transition(current.state, operation, {
      approvalValid: approvalStillValid(current, now),
      fingerprintMatches: input.fingerprint == null ? true : input.fingerprint === current.fingerprint,
    });
    const proposal = await move(tx, current, to, { ...NO_LEASE, stateReason: evidence });
    if (to === 'STALE' || to === 'EXPIRED') await voidApprovals(tx, current.id, now, to);
    await proposalEvent(sql, proposal, 'PROPOSAL_RECONCILED', actor.name, now, { from: current.state, executed: input.executed, evidence });
    return proposal;
  });
}

/** An executor records an action carried out by hand: the same checks as an automated execution. */
export async function recordManualExecution(
  deps: ProposalDeps,
  actor: Actor,
  input: { id: number; fingerprint: string; evidence: string },
): Promise<Proposal> {
  const fingerprint = validateText(input.fingerprint, 'fingerprint', PROPOSAL_LIMITS.fingerprint);
  const evidence = validateText(input.evidence, 'evidence', PROPOSAL_LIMITS.evidence);
  return deps.db.write(async (tx, sql) => {
    const now = deps.clock.now();
    const current = await loadForUpdate(tx, input.id);
    if (current.proposedBy === actor.name) throw new DomainError('SELF_APPROVAL', 'You proposed this; someone else must execute it.', 'id');
    if (policyOf(deps, current.riskLevel).executorMustDifferFromApprovers) {
      const approved = await tx.proposalApproval.findFirst({ where: { proposalId: current.id, approver: actor.name, voidedAt: null } });
      if (approved) throw new DomainError('EXECUTOR_IS_APPROVER', 'You approved this; the policy requires another executor.', 'id');
    }
    const to = transition(current.state, 'RECORD_MANUAL_EXECUTION', {
      approvalValid: approvalStillValid(current, now),
      fingerprintMatches: fingerprint === current.fingerprint,
    });
    const proposal = await move(tx, current, to, { ...NO_LEASE, stateReason: evidence });
    if (to !== 'EXECUTED') await voidApprovals(tx, current.id, now, to);
    await proposalEvent(
      sql,
      proposal,
      to === 'EXECUTED' ? 'MANUAL_EXECUTION_RECORDED' : to === 'STALE' ? 'PROPOSAL_STALE' : 'PROPOSAL_EXPIRED',
      actor.name,
      now,
      {
        from: current.state,
        evidence,
        reportedFingerprint: fingerprint,
      },
    );
    return proposal;
  });
}

/**
 * What time passing does, recorded once whichever process gets there first: deadlines and approval
 * validity → EXPIRED; a lapsed execution lease → OUTCOME_UNKNOWN; a lapsed review lease → recorded.
 * Returns how many proposals it changed.
 */
export async function recordProposalDeadlines(deps: ProposalDeps, limit: number): Promise<number> {
  return deps.db.write(async (tx, sql) => {
    const now = deps.clock.now();
    let changed = 0;
    const expiring = await tx.proposal.findMany({
      where: {
        OR: [
          { state: 'PENDING', deadline: { lte: now } },
          { state: 'APPROVED', OR: [{ approvalExpiresAt: { lte: now } }, { deadline: { lte: now } }] },
        ],
      },
      take: limit,
      orderBy: { id: 'asc' },
    });
    for (const current of expiring) {
      const why = current.state === 'PENDING' || (current.deadline && current.deadline <= now) ? 'DEADLINE' : 'APPROVAL_VALIDITY';
      const proposal = await move(tx, current, transition(current.state, 'EXPIRE'), {
        ...NO_LEASE,
        stateReason: why === 'DEADLINE' ? 'The deadline passed.' : 'The approval expired before execution.',
      });
      await voidApprovals(tx, current.id, now, 'EXPIRED');
      await proposalEvent(sql, proposal, 'PROPOSAL_EXPIRED', 'system', now, { from: current.state, why });
      changed++;
    }
    // At most `limit` changes in all, so a caller can tell a full batch from the last one.
    if (changed >= limit) return changed;
    const lapsed = await tx.proposal.findMany({
      where: { leaseExpiryRecorded: false, leaseExpiresAt: { lte: now }, state: { in: ['PENDING', 'EXECUTING'] } },
      take: limit - changed,
      orderBy: { id: 'asc' },
    });
    for (const current of lapsed) {
      if (current.state === 'EXECUTING') {
        await tx.executionAttempt.updateMany({
          where: { proposalId: current.id, outcome: null },
          data: { outcome: 'UNKNOWN', finishedAt: now },
        });
        const proposal = await move(tx, current, transition(current.state, 'OUTCOME_UNKNOWN'), {
          ...NO_LEASE,
          leaseExpiryRecorded: true,
          stateReason: `The execution lease of ${current.claimedBy} lapsed without a reported result.`,
        });
        await proposalEvent(sql, proposal, 'EXECUTION_OUTCOME_UNKNOWN', 'system', now, {
          from: 'EXECUTING',
          why: 'EXECUTION_LEASE_LAPSED',
          executor: current.claimedBy,
        });
      } else {
        const proposal = await move(tx, current, current.state, { leaseExpiryRecorded: true });
        await proposalEvent(sql, proposal, 'PROPOSAL_LEASE_EXPIRED', 'system', now, { holder: current.claimedBy, kind: current.leaseKind });
      }
      changed++;
    }
    return changed;
  });
}

/** When `recordProposalDeadlines` next has work: the earliest deadline, approval expiry or lease lapse. */
export async function nextProposalDeadline(deps: ServiceDeps): Promise<Date | null> {
  const [deadline, approval, lease] = await Promise.all([
    deps.db.read.proposal.findFirst({
      where: { state: { in: ['PENDING', 'APPROVED'] }, deadline: { not: null } },
      orderBy: { deadline: 'asc' },
    }),
    deps.db.read.proposal.findFirst({
      where: { state: 'APPROVED', approvalExpiresAt: { not: null } },
      orderBy: { approvalExpiresAt: 'asc' },
    }),
    deps.db.read.proposal.findFirst({
      where: { leaseExpiryRecorded: false, leaseExpiresAt: { not: null }, state: { in: ['PENDING', 'EXECUTING'] } },
      orderBy: { leaseExpiresAt: 'asc' },
    }),
  ]);
  const times = [deadline?.deadline, approval?.approvalExpiresAt, lease?.leaseExpiresAt].filter(
    (time): time is Date => time instanceof Date,
  );
  return times.length === 0 ? null : new Date(Math.min(...times.map((time) => time.getTime())));
}
