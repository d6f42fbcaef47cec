// Large request bodies and WebSocket messages (64 kB or more) are checked on a worker thread before the
// event loop parses them (src/http/body-checks.ts, src/ws/large-messages.ts): one whose variables hold an
// over-long list is refused from there, as the event loop's own check would (same code, same message), and
// is never parsed here; one that passes is parsed and runs as before; messages after a large one on the same
// socket wait for it, so they are handled in the order sent. Real server, real worker thread.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { bodyCheckStats, OFF_THREAD_BYTES } from '../../src/http/body-checks.js';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';
import { waitFor } from '../support/ws.js';

type Body = { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] };

const itemId = (n: number) => Buffer.from(`Item:${n}`).toString('base64');
const NODES = 'query ($ids: [ID!]!) { nodes(ids: $ids) { __typename } }';

let server: TestServer;
let viewer: TestClient;
let setup: TestClient;

beforeAll(async () => {
  server = await startTestServer();
  viewer = await server.as('large-bodies', ['VIEWER']);
  setup = await server.as('large-bodies-setup', ['ADMIN', 'PROPOSER']);
});
afterAll(() => server.stop());

async function post(query: string, variables: Record<string, unknown>, headers = viewer.headers) {
  const response = await postGraphQL(server.url, query, variables, headers);
  return { status: response.status, body: (await response.json()) as Body };
}

/** A graphql-transport-ws connection with raw messages, acknowledged. */
async function rawSocket(): Promise<{ socket: WebSocket; received: Record<string, unknown>[] }> {
  const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
  const received: Record<string, unknown>[] = [];
  socket.on('message', (data) => received.push(JSON.parse(String(data))));
  await new Promise<void>((resolve, reject) => socket.once('open', () => resolve()).once('error', reject));
  socket.send(JSON.stringify({ type: 'connection_init', payload: viewer.headers }));
  await waitFor(() => received.some((message) => message.type === 'connection_ack'));
  return { socket, received };
}

describe('large bodies over HTTP', () => {
  it('100,000 ids are refused by the worker with the event loop’s own refusal', async () => {
    const before = { ...bodyCheckStats };
    const { status, body } = await post(NODES, { ids: Array.from({ length: 100_000 }, (_, n) => itemId(n + 1)) });
    expect(status).toBe(400);
    expect(body.errors).toEqual([
      {
        message: '$ids holds a list of 100000 values; no argument takes more than 500.',
        extensions: { code: 'INVALID_ARGUMENT', field: '$ids' },
      },
    ]);
    expect(bodyCheckStats.checked).toBe(before.checked + 1);
    expect(bodyCheckStats.refused).toBe(before.refused + 1);
  });

  it('a large body that passes is parsed and runs as before: 500 items of 300-character reasons', async () => {
    await post('mutation { addCategories(input: { names: ["large"] }) { __typename } }', {}, setup.headers);
    const items = Array.from({ length: 500 }, (_, n) => ({
      batchId: 'large',
      recordId: `r${n}`,
      proposedCategory: 'large',
      reason: 'r'.repeat(300),
    }));
    expect(JSON.stringify(items).length).toBeGreaterThan(OFF_THREAD_BYTES);
    const before = { ...bodyCheckStats };
    const { status, body } = await post(
      'mutation ($items: [AddItemInput!]!) { addItems(input: { items: $items }) { __typename ... on AddItemsPayload { addedCount } } }',
      { items },
      setup.headers,
    );
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data?.addItems).toEqual({ __typename: 'AddItemsPayload', addedCount: 500 });
    expect(bodyCheckStats.checked).toBe(before.checked + 1);
    expect(bodyCheckStats.refused).toBe(before.refused);
  });

  it('a large body that is not JSON gets the usual answer', async () => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { ...viewer.headers, 'content-type': 'application/json' },
      body: `{"query": "${'x'.repeat(OFF_THREAD_BYTES)}`,
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as Body).errors?.[0]?.message).toBe('POST body sent invalid JSON.');
  });
});

describe('large WebSocket messages', () => {
  it('a subscribe with 100,000 ids is answered with an error for its id, and the connection goes on', async () => {
    const { socket, received } = await rawSocket();
    try {
      const before = { ...bodyCheckStats };
      const ids = Array.from({ length: 100_000 }, (_, n) => itemId(n + 1));
      socket.send(JSON.stringify({ id: 'huge', type: 'subscribe', payload: { query: NODES, variables: { ids } } }));
      socket.send(JSON.stringify({ id: 'small', type: 'subscribe', payload: { query: '{ serverTime }' } }));
      await waitFor(() => received.some((message) => message.id === 'small' && message.type === 'complete'));
      const huge = received.filter((message) => message.id === 'huge');
      expect(huge).toEqual([
        {
          id: 'huge',
          type: 'error',
          payload: [
            {
              message: '$ids holds a list of 100000 values; no argument takes more than 500.',
              extensions: { code: 'INVALID_ARGUMENT', field: '$ids' },
            },
          ],
        },
      ]);
      // Answered in the order sent: the large one's error before the small one's result.
      const order = received.filter((message) => message.id === 'huge' || message.id === 'small').map((message) => message.id);
      expect(order).toEqual(['huge', 'small', 'small']);
      expect(bodyCheckStats.refused).toBe(before.refused + 1);
      expect(socket.readyState).toBe(WebSocket.OPEN);
    } finally {
      socket.terminate();
    }
  });

  it('a large subscribe that passes is handled before the messages sent after it: complete right after it ends it', async () => {
    const { socket, received } = await rawSocket();
    try {
      const before = { ...bodyCheckStats };
      // Large only by an unused variable: it passes the check.
      const padding = 'p'.repeat(OFF_THREAD_BYTES);
      socket.send(
        JSON.stringify({
          id: 'live',
          type: 'subscribe',
          payload: { query: 'subscription { queueEvents { sequence } }', variables: { padding } },
        }),
      );
      socket.send(JSON.stringify({ id: 'live', type: 'complete' }));
      socket.send(JSON.stringify({ id: 'probe', type: 'subscribe', payload: { query: '{ serverTime }' } }));
      await waitFor(() => received.some((message) => message.id === 'probe' && message.type === 'complete'));
      expect(bodyCheckStats.checked).toBe(before.checked + 1);
      // Had the complete overtaken the subscribe, the subscription would be running now and get this event.
      await post('mutation { addCategories(input: { names: ["after-complete"] }) { __typename } }', {}, setup.headers);
      await server.settle();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(received.filter((message) => message.id === 'live' && message.type === 'next')).toEqual([]);
    } finally {
      socket.terminate();
    }
  });
});
