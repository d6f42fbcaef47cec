// Root fields wrapped in fragments (issue 15, item 1): inline fragments, named fragment spreads, nested ones,
// aliases and @skip/@include are collected as graphql-js runs them, so a mutation the caller may not use in
// part is refused whole (nothing written) and every root field counts against the rate limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';
import { connectWs, type WsClient } from '../support/ws.js';

type Body = {
  data?: Record<string, unknown> | null;
  errors?: { message: string; path?: string[]; extensions?: Record<string, unknown> }[];
};

let server: TestServer;
let proposer: TestClient;
let sequence = 0;

beforeAll(async () => {
  server = await startTestServer();
  const setup = await server.as('setup', ['ADMIN', 'PROPOSER']);
  const body = (await (
    await postGraphQL(server.url, 'mutation { addCategories(input: { names: ["c"] }) { __typename } }', {}, setup.headers)
  ).json()) as Body;
  expect(body.errors).toBeUndefined();
  proposer = await server.as('fragment-proposer', ['PROPOSER']);
});
afterAll(() => server.stop());

/** An addItem with a record id of its own. */
const addItem = (alias = '') =>
  `${alias ? `${alias}: ` : ''}addItem(input: { batchId: "frag", recordId: "r-${++sequence}", proposedCategory: "c", reason: "r" }) { __typename }`;
const createApiKey = (alias = '') =>
  `${alias ? `${alias}: ` : ''}createApiKey(input: { name: "sneaked-${++sequence}", roles: [ADMIN] }) { __typename }`;

/** What a refused operation must not have changed: items, API keys, and every event but the refusals themselves. */
async function written() {
  const [items, apiKeys, events] = await Promise.all([
    server.db.read.item.count(),
    server.db.read.apiKey.count(),
    server.db.read.event.count({ where: { type: { not: 'OPERATION_REFUSED' } } }),
  ]);
  return { items, apiKeys, events };
}

async function post(query: string, client: TestClient, variables?: Record<string, unknown>) {
  const response = await postGraphQL(server.url, query, variables, client.headers);
  return { status: response.status, body: (await response.json()) as Body };
}

/** Operations a PROPOSER may not run: each hides createApiKey (ADMIN only) beside an addItem it may run. */
const REFUSED: [string, () => { query: string; variables?: Record<string, unknown> }][] = [
  ['inline fragments', () => ({ query: `mutation { ... on Mutation { ${addItem()} } ... on Mutation { ${createApiKey()} } }` })],
  ['an inline fragment without a type condition', () => ({ query: `mutation { ${addItem()} ... { ${createApiKey()} } }` })],
  [
    'named fragment spreads',
    () => ({
      query: `mutation { ...Add ...Key } fragment Add on Mutation { ${addItem()} } fragment Key on Mutation { ${createApiKey()} }`,
    }),
  ],
  [
    'nested fragments',
    () => ({
      query: `mutation { ... on Mutation { ...Outer } }
        fragment Outer on Mutation { ${addItem()} ... { ...Inner } }
        fragment Inner on Mutation { ... on Mutation { ${createApiKey()} } }`,
    }),
  ],
  ['aliases in fragments', () => ({ query: `mutation { ... on Mutation { ok: ${addItem()} harmless: ${createApiKey()} } }` })],
  [
    '@include(if: $variable) on an inline fragment',
    () => ({
      query: `mutation($admin: Boolean!) { ${addItem()} ... @include(if: $admin) { ${createApiKey()} } }`,
      variables: { admin: true },
    }),
  ],
  [
    '@skip(if: $variable) on a fragment spread',
    () => ({
      query: `mutation($hide: Boolean!) { ${addItem()} ...Key @skip(if: $hide) } fragment Key on Mutation { ${createApiKey()} }`,
      variables: { hide: false },
    }),
  ],
  [
    '@include(if: $variable) on a field inside a fragment',
    () => ({
      query: `mutation($admin: Boolean = true) { ...Both } fragment Both on Mutation { ${addItem()} ${createApiKey().replace(') {', ') @include(if: $admin) {')} }`,
    }),
  ],
];

