// Development and test helper: a throwaway PostgreSQL database on the server of an admin URL
// (a role that may CREATE DATABASE), for the drift check, `npm run db:diff -- --postgresql` and tests.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { redactDatabaseUrl as redactUrl } from '../config/database-location.js';
import { connectPostgres } from './migrate-postgres.js';

export interface ScratchDatabase {
  name: string;
  url: string;
  /** Drops the database, ending any connection still open to it. */
  drop(): Promise<void>;
}

/**
 * Creates an empty database with a random name. `icuLocale` makes its default collation an ICU
 * locale (e.g. 'en-US'), so a test can tell byte-wise ordering from the locale's.
 */
export async function createScratchDatabase(
  adminUrl: string,
  options: { prefix?: string; icuLocale?: string } = {},
): Promise<ScratchDatabase> {
  const name = `${options.prefix ?? 'leasehold_scratch'}_${randomBytes(6).toString('hex')}`;
  let url: URL;
  try {
    url = new URL(adminUrl);
  } catch {
    throw new Error(`Not a PostgreSQL URL with a host: ${redactUrl(adminUrl)}`);
  }
  url.pathname = `/${name}`;
  const locale = options.icuLocale ? ` TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE '${options.icuLocale.replace(/'/g, "''")}'` : '';
  await withAdmin(adminUrl, (admin) => admin.query(`CREATE DATABASE "${name}"${locale}`));
  return {
    name,
    url: url.toString(),
    drop: () => withAdmin(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => {}),
  };
}

async function withAdmin<T>(adminUrl: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = await connectPostgres(adminUrl);
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}
