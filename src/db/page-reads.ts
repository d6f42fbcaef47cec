// The SQL of the paged list reads (items, events, proposals): every page walks one index in page order
// and stops at the page, so its cost follows the page, not the table (docs/performance.md, Index reads).
import type { AfterReviewState } from '../domain/auto-execution.js';
import { type ClaimState, longestLeaseFrom } from '../domain/lease.js';
import type { Dialect, EventType, ItemStatus, ProposalStateColumn, RiskLevelColumn } from './client.js';
import type { SqlValue } from './tx-sql.js';

/** One page in keyset form: rows after/before an id, in ascending or descending id order. */
export interface PageWindow {
  afterId?: number | null;
  beforeId?: number | null;
  limit: number;
  /** Read from the end backwards (Relay `last`). */
  inverted: boolean;
}

export interface ItemFilter {
  status?: ItemStatus | null;
  claimState?: ClaimState | null;
  batchId?: string | null;
  holder?: string | null;
  createdAfter?: Date | null;
  createdBefore?: Date | null;
}

export interface EventFilter {
  itemId?: number | null;
  proposalId?: number | null;
  types?: readonly EventType[] | null;
  afterSequence?: number | null;
}

export interface ProposalFilter {
  states?: readonly ProposalStateColumn[] | null;
  riskLevels?: readonly RiskLevelColumn[] | null;
  proposedBy?: string | null;
  /** Only proposals this principal holds under an unexpired (review or execution) lease. */
  holder?: string | null;
  targetSystem?: string | null;
  targetId?: string | null;
  batchId?: string | null;
  /** Only proposals assigned to this principal. */
  assignee?: string | null;
  createdBefore?: Date | null;
  createdAfter?: Date | null;
  deadlineBefore?: Date | null;
  /** Only these states of the review after execution (PENDING: executed automatically, awaiting review). */
  afterReview?: readonly AfterReviewState[] | null;
}

export interface Statement {
  sql: string;
  params: SqlValue[];
}

type Table = 'Item' | 'Event' | 'Proposal';

/**
 * How a page is read. `ordered`: statements along indexes in page order, one per arm (see orderedPage). `leased`: the rows are
 * among a set bounded by leases (a holder's, the active or the lapsed ones), read as ids from an
 * index first, then as rows by primary key in page order, chunk by chunk, until the page is full.
 * `empty`: the filters contradict each other. `index`: the columns the index walked (for the ids,
 * if leased) must serve, for the plan test.
 */
export type PageRead =
  | { kind: 'ordered'; statements: Statement[]; window: PageWindow; index: string[] }
  | { kind: 'leased'; table: Table; ids: Statement; where: Conditions; window: PageWindow; index: string[] }
  | { kind: 'empty' };

/** AND-ed conditions with their parameters. */
export class Conditions {
  readonly parts: string[] = [];
  readonly params: SqlValue[] = [];

  constructor(private readonly dialect: Dialect) {}

  add(sql: string, ...params: SqlValue[]): this {
    this.parts.push(sql);
    this.params.push(...params);
    return this;
  }

  /**
   * A condition the page's driving index does not serve. On SQLite, `|| ''` keeps the planner (which
   * plans without statistics there) from choosing that column's own index and then sorting the page;
   * PostgreSQL plans from statistics, which that expression would only blur.
   */
  residual(column: string, values: readonly SqlValue[]): this {
    const term = this.dialect === 'sqlite' ? `("${column}" || '')` : `"${column}"`;
    if (values.length === 1) return this.add(`${term} = ?`, ...values);
    return this.add(`${term} IN (${values.map(() => '?').join(', ')})`, ...values);
  }

  /** `column IS NULL`, checked on the way (see residual). */
  residualNull(column: string): this {
    return this.add(this.dialect === 'sqlite' ? `("${column}" || '') IS NULL` : `"${column}" IS NULL`);
  }

  get sql(): string {
    return this.parts.length === 0 ? 'TRUE' : this.parts.join(' AND ');
  }
}