describe('root fields in fragments: refused whole before anything runs', () => {
  for (const [name, operation] of REFUSED) {
    it(`over HTTP POST: ${name}`, async () => {
      const before = await written();
      const { query, variables } = operation();
      const { body } = await post(query, proposer, variables);
      expect(body.data).toBeNull();
      expect(body.errors?.map((error) => error.extensions?.code)).toEqual(['FORBIDDEN']);
      expect(body.errors?.[0]?.message).toContain('may not use Mutation.createApiKey');
      expect(await written()).toEqual(before);
    });

    it(`over WebSocket: ${name}`, async () => {
      const ws = await connectWs(server.url, proposer.headers);
      try {
        const before = await written();
        const { query, variables } = operation();
        const result = await ws.execute(query, variables);
        expect(result.data).toBeNull();
        expect(result.errors?.map((error) => error.extensions?.code)).toEqual(['FORBIDDEN']);
        expect(await written()).toEqual(before);
      } finally {
        await ws.close();
      }
    });
  }

  it('names the refused field by its alias', async () => {
    const { body } = await post(`mutation { ...Key } fragment Key on Mutation { harmless: ${createApiKey()} }`, proposer);
    expect(body.errors?.[0]?.path).toEqual(['harmless']);
  });

  it('runs the fields a skipped fragment leaves, and nothing the caller may not use', async () => {
    const before = await written();
    const query = `mutation($admin: Boolean!, $hide: Boolean!) {
      ... on Mutation { ${addItem()} }
      ... @include(if: $admin) { ${createApiKey('a')} }
      ...Key @skip(if: $hide)
    } fragment Key on Mutation { ${createApiKey('b')} }`;
    const { body } = await post(query, proposer, { admin: false, hide: true });
    expect(body.errors).toBeUndefined();
    expect(body.data).toEqual({ addItem: { __typename: 'AddItemPayload' } });
    const after = await written();
    expect(after.items).toBe(before.items + 1);
    expect(after.apiKeys).toBe(before.apiKeys);
  });

  it('refuses a fragment-wrapped mutation over HTTP GET (405) without running it', async () => {
    const before = await written();
    const query = `mutation { ... on Mutation { ${addItem()} } }`;
    const response = await fetch(`${server.url}/graphql?query=${encodeURIComponent(query)}`, {
      headers: { ...proposer.headers, 'x-graphql-yoga-csrf': '1', accept: 'application/json' },
    });
    expect(response.status).toBe(405);
    expect(await written()).toEqual(before);
  });
});

describe('root fields in fragments: each one counts against the rate limit (50/s, burst 100)', () => {
  /** Operations of aliased addItem fields (20 aliases at most, the document limit), and how many changes each runs. */
  const shapes: Record<string, () => { query: string; changes: number }> = {
    'inline fragments': () => ({
      query: `mutation { ... on Mutation { ${Array.from({ length: 20 }, (_, n) => `... { ${addItem(`a${n}`)} }`).join(' ')} } }`,
      changes: 20,
    }),
    'named fragment spreads': () => {
      const half = (from: number) => Array.from({ length: 10 }, (_, n) => addItem(`a${from + n}`)).join(' ');
      return {
        query: `mutation { ...A ...B } fragment A on Mutation { ${half(0)} } fragment B on Mutation { ... on Mutation { ${half(10)} } }`,
        changes: 20,
      };
    },
    // The same response key twice runs once (graphql-js merges the fields), so it costs once.
    'the same aliased fields twice, in two fragments': () => {
      const fields = Array.from({ length: 10 }, (_, n) => addItem(`a${n}`)).join(' ');
      return { query: `mutation { ... on Mutation { ${fields} } ...Again } fragment Again on Mutation { ${fields} }`, changes: 10 };
    },
  };

  let principals = 0;
  /** Sends operations until a full bucket (100) is spent, then two more: those are refused whole. */
  const flood = async (send: (query: string) => Promise<{ code: unknown }>, shape: () => { query: string; changes: number }) => {
    const before = await written();
    const { changes } = shape();
    const allowed = 100 / changes;
    const codes: unknown[] = [];
    for (let n = 0; n < allowed + 2; n++) codes.push((await send(shape().query)).code);
    expect(codes).toEqual([...Array.from({ length: allowed }, () => null), 'RATE_LIMITED', 'RATE_LIMITED']);
    expect((await written()).items).toBe(before.items + 100);
  };

  for (const [name, shape] of Object.entries(shapes)) {
    it(`over HTTP POST: ${name}`, async () => {
      const client = await server.as(`flood-${++principals}`, ['PROPOSER']);
      await flood(async (query) => {
        const { status, body } = await post(query, client);
        expect(status).toBe(body.errors ? 429 : 200);
        return { code: body.errors?.[0]?.extensions?.code ?? null };
      }, shape);
    });

    it(`over WebSocket: ${name}`, async () => {
      const client = await server.as(`flood-${++principals}`, ['PROPOSER']);
      const ws: WsClient = await connectWs(server.url, client.headers);
      try {
        await flood(async (query) => {
          const result = await ws.execute(query);
          return { code: result.errors?.[0]?.extensions?.code ?? null };
        }, shape);
      } finally {
        await ws.close();
      }
    });
  }
});
