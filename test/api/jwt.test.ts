// Signed tokens from an identity provider: HS256 with a shared secret, ES256/RS256 with a public
// key; refused when the signature, expiry, issuer, audience, name or roles are wrong or missing.
import { exportSPKI, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/json-setting.js';
import { loadConfig } from '../../src/config.js';
import { postGraphQL, startTestServer, type TestServer } from '../support/server.js';

const SECRET = 'a-test-secret-that-is-long-enough-0123456789';
const ISSUER = 'https://idp.example.test';
const AUDIENCE = 'leasehold';

type Body = { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] };

async function whoAmI(server: TestServer, token: string) {
  const response = await postGraphQL(
    server.url,
    '{ viewer { name roles credential credentialExpiresAt } }',
    {},
    { authorization: `Bearer ${token}` },
  );
  return { status: response.status, body: (await response.json()) as Body };
}

describe('JWT with an HS256 secret', () => {
  let server: TestServer;
  const now = () => Math.floor(server.clock.now().getTime() / 1000);
  const sign = (claims: JWTPayload, options: { secret?: string; alg?: string; expiresIn?: number | null } = {}) => {
    const jwt = new SignJWT({ roles: ['REVIEWER'], iss: ISSUER, aud: AUDIENCE, ...claims })
      .setProtectedHeader({ alg: options.alg ?? 'HS256' })
      .setIssuedAt(now());
    if (options.expiresIn !== null) jwt.setExpirationTime(now() + (options.expiresIn ?? 600));
    return jwt.sign(new TextEncoder().encode(options.secret ?? SECRET));
  };

  beforeAll(async () => {
    server = await startTestServer({
      config: {
        jwt: {
          algorithm: 'HS256',
          key: SECRET,
          issuer: ISSUER,
          audience: AUDIENCE,
          nameClaim: 'sub',
          rolesClaim: 'roles',
          clockToleranceSeconds: 5,
        },
      },
    });
  });
  afterAll(() => server.stop());

  it('authenticates the subject with the roles in the token', async () => {
    const { status, body } = await whoAmI(server, await sign({ sub: 'kenji', roles: ['reviewer', 'VIEWER', 'not-a-role'] }));
    expect(status).toBe(200);
    expect(body.data?.viewer).toEqual({
      name: 'kenji',
      roles: ['REVIEWER', 'VIEWER'],
      credential: 'JWT',
      credentialExpiresAt: new Date((now() + 600) * 1000).toISOString(),
    });
  });

  it('accepts roles as a space-separated string', async () => {
    const { body } = await whoAmI(server, await sign({ sub: 'kenji', roles: 'PROPOSER VIEWER' }));
    expect(body.data?.viewer).toMatchObject({ roles: ['PROPOSER', 'VIEWER'] });
  });

  it('records the subject as lease holder', async () => {
    const token = await sign({ sub: 'kenji' });
    const body = (await (
      await postGraphQL(
        server.url,
        'mutation { claimItem(input: {}) { ... on ClaimItemPayload { claimed } } }',
        {},
        { authorization: `Bearer ${token}` },
      )
    ).json()) as Body;
    expect(body.data?.claimItem).toEqual({ claimed: false });
  });

  it.each([
    [
      'a wrong signature',
      () => sign({ sub: 'kenji' }, { secret: 'another-secret-that-is-long-enough-012345' }),
      'signature does not verify',
    ],
    ['an expired token', () => sign({ sub: 'kenji' }, { expiresIn: -60 }), 'expired'],
    ['no expiry', () => sign({ sub: 'kenji' }, { expiresIn: null }), '"exp" claim'],
    ['no roles', () => sign({ sub: 'kenji', roles: [] }), 'no Leasehold role'],
    ['only unknown roles', () => sign({ sub: 'kenji', roles: ['superuser'] }), 'no Leasehold role'],
    ['no subject', () => sign({}), '"sub" claim'],
    ['a subject with control characters', () => sign({ sub: 'ken\u0007ji' }), '"sub" claim must be'],
    ['another issuer', () => sign({ sub: 'kenji', iss: 'https://evil.example.test' }), '"iss" claim'],
    ['another audience', () => sign({ sub: 'kenji', aud: 'someone-else' }), '"aud" claim'],
    [
      'alg "none"',
      async () =>
        `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'kenji', roles: ['ADMIN'], exp: now() + 60 })).toString('base64url')}.x`,
      'algorithm',
    ],
  ])('refuses %s with 401', async (_case, make, message) => {
    const { status, body } = await whoAmI(server, await make());
    expect(status).toBe(401);
    expect(body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(body.errors?.[0]?.message).toContain(message);
  });

  it('follows the injected clock for expiry, with the configured tolerance', async () => {
    const token = await sign({ sub: 'kenji' }, { expiresIn: 60 });
    expect((await whoAmI(server, token)).status).toBe(200);
    server.clock.advance(64_000);
    expect((await whoAmI(server, token)).status).toBe(200);
    server.clock.advance(2_000);
    expect((await whoAmI(server, token)).status).toBe(401);
  });
});

describe('JWT with a public key', () => {
  it.each(['ES256', 'RS256'] as const)('verifies %s tokens against the configured PEM key and refuses others', async (algorithm) => {
    const { publicKey, privateKey } = await generateKeyPair(algorithm);
    const other = await generateKeyPair(algorithm);
    const server = await startTestServer({
      config: {
        jwt: {
          algorithm,
          key: await exportSPKI(publicKey),
          issuer: null,
          audience: null,
          nameClaim: 'email',
          rolesClaim: 'realm_access.roles',
          clockToleranceSeconds: 0,
        },
      },
    });
    try {
      const exp = Math.floor(server.clock.now().getTime() / 1000) + 300;
      const claims = { email: 'ops@example.test', realm_access: { roles: ['admin'] }, exp };
      const good = await new SignJWT(claims).setProtectedHeader({ alg: algorithm }).sign(privateKey);
      expect((await whoAmI(server, good)).body.data?.viewer).toMatchObject({ name: 'ops@example.test', roles: ['ADMIN'] });
      const forged = await new SignJWT(claims).setProtectedHeader({ alg: algorithm }).sign(other.privateKey);
      expect((await whoAmI(server, forged)).status).toBe(401);
      // An HS256 token "signed" with the public key text must not pass (algorithm confusion).
      const confused = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .sign(new TextEncoder().encode(await exportSPKI(publicKey)));
      const refused = await whoAmI(server, confused);
      expect(refused.status).toBe(401);
      expect(refused.body.errors?.[0]?.message).toContain('algorithm');
    } finally {
      await server.stop();
    }
  });
});

describe('JWT configuration', () => {
  it('takes a secret for HS256 or a PEM public key for RS256/ES256, and refuses mixes', () => {
    expect(loadConfig({ JWT_SECRET: SECRET }).jwt).toMatchObject({ algorithm: 'HS256', nameClaim: 'sub', rolesClaim: 'roles' });
    expect(loadConfig({}).jwt).toBeNull();
    expect(() => loadConfig({ JWT_SECRET: 'short' })).toThrow(ConfigError);
    expect(() => loadConfig({ JWT_SECRET: SECRET, JWT_ALGORITHM: 'RS256' })).toThrow(/HS256 takes JWT_SECRET/);
    expect(() => loadConfig({ JWT_PUBLIC_KEY: 'not a pem' })).toThrow(/PEM/);
    expect(() => loadConfig({ JWT_ALGORITHM: 'ES256' })).toThrow(/needs JWT_SECRET or JWT_PUBLIC_KEY/);
  });

  it('refuses to start with a public key that does not parse', async () => {
    await expect(
      startTestServer({
        config: {
          jwt: {
            algorithm: 'ES256',
            key: '-----BEGIN PUBLIC KEY-----\nbm90IGEga2V5\n-----END PUBLIC KEY-----',
            issuer: null,
            audience: null,
            nameClaim: 'sub',
            rolesClaim: 'roles',
            clockToleranceSeconds: 0,
          },
        },
      }),
    ).rejects.toThrow();
  });
});
