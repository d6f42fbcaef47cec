// Every list read a dashboard or operator makes (items, events, proposals; each filter, the dashboard's
// combinations, both page directions) is planned along an index in page order on a seeded database:
// no table scan and no sort of the table (SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import {
  eventPageRead,
  itemPageRead,
  leasedRows,
  type PageRead,
  type PageWindow,
  proposalPageRead,
  runPageRead,
  type Statement,
} from '../../src/db/page-reads.js';
import { BACKEND, type TestDatabase, testDatabase, withPostgres } from '../support/database.js';

const ITEMS = BACKEND === 'sqlite' ? 40_000 : 100_000;
const EVENTS = ITEMS;
const PROPOSALS = ITEMS / 4;
const T0 = Date.UTC(2026, 11, 1, 9, 0, 0);
/** The planning instant: half of the seeded leases have lapsed by then. */
const NOW = new Date(T0 + ITEMS * 1000);

const BIG_TABLES = ['Item', 'Event', 'Proposal'];
/**
 * PostgreSQL may read an index range it expects to be small and sort it (a top-N sort of a few hundred
 * rows costs microseconds): allowed up to this many expected rows. What the rule catches is the table's
 * order being rebuilt — sorts of every row a filter matches (tens of thousands here, a million in
 * production).
 */
const SMALL_SORT_ROWS = 1000;

/**
 * Rows written straight with SQL (one statement per table, the same on both backends but for times
 * and enum casts): mostly pending items in 10 batches, a decided share, a lease on every 50th item
 * (held by alice or bob, half of them lapsed), events of every kind, proposals in every state.
 */
