// Two API keys share a principal name only when the administrator says they are the same principal,
// and the history then names the keys; over GraphQL and on the command line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLines, runLeasehold, tempDir } from '../cli/support.js';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';

let server: TestServer;
let admin: TestClient;
let scratch: { dir: string; cleanup(): void };
beforeAll(async () => {
  server = await startTestServer();
  admin = await server.as('names-admin', ['ADMIN']);
  scratch = tempDir('leasehold-principal-names-');
});
afterAll(async () => {
  await server?.stop();
  scratch?.cleanup();
});

type Made = { __typename: string; key?: string; apiKey?: { id: number }; code?: string; field?: string; message?: string };

async function createKey(name: string, samePrincipal?: boolean): Promise<Made> {
  const body = (await (
    await postGraphQL(
      server.url,
      `mutation ($name: String!, $same: Boolean!) {
        createApiKey(input: { name: $name, roles: [REVIEWER], samePrincipal: $same }) {
          __typename
          ... on CreateApiKeyPayload { key apiKey { id } }
          ... on UserError { code field message }
        }
      }`,
      { name, same: samePrincipal ?? false },
      admin.headers,
    )
  ).json()) as { data?: { createApiKey: Made }; errors?: unknown };
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data?.createApiKey as Made;
}

async function keyCreatedDetails(name: string): Promise<Record<string, unknown>[]> {
  const body = (await (
    await postGraphQL(
      server.url,
      '{ events(first: 100, filter: { types: [API_KEY_CREATED] }) { edges { node { details } } } }',
      {},
      admin.headers,
    )
  ).json()) as { data: { events: { edges: { node: { details: Record<string, unknown> } }[] } } };
  return body.data.events.edges.map((edge) => edge.node.details).filter((details) => details.name === name);
}

describe('a principal name another key has', () => {
  it('over GraphQL: refused unless samePrincipal, and the history names the keys it shares the name with', async () => {
    const first = await createKey('ito');
    const firstId = first.apiKey?.id as number;
    expect(first.__typename).toBe('CreateApiKeyPayload');

    const refused = await createKey('ito');
    expect(refused).toMatchObject({ __typename: 'UserError', code: 'PRINCIPAL_NAME_TAKEN', field: 'name' });
    expect(refused.message).toBe(
      `API key ${firstId} already acts as "ito": a new key with this name would act as the same principal (its leases, proposals and history). Say so with samePrincipal (--same-principal), or choose another name.`,
    );
    expect(await server.db.read.apiKey.count({ where: { name: 'ito' } })).toBe(1);

    const second = await createKey('ito', true);
    expect(second.__typename).toBe('CreateApiKeyPayload');
    const secondId = second.apiKey?.id as number;
    expect(await keyCreatedDetails('ito')).toEqual([
      { keyId: firstId, name: 'ito', roles: 'REVIEWER' },
      { keyId: secondId, name: 'ito', roles: 'REVIEWER', samePrincipalAs: String(firstId) },
    ]);

    // A revoked key's name is still its principal's.
    await postGraphQL(
      server.url,
      'mutation ($id: Int!) { revokeApiKey(input: { id: $id }) { __typename } }',
      { id: firstId },
      admin.headers,
    );
    await postGraphQL(
      server.url,
      'mutation ($id: Int!) { revokeApiKey(input: { id: $id }) { __typename } }',
      { id: secondId },
      admin.headers,
    );
    expect(await createKey('ito')).toMatchObject({
      code: 'PRINCIPAL_NAME_TAKEN',
      message: expect.stringMatching(/^API keys \d+, \d+ already act as "ito"/),
    });
  });

  it('with `leasehold keys create`: refused (principal_name_taken) unless --same-principal', async () => {
    const db = server.file === '' ? server.databaseUrl : server.file;
    const create = (...extra: string[]) =>
      runLeasehold(['keys', 'create', '--db', db, '--name', 'ops', '--role', 'viewer', ...extra], { cwd: scratch.dir });
    const first = await create();
    expect(first.code, first.stderr).toBe(0);
    const [made] = jsonLines(first.stdout) as { id: number }[];

    const refused = await create();
    expect(refused.code).toBe(2);
    expect(jsonLines(refused.stderr)).toEqual([
      expect.objectContaining({
        ok: false,
        error: 'principal_name_taken',
        message: expect.stringContaining(`API key ${made?.id} already acts as "ops"`),
      }),
    ]);

    const same = await create('--same-principal');
    expect(same.code, same.stderr).toBe(0);
    const [second] = jsonLines(same.stdout) as { id: number }[];
    expect(await keyCreatedDetails('ops')).toEqual([
      { keyId: made?.id, name: 'ops', roles: 'VIEWER' },
      { keyId: second?.id, name: 'ops', roles: 'VIEWER', samePrincipalAs: String(made?.id) },
    ]);
  });
});
