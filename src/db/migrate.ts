// Applies prisma/migrations/*/migration.sql in order, recording them in Prisma's own
// _prisma_migrations table; safe to run from several processes at once.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export class MigrationError extends Error {}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/** A migration's line asking to run with foreign keys off (a table rebuild), see migrateDatabase. */
const REBUILD_MARKER = /^-- leasehold: foreign_keys off$/m;

const HISTORY_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "checksum" TEXT NOT NULL,
  "finished_at" DATETIME,
  "migration_name" TEXT NOT NULL,
  "logs" TEXT,
  "rolled_back_at" DATETIME,
  "started_at" DATETIME NOT NULL DEFAULT current_timestamp,
  "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0
)`;

/**
 * Sets the file-level pragmas (WAL persists in the file) and applies every pending
 * migration, each in its own BEGIN IMMEDIATE transaction so concurrent starters
 * queue instead of racing. Returns the names applied by this call.
 */
export function migrateDatabase(file: string, options: { busyTimeoutMs?: number; dir?: string } = {}): string[] {
  mkdirSync(path.dirname(file), { recursive: true });
  const connection = new Database(file, { timeout: options.busyTimeoutMs ?? 10_000 });
  try {
    connection.pragma('journal_mode = WAL');
    connection.pragma('foreign_keys = ON');
    connection.exec(HISTORY_TABLE);
    const migrations = readMigrations(options.dir);
    const known = new Map(migrations.map((migration) => [migration.name, migration]));
    const appliedNow: string[] = [];
    // What is applied already, read without the write lock: on a migrated file (every start but the first)
    // no write transaction is begun, so a process holding the lock (a long import, another command) does not
    // make this one wait here, where the wait is synchronous and not even Ctrl+C is heard until it ends.
    const recordedChecksums = new Map(
      (
        connection.prepare('SELECT migration_name, checksum FROM "_prisma_migrations" WHERE rolled_back_at IS NULL').all() as {
          migration_name: string;
          checksum: string;
        }[]
      ).map((row) => [row.migration_name, row.checksum]),
    );
    for (const migration of migrations) {
      const checksum = recordedChecksums.get(migration.name);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum)
          throw new MigrationError(`Migration ${migration.name} was changed after it was applied to ${file}.`);
        continue;
      }
      // A migration that rebuilds a table other tables refer to (SQLite cannot change a CHECK) runs with foreign keys
      // off, which SQLite allows only outside a transaction, and checks every reference before it commits.
      const rebuild = REBUILD_MARKER.test(migration.sql);
      if (rebuild) connection.pragma('foreign_keys = OFF');
      const apply = connection.transaction(() => {
        const recorded = connection
          .prepare('SELECT checksum, finished_at FROM "_prisma_migrations" WHERE migration_name = ? AND rolled_back_at IS NULL')
          .get(migration.name) as { checksum: string; finished_at: string | null } | undefined;
        if (recorded) {
          if (recorded.checksum !== migration.checksum) {
            throw new MigrationError(`Migration ${migration.name} was changed after it was applied to ${file}.`);
          }
          return false;
        }
        connection.exec(migration.sql);
        if (rebuild) {
          const broken = connection.pragma('foreign_key_check') as unknown[];
          if (broken.length > 0) throw new MigrationError(`Migration ${migration.name} left ${broken.length} broken references.`);
        }
        connection
          .prepare(
            `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count, started_at)
             VALUES (?, ?, current_timestamp, ?, 1, current_timestamp)`,
          )
          .run(randomUUID(), migration.checksum, migration.name);
        return true;
      });
      try {
        if (apply.immediate()) appliedNow.push(migration.name);
      } finally {
        if (rebuild) connection.pragma('foreign_keys = ON');
      }
    }
    const unknown = (
      connection.prepare('SELECT migration_name FROM "_prisma_migrations" WHERE rolled_back_at IS NULL').all() as {
        migration_name: string;
      }[]
    ).filter((row) => !known.has(row.migration_name));
    if (unknown.length > 0) {
      throw new MigrationError(
        `${file} has migrations this version does not know (${unknown.map((row) => row.migration_name).join(', ')}): it was written by a newer Leasehold.`,
      );
    }
    return appliedNow;
  } finally {
    connection.close();
  }
}

/**
 * Whether `file` is a Leasehold database: its migration history records Leasehold's first
 * migration. Opens the file read-only and changes nothing (an empty file, or seed A's database,
 * is not one). Throws SQLite's error for a file that is not a database at all.
 */
export function isLeaseholdDatabase(file: string, options: { busyTimeoutMs?: number; dir?: string } = {}): boolean {
  const first = readMigrations(options.dir)[0];
  const connection = new Database(file, { readonly: true, fileMustExist: true, timeout: options.busyTimeoutMs ?? 10_000 });
  try {
    const history = connection.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'`).get();
    if (!history || !first) return false;
    return (
      connection.prepare('SELECT 1 FROM "_prisma_migrations" WHERE migration_name = ? AND rolled_back_at IS NULL').get(first.name) !==
      undefined
    );
  } finally {
    connection.close();
  }
}
