import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { configDefaults, defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/**
 * Files about SQLite itself (its pragmas, its file, seed A's command line on a file) run on SQLite
 * only; every other file runs on both backends.
 */
export const SQLITE_ONLY = [
  'test/db/pragmas.test.ts',
  'test/db/checkpoints.test.ts',
  'test/db/shared-connection.test.ts',
  'test/db/migrations.test.ts',
  // Seed A's command line works on SQLite files; only its `keys` command also takes a PostgreSQL URL.
  'test/cli/!(keys-postgres|import-postgres).test.ts',
  // The browser test at scale seeds 100,000 items straight into a SQLite file before its server starts; the
  // dashboard's pages and counts on PostgreSQL are covered by dashboard.test.ts and the live-at-scale bench.
  'test/e2e/dashboard-scale.test.ts',
];
/** Files about PostgreSQL itself. */
export const POSTGRES_ONLY = [
  'test/db/migrations-postgres.test.ts',
  'test/db/database-clock.test.ts',
  // Compares PostgreSQL's write calls with the TypeScript forms on a SQLite file of its own.
  'test/db/write-calls.test.ts',
  'test/db/proposal-write-calls.test.ts',
  'test/cli/keys-postgres.test.ts',
  'test/cli/import-postgres.test.ts',
  'test/e2e/postgres-instances.test.ts',
  // PG_WRITE_MODE=sharded's horizon (decision 0009).
  'test/db/sharded-history.test.ts',
  // A deadlock with another session's row locks (SQLite has one writer: it cannot deadlock).
  'test/db/deadlock-retry.test.ts',
  // Stops and starts a cluster of its own (LEASEHOLD_TEST_POSTGRES_CONTROL), never the one the other files share.
  'test/db/postgres-restart.test.ts',
];

// One id per run, inherited by the workers: names this run's PostgreSQL databases (test/support/database.ts).
process.env.LEASEHOLD_TEST_RUN ??= randomBytes(4).toString('hex');

/** The PostgreSQL project runs when a server is given (CI starts one: see .ci/run and the README). */
const postgres = process.env.LEASEHOLD_TEST_POSTGRES_URL;
if (!postgres && !process.env.VITEST_WORKER_ID) {
  process.stderr.write(
    'LEASEHOLD_TEST_POSTGRES_URL is not set: running the SQLite project only. Set it to a PostgreSQL URL whose role may CREATE DATABASE to run the suite on PostgreSQL too.\n',
  );
}

export default defineConfig({
  resolve: {
    // Node resolves `graphql` to its CommonJS entry (no "exports" map); make test files use the same
    // copy, or graphql-js sees two realms ("Cannot use GraphQLSchema from another module").
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: concurrency tests spawn their own server processes.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['test/**/*.test.ts'],
          // The stress and crash run takes minutes and the whole machine: `npm run test:stress` (vitest.stress.config.ts).
          exclude: [...configDefaults.exclude, 'test/stress/**', ...POSTGRES_ONLY],
          env: { LEASEHOLD_TEST_BACKEND: 'sqlite' },
        },
      },
      ...(postgres
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgresql',
                include: ['test/**/*.test.ts'],
                exclude: [...configDefaults.exclude, 'test/stress/**', ...SQLITE_ONLY],
                env: { LEASEHOLD_TEST_BACKEND: 'postgresql' },
                globalSetup: ['test/support/postgres-setup.ts'],
              },
            },
          ]
        : []),
    ],
  },
});
