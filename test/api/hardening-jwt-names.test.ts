// A token cannot claim a name the server records for its own changes.
import { type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hs256, postGraphQL, startTestServer, type TestServer } from '../support/server.js';

const SECRET = 'a-test-secret-that-is-long-enough-0123456789';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ config: { jwt: hs256(SECRET) } });
});
afterAll(async () => {
  await server?.stop();
});

async function sign(claims: JWTPayload): Promise<string> {
  const now = Math.floor(server.clock.now().getTime() / 1000);
  return new SignJWT({ roles: ['ADMIN', 'REVIEWER'], ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(new TextEncoder().encode(SECRET));
}

async function asToken(token: string, query: string) {
  const response = await postGraphQL(server.url, query, {}, { authorization: `Bearer ${token}` });
  return {
    status: response.status,
    body: (await response.json()) as { data?: unknown; errors?: { message: string; extensions?: unknown }[] },
  };
}

describe('a JWT naming a principal the server uses itself', () => {
  it('is refused with a 401 that says why, and changes nothing', async () => {
    for (const sub of ['system', 'System', 'ｓｙｓｔｅｍ', 'cli', 'cli:root', 'CLI:deploy']) {
      const { status, body } = await asToken(
        await sign({ sub }),
        'mutation { addCategories(input: { names: ["spoofed"] }) { __typename } }',
      );
      expect(status, sub).toBe(401);
      expect(body.errors, sub).toEqual([
        {
          message: `The token's "sub" claim names "${sub}", which the server uses for its own changes: no token may claim it.`,
          extensions: { code: 'UNAUTHENTICATED' },
        },
      ]);
    }
    expect(await server.db.read.category.count({ where: { name: 'spoofed' } })).toBe(0);
  });

  it('names that only contain one are still accepted', async () => {
    for (const sub of ['systems', 'sys', 'my-system', 'client', 'clio', 'ops:cli']) {
      const { status, body } = await asToken(await sign({ sub }), '{ viewer { name } }');
      expect(status, sub).toBe(200);
      expect(body.data, sub).toEqual({ viewer: { name: sub } });
    }
  });
});
