// `npm run db:pg-schema`: writes prisma/postgresql/schema.prisma from prisma/schema.prisma, the one
// source of truth for the data model. Only the provider and the client's output directory differ;
// `npm run check` fails when the committed file is not exactly what this produces.
import { readFileSync, writeFileSync } from 'node:fs';

export const SQLITE_SCHEMA = 'prisma/schema.prisma';
export const POSTGRES_SCHEMA = 'prisma/postgresql/schema.prisma';

const HEADER = `// GENERATED from prisma/schema.prisma by \`npm run db:pg-schema\`: edit that file, not this one.
// The same data model for PostgreSQL; its migrations are in ./migrations.
`;

export function derivePostgresSchema(sqlite: string): string {
  const replace = (text: string, from: string, to: string): string => {
    if (!text.includes(from)) throw new Error(`prisma/schema.prisma no longer contains ${JSON.stringify(from)}.`);
    return text.replace(from, to);
  };
  const body = sqlite.replace(/^(\/\/.*\n)+\n?/, '');
  let schema = replace(body, 'output              = "../src/generated/prisma"', 'output              = "../../src/generated/prisma-pg"');
  schema = replace(schema, 'provider = "sqlite"', 'provider = "postgresql"');
  return `${HEADER}\n${schema}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(POSTGRES_SCHEMA, derivePostgresSchema(readFileSync(SQLITE_SCHEMA, 'utf8')));
  process.stdout.write(`Wrote ${POSTGRES_SCHEMA}\n`);
}
