// A PostgreSQL server that accepts connections and never answers (hung, or a network dropping packets) fails
// each connection attempt after POSTGRES_CONNECT_TIMEOUT_MS (default 5 s) instead of holding it for ever
// (pg's own default): the server's start ends with a clear message, and a running instance's reads and
// writes fail typed and retryable, then work again once the server answers. The server that never answers
// is a real TCP listener here; the running case goes through a proxy to the real PostgreSQL.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { isConnectionFailure } from '../../src/db/unavailable.js';
import { BACKEND, type TestDatabase, testDatabase } from '../support/database.js';
import { spawnServer } from '../support/process.js';

/** A TCP listener that accepts every connection and never writes a byte. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A proxy to PostgreSQL that can go silent: `silent = true` drops every connection through it and accepts
 * new ones without forwarding them (they hang, as on a partitioned network); false forwards again.
 */
async function proxyTo(target: { host: string; port: number }) {
  const pairs = new Set<[net.Socket, net.Socket]>();
  const held = new Set<net.Socket>();
  const state = { silent: false };
  const server = net.createServer((client) => {
    if (state.silent) {
      held.add(client);
      client.on('error', () => client.destroy()).on('close', () => held.delete(client));
      return;
    }
    const upstream = net.connect(target.port, target.host);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  const dropAll = () => {
    for (const pair of [...pairs]) for (const socket of pair) socket.destroy();
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    set silent(value: boolean) {
      state.silent = value;
      if (value) dropAll();
    },
    close: () =>
      new Promise<void>((resolve) => {
        state.silent = true;
        dropAll();
        for (const client of held) client.destroy();
        server.close(() => resolve());
      }),
  };
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('connecting to a PostgreSQL server that never answers', () => {
  if (BACKEND === 'sqlite') {
    it('fails opening the database after the connect timeout, naming the server without its password', async () => {
      const silent = await silentServer();
      cleanups.push(() => silent.close());
      const started = performance.now();
      const opening = openDatabase({
        location: { dialect: 'postgresql', url: `postgresql://someone:hunter2@127.0.0.1:${silent.port}/leasehold` },
        connectTimeoutMs: 300,
      });
      const error = await opening.then(
        () => null,
        (reason: unknown) => reason as Error,
      );
      expect(error?.message).toBe(
        `Cannot connect to PostgreSQL at postgresql://someone:***@127.0.0.1:${silent.port}/leasehold: timeout expired`,
      );
      expect(performance.now() - started).toBeLessThan(5_000);
    });

    it('ends the server’s start with one clear line and exit code 1 (POSTGRES_CONNECT_TIMEOUT_MS)', async () => {
      const silent = await silentServer();
      cleanups.push(() => silent.close());
      const server = spawnServer({
        PORT: '0',
        DATABASE_URL: `postgresql://someone:hunter2@127.0.0.1:${silent.port}/leasehold`,
        POSTGRES_CONNECT_TIMEOUT_MS: '300',
      });
      cleanups.push(() => server.kill());
      expect(await server.exited).toBe(1);
      const output = [...server.stdout, ...server.stderr].join('\n');
      expect(output).toContain(
        `Cannot connect to PostgreSQL at postgresql://someone:***@127.0.0.1:${silent.port}/leasehold: timeout expired`,
      );
      expect(output).not.toContain('hunter2');
      expect(output).not.toMatch(/\n\s+at /);
    });
  }

  if (BACKEND === 'postgresql') {
    it('a running instance’s reads and writes fail as unavailable while the server is silent, and work again after', async () => {
      const database: TestDatabase = await testDatabase();
      cleanups.push(() => database.cleanup());
      const url = new URL((database.location as { url: string }).url);
      const proxy = await proxyTo({ host: url.hostname, port: Number(url.port || 5432) });
      cleanups.push(() => proxy.close());
      url.hostname = '127.0.0.1';
      url.port = String(proxy.port);
      const db: Database = await openDatabase({
        location: { dialect: 'postgresql', url: url.toString() },
        connectTimeoutMs: 300,
        unavailableWaitMs: 500,
      });
      cleanups.push(() => db.close().catch(() => undefined));
      expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);

      proxy.silent = true;
      const started = performance.now();
      const read = await db.query('SELECT 1 AS one').then(
        () => null,
        (error: unknown) => error,
      );
      expect(isConnectionFailure(read)).toBe(true);
      const write = await db
        .write(async (_tx, sql) => sql.run('SELECT 1'))
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(isConnectionFailure(write)).toBe(true);
      // Each failed within the timeouts (a connection attempt of 300 ms, a write waiting 500 ms in all), not for ever.
      expect(performance.now() - started).toBeLessThan(10_000);

      proxy.silent = false;
      let answer: unknown = null;
      for (let attempt = 0; attempt < 50 && answer === null; attempt++) {
        answer = await db.query('SELECT 1 AS one').catch(() => null);
        if (answer === null) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(answer).toEqual([{ one: 1 }]);
    }, 30_000);
  }
});
