// `npm run db:diff -- <name>`: writes the SQL that takes the committed migrations to
// prisma/schema.prisma as a new migration folder (prints it only, without a name).
// `npm run db:diff -- --postgresql <name>` does the same for prisma/postgresql/ on a scratch database
// of the server named by LEASEHOLD_TEST_POSTGRES_URL (an admin URL).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MIGRATIONS_DIR, migrateDatabase } from '../src/db/migrate.js';
import { migratePostgres, POSTGRES_MIGRATIONS_DIR } from '../src/db/migrate-postgres.js';
import { createScratchDatabase } from '../src/db/postgres-scratch.js';
import { diffDatabaseToSchema } from '../src/db/schema-engine.js';
import { POSTGRES_SCHEMA, SQLITE_SCHEMA } from './postgres-schema.js';

const args = process.argv.slice(2);
const postgres = args.includes('--postgresql');
const name = args.find((arg) => !arg.startsWith('--'));

function write(migrationsDir: string, sql: string, differs: boolean, schema: string): void {
  if (!differs) {
    process.stdout.write(`The migrations already match ${schema}.\n`);
  } else if (!name) {
    process.stdout.write(sql);
  } else {
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const dir = path.join(migrationsDir, `${stamp}_${name.replace(/[^a-z0-9_]/gi, '_')}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'migration.sql'), sql);
    process.stdout.write(`Wrote ${path.relative(process.cwd(), dir)}/migration.sql\n`);
  }
}

if (postgres) {
  const adminUrl = process.env.LEASEHOLD_TEST_POSTGRES_URL;
  if (!adminUrl) {
    process.stderr.write('--postgresql needs LEASEHOLD_TEST_POSTGRES_URL: an admin URL of a PostgreSQL server that may CREATE DATABASE.\n');
    process.exit(2);
  }
  const scratch = await createScratchDatabase(adminUrl, { prefix: 'leasehold_diff' });
  try {
    await migratePostgres(scratch.url);
    const { sql, differs } = await diffDatabaseToSchema(scratch.url, path.resolve(POSTGRES_SCHEMA));
    write(POSTGRES_MIGRATIONS_DIR, sql, differs, POSTGRES_SCHEMA);
    if (differs) {
      // Prisma knows no column collations; `npm run check` fails on a TEXT column without it.
      process.stderr.write('Add COLLATE "C" to every TEXT column this SQL creates or retypes (see the init migration).\n');
    }
  } finally {
    await scratch.drop();
  }
} else {
  const scratch = mkdtempSync(path.join(tmpdir(), 'leasehold-diff-'));
  try {
    const file = path.join(scratch, 'scratch.db');
    migrateDatabase(file);
    const { sql, differs } = await diffDatabaseToSchema(file, path.resolve(SQLITE_SCHEMA));
    write(MIGRATIONS_DIR, sql, differs, SQLITE_SCHEMA);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
