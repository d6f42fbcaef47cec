// Malformed requests get a clear, coded error and never an internal error or a stack trace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postGraphQL, startTestServer, type TestServer } from '../support/server.js';

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
