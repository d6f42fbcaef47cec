// The one database the stress run's servers share, on either backend: a fresh SQLite file, or a fresh PostgreSQL
// database on LEASEHOLD_TEST_POSTGRES_URL's server (created empty and migrated here: the test template of `npm test`
// need not exist), dropped afterwards. Both read the history at one consistent moment for the verdict, and check
// what a crash of every server may not have broken.
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import { migratePostgres } from '../../src/db/migrate-postgres.js';
import type { Role } from '../../src/domain/access.js';
import { adminUrl, databaseUrl, dropPostgresDatabase, tempDatabaseFile, withAdmin } from '../support/database.js';
import { createKeys, type KeyHolder } from '../support/process.js';
import type { EventRow, ItemRow, Snapshot } from './history.js';
import type { StressBackend } from './settings.js';
import { sleep } from './settings.js';

export type HistorySnapshot = Snapshot & { eventTypes: Record<string, number> };

/** What must hold after the final SIGKILL of every server. */
export interface FinalChecks {
  /** ITEM_DECIDED event ids, read afresh. */
  decisions: number[];
  /** Each check's findings; empty when it holds. */
  problems: Record<string, string[]>;
  /** One line for the summary. */
  summary: string;
}

export interface StressDatabase {
  readonly backend: StressBackend;
  /** DATABASE_URL of the servers. */
  readonly url: string;
  /** The SQLite file ('' on PostgreSQL), for the command-line writer. */
  readonly file: string;
  /** How the summary names it. */
  readonly label: string;
  /** One API key per principal, made through the real key service before any server starts. */
  createKeys(principals: readonly { name: string; roles: Role[] }[]): Promise<KeyHolder[]>;
  /** Items and their events in one read transaction: one consistent moment of the database. */
  readSnapshot(): Promise<HistorySnapshot>;
  /** Run once every server is dead. */
  finalChecks(): Promise<FinalChecks>;
  cleanup(): Promise<void>;
}

const ITEM_COLUMNS = [
  'id',
  'batchId',
  'recordId',
  'status',
  'finalCategory',
  'reviewedBy',
  'decidedAt',
  'addedBy',
  'leaseTokenHash',
  'claimedBy',
  'leaseExpiresAt',
  'leaseNumber',
  'leaseExpiryRecorded',
  'version',
] as const;
const EVENT_COLUMNS = [
  'id',
  'occurredAt',
  'type',
  'actor',
  'itemId',
  'leaseExpiresAt',
  'leaseNumber',
  'itemVersion',
  'toStatus',
  'details',
] as const;
const columns = (names: readonly string[], cast: Record<string, string> = {}) =>
  names.map((name) => (cast[name] ? `${cast[name]} AS "${name}"` : `"${name}"`)).join(', ');

export function sqliteStressDatabase(): StressDatabase {
  const temp = tempDatabaseFile();
  const { file } = temp;
  return {
    backend: 'sqlite',
    url: `file:${file}`,
    file,
    label: 'one SQLite file',
    // Keys first also creates and migrates the file.
    createKeys: (principals) => createKeys({ dialect: 'sqlite', file }, principals),
    async readSnapshot() {
      const db = new Database(file, { readonly: true });
      try {
        return db.transaction(() => {
          const items = db.prepare(`SELECT ${columns(ITEM_COLUMNS)} FROM "Item" ORDER BY id`).all() as ItemRow[];
          const events = db
            .prepare(`SELECT ${columns(EVENT_COLUMNS)} FROM "Event" WHERE itemId IS NOT NULL ORDER BY id`)
            .all() as EventRow[];
          const types = db.prepare('SELECT type, count(*) AS n FROM "Event" GROUP BY type').all() as { type: string; n: number }[];
          return { items, events, at: Date.now(), eventTypes: Object.fromEntries(types.map((row) => [row.type, row.n])) };
        })();
      } finally {
        db.close();
      }
    },
    async finalChecks() {
      const db = new Database(file);
      try {
        const integrity = db.pragma('integrity_check', { simple: true });
        const foreignKeys = db.pragma('foreign_key_check') as unknown[];
        const decisions = db.prepare(`SELECT id FROM "Event" WHERE type = 'ITEM_DECIDED' ORDER BY id`).pluck().all() as number[];
        return {
          decisions,
          problems: {
            'integrity_check: the file is intact': integrity === 'ok' ? [] : [String(integrity)],
            'foreign_key_check: no dangling reference': foreignKeys.map((row) => JSON.stringify(row)),
          },
          summary: `integrity_check ${String(integrity)}, foreign_key_check ${foreignKeys.length} rows`,
        };
      } finally {
        db.close();
      }
    },
    cleanup: async () => temp.cleanup(),
  };
}

