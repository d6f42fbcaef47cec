// Part of `npm run check`: fails when schema.graphql or the generated test documents
// no longer match the code, or when the migrations no longer produce schema.prisma.
// The PostgreSQL migrations are checked too when LEASEHOLD_TEST_POSTGRES_URL names a server.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generate } from '@graphql-codegen/cli';
import codegenConfig from '../codegen.js';
import { migrateDatabase } from '../src/db/migrate.js';
import { connectPostgres, migratePostgres } from '../src/db/migrate-postgres.js';
import { createScratchDatabase } from '../src/db/postgres-scratch.js';
import { diffDatabaseToSchema } from '../src/db/schema-engine.js';
import { printSortedSchema } from '../src/graphql/schema.js';
import { derivePostgresSchema, POSTGRES_SCHEMA, SQLITE_SCHEMA } from './postgres-schema.js';

const problems: string[] = [];

if (!existsSync('schema.graphql') || readFileSync('schema.graphql', 'utf8') !== printSortedSchema()) {
  problems.push('schema.graphql is out of date: run `npm run schema:print`.');
}

const outputs = (await generate({ ...codegenConfig, silent: true }, false)) as { filename: string; content: string }[];
for (const output of outputs) {
  if (!existsSync(output.filename) || readFileSync(output.filename, 'utf8') !== output.content) {
    problems.push(`${output.filename} is out of date: run \`npm run codegen\`.`);
  }
}

const scratch = mkdtempSync(path.join(tmpdir(), 'leasehold-drift-'));
try {
  const file = path.join(scratch, 'drift.db');
  migrateDatabase(file);
  const { differs, sql } = await diffDatabaseToSchema(file, path.resolve('prisma/schema.prisma'));
  if (differs) problems.push(`prisma/migrations do not produce prisma/schema.prisma; missing:\n${sql}\nRun \`npm run db:diff -- <name>\`.`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

if (!existsSync(POSTGRES_SCHEMA) || readFileSync(POSTGRES_SCHEMA, 'utf8') !== derivePostgresSchema(readFileSync(SQLITE_SCHEMA, 'utf8'))) {
  problems.push(`${POSTGRES_SCHEMA} is out of date: run \`npm run db:pg-schema\`.`);
}

const postgresAdminUrl = process.env.LEASEHOLD_TEST_POSTGRES_URL;
if (postgresAdminUrl) {
  const scratchDb = await createScratchDatabase(postgresAdminUrl, { prefix: 'leasehold_drift' });
  try {
    await migratePostgres(scratchDb.url);
    const { differs, sql } = await diffDatabaseToSchema(scratchDb.url, path.resolve(POSTGRES_SCHEMA));
    if (differs) {
      problems.push(
        `prisma/postgresql/migrations do not produce ${POSTGRES_SCHEMA}; missing:\n${sql}\nRun \`npm run db:diff -- --postgresql <name>\`.`,
      );
    }
    // Prisma's diff ignores column collations, and a generated ALTER COLUMN ... TYPE TEXT resets one:
    // check by hand that text still orders byte-wise, as on SQLite.
    const client = await connectPostgres(scratchDb.url);
    try {
      const { rows } = await client.query<{ column: string }>(
        `SELECT format('%I.%I', table_name, column_name) AS column FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name <> '_prisma_migrations' AND data_type = 'text'
           AND collation_name IS DISTINCT FROM 'C' ORDER BY 1`,
      );
      if (rows.length > 0) {
        problems.push(`prisma/postgresql/migrations leave TEXT columns without COLLATE "C": ${rows.map((row) => row.column).join(', ')}.`);
      }
    } finally {
      await client.end();
    }
  } finally {
    await scratchDb.drop();
  }
} else {
  process.stdout.write(
    'PostgreSQL migration drift check not run: set LEASEHOLD_TEST_POSTGRES_URL to an admin URL of a PostgreSQL 15 server (a role that may CREATE DATABASE).\n',
  );
}

if (problems.length > 0) {
  process.stderr.write(`${problems.join('\n')}\n`);
  process.exit(1);
}
process.stdout.write('schema.graphql, generated documents and migrations are in sync.\n');
