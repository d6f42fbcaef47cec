import { createRequire } from 'node:module';
import { configDefaults, defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // Node resolves `graphql` to its CommonJS entry (no "exports" map); make test files use the same
    // copy, or graphql-js sees two realms ("Cannot use GraphQLSchema from another module").
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // The stress and crash run takes minutes and the whole machine: `npm run test:stress` (vitest.stress.config.ts).
    exclude: [...configDefaults.exclude, 'test/stress/**'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: concurrency tests spawn their own server processes.
    maxWorkers: 2,
  },
});