/** PostgreSQL's ids are 4-byte integers: a cursor beyond that range must not reach it as a parameter. */
const POSTGRES_MAX_ID = 2_147_483_647;

function windowConditions(window: PageWindow, dialect: Dialect): Conditions {
  const maxId = dialect === 'postgresql' ? POSTGRES_MAX_ID : Number.MAX_SAFE_INTEGER;
  const afterId = window.afterId == null ? null : Math.min(window.afterId, maxId);
  // Before an id beyond every id: no upper bound at all.
  const beforeId = window.beforeId == null || window.beforeId > maxId ? null : window.beforeId;
  // Always a range on the id, even on the first page (id > 0), so every page is a keyset range read.
  const where = new Conditions(dialect);
  if (afterId != null || beforeId == null) where.add('"id" > ?', afterId ?? 0);
  if (beforeId != null) where.add('"id" < ?', beforeId);
  return where;
}

const direction = (window: PageWindow) => (window.inverted ? 'DESC' : 'ASC');

/**
 * Statements along `driver`'s index: `column = value AND …` walked in id order, LIMIT the page. Several
 * values become one statement each (an arm), merged in id order by runPageRead: each arm still walks
 * its index in page order and nothing is sorted but the arms' pages. (One UNION ALL statement would
 * do on SQLite, which merges the arms; PostgreSQL 15 appends them and sorts everything they match.)
 */
function orderedPage(
  table: Table,
  driver: { column: string; values: readonly SqlValue[] }[],
  where: Conditions,
  window: PageWindow,
): PageRead {
  let arms: Statement[] = [{ sql: '', params: [] }];
  for (const { column, values } of driver) {
    arms = arms.flatMap((arm) => values.map((value) => ({ sql: `${arm.sql}"${column}" = ? AND `, params: [...arm.params, value] })));
  }
  return {
    kind: 'ordered',
    window,
    index: driver.map(({ column }) => column),
    statements: arms.map((arm) => ({
      sql: `SELECT * FROM "${table}" WHERE ${arm.sql}${where.sql} ORDER BY "id" ${direction(window)} LIMIT ?`,
      params: [...arm.params, ...where.params, window.limit],
    })),
  };
}

const ITEM_STATUSES: readonly ItemStatus[] = ['PENDING', 'ACCEPTED', 'CORRECTED', 'REJECTED'];

/**
 * An item's lease that is running at `now` (the two parameters: now, and now + the longest lease), as
 * claimState has it: not reached, not overlong by this clock (a clock set back never holds a lease longer
 * than the longest lease from its claim), and its lapse not recorded (final, whatever the clock).
 */
const RUNNING_LEASE = '"leaseExpiresAt" > ? AND "leaseExpiresAt" <= ? AND NOT "leaseExpiryRecorded"';

/** The statuses a claim state allows, and what it asks of the lease columns. */
function claimStateConditions(state: ClaimState, now: Date, where: Conditions): readonly ItemStatus[] {
  switch (state) {
    case 'NOT_APPLICABLE':
      return ITEM_STATUSES.filter((status) => status !== 'PENDING');
    case 'UNCLAIMED':
      where.residualNull('leaseTokenHash');
      return ['PENDING'];
    case 'ACTIVE':
      where.add(`"leaseTokenHash" IS NOT NULL AND ${RUNNING_LEASE}`, now, longestLeaseFrom(now));
      return ['PENDING'];
    case 'EXPIRED':
      where.add(`"leaseTokenHash" IS NOT NULL AND NOT (${RUNNING_LEASE})`, now, longestLeaseFrom(now));
      return ['PENDING'];
  }
}

/**
 * Items: by batch along (batchId, status, id), else by status along (status, id), else the primary
 * key. A holder's items and the ACTIVE and EXPIRED claim states are sets bounded by leases: their ids
 * come from (claimedBy, id) or (status, leaseExpiresAt) — the leases a reviewer holds, the leases
 * running now, or the lapsed ones that the next claims take first (claims go oldest first).
 */
