// Apollo Client 4 against Leasehold: queries and mutations over HTTP, subscriptions over graphql-ws, the
// generated possibleTypes so `... on Error` and `... on Node` fragments read from the cache. Adds an item,
// claims and decides it, and watches both happen on a subscription. Run it against a server:
//   LEASEHOLD_PROPOSER_KEY=… LEASEHOLD_REVIEWER_KEY=… LEASEHOLD_VIEWER_KEY=… LEASEHOLD_CATEGORY=… npx tsx examples/clients/apollo.ts
// (docs/clients.md; test/e2e/client-examples.test.ts runs it against a real server).
import { ApolloClient, ApolloLink, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { isSubscriptionOperation } from '@apollo/client/utilities';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
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
import possibleTypes from './possible-types.js';

/** A client for one key: HTTP for queries and mutations (POST with JSON passes Yoga's CSRF check), graphql-ws for subscriptions. */
export function leaseholdApollo(url: string, key: string): { client: ApolloClient; close(): Promise<void> } {
  const authorization = `Bearer ${key}`;
  const http = new HttpLink({ uri: `${url}/graphql`, headers: { authorization } });
  const socket = createClient({
    url: `${url.replace(/^http/, 'ws')}/graphql`,
    // A browser cannot set headers on a WebSocket: the key goes in the connection_init payload.
    connectionParams: { authorization },
    webSocketImpl: WebSocket,
  });
  // Each operation goes by its hash in the examples' manifest: over HTTP without its text, over graphql-ws
  // with both (graphql-ws needs the text; the server runs the manifest's). A server started with
  // PERSISTED_OPERATIONS=require and this manifest runs nothing else for these keys.
  const trusted = new ApolloLink((operation, forward) => {
    const persisted = persistedQuery(operation.operationName);
    if (persisted) {
      operation.extensions.persistedQuery = persisted;
      operation.setContext({ http: { includeQuery: false, includeExtensions: true } });
    }
    return forward(operation);
  });
  const link = ApolloLink.from([trusted, ApolloLink.split(({ query }) => isSubscriptionOperation(query), new GraphQLWsLink(socket), http)]);
  const client = new ApolloClient({ link, cache: new InMemoryCache({ possibleTypes: possibleTypes.possibleTypes }) });
  return {
    client,
    close: async () => {
      client.stop();
      await socket.dispose();
    },
  };
}

export async function runApolloExample(options: ExampleOptions): Promise<ExampleRun> {
  const proposer = leaseholdApollo(options.url, options.proposerKey);
  const reviewer = leaseholdApollo(options.url, options.reviewerKey);
  const viewer = leaseholdApollo(options.url, options.viewerKey);
  const watch = new Watch();
  try {
    const latest = await viewer.client.query<Latest>({ query: gql(LATEST), fetchPolicy: 'network-only' });
    const variables = { batchId: options.batchId, afterSequence: latestSequence(latest.data) };
    const subscription = viewer.client
      .subscribe<{ queueEvents: { type: string } }>({ query: gql(WATCH), variables })
      .subscribe({ next: (result) => watch.seen(result.data?.queueEvents.type), error: (error) => watch.fail(error) });

    const input = { batchId: options.batchId, recordId: 'r-1', proposedCategory: options.category, reason: 'Example client.' };
    const added = await proposer.client.mutate<{ addItem: Payload }>({ mutation: gql(ADD), variables: { input } });
    payload(added.data?.addItem, 'addItem');
    const claimed = await reviewer.client.mutate<{ claimItem: Payload }>({ mutation: gql(CLAIM), variables: { batchId: options.batchId } });
    const claim = payload<{ claimed: boolean; lease: { token: string } | null }>(claimed.data?.claimItem, 'claimItem');
    if (!claim.claimed || !claim.lease) throw new Error('claimItem: nothing to claim');
    const decidedItem = await reviewer.client.mutate<{ decideItem: Payload }>({
      mutation: gql(DECIDE),
      variables: { token: claim.lease.token },
    });
    const item = payload<{ item: { status: string } }>(decidedItem.data?.decideItem, 'decideItem').item;

    await watch.decided();
    subscription.unsubscribe();
    return { events: watch.events, status: item.status };
  } finally {
    await Promise.all([proposer.close(), reviewer.close(), viewer.close()]);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runApolloExample(optionsFromEnvironment()).then(
    (run) => console.log(JSON.stringify(run)),
    (error) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
