// Applies prisma/postgresql/migrations/*/migration.sql in order, recording them in Prisma's own
// _prisma_migrations table (PostgreSQL layout); safe to run from several processes at once.
// Same rules as the SQLite migrator in ./migrate.ts: a changed or unknown migration is refused.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { redactDatabaseUrl as redactUrl } from '../config/database-location.js';
import { MigrationError, readMigrations } from './migrate.js';

export const POSTGRES_MIGRATIONS_DIR = fileURLToPath(new URL('../../prisma/postgresql/migrations', import.meta.url));

/** Session advisory lock (scoped to the database) held while migrating, so concurrent starters queue instead of racing. */
const MIGRATION_LOCK_KEY = '7415620001';

const HISTORY_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

/**
 * The longest connecting to PostgreSQL may take (POSTGRES_CONNECT_TIMEOUT_MS for the server): a server that
 * accepts a connection and never answers (hung, or a network that drops packets) fails the attempt as
 * unavailable instead of holding a start, a read or a reconnect for ever. pg's own default is no limit.
 */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

/** A connected client; a failure to connect is reported with the redacted URL (pg's own error may carry the URL). */
export async function connectPostgres(url: string, connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    const reason = error instanceof Error ? error.message : String(error);
    throw Object.assign(new Error(`Cannot connect to PostgreSQL at ${redactUrl(url)}: ${reason}`), {
      code: (error as { code?: unknown }).code,
    });
  }
  return client;
}

/**
 * Applies every pending migration, each in its own transaction together with its history row, while
 * holding a session advisory lock: a second starter waits, then finds the work done. Returns the
 * names applied by this call. A migration therefore cannot contain statements that refuse to run in
 * a transaction (CREATE INDEX CONCURRENTLY, using an enum value added in the same migration).
 */
export async function migratePostgres(url: string, options: { dir?: string; connectTimeoutMs?: number } = {}): Promise<string[]> {
  const migrations = readMigrations(options.dir ?? POSTGRES_MIGRATIONS_DIR);
  const known = new Set(migrations.map((migration) => migration.name));
  const where = redactUrl(url);
  const client = await connectPostgres(url, options.connectTimeoutMs);
  try {
    await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    try {
      await client.query(HISTORY_TABLE);
      const appliedNow: string[] = [];
      for (const migration of migrations) {
        await client.query('BEGIN');
        try {
          const recorded = await client.query<{ checksum: string }>(
            'SELECT checksum FROM "_prisma_migrations" WHERE migration_name = $1 AND rolled_back_at IS NULL',
            [migration.name],
          );
          const row = recorded.rows[0];
          if (row) {
            if (row.checksum !== migration.checksum) {
              throw new MigrationError(`Migration ${migration.name} was changed after it was applied to ${where}.`);
            }
            await client.query('COMMIT');
            continue;
          }
          // Without parameters pg uses the simple protocol, which runs a multi-statement script.
          await client.query(migration.sql);
          await client.query(
            `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count, started_at)
             VALUES ($1, $2, now(), $3, 1, now())`,
            [randomUUID(), migration.checksum, migration.name],
          );
          await client.query('COMMIT');
          appliedNow.push(migration.name);
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {});
          throw error;
        }
      }
      const unknown = (
        await client.query<{ migration_name: string }>('SELECT migration_name FROM "_prisma_migrations" WHERE rolled_back_at IS NULL')
      ).rows.filter((row) => !known.has(row.migration_name));
      if (unknown.length > 0) {
        throw new MigrationError(
          `${where} has migrations this version does not know (${unknown.map((row) => row.migration_name).join(', ')}): it was written by a newer Leasehold.`,
        );
      }
      return appliedNow;
    } finally {
      // Also released when the session ends; this only matters if the connection stays usable.
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]).catch(() => {});
    }
  } finally {
    await client.end();
  }
}

/**
 * Whether the database at `url` is a Leasehold database: its migration history records Leasehold's
 * first PostgreSQL migration. Only reads (an empty database, or another application's, is not one).
 * Throws when it cannot connect.
 */
export async function isLeaseholdPostgres(url: string, options: { dir?: string } = {}): Promise<boolean> {
  const first = readMigrations(options.dir ?? POSTGRES_MIGRATIONS_DIR)[0];
  const client = await connectPostgres(url);
  try {
    const history = await client.query<{ found: boolean }>(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS found`);
    if (!history.rows[0]?.found || !first) return false;
    const recorded = await client.query('SELECT 1 FROM "_prisma_migrations" WHERE migration_name = $1 AND rolled_back_at IS NULL', [
      first.name,
    ]);
    return recorded.rowCount !== null && recorded.rowCount > 0;
  } finally {
    await client.end();
  }
}