/** `timestamp(3)` columns hold UTC wall time (Prisma's convention); read them as epoch ms, as SQLite stores them. */
const TIMESTAMP_OID = 1114;
const epochMs: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMP_OID
      ? (value: string) => Date.parse(`${value.replace(' ', 'T')}Z`)
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** Sessions of killed servers end when PostgreSQL notices their connection closed: give it this long. */
const SESSIONS_GONE_WITHIN_MS = 15_000;

export async function postgresStressDatabase(): Promise<StressDatabase> {
  // Not leasehold_test_…: `npm test`'s global setup drops those, and could run beside a local stress run.
  const name = `leasehold_stress_${randomBytes(6).toString('hex')}`;
  await withAdmin((client) => client.query(`CREATE DATABASE "${name}"`));
  const url = databaseUrl(adminUrl(), name);
  await migratePostgres(url);
  const connect = async () => {
    const client = new pg.Client({ connectionString: url, types: epochMs, application_name: 'leasehold-stress-check' });
    await client.connect();
    return client;
  };
  return {
    backend: 'postgresql',
    url,
    file: '',
    label: 'one PostgreSQL database',
    createKeys: (principals) => createKeys({ dialect: 'postgresql', url }, principals),
    async readSnapshot() {
      const client = await connect();
      try {
        // The snapshot is taken at the first statement: `at` is read before it, so it is never later than the data.
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const at = Date.now();
        const items = (
          await client.query<ItemRow>(
            `SELECT ${columns(ITEM_COLUMNS, { leaseExpiryRecorded: '"leaseExpiryRecorded"::int' })} FROM "Item" ORDER BY id`,
          )
        ).rows;
        const events = (
          await client.query<EventRow>(`SELECT ${columns(EVENT_COLUMNS)} FROM "Event" WHERE "itemId" IS NOT NULL ORDER BY id`)
        ).rows;
        const types = (await client.query<{ type: string; n: number }>('SELECT type::text, count(*)::int AS n FROM "Event" GROUP BY type'))
          .rows;
        await client.query('COMMIT');
        return { items, events, at, eventTypes: Object.fromEntries(types.map((row) => [row.type, row.n])) };
      } finally {
        await client.end();
      }
    },
    async finalChecks() {
      const client = await connect();
      try {
        // A SIGKILLed server's connections close with its process; their sessions (and any advisory lock one held:
        // the write lock, the migration lock) must go with them, or the next writer would wait for ever.
        let left: { pid: number; application_name: string; state: string | null }[] = [];
        let locks: { key: string; pid: number; granted: boolean }[] = [];
        const until = Date.now() + SESSIONS_GONE_WITHIN_MS;
        for (;;) {
          left = (
            await client.query(
              'SELECT pid, application_name, state FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
            )
          ).rows;
          locks = (
            await client.query(`SELECT (classid::bigint << 32 | objid::bigint)::text AS key, pid, granted FROM pg_locks
             WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`)
          ).rows;
          if ((left.length === 0 && locks.length === 0) || Date.now() > until) break;
          await sleep(100);
        }
        const orphans = (
          await client.query<{ id: number }>(
            `SELECT e.id FROM "Event" e LEFT JOIN "Item" i ON i.id = e."itemId" WHERE e."itemId" IS NOT NULL AND i.id IS NULL ORDER BY e.id LIMIT 20`,
          )
        ).rows;
        const decisions = (await client.query<{ id: number }>(`SELECT id FROM "Event" WHERE type = 'ITEM_DECIDED' ORDER BY id`)).rows.map(
          (row) => row.id,
        );
        return {
          decisions,
          problems: {
            [`sessions: none left ${SESSIONS_GONE_WITHIN_MS / 1000} s after every server was killed`]: left.map((row) =>
              JSON.stringify(row),
            ),
            'advisory locks: none held once every server is dead': locks.map((row) => JSON.stringify(row)),
            'no event about an item that does not exist': orphans.map((row) => `event ${row.id}`),
          },
          summary: `sessions left ${left.length}, advisory locks held ${locks.length}, events without their item ${orphans.length}`,
        };
      } finally {
        await client.end();
      }
    },
    cleanup: () => dropPostgresDatabase(name),
  };
}

export function stressDatabase(backend: StressBackend): Promise<StressDatabase> {
  return backend === 'postgresql' ? postgresStressDatabase() : Promise.resolve(sqliteStressDatabase());
}
