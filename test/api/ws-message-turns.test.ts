// Each message a WebSocket client sends is handled on a turn of the event loop of its own (ws's
// allowSynchronousEvents off, src/ws/server.ts): five messages arriving in one write, each up to
// MAX_BODY_BYTES of JSON to parse, do not hold the loop for all five while /health and everyone wait.
// Five pings in one raw write, over the real server: the five pongs are written on five different turns.
import type { Socket } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type App, createApp } from '../../src/app.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { ManualClock } from '../../src/domain/clock.js';
import { createLogger } from '../../src/logger.js';
import { createApiKey } from '../../src/services/api-keys.js';
import { type TestDatabase, testDatabase } from '../support/database.js';
import { waitFor } from '../support/ws.js';

/** A masked client text frame (mask key 0, so the payload reads as it is), short payloads only. */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  if (payload.length > 125) throw new Error('textFrame writes short frames only');
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length, 0, 0, 0, 0]), payload]);
}

describe('WebSocket messages', () => {
  let database: TestDatabase;
  let db: Database;
  let app: App;
  let url: string;
  let turns = 0;
  let counting = true;
  /** The turn of each write the server made to a WebSocket connection's socket. */
  const writes: number[] = [];
  let viewerKey = '';

  beforeAll(async () => {
    database = await testDatabase();
    db = await openDatabase({ location: database.location });
    const clock = new ManualClock(Date.UTC(2026, 11, 1, 9));
    const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
    app = createApp({
      db,
      clock,
      config: { host: '127.0.0.1', port: 0, graphiql: false, shutdownTimeoutMs: 2_000, maxBodyBytes: 2 * 1024 * 1024 },
      logger: createLogger('fatal', quiet),
    });
    url = await app.start();
    app.server.on('upgrade', (_request, socket: Socket) => {
      const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
      socket.write = ((...args: unknown[]) => {
        writes.push(turns);
        return write(...args);
      }) as Socket['write'];
    });
    const countTurn = () => {
      turns++;
      if (counting) setImmediate(countTurn);
    };
    setImmediate(countTurn);
    const { key } = await createApiKey({ db, clock }, { name: 'test', authenticated: false }, { name: 'watcher', roles: ['VIEWER'] });
    viewerKey = key;
  });
  afterAll(async () => {
    counting = false;
    // The app closes its database as it stops.
    await app.stop();
    await database.cleanup();
  });

  it('five arriving in one write are handled on five turns of the event loop', async () => {
    const key = viewerKey;
    const client = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    const received: string[] = [];
    client.on('message', (data) => received.push(JSON.parse(String(data)).type));
    try {
      await new Promise<void>((resolve, reject) => client.once('open', () => resolve()).once('error', reject));
      client.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${key}` } }));
      await waitFor(() => received.includes('connection_ack'));
      const before = writes.length;
      (client as unknown as { _socket: Socket })._socket.write(
        Buffer.concat(Array.from({ length: 5 }, () => textFrame('{"type":"ping"}'))),
      );
      await waitFor(() => received.filter((type) => type === 'pong').length === 5);
      const pongs = writes.slice(before);
      expect(pongs.length).toBeGreaterThanOrEqual(5);
      expect(new Set(pongs).size).toBe(5);
    } finally {
      client.terminate();
    }
  });
});
