// Part of `npm run check`: fails when schema.graphql or the generated test documents
// no longer match the code, or when the migrations no longer produce schema.prisma.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generate } from '@graphql-codegen/cli';
import codegenConfig from '../codegen.js';
import { migrateDatabase } from '../src/db/migrate.js';
import { diffDatabaseToSchema } from '../src/db/schema-engine.js';
import { printSortedSchema } from '../src/graphql/schema.js';

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

if (problems.length > 0) {
  process.stderr.write(`${problems.join('\n')}\n`);
  process.exit(1);
}
process.stdout.write('schema.graphql, generated documents and migrations are in sync.\n');
