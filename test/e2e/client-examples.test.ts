// The example clients (examples/clients/) as a frontend team would start from them, against a real server:
// Apollo Client 4 and urql with Graphcache, queries and mutations over HTTP, subscriptions over graphql-ws.
// Each adds an item, claims and decides it, and must see both on its subscription, with no warning from its cache. The server runs only
// trusted documents (PERSISTED_OPERATIONS=require with the examples' manifest): the examples send theirs by
// hash, and nothing else would run for their keys.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runApolloExample } from '../../examples/clients/apollo.js';
import { type ExampleOptions, MANIFEST } from '../../examples/clients/operations.js';
import { runUrqlExample } from '../../examples/clients/urql.js';
import { postGraphQL, startTestServer, type TestServer } from '../support/server.js';

describe('example clients', () => {
  let server: TestServer;
  let options: Omit<ExampleOptions, 'batchId'>;
  beforeAll(async () => {
    server = await startTestServer({
      config: { persistedOperations: { mode: 'require', manifests: [fileURLToPath(MANIFEST)] } },
    });
    const setup = await server.as('setup', ['ADMIN', 'PROPOSER']);
    await postGraphQL(server.url, 'mutation { addCategories(input: { names: ["billing"] }) { __typename } }', undefined, setup.headers);
    options = {
      url: server.url,
      proposerKey: (await server.as('intake', ['PROPOSER'])).key,
      reviewerKey: (await server.as('rita', ['REVIEWER'])).key,
      viewerKey: (await server.as('wall', ['VIEWER'])).key,
      category: 'billing',
    };
  });
  afterAll(() => server.stop());

  for (const [name, run] of [
    ['Apollo Client', runApolloExample],
    ['urql', runUrqlExample],
  ] as const) {
    it(`${name}: add, claim, decide, and each step arrives on the subscription`, async () => {
      // The clients' caches say nothing: a warning (Graphcache's "field is undefined" when it cannot tell which
      // fragment a result matches) means the cache is misreading the schema's unions and interfaces.
      const warned = vi.spyOn(console, 'warn');
      const failed = vi.spyOn(console, 'error');
      try {
        const result = await run({ ...options, batchId: `example-${name}` });
        expect(result).toEqual({ events: ['ITEM_ADDED', 'LEASE_CLAIMED', 'ITEM_DECIDED'], status: 'ACCEPTED' });
        expect([...warned.mock.calls, ...failed.mock.calls]).toEqual([]);
      } finally {
        warned.mockRestore();
        failed.mockRestore();
      }
    });
  }

  it('the same server refuses a document outside the manifest to those keys', async () => {
    const response = await postGraphQL(server.url, '{ serverTime }', undefined, { authorization: `Bearer ${options.viewerKey}` });
    expect(((await response.json()) as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code).toBe(
      'PERSISTED_QUERY_ONLY',
    );
  });
});
