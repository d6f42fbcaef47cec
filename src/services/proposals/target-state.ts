// Action proposals, what the server knows of each target's current state (issue 17, item 2): the last
// fingerprint reported for (targetSystem, targetId), when, by whom and how. Reports (reportTargetState) and
// executions that report the target's fingerprint (a result, a manual record, a reconciliation) write it in their own
// transaction, making proposals of that target made against another fingerprint STALE; submissions,
// approvals and execution attempts against another fingerprint are refused or stopped.
import type { Proposal, TargetState, TxSql, WriteTx } from '../../db/client.js';
import { appendEvent } from '../../db/event-store.js';
import { proposalFromJson } from '../../db/write-calls.js';
import type { Role } from '../../domain/access.js';
import { DomainError } from '../../domain/errors.js';
import { fixedOutcomes } from '../../domain/proposal.js';
import { mayReportTargetState } from '../../domain/proposal-rules.js';
import { validateText } from '../../domain/validation.js';
import type { Actor, ServiceDeps } from '../context.js';
import { fingerprintStart, markStale, PROPOSAL_LIMITS, type ProposalDeps, rulesOf } from './shared.js';

/** How a fingerprint reached the server. */
export type TargetStateSource = 'REPORT' | 'EXECUTION' | 'RECONCILIATION';

/** The states a report makes STALE when their fingerprint differs: not yet executing. */
export const BEFORE_EXECUTION = ['PENDING', 'APPROVED', 'ON_HOLD'] as const;

/** The remembered state of a target, or null when none was ever reported. */
export async function rememberedTargetState(tx: WriteTx, targetSystem: string, targetId: string): Promise<TargetState | null> {
  return tx.targetState.findUnique({ where: { targetSystem_targetId: { targetSystem, targetId } } });
}

/** Reads the remembered state outside a write (the `targetState` query). */
export async function readTargetState(deps: ServiceDeps, targetSystem: string, targetId: string): Promise<TargetState | null> {
  // Checked as a submission checks them (a NUL, say, would otherwise reach PostgreSQL, which refuses it as an internal error).
  const key = {
    targetSystem: validateText(targetSystem, 'system', PROPOSAL_LIMITS.target),
    targetId: validateText(targetId, 'recordId', PROPOSAL_LIMITS.target),
  };
  return deps.db.read.targetState.findUnique({ where: { targetSystem_targetId: key } });
}

/** One line naming the remembered fingerprint, when and by whom, for refusals and reasons. */
export function describeRemembered(remembered: TargetState): string {
  return `${fingerprintStart(remembered.fingerprint)} (reported ${remembered.reportedAt.toISOString()} by ${remembered.reportedBy})`;
}

/**
 * Refuses (STALE_FINGERPRINT, field `fingerprint`) when the server remembers another fingerprint for the
 * target than `fingerprint`: what is submitted or approved must be the target as last reported.
 */
export async function requireCurrentFingerprint(
  tx: WriteTx,
  target: { targetSystem: string; targetId: string },
  fingerprint: string,
  what: string,
): Promise<void> {
  checkRemembered(await rememberedTargetState(tx, target.targetSystem, target.targetId), target, fingerprint, what);
}

/** requireCurrentFingerprint's rule for the remembered state read (null: none). */
export function checkRemembered(
  remembered: TargetState | null,
  target: { targetSystem: string; targetId: string },
  fingerprint: string,
  what: string,
): void {
  if (remembered && remembered.fingerprint !== fingerprint) {
    throw new DomainError(
      'STALE_FINGERPRINT',
      `${what} was made against fingerprint ${fingerprintStart(fingerprint)}, but ${target.targetSystem}/${target.targetId} was last reported as ${describeRemembered(remembered)}: read the target again and use its current fingerprint.`,
      'fingerprint',
    );
  }
}

/**
 * Remembers `fingerprint` as the target's current state (in the caller's transaction) and makes every proposal
 * of that target not yet executing, made against another fingerprint, STALE (approvals void, events recorded).
 * Returns those proposals.
 */
export async function rememberTargetState(
  tx: WriteTx,
  sql: TxSql,
  change: { targetSystem: string; targetId: string; fingerprint: string; actor: Actor; now: Date; source: TargetStateSource },
): Promise<Proposal[]> {
  const { targetSystem, targetId, fingerprint, actor, now, source } = change;
  const state = { fingerprint, reportedAt: now, reportedBy: actor.name, source };
  await tx.targetState.upsert({
    where: { targetSystem_targetId: { targetSystem, targetId } },
    create: { targetSystem, targetId, ...state },
    update: state,
  });
  const affected = await tx.proposal.findMany({
    where: { targetSystem, targetId, state: { in: [...BEFORE_EXECUTION] }, fingerprint: { not: fingerprint } },
    orderBy: { id: 'asc' },
  });
  const stale: Proposal[] = [];
  for (const current of affected) {
    const reason = `The target's fingerprint is now ${fingerprintStart(fingerprint)}; this revision was made against ${fingerprintStart(current.fingerprint)}.`;
    stale.push(await markStale(tx, sql, current, { actor, now, fingerprint, reason }));
  }
  return stale;
}

/**
 * Records a target's current fingerprint. Every PENDING or APPROVED proposal of that target reviewed
 * against another fingerprint becomes STALE, its approvals void. Returns those proposals. Only principals
 * allowed for that system may (TARGET_STATE_REPORTERS; EXECUTORs for a system not named there).
 */
export async function reportTargetState(
  deps: ProposalDeps,
  actor: Actor & { roles: ReadonlySet<Role> },
  input: { targetSystem: string; targetId: string; fingerprint: string },
): Promise<Proposal[]> {
  const targetSystem = validateText(input.targetSystem, 'target.system', PROPOSAL_LIMITS.target);
  const reporters = rulesOf(deps).targetStateReporters;
  if (!mayReportTargetState(reporters, actor, targetSystem)) {
    const named = Object.hasOwn(reporters, targetSystem);
    throw new DomainError(
      'NOT_TARGET_STATE_REPORTER',
      named
        ? `${actor.name} may not report the state of "${targetSystem}": TARGET_STATE_REPORTERS allows only ${reporters[targetSystem]?.join(', ')} for it.`
        : `${actor.name} may not report the state of "${targetSystem}": it is not named in TARGET_STATE_REPORTERS, so only principals with the EXECUTOR role may.`,
      'target.system',
    );
  }
  const targetId = validateText(input.targetId, 'target.recordId', PROPOSAL_LIMITS.target);
  const fingerprint = validateText(input.fingerprint, 'fingerprint', PROPOSAL_LIMITS.fingerprint);
  return deps.db.perform({
    work: async (tx, sql) => {
      const now = deps.clock.now();
      await appendEvent(sql, {
        type: 'TARGET_STATE_REPORTED',
        actor: actor.name,
        at: now,
        details: { target: `${targetSystem}/${targetId}`, fingerprint },
      });
      // Remembered, and every proposal of the target not yet executing made against another fingerprint → STALE.
      return rememberTargetState(tx, sql, { targetSystem, targetId, fingerprint, actor, now, source: 'REPORT' });
    },
    // A write call on PostgreSQL (migration 20261203170000_execution_attempt_calls).
    call: {
      fields: {
        op: 'targetReport',
        actor: actor.name,
        targetSystem,
        targetId,
        fingerprint,
        before: [...BEFORE_EXECUTION],
        staleTo: fixedOutcomes('MARK_STALE'),
      },
      clock: deps.clock,
      answer: (answer) => (answer.stale ?? []).map(proposalFromJson),
    },
  });
}
