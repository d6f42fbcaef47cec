// The real server process: the first start on a new database (its ADMIN key, printed once),
// endpoints, offline GraphiQL, JSON logs with request ids, graceful shutdown, configuration errors;
// and, in-process, how unexpected errors are masked. On SQLite the first start makes the default file
// in its working directory; on PostgreSQL it migrates the empty database DATABASE_URL names.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { databaseFileFromUrl, describeDatabase, redactDatabaseUrl } from '../../src/config/database-location.js';
import { ConfigError } from '../../src/config/json-setting.js';
import { loadConfig } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { readMigrations } from '../../src/db/migrate.js';
import { POSTGRES_MIGRATIONS_DIR } from '../../src/db/migrate-postgres.js';
import { ManualClock } from '../../src/domain/clock.js';
import { createLogger } from '../../src/logger.js';
import { createApiKey } from '../../src/services/api-keys.js';
import { type TestDatabase, testDatabase, withPostgres } from '../support/database.js';
import { bootstrapAdmin, type KeyHolder, post, type StartedServer, spawnServer, startServerProcess } from '../support/process.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function parseLines(lines: string[]): Record<string, unknown>[] {
  return lines.map((line) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(`not a JSON log line: ${line}`);
    }
  });
}

/** Opens and closes a TCP connection: null if it was accepted, else the connection error. */
function tryConnect(port: number, host: string): Promise<unknown> {
  return new Promise((resolve) => {
    const probe = connect(port, host);
    probe.once('connect', () => {
      probe.destroy();
      resolve(null);
    });
    probe.once('error', (error) => resolve(error));
  });
}

/** Reads from a raw socket until `done(text)` is true or the socket ends. */
function readUntil(socket: Socket, done: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (done(text)) finish();
    };
    const finish = () => {
      socket.off('data', onData);
      socket.off('end', finish);
      socket.off('error', reject);
      resolve(text);
    };
    socket.on('data', onData);
    socket.once('end', finish);
    socket.once('error', reject);
  });
}

