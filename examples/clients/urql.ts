// urql against Leasehold: Graphcache (normalized, told the schema so fragments on unions and interfaces read
// right, and which types have no id: graphcache.ts), queries and mutations by POST (a GET would need Yoga's CSRF header), subscriptions
// over graphql-ws. Adds an item, claims and decides it, and watches both happen on a subscription. Run it:
//   LEASEHOLD_PROPOSER_KEY=… LEASEHOLD_REVIEWER_KEY=… LEASEHOLD_VIEWER_KEY=… LEASEHOLD_CATEGORY=… npx tsx examples/clients/urql.ts
// (docs/clients.md; test/e2e/client-examples.test.ts runs it against a real server).
import { Client, fetchExchange, gql, makeOperation, mapExchange, subscriptionExchange } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { graphcacheOptions } from './graphcache.js';
import {
  ADD,
  CLAIM,
  DECIDE,
  type ExampleOptions,
  type ExampleRun,
  LATEST,
  type Latest,
  latestSequence,
  optionsFromEnvironment,
  type Payload,
  payload,
  persistedQuery,
  WATCH,
  Watch,
} from './operations.js';

/** A client for one key. */
export function leaseholdUrql(url: string, key: string): { client: Client; close(): Promise<void> } {
  const authorization = `Bearer ${key}`;
  const socket = createClient({
    url: `${url.replace(/^http/, 'ws')}/graphql`,
    connectionParams: { authorization },
    webSocketImpl: WebSocket,
  });
  const client = new Client({
    url: `${url}/graphql`,
    // urql sends queries as GET when they fit in a URL; Yoga then asks for its CSRF header. POST needs none.
    preferGetMethod: false,
    fetchOptions: { headers: { authorization } },
    exchanges: [
      cacheExchange(graphcacheOptions),
      // Each operation goes by its hash in the examples' manifest: over HTTP without its text (urql leaves it
      // out when extensions.persistedQuery is set), over graphql-ws with both (the server runs the manifest's).
      mapExchange({
        onOperation: (operation) => {
          const definition = operation.query.definitions.find((node) => node.kind === 'OperationDefinition');
          const persisted = persistedQuery(definition?.name?.value);
          if (!persisted) return operation;
          return makeOperation(
            operation.kind,
            { ...operation, extensions: { ...operation.extensions, persistedQuery: persisted } },
            operation.context,
          );
        },
      }),
      fetchExchange,
      subscriptionExchange({
        forwardSubscription: (request) => ({
          subscribe: (sink) => ({ unsubscribe: socket.subscribe({ ...request, query: request.query ?? '' }, sink) }),
        }),
      }),
    ],
  });
  return { client, close: () => socket.dispose() as Promise<void> };
}

export async function runUrqlExample(options: ExampleOptions): Promise<ExampleRun> {
  const proposer = leaseholdUrql(options.url, options.proposerKey);
  const reviewer = leaseholdUrql(options.url, options.reviewerKey);
  const viewer = leaseholdUrql(options.url, options.viewerKey);
  const watch = new Watch();
  try {
    const latest = await viewer.client.query<Latest>(gql(LATEST), {}, { requestPolicy: 'network-only' }).toPromise();
    if (latest.error) throw latest.error;
    const variables = { batchId: options.batchId, afterSequence: latestSequence(latest.data) };
    const subscription = viewer.client
      .subscription<{ queueEvents: { type: string } }>(gql(WATCH), variables)
      .subscribe((result) => (result.error ? watch.fail(result.error) : watch.seen(result.data?.queueEvents.type)));

    const input = { batchId: options.batchId, recordId: 'r-1', proposedCategory: options.category, reason: 'Example client.' };
    const added = await proposer.client.mutation<{ addItem: Payload }>(gql(ADD), { input }).toPromise();
    if (added.error) throw added.error;
    payload(added.data?.addItem, 'addItem');
    const claimed = await reviewer.client.mutation<{ claimItem: Payload }>(gql(CLAIM), { batchId: options.batchId }).toPromise();
    if (claimed.error) throw claimed.error;
    const claim = payload<{ claimed: boolean; lease: { token: string } | null }>(claimed.data?.claimItem, 'claimItem');
    if (!claim.claimed || !claim.lease) throw new Error('claimItem: nothing to claim');
    const decidedItem = await reviewer.client.mutation<{ decideItem: Payload }>(gql(DECIDE), { token: claim.lease.token }).toPromise();
    if (decidedItem.error) throw decidedItem.error;
    const item = payload<{ item: { status: string } }>(decidedItem.data?.decideItem, 'decideItem').item;

    await watch.decided();
    subscription.unsubscribe();
    return { events: watch.events, status: item.status };
  } finally {
    await Promise.all([proposer.close(), reviewer.close(), viewer.close()]);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runUrqlExample(optionsFromEnvironment()).then(
    (run) => console.log(JSON.stringify(run)),
    (error) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
