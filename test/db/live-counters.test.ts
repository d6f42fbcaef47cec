// The live statistics (queueStats, proposalCounts, proposalStats and the /metrics gauges), read from the
// counts the database's triggers maintain and the waits the feed maintains, equal a full recount in plain
// SQL after random workloads: items added, claimed, renewed, released, decided, leases lapsing as the
// manual clock moves and claimed again, proposals submitted, reviewed, cancelled and executed; and all the
// while a second process writes to the same database (the `leasehold` command line on a SQLite file, a
// second database handle on PostgreSQL).
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, createApp } from '../../src/app.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { QUEUE_STATS_SQL, UNRECORDED_EXPIRIES_SQL } from '../../src/db/event-tail.js';
import { numberPlaceholders } from '../../src/db/tx-sql.js';
import { ManualClock } from '../../src/domain/clock.js';
import { DomainError } from '../../src/domain/errors.js';
import { longestLeaseFrom } from '../../src/domain/lease.js';
import { RISK_LEVELS } from '../../src/domain/proposal.js';
import { createLogger } from '../../src/logger.js';
import { addCategories } from '../../src/services/categories.js';
import type { Actor } from '../../src/services/context.js';
import { decideItem } from '../../src/services/decisions.js';
import { addItems } from '../../src/services/items.js';
import { claimItem, releaseLease, renewLease } from '../../src/services/leases.js';
import { PROPOSAL_COUNTS_SQL, proposalCounts, proposalStats } from '../../src/services/proposal-stats.js';
import {
  cancelProposal,
  claimExecution,
  claimProposal,
  reportExecutionResult,
  reviewProposal,
  startExecutionAttempt,
  submitProposal,
} from '../../src/services/proposals/index.js';
import { runLeasehold, tempDir } from '../cli/support.js';
import { BACKEND, type TestDatabase, testDatabase, withPostgres } from '../support/database.js';
import { EXECUTOR, PROPOSER, proposalInput, REVIEWER } from '../support/proposals.js';

const ADMIN: Actor = { name: 'admin', authenticated: true };
const ADDER: Actor = { name: 'adder', authenticated: true };
const SECOND_REVIEWER: Actor = { name: 'kim', authenticated: true };
const CATEGORIES = ['alpha', 'beta'];
const HOUR_MS = 3_600_000;
const STATUSES = ['PENDING', 'ACCEPTED', 'CORRECTED', 'REJECTED'] as const;
const STATES = [
  'PENDING',
  'APPROVED',
  'REJECTED',
  'CHANGES_REQUESTED',
  'CANCELLED',
  'EXPIRED',
  'STALE',
  'EXECUTING',
  'EXECUTED',
  'FAILED',
  'OUTCOME_UNKNOWN',
  'ON_HOLD',
] as const;

type Op =
  | { kind: 'add'; count: number }
  | { kind: 'claim'; leaseSeconds: number }
  | { kind: 'renew' | 'release'; pick: number }
  | { kind: 'decide'; pick: number; decision: 'ACCEPTED' | 'CORRECTED' | 'REJECTED' }
  | { kind: 'advance'; seconds: number }
  | { kind: 'submit'; risk: 'LOW' | 'HIGH' }
  | { kind: 'review'; decision: 'APPROVE' | 'REJECT' | 'REQUEST_CHANGES'; second: boolean }
  | { kind: 'cancel'; pick: number }
  | { kind: 'execute'; outcome: 'SUCCEEDED' | 'REJECTED_BY_REMOTE' | null }
  // On SQLite, `cli` has the command line add or claim (a lease is decided or released the way it was taken).
  | { kind: 'other'; action: 'add' | 'claim' | 'decide' | 'release'; pick: number; cli: boolean };

