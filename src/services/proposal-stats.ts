// Action-proposal statistics for dashboards and /metrics: counts by state, pending proposals by age,
// outcome totals, and how long proposals wait for a decision. Read-only, on the read connection.
import { PROPOSAL_STATES, type ProposalState, RISK_LEVELS, type RiskLevel } from '../domain/proposal.js';
import type { ServiceDeps } from './context.js';

const HOUR_MS = 3_600_000;

/** Age buckets of pending proposals by the server clock: under 1 h, 1–4 h, 4–24 h, 24 h and over (lower bounds inclusive). */
export const PENDING_AGE_BUCKETS = ['lt_1h', '1h_to_4h', '4h_to_24h', 'gte_24h'] as const;

export type PendingAgeBucket = (typeof PENDING_AGE_BUCKETS)[number];

/** Counts by state and pending proposals by age: what /metrics reads at every scrape. */
export interface ProposalCounts {
  computedAt: Date;
  byState: Record<ProposalState, number>;
  pendingByAge: Record<PendingAgeBucket, number>;
  /** PENDING proposals by risk level (maintained counts: see the pending_by_risk migration). */
  pendingByRisk: Record<RiskLevel, number>;
  /** Age in seconds of the oldest PENDING proposal; null when none is pending. */
  oldestPendingAgeSeconds: number | null;
  /** Executed without a review before (a policy with approvers: 0) and not yet reviewed afterwards. */
  awaitingReviewAfterExecution: number;
}

/**
 * Outcome totals. Every state named here but `approved` is final and reached at most once per
 * proposal, so counting states gives the all-time totals. `approved` counts proposals that were ever
 * fully approved (approvedAt is set), whatever happened to them next.
 */
export interface ProposalTotals {
  approved: number;
  rejected: number;
  changesRequested: number;
  expired: number;
  /** Execution failures: the remote system refused the action (FAILED). */
  failed: number;
  stale: number;
  /** OUTCOME_UNKNOWN: blocked until a reconciler reconciles it. */
  needingReconciliation: number;
}

export interface ProposalWaitTimes {
  /** How many decisions the quantiles are computed over. */
  decisions: number;
  /** Seconds from submission to decision; null when there has been no decision. */
  p50Seconds: number | null;
  p95Seconds: number | null;
}

export interface ProposalStats extends ProposalCounts {
  totals: ProposalTotals;
  waitTimes: ProposalWaitTimes;
}

type Int = number | bigint | string | null;

/** Integers come back as numbers, bigints or numeric strings depending on the backend; times as epoch ms or Dates. */
const num = (value: Int | Date | undefined): number => (value == null ? 0 : Number(value));

const STATE_NAMES = Object.keys(PROPOSAL_STATES) as ProposalState[];
const RISK_NAMES: readonly RiskLevel[] = RISK_LEVELS;

/**
 * One statement (one snapshot), every part an index read: the maintained counts by state and of
 * proposals ever approved (QueueCounter, kept by triggers: see the live_counters migration), three
 * range counts on (state, createdAt) each bounded by its age bucket, the first pending proposal of
 * that index, and a count on (afterReview, id) bounded by the proposals awaiting review after execution. The fourth bucket is the pending count less the other three.
 */
export const PROPOSAL_COUNTS_SQL = `SELECT
  ${STATE_NAMES.map((state) => `(SELECT "value" FROM "QueueCounter" WHERE "name" = 'proposal:${state}') AS "${state}",`).join('\n  ')}
  (SELECT "value" FROM "QueueCounter" WHERE "name" = 'proposal:approved') AS approved,
  ${RISK_NAMES.map((risk) => `(SELECT "value" FROM "QueueCounter" WHERE "name" = 'proposal-pending:${risk}') AS "pending_${risk}",`).join('\n  ')}
  (SELECT count(*) FROM "Proposal" WHERE "state" = 'PENDING' AND "createdAt" > ?) AS lt_1h,
  (SELECT count(*) FROM "Proposal" WHERE "state" = 'PENDING' AND "createdAt" <= ? AND "createdAt" > ?) AS h1_4,
  (SELECT count(*) FROM "Proposal" WHERE "state" = 'PENDING' AND "createdAt" <= ? AND "createdAt" > ?) AS h4_24,
  (SELECT min("createdAt") FROM "Proposal" WHERE "state" = 'PENDING') AS oldest,
  (SELECT count(*) FROM "Proposal" WHERE "afterReview" = 'PENDING') AS after_review`;

type CountsRow = Record<ProposalState | 'approved' | 'lt_1h' | 'h1_4' | 'h4_24' | 'after_review' | `pending_${RiskLevel}`, Int> & {
  oldest: Int | Date;
};