export function itemPageRead(filter: ItemFilter, window: PageWindow, now: Date, dialect: Dialect): PageRead {
  const where = windowConditions(window, dialect);
  if (filter.createdAfter) where.add('"createdAt" >= ?', filter.createdAfter);
  if (filter.createdBefore) where.add('"createdAt" < ?', filter.createdBefore);
  let statuses = filter.status ? [filter.status] : ITEM_STATUSES;
  if (filter.claimState) {
    const allowed = claimStateConditions(filter.claimState, now, where);
    statuses = statuses.filter((status) => allowed.includes(status));
  }
  if (statuses.length === 0) return { kind: 'empty' };
  const constrained = statuses.length < ITEM_STATUSES.length;

  let ids: Statement | null = null;
  let index: string[] = [];
  if (filter.holder != null) {
    where.add(`"claimedBy" = ? AND ${RUNNING_LEASE}`, filter.holder, now, longestLeaseFrom(now));
    ids = { sql: 'SELECT "id" FROM "Item" WHERE "claimedBy" = ?', params: [filter.holder] };
    index = ['claimedBy'];
  } else if (filter.claimState === 'ACTIVE') {
    ids = {
      sql: `SELECT "id" FROM "Item" WHERE "status" = 'PENDING' AND "leaseExpiresAt" > ? AND "leaseExpiresAt" <= ?`,
      params: [now, longestLeaseFrom(now)],
    };
    index = ['status', 'leaseExpiresAt'];
  } else if (filter.claimState === 'EXPIRED') {
    // Every lease on record (reached, overlong or recorded lapsed), the running ones dropped by `where`.
    ids = { sql: `SELECT "id" FROM "Item" WHERE "status" = 'PENDING' AND "leaseExpiresAt" IS NOT NULL`, params: [] };
    index = ['status', 'leaseExpiresAt'];
  }
  if (ids) {
    if (constrained) where.residual('status', statuses);
    if (filter.batchId != null) where.residual('batchId', [filter.batchId]);
    return { kind: 'leased', table: 'Item', ids, where, window, index };
  }
  if (filter.batchId != null) {
    return orderedPage(
      'Item',
      [
        { column: 'batchId', values: [filter.batchId] },
        { column: 'status', values: statuses },
      ],
      where,
      window,
    );
  }
  return orderedPage('Item', constrained ? [{ column: 'status', values: statuses }] : [], where, window);
}

/** Events: an item's or a proposal's along (itemId, id) / (proposalId, id), else by type along (type, id), else the primary key. */
export function eventPageRead(filter: EventFilter, window: PageWindow, dialect: Dialect, settledUpTo: number | null = null): PageRead {
  const where = windowConditions(window, dialect);
  if (filter.afterSequence != null) where.add('"id" > ?', filter.afterSequence);
  // PG_WRITE_MODE=sharded: no event past the horizon, or a cursor taken from this page would skip one
  // that commits later with a smaller id.
  if (settledUpTo !== null) where.add('"id" <= ?', settledUpTo);
  const types = [...new Set(filter.types ?? [])];
  const owner =
    filter.itemId != null
      ? { column: 'itemId', values: [filter.itemId] }
      : filter.proposalId != null
        ? { column: 'proposalId', values: [filter.proposalId] }
        : null;
  if (owner) {
    if (filter.itemId != null && filter.proposalId != null) where.add('"proposalId" = ?', filter.proposalId);
    if (types.length > 0) where.residual('type', types);
    return orderedPage('Event', [owner], where, window);
  }
  return orderedPage('Event', types.length > 0 ? [{ column: 'type', values: types }] : [], where, window);
}

/**
 * Proposals: a holder's are bounded by their leases (ids from (claimedBy, id)); otherwise the most
 * selective filter given drives — target record, target system, batch, assignee, proposer, review after execution,
 * states, risk levels, each along its (column, id) index — and the others are checked on the way.
 */
