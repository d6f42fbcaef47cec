// The stress and crash run (npm run test:stress): test/stress only, one file at a time in one fork, long timeouts.
// Kept out of `npm test` (vitest.config.ts excludes test/stress): it runs for minutes and wants the machine to itself.
import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // As in vitest.config.ts: one copy of graphql-js for test files and the sources they import.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/stress/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    // The test sets its own timeout from STRESS_SECONDS; these cover set-up and clean-up.
    testTimeout: 900_000,
    hookTimeout: 120_000,
  },
});