function seedStatements(dialect: 'sqlite' | 'postgresql'): string[] {
  const time = (seconds: string) => (dialect === 'sqlite' ? `(${T0} + (${seconds}) * 1000)` : `to_timestamp(${T0 / 1000} + (${seconds}))`);
  const as = (expression: string, type: string) => (dialect === 'sqlite' ? expression : `(${expression})::"${type}"`);
  const series = (n: number) =>
    dialect === 'sqlite'
      ? `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${n}) `
      : `WITH n(i) AS (SELECT generate_series(1, ${n})) `;
  const leased = 'i % 50 = 0';
  return [
    `INSERT INTO "Category" ("name", "createdAt", "createdBy") VALUES ('c', ${time('0')}, 'seed'), ('d', ${time('0')}, 'seed')`,
    `${series(ITEMS)}INSERT INTO "Item" ("batchId", "recordId", "proposedCategory", "reason", "createdAt", "addedBy",
       "leaseTokenHash", "claimedBy", "claimedAt", "leaseExpiresAt", "leaseNumber")
     SELECT CASE WHEN i % 1000 = 7 THEN 'batch-rare' ELSE 'batch-' || (i % 10) END, 'r' || i, 'c', 'seeded', ${time('i')}, 'seed',
       CASE WHEN ${leased} THEN 'hash-' || i END, CASE WHEN ${leased} THEN (CASE WHEN i % 100 = 0 THEN 'alice' ELSE 'bob' END) END,
       CASE WHEN ${leased} THEN ${time('0')} END, CASE WHEN ${leased} THEN ${time(`${ITEMS} + (CASE WHEN i % 100 = 0 THEN 600 ELSE -600 END)`)} END,
       CASE WHEN ${leased} THEN 1 ELSE 0 END
     FROM n`,
    `UPDATE "Item" SET
       "status" = ${as(`CASE WHEN "id" % 7 = 0 THEN 'ACCEPTED' WHEN "id" % 11 = 0 THEN 'REJECTED' ELSE 'CORRECTED' END`, 'ItemStatus')},
       "finalCategory" = CASE WHEN "id" % 7 = 0 THEN 'c' WHEN "id" % 11 = 0 THEN NULL ELSE 'd' END,
       "reviewedBy" = 'carol', "decidedAt" = "createdAt"
     WHERE ("id" % 7 = 0 OR "id" % 11 = 0 OR "id" % 13 = 0) AND "leaseTokenHash" IS NULL`,
    `${series(PROPOSALS)}INSERT INTO "Proposal" ("batchId", "recordId", "revision", "action", "parameters", "reason", "targetSystem", "targetId",
       "currentValue", "proposedValue", "dataSource", "riskLevel", "fingerprint", "deadline", "state", "proposedBy", "createdAt",
       "approvalsRequired", "leaseKind", "claimedBy", "claimedAt", "leaseExpiresAt", "leaseTokenHash", "autoApprovedBy", "afterReview")
     SELECT 'pb-' || (i % 20), 'r' || i, 1, 'setPrice', '{}', 'seeded', 'shop-' || (i % 5), 'sku-' || (i % 1000), '1', '2', 'feed',
       ${as("CASE i % 4 WHEN 0 THEN 'LOW' WHEN 1 THEN 'MEDIUM' WHEN 2 THEN 'HIGH' ELSE 'CRITICAL' END", 'RiskLevel')},
       'fp', ${time('i + 86400')},
       ${as("CASE WHEN i % 3 = 0 THEN 'PENDING' WHEN i % 3 = 1 THEN 'EXECUTED' WHEN i % 5 = 0 THEN 'APPROVED' ELSE 'REJECTED' END", 'ProposalState')},
       CASE WHEN i % 1000 = 9 THEN 'agent-rare' ELSE 'agent-' || (i % 8) END, ${time('i')}, 1,
       CASE WHEN i % 60 = 0 THEN 'REVIEW' END, CASE WHEN i % 60 = 0 THEN 'alice' END, CASE WHEN i % 60 = 0 THEN ${time('0')} END,
       CASE WHEN i % 60 = 0 THEN ${time(`${ITEMS} + 600`)} END, CASE WHEN i % 60 = 0 THEN 'p-hash-' || i END,
       CASE WHEN i % 1000 = 1 THEN 'APPROVAL_POLICIES.LOW' END, ${as("CASE WHEN i % 1000 = 1 THEN 'PENDING' ELSE 'NOT_NEEDED' END", 'AfterReview')}
     FROM n`,
    // Assignees (issue 17, item 5): a rare one and a common one.
    `UPDATE "Proposal" SET "assignee" = CASE WHEN "id" % 1000 = 3 THEN 'dana-rare' WHEN "id" % 7 = 0 THEN 'erin' END`,
    `${series(EVENTS)}INSERT INTO "Event" ("occurredAt", "type", "actor", "itemId", "proposalId", "details")
     SELECT ${time('i')},
       ${as("CASE WHEN i % 6 = 5 THEN 'PROPOSAL_SUBMITTED' WHEN i % 1000 = 4 THEN 'LEASE_EXPIRED' WHEN i % 6 = 0 THEN 'ITEM_ADDED' WHEN i % 6 IN (1, 4) THEN 'LEASE_CLAIMED' WHEN i % 6 = 2 THEN 'ITEM_DECIDED' ELSE 'LEASE_RELEASED' END", 'EventType')},
       'seed', CASE WHEN i % 6 <> 5 THEN 1 + (i % ${ITEMS}) END, CASE WHEN i % 6 = 5 THEN 1 + (i % ${PROPOSALS}) END, '{}'
     FROM n`,
  ];
}

interface Case {
  name: string;
  read: PageRead;
  /**
   * A value few rows have. PostgreSQL, which plans from statistics, rightly walks the primary key and
   * checks a value most rows have; for a rare one it must walk that value's own index.
   */
  rare?: boolean;
  /** Unfiltered (or id-only) reads walk the primary key itself, which is the page order. */
  primaryKey?: boolean;
}

const windows: { name: string; window: PageWindow }[] = [
  { name: 'first', window: { limit: 21, inverted: false } },
  { name: 'first/after', window: { afterId: 1000, limit: 21, inverted: false } },
  { name: 'last', window: { limit: 21, inverted: true } },
  { name: 'last/before', window: { beforeId: 30_000, limit: 21, inverted: true } },
];

