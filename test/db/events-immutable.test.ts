// The database itself keeps the history append-only and the Item rows consistent, whoever writes to it:
// these statements go to the database on a connection of their own (better-sqlite3 on the SQLite file,
// pg on the PostgreSQL database), past every check of the service.
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateDatabase } from '../../src/db/migrate.js';
import { numberPlaceholders } from '../../src/db/tx-sql.js';
import { BACKEND, type TestDatabase, testDatabase } from '../support/database.js';

const T0 = new Date(Date.UTC(2026, 10, 30, 9, 0, 0));
const at = (ms: number) => new Date(T0.getTime() + ms);

type Param = string | number | Date | null;

/** A plain connection to the test database: `?` placeholders, Date values for times. */
interface RawConnection {
  all(sql: string, ...params: Param[]): Promise<unknown[]>;
  run(sql: string, ...params: Param[]): Promise<void>;
  /** BEGIN, `work`, COMMIT; ROLLBACK and rethrow when `work` fails. */
  transaction(work: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

function sqliteConnection(file: string): RawConnection {
  migrateDatabase(file);
  const db = new Database(file);
  db.pragma('foreign_keys = ON');
  // As the service stores them: DATETIME as epoch milliseconds.
  const values = (params: Param[]) => params.map((value) => (value instanceof Date ? value.getTime() : value));
  const connection: RawConnection = {
    async all(sql, ...params) {
      const statement = db.prepare(sql);
      if (statement.reader) return statement.all(...values(params));
      statement.run(...values(params));
      return [];
    },
    async run(sql, ...params) {
      db.prepare(sql).run(...values(params));
    },
    async transaction(work) {
      db.exec('BEGIN');
      try {
        await work();
        db.exec('COMMIT');
      } catch (error) {
        db.exec('ROLLBACK');
        throw error;
      }
    },
    async close() {
      db.close();
    },
  };
  return connection;
}

async function postgresConnection(url: string): Promise<RawConnection> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // timestamp(3) columns hold UTC wall time (Prisma's convention).
  const values = (params: Param[]) => params.map((value) => (value instanceof Date ? value.toISOString().replace('Z', '') : value));
  const connection: RawConnection = {
    async all(sql, ...params) {
      return (await client.query(numberPlaceholders(sql), values(params))).rows;
    },
    async run(sql, ...params) {
      await client.query(numberPlaceholders(sql), values(params));
    },
    async transaction(work) {
      await client.query('BEGIN');
      try {
        await work();
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    },
    async close() {
      await client.end();
    },
  };
  return connection;
}

/** How each backend names a violated CHECK constraint. */
const checkFailed = (name: string) =>
  BACKEND === 'sqlite' ? new RegExp(`CHECK constraint failed: ${name}`) : new RegExp(`violates check constraint "${name}"`);
const foreignKeyFailed = BACKEND === 'sqlite' ? /FOREIGN KEY constraint failed/ : /violates foreign key constraint/;

describe(`constraints enforced by the database itself (${BACKEND})`, () => {
  let database: TestDatabase;
  let db: RawConnection;
  let itemId: number;

  beforeAll(async () => {
    database = await testDatabase();
    const location = database.location;
    db = location.dialect === 'sqlite' ? sqliteConnection(location.file) : await postgresConnection(location.url);
    await db.run('INSERT INTO "Category" ("name", "createdAt", "createdBy") VALUES (?, ?, ?)', 'alpha', T0, 'admin');
    await db.run('INSERT INTO "Category" ("name", "createdAt", "createdBy") VALUES (?, ?, ?)', 'beta', T0, 'admin');
    const [item] = (await db.all(
      'INSERT INTO "Item" ("batchId", "recordId", "proposedCategory", "reason", "createdAt", "addedBy") VALUES (?, ?, ?, ?, ?, ?) RETURNING "id"',
      'b',
      'r-1',
      'alpha',
      'why',
      T0,
      'proposer',
    )) as { id: number }[];
    itemId = Number(item?.id);
    await db.run(
      'INSERT INTO "Event" ("occurredAt", "type", "actor", "itemId", "itemVersion", "details") VALUES (?, ?, ?, ?, ?, ?)',
      T0,
      'ITEM_ADDED',
      'proposer',
      itemId,
      1,
      '{}',
    );
  });
  afterAll(async () => {
    await db?.close();
    await database?.cleanup();
  });

  const eventRows = () => db.all('SELECT * FROM "Event" ORDER BY "id"');

  it('refuses UPDATE of an event', async () => {
    const before = await eventRows();
    expect(before).toHaveLength(1);
    await expect(db.run(`UPDATE "Event" SET "actor" = 'someone else'`)).rejects.toThrow('events are append-only: UPDATE is not allowed');
    await expect(db.run('UPDATE "Event" SET "details" = ? WHERE "id" = ?', '{"token":"x"}', 1)).rejects.toThrow(
      'events are append-only: UPDATE is not allowed',
    );
    expect(await eventRows()).toEqual(before);
  });

  it('refuses DELETE of an event, even inside a transaction that tries to commit', async () => {
    const before = await eventRows();
    await expect(db.run('DELETE FROM "Event"')).rejects.toThrow('events are append-only: DELETE is not allowed');
    const removeAll = db.transaction(async () => {
      await db.run(
        'INSERT INTO "Event" ("occurredAt", "type", "actor", "details") VALUES (?, ?, ?, ?)',
        T0,
        'CATEGORY_ADDED',
        'admin',
        '{}',
      );
      await db.run('DELETE FROM "Event" WHERE "id" = 1');
    });
    await expect(removeAll).rejects.toThrow('events are append-only: DELETE is not allowed');
    if (BACKEND === 'postgresql') {
      // PostgreSQL's TRUNCATE skips row triggers; a statement trigger refuses it too (SQLite has no TRUNCATE).
      // Plain TRUNCATE is refused first by the foreign keys into Event (webhook deliveries); CASCADE, which
      // would empty those tables too, reaches the trigger.
      await expect(db.run('TRUNCATE "Event"')).rejects.toThrow();
      await expect(db.run('TRUNCATE "Event" CASCADE')).rejects.toThrow('events are append-only: TRUNCATE is not allowed');
    }
    expect(await eventRows()).toEqual(before);
  });

  it('still accepts new events (append-only, not read-only)', async () => {
    const before = (await eventRows()).length;
    await db.run(
      'INSERT INTO "Event" ("occurredAt", "type", "actor", "categoryName", "details") VALUES (?, ?, ?, ?, ?)',
      T0,
      'CATEGORY_ADDED',
      'admin',
      'alpha',
      '{}',
    );
    expect(await eventRows()).toHaveLength(before + 1);
  });

  const update = (sql: string, ...params: Param[]) => db.run(`UPDATE "Item" SET ${sql} WHERE "id" = ?`, ...params, itemId);

  it('refuses an Item whose status and decision columns disagree', async () => {
    await expect(update(`"status" = 'ACCEPTED'`)).rejects.toThrow(checkFailed('Item_decision_check'));
    await expect(update(`"status" = 'ACCEPTED', "reviewedBy" = 'x', "decidedAt" = ?`, T0)).rejects.toThrow(
      checkFailed('Item_decision_check'),
    );
    await expect(update(`"finalCategory" = 'alpha'`)).rejects.toThrow(checkFailed('Item_decision_check'));
    await expect(update(`"status" = 'REJECTED', "finalCategory" = 'alpha', "reviewedBy" = 'x', "decidedAt" = ?`, T0)).rejects.toThrow(
      checkFailed('Item_decision_check'),
    );
    // An unknown status: SQLite's TEXT column has the CHECK; PostgreSQL's column is of the enum type
    // ItemStatus, which refuses the value before any CHECK runs.
    await expect(update(`"status" = 'DONE'`)).rejects.toThrow(
      BACKEND === 'sqlite' ? checkFailed('Item_status_check') : /invalid input value for enum "ItemStatus": "DONE"/,
    );
    await expect(update(`"status" = 'ACCEPTED', "finalCategory" = 'beta', "reviewedBy" = 'x', "decidedAt" = ?`, T0)).rejects.toThrow(
      checkFailed('Item_accepted_check'),
    );
    await expect(update(`"status" = 'CORRECTED', "finalCategory" = 'alpha', "reviewedBy" = 'x', "decidedAt" = ?`, T0)).rejects.toThrow(
      checkFailed('Item_corrected_check'),
    );
    await expect(update(`"recordId" = ''`)).rejects.toThrow(checkFailed('Item_lengths_check'));
  });

  it('refuses a half-recorded or decided lease', async () => {
    await expect(update(`"claimedBy" = 'x'`)).rejects.toThrow(checkFailed('Item_lease_check'));
    await expect(update(`"leaseTokenHash" = 'h', "claimedBy" = 'x', "claimedAt" = ?, "leaseExpiresAt" = ?`, T0, T0)).rejects.toThrow(
      checkFailed('Item_lease_check'),
    );
    // A consistent lease is accepted …
    await update(`"leaseTokenHash" = 'h', "claimedBy" = 'x', "claimedAt" = ?, "leaseExpiresAt" = ?`, T0, at(300_000));
    // … but not once the item is decided.
    await expect(update(`"status" = 'REJECTED', "reviewedBy" = 'x', "decidedAt" = ?`, T0)).rejects.toThrow(checkFailed('Item_lease_check'));
  });

  it('accepts a consistent decision, and refuses an unknown category by foreign key', async () => {
    await update(
      `"status" = 'CORRECTED', "finalCategory" = 'beta', "reviewedBy" = 'x', "decidedAt" = ?, "leaseTokenHash" = NULL, "claimedBy" = NULL, "claimedAt" = NULL, "leaseExpiresAt" = NULL`,
      T0,
    );
    expect(await db.all('SELECT "status", "finalCategory" FROM "Item" WHERE "id" = ?', itemId)).toEqual([
      { status: 'CORRECTED', finalCategory: 'beta' },
    ]);
    await expect(update(`"finalCategory" = 'nonexistent'`)).rejects.toThrow(foreignKeyFailed);
    await expect(db.run(`DELETE FROM "Category" WHERE "name" = 'alpha'`)).rejects.toThrow(foreignKeyFailed);
  });
});