const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('add' as const), count: fc.integer({ min: 1, max: 4 }) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('claim' as const), leaseSeconds: fc.integer({ min: 30, max: 900 }) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constantFrom('renew' as const, 'release' as const), pick: fc.nat() }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('decide' as const),
      pick: fc.nat(),
      decision: fc.constantFrom('ACCEPTED' as const, 'CORRECTED' as const, 'REJECTED' as const),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant('advance' as const), seconds: fc.integer({ min: 1, max: 7_200 }) }), weight: 2 },
  {
    arbitrary: fc.record({ kind: fc.constant('submit' as const), risk: fc.constantFrom('LOW' as const, 'HIGH' as const) }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('review' as const),
      decision: fc.constantFrom('APPROVE' as const, 'APPROVE' as const, 'REJECT' as const, 'REQUEST_CHANGES' as const),
      second: fc.boolean(),
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('execute' as const),
      outcome: fc.constantFrom('SUCCEEDED' as const, 'REJECTED_BY_REMOTE' as const, null),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('other' as const),
      action: fc.constantFrom('add' as const, 'claim' as const, 'decide' as const, 'release' as const),
      pick: fc.nat(),
      cli: fc.boolean(),
    }),
    weight: 3,
  },
);

const count = (value: unknown): number => (value == null ? 0 : Number(value));
/** Times come back as Dates (PostgreSQL) or epoch milliseconds, as numbers or bigints (SQLite). */
const time = (value: unknown): Date | null => (value == null ? null : new Date(value instanceof Date ? value : Number(value)));

