// Malformed requests get a clear, coded error and never an internal error or a stack trace. Every request here
// carries a valid credential (the principal "setup", ADMIN and PROPOSER), so what is refused is the request itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUERY_COST_LIMIT } from '../../src/graphql/builder.js';
import { postGraphQL, startTestServer, type TestServer } from '../support/server.js';
import { connectWs } from '../support/ws.js';

interface GraphQLBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

/** The principal "setup"'s Authorization header. */
const credential = async (server: TestServer) => (await server.as('setup', ['ADMIN', 'PROPOSER'])).headers;

describe('malformed requests', () => {
  let server: TestServer;
  let auth: Record<string, string>;
  beforeAll(async () => {
    server = await startTestServer();
    auth = await credential(server);
  });
  afterAll(() => server.stop());

  async function codesOf(query: string, variables?: unknown): Promise<unknown[]> {
    const body = (await (await postGraphQL(server.url, query, variables, auth)).json()) as GraphQLBody;
    expect(JSON.stringify(body)).not.toMatch(/at .+\.(ts|js):\d+/);
    return (body.errors ?? []).map((error) => error.extensions?.code);
  }

  it('refuses global ids it did not issue as INVALID_ARGUMENT, and answers null for unknown ones', async () => {
    expect(await codesOf('{ node(id: "garbage") { id } }')).toEqual(['INVALID_ARGUMENT']);
    const foreignType = Buffer.from('Secret:1').toString('base64');
    expect(await codesOf(`{ node(id: "${foreignType}") { id } }`)).toEqual(['INVALID_ARGUMENT']);
    const unknownItem = Buffer.from('Item:999').toString('base64');
    const body = (await (await postGraphQL(server.url, `{ node(id: "${unknownItem}") { id } }`, undefined, auth)).json()) as GraphQLBody;
    expect(body).toEqual({ data: { node: null } });
  });

  it('a malformed id fails only its own field, whatever the order of root fields', async () => {
    const post = async (query: string) => (await (await postGraphQL(server.url, query, undefined, auth)).json()) as GraphQLBody;
    for (const query of ['{ serverTime node(id: "bogus") { id } }', '{ node(id: "bogus") { id } serverTime }']) {
      const body = await post(query);
      expect(typeof body.data?.serverTime, query).toBe('string');
      expect(body.data?.node, query).toBeNull();
      expect(
        body.errors?.map((error) => [(error as { path?: unknown }).path, error.extensions?.code]),
        query,
      ).toEqual([[['node'], 'INVALID_ARGUMENT']]);
    }
    const unknownItem = Buffer.from('Item:999').toString('base64');
    const body = await post(`{ serverTime nodes(ids: ["${unknownItem}", "bogus", "${unknownItem}"]) { id } }`);
    expect(typeof body.data?.serverTime).toBe('string');
    expect(body.data?.nodes).toEqual([null, null, null]);
    expect(body.errors?.map((error) => [(error as { path?: unknown }).path, error.extensions?.code])).toEqual([
      [['nodes', 1], 'INVALID_ARGUMENT'],
    ]);
  });

  it('reports schema violations as validation errors naming the problem', async () => {
    expect(await codesOf('mutation { renewLease(input: {}) { __typename } }')).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(await codesOf('{ noSuchField }')).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    // The holder is the caller: naming one is a schema violation now.
    expect(await codesOf('mutation { claimItem(input: {reviewer: "a"}) { __typename } }')).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(await codesOf('query ($n: Int) { items(first: $n) { edges { cursor } } }', { n: 'soon' })).toEqual(['BAD_USER_INPUT']);
    // A mutation the caller may not use is refused for that first, whatever else is wrong with it.
    expect(await codesOf('mutation ($n: Int) { claimItem(input: {leaseSeconds: $n}) { __typename } }', { n: 'soon' })).toEqual([
      'FORBIDDEN',
    ]);
  });

  it('answers a body that is not JSON with 400 BAD_REQUEST', async () => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: '{"query": ',
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as GraphQLBody;
    expect(body.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
  });

  it('keeps the database unchanged after refused requests: the history holds only the setup key and the refusals', async () => {
    await codesOf('mutation { addItem(input: {batchId: " x", recordId: "r", proposedCategory: "c", reason: "r"}) { __typename } }');
    const body = (await (
      await postGraphQL(
        server.url,
        '{ events(first: 10) { edges { node { type actor details } } } items(first: 1) { edges { cursor } } }',
        undefined,
        auth,
      )
    ).json()) as GraphQLBody;
    expect(body).toEqual({
      data: {
        events: {
          edges: [
            { node: { type: 'API_KEY_CREATED', actor: 'test-setup', details: expect.objectContaining({ name: 'setup' }) } },
            {
              node: {
                type: 'OPERATION_REFUSED',
                actor: 'setup',
                details: expect.objectContaining({ operation: 'claimItem', code: 'FORBIDDEN' }),
              },
            },
            {
              node: {
                type: 'OPERATION_REFUSED',
                actor: 'setup',
                details: { operation: 'addItem', code: 'INVALID_TEXT', field: 'batchId', message: expect.any(String) },
              },
            },
          ],
        },
        items: { edges: [] },
      },
    });
  });
});