function cases(): Case[] {
  const now = NOW;
  const since = new Date(T0 + 5_000_000);
  const all: Case[] = [];
  const items: [string, Parameters<typeof itemPageRead>[0], boolean?, boolean?][] = [
    ['items, rare batchId', { batchId: 'batch-rare' }, false, true],
    ['items, rare batchId + status', { batchId: 'batch-rare', status: 'PENDING' }, false, true],
    ['items, no filter', {}, true],
    ['items, status PENDING (dashboard)', { status: 'PENDING' }],
    ['items, status ACCEPTED', { status: 'ACCEPTED' }],
    ['items, batchId (dashboard)', { batchId: 'batch-3' }],
    ['items, batchId + status (dashboard)', { batchId: 'batch-3', status: 'PENDING' }],
    ['items, claimState UNCLAIMED', { claimState: 'UNCLAIMED' }],
    ['items, claimState ACTIVE', { claimState: 'ACTIVE' }],
    ['items, claimState EXPIRED', { claimState: 'EXPIRED' }],
    ['items, claimState NOT_APPLICABLE', { claimState: 'NOT_APPLICABLE' }],
    ['items, claimState + batchId', { claimState: 'UNCLAIMED', batchId: 'batch-3' }],
    ['items, claimState ACTIVE + batchId', { claimState: 'ACTIVE', batchId: 'batch-3' }],
    ['items, claimState NOT_APPLICABLE + batchId', { claimState: 'NOT_APPLICABLE', batchId: 'batch-3' }],
    ['items, holder', { holder: 'alice' }],
    ['items, holder + status + batchId', { holder: 'alice', status: 'PENDING', batchId: 'batch-0' }],
    ['items, status + createdAfter', { status: 'PENDING', createdAfter: since }],
    ['items, batchId + createdBefore', { batchId: 'batch-3', createdBefore: since }],
  ];
  for (const [name, filter, primaryKey, rare] of items) {
    for (const { name: direction, window } of windows)
      all.push({ name: `${name}, ${direction}`, read: itemPageRead(filter, window, now, BACKEND), primaryKey, rare });
  }
  const events: [string, Parameters<typeof eventPageRead>[0], boolean?, boolean?][] = [
    ['events, rare type', { types: ['LEASE_EXPIRED'] }, false, true],
    ['events, no filter (dashboard: last 1)', {}, true],
    ['events, afterSequence', { afterSequence: 500 }, true],
    ['events, types (dashboard chart)', { types: ['ITEM_DECIDED', 'LEASE_EXPIRED'] }],
    ['events, one type', { types: ['LEASE_CLAIMED'] }],
    ['events, itemId (item history)', { itemId: 42 }],
    ['events, itemId + types', { itemId: 42, types: ['ITEM_DECIDED'] }],
    ['events, proposalId (proposal history)', { proposalId: 7 }],
  ];
  for (const [name, filter, primaryKey, rare] of events) {
    for (const { name: direction, window } of windows)
      all.push({ name: `${name}, ${direction}`, read: eventPageRead(filter, window, BACKEND), primaryKey, rare });
  }
  const proposals: [string, Parameters<typeof proposalPageRead>[0], boolean?, boolean?][] = [
    ['proposals, rare proposer', { proposedBy: 'agent-rare' }, false, true],
    ['proposals, no filter', {}, true],
    ['proposals, states', { states: ['PENDING', 'APPROVED'] }],
    ['proposals, riskLevels', { riskLevels: ['HIGH', 'CRITICAL'] }],
    ['proposals, states + riskLevels', { states: ['PENDING'], riskLevels: ['HIGH', 'CRITICAL'] }],
    ['proposals, proposedBy', { proposedBy: 'agent-3' }],
    ['proposals, holder', { holder: 'alice' }],
    ['proposals, targetSystem', { targetSystem: 'shop-2' }],
    ['proposals, targetSystem + targetId + states', { targetSystem: 'shop-2', targetId: 'sku-7', states: ['PENDING'] }],
    ['proposals, batchId + states', { batchId: 'pb-4', states: ['PENDING'] }],
    ['proposals, states + deadlineBefore', { states: ['PENDING', 'APPROVED'], deadlineBefore: since }],
    ['proposals, proposedBy + createdAfter', { proposedBy: 'agent-3', createdAfter: since }],
    // The queue by assignee (issue 17, item 5), along (assignee, id).
    ['proposals, rare assignee', { assignee: 'dana-rare' }, false, true],
    ['proposals, assignee + states + deadlineBefore', { assignee: 'erin', states: ['PENDING'], deadlineBefore: since }],
    // Seed B's queue: by age (createdBefore) and impact (riskLevels) among the states waiting for someone.
    ['proposals, states + createdBefore (age)', { states: ['PENDING', 'ON_HOLD'], createdBefore: since }],
    ['proposals, states + riskLevels + createdBefore', { states: ['PENDING'], riskLevels: ['HIGH', 'CRITICAL'], createdBefore: since }],
    // Executed automatically and awaiting review afterwards (issue 17, item 7): few rows, along (afterReview, id).
    ['proposals, afterReview PENDING', { afterReview: ['PENDING'] }, false, true],
    ['proposals, afterReview PENDING + riskLevels', { afterReview: ['PENDING'], riskLevels: ['LOW'] }, false, true],
  ];
  for (const [name, filter, primaryKey, rare] of proposals) {
    for (const { name: direction, window } of windows)
      all.push({ name: `${name}, ${direction}`, read: proposalPageRead(filter, window, now, BACKEND), primaryKey, rare });
  }
  return all;
}

