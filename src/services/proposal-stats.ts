// Action-proposal statistics for dashboards and /metrics: counts by state, pending proposals by age,
// outcome totals, and how long proposals wait for a decision. Read-only, on the read connection.
import { PROPOSAL_STATES, type ProposalState } from '../domain/proposal.js';
import type { ServiceDeps } from './context.js';

const HOUR_MS = 3_600_000;

/** Age buckets of pending proposals by the server clock: under 1 h, 1–4 h, 4–24 h, 24 h and over (lower bounds inclusive). */
export const PENDING_AGE_BUCKETS = ['lt_1h', '1h_to_4h', '4h_to_24h', 'gte_24h'] as const;

export type PendingAgeBucket = (typeof PENDING_AGE_BUCKETS)[number];

/**
 * What /metrics reads at every scrape, so only from the (state, createdAt) index: a count per state
 * and a range over the pending ones.
 */
export interface ProposalCounts {
  computedAt: Date;
  byState: Record<ProposalState, number>;
  pendingByAge: Record<PendingAgeBucket, number>;
  /** Age in seconds of the oldest PENDING proposal; null when none is pending. */
  oldestPendingAgeSeconds: number | null;
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
  /** OUTCOME_UNKNOWN: blocked until an admin reconciles it. */
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

type Int = number | bigint | null;

/** Integers come back as numbers or bigints depending on the backend; times as epoch ms or Dates. */
const num = (value: Int | Date | undefined): number => (value == null ? 0 : Number(value));

export async function proposalCounts(deps: ServiceDeps): Promise<ProposalCounts> {
  const now = deps.clock.now();
  const at = now.getTime();
  const ago = (ms: number) => new Date(at - ms);
  // The bounds are compared as createdAt against `now - age`, so the index serves them.
  const [states, [pending]] = await Promise.all([
    deps.db.query<{ state: ProposalState; n: Int }>('SELECT "state" AS state, count(*) AS n FROM "Proposal" GROUP BY "state"'),
    deps.db.query<{ lt_1h: Int; h1_4: Int; h4_24: Int; gte_24h: Int; oldest: Int | Date }>(
      `SELECT
         count(*) FILTER (WHERE "createdAt" > ?) AS lt_1h,
         count(*) FILTER (WHERE "createdAt" <= ? AND "createdAt" > ?) AS h1_4,
         count(*) FILTER (WHERE "createdAt" <= ? AND "createdAt" > ?) AS h4_24,
         count(*) FILTER (WHERE "createdAt" <= ?) AS gte_24h,
         min("createdAt") AS oldest
       FROM "Proposal" WHERE "state" = 'PENDING'`,
      ago(HOUR_MS),
      ago(HOUR_MS),
      ago(4 * HOUR_MS),
      ago(4 * HOUR_MS),
      ago(24 * HOUR_MS),
      ago(24 * HOUR_MS),
    ),
  ]);
  const byState = Object.fromEntries(Object.keys(PROPOSAL_STATES).map((state) => [state, 0])) as Record<ProposalState, number>;
  for (const row of states) byState[row.state] = num(row.n);
  return {
    computedAt: now,
    byState,
    pendingByAge: {
      lt_1h: num(pending?.lt_1h),
      '1h_to_4h': num(pending?.h1_4),
      '4h_to_24h': num(pending?.h4_24),
      gte_24h: num(pending?.gte_24h),
    },
    oldestPendingAgeSeconds: pending?.oldest == null ? null : Math.max(0, (at - num(pending.oldest)) / 1000),
  };
}

/**
 * Wait from submission (the revision's createdAt) to its review decision — PROPOSAL_APPROVED,
 * PROPOSAL_REJECTED or PROPOSAL_CHANGES_REQUESTED, read from the history because only approval has a
 * column of its own — over every decided revision since the database began. Quantiles are
 * nearest-rank: the value at rank ceil(p·n) of the n waits in ascending order, so each is an observed
 * wait. A revision approved only in part (waiting for more approvers) is not decided yet.
 */
export async function proposalWaitTimes(deps: ServiceDeps): Promise<ProposalWaitTimes> {
  // Milliseconds between two times: SQLite stores epoch milliseconds, PostgreSQL subtracts to an interval.
  const wait =
    deps.db.dialect === 'postgresql'
      ? `(extract(epoch FROM min(e."occurredAt") - p."createdAt") * 1000)::float8`
      : `min(e."occurredAt") - p."createdAt"`;
  const rows = await deps.db.query<{ wait: Int; rank: Int; total: Int }>(
    `WITH waits AS (
       SELECT ${wait} AS wait
       FROM "Proposal" p JOIN "Event" e ON e."proposalId" = p."id"
       WHERE (p."approvedAt" IS NOT NULL OR p."state" IN ('REJECTED', 'CHANGES_REQUESTED'))
         AND e."type" IN ('PROPOSAL_APPROVED', 'PROPOSAL_REJECTED', 'PROPOSAL_CHANGES_REQUESTED')
       GROUP BY p."id"
     ), ranked AS (
       SELECT wait, row_number() OVER (ORDER BY wait) AS rank, count(*) OVER () AS total FROM waits
     )
     SELECT wait, rank, total FROM ranked WHERE rank IN ((50 * total + 99) / 100, (95 * total + 99) / 100)`,
  );
  const total = num(rows[0]?.total);
  if (total === 0) return { decisions: 0, p50Seconds: null, p95Seconds: null };
  // The SQL's integer division (p·n + 99) / 100 is this ceil(p·n / 100).
  const quantile = (percent: number): number | null => {
    const rank = Math.ceil((percent * total) / 100);
    const row = rows.find((candidate) => num(candidate.rank) === rank);
    return row ? Math.max(0, num(row.wait)) / 1000 : null;
  };
  return { decisions: total, p50Seconds: quantile(50), p95Seconds: quantile(95) };
}

/** Everything at once, as of the server clock's now. Reads every proposal: for dashboards, not per request. */
export async function proposalStats(deps: ServiceDeps): Promise<ProposalStats> {
  const [counts, [approved], waitTimes] = await Promise.all([
    proposalCounts(deps),
    deps.db.query<{ n: Int }>('SELECT count(*) AS n FROM "Proposal" WHERE "approvedAt" IS NOT NULL'),
    proposalWaitTimes(deps),
  ]);
  const { byState } = counts;
  return {
    ...counts,
    totals: {
      approved: num(approved?.n),
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