describe('request body limits', () => {
  let server: TestServer;
  let auth: Record<string, string>;
  beforeAll(async () => {
    server = await startTestServer();
    auth = await credential(server);
  });
  afterAll(() => server.stop());

  it('accepts the largest legitimate call: 500 items with 1000-character reasons in three-byte characters', async () => {
    await postGraphQL(server.url, 'mutation { addCategories(input: {names: ["配送"]}) { __typename } }', undefined, auth);
    const items = Array.from({ length: 500 }, (_, index) => ({
      batchId: 'b'.repeat(100),
      recordId: `r${index}`.padEnd(100, 'x'),
      proposedCategory: '配送',
      reason: '照'.repeat(1000),
    }));
    const response = await postGraphQL(
      server.url,
      'mutation ($items: [AddItemInput!]!) { addItems(input: {items: $items}) { ... on AddItemsPayload { addedCount } } }',
      { items },
      auth,
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: { addItems: { addedCount: 500 } } });
  });

  it('refuses a body over 2 MiB with 413 PAYLOAD_TOO_LARGE and stores nothing', async () => {
    const before = (await (
      await postGraphQL(server.url, '{ events(last: 1) { edges { node { sequence } } } }', undefined, auth)
    ).json()) as unknown;
    const response = await postGraphQL(
      server.url,
      `mutation { addCategories(input: {names: ["${'x'.repeat(3 * 1024 * 1024)}"]}) { __typename } }`,
      undefined,
      auth,
    );
    expect(response.status).toBe(413);
    expect(((await response.json()) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code).toBe(
      'PAYLOAD_TOO_LARGE',
    );
    const after = (await (
      await postGraphQL(server.url, '{ events(last: 1) { edges { node { sequence } } } }', undefined, auth)
    ).json()) as unknown;
    expect(after).toEqual(before);
  });

  it('refuses a POST without Content-Length (a chunked body) with 411', async () => {
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"query":"{ serverTime }"}'));
        controller.close();
      },
    });
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(411);
  });
});

describe('query limits (graphql-armor, HTTP and WebSocket alike)', () => {
  let server: TestServer;
  let auth: Record<string, string>;
  beforeAll(async () => {
    server = await startTestServer();
    auth = await credential(server);
  });
  afterAll(() => server.stop());

  async function refusal(query: string): Promise<{ status: number; message: string; code: unknown }> {
    const response = await postGraphQL(server.url, query, undefined, auth);
    const body = (await response.json()) as GraphQLBody;
    expect(body.data ?? null).toBeNull();
    return { status: response.status, message: body.errors?.[0]?.message ?? '', code: body.errors?.[0]?.extensions?.code };
  }

  /** item { history { edges { node { item { history … } } } } } nested `levels` times. */
  const nested = (levels: number, leaf = 'sequence'): string =>
    levels === 0 ? leaf : `item { history { edges { node { ${nested(levels - 1, leaf)} } } } }`;

  it('refuses a query deeper than 12 levels, naming the limit', async () => {
    const deep = `{ events { edges { node { ${nested(3)} } } } }`;
    const { message } = await refusal(deep);
    expect(message).toMatch(/depth limit of 12/i);
  });

  it('refuses more than 20 aliases (an alias bomb)', async () => {
    const bomb = `{ ${Array.from({ length: 21 }, (_, index) => `a${index}: serverTime`).join(' ')} }`;
    const { message } = await refusal(bomb);
    expect(message).toMatch(/aliases limit of 20/i);
  });

  it('refuses a document of more than 5,000 tokens', async () => {
    const flood = `{ nodes(ids: [${Array.from({ length: 5_100 }, () => '"a"').join(' ')}]) { id } }`;
    const { message, code } = await refusal(flood);
    expect(message).toMatch(/token limit of 5000/i);
    expect(code).toBe('GRAPHQL_PARSE_FAILED');
  });

  it('refuses more than 20 directives', async () => {
    const directives = Array.from({ length: 21 }, () => '@include(if: true)').join(' ');
    const { message } = await refusal(`{ serverTime ${directives} }`);
    expect(message).toMatch(/directives limit of 20/i);
  });

  it('applies the same limits to subscriptions over WebSocket', async () => {
    const client = await connectWs(server.url, auth);
    try {
      const aliases = Array.from({ length: 21 }, (_, index) => `a${index}: sequence`).join(' ');
      const bomb = client.subscribe(`subscription { queueEvents { ${aliases} } }`);
      await bomb.ended;
      const errors = bomb.error as { message: string }[];
      expect(errors[0]?.message).toMatch(/aliases limit of 20/i);
      expect(bomb.data).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('lets the largest legitimate shapes through: an item with its history and each event’s item', async () => {
    // The depth a screen needs: each event's item with its history, a page of 20 by 20 (the cost limit's own example).
    const response = await postGraphQL(
      server.url,
      `{ events(first: 20) { edges { node { ${nested(1, 'sequence type')} } } } }`,
      undefined,
      auth,
    );
    expect(((await response.json()) as GraphQLBody).errors).toBeUndefined();
    // The same shape at 100 × 100 is over the cost limit.
    const { code, message } = await refusal(
      `{ events(first: 100) { edges { node { item { history(first: 100) { edges { node { sequence type } } } } } } } }`,
    );
    expect(code).toBe('QUERY_TOO_COMPLEX');
    expect(message).toContain(`limit of ${QUERY_COST_LIMIT}`);
  });
});
