// The history every role reads names an API key by its id, never by any part of its secret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLines, runLeasehold, tempDir } from '../cli/support.js';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';

let server: TestServer;
let admin: TestClient;
let viewer: TestClient;
let scratch: { dir: string; cleanup(): void };
beforeAll(async () => {
  server = await startTestServer();
  admin = await server.as('keys-admin', ['ADMIN']);
  viewer = await server.as('keys-viewer', ['VIEWER']);
  scratch = tempDir('leasehold-key-events-');
});
afterAll(async () => {
  await server?.stop();
  scratch?.cleanup();
});

async function run<T>(client: TestClient, query: string, variables?: Record<string, unknown>): Promise<T> {
  const body = (await (await postGraphQL(server.url, query, variables, client.headers)).json()) as { data?: T; errors?: unknown };
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data as T;
}

type KeyEvent = { type: string; actor: string; details: Record<string, unknown> };

/** The key events as a VIEWER reads them. */
async function keyEvents(): Promise<KeyEvent[]> {
  const data = await run<{ events: { edges: { node: KeyEvent }[] } }>(
    viewer,
    '{ events(first: 100, filter: { types: [API_KEY_CREATED, API_KEY_REVOKED] }) { edges { node { type actor details } } } }',
  );
  return data.events.edges.map((edge) => edge.node);
}

/** Every 4-character piece of the key's secret (what follows `lhk_`). */
function pieces(key: string): string[] {
  const secret = key.slice('lhk_'.length);
  return Array.from({ length: secret.length - 3 }, (_, at) => secret.slice(at, at + 4));
}

describe('API key events', () => {
  it('made and revoked over GraphQL: the details name the key id, and carry no part of the secret', async () => {
    const made = await run<{ createApiKey: { key: string; apiKey: { id: number; prefix: string } } }>(
      admin,
      'mutation { createApiKey(input: { name: "ito", roles: [REVIEWER] }) { ... on CreateApiKeyPayload { key apiKey { id prefix } } } }',
    );
    const { key, apiKey } = made.createApiKey;
    // ADMINs still tell keys apart by their prefix in the listing.
    expect(apiKey.prefix).toBe(key.slice(0, 12));
    await run(admin, 'mutation ($id: Int!) { revokeApiKey(input: { id: $id }) { __typename } }', { id: apiKey.id });

    const mine = (await keyEvents()).filter((event) => event.details.keyId === apiKey.id);
    expect(mine).toEqual([
      { type: 'API_KEY_CREATED', actor: 'keys-admin', details: { keyId: apiKey.id, name: 'ito', roles: 'REVIEWER' } },
      { type: 'API_KEY_REVOKED', actor: 'keys-admin', details: { keyId: apiKey.id, name: 'ito' } },
    ]);
    const text = JSON.stringify(mine);
    for (const piece of pieces(key)) expect(text).not.toContain(piece);
  });

  it('made and revoked with `leasehold keys`: the same', async () => {
    const db = server.file === '' ? server.databaseUrl : server.file;
    const created = await runLeasehold(['keys', 'create', '--db', db, '--name', 'ops', '--role', 'viewer'], { cwd: scratch.dir });
    expect(created.code, created.stderr).toBe(0);
    const [made] = jsonLines(created.stdout) as { id: number; key: string; prefix: string }[];
    if (!made) throw new Error(created.stdout);
    expect(made.prefix).toBe(made.key.slice(0, 12));
    const revoked = await runLeasehold(['keys', 'revoke', String(made.id), '--db', db], { cwd: scratch.dir });
    expect(revoked.code, revoked.stderr).toBe(0);

    const mine = (await keyEvents()).filter((event) => event.details.keyId === made.id);
    expect(mine.map((event) => [event.type, event.details])).toEqual([
      ['API_KEY_CREATED', { keyId: made.id, name: 'ops', roles: 'VIEWER' }],
      ['API_KEY_REVOKED', { keyId: made.id, name: 'ops' }],
    ]);
    const text = JSON.stringify(mine);
    for (const piece of pieces(made.key)) expect(text).not.toContain(piece);
  });
});
