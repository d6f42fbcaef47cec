// An API key cannot take a name the server records its own changes under (`system`, `cli`, `cli:<user>`),
// as a JWT cannot claim one: over GraphQL and with `leasehold keys create`, the same RESERVED_NAME.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLines, runLeasehold, tempDir } from '../cli/support.js';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';

let server: TestServer;
let admin: TestClient;
let scratch: { dir: string; cleanup(): void };
beforeAll(async () => {
  server = await startTestServer();
  admin = await server.as('reserved-admin', ['ADMIN']);
  scratch = tempDir('leasehold-key-names-');
});
afterAll(async () => {
  await server?.stop();
  scratch?.cleanup();
});

const RESERVED = ['system', 'System', 'ｓｙｓｔｅｍ', 'cli', 'cli:root', 'CLI:deploy'];

async function createKey(name: string, samePrincipal = false): Promise<Record<string, unknown>> {
  const response = await postGraphQL(
    server.url,
    `mutation ($name: String!, $same: Boolean!) {
      createApiKey(input: { name: $name, roles: [ADMIN], samePrincipal: $same }) {
        __typename
        ... on CreateApiKeyPayload { apiKey { name } }
        ... on UserError { code field message }
      }
    }`,
    { name, same: samePrincipal },
    admin.headers,
  );
  const body = (await response.json()) as { data?: { createApiKey: Record<string, unknown> }; errors?: unknown };
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data?.createApiKey as Record<string, unknown>;
}

async function keysNamed(names: string[]): Promise<number> {
  return server.db.read.apiKey.count({ where: { name: { in: names } } });
}

describe('createApiKey with a name the server uses itself', () => {
  it('is refused with RESERVED_NAME on the name, with samePrincipal too, and nothing is written', async () => {
    for (const name of RESERVED) {
      for (const same of [false, true]) {
        expect(await createKey(name, same), name).toEqual({
          __typename: 'UserError',
          code: 'RESERVED_NAME',
          field: 'name',
          message: `"${name}" is a name the server records its own changes under (system, cli, cli:<user>): no key may act as it, even as the same principal; choose another name.`,
        });
      }
    }
    expect(await keysNamed(RESERVED)).toBe(0);
  });

  it('names that only contain one are still made', async () => {
    for (const name of ['systems', 'my-system', 'client', 'ops:cli']) {
      expect(await createKey(name), name).toEqual({ __typename: 'CreateApiKeyPayload', apiKey: { name } });
    }
  });

  it('with `leasehold keys create`: refused (reserved_name, exit 2), nothing written', async () => {
    const db = server.file === '' ? server.databaseUrl : server.file;
    for (const name of ['system', 'cli:root']) {
      const refused = await runLeasehold(['keys', 'create', '--db', db, '--name', name, '--role', 'admin', '--same-principal'], {
        cwd: scratch.dir,
      });
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stdout).toBe('');
      expect(jsonLines(refused.stderr)).toEqual([
        expect.objectContaining({
          ok: false,
          error: 'reserved_name',
          message: expect.stringContaining(`"${name}" is a name the server records`),
        }),
      ]);
    }
    expect(await keysNamed(RESERVED)).toBe(0);
  });
});