describe('live counters', () => {
  let database: TestDatabase;
  let db: Database;
  let app: App;
  let url: string;
  // A month behind the system clock the command line uses: its leases (taken by the system clock) are
  // overlong for the app (further ahead than any lease can run), so expired to it (its announcer records
  // them at once, and its decisions are refused), and the command line may claim leases the app still
  // holds. The second writer's own handle shares this clock, so its decisions land.
  const clock = new ManualClock(Date.now() - 30 * 24 * HOUR_MS);
  /** The second writer: the command line on a SQLite file, a second handle (its own connections) on PostgreSQL. */
  let other: { db: Database; dir: string; cleanup(): void };
  let serial = 0;
  /** Leases held: the app's (mine), or the second writer's, taken by its handle or by the command line. */
  const leases: { token: string; mine: boolean; cli?: boolean }[] = [];
  const proposals: number[] = [];

  beforeAll(async () => {
    database = await testDatabase();
    db = await openDatabase({ location: database.location, synchronous: 'NORMAL' });
    const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
    app = createApp({
      db,
      clock,
      config: { host: '127.0.0.1', port: 0, graphiql: false, shutdownTimeoutMs: 2_000, maxBodyBytes: 1024 * 1024, metricsPublic: true },
      logger: createLogger('fatal', quiet),
    });
    url = await app.start();
    await addCategories({ db, clock }, ADMIN, CATEGORIES);
    const scratch = tempDir('leasehold-live-counters-');
    other = {
      db: await openDatabase({ location: database.location }),
      dir: scratch.dir,
      cleanup: scratch.cleanup,
    };
  });

  afterAll(async () => {
    await app?.stop();
    await other?.db.close();
    other?.cleanup();
    await database?.cleanup();
  });

  const deps = () => ({ db, clock });

  /** Runs one operation; refusals the workload runs into (an expired lease, nothing to claim) are part of it. */
  async function run(step: Op): Promise<void> {
    const take = (pick: number) => (leases.length === 0 ? null : (leases.splice(pick % leases.length, 1)[0] ?? null));
    try {
      switch (step.kind) {
        case 'add': {
          const items = Array.from({ length: step.count }, () => ({
            batchId: 'live',
            recordId: `r-${++serial}`,
            proposedCategory: CATEGORIES[serial % 2] as string,
            reason: 'Looks like it.',
          }));
          await addItems(deps(), ADDER, items);
          return;
        }
        case 'claim': {
          const claim = await claimItem(deps(), REVIEWER, { leaseSeconds: step.leaseSeconds });
          if (claim) leases.push({ token: claim.token, mine: true });
          return;
        }
        case 'renew':
        case 'release': {
          const lease = leases[step.pick % Math.max(1, leases.length)];
          if (!lease?.mine) return;
          if (step.kind === 'renew') await renewLease(deps(), REVIEWER, { token: lease.token });
          else await releaseLease(deps(), REVIEWER, { token: take(step.pick)?.token ?? '' });
          return;
        }
        case 'decide': {
          const lease = leases[step.pick % Math.max(1, leases.length)];
          if (!lease?.mine) return;
          take(step.pick);
          await decideItem(deps(), REVIEWER, {
            token: lease.token,
            decision: step.decision,
            category: step.decision === 'CORRECTED' ? 'other-than-proposed' : null,
          }).catch(async (error: unknown) => {
            // A correction must name another allowed category than the proposed one: try both.
            if (step.decision !== 'CORRECTED') throw error;
            for (const category of CATEGORIES) {
              const done = await decideItem(deps(), REVIEWER, { token: lease.token, decision: 'CORRECTED', category }).catch(() => null);
              if (done) return done;
            }
            throw error;
          });
          return;
        }
        case 'advance':
          clock.advance(step.seconds * 1000);
          // The announcer records the lapses the clock has passed.
          await app.live.settled();
          return;
        case 'submit': {
          const submitted = await submitProposal({ ...deps() }, PROPOSER, proposalInput(`p-${++serial}`, { riskLevel: step.risk }));
          proposals.push(submitted.proposal.id);
          return;
        }
        case 'review': {
          // Two reviewers, so a HIGH-risk proposal (two approvals) can be approved in full.
          const reviewer = step.second ? SECOND_REVIEWER : REVIEWER;
          const claim = await claimProposal(deps(), reviewer, {});
          if (!claim) return;
          await reviewProposal(deps(), reviewer, {
            token: claim.token,
            decision: step.decision,
            revision: claim.proposal.revision,
            reason: step.decision === 'APPROVE' ? null : 'Not this way.',
          });
          return;
        }
        case 'cancel': {
          if (proposals.length === 0) return;
          const id = proposals[step.pick % proposals.length] as number;
          await cancelProposal(deps(), { ...PROPOSER, isAdmin: false }, { id, reason: 'No longer needed.' });
          return;
        }
        case 'execute': {
          const execution = await claimExecution(deps(), EXECUTOR, { leaseSeconds: 60 });
          if (!execution) return;
          await startExecutionAttempt(deps(), EXECUTOR, { token: execution.token, fingerprint: execution.proposal.fingerprint });
          if (step.outcome) await reportExecutionResult(deps(), EXECUTOR, { token: execution.token, outcome: step.outcome });
          return;
        }
        case 'other':
          await runOther(step);
          return;
      }
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
    }
  }

  /**
   * The second writer's turn: another handle (its own connections) on the same database, sharing the app's
   * clock, or on SQLite every other turn the command line, another process.
   */
  async function runOther(step: Extract<Op, { kind: 'other' }>): Promise<void> {
    const recordId = `o-${++serial}`;
    const theirs = leases.filter((lease) => !lease.mine);
    const lease = theirs[step.pick % Math.max(1, theirs.length)];
    const forget = () => leases.splice(leases.indexOf(lease as (typeof leases)[number]), 1);
    const viaCli = BACKEND === 'sqlite' && (step.action === 'add' || step.action === 'claim' ? step.cli : lease?.cli === true);
    if (!viaCli) {
      const theirDeps = { db: other.db, clock };
      const actor: Actor = { name: 'other-reviewer', authenticated: true };
      if (step.action === 'add')
        await addItems(theirDeps, ADDER, [{ batchId: 'other', recordId, proposedCategory: 'alpha', reason: 'Theirs.' }]);
      else if (step.action === 'claim') {
        const claim = await claimItem(theirDeps, actor, { leaseSeconds: 120 });
        if (claim) leases.push({ token: claim.token, mine: false, cli: false });
      } else if (lease && step.action === 'decide') {
        forget();
        await decideItem(theirDeps, actor, { token: lease.token, decision: 'REJECTED' });
      } else if (lease && step.action === 'release') {
        forget();
        await releaseLease(theirDeps, actor, { token: lease.token });
      }
      return;
    }
    const file = (database.location as { file: string }).file;
    const cli = (args: string[]) => runLeasehold(args, { cwd: other.dir });
    if (step.action === 'add') {
      await cli(['add', file, '--batch-id', 'other', '--record-id', recordId, '--proposed-category', 'alpha', '--reason', 'Theirs.']);
    } else if (step.action === 'claim') {
      const result = await cli(['claim', file, '--reviewer', 'other-reviewer', '--lease-seconds', '120']);
      const claimed = JSON.parse(result.stdout || '{}') as { claim_token?: string };
      if (claimed.claim_token) leases.push({ token: claimed.claim_token, mine: false, cli: true });
    } else if (lease && step.action === 'decide') {
      forget();
      await cli(['decide', file, '--token', lease.token, '--decision', 'rejected']);
    } else if (lease && step.action === 'release') {
      forget();
      await cli(['release', file, '--token', lease.token]);
    }
  }

  /**
   * Every count recomputed from the tables, in plain SQL, at `now`. A lease is running as claimState has it:
   * not reached, not overlong (further ahead than the longest lease), its lapse not recorded.
   */
  async function recount(now: Date) {
    const at = now.getTime();
    const RUNNING = `"leaseExpiresAt" > ? AND "leaseExpiresAt" <= ? AND NOT "leaseExpiryRecorded"`;
    const [items] = await db.query<Record<string, unknown>>(
      `SELECT
         count(CASE WHEN "status" = 'PENDING' THEN 1 END) AS pending,
         count(CASE WHEN "status" = 'ACCEPTED' THEN 1 END) AS accepted,
         count(CASE WHEN "status" = 'CORRECTED' THEN 1 END) AS corrected,
         count(CASE WHEN "status" = 'REJECTED' THEN 1 END) AS rejected,
         count(CASE WHEN "status" = 'PENDING' AND "leaseTokenHash" IS NULL THEN 1 END) AS unclaimed,
         count(CASE WHEN "status" = 'PENDING' AND ${RUNNING} THEN 1 END) AS active,
         count(CASE WHEN "status" = 'PENDING' AND "leaseTokenHash" IS NOT NULL AND NOT (${RUNNING}) THEN 1 END) AS expired,
         count(CASE WHEN "status" = 'PENDING' AND "leaseTokenHash" IS NOT NULL THEN 1 END) AS leased,
         min(CASE WHEN "status" = 'PENDING' THEN "createdAt" END) AS oldest
       FROM "Item"`,
      now,
      longestLeaseFrom(now),
      now,
      longestLeaseFrom(now),
    );
    const states = await db.query<{ state: string; n: unknown }>('SELECT "state" AS state, count(*) AS n FROM "Proposal" GROUP BY "state"');
    const ago = (ms: number) => new Date(at - ms);
    const [pending] = await db.query<Record<string, unknown>>(
      `SELECT
         count(CASE WHEN "createdAt" > ? THEN 1 END) AS lt_1h,
         count(CASE WHEN "createdAt" <= ? AND "createdAt" > ? THEN 1 END) AS h1_4,
         count(CASE WHEN "createdAt" <= ? AND "createdAt" > ? THEN 1 END) AS h4_24,
         count(CASE WHEN "createdAt" <= ? THEN 1 END) AS gte_24h,
         min("createdAt") AS oldest
       FROM "Proposal" WHERE "state" = 'PENDING'`,
      ago(HOUR_MS),
      ago(HOUR_MS),
      ago(4 * HOUR_MS),
      ago(4 * HOUR_MS),
      ago(24 * HOUR_MS),
      ago(24 * HOUR_MS),
    );
    const [approved] = await db.query<{ n: unknown }>('SELECT count(*) AS n FROM "Proposal" WHERE "approvedAt" IS NOT NULL');
    const risks = await db.query<{ risk: string; n: unknown }>(
      `SELECT "riskLevel" AS risk, count(*) AS n FROM "Proposal" WHERE "state" = 'PENDING' GROUP BY "riskLevel"`,
    );
    const pendingByRisk = Object.fromEntries(RISK_LEVELS.map((risk) => [risk, 0])) as Record<(typeof RISK_LEVELS)[number], number>;
    for (const row of risks) pendingByRisk[row.risk as (typeof RISK_LEVELS)[number]] = count(row.n);
    const [afterReview] = await db.query<{ n: unknown }>(`SELECT count(*) AS n FROM "Proposal" WHERE "afterReview" = 'PENDING'`);
    const decided = await db.query<{ created: unknown; decided: unknown }>(
      `SELECT p."createdAt" AS created, min(e."occurredAt") AS decided
       FROM "Proposal" p JOIN "Event" e ON e."proposalId" = p."id"
       WHERE e."type" IN ('PROPOSAL_APPROVED', 'PROPOSAL_REJECTED', 'PROPOSAL_CHANGES_REQUESTED')
       GROUP BY p."id", p."createdAt"`,
    );
    const waits = decided.map((row) => (time(row.decided) as Date).getTime() - (time(row.created) as Date).getTime()).sort((a, b) => a - b);
    const rank = (percent: number) =>
      waits.length === 0 ? null : Math.max(0, waits[Math.ceil((percent * waits.length) / 100) - 1] as number) / 1000;
    const byState = Object.fromEntries(STATES.map((state) => [state, 0])) as Record<(typeof STATES)[number], number>;
    for (const row of states) byState[row.state as (typeof STATES)[number]] = count(row.n);
    const oldestProposal = time(pending?.oldest);
    return {
      queue: {
        pending: count(items?.pending),
        accepted: count(items?.accepted),
        corrected: count(items?.corrected),
        rejected: count(items?.rejected),
        unclaimed: count(items?.unclaimed),
        active: count(items?.active),
        expired: count(items?.expired),
        oldestPendingCreatedAt: time(items?.oldest),
      },
      leased: count(items?.leased),
      proposals: {
        computedAt: now,
        byState,
        pendingByAge: {
          lt_1h: count(pending?.lt_1h),
          '1h_to_4h': count(pending?.h1_4),
          '4h_to_24h': count(pending?.h4_24),
          gte_24h: count(pending?.gte_24h),
        },
        pendingByRisk,
        oldestPendingAgeSeconds: oldestProposal === null ? null : Math.max(0, (at - oldestProposal.getTime()) / 1000),
        awaitingReviewAfterExecution: count(afterReview?.n),
      },
      approved: count(approved?.n),
      waitTimes: { decisions: waits.length, p50Seconds: rank(50), p95Seconds: rank(95) },
    };
  }

  async function scrape(): Promise<Map<string, number>> {
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    const values = new Map<string, number>();
    for (const line of (await response.text()).split('\n')) {
      const match = /^(leasehold_[a-z_]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
      if (match) values.set(match[1] as string, Number(match[2]));
    }
    return values;
  }

  /** The most each figure reached at a check, so the test can tell the workload covered it. */
  const reached = new Map<string, number>();
  const note = (name: string, value: number) => reached.set(name, Math.max(reached.get(name) ?? 0, value));

  /** Every maintained figure, as the app serves it, against the recount. */
  async function expectExact(): Promise<void> {
    await app.live.settled();
    const now = clock.now();
    const expected = await recount(now);
    for (const [name, value] of Object.entries(expected.queue)) if (typeof value === 'number') note(name, value);
    for (const [state, value] of Object.entries(expected.proposals.byState)) note(state, value);
    for (const [bucket, value] of Object.entries(expected.proposals.pendingByAge)) note(bucket, value);
    for (const [risk, value] of Object.entries(expected.proposals.pendingByRisk)) note(`pending ${risk}`, value);
    note('decisions', expected.waitTimes.decisions);

    const counters = await db.query<{ name: string; value: unknown }>('SELECT "name" AS name, "value" AS value FROM "QueueCounter"');
    expect(Object.fromEntries(counters.map((row) => [row.name, count(row.value)]))).toEqual({
      ...Object.fromEntries(STATUSES.map((status) => [`item:${status}`, expected.queue[status.toLowerCase() as 'pending']])),
      'item:leased': expected.leased,
      ...Object.fromEntries(STATES.map((state) => [`proposal:${state}`, expected.proposals.byState[state]])),
      'proposal:approved': expected.approved,
      ...Object.fromEntries(RISK_LEVELS.map((risk) => [`proposal-pending:${risk}`, expected.proposals.pendingByRisk[risk]])),
    });

    expect(await app.live.tail.queueStats(now)).toEqual(expected.queue);
    const stats = await app.live.stats();
    expect(stats).toEqual({ ...(await recount(stats.computedAt)).queue, sequence: stats.sequence, computedAt: stats.computedAt });
    expect(await proposalCounts(deps())).toEqual(expected.proposals);
    const proposalsNow = await proposalStats({ ...deps(), live: app.live });
    expect(proposalsNow).toMatchObject({ ...expected.proposals, waitTimes: expected.waitTimes });
    expect(proposalsNow.totals.approved).toBe(expected.approved);

    const metrics = await scrape();
    for (const status of STATUSES)
      expect(metrics.get(`leasehold_items{status="${status}"}`)).toBe(expected.queue[status.toLowerCase() as 'pending']);
    expect(metrics.get('leasehold_leases_active')).toBe(expected.queue.active);
    expect(metrics.get('leasehold_leases_expired')).toBe(expected.queue.expired);
    const oldest = expected.queue.oldestPendingCreatedAt;
    expect(metrics.get('leasehold_oldest_pending_item_age_seconds')).toBe(
      oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0,
    );
    for (const state of STATES) expect(metrics.get(`leasehold_proposals{state="${state}"}`)).toBe(expected.proposals.byState[state]);
    for (const [bucket, value] of Object.entries(expected.proposals.pendingByAge)) {
      expect(metrics.get(`leasehold_proposals_pending_by_age{bucket="${bucket}"}`)).toBe(value);
    }
    expect(metrics.get('leasehold_oldest_pending_proposal_age_seconds')).toBe(expected.proposals.oldestPendingAgeSeconds ?? 0);
  }

  /** A fixed workload after the random ones, so every figure is seen above zero whatever the seed. */
  async function scripted(): Promise<void> {
    await run({ kind: 'add', count: 4 });
    for (const decision of ['ACCEPTED', 'CORRECTED', 'REJECTED'] as const) {
      await run({ kind: 'claim', leaseSeconds: 600 });
      await run({ kind: 'decide', pick: leases.length - 1, decision });
    }
    await run({ kind: 'claim', leaseSeconds: 30 });
    await run({ kind: 'advance', seconds: 60 });
    await run({ kind: 'claim', leaseSeconds: 600 });
    for (const [action, cli] of [
      ['claim', false],
      ['decide', false],
      ['claim', false],
      ['release', false],
      ['add', true],
      ['claim', true],
    ] as const) {
      await run({ kind: 'other', action, pick: leases.filter((lease) => !lease.mine).length - 1, cli });
    }
    await expectExact();
    for (const decision of ['APPROVE', 'REJECT', 'REQUEST_CHANGES'] as const) {
      await run({ kind: 'submit', risk: 'LOW' });
      const claim = await claimProposal(deps(), REVIEWER, { riskLevels: ['LOW'] });
      expect(claim).not.toBeNull();
      const reason = decision === 'APPROVE' ? null : 'Not this way.';
      await reviewProposal(deps(), REVIEWER, { token: claim?.token ?? '', decision, revision: claim?.proposal.revision, reason });
    }
    await run({ kind: 'submit', risk: 'LOW' });
    await run({ kind: 'cancel', pick: proposals.length - 1 });
    await run({ kind: 'execute', outcome: 'SUCCEEDED' });
    await run({ kind: 'submit', risk: 'LOW' });
    await run({ kind: 'advance', seconds: 25 * 3600 });
    await run({ kind: 'submit', risk: 'LOW' });
    await expectExact();
  }

  it('are read by index, never by a scan of a table (SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN)', async () => {
    const now = clock.now();
    // Each range is bounded by its answer only on an index whose second column is the bounded one.
    const statements: [string, Date[], RegExp][] = [
      [QUEUE_STATS_SQL, [now, longestLeaseFrom(now)], /Item_status_leaseExpiresAt_idx.*leaseExpiresAt"? ?>/],
      [UNRECORDED_EXPIRIES_SQL, [], /Item_leaseExpiryRecorded_leaseExpiresAt_idx/],
      [PROPOSAL_COUNTS_SQL, [now, now, now, now, now], /Proposal_state_createdAt_idx.*createdAt"? ?>/],
    ];
    for (const [sql, params, bounded] of statements) {
      if (BACKEND === 'sqlite') {
        const plan = await db.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, ...params);
        const details = plan.map((row) => row.detail);
        expect(details.filter((detail) => detail.startsWith('SCAN') && detail !== 'SCAN CONSTANT ROW')).toEqual([]);
        expect(details.some((detail) => bounded.test(detail))).toBe(true);
      } else {
        // The tables are small here, where a sequential scan is the cheaper plan: forbid it, and the plan
        // must still find an index for every part.
        const plan = await withPostgres(database.url, async (client) => {
          await client.query('SET enable_seqscan = off');
          return (await client.query(`EXPLAIN ${numberPlaceholders(sql)}`, params)).rows.map((row) => String(row['QUERY PLAN']));
        });
        // Which index serves each range depends on statistics an almost empty table does not have (on a
        // seeded one it is the bounded one, as on SQLite), so only the absence of scans is checked here.
        expect(plan.filter((line) => /Seq Scan|Sort/.test(line))).toEqual([]);
      }
    }
  });

  it('equal a full recount after random workloads by two writers, expiries and re-claims included', async () => {
    await expectExact();
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 40 }), async (ops) => {
        for (const step of ops) await run(step);
        await expectExact();
      }),
      { numRuns: 10, endOnFailure: true },
    );
    await scripted();
    // The workload reached every distinction the counts make, and the second writer's changes are in them.
    for (const name of ['pending', 'accepted', 'corrected', 'rejected', 'unclaimed', 'active', 'expired', 'decisions']) {
      expect(reached.get(name), name).toBeGreaterThan(0);
    }
    for (const name of ['PENDING', 'lt_1h', 'gte_24h', 'pending LOW', 'pending HIGH']) expect(reached.get(name), name).toBeGreaterThan(0);
    const history = await db.query<{ type: string; n: unknown }>(
      `SELECT "type" AS type, count(*) AS n FROM "Event" WHERE "type" <> 'LEASE_CLAIMED' OR "leaseNumber" > 1 GROUP BY "type"`,
    );
    const happened = new Map(history.map((row) => [row.type, count(row.n)]));
    // Every transition the triggers count happened, lapses and claims of lapsed leases included.
    for (const type of [
      'LEASE_EXPIRED',
      'LEASE_CLAIMED',
      'LEASE_RELEASED',
      'PROPOSAL_APPROVED',
      'PROPOSAL_REJECTED',
      'PROPOSAL_CHANGES_REQUESTED',
      'PROPOSAL_CANCELLED',
      'EXECUTION_SUCCEEDED',
    ]) {
      expect(happened.get(type), type).toBeGreaterThan(0);
    }
    const [theirs] = await db.query<{ added: unknown; decided: unknown; claimed: unknown }>(
      `SELECT count(CASE WHEN "type" = 'ITEM_ADDED' THEN 1 END) AS added, count(CASE WHEN "type" = 'ITEM_DECIDED' THEN 1 END) AS decided,
         count(CASE WHEN "type" = 'LEASE_CLAIMED' THEN 1 END) AS claimed
       FROM "Event" WHERE "actor" = 'other-reviewer' OR ("actor" = 'adder' AND "itemId" IN (SELECT "id" FROM "Item" WHERE "batchId" = 'other'))`,
    );
    expect(count(theirs?.claimed)).toBeGreaterThan(0);
    expect(count(theirs?.decided)).toBeGreaterThan(0);
  });
});
