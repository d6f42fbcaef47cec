// prisma/postgresql/migrations produce exactly prisma/postgresql/schema.prisma, migratePostgres is safe to run
// any number of times and from several starters at once, and the database itself enforces what the SQLite
// migrations add by hand (CHECKs, append-only history) plus the commit-time notification of new events.
// Needs LEASEHOLD_TEST_POSTGRES_URL: an admin URL of a PostgreSQL 15 server whose role may CREATE DATABASE.
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactDatabaseUrl as redactUrl } from '../../src/config/database-location.js';
import { MigrationError, readMigrations } from '../../src/db/migrate.js';
import { connectPostgres, isLeaseholdPostgres, migratePostgres, POSTGRES_MIGRATIONS_DIR } from '../../src/db/migrate-postgres.js';
import { createScratchDatabase, type ScratchDatabase } from '../../src/db/postgres-scratch.js';
import { diffDatabaseToSchema } from '../../src/db/schema-engine.js';

const ADMIN_URL = process.env.LEASEHOLD_TEST_POSTGRES_URL;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCHEMA = path.join(ROOT, 'prisma', 'postgresql', 'schema.prisma');
const MIGRATIONS = readMigrations(POSTGRES_MIGRATIONS_DIR);
const NAMES = MIGRATIONS.map((migration) => migration.name);

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = await connectPostgres(url);
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function recorded(url: string): Promise<{ migration_name: string; checksum: string }[]> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      'SELECT migration_name, checksum FROM "_prisma_migrations" ORDER BY migration_name',
    );
    return rows;
  });
}

async function eventually(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(10);
  }
}

describe('redactUrl', () => {
  it('replaces the password, wherever the URL carries it', () => {
    expect(redactUrl('postgresql://app:s3cret@db.example:5432/leasehold')).toBe('postgresql://app:***@db.example:5432/leasehold');
    expect(redactUrl('postgres://app:p%40ss@db/leasehold?sslmode=require')).toBe('postgres://app:***@db/leasehold?sslmode=require');
    expect(redactUrl('postgresql://app@db/leasehold?password=s3cret')).toBe('postgresql://app@db/leasehold?password=***');
    expect(redactUrl('postgresql://app:s3cr@t@/leasehold?host=/var/run/postgresql')).not.toContain('s3cr');
    expect(redactUrl('postgresql://db/leasehold')).toBe('postgresql://db/leasehold');
  });

  it('keeps the password out of a connection failure', async () => {
    const error = await migratePostgres('postgresql://app:s3cret@127.0.0.1:1/leasehold').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain('postgresql://app:***@127.0.0.1:1/leasehold');
    expect((error as Error).message).not.toContain('s3cret');
  });
});