/**
 * The statements a read runs, each with the columns its index must serve: one per arm, or for a
 * lease-bounded set its ids and then one chunk of rows by primary key.
 */
function statementsOf(read: PageRead): { statement: Statement; index: string[] }[] {
  if (read.kind === 'ordered') return read.statements.map((statement) => ({ statement, index: read.index }));
  if (read.kind === 'leased')
    return [
      { statement: read.ids, index: read.index },
      { statement: leasedRows(read, [50, 100, 150, 200]), index: [] },
    ];
  return [];
}

/** What is wrong with one statement's plan (empty when it reads along indexes in page order). */
async function planProblems(db: Database, statement: Statement, index: string[], read: Case): Promise<string[]> {
  // The index walked must serve the page's driving columns: walking another index (or the primary
  // key) in id order instead would check every row on the way.
  const unserved = (conditions: string) => index.filter((column) => !new RegExp(`\\b${column}"?\\s*(=|<|>)`).test(conditions));
  if (db.dialect === 'sqlite') {
    const rows = await db.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${statement.sql}`, ...statement.params);
    const details = rows.map((row) => row.detail);
    const problems = details.filter(
      (detail) =>
        /^SCAN /.test(detail) ||
        /TEMP B-TREE/.test(detail) ||
        // A filtered read that walks the table itself filters row by row instead of reading its index.
        (!read.primaryKey && /USING INTEGER PRIMARY KEY \(rowid[<>]/.test(detail)),
    );
    problems.push(...unserved(details.join(' ')).map((column) => `${column} not served by the index walked`));
    return problems.length > 0 ? [`${problems.join(', ')}: ${details.join(' | ')}`] : [];
  }
  const [row] = await db.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${statement.sql}`, ...statement.params);
  const plan = ((row?.['QUERY PLAN'] ?? []) as { Plan: PlanNode }[])[0]?.Plan;
  if (!plan) throw new Error('EXPLAIN returned no plan.');
  const problems: string[] = [];
  const conditions: string[] = [];
  const scansBigTable = (node: PlanNode): boolean =>
    BIG_TABLES.includes(node['Relation Name'] ?? '') || (node.Plans ?? []).some((child) => scansBigTable(child));
  const walk = (node: PlanNode) => {
    if (node['Index Cond']) conditions.push(node['Index Cond']);
    if (node['Node Type'] === 'Seq Scan' && BIG_TABLES.includes(node['Relation Name'] ?? ''))
      problems.push(`Seq Scan on ${node['Relation Name']}`);
    const input = node.Plans?.[0]?.['Plan Rows'] ?? 0;
    if (node['Node Type'] === 'Sort' && scansBigTable(node) && input > SMALL_SORT_ROWS) problems.push(`Sort of ${input} rows`);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(plan);
  if (read.rare) problems.push(...unserved(conditions.join(' ')).map((column) => `${column} not served by the index walked`));
  return problems.length > 0 ? [`${problems.join(', ')}: ${JSON.stringify(plan)}`] : [];
}

interface PlanNode {
  'Node Type': string;
  'Index Cond'?: string;
  'Plan Rows'?: number;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

async function problemsOf(db: Database, reads: Case[]): Promise<string[]> {
  const problems: string[] = [];
  for (const read of reads) {
    for (const { statement, index } of statementsOf(read.read)) {
      for (const problem of await planProblems(db, statement, index, read)) problems.push(`${read.name}: ${problem}\n  ${statement.sql}`);
    }
  }
  return problems;
}

describe(`list reads on a seeded ${BACKEND} database`, () => {
  let database: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    database = await testDatabase();
    db = await openDatabase({ location: database.location });
    if (db.dialect === 'sqlite') {
      await db.write(async (_tx, sql) => {
        for (const statement of seedStatements('sqlite')) await sql.run(statement);
      });
    } else {
      // Longer than a write transaction may last: on a connection of its own. Autovacuum analyzes a
      // table this size in production, so the planner has statistics, as here. SQLite's server never
      // runs ANALYZE: its plans are made without statistics, as in this test.
      await withPostgres(database.url, async (client) => {
        for (const statement of seedStatements('postgresql')) await client.query(statement);
        await client.query('ANALYZE "Item", "Event", "Proposal"');
      });
    }
  }, 300_000);

  afterAll(async () => {
    await db?.close();
    await database?.cleanup();
  });

  it('reads every filter, combination and direction along an index in page order', async () => {
    const reads = cases();
    expect(reads.length).toBeGreaterThan(100);
    expect(await problemsOf(db, reads)).toEqual([]);
  }, 120_000);

  it('the pages hold what the filters ask for, in page order', async () => {
    const rows = <Row extends { id: number }>(read: PageRead) => runPageRead<Row>((sql, ...params) => db.query<Row>(sql, ...params), read);
    const pending = await rows<{ id: number; status: string }>(
      itemPageRead({ status: 'PENDING', batchId: 'batch-3' }, { limit: 5, inverted: true }, NOW, BACKEND),
    );
    expect(pending.map((item) => item.status)).toEqual(Array(5).fill('PENDING'));
    const ids = pending.map((item) => item.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    // Three arms (one per decided status) merged into one page in id order.
    const decided = await rows<{ id: number; status: string }>(
      itemPageRead({ claimState: 'NOT_APPLICABLE' }, { afterId: 10, limit: 8, inverted: false }, NOW, BACKEND),
    );
    expect(decided.map((item) => item.id)).toEqual([11, 13, 14, 21, 22, 26, 28, 33]);
  });

  it('takes cursors beyond every id (PostgreSQL ids are 4-byte integers)', async () => {
    const rows = (window: PageWindow) =>
      runPageRead<{ id: number }>((sql, ...params) => db.query(sql, ...params), itemPageRead({ status: 'PENDING' }, window, NOW, BACKEND));
    expect(await rows({ afterId: 999_999_999_999_999, limit: 3, inverted: false })).toEqual([]);
    const last = await rows({ beforeId: 999_999_999_999_999, limit: 3, inverted: true });
    expect(last.map((item) => item.id)).toEqual((await rows({ limit: 3, inverted: true })).map((item) => item.id));
  });

  it('finds the scan when a page index is missing', async () => {
    // The check itself must see a scan or a sort once an index it relies on is gone.
    await db.write(async (_tx, sql) => {
      await sql.run('DROP INDEX "Item_status_id_idx"');
      await sql.run('DROP INDEX "Item_claimedBy_id_idx"');
      await sql.run('DROP INDEX "Item_batchId_status_id_idx"');
      await sql.run('DROP INDEX "Proposal_assignee_id_idx"');
    });
    // New connections, so no plan or schema cached before the drops is reused.
    await db.close();
    db = await openDatabase({ location: database.location });
    const reads = (prefix: string) => cases().filter((read) => read.name.startsWith(prefix));
    expect((await problemsOf(db, reads('items, holder,'))).length).toBeGreaterThan(0);
    expect((await problemsOf(db, reads('items, rare batchId,'))).length).toBeGreaterThan(0);
    expect((await problemsOf(db, reads('proposals, rare assignee,'))).length).toBeGreaterThan(0);
    // PostgreSQL, knowing that most items are pending, may walk the primary key instead: no sort.
    if (BACKEND === 'sqlite') expect((await problemsOf(db, reads('items, status PENDING'))).length).toBeGreaterThan(0);
  }, 60_000);
});
