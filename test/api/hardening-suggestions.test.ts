// With introspection off, error messages suggest no names: guessing letter by letter would map the schema.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';
import { connectWs } from '../support/ws.js';

/** Mistakes graphql-js answers with a suggestion, and the name each one suggests. */
const MISTAKES: { query: string; variables?: Record<string, unknown>; suggests: string; says: string }[] = [
  { query: '{ itemz { pageInfo { hasNextPage } } }', suggests: '"items"', says: 'Cannot query field "itemz" on type "Query".' },
  {
    query: '{ items(frist: 1) { pageInfo { hasNextPage } } }',
    suggests: '"first"',
    says: 'Unknown argument "frist" on field "Query.items".',
  },
  {
    query: '{ items(filter: { statuss: PENDING }) { pageInfo { hasNextPage } } }',
    suggests: '"status"',
    says: 'Field "statuss" is not defined by type "ItemFilter".',
  },
  {
    query: '{ items(filter: { status: PENDIN }) { pageInfo { hasNextPage } } }',
    suggests: '"PENDING"',
    says: 'Value "PENDIN" does not exist in "ItemStatus" enum.',
  },
  {
    query: 'query ($f: ItemFiltr) { items(filter: $f) { pageInfo { hasNextPage } } }',
    suggests: '"ItemFilter"',
    says: 'Unknown type "ItemFiltr".',
  },
  {
    query: '{ item(batchId: "b", recordId: "r") { status } }',
    suggests: '"Item"',
    says: 'Cannot query field "status" on type "ItemLookupResult".',
  },
  // Not a validation error: execution coerces the variable, and graphql-js suggests there too.
  {
    query: 'query ($s: ItemStatus) { items(filter: { status: $s }) { pageInfo { hasNextPage } } }',
    variables: { s: 'PENDIN' },
    suggests: '"PENDING"',
    says: 'Variable "$s" got invalid value "PENDIN"; Value "PENDIN" does not exist in "ItemStatus" enum.',
  },
];

type Body = { errors?: { message: string }[] };

let hidden: TestServer;
let shown: TestServer;
let admin: TestClient;
beforeAll(async () => {
  [hidden, shown] = await Promise.all([startTestServer({ config: { introspection: false } }), startTestServer()]);
  admin = await hidden.as('suggestions-admin', ['ADMIN']);
});
afterAll(async () => {
  await Promise.all([hidden?.stop(), shown?.stop()]);
});

async function messagesOver(server: TestServer, client: TestClient, mistake: (typeof MISTAKES)[number]): Promise<string[]> {
  const body = (await (await postGraphQL(server.url, mistake.query, mistake.variables, client.headers)).json()) as Body;
  expect(body.errors, mistake.query).toBeDefined();
  return (body.errors ?? []).map((error) => error.message);
}

describe('field suggestions', () => {
  it('are left out of every message when introspection is off (asked twice: validation results are cached)', async () => {
    for (const mistake of MISTAKES) {
      for (const _ of [1, 2]) {
        const messages = await messagesOver(hidden, admin, mistake);
        expect(messages, mistake.query).toEqual([mistake.says]);
      }
    }
  });

  it('are left out over WebSocket too', async () => {
    const ws = await connectWs(hidden.url, admin.headers);
    try {
      for (const mistake of MISTAKES) {
        const answer = ws.subscribe(mistake.query, mistake.variables);
        await answer.ended;
        // graphql-ws answers a refused operation with an `error` message: a list of errors.
        const errors = (Array.isArray(answer.error) ? answer.error : (answer.results[0]?.errors ?? [])) as { message: string }[];
        expect(
          errors.map((error) => error.message),
          mistake.query,
        ).toEqual([mistake.says]);
      }
      const subscription = ws.subscribe('subscription { itemEventz(id: "x") { sequence } }');
      await subscription.ended;
      expect(JSON.stringify(subscription.error)).toContain('Cannot query field');
      expect(JSON.stringify(subscription.error)).not.toMatch(/Did you mean|itemEvents/);
    } finally {
      await ws.close();
    }
  });

  it('stay on when introspection is on: operators exploring the schema in GraphiQL are helped', async () => {
    const operator = await shown.as('suggestions-operator', ['ADMIN']);
    for (const mistake of MISTAKES) {
      const messages = await messagesOver(shown, operator, mistake);
      expect(messages.join('\n'), mistake.query).toContain(`Did you mean`);
      expect(messages.join('\n'), mistake.query).toContain(mistake.suggests);
    }
  });
});
