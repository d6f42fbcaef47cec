// Slow or idle clients cannot hold the server's connections: header and request timeouts, and a cap
// on the connections one address may have open. Real server processes, raw TCP clients.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/json-setting.js';
import { loadConfig } from '../../src/config.js';
import { type TestDatabase, testDatabase } from '../support/database.js';
import { createKey, type KeyHolder, post, type StartedServer, startServerProcess } from '../support/process.js';
import { connectWs, waitFor } from '../support/ws.js';

let database: TestDatabase;
let admin: KeyHolder;
const servers: StartedServer[] = [];
beforeAll(async () => {
  database = await testDatabase();
  admin = await createKey(database, 'admin', ['ADMIN']);
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.kill()));
  await database?.cleanup();
});

async function start(env: Record<string, string>): Promise<StartedServer> {
  const server = await startServerProcess({ BOOTSTRAP_ADMIN_KEY: 'false', ...env }, { database });
  servers.push(server);
  return server;
}

/** A raw TCP connection: what it received, and when it closed (ms after it was opened). */
interface Raw {
  socket: net.Socket;
  received: () => string;
  closed: Promise<number>;
}

async function connect(server: StartedServer, localAddress?: string): Promise<Raw> {
  const { hostname, port } = new URL(server.url);
  const opened = performance.now();
  const socket = net.connect({ host: hostname, port: Number(port), localAddress });
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    received += chunk;
  });
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - opened)));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, received: () => received, closed };
}

/** GET /health over a connection of its own from `localAddress`: the status line, or null when the server closed it unanswered. */
async function health(server: StartedServer, localAddress?: string): Promise<string | null> {
  const raw = await connect(server, localAddress);
  raw.socket.write('GET /health HTTP/1.1\r\nHost: leasehold\r\nConnection: close\r\n\r\n');
  await raw.closed;
  return raw.received().split('\r\n')[0] || null;
}

describe('request timeouts', () => {
  const HEADERS_MS = 500;
  const REQUEST_MS = 1_000;
  let server: StartedServer;
  beforeAll(async () => {
    server = await start({ HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS), HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS) });
  });

  it('cut off headers and bodies that arrive slowly with a 408, while WebSocket and SSE streams live on', async () => {
    const ws = await connectWs(server.url, admin.headers);
    const overWs = ws.subscribe<{ queueEvents: { type: string } }>('subscription { queueEvents { type } }');
    const sseAbort = new AbortController();
    const sse = await fetch(`${server.url}/graphql?${new URLSearchParams({ query: 'subscription { queueEvents { type } }' })}`, {
      headers: { accept: 'text/event-stream', 'x-graphql-yoga-csrf': '1', ...admin.headers },
      signal: sseAbort.signal,
    });
    expect(sse.status).toBe(200);
    let overSse = '';
    const sseReading = (async () => {
      const reader = (sse.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      for (let read = await reader.read(); !read.done; read = await reader.read()) overSse += decoder.decode(read.value, { stream: true });
    })().catch(() => undefined);

    try {
      // Headers without their end, then nothing.
      const slowHeaders = await connect(server);
      slowHeaders.socket.write('POST /graphql HTTP/1.1\r\nHost: leasehold\r\nContent-Type: application/json\r\n');
      // Whole headers, the first bytes of a body of 1,000, then nothing.
      const slowBody = await connect(server);
      slowBody.socket.write(
        `POST /graphql HTTP/1.1\r\nHost: leasehold\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nAuthorization: ${admin.headers.authorization}\r\n\r\n{"query":"`,
      );
      const [headersCut, bodyCut] = await Promise.all([slowHeaders.closed, slowBody.closed]);
      expect(slowHeaders.received()).toMatch(/^HTTP\/1\.1 408 /);
      expect(slowBody.received()).toMatch(/^HTTP\/1\.1 408 /);
      // Node looks for overdue requests once a second at most: cut within a second or so of the timeout.
      expect(headersCut).toBeGreaterThanOrEqual(HEADERS_MS - 50);
      expect(headersCut).toBeLessThan(HEADERS_MS + 2_000);
      expect(bodyCut).toBeGreaterThanOrEqual(REQUEST_MS - 50);
      expect(bodyCut).toBeLessThan(REQUEST_MS + 2_000);

      // Both streams, opened before the cut-offs, still deliver.
      const { status } = await post(
        server.url,
        'mutation { addCategories(input: { names: ["after-the-cut"] }) { __typename } }',
        {},
        admin.headers,
      );
      expect(status).toBe(200);
      await waitFor(() => overWs.data.some((data) => data.queueEvents.type === 'CATEGORY_ADDED'), 10_000);
      await waitFor(() => overSse.includes('CATEGORY_ADDED'), 10_000);
      expect(overWs.error).toBeNull();
    } finally {
      sseAbort.abort();
      await sseReading;
      await ws.close();
    }
  });
});

describe('connections per address', () => {
  const LIMIT = 3;
  let server: StartedServer;
  beforeAll(async () => {
    server = await start({ MAX_CONNECTIONS_PER_ADDRESS: String(LIMIT) });
  });

  it('beyond the limit a new connection is closed unanswered; other addresses are not affected; a freed one can be used again', async () => {
    const held = await Promise.all(Array.from({ length: LIMIT }, () => connect(server)));
    for (const _ of [1, 2]) expect(await health(server)).toBeNull();
    // The same machine from another loopback address is another client.
    expect(await health(server, '127.0.0.2')).toBe('HTTP/1.1 200 OK');

    held[0]?.socket.destroy();
    await held[0]?.closed;
    // The server notices the close on its own turn: poll with real requests until it has.
    let status: string | null = null;
    for (let attempt = 0; attempt < 100 && status === null; attempt++) status = await health(server);
    expect(status).toBe('HTTP/1.1 200 OK');

    const warnings = server.stdout.filter((line) => line.includes('refusing connections from an address at its limit'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0] as string)).toMatchObject({ level: 40, address: '127.0.0.1', limit: LIMIT });
    for (const raw of held) raw.socket.destroy();
  });
});

describe('the settings', () => {
  it('have defaults, can turn the address limit off, and refuse a header timeout longer than the request timeout', () => {
    expect(loadConfig({}).connectionLimits).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, perAddress: 1_024 });
    expect(loadConfig({ MAX_CONNECTIONS_PER_ADDRESS: '0' }).connectionLimits.perAddress).toBe(0);
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '40000' })).toThrow(ConfigError);
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '40000' })).toThrow(
      /HTTP_HEADERS_TIMEOUT_MS must not be longer than HTTP_REQUEST_TIMEOUT_MS/,
    );
    expect(() => loadConfig({ HTTP_REQUEST_TIMEOUT_MS: '10' })).toThrow(/HTTP_REQUEST_TIMEOUT_MS/);
  });
});
