// WebSocket authentication: the credential travels in connectionParams; connections without a
// valid one are closed with 4401, and a revoked key or an expired token ends the connection.
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { revokeApiKey } from '../../src/services/api-keys.js';
import { hs256, postGraphQL, startTestServer, type TestServer } from '../support/server.js';
import { connectWs, waitFor } from '../support/ws.js';

const SECRET = 'a-websocket-test-secret-long-enough-0123456789';

/** The close event a refused connection ends with. */
async function refusal(url: string, params: Record<string, unknown>): Promise<{ code: number; reason: string }> {
  try {
    const ws = await connectWs(url, params);
    await ws.close();
  } catch (error) {
    return error as { code: number; reason: string };
  }
  throw new Error('the connection was accepted');
}

describe('WebSocket authentication', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      config: {
        jwt: hs256(SECRET),
      },
    });
  });
  afterAll(() => server.stop());

  it.each([
    ['no connectionParams', {}, 'Send a credential'],
    ['an unknown key', { authorization: `Bearer lhk_${'B'.repeat(43)}` }, 'unknown or has been revoked'],
    ['a credential that is not a string', { authorization: 42 }, 'Send a credential'],
  ])('closes a connection with %s (4401)', async (_case, params, reason) => {
    const closed = await refusal(server.url, params);
    expect(closed.code).toBe(4401);
    expect(closed.reason).toContain(reason);
  });

  it('accepts a key in connectionParams and runs operations as its principal', async () => {
    const viewer = await server.as('screen', ['VIEWER']);
    const ws = await connectWs(server.url, viewer.headers);
    try {
      expect((await ws.execute('{ viewer { name } }')).data).toEqual({ viewer: { name: 'screen' } });
      expect((await ws.execute('mutation { claimItem(input: {}) { __typename } }')).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    } finally {
      await ws.close();
    }
  });

  it('closes the connections of a key revoked over GraphQL (4403), and refuses new ones', async () => {
    const viewer = await server.as('soon-revoked', ['VIEWER']);
    const ws = await connectWs(server.url, viewer.headers);
    const stats = ws.subscribe('subscription { queueStats { pending } }');
    await waitFor(() => stats.data.length > 0);
    const admin = await server.as('root', ['ADMIN']);
    const key = await server.db.read.apiKey.findFirstOrThrow({ where: { name: 'soon-revoked' } });
    const response = await postGraphQL(
      server.url,
      'mutation($id: Int!) { revokeApiKey(input: { id: $id }) { __typename } }',
      { id: key.id },
      admin.headers,
    );
    expect(await response.json()).toEqual({ data: { revokeApiKey: { __typename: 'RevokeApiKeyPayload' } } });
    await ws.closed;
    expect(ws.closeEvent).toMatchObject({ code: 4403 });
    expect((await refusal(server.url, viewer.headers)).code).toBe(4401);
  });

  it('closes the connections of a key revoked by another process, through the event feed', async () => {
    const viewer = await server.as('revoked-elsewhere', ['VIEWER']);
    const ws = await connectWs(server.url, viewer.headers);
    const key = await server.db.read.apiKey.findFirstOrThrow({ where: { name: 'revoked-elsewhere' } });
    // A second connection to the database (the SQLite file, or the PostgreSQL database): its commits reach the
    // server only through the database, as another process's would.
    const elsewhere = await openDatabase({ location: server.db.location });
    try {
      await revokeApiKey({ db: elsewhere, clock: server.clock }, { name: 'ops', authenticated: false }, key.id);
    } finally {
      await elsewhere.close();
    }
    await ws.closed;
    expect(ws.closeEvent).toMatchObject({ code: 4403 });
  });

  it('closes a JWT connection when the token expires on the server clock (4401)', async () => {
    const exp = Math.floor(server.clock.now().getTime() / 1000) + 120;
    const token = await new SignJWT({ sub: 'kiosk', roles: ['VIEWER'], exp })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(SECRET));
    const ws = await connectWs(server.url, { authorization: `Bearer ${token}` });
    expect((await ws.execute('{ viewer { name credential } }')).data).toEqual({ viewer: { name: 'kiosk', credential: 'JWT' } });
    server.clock.advance(119_000);
    expect((await ws.execute('{ viewer { name } }')).data).toEqual({ viewer: { name: 'kiosk' } });
    server.clock.advance(1_000);
    await ws.closed;
    expect(ws.closeEvent).toMatchObject({ code: 4401, reason: expect.stringContaining('expired') });
  });
});
