// CORS: only the allowed origins' pages may read the API's answers, and they may read the headers they need.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/json-setting.js';
import { loadConfig } from '../../src/config.js';
import { type TestDatabase, testDatabase } from '../support/database.js';
import { type StartedServer, startServerProcess } from '../support/process.js';

let database: TestDatabase;
const servers: StartedServer[] = [];
/** Servers by their CORS settings, all on one database. */
let production: StartedServer;
let development: StartedServer;
let allowlist: StartedServer;

beforeAll(async () => {
  database = await testDatabase();
  const start = (env: Record<string, string>) => startServerProcess({ BOOTSTRAP_ADMIN_KEY: 'false', ...env }, { database });
  const settings: Record<string, string>[] = [
    { NODE_ENV: 'production' },
    { NODE_ENV: 'development' },
    { NODE_ENV: 'development', CORS_ORIGINS: 'https://app.example.com, http://localhost:*' },
  ];
  // One after the other: the first migrates the new database.
  for (const env of settings) servers.push(await start(env));
  [production, development, allowlist] = servers as [StartedServer, StartedServer, StartedServer];
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.kill()));
  await database?.cleanup();
});

/** A browser's preflight for a POST with a credential, from `origin`. */
async function preflight(server: StartedServer, origin: string) {
  return fetch(`${server.url}/graphql`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
  });
}

/** The request itself (without a credential: a 401's body must be readable by an allowed page too). */
async function post(server: StartedServer, origin: string) {
  return fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ __typename }' }),
  });
}

async function expectAllowed(server: StartedServer, origin: string) {
  const answer = await preflight(server, origin);
  expect(answer.status).toBe(204);
  expect(answer.headers.get('access-control-allow-origin'), origin).toBe(origin);
  expect(answer.headers.get('access-control-allow-methods')).toBe('GET, POST');
  expect(answer.headers.get('access-control-allow-headers')).toMatch(/\bauthorization\b.*\bcontent-type\b/);
  expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
  const response = await post(server, origin);
  expect(response.status).toBe(401);
  expect(response.headers.get('access-control-allow-origin')).toBe(origin);
  expect(response.headers.get('access-control-expose-headers')).toBe('x-request-id, retry-after');
  expect(response.headers.get('vary')).toMatch(/\bOrigin\b/);
}

async function expectRefused(server: StartedServer, origin: string) {
  const answer = await preflight(server, origin);
  expect(answer.headers.get('access-control-allow-origin'), origin).toBeNull();
  expect(answer.headers.get('access-control-allow-headers')).toBeNull();
  const response = await post(server, origin);
  expect(response.headers.get('access-control-allow-origin'), origin).toBeNull();
  expect(response.headers.get('access-control-expose-headers')).toBeNull();
  expect(response.headers.get('vary')).toMatch(/\bOrigin\b/);
}

describe('CORS', () => {
  it('by default no other origin is allowed, not even this machine', async () => {
    for (const origin of ['https://evil.example', 'http://localhost:5173', 'http://127.0.0.1:8080'])
      await expectRefused(production, origin);
  });

  it('during development (NODE_ENV=development) pages on this machine are allowed on any port, and nothing else', async () => {
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:8080', 'http://localhost']) await expectAllowed(development, origin);
    for (const origin of [
      'https://evil.example',
      'https://localhost:5173',
      'http://localhost.evil.example',
      'http://localhost:5173.evil.example',
    ]) {
      await expectRefused(development, origin);
    }
  });

  it('CORS_ORIGINS replaces the default with its own list', async () => {
    for (const origin of ['https://app.example.com', 'http://localhost:3000']) await expectAllowed(allowlist, origin);
    for (const origin of ['https://app.example.com:8443', 'http://app.example.com', 'https://evil.example', 'http://127.0.0.1:3000']) {
      await expectRefused(allowlist, origin);
    }
  });

  it('a same-origin or non-browser request has no CORS headers', async () => {
    const response = await fetch(`${development.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('CORS_ORIGINS takes origins only, and says which entry is wrong', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(loadConfig({ NODE_ENV: 'development' }).corsOrigins).toEqual(['http://localhost:*', 'http://127.0.0.1:*']);
    expect(loadConfig({ CORS_ORIGINS: '', NODE_ENV: 'development' }).corsOrigins).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: 'https://App.example.com/, http://[::1]:*' }).corsOrigins).toEqual([
      'https://app.example.com',
      'http://[::1]:*',
    ]);
    for (const entry of [
      '*',
      'app.example.com',
      'https://app.example.com/path',
      'ftp://files.example',
      'https://u:p@app.example.com',
      'http://h:3000:*',
    ]) {
      expect(() => loadConfig({ CORS_ORIGINS: `https://ok.example, ${entry}` }), entry).toThrow(ConfigError);
      expect(() => loadConfig({ CORS_ORIGINS: entry }), entry).toThrow(`CORS_ORIGINS: "${entry}" is not an origin`);
    }
  });
});
