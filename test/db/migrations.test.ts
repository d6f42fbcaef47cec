// prisma/migrations produce exactly prisma/schema.prisma, and migrateDatabase is safe to run anywhere, any number of times.
import { spawn } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { MIGRATIONS_DIR, MigrationError, migrateDatabase, readMigrations } from '../../src/db/migrate.js';
import { diffDatabaseToSchema } from '../../src/db/schema-engine.js';
import { ROOT, TSX_LOADER } from '../support/process.js';

const SCHEMA = path.join(ROOT, 'prisma', 'schema.prisma');
const MIGRATIONS = readMigrations();

const scratch = mkdtempSync(path.join(tmpdir(), 'leasehold-migrations-'));
let counter = 0;
/** A path for a database file that does not exist yet. */
function freshFile(): string {
  counter += 1;
  return path.join(scratch, `db-${counter}`, 'test.db');
}
/** A copy of the real migrations directory that a test may change. */
function copyOfMigrations(): string {
  counter += 1;
  const dir = path.join(scratch, `migrations-${counter}`);
  for (const migration of MIGRATIONS) {
    mkdirSync(path.join(dir, migration.name), { recursive: true });
    copyFileSync(path.join(MIGRATIONS_DIR, migration.name, 'migration.sql'), path.join(dir, migration.name, 'migration.sql'));
  }
  return dir;
}
function addMigration(dir: string, name: string, sql: string): void {
  mkdirSync(path.join(dir, name), { recursive: true });
  writeFileSync(path.join(dir, name, 'migration.sql'), sql);
}
function recorded(file: string): { migration_name: string; checksum: string }[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT migration_name, checksum FROM "_prisma_migrations" ORDER BY migration_name').all() as {
      migration_name: string;
      checksum: string;
    }[];
  } finally {
    db.close();
  }
}

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('migrations', () => {
  it('applied to a fresh file, produce exactly what prisma/schema.prisma describes', async () => {
    expect(MIGRATIONS.length).toBeGreaterThan(0);
    const file = freshFile();
    expect(migrateDatabase(file)).toEqual(MIGRATIONS.map((migration) => migration.name));
    const { differs, sql } = await diffDatabaseToSchema(file, SCHEMA);
    expect(sql).toContain('empty migration');
    expect(differs).toBe(false);
  });

  it('the drift check notices a database that differs from the schema', async () => {
    const file = freshFile();
    migrateDatabase(file);
    const db = new Database(file);
    db.exec('DROP INDEX "Event_itemId_id_idx"');
    db.close();
    const { differs, sql } = await diffDatabaseToSchema(file, SCHEMA);
    expect(differs).toBe(true);
    expect(sql).toContain('Event_itemId_id_idx');
  });

  it('leave the file in WAL mode and record every migration once; migrating again is a no-op', () => {
    const file = freshFile();
    migrateDatabase(file);
    const first = recorded(file);
    expect(first).toEqual(MIGRATIONS.map((migration) => ({ migration_name: migration.name, checksum: migration.checksum })));

    const db = new Database(file, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const schemaBefore = db.prepare('SELECT type, name, sql FROM sqlite_schema ORDER BY name').all();
    db.close();

    expect(migrateDatabase(file)).toEqual([]);
    expect(migrateDatabase(file)).toEqual([]);
    expect(recorded(file)).toEqual(first);
    const again = new Database(file, { readonly: true });
    expect(again.prepare('SELECT type, name, sql FROM sqlite_schema ORDER BY name').all()).toEqual(schemaBefore);
    again.close();
  });

  it('enforce foreign keys on the writer connection', async () => {
    const file = freshFile();
    const db = await openDatabase({ file, synchronous: 'NORMAL' });
    try {
      const pragma = await db.write((tx) => tx.$queryRawUnsafe<{ foreign_keys: bigint | number }[]>('PRAGMA foreign_keys'));
      expect(Number(pragma[0]?.foreign_keys)).toBe(1);
      await expect(
        db.write((tx) =>
          tx.item.create({
            data: { batchId: 'b', recordId: 'r', proposedCategory: 'no-such-category', reason: 'why', createdAt: new Date(), addedBy: 'p' },
          }),
        ),
      ).rejects.toThrow(/foreign key/i);
      expect(await db.read.item.count()).toBe(0);
    } finally {
      await db.close();
    }
  });

  it('two processes migrating a new file at the same moment both succeed, and the work is done once', async () => {
    const file = freshFile();
    mkdirSync(path.dirname(file), { recursive: true });
    // Hold an exclusive lock on the (new, empty) file so both migrators start and queue behind it.
    const blocker = new Database(file);
    blocker.exec('BEGIN EXCLUSIVE');
    const script = `
      import { migrateDatabase } from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'src/db/migrate.ts')).href)};
      process.stdout.write('waiting\\n');
      try {
        process.stdout.write(JSON.stringify({ applied: migrateDatabase(process.env.LEASEHOLD_TEST_DB) }) + '\\n');
      } catch (error) {
        process.stdout.write(JSON.stringify({ error: String(error) }) + '\\n');
        process.exitCode = 1;
      }`;
    const migrator = () => {
      const child = spawn(process.execPath, ['--import', TSX_LOADER, '--input-type=module', '-e', script], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', LEASEHOLD_TEST_DB: file },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let output = '';
      const waiting = new Promise<void>((resolve) => {
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes('waiting\n')) resolve();
        });
      });
      const done = new Promise<{ code: number | null; lines: string[] }>((resolve) =>
        child.once('exit', (code) => resolve({ code, lines: output.trim().split('\n') })),
      );
      return { waiting, done };
    };
    const first = migrator();
    const second = migrator();
    try {
      await Promise.all([first.waiting, second.waiting]);
    } finally {
      blocker.exec('COMMIT');
      blocker.close();
    }
    const results = await Promise.all([first.done, second.done]);
    // (Seen failing once, in a clean clone under load, without its output: the message now carries it.)
    expect(
      results.map((result) => result.code),
      JSON.stringify(results),
    ).toEqual([0, 0]);
    const applied = results.map((result) => (JSON.parse(result.lines.at(-1) as string) as { applied: string[] }).applied);
    // Exactly one of them applied each migration; the other found it done.
    expect(applied.flat().sort()).toEqual(MIGRATIONS.map((migration) => migration.name).sort());
    expect(recorded(file).map((row) => row.migration_name)).toEqual(MIGRATIONS.map((migration) => migration.name));
    expect(migrateDatabase(file)).toEqual([]);
  });

  it('`npm run db:migrate` creates and migrates the DATABASE_URL file and says what it did', async () => {
    const file = freshFile();
    const run = () =>
      new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', TSX_LOADER, path.join(ROOT, 'src', 'db', 'migrate-cli.ts')], {
          cwd: ROOT,
          env: { ...process.env, DATABASE_URL: `file:${file}` },
        });
        let stdout = '';
        child.stdout.on('data', (chunk) => {
          stdout += String(chunk);
        });
        child.on('close', (code) => resolve({ code, stdout }));
      });
    const first = await run();
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      database: file,
      applied: MIGRATIONS.map((migration) => migration.name),
      message: 'migrations applied',
    });
    expect(existsSync(file)).toBe(true);
    const second = await run();
    expect(JSON.parse(second.stdout)).toMatchObject({ applied: [], message: 'already up to date' });
  });

  it('refuse a migration whose SQL changed after it was applied', async () => {
    const dir = copyOfMigrations();
    const file = freshFile();
    migrateDatabase(file, { dir });
    const last = MIGRATIONS.at(-1)?.name as string;
    appendFileSync(path.join(dir, last, 'migration.sql'), '\n-- edited after release\n');

    expect(() => migrateDatabase(file, { dir })).toThrow(MigrationError);
    expect(() => migrateDatabase(file, { dir })).toThrow(`Migration ${last} was changed after it was applied`);
    // The history was not touched.
    expect(recorded(file)).toEqual(MIGRATIONS.map((migration) => ({ migration_name: migration.name, checksum: migration.checksum })));
  });

  it('refuse a database that records a migration this version does not know (written by a newer Leasehold)', async () => {
    const dir = copyOfMigrations();
    addMigration(dir, '29991231000000_future', 'CREATE TABLE "Future" ("id" INTEGER NOT NULL PRIMARY KEY);');
    const file = freshFile();
    expect(migrateDatabase(file, { dir })).toHaveLength(MIGRATIONS.length + 1);

    expect(() => migrateDatabase(file)).toThrow(MigrationError);
    expect(() => migrateDatabase(file)).toThrow(/29991231000000_future.*newer Leasehold/);
    await expect(openDatabase({ file })).rejects.toThrow(MigrationError);
  });

  it('upgrade a file with data to live counters that equal a recount, kept by triggers from then on', () => {
    // The file as the release before live_counters left it, with items and proposals in every kind of state.
    counter += 1;
    const dir = path.join(scratch, `migrations-${counter}`);
    for (const migration of MIGRATIONS.filter((candidate) => candidate.name < '20261201100000_live_counters')) {
      mkdirSync(path.join(dir, migration.name), { recursive: true });
      copyFileSync(path.join(MIGRATIONS_DIR, migration.name, 'migration.sql'), path.join(dir, migration.name, 'migration.sql'));
    }
    const file = freshFile();
    migrateDatabase(file, { dir });
    const before = new Database(file);
    before.exec(`
      INSERT INTO "Category" ("name", "createdAt", "createdBy") VALUES ('a', 0, 'admin'), ('b', 0, 'admin');
      INSERT INTO "Item" ("batchId", "recordId", "proposedCategory", "reason", "createdAt", "addedBy") VALUES
        ('b', 'p1', 'a', 'why', 1, 'p'), ('b', 'p2', 'a', 'why', 1, 'p'), ('b', 'p3', 'a', 'why', 1, 'p');
      INSERT INTO "Item" ("batchId", "recordId", "proposedCategory", "reason", "createdAt", "addedBy", "leaseTokenHash", "claimedBy", "claimedAt", "leaseExpiresAt") VALUES
        ('b', 'l1', 'a', 'why', 1, 'p', 'h1', 'r', 2, 3), ('b', 'l2', 'a', 'why', 1, 'p', 'h2', 'r', 2, 3);
      INSERT INTO "Item" ("batchId", "recordId", "proposedCategory", "reason", "status", "finalCategory", "reviewedBy", "decidedAt", "createdAt", "addedBy") VALUES
        ('b', 'd1', 'a', 'why', 'ACCEPTED', 'a', 'r', 5, 1, 'p'), ('b', 'd2', 'a', 'why', 'CORRECTED', 'b', 'r', 5, 1, 'p'),
        ('b', 'd3', 'a', 'why', 'REJECTED', NULL, 'r', 5, 1, 'p'), ('b', 'd4', 'a', 'why', 'REJECTED', NULL, 'r', 5, 1, 'p');
    `);
    const proposal = before.prepare(
      `INSERT INTO "Proposal" ("batchId", "recordId", "revision", "action", "parameters", "reason", "targetSystem", "targetId", "currentValue",
         "proposedValue", "dataSource", "riskLevel", "fingerprint", "proposedBy", "createdAt", "approvalsRequired", "state", "approvedAt")
       VALUES ('b', ?, 1, 'set', '{}', 'why', 'shop', 't', '1', '2', 'crawler', 'LOW', 'f', 'bot', 1, 1, ?, ?)`,
    );
    for (const [recordId, state, approvedAt] of [
      ['q1', 'PENDING', null],
      ['q2', 'PENDING', null],
      ['q3', 'APPROVED', 4],
      ['q4', 'EXECUTED', 4],
      ['q5', 'REJECTED', null],
    ] as const) {
      proposal.run(recordId, state, approvedAt);
    }
    before.close();

    expect(migrateDatabase(file)).toContain('20261201100000_live_counters');
    const after = new Database(file);
    const counters = () =>
      Object.fromEntries(
        (
          after.prepare('SELECT "name", "value" FROM "QueueCounter" WHERE "value" <> 0 ORDER BY "name"').all() as {
            name: string;
            value: number;
          }[]
        ).map((row) => [row.name, row.value]),
      );
    expect(counters()).toEqual({
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
    expect(after.prepare('SELECT count(*) FROM "QueueCounter"').pluck().get()).toBe(4 + 1 + 12 + 1 + 4);
    after.exec(
      `UPDATE "Item" SET "leaseTokenHash" = NULL, "claimedBy" = NULL, "claimedAt" = NULL, "leaseExpiresAt" = NULL WHERE "recordId" = 'l1'`,
    );
    after.exec(`UPDATE "Item" SET "status" = 'REJECTED', "reviewedBy" = 'r', "decidedAt" = 6 WHERE "recordId" = 'p1'`);
    after.exec(`UPDATE "Proposal" SET "state" = 'EXECUTING' WHERE "recordId" = 'q3'`);
    after.exec(`UPDATE "Proposal" SET "state" = 'CANCELLED' WHERE "recordId" = 'q1'`);
    expect(counters()).toMatchObject({
      'item:PENDING': 4,
      'item:REJECTED': 3,
      'item:leased': 1,
      'proposal:EXECUTING': 1,
      'proposal:approved': 2,
      'proposal-pending:LOW': 1,
    });
    expect(counters()).not.toHaveProperty('proposal:APPROVED');
    after.close();
  });

  it('roll a failing migration back completely, recording nothing for it', () => {
    const dir = copyOfMigrations();
    addMigration(dir, '29991231000000_broken', 'CREATE TABLE "Half" ("id" INTEGER PRIMARY KEY);\nINSERT INTO "NoSuchTable" VALUES (1);');
    const file = freshFile();
    expect(() => migrateDatabase(file, { dir })).toThrow(/no such table: NoSuchTable/);
    expect(recorded(file).map((row) => row.migration_name)).toEqual(MIGRATIONS.map((migration) => migration.name));
    const db = new Database(file, { readonly: true });
    expect(db.prepare(`SELECT name FROM sqlite_schema WHERE name = 'Half'`).all()).toEqual([]);
    db.close();
    expect(existsSync(file)).toBe(true);
  });

  it('upgrade a file with API keys to the longer roles list (the table rebuilt), keeping every key, its id and its CHECKs', () => {
    counter += 1;
    const dir = path.join(scratch, `migrations-${counter}`);
    for (const migration of MIGRATIONS.filter((candidate) => candidate.name < '20261202043000_sensitive_reader_role')) {
      mkdirSync(path.join(dir, migration.name), { recursive: true });
      copyFileSync(path.join(MIGRATIONS_DIR, migration.name, 'migration.sql'), path.join(dir, migration.name, 'migration.sql'));
    }
    const file = freshFile();
    migrateDatabase(file, { dir });
    const insert = `INSERT INTO "ApiKey" ("name", "roles", "keyHash", "prefix", "createdAt", "createdBy", "revokedAt", "revokedBy") VALUES (?, ?, ?, 'lhk_x', 1, 'admin', ?, ?)`;
    const before = new Database(file);
    before.prepare(insert).run('ada', 'ADMIN', 'a'.repeat(64), null, null);
    before.prepare(insert).run('rita', 'REVIEWER,VIEWER', 'b'.repeat(64), 5, 'ada');
    expect(() => before.prepare(insert).run('sam', 'SENSITIVE_READER,VIEWER', 'c'.repeat(64), null, null)).toThrow(
      /CHECK constraint failed/,
    );
    const rows = before.prepare('SELECT * FROM "ApiKey" ORDER BY "id"').all();
    before.close();

    expect(migrateDatabase(file)).toContain('20261202043000_sensitive_reader_role');
    const after = new Database(file);
    expect(after.prepare('SELECT * FROM "ApiKey" ORDER BY "id"').all()).toEqual(rows);
    after.prepare(insert).run('sam', 'SENSITIVE_READER,VIEWER', 'c'.repeat(64), null, null);
    after.prepare(insert).run('rex', 'RECONCILER', 'd'.repeat(64), null, null);
    expect(after.prepare(`SELECT "id" FROM "ApiKey" WHERE "name" = 'rex'`).get()).toEqual({ id: 4 });
    for (const [roles, hash] of [
      ['ADMIN,,VIEWER', 'e'],
      ['SENSITIVE,VIEWER', 'f'],
      ['READER', 'g'],
    ] as const) {
      expect(() => after.prepare(insert).run('x', roles, hash.repeat(64), null, null), roles).toThrow(
        /CHECK constraint failed: ApiKey_roles_check/,
      );
    }
    expect(() => after.prepare(insert).run('y', 'VIEWER', 'a'.repeat(64), null, null)).toThrow(/UNIQUE constraint failed: ApiKey.keyHash/);
    expect(() => after.prepare(insert).run('z', 'VIEWER', 'h'.repeat(64), 5, null)).toThrow(/ApiKey_revoked_check/);
    expect(after.prepare(`SELECT name FROM sqlite_schema WHERE tbl_name = 'ApiKey' AND type = 'index' ORDER BY name`).all()).toEqual([
      { name: 'ApiKey_keyHash_key' },
      { name: 'ApiKey_name_idx' },
    ]);
    after.close();
  });
  it('rebuild Proposal for ON_HOLD with foreign keys off, keeping every row and reference, the counters and their triggers', () => {
    // The file as the release before proposal_holds left it: proposals (one a revision of another) that events,
    // approvals and attempts refer to. The rebuild drops the table they refer to: only with foreign keys off.
    counter += 1;
    const dir = path.join(scratch, `migrations-${counter}`);
    for (const migration of MIGRATIONS.filter((candidate) => candidate.name < '20261202060500_proposal_holds')) {
      mkdirSync(path.join(dir, migration.name), { recursive: true });
      copyFileSync(path.join(MIGRATIONS_DIR, migration.name, 'migration.sql'), path.join(dir, migration.name, 'migration.sql'));
    }
    const file = freshFile();
    migrateDatabase(file, { dir });
    const before = new Database(file);
    const proposal = before.prepare(
      `INSERT INTO "Proposal" ("batchId", "recordId", "revision", "previousId", "action", "parameters", "reason", "targetSystem", "targetId",
         "currentValue", "proposedValue", "dataSource", "riskLevel", "fingerprint", "proposedBy", "createdAt", "approvalsRequired", "state")
       VALUES ('b', ?, ?, ?, 'set', '{}', 'why', 'shop', 't', '1', '2', 'crawler', 'LOW', 'f', 'bot', 1, 1, ?)`,
    );
    proposal.run('r', 1, null, 'STALE');
    proposal.run('r', 2, 1, 'PENDING');
    proposal.run('u', 1, null, 'OUTCOME_UNKNOWN');
    before.exec(`
      INSERT INTO "Event" ("occurredAt", "type", "actor", "proposalId", "details") VALUES (1, 'PROPOSAL_SUBMITTED', 'bot', 1, '{}'), (1, 'PROPOSAL_SUBMITTED', 'bot', 2, '{}');
      INSERT INTO "ProposalApproval" ("proposalId", "approver", "approvedAt") VALUES (2, 'rei', 2);
      INSERT INTO "ExecutionAttempt" ("proposalId", "operationId", "number", "executor", "startedAt") VALUES (3, 'op', 1, 'exe', 3);
    `);
    const proposals = before.prepare('SELECT "id", "previousId", "state", "version" FROM "Proposal" ORDER BY "id"').all();
    before.close();

    expect(migrateDatabase(file)).toContain('20261202060500_proposal_holds');
    const after = new Database(file);
    after.pragma('foreign_keys = ON');
    expect(after.prepare('SELECT "id", "previousId", "state", "version" FROM "Proposal" ORDER BY "id"').all()).toEqual(proposals);
    expect(after.pragma('foreign_key_check')).toEqual([]);
    expect(after.prepare('SELECT count(*) AS n FROM "Event" WHERE "proposalId" IS NOT NULL').get()).toEqual({ n: 2 });
    // Already unknown at the upgrade: dated then, for automatic escalation.
    expect(after.prepare(`SELECT "outcomeUnknownAt" IS NOT NULL AS dated FROM "Proposal" WHERE "id" = 3`).get()).toEqual({ dated: 1 });
    // ON_HOLD is a state now, only with where it was held from; the counters follow it through the recreated triggers.
    const count = (name: string) =>
      (after.prepare('SELECT "value" FROM "QueueCounter" WHERE "name" = ?').get(name) as { value: number }).value;
    expect([count('proposal:PENDING'), count('proposal:ON_HOLD')]).toEqual([1, 0]);
    expect(() => after.prepare(`UPDATE "Proposal" SET "state" = 'ON_HOLD' WHERE "id" = 2`).run()).toThrow(/CHECK constraint failed/);
    expect(() => after.prepare(`UPDATE "Proposal" SET "state" = 'ON_HOLD', "heldFrom" = 'EXECUTING' WHERE "id" = 2`).run()).toThrow(
      /CHECK constraint failed/,
    );
    after.prepare(`UPDATE "Proposal" SET "state" = 'ON_HOLD', "heldFrom" = 'PENDING' WHERE "id" = 2`).run();
    expect([count('proposal:PENDING'), count('proposal:ON_HOLD')]).toEqual([0, 1]);
    // References are still enforced: a proposal others refer to cannot go.
    expect(() => after.prepare(`DELETE FROM "Proposal" WHERE "id" = 1`).run()).toThrow(/FOREIGN KEY constraint failed/);
    after.close();
  });

  it('roll back a migration run with foreign keys off that leaves a broken reference, recording nothing for it', () => {
    const dir = copyOfMigrations();
    addMigration(dir, '29991231000000_breaks_references', '-- leasehold: foreign_keys off\nDELETE FROM "Category";');
    const file = freshFile();
    migrateDatabase(file, { dir: copyOfMigrations() });
    const db = new Database(file);
    db.exec(`INSERT INTO "Category" ("name", "createdAt", "createdBy") VALUES ('a', 0, 'admin');
      INSERT INTO "Item" ("batchId", "recordId", "proposedCategory", "reason", "createdAt", "addedBy") VALUES ('b', 'r', 'a', 'why', 1, 'p');`);
    db.close();
    expect(() => migrateDatabase(file, { dir })).toThrow(/29991231000000_breaks_references left 1 broken references/);
    expect(recorded(file).map((row) => row.migration_name)).toEqual(MIGRATIONS.map((migration) => migration.name));
    const after = new Database(file, { readonly: true });
    expect(after.prepare('SELECT "name" FROM "Category"').all()).toEqual([{ name: 'a' }]);
    after.close();
  });
});
