// Global setup of the PostgreSQL test project: makes the template every test database is cloned
// from (CREATE DATABASE … TEMPLATE, much faster than migrating each one), and drops whatever this
// run's databases left behind.
import { migratePostgres } from '../../src/db/migrate-postgres.js';
import { adminUrl, databaseUrl, RUN_PREFIX, TEMPLATE_DATABASE, withAdmin } from './database.js';

async function dropTestDatabases(): Promise<void> {
  await withAdmin(async (client) => {
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [
      RUN_PREFIX,
    ]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  });
}

export default async function setup(): Promise<() => Promise<void>> {
  await dropTestDatabases();
  await withAdmin((client) => client.query(`CREATE DATABASE "${TEMPLATE_DATABASE}"`));
  await migratePostgres(databaseUrl(adminUrl(), TEMPLATE_DATABASE));
  return dropTestDatabases;
}