async function readCounts(deps: ServiceDeps): Promise<ProposalCounts & { approved: number }> {
  const now = deps.clock.now();
  const at = now.getTime();
  const ago = (ms: number) => new Date(at - ms);
  // The bounds are compared as createdAt against `now - age`, so the index serves them.
  const [row] = await deps.db.query<CountsRow>(
    PROPOSAL_COUNTS_SQL,
    ago(HOUR_MS),
    ago(HOUR_MS),
    ago(4 * HOUR_MS),
    ago(4 * HOUR_MS),
    ago(24 * HOUR_MS),
  );
  if (!row) throw new Error('The proposal statistics query returned no row.');
  const byState = Object.fromEntries(STATE_NAMES.map((state) => [state, num(row[state])])) as Record<ProposalState, number>;
  const younger = { lt_1h: num(row.lt_1h), '1h_to_4h': num(row.h1_4), '4h_to_24h': num(row.h4_24) };
  return {
    computedAt: now,
    byState,
    pendingByAge: { ...younger, gte_24h: byState.PENDING - younger.lt_1h - younger['1h_to_4h'] - younger['4h_to_24h'] },
    pendingByRisk: Object.fromEntries(RISK_NAMES.map((risk) => [risk, num(row[`pending_${risk}`])])) as Record<RiskLevel, number>,
    oldestPendingAgeSeconds: row.oldest == null ? null : Math.max(0, (at - num(row.oldest)) / 1000),
    awaitingReviewAfterExecution: num(row.after_review),
    approved: num(row.approved),
  };
}

/** What /metrics reads at every scrape: a few rows and index ranges, whatever the number of proposals. */
export async function proposalCounts(deps: ServiceDeps): Promise<ProposalCounts> {
  const { approved: _approved, ...counts } = await readCounts(deps);
  return counts;
}

/** The decision events a wait ends with. */
export const DECISION_EVENTS = ['PROPOSAL_APPROVED', 'PROPOSAL_REJECTED', 'PROPOSAL_CHANGES_REQUESTED'] as const;

/**
 * Wait from submission (the revision's createdAt) to its review decision — PROPOSAL_APPROVED,
 * PROPOSAL_REJECTED or PROPOSAL_CHANGES_REQUESTED, read from the history because only approval has a
 * column of its own — of every revision decided by the event `throughSequence` (all when omitted), in
 * milliseconds, ascending. A revision approved only in part (waiting for more approvers) is not
 * decided yet. Reads every decided proposal: once at start-up (events/proposal-waits.ts keeps them
 * from then on), or as a recount.
 */
export async function decidedWaits(deps: ServiceDeps, throughSequence?: number): Promise<number[]> {
  // Milliseconds between two times: SQLite stores epoch milliseconds, PostgreSQL subtracts to an interval.
  const wait =
    deps.db.dialect === 'postgresql'
      ? `(extract(epoch FROM min(e."occurredAt") - p."createdAt") * 1000)::float8`
      : `min(e."occurredAt") - p."createdAt"`;
  const rows = await deps.db.query<{ wait: Int }>(
    `SELECT ${wait} AS wait
     FROM "Proposal" p JOIN "Event" e ON e."proposalId" = p."id"
     WHERE (p."approvedAt" IS NOT NULL OR p."state" IN ('REJECTED', 'CHANGES_REQUESTED'))
       AND e."type" IN (${DECISION_EVENTS.map((type) => `'${type}'`).join(', ')})
       ${throughSequence === undefined ? '' : 'AND e."id" <= ?'}
     GROUP BY p."id"
     ORDER BY wait`,
    ...(throughSequence === undefined ? [] : [throughSequence]),
  );
  return rows.map((row) => num(row.wait));
}

/**
 * Nearest-rank quantiles of waits in ascending order: the value at rank ceil(p·n), so each is an
 * observed wait. O(1).
 */
export function waitQuantiles(sorted: ArrayLike<number>): ProposalWaitTimes {
  const total = sorted.length;
  if (total === 0) return { decisions: 0, p50Seconds: null, p95Seconds: null };
  const quantile = (percent: number): number => Math.max(0, sorted[Math.ceil((percent * total) / 100) - 1] as number) / 1000;
  return { decisions: total, p50Seconds: quantile(50), p95Seconds: quantile(95) };
}

/** The wait quantiles by a full recount (for callers without a live feed, and tests). */
export async function proposalWaitTimes(deps: ServiceDeps): Promise<ProposalWaitTimes> {
  return waitQuantiles(await decidedWaits(deps));
}

/** Where a running app keeps the decided waits up to date (events/proposal-waits.ts). */
export interface WaitTimesSource {
  waitTimes(): Promise<ProposalWaitTimes>;
}

/**
 * Everything at once, as of the server clock's now. With the app's live side (GraphQL passes its
 * context), the wait quantiles come from the waits it keeps; without, from a recount.
 */
export async function proposalStats(deps: ServiceDeps & { live?: { proposalWaits: WaitTimesSource } }): Promise<ProposalStats> {
  const [{ approved, ...counts }, waitTimes] = await Promise.all([
    readCounts(deps),
    deps.live ? deps.live.proposalWaits.waitTimes() : proposalWaitTimes(deps),
  ]);
  const { byState } = counts;
  return {
    ...counts,
    totals: {
      approved,
      rejected: byState.REJECTED,
      changesRequested: byState.CHANGES_REQUESTED,
      expired: byState.EXPIRED,
      failed: byState.FAILED,
      stale: byState.STALE,
      needingReconciliation: byState.OUTCOME_UNKNOWN,
    },
    waitTimes,
  };
}
