// The example clients (examples/clients/) as a frontend team would start from them, against a real server:
// Apollo Client 4 and urql with Graphcache, queries and mutations over HTTP, subscriptions over graphql-ws.
// Each adds an item, claims and decides it, and must see both on its subscription.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runApolloExample } from '../../examples/clients/apollo.js';
import type { ExampleOptions } from '../../examples/clients/operations.js';
import { runUrqlExample } from '../../examples/clients/urql.js';
import { postGraphQL, startTestServer, type TestServer } from '../support/server.js';

describe('example clients', () => {
  let server: TestServer;
  let options: Omit<ExampleOptions, 'batchId'>;
  beforeAll(async () => {
    server = await startTestServer();
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
      const result = await run({ ...options, batchId: `example-${name}` });
      expect(result).toEqual({ events: ['ITEM_ADDED', 'LEASE_CLAIMED', 'ITEM_DECIDED'], status: 'ACCEPTED' });
    });
  }
});