export function proposalPageRead(filter: ProposalFilter, window: PageWindow, now: Date, dialect: Dialect): PageRead {
  const where = windowConditions(window, dialect);
  if (filter.createdAfter) where.add('"createdAt" >= ?', filter.createdAfter);
  if (filter.createdBefore) where.add('"createdAt" < ?', filter.createdBefore);
  if (filter.deadlineBefore) where.add('"deadline" < ?', filter.deadlineBefore);
  const candidates: { column: string; values: readonly SqlValue[] }[] = [];
  const offer = (column: string, values: readonly SqlValue[] | null | undefined) => {
    if (values && values.length > 0) candidates.push({ column, values: [...new Set(values)] });
  };
  offer('targetId', filter.targetId != null ? [filter.targetId] : null);
  offer('targetSystem', filter.targetSystem != null ? [filter.targetSystem] : null);
  offer('batchId', filter.batchId != null ? [filter.batchId] : null);
  offer('assignee', filter.assignee != null ? [filter.assignee] : null);
  offer('proposedBy', filter.proposedBy != null ? [filter.proposedBy] : null);
  offer('afterReview', filter.afterReview);
  offer('state', filter.states);
  offer('riskLevel', filter.riskLevels);

  if (filter.holder != null) {
    where.add('"claimedBy" = ? AND "leaseExpiresAt" > ?', filter.holder, now);
    for (const { column, values } of candidates) where.residual(column, values);
    return {
      kind: 'leased',
      table: 'Proposal',
      ids: { sql: 'SELECT "id" FROM "Proposal" WHERE "claimedBy" = ?', params: [filter.holder] },
      where,
      window,
      index: ['claimedBy'],
    };
  }
  const [driver, ...others] = candidates;
  for (const { column, values } of others) where.residual(column, values);
  return orderedPage('Proposal', driver ? [driver] : [], where, window);
}

/** Rows of a lease-bounded set read by primary key this many at a time. */
export const LEASED_CHUNK = 200;

/** The statement that reads one chunk of a lease-bounded set by primary key. */
export function leasedRows(read: Extract<PageRead, { kind: 'leased' }>, ids: readonly number[]): Statement {
  return {
    sql: `SELECT * FROM "${read.table}" WHERE "id" IN (${ids.map(() => '?').join(', ')}) AND ${read.where.sql}`,
    params: [...ids, ...read.where.params],
  };
}

/** Runs a page read on the reader connections (`query`: Database.query) and returns the rows in page order. */
export async function runPageRead<Row extends { id: number }>(
  query: (sql: string, ...params: SqlValue[]) => Promise<Row[]>,
  read: PageRead,
): Promise<Row[]> {
  if (read.kind === 'empty') return [];
  const { window } = read;
  const pageOrder = (a: Row, b: Row) => (window.inverted ? b.id - a.id : a.id - b.id);
  if (read.kind === 'ordered') {
    if (read.statements.length === 1 && read.statements[0]) return query(read.statements[0].sql, ...read.statements[0].params);
    const arms = await Promise.all(read.statements.map((statement) => query(statement.sql, ...statement.params)));
    return arms.flat().sort(pageOrder).slice(0, window.limit);
  }
  const ids = (await query(read.ids.sql, ...read.ids.params))
    .map((row) => Number(row.id))
    .filter((id) => id > (window.afterId ?? 0) && (window.beforeId == null || id < window.beforeId))
    .sort((a, b) => (window.inverted ? b - a : a - b));
  const rows: Row[] = [];
  const step = Math.max(LEASED_CHUNK, window.limit);
  for (let start = 0; start < ids.length && rows.length < window.limit; start += step) {
    const chunk = ids.slice(start, start + step);
    const statement = leasedRows(read, chunk);
    const found = await query(statement.sql, ...statement.params);
    found.sort(pageOrder);
    rows.push(...found.slice(0, window.limit - rows.length));
  }
  return rows;
}
