// Test helpers for database tests: sequencing concurrent work by hand (without timers) and a temp database.
import { afterAll, beforeAll } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { tempDatabaseFile } from './server.js';

/** A promise plus the function that resolves it: lets a test decide when work may go on. */
export function gate<T = void>(): { promise: Promise<T>; open(value: T): void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** A category row for direct writes in database tests. */
export const categoryRow = (name: string) => ({ name, createdAt: new Date(Date.UTC(2026, 10, 30)), createdBy: 'test' });

/** A fresh migrated database file for one describe block, opened before its tests and removed after. */
export function useTempDatabase(): { readonly db: Database } {
  const temp = tempDatabaseFile();
  let db: Database | null = null;
  beforeAll(async () => {
    db = await openDatabase({ file: temp.file, synchronous: 'NORMAL' });
  });
  afterAll(async () => {
    await db?.close();
    temp.cleanup();
  });
  return {
    get db() {
      if (!db) throw new Error('the database opens in beforeAll');
      return db;
    },
  };
}
