// Prisma CLI configuration: where the schema and migrations live, and which file
// `prisma` commands point at by default.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'file:./data/leasehold.db' },
});
