// Malformed requests get a clear, coded error and never an internal error or a stack trace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postGraphQL, startTestServer, type TestServer } from '../support/server.js';
import { connectWs } from '../support/ws.js';

interface GraphQLBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

describe('malformed requests', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  async function codesOf(query: string, variables?: unknown): Promise<unknown[]> {
    const body = (await (await postGraphQL(server.url, query, variables)).json()) as GraphQLBody;
    expect(JSON.stringify(body)).not.toMatch(/at .+\.(ts|js):\d+/);
    return (body.errors ?? []).map((error) => error.extensions?.code);
  }

  it('refuses global ids it did not issue as INVALID_ARGUMENT, and answers null for unknown ones', async () => {
    expect(await codesOf('{ node(id: "garbage") { id } }')).toEqual(['INVALID_ARGUMENT']);
    const foreignType = Buffer.from('Secret:1').toString('base64');
    expect(await codesOf(`{ node(id: "${foreignType}") { id } }`)).toEqual(['INVALID_ARGUMENT']);
    const unknownItem = Buffer.from('Item:999').toString('base64');
    const body = (await (await postGraphQL(server.url, `{ node(id: "${unknownItem}") { id } }`)).json()) as GraphQLBody;
    expect(body).toEqual({ data: { node: null } });
  });

  it('reports schema violations as validation errors naming the problem', async () => {
    expect(await codesOf('mutation { claimItem(input: {}) { __typename } }')).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(await codesOf('{ noSuchField }')).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(
      await codesOf('mutation ($n: Int) { claimItem(input: {reviewer: "a", leaseSeconds: $n}) { __typename } }', { n: 'soon' }),
    ).toEqual(['BAD_USER_INPUT']);
  });

  it('answers a body that is not JSON with 400 BAD_REQUEST', async () => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query": ',
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as GraphQLBody;
    expect(body.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
  });

  it('keeps the database unchanged after refused requests', async () => {
    await codesOf('mutation { addItem(input: {batchId: " x", recordId: "r", proposedCategory: "c", reason: "r"}) { __typename } }');
    const body = (await (
      await postGraphQL(server.url, '{ events(first: 1) { edges { cursor } } items(first: 1) { edges { cursor } } }')
    ).json()) as GraphQLBody;
    expect(body).toEqual({ data: { events: { edges: [] }, items: { edges: [] } } });
  });
});

describe('request body limits', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  it('accepts the largest legitimate call: 500 items with 1000-character reasons in three-byte characters', async () => {
    await postGraphQL(server.url, 'mutation { addCategories(input: {names: ["配送"]}) { __typename } }');
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
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: { addItems: { addedCount: 500 } } });
  });

  it('refuses a body over 2 MiB with 413 PAYLOAD_TOO_LARGE and stores nothing', async () => {
    const before = (await (await postGraphQL(server.url, '{ events(last: 1) { edges { node { sequence } } } }')).json()) as unknown;
    const response = await postGraphQL(
      server.url,
      `mutation { addCategories(input: {names: ["${'x'.repeat(3 * 1024 * 1024)}"]}) { __typename } }`,
    );
    expect(response.status).toBe(413);
    expect(((await response.json()) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code).toBe(
      'PAYLOAD_TOO_LARGE',
    );
    const after = (await (await postGraphQL(server.url, '{ events(last: 1) { edges { node { sequence } } } }')).json()) as unknown;
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
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(411);
  });
});

describe('query limits (graphql-armor, HTTP and WebSocket alike)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  async function refusal(query: string): Promise<{ status: number; message: string; code: unknown }> {
    const response = await postGraphQL(server.url, query);
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
    const client = await connectWs(server.url);
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
    const response = await postGraphQL(server.url, `{ events(first: 100) { edges { node { ${nested(1, 'sequence type')} } } } }`);
    expect(((await response.json()) as GraphQLBody).errors).toBeUndefined();
  });
});
