// The database itself keeps the history append-only and the Item rows consistent, whoever writes to the file.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateDatabase } from '../../src/db/migrate.js';
import { tempDatabaseFile } from '../support/server.js';

const T0 = Date.UTC(2026, 10, 30, 9, 0, 0);

describe('constraints enforced by SQLite itself', () => {
  const temp = tempDatabaseFile();
  let db: Database.Database;
  let itemId: number;

  beforeAll(() => {
    migrateDatabase(temp.file);
    db = new Database(temp.file);
    db.pragma('foreign_keys = ON');
    db.prepare('INSERT INTO "Category" (name, createdAt, createdBy) VALUES (?, ?, ?)').run('alpha', T0, 'admin');
    db.prepare('INSERT INTO "Category" (name, createdAt, createdBy) VALUES (?, ?, ?)').run('beta', T0, 'admin');
    itemId = Number(
      db
        .prepare('INSERT INTO "Item" (batchId, recordId, proposedCategory, reason, createdAt, addedBy) VALUES (?, ?, ?, ?, ?, ?)')
        .run('b', 'r-1', 'alpha', 'why', T0, 'proposer').lastInsertRowid,
    );
    db.prepare('INSERT INTO "Event" (occurredAt, type, actor, itemId, itemVersion, details) VALUES (?, ?, ?, ?, ?, ?)').run(
      T0,
      'ITEM_ADDED',
      'proposer',
      itemId,
      1,
      '{}',
    );
  });
  afterAll(() => {
    db.close();
    temp.cleanup();
  });

  const eventRows = () => db.prepare('SELECT * FROM "Event" ORDER BY id').all();

  it('refuses UPDATE of an event', () => {
    const before = eventRows();
    expect(before).toHaveLength(1);
    expect(() => db.prepare(`UPDATE "Event" SET actor = 'someone else'`).run()).toThrow('events are append-only: UPDATE is not allowed');
    expect(() => db.prepare('UPDATE "Event" SET details = ? WHERE id = ?').run('{"token":"x"}', 1)).toThrow(
      'events are append-only: UPDATE is not allowed',
    );
    expect(eventRows()).toEqual(before);
  });

  it('refuses DELETE of an event, even inside a transaction that tries to commit', () => {
    const before = eventRows();
    expect(() => db.prepare('DELETE FROM "Event"').run()).toThrow('events are append-only: DELETE is not allowed');
    const removeAll = db.transaction(() => {
      db.prepare('INSERT INTO "Event" (occurredAt, type, actor, details) VALUES (?, ?, ?, ?)').run(T0, 'CATEGORY_ADDED', 'admin', '{}');
      db.prepare('DELETE FROM "Event" WHERE id = 1').run();
    });
    expect(() => removeAll()).toThrow('events are append-only: DELETE is not allowed');
    expect(eventRows()).toEqual(before);
  });

  it('still accepts new events (append-only, not read-only)', () => {
    const before = eventRows().length;
    db.prepare('INSERT INTO "Event" (occurredAt, type, actor, categoryName, details) VALUES (?, ?, ?, ?, ?)').run(
      T0,
      'CATEGORY_ADDED',
      'admin',
      'alpha',
      '{}',
    );
    expect(eventRows()).toHaveLength(before + 1);
  });

  const update =
    (sql: string, ...params: unknown[]) =>
    () =>
      db.prepare(`UPDATE "Item" SET ${sql} WHERE id = ?`).run(...params, itemId);

  it('refuses an Item whose status and decision columns disagree', () => {
    expect(update(`status = 'ACCEPTED'`)).toThrow(/CHECK constraint failed: Item_decision_check/);
    expect(update(`status = 'ACCEPTED', reviewedBy = 'x', decidedAt = ?`, T0)).toThrow(/CHECK constraint failed: Item_decision_check/);
    expect(update(`finalCategory = 'alpha'`)).toThrow(/CHECK constraint failed: Item_decision_check/);
    expect(update(`status = 'REJECTED', finalCategory = 'alpha', reviewedBy = 'x', decidedAt = ?`, T0)).toThrow(
      /CHECK constraint failed: Item_decision_check/,
    );
    expect(update(`status = 'DONE'`)).toThrow(/CHECK constraint failed: Item_status_check/);
    expect(update(`status = 'ACCEPTED', finalCategory = 'beta', reviewedBy = 'x', decidedAt = ?`, T0)).toThrow(
      /CHECK constraint failed: Item_accepted_check/,
    );
    expect(update(`status = 'CORRECTED', finalCategory = 'alpha', reviewedBy = 'x', decidedAt = ?`, T0)).toThrow(
      /CHECK constraint failed: Item_corrected_check/,
    );
    expect(update(`recordId = ''`)).toThrow(/CHECK constraint failed: Item_lengths_check/);
  });

  it('refuses a half-recorded or decided lease', () => {
    expect(update(`claimedBy = 'x'`)).toThrow(/CHECK constraint failed: Item_lease_check/);
    expect(update(`leaseTokenHash = 'h', claimedBy = 'x', claimedAt = ?, leaseExpiresAt = ?`, T0, T0)).toThrow(
      /CHECK constraint failed: Item_lease_check/,
    );
    // A consistent lease is accepted …
    update(`leaseTokenHash = 'h', claimedBy = 'x', claimedAt = ?, leaseExpiresAt = ?`, T0, T0 + 300_000)();
    // … but not once the item is decided.
    expect(update(`status = 'REJECTED', reviewedBy = 'x', decidedAt = ?`, T0)).toThrow(/CHECK constraint failed: Item_lease_check/);
  });

  it('accepts a consistent decision, and refuses an unknown category by foreign key', () => {
    update(
      `status = 'CORRECTED', finalCategory = 'beta', reviewedBy = 'x', decidedAt = ?, leaseTokenHash = NULL, claimedBy = NULL, claimedAt = NULL, leaseExpiresAt = NULL`,
      T0,
    )();
    expect(db.prepare('SELECT status, finalCategory FROM "Item" WHERE id = ?').get(itemId)).toEqual({
      status: 'CORRECTED',
      finalCategory: 'beta',
    });
    expect(update(`finalCategory = 'nonexistent'`)).toThrow(/FOREIGN KEY constraint failed/);
    expect(() => db.prepare(`DELETE FROM "Category" WHERE name = 'alpha'`).run()).toThrow(/FOREIGN KEY constraint failed/);
  });
});
