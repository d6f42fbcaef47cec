// `npm run db:diff -- <name>`: writes the SQL that takes the committed migrations to
// prisma/schema.prisma as a new migration folder (prints it only, without a name).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MIGRATIONS_DIR, migrateDatabase } from '../src/db/migrate.js';
import { diffDatabaseToSchema } from '../src/db/schema-engine.js';

const name = process.argv[2];
const scratch = mkdtempSync(path.join(tmpdir(), 'leasehold-diff-'));
try {
  const file = path.join(scratch, 'scratch.db');
  migrateDatabase(file);
  const { sql, differs } = await diffDatabaseToSchema(file, path.resolve('prisma/schema.prisma'));
  if (!differs) {
    process.stdout.write('The migrations already match prisma/schema.prisma.\n');
  } else if (!name) {
    process.stdout.write(sql);
  } else {
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const dir = path.join(MIGRATIONS_DIR, `${stamp}_${name.replace(/[^a-z0-9_]/gi, '_')}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'migration.sql'), sql);
    process.stdout.write(`Wrote ${path.relative(process.cwd(), dir)}/migration.sql\n`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