describe.runIf(ADMIN_URL)('PostgreSQL migrations', () => {
  const scratches: ScratchDatabase[] = [];
  let tempDir: string | undefined;

  async function freshDatabase(options: { icuLocale?: string } = {}): Promise<ScratchDatabase> {
    const scratch = await createScratchDatabase(ADMIN_URL as string, { prefix: 'leasehold_test', ...options });
    scratches.push(scratch);
    return scratch;
  }
  async function migratedDatabase(): Promise<ScratchDatabase> {
    const scratch = await freshDatabase();
    await migratePostgres(scratch.url);
    return scratch;
  }
  /** A copy of the real migrations directory that a test may change. */
  function copyOfMigrations(): string {
    tempDir ??= mkdtempSync(path.join(tmpdir(), 'leasehold-pg-migrations-'));
    const dir = mkdtempSync(path.join(tempDir, 'migrations-'));
    for (const name of NAMES) {
      mkdirSync(path.join(dir, name));
      copyFileSync(path.join(POSTGRES_MIGRATIONS_DIR, name, 'migration.sql'), path.join(dir, name, 'migration.sql'));
    }
    return dir;
  }
  function addMigration(dir: string, name: string, sql: string): void {
    mkdirSync(path.join(dir, name));
    writeFileSync(path.join(dir, name, 'migration.sql'), sql);
  }

  afterAll(async () => {
    await Promise.all(scratches.map((scratch) => scratch.drop()));
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  });

  it('applied to a fresh database, produce exactly what prisma/postgresql/schema.prisma describes', async () => {
    expect(MIGRATIONS.length).toBeGreaterThan(0);
    const scratch = await migratedDatabase();
    const { differs, sql } = await diffDatabaseToSchema(scratch.url, SCHEMA);
    expect(sql).toContain('empty migration');
    expect(differs).toBe(false);
  });

  it('the drift check notices a database that differs from the schema', async () => {
    const scratch = await migratedDatabase();
    await withClient(scratch.url, (client) => client.query('DROP INDEX "Event_itemId_id_idx"'));
    const { differs, sql } = await diffDatabaseToSchema(scratch.url, SCHEMA);
    expect(differs).toBe(true);
    expect(sql).toContain('Event_itemId_id_idx');
  });

  it('record every migration once; migrating again is a no-op', async () => {
    const scratch = await freshDatabase();
    expect(await isLeaseholdPostgres(scratch.url)).toBe(false);
    expect(await migratePostgres(scratch.url)).toEqual(NAMES);
    const first = await recorded(scratch.url);
    expect(first).toEqual(MIGRATIONS.map((migration) => ({ migration_name: migration.name, checksum: migration.checksum })));
    expect(await migratePostgres(scratch.url)).toEqual([]);
    expect(await migratePostgres(scratch.url)).toEqual([]);
    expect(await recorded(scratch.url)).toEqual(first);
    expect(await isLeaseholdPostgres(scratch.url)).toBe(true);
  });

  it('four starters migrating a new database at once all succeed, and the work is done once', async () => {
    const scratch = await freshDatabase();
    const results = await Promise.all([1, 2, 3, 4].map(() => migratePostgres(scratch.url)));
    // Exactly one of them applied each migration; the others found it done.
    expect(results.flat().sort()).toEqual([...NAMES].sort());
    expect((await recorded(scratch.url)).map((row) => row.migration_name)).toEqual(NAMES);
  });

  it('refuse a migration whose SQL changed after it was applied, naming the database without its password', async () => {
    const dir = copyOfMigrations();
    const scratch = await freshDatabase();
    await migratePostgres(scratch.url, { dir });
    const last = NAMES.at(-1) as string;
    appendFileSync(path.join(dir, last, 'migration.sql'), '\n-- edited after release\n');

    const error = await migratePostgres(scratch.url, { dir }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as Error).message).toBe(`Migration ${last} was changed after it was applied to ${redactUrl(scratch.url)}.`);
    expect((error as Error).message).not.toContain(`:${new URL(scratch.url).password}@`);
    // The history was not touched.
    expect(await recorded(scratch.url)).toEqual(
      MIGRATIONS.map((migration) => ({ migration_name: migration.name, checksum: migration.checksum })),
    );
  });

  it('refuse a database that records a migration this version does not know (written by a newer Leasehold)', async () => {
    const dir = copyOfMigrations();
    addMigration(dir, '29991231000000_future', 'CREATE TABLE "Future" ("id" INTEGER PRIMARY KEY);');
    const scratch = await freshDatabase();
    expect(await migratePostgres(scratch.url, { dir })).toHaveLength(NAMES.length + 1);

    await expect(migratePostgres(scratch.url)).rejects.toThrow(MigrationError);
    await expect(migratePostgres(scratch.url)).rejects.toThrow(/29991231000000_future.*newer Leasehold/);
  });

  it('roll a failing migration back completely, recording nothing for it', async () => {
    const dir = copyOfMigrations();
    addMigration(dir, '29991231000000_broken', 'CREATE TABLE "Half" ("id" INTEGER PRIMARY KEY);\nINSERT INTO "NoSuchTable" VALUES (1);');
    const scratch = await freshDatabase();
    await expect(migratePostgres(scratch.url, { dir })).rejects.toThrow(/relation "NoSuchTable" does not exist/);
    expect((await recorded(scratch.url)).map((row) => row.migration_name)).toEqual(NAMES);
    const half = await withClient(scratch.url, (client) => client.query(`SELECT to_regclass('"Half"') AS half`));
    expect(half.rows).toEqual([{ half: null }]);
  });

  it('upgrade a database with data to live counters that equal a recount, kept by triggers from then on', async () => {
    // The database as the release before live_counters left it, with items and proposals in every kind of state.
    tempDir ??= mkdtempSync(path.join(tmpdir(), 'leasehold-pg-migrations-'));
    const dir = mkdtempSync(path.join(tempDir, 'migrations-'));
    for (const name of NAMES.filter((candidate) => candidate < '20261201100000_live_counters')) {
      mkdirSync(path.join(dir, name));
      copyFileSync(path.join(POSTGRES_MIGRATIONS_DIR, name, 'migration.sql'), path.join(dir, name, 'migration.sql'));
    }
    const scratch = await freshDatabase();
    await migratePostgres(scratch.url, { dir });
    await withClient(scratch.url, async (client) => {
      await client.query(`
        INSERT INTO "Category" ("name", "createdAt", "createdBy") VALUES ('a', now(), 'admin'), ('b', now(), 'admin');
        INSERT INTO "Item" ("batchId", "recordId", "proposedCategory", "reason", "createdAt", "addedBy") VALUES
          ('b', 'p1', 'a', 'why', now(), 'p'), ('b', 'p2', 'a', 'why', now(), 'p'), ('b', 'p3', 'a', 'why', now(), 'p');
        INSERT INTO "Item" ("batchId", "recordId", "proposedCategory", "reason", "createdAt", "addedBy", "leaseTokenHash", "claimedBy", "claimedAt", "leaseExpiresAt") VALUES
          ('b', 'l1', 'a', 'why', now(), 'p', 'h1', 'r', now(), now() + interval '1 minute'),
          ('b', 'l2', 'a', 'why', now(), 'p', 'h2', 'r', now(), now() + interval '1 minute');
        INSERT INTO "Item" ("batchId", "recordId", "proposedCategory", "reason", "status", "finalCategory", "reviewedBy", "decidedAt", "createdAt", "addedBy") VALUES
          ('b', 'd1', 'a', 'why', 'ACCEPTED', 'a', 'r', now(), now(), 'p'), ('b', 'd2', 'a', 'why', 'CORRECTED', 'b', 'r', now(), now(), 'p'),
          ('b', 'd3', 'a', 'why', 'REJECTED', NULL, 'r', now(), now(), 'p'), ('b', 'd4', 'a', 'why', 'REJECTED', NULL, 'r', now(), now(), 'p');
        INSERT INTO "Proposal" ("batchId", "recordId", "revision", "action", "parameters", "reason", "targetSystem", "targetId", "currentValue",
          "proposedValue", "dataSource", "riskLevel", "fingerprint", "proposedBy", "createdAt", "approvalsRequired", "state", "approvedAt")
        SELECT 'b', q."recordId", 1, 'set', '{}', 'why', 'shop', 't', '1', '2', 'crawler', 'LOW', 'f', 'bot', now(), 1, q."state"::"ProposalState", q."approvedAt"
        FROM (VALUES ('q1', 'PENDING', NULL::timestamp), ('q2', 'PENDING', NULL), ('q3', 'APPROVED', now()), ('q4', 'EXECUTED', now()),
          ('q5', 'REJECTED', NULL)) AS q ("recordId", "state", "approvedAt");
      `);
    });

    expect(await migratePostgres(scratch.url)).toContain('20261201100000_live_counters');
    await withClient(scratch.url, async (client) => {
      const counters = async () =>
        Object.fromEntries(
          (await client.query<{ name: string; value: number }>('SELECT "name", "value" FROM "QueueCounter" WHERE "value" <> 0')).rows.map(
            (row) => [row.name, row.value],
          ),
        );
      expect(await counters()).toEqual({
        'item:PENDING': 5,
        'item:ACCEPTED': 1,
        'item:CORRECTED': 1,
        'item:REJECTED': 2,
        'item:leased': 2,
        'proposal:PENDING': 2,
        'proposal:APPROVED': 1,
        'proposal:EXECUTED': 1,
        'proposal:REJECTED': 1,
        'proposal:approved': 2,
        // Since pending_by_risk: the two PENDING proposals, both LOW.
        'proposal-pending:LOW': 2,
      });
      // Every name is there, at zero where nothing is counted yet.
      // 12 proposal states since proposal_holds (ON_HOLD), which adds its counter.
      expect((await client.query('SELECT "name" FROM "QueueCounter"')).rowCount).toBe(4 + 1 + 12 + 1 + 4);
      await client.query(
        `UPDATE "Item" SET "leaseTokenHash" = NULL, "claimedBy" = NULL, "claimedAt" = NULL, "leaseExpiresAt" = NULL WHERE "recordId" = 'l1'`,
      );
      await client.query(`UPDATE "Item" SET "status" = 'REJECTED', "reviewedBy" = 'r', "decidedAt" = now() WHERE "recordId" = 'p1'`);
      await client.query(`UPDATE "Proposal" SET "state" = 'EXECUTING' WHERE "recordId" = 'q3'`);
      await client.query(`UPDATE "Proposal" SET "state" = 'CANCELLED' WHERE "recordId" = 'q1'`);
      // Several rows in one INSERT statement are counted together (a statement-level trigger).
      await client.query(
        `INSERT INTO "Item" ("batchId", "recordId", "proposedCategory", "reason", "createdAt", "addedBy") VALUES
           ('c', 'n1', 'a', 'why', now(), 'p'), ('c', 'n2', 'b', 'why', now(), 'p')`,
      );
      expect(await counters()).toMatchObject({
        'item:PENDING': 6,
        'item:REJECTED': 3,
        'item:leased': 1,
        'proposal:EXECUTING': 1,
        'proposal:approved': 2,
        'proposal-pending:LOW': 1,
      });
      expect(await counters()).not.toHaveProperty('proposal:APPROVED');
    });
  });

  describe('the migrated database', () => {
    let scratch: ScratchDatabase;
    let icu = true;
    let db: pg.Client;
    let itemId: number;

    beforeAll(async () => {
      // A non-C default collation, so that byte-wise ordering has to come from the columns' COLLATE "C".
      scratch = await freshDatabase({ icuLocale: 'en-US' }).catch(() => {
        icu = false;
        return freshDatabase();
      });
      await migratePostgres(scratch.url);
      db = await connectPostgres(scratch.url);
      await db.query(`INSERT INTO "Category" (name, "createdAt", "createdBy") VALUES ('alpha', now(), 'admin'), ('beta', now(), 'admin')`);
      const item = await db.query<{ id: number }>(
        `INSERT INTO "Item" ("batchId", "recordId", "proposedCategory", reason, "createdAt", "addedBy")
         VALUES ('b', 'r-1', 'alpha', 'why', now(), 'proposer') RETURNING id`,
      );
      itemId = item.rows[0]?.id as number;
      await db.query(
        `INSERT INTO "Event" ("occurredAt", type, actor, "itemId", "itemVersion") VALUES (now(), 'ITEM_ADDED', 'proposer', $1, 1)`,
        [itemId],
      );
    });
    afterAll(async () => {
      await db?.end();
    });

    const insertEvent = (client: pg.Client) =>
      client.query(`INSERT INTO "Event" ("occurredAt", type, actor, "categoryName") VALUES (now(), 'CATEGORY_ADDED', 'admin', 'alpha')`);
    const eventRows = async () => (await db.query('SELECT * FROM "Event" ORDER BY id')).rows;

    it('refuses UPDATE, DELETE and TRUNCATE of events, and still accepts new ones', async () => {
      const before = await eventRows();
      expect(before.length).toBeGreaterThan(0);
      await expect(db.query(`UPDATE "Event" SET actor = 'someone else'`)).rejects.toThrow('events are append-only: UPDATE is not allowed');
      await expect(db.query('DELETE FROM "Event"')).rejects.toThrow('events are append-only: DELETE is not allowed');
      // Plain TRUNCATE is refused first by the foreign keys into Event; CASCADE reaches the trigger.
      await expect(db.query('TRUNCATE "Event"')).rejects.toThrow();
      await expect(db.query('TRUNCATE "Event" CASCADE')).rejects.toThrow('events are append-only: TRUNCATE is not allowed');
      expect(await eventRows()).toEqual(before);
      await insertEvent(db);
      expect(await eventRows()).toHaveLength(before.length + 1);
    });

    it('notifies leasehold_events once per committing transaction, only at COMMIT and never on ROLLBACK', async () => {
      const listener = await connectPostgres(scratch.url);
      const writer = await connectPostgres(scratch.url);
      try {
        const received: pg.Notification[] = [];
        listener.on('notification', (notification) => received.push(notification));
        await listener.query('LISTEN leasehold_events');

        await writer.query('BEGIN');
        await insertEvent(writer);
        await insertEvent(writer);
        await listener.query('SELECT 1');
        await sleep(200);
        expect(received).toEqual([]);
        await writer.query('COMMIT');
        await eventually(() => received.length >= 1);
        expect(received[0]).toMatchObject({ channel: 'leasehold_events', payload: '' });

        await writer.query('BEGIN');
        await insertEvent(writer);
        await writer.query('ROLLBACK');
        await insertEvent(writer);
        await eventually(() => received.length >= 2);
        await listener.query('SELECT 1');
        // Two inserts in one transaction folded into one notification; the rolled-back one sent none.
        expect(received).toHaveLength(2);
      } finally {
        await writer.end();
        await listener.end();
      }
    });

    const proposal = (parameters: string, currentValue = '1') =>
      db.query(
        `INSERT INTO "Proposal" ("batchId", "recordId", revision, action, parameters, reason, "targetSystem", "targetId", "currentValue",
           "proposedValue", "dataSource", "riskLevel", fingerprint, "proposedBy", "createdAt", "approvalsRequired")
         VALUES ('b', gen_random_uuid()::text, 1, 'set', $1, 'why', 'crm', 't-1', $2, '"x"', 'export', 'LOW', 'f', 'bot', now(), 1)`,
        [parameters, currentValue],
      );
    const apiKey = (roles: string, keyHash = 'a'.repeat(64)) =>
      db.query(
        `INSERT INTO "ApiKey" (name, roles, "keyHash", prefix, "createdAt", "createdBy") VALUES ('k', $1, $2, 'lh_', now(), 'admin')`,
        [roles, keyHash],
      );

    it('enforces the CHECK constraints of the SQLite migrations', async () => {
      const item = (batchId: string) =>
        db.query(
          `INSERT INTO "Item" ("batchId", "recordId", "proposedCategory", reason, "createdAt", "addedBy") VALUES ($1, 'r-2', 'alpha', 'why', now(), 'p')`,
          [batchId],
        );
      await expect(item('')).rejects.toThrow(/violates check constraint "Item_lengths_check"/);
      await expect(item('x'.repeat(101))).rejects.toThrow(/violates check constraint "Item_lengths_check"/);
      await expect(db.query(`UPDATE "Item" SET status = 'ACCEPTED' WHERE id = $1`, [itemId])).rejects.toThrow(/"Item_decision_check"/);
      await expect(
        db.query(
          `UPDATE "Item" SET status = 'CORRECTED', "finalCategory" = 'alpha', "reviewedBy" = 'x', "decidedAt" = now() WHERE id = $1`,
          [itemId],
        ),
      ).rejects.toThrow(/"Item_corrected_check"/);
      await expect(db.query(`UPDATE "Item" SET "claimedBy" = 'x' WHERE id = $1`, [itemId])).rejects.toThrow(/"Item_lease_check"/);

      await expect(apiKey('ADMIN,,VIEWER')).rejects.toThrow(/"ApiKey_roles_check"/);
      await expect(apiKey(',ADMIN')).rejects.toThrow(/"ApiKey_roles_check"/);
      await expect(apiKey('ADMIN,OWNER')).rejects.toThrow(/"ApiKey_roles_check"/);
      await expect(apiKey('ADMIN', 'short')).rejects.toThrow(/"ApiKey_hash_check"/);
      await apiKey('ADMIN,VIEWER');

      await expect(proposal('not json')).rejects.toThrow(/violates check constraint "Proposal_json_check"/);
      await expect(proposal('[1]')).rejects.toThrow(/"Proposal_json_check"/);
      await expect(proposal('{}', '{')).rejects.toThrow(/"Proposal_json_check"/);
      await proposal('{"field":"x"}', 'null');
    });

    it('orders and compares TEXT byte-wise, like SQLite, whatever the database locale', async () => {
      const names = ['a', 'B', '_'];
      for (const name of names)
        await db.query(`INSERT INTO "Category" (name, "createdAt", "createdBy") VALUES ($1, now(), 'admin')`, [name]);
      const byteOrder = [...names].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      expect(byteOrder).toEqual(['B', '_', 'a']);
      const ordered = await db.query<{ name: string }>(`SELECT name FROM "Category" WHERE name = ANY($1) ORDER BY name`, [names]);
      expect(ordered.rows.map((row) => row.name)).toEqual(byteOrder);
      const greater = await db.query<{ name: string }>(`SELECT name FROM "Category" WHERE name = ANY($1) AND name > 'B' ORDER BY name`, [
        names,
      ]);
      expect(greater.rows.map((row) => row.name)).toEqual(['_', 'a']);
      if (icu) {
        // The database's own collation would have ordered them differently: the COLLATE "C" is what matters.
        const localeOrder = await db.query<{ name: string }>(
          `SELECT name FROM "Category" WHERE name = ANY($1) ORDER BY name COLLATE "default"`,
          [names],
        );
        expect(localeOrder.rows.map((row) => row.name)).not.toEqual(byteOrder);
      }
      // And so does every other TEXT column.
      const notC = await db.query(
        `SELECT table_name, column_name FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name <> '_prisma_migrations' AND data_type = 'text'
           AND collation_name IS DISTINCT FROM 'C'`,
      );
      expect(notC.rows).toEqual([]);
    });
  });
});