describe('the server process', () => {
  // SQLite: no DATABASE_URL, so the server must create ./data/leasehold.db in its working directory.
  // PostgreSQL: DATABASE_URL names an empty database, which the server migrates (and nothing is written to cwd).
  const cwd = mkdtempSync(path.join(tmpdir(), 'leasehold-server-'));
  /** The empty PostgreSQL database; null on SQLite. */
  let database: TestDatabase | null = null;
  let server: StartedServer;
  /** The ADMIN key the first start printed, and everything on stderr by then (the banner). */
  let admin: KeyHolder;
  let banner: string[];

  beforeAll(async () => {
    const fresh = await testDatabase({ empty: true });
    if (fresh.location.dialect === 'postgresql') database = fresh;
    else await fresh.cleanup();
    const env: Record<string, string> = database ? { DATABASE_URL: database.url } : {};
    server = await startServerProcess({ ...env, LOG_LEVEL: 'debug', SHUTDOWN_TIMEOUT_MS: '30000' }, { cwd });
    admin = await bootstrapAdmin(server);
    // The banner is written in one go; its last line follows the key by a few lines.
    await server.waitForStderr((line) => line.includes('See the README.'));
    banner = [...server.stderr];
  });
  afterAll(async () => {
    await server?.kill();
    rmSync(cwd, { recursive: true, force: true });
    await database?.cleanup();
  });

  it('creates the database (the default file ./data/leasehold.db, or the PostgreSQL schema) and answers /health, /ready and POST /graphql', async () => {
    const listening = parseLines(server.stdout).find((line) => String(line.msg).startsWith('Leasehold is listening'));
    if (database) {
      // The log names the database without its password, and the server wrote nothing where it runs.
      expect(listening?.database).toBe(describeDatabase(database.location));
      expect(String(listening?.database)).not.toContain(':leasehold@');
      expect(readdirSync(cwd)).toEqual([]);
      const migrated = await withPostgres(database.url, (client) =>
        client.query<{ n: number }>('SELECT count(*)::int AS n FROM "_prisma_migrations" WHERE finished_at IS NOT NULL'),
      );
      expect(migrated.rows[0]?.n).toBe(readMigrations(POSTGRES_MIGRATIONS_DIR).length);
    } else {
      expect(listening?.database).toBe(path.join(cwd, 'data', 'leasehold.db'));
      expect(existsSync(path.join(cwd, 'data', 'leasehold.db'))).toBe(true);
    }
    expect(listening?.url).toBe(`${server.url}/graphql`);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect((await fetch(`${server.url}/ready`)).status).toBe(200);
    const { status, body } = await post(server.url, '{ serverTime categories { name } }', undefined, admin.headers);
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(Math.abs(Date.parse(String(body.data?.serverTime)) - Date.now())).toBeLessThan(60_000);
    expect(body.data?.categories).toEqual([]);
  });

  it('on a new database makes one ADMIN key, prints it once on stderr (never in the log), and refuses anonymous requests', async () => {
    expect(banner[0]).toBe('Leasehold: this database had no API keys, so an ADMIN key was made. It is shown only this once:');
    expect(banner).toContain(`Open ${server.url}/graphql and paste this under Headers:`);
    expect(banner).toContain(`    { "Authorization": "Bearer ${admin.key}" }`);
    // The log is written asynchronously: the line may come through the pipe after the banner on stderr.
    const made = await server.waitForLog((line) => line.msg === 'made the first ADMIN API key (printed on stderr)', 10_000);
    expect(made).toMatchObject({ keyId: 1, prefix: admin.key.slice(0, 12) });
    expect(server.stdout.join('\n')).not.toContain(admin.key);

    const viewer = await post(server.url, '{ viewer { name roles credential } }', undefined, admin.headers);
    expect(viewer).toEqual({ status: 200, body: { data: { viewer: { name: 'admin', roles: ['ADMIN'], credential: 'API_KEY' } } } });

    const attempts: Record<string, string>[] = [{}, { authorization: `Bearer lhk_${'x'.repeat(43)}` }, { authorization: admin.key }];
    for (const [index, headers] of attempts.entries()) {
      const refused = await post(server.url, '{ serverTime }', undefined, { ...headers, 'x-request-id': `anonymous-${index}` });
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] });
      expect(refused.body.data).toBeUndefined();
    }
    // Each refusal is logged as a request, and the key never reached the log, not even from the attempt that sent it badly.
    for (const index of attempts.keys()) {
      await server.waitForLog((line) => line.msg === 'request' && line.requestId === `anonymous-${index}` && line.status === 401, 5_000);
    }
    expect(server.stdout.join('\n')).not.toContain(admin.key.slice(12));
  });

  it('serves GraphiQL at GET /graphql without loading anything from a CDN', async () => {
    const response = await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    const html = await response.text();
    expect(html).toMatch(/graphiql/i);
    expect(html).toContain('<title>Leasehold</title>');
    // Every <script>, <link>, <img> and <iframe> is inline or a data: URL, never http(s):// or //host.
    const tags = html.match(/<(script|link|img|iframe)\b[^>]*>/gi) ?? [];
    expect(tags.length).toBeGreaterThan(0);
    const external = tags.filter((tag) => /\b(src|href)\s*=\s*["']?\s*(https?:)?\/\//i.test(tag));
    expect(external).toEqual([]);
    expect(html).not.toMatch(/@import\s+(url\()?\s*["']?https?:/i);
    expect(html).not.toMatch(/\bimport\(\s*["']https?:/i);
    expect(html).not.toMatch(
      /unpkg\.com|cdn\.jsdelivr\.net|esm\.sh|cdnjs\.cloudflare\.com|fonts\.googleapis\.com|fonts\.gstatic\.com|skypack/i,
    );
  });

  it('echoes a valid X-Request-Id, replaces an invalid one, and logs every request with its id', async () => {
    // A GET carries the CSRF-prevention header (no content type makes it a "simple" request otherwise).
    const echoed = await fetch(`${server.url}/graphql?query=%7BserverTime%7D`, {
      headers: { 'x-request-id': 'trace-42.abc:7', 'x-graphql-yoga-csrf': '1', ...admin.headers },
    });
    expect(echoed.status).toBe(200);
    expect(echoed.headers.get('x-request-id')).toBe('trace-42.abc:7');

    for (const invalid of ['has space', 'x'.repeat(65), 'semi;colon']) {
      const replaced = await post(server.url, '{ serverTime }', undefined, { 'x-request-id': invalid, ...admin.headers });
      expect(replaced.status).toBe(200);
    }
    const responses = await Promise.all(
      ['has space', 'x'.repeat(65), 'semi;colon', ''].map((invalid) =>
        fetch(`${server.url}/health`, { headers: invalid ? { 'x-request-id': invalid } : {} }),
      ),
    );
    const generated = responses.map((response) => response.headers.get('x-request-id'));
    for (const id of generated) expect(id).toMatch(UUID);
    expect(new Set(generated).size).toBe(generated.length);

    // The access lines reach us through a pipe, possibly after the responses: wait for each.
    for (const id of ['trace-42.abc:7', ...generated]) {
      await server.waitForLog((line) => line.msg === 'request' && line.requestId === id, 5_000);
    }
    const lines = parseLines(server.stdout);
    const requestLines = lines.filter((line) => line.msg === 'request');
    expect(requestLines.length).toBeGreaterThanOrEqual(8);
    for (const line of requestLines) {
      expect(line.requestId).toEqual(expect.any(String));
      expect(line).toMatchObject({
        service: 'leasehold',
        method: expect.any(String),
        path: expect.any(String),
        status: expect.any(Number),
      });
    }
    expect(requestLines.filter((line) => line.requestId === 'trace-42.abc:7')).toHaveLength(1);
    for (const id of generated) expect(requestLines.filter((line) => line.requestId === id)).toHaveLength(1);
    expect(requestLines.some((line) => String(line.requestId).includes(' ') || String(line.requestId).includes(';'))).toBe(false);
  });

  it('on SIGTERM finishes the request in flight, refuses new connections, and exits 0', async () => {
    const { port, hostname } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const body = JSON.stringify({ query: 'mutation { addCategories(input: { names: ["in-flight"] }) { __typename } }' });
    const split = Math.floor(body.length / 2);
    // With "Expect: 100-continue", Node's server answers "100 Continue" as it hands the request to the app:
    // once we read it, the request is in flight, and the server waits for the body we hold back.
    const continued = readUntil(socket, (text) => text.includes('\r\n\r\n'));
    socket.write(
      `POST /graphql HTTP/1.1\r\nHost: ${hostname}:${port}\r\ncontent-type: application/json\r\naccept: application/json\r\n` +
        `authorization: ${admin.headers.authorization}\r\n` +
        `x-request-id: in-flight-1\r\nexpect: 100-continue\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    expect(await continued).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n$/);
    socket.write(body.slice(0, split));

    server.child.kill('SIGTERM');
    await server.waitForLog((line) => String(line.msg).startsWith('shutting down'));
    // The log line is written just before the listener closes: poll (bounded) until connections are refused,
    // all while the old request is still open, waiting for its body.
    // (A connection caught in the listener's backlog as it closes is reset: that, too, means "try again".)
    let refusal: unknown = null;
    for (let attempt = 0; attempt < 400; attempt++) {
      refusal = await tryConnect(Number(port), hostname);
      if ((refusal as { code?: string } | null)?.code === 'ECONNREFUSED') break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(refusal).toMatchObject({ code: 'ECONNREFUSED' });
    expect(socket.destroyed).toBe(false);

    const answer = readUntil(socket, (text) => /\r\n\r\n[\s\S]*\}\s*$/.test(text) && text.includes('"data"'));
    socket.write(body.slice(split));
    const response = await answer;
    expect(response).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(response.toLowerCase()).toContain('x-request-id: in-flight-1');
    expect(response).toContain('{"data":{"addCategories":{"__typename":"AddCategoriesPayload"}}}');
    socket.end();

    expect(await server.exited).toBe(0);
    // Nothing on stderr but the first-run banner.
    expect(server.stderr).toEqual(banner);
    const lines = parseLines(server.stdout);
    expect(lines.at(-1)?.msg, server.stdout.slice(-4).join('\n')).toBe('stopped');
    expect(lines.filter((line) => Number(line.level) >= 50)).toEqual([]);
    expect(lines.find((line) => line.msg === 'request' && line.requestId === 'in-flight-1')).toMatchObject({ status: 200 });
    expect(await tryConnect(Number(port), hostname)).toMatchObject({ code: 'ECONNREFUSED' });
  });
});

describe('an invalid configuration', () => {
  it('exits 1 with one clear JSON message and no stack trace', async () => {
    const database = await testDatabase();
    try {
      const child = spawnServer({ PORT: 'abc', DATABASE_URL: database.url });
      expect(await child.exited).toBe(1);
      expect(child.stdout).toEqual([]);
      expect(child.stderr).toHaveLength(1);
      const message = JSON.parse(child.stderr[0] as string) as Record<string, unknown>;
      expect(message).toMatchObject({ level: 'fatal' });
      expect(String(message.msg)).toMatch(/^Invalid configuration: PORT: /);
      expect(child.stderr.join('\n')).not.toMatch(/\n\s+at |\.ts:\d+|node:internal/);
    } finally {
      await database.cleanup();
    }
  });

  it('loadConfig: documented defaults, DATABASE_URL resolution, and clear errors', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ host: '127.0.0.1', port: 4000, logLevel: 'info', graphiql: true });
    expect(config.database).toEqual({ dialect: 'sqlite', file: path.resolve(process.cwd(), 'data', 'leasehold.db') });
    expect(loadConfig({ DATABASE_URL: 'postgresql://u:secret@db.internal:5432/leasehold' }).database).toEqual({
      dialect: 'postgresql',
      url: 'postgresql://u:secret@db.internal:5432/leasehold',
    });
    expect(loadConfig({ DATABASE_URL: 'postgres://db/leasehold' }).database.dialect).toBe('postgresql');
    expect(() => loadConfig({ DATABASE_URL: 'postgresql://u:p@[bad' })).toThrow(/not a valid PostgreSQL URL/);
    expect(redactDatabaseUrl('postgresql://u:secret@db:5432/leasehold?password=also&sslmode=require')).not.toMatch(/secret|also/);
    expect(databaseFileFromUrl('file:./data/leasehold.db', '/srv/leasehold')).toBe('/srv/leasehold/data/leasehold.db');
    expect(databaseFileFromUrl('file:/var/lib/l.db?mode=rwc', '/srv')).toBe('/var/lib/l.db');
    expect(databaseFileFromUrl('relative.db', '/srv')).toBe('/srv/relative.db');
    expect(() => databaseFileFromUrl('file::memory:')).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(/PORT/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
  });
});

describe('error masking', () => {
  let database: TestDatabase;
  const logs: string[] = [];
  let db: Database;
  let url: string;
  let stop: () => Promise<void>;
  let auth: { authorization: string };

  beforeAll(async () => {
    database = await testDatabase();
    db = await openDatabase({ location: database.location, synchronous: 'NORMAL' });
    const { key } = await createApiKey(
      { db, clock: new ManualClock(Date.UTC(2026, 10, 30, 9)) },
      { name: 'test-setup', authenticated: false },
      { name: 'viewer', roles: ['VIEWER'] },
    );
    auth = { authorization: `Bearer ${key}` };
    // A read client whose category list fails with an unexpected, internal error.
    const brokenCategories = new Proxy(db.read.category, {
      get(target, property) {
        if (property === 'findMany') {
          return () => Promise.reject(new Error('disk quota exceeded at /var/secret/leasehold.db (internal detail)'));
        }
        return Reflect.get(target, property);
      },
    });
    const read = new Proxy(db.read, {
      get(target, property) {
        return property === 'category' ? brokenCategories : Reflect.get(target, property);
      },
    });
    const failing: Database = { ...db, read };
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logs.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const app = createApp({
      db: failing,
      clock: new ManualClock(Date.UTC(2026, 10, 30, 9)),
      config: { host: '127.0.0.1', port: 0, graphiql: false, shutdownTimeoutMs: 1_000, maxBodyBytes: 1024 * 1024 },
      logger: createLogger('info', sink),
    });
    url = await app.start();
    stop = () => app.stop();
  });
  afterAll(async () => {
    await stop?.();
    await database?.cleanup();
  });

  it('gives the client INTERNAL_SERVER_ERROR with a request id, and logs the real error under the same id', async () => {
    const { status, body } = await post(url, '{ serverTime categories { name } }', undefined, { 'x-request-id': 'mask-me-1', ...auth });
    expect(status).toBe(200);
    expect(body.errors).toHaveLength(1);
    const error = body.errors?.[0] as { message: string; path: string[]; extensions: Record<string, unknown> };
    expect(error.path).toEqual(['categories']);
    expect(error.extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR', requestId: 'mask-me-1' });
    expect(error.message).toContain('mask-me-1');
    const text = JSON.stringify(body);
    expect(text).not.toMatch(/disk quota|secret|stack|\.ts:\d+|\n\s+at /i);

    const logged = logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.requestId === 'mask-me-1');
    const errorLine = logged.find((line) => line.level === 50);
    expect(errorLine).toBeDefined();
    const err = errorLine?.err as { message: string; stack: string };
    expect(err.message).toBe('disk quota exceeded at /var/secret/leasehold.db (internal detail)');
    expect(err.stack).toContain('Error: disk quota exceeded');
    expect(logged.find((line) => line.msg === 'request')).toMatchObject({ status: 200 });
  });

  it('without a valid incoming id, the client still gets the generated id that the log uses', async () => {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({ query: '{ categories { name } }' }),
    });
    const requestId = response.headers.get('x-request-id');
    expect(requestId).toMatch(UUID);
    const body = (await response.json()) as { errors: { extensions: Record<string, unknown> }[] };
    expect(body.errors[0]?.extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR', requestId });
    const errorLine = logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.level === 50 && line.requestId === requestId);
    expect(errorLine?.err).toMatchObject({ message: expect.stringContaining('disk quota exceeded') });
  });

  it('other operations on the same server are unaffected, and expected errors keep their own code', async () => {
    const ok = await post(url, '{ items(first: 1) { edges { node { id } } } }', undefined, auth);
    expect(ok.body).toEqual({ data: { items: { edges: [] } } });
    const missing = await post(url, '{ item(batchId: "b", recordId: "r") { __typename ... on UserError { code } } }', undefined, auth);
    expect(missing.body).toEqual({ data: { item: { __typename: 'UserError', code: 'ITEM_NOT_FOUND' } } });
  });
});
