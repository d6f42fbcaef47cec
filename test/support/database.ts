// The database a test runs on. `npm test` runs every file twice: once on SQLite (a temp file) and once
// on PostgreSQL (a fresh database cloned from a migrated template), chosen by LEASEHOLD_TEST_BACKEND,
// which vitest.config.ts sets per project. See test/support/postgres-setup.ts.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { DatabaseLocation, WriteMode } from '../../src/config/database-location.js';

export type Backend = DatabaseLocation['dialect'];

export const BACKEND: Backend = process.env.LEASEHOLD_TEST_BACKEND === 'postgresql' ? 'postgresql' : 'sqlite';

/**
 * PostgreSQL's write mode the tests run in (decision 0009): the project `postgresql-sharded` sets
 * PG_WRITE_MODE for the files that must hold in both modes; every other file runs `serialized`.
 */
export const WRITE_MODE: WriteMode = process.env.PG_WRITE_MODE === 'sharded' ? 'sharded' : 'serialized';

/** The write mode for a child process's environment (a server, the fake-clock server). */
export const WRITE_MODE_ENV: Record<string, string> = { PG_WRITE_MODE: WRITE_MODE };

/**
 * This run's databases share a prefix (vitest.config.ts picks the run id), so runs side by side on one
 * server never drop each other's databases.
 */
export const RUN_PREFIX = `leasehold_test_${process.env.LEASEHOLD_TEST_RUN ?? 'local'}_`;

/** The database every test database is cloned from (migrated once per run by the global setup). */
export const TEMPLATE_DATABASE = `${RUN_PREFIX}template`;

export interface TestDatabase {
  location: DatabaseLocation;
  /** DATABASE_URL for a child process (a server or the bench) on the same database. */
  url: string;
  /** Drops the database (PostgreSQL) or deletes the file and its directory (SQLite). */
  cleanup(): Promise<void>;
}

export function adminUrl(): string {
  const url = process.env.LEASEHOLD_TEST_POSTGRES_URL;
  if (!url) throw new Error('LEASEHOLD_TEST_POSTGRES_URL is not set: the PostgreSQL tests need a server (see README, Tests).');
  return url;
}

export function databaseUrl(admin: string, name: string): string {
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `work` on a short-lived connection to the server's admin database. */
export function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  return withPostgres(adminUrl(), work);
}

/** Runs `work` on a short-lived plain connection (not through Leasehold's code) to the PostgreSQL database `url`. */
export async function withPostgres<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh, migrated PostgreSQL database of its own; with `empty`, a database with nothing in it yet
 * (not even the migrations), as an operator would create for a first start.
 */
export async function createPostgresDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const name = `${RUN_PREFIX}${randomBytes(6).toString('hex')}`;
  if (options.empty) {
    await withAdmin((client) => client.query(`CREATE DATABASE "${name}"`));
    const url = databaseUrl(adminUrl(), name);
    return { location: { dialect: 'postgresql', url }, url, cleanup: () => dropPostgresDatabase(name) };
  }
  // CREATE DATABASE … TEMPLATE fails while another session is connected to the template; clones are
  // made one at a time per process and retried when another worker is cloning.
  for (let attempt = 0; ; attempt++) {
    try {
      await withAdmin((client) => client.query(`CREATE DATABASE "${name}" TEMPLATE "${TEMPLATE_DATABASE}"`));
      break;
    } catch (error) {
      if (attempt >= 50 || !/being accessed by other users/.test(String(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
    }
  }
  const url = databaseUrl(adminUrl(), name);
  return {
    location: { dialect: 'postgresql', url },
    url,
    cleanup: () => dropPostgresDatabase(name),
  };
}

export async function dropPostgresDatabase(name: string): Promise<void> {
  // WITH (FORCE) ends the sessions still on it; one it may not end (another role's, e.g. a background
  // worker's, for a role without pg_signal_backend) is waited out instead.
  for (let attempt = 0; ; attempt++) {
    try {
      await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
      return;
    } catch (error) {
      if (attempt >= 50 || (error as { code?: string }).code !== '42501') throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export function tempDatabaseFile(): { file: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'leasehold-test-'));
  return { file: path.join(dir, 'test.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A fresh database on this run's backend. With `empty`, one that nothing has touched yet: on SQLite
 * the file does not exist (as always), on PostgreSQL an empty database, not migrated.
 */
export async function testDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  if (BACKEND === 'postgresql') return createPostgresDatabase(options);
  const temp = tempDatabaseFile();
  return {
    location: { dialect: 'sqlite', file: temp.file },
    url: `file:${temp.file}`,
    cleanup: async () => temp.cleanup(),
  };
}
