// The stress and crash run (npm run test:stress): test/stress only, one file at a time in one fork, long timeouts.
// Kept out of `npm test` (vitest.config.ts excludes test/stress): it runs for minutes and wants the machine to itself.
// One project per backend, run one after the other (each sets STRESS_BACKEND for test/stress/settings.ts):
// - sqlite: 2 servers and the command line on one file;
// - postgresql, when LEASEHOLD_TEST_POSTGRES_URL names a server (CI starts one: see .ci/run): 3 servers on one fresh
//   database, without the command line (it works on SQLite files only).
// One backend alone: STRESS_BACKEND=sqlite (or postgresql) npm run test:stress, or `npm run test:stress -- --project …`.
import { createRequire } from 'node:module';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

const require = createRequire(import.meta.url);

const postgres = process.env.LEASEHOLD_TEST_POSTGRES_URL;
const only = process.env.STRESS_BACKEND;
if (only !== undefined && only !== 'sqlite' && only !== 'postgresql') {
  throw new Error(`STRESS_BACKEND must be sqlite or postgresql, got ${JSON.stringify(only)}`);
}
if (only === 'postgresql' && !postgres) {
  throw new Error('STRESS_BACKEND=postgresql needs LEASEHOLD_TEST_POSTGRES_URL: a PostgreSQL URL whose role may CREATE DATABASE.');
}
if (!postgres && !process.env.VITEST_WORKER_ID) {
  process.stderr.write(
    'LEASEHOLD_TEST_POSTGRES_URL is not set: running the SQLite stress run only. Set it to a PostgreSQL URL whose role may CREATE DATABASE to run it on PostgreSQL too.\n',
  );
}

const projects: TestProjectInlineConfiguration[] = [
  {
    extends: true,
    test: {
      name: 'sqlite',
      // history.test.ts checks the verdict itself: once is enough.
      include: ['test/stress/**/*.test.ts'],
      env: { STRESS_BACKEND: 'sqlite' },
      // Not 0: vitest runs single-worker projects of group 0 last, after every numbered group.
      sequence: { groupOrder: 1 },
    },
  },
  {
    extends: true,
    test: {
      name: 'postgresql',
      include: ['test/stress/stress.test.ts'],
      env: { STRESS_BACKEND: 'postgresql' },
      // After the SQLite run, never beside it: each wants the machine to itself.
      sequence: { groupOrder: 2 },
    },
  },
];

export default defineConfig({
  resolve: {
    // As in vitest.config.ts: one copy of graphql-js for test files and the sources they import.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    // The test sets its own timeout from STRESS_SECONDS; these cover set-up and clean-up.
    testTimeout: 900_000,
    hookTimeout: 120_000,
    projects: projects.filter((project) => {
      const name = project.test?.name;
      if (name === 'postgresql' && !postgres) return false;
      return only === undefined || name === only;
    }),
  },
});
