// For the tests of PostgreSQL's write calls (src/db/write-calls.ts): a table's rows in a form both backends
// answer alike, and a record of every statement the writer connection is sent.
import pg from 'pg';
import type { Database } from '../../src/db/client.js';

/** The time columns of the tables the write calls write. */
const TIMES = new Set([
  'occurredAt',
  'leaseExpiresAt',
  'decidedAt',
  'createdAt',
  'claimedAt',
  'deadline',
  'approvedAt',
  'approvalExpiresAt',
  'afterReviewedAt',
  'escalatedAt',
  'outcomeUnknownAt',
  'voidedAt',
  'lapsesAt',
  'startedAt',
  'finishedAt',
  'reportedAt',
]);
/** An operation id (random) as it appears in an event's details. */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const BOOLEANS = new Set(['leaseExpiryRecorded', 'manualLease']);

/** A table's rows with times as epoch ms, booleans as booleans and lease token hashes and operation ids (random) as whether there is one (in details, as `<uuid>`). */
export async function rows(
  db: Database,
  table:
    | 'Event'
    | 'Item'
    | 'Category'
    | 'ApiKey'
    | 'WebhookDelivery'
    | 'WebhookCursor'
    | 'Proposal'
    | 'ProposalApproval'
    | 'ExecutionAttempt'
    | 'TargetState',
): Promise<Record<string, unknown>[]> {
  const keys: Partial<Record<typeof table, string>> = {
    TargetState: '"targetSystem", "targetId"',
    Category: '"name"',
    WebhookCursor: '"webhook"',
  };
  const order = keys[table] ?? '"id"';
  const raw = await db.query<Record<string, unknown>>(`SELECT * FROM "${table}" ORDER BY ${order}`);
  return raw.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([key, value]) => {
        if (key === 'leaseTokenHash') return ['leased', value !== null];
        // A key's secret is random: its hash and shown prefix are compared by length.
        if (table === 'ApiKey' && (key === 'keyHash' || key === 'prefix')) return [key, String(value).length];
        if (key === 'operationId') return ['operation', value !== null];
        if (key === 'details') return [key, String(value).replace(UUID, '<uuid>')];
        if (value === null) return [key, null];
        if (BOOLEANS.has(key)) return [key, Boolean(value)];
        if (TIMES.has(key)) return [key, new Date(value as string | number | Date).getTime()];
        return [key, value];
      }),
    ),
  );
}

/** Records the text of every statement the writer connection is sent until `stop` (pg's Client serves Prisma's adapter and ours). */
export function recordWriterStatements(): { sent: string[]; stop(): void } {
  const sent: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text?: string };
    if (
      (this as unknown as { connectionParameters: { application_name?: string } }).connectionParameters.application_name ===
      'leasehold-writer'
    )
      sent.push(typeof config === 'string' ? config : (config.text ?? ''));
    return (query as (...rest: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  return {
    sent,
    stop: () => {
      pg.Client.prototype.query = query;
    },
  };
}
