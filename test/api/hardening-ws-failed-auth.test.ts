// A WebSocket refused for its credential (4401) costs its address as an HTTP 401 does, from the same
// allowance (30 at once, then one a second): past it, the connection is closed 4429 with the wait, so
// keys cannot be tried over WebSocket without the per-address limit. A valid key is never held back.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { postGraphQL, startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await server?.stop();
});

const BAD_KEY = `lhk_${'A'.repeat(43)}`;

/** Opens a graphql-transport-ws connection with `authorization` and resolves with how it ended (or 'ack'). */
function connect(authorization: string): Promise<{ code: number; reason: string } | 'ack'> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization } })));
    socket.on('message', (data) => {
      if ((JSON.parse(String(data)) as { type: string }).type === 'connection_ack') {
        socket.close(1000);
        resolve('ack');
      }
    });
    socket.on('close', (code, reason) => resolve({ code, reason: String(reason) }));
    socket.on('error', reject);
  });
}

const badHttp = () => postGraphQL(server.url, '{ viewer { name } }', {}, { authorization: `Bearer ${BAD_KEY}` });

describe('failed authentications over WebSocket', () => {
  it('count against the address: 30 are refused 4401, the next 4429 with the wait; then one a second', async () => {
    for (let n = 0; n < 30; n++) expect(await connect(`Bearer ${BAD_KEY}`)).toMatchObject({ code: 4401 });
    expect(await connect(`Bearer ${BAD_KEY}`)).toEqual({
      code: 4429,
      reason: 'Too many failed authentications from this address: retry in 1 s.',
    });
    // The same allowance as HTTP's 401s.
    expect((await badHttp()).status).toBe(429);
    // A valid key from the same address is never held back.
    const viewer = await server.as('ws-viewer', ['VIEWER']);
    expect(await connect(`Bearer ${viewer.key}`)).toBe('ack');
    server.clock.advance(1_000);
    expect(await connect(`Bearer ${BAD_KEY}`)).toMatchObject({ code: 4401 });
    expect(await connect(`Bearer ${BAD_KEY}`)).toMatchObject({ code: 4429 });
  });

  it('share the allowance with HTTP: after 30 HTTP 401s, a WebSocket without a credential is closed 4429', async () => {
    for (let n = 0; n < 30; n++) expect((await badHttp()).status).toBe(401);
    expect(await connect('')).toMatchObject({ code: 4429 });
  });
});
