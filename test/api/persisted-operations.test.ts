// Trusted documents (PERSISTED_OPERATIONS, src/http/persisted-operations.ts) on every path in: POST and GET,
// server-sent events and WebSocket. `allow` runs a manifest's document by its hash beside any other
// document; `require` runs only those for everyone but ADMINs (GraphiQL stays usable), and over WebSocket
// runs the manifest's text for the hash whatever text came with it; `off` knows no hashes. Then the dashboard
// in Chromium on a server started with PERSISTED_OPERATIONS=require, signed in with a VIEWER key.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWeb } from '../../scripts/build-web.js';
import { loadConfig } from '../../src/config.js';
import { systemClock } from '../../src/domain/clock.js';
import { loadManifests } from '../../src/http/persisted-operations.js';
import { addCategories } from '../../src/services/categories.js';
import { addItems } from '../../src/services/items.js';
import { submitProposal } from '../../src/services/proposals/index.js';
import { tempDir } from '../cli/support.js';
import { launchChromium, signIn, waitForText, watchForErrors } from '../support/dashboard-browser.js';
import { type TestDatabase, testDatabase } from '../support/database.js';
import { createKeys, startServerProcess, withDatabase } from '../support/process.js';
import { PROPOSER, proposalInput } from '../support/proposals.js';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';
import { connectWs } from '../support/ws.js';

type Body = { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] };

const TIME = 'query Time { serverTime }';
const VIEWER_NAME = 'query Me { viewer { name } }';
const STATS = 'subscription Stats { queueStats { pending } }';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const ARBITRARY = '{ categories { name } }';

let scratch: { dir: string; cleanup(): void };
let manifest: string;

beforeAll(() => {
  scratch = tempDir('leasehold-persisted-');
  manifest = path.join(scratch.dir, 'persisted-documents.json');
  writeFileSync(
    manifest,
    JSON.stringify({ [`sha256:${sha256(TIME)}`]: TIME, [sha256(VIEWER_NAME)]: VIEWER_NAME, [`sha256:${sha256(STATS)}`]: STATS }),
  );
});
afterAll(() => scratch.cleanup());

const byHash = (text: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(text) } });

async function post(server: TestServer, client: TestClient, body: Record<string, unknown>) {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { ...client.headers, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Body };
}

async function get(server: TestServer, client: TestClient, search: Record<string, string>) {
  const response = await fetch(`${server.url}/graphql?${new URLSearchParams(search)}`, {
    headers: { ...client.headers, accept: 'application/json', 'x-graphql-yoga-csrf': '1' },
  });
  return { status: response.status, body: (await response.json()) as Body };
}

function codeOf(body: Body): unknown {
  return body.errors?.[0]?.extensions?.code;
}

describe.each(['allow', 'require'] as const)('PERSISTED_OPERATIONS=%s', (mode) => {
  let server: TestServer;
  let viewer: TestClient;
  let admin: TestClient;
  beforeAll(async () => {
    server = await startTestServer({ config: { persistedOperations: { mode, manifests: [manifest] } } });
    viewer = await server.as('persisted-viewer', ['VIEWER']);
    admin = await server.as('persisted-admin', ['ADMIN']);
  });
  afterAll(() => server.stop());

  it('runs a manifest document by its hash over POST and GET, with or without the sha256: prefix, and by documentId', async () => {
    const posted = await post(server, viewer, { extensions: byHash(TIME) });
    expect(posted.status).toBe(200);
    expect(typeof posted.body.data?.serverTime).toBe('string');
    const fetched = await get(server, viewer, { extensions: JSON.stringify(byHash(VIEWER_NAME)) });
    expect(fetched.body.data).toEqual({ viewer: { name: 'persisted-viewer' } });
    const prefixed = await post(server, viewer, { extensions: { persistedQuery: { version: 1, sha256Hash: `sha256:${sha256(TIME)}` } } });
    expect(prefixed.body.errors).toBeUndefined();
    const documentId = await post(server, viewer, { documentId: `sha256:${sha256(VIEWER_NAME)}` });
    expect(documentId.body.data).toEqual({ viewer: { name: 'persisted-viewer' } });
  });

  it('answers an unknown hash with PERSISTED_QUERY_NOT_FOUND', async () => {
    const { status, body } = await post(server, viewer, { extensions: byHash('query Nope { serverTime }') });
    expect(status).toBe(400);
    expect(codeOf(body)).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it(
    mode === 'allow'
      ? 'runs any other document too'
      : 'refuses any other document to a VIEWER over POST, GET and SSE, and runs it for an ADMIN',
    async () => {
      const posted = await post(server, viewer, { query: ARBITRARY });
      const fetched = await get(server, viewer, { query: ARBITRARY });
      const sse = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { ...viewer.headers, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query: 'subscription { queueStats { pending } }' }),
      });
      // Read until the first result or error (a keep-alive comment may come first).
      let sseText = '';
      const reader = (sse.body as ReadableStream<Uint8Array>).getReader();
      for (let chunk = 0; chunk < 20 && !/queueStats|errors/.test(sseText); chunk++) {
        const read = await reader.read();
        if (read.done) break;
        sseText += new TextDecoder().decode(read.value);
      }
      await reader.cancel().catch(() => undefined);
      if (mode === 'allow') {
        expect(posted.body).toEqual({ data: { categories: [] } });
        expect(fetched.body).toEqual({ data: { categories: [] } });
        expect(sseText).toContain('"queueStats"');
      } else {
        expect(posted.status).toBe(403);
        expect(codeOf(posted.body)).toBe('PERSISTED_QUERY_ONLY');
        expect(codeOf(fetched.body)).toBe('PERSISTED_QUERY_ONLY');
        expect(sseText).toContain('PERSISTED_QUERY_ONLY');
        expect(sseText).not.toContain('"queueStats"');
        expect((await post(server, admin, { query: ARBITRARY })).body).toEqual({ data: { categories: [] } });
      }
    },
  );

  it('over WebSocket runs the manifest’s text for a hash, whatever text came with it, and refuses other documents under require', async () => {
    const ws = await connectWs(server.url, viewer.headers);
    try {
      // The text sent asks for more than the manifest's document; the manifest's is what runs.
      const trusted = await new Promise<Body>((resolve) => {
        const results: Body[] = [];
        ws.client.subscribe(
          { query: '{ serverTime categories { name } }', extensions: byHash(TIME) },
          {
            next: (result) => results.push(result as Body),
            error: (error) => resolve({ errors: error as never }),
            complete: () => resolve(results[0] ?? {}),
          },
        );
      });
      expect(Object.keys(trusted.data ?? {})).toEqual(['serverTime']);
      const other = await ws.execute(ARBITRARY).catch((error: Error) => error.message);
      if (mode === 'allow') expect(other).toEqual({ data: { categories: [] } });
      else expect(other).toContain('"code":"PERSISTED_QUERY_ONLY"');
      const stats = ws.subscribe<{ queueStats: { pending: number } }>(STATS);
      if (mode === 'require') {
        await stats.ended;
        expect(JSON.stringify(stats.error ?? stats.results)).toContain('PERSISTED_QUERY_ONLY');
      }
      stats.unsubscribe();
    } finally {
      await ws.close();
    }
  });
});

describe('PERSISTED_OPERATIONS=off', () => {
  let server: TestServer;
  let viewer: TestClient;
  beforeAll(async () => {
    server = await startTestServer({ config: { persistedOperations: { mode: 'off', manifests: [manifest] } } });
    viewer = await server.as('persisted-off', ['VIEWER']);
  });
  afterAll(() => server.stop());

  it('knows no hashes: a request without a query is refused as such, and any document runs', async () => {
    const { body } = await post(server, viewer, { extensions: byHash(TIME) });
    expect(body.data).toBeUndefined();
    expect(body.errors?.[0]?.message).toMatch(/query/i);
    expect((await postGraphQL(server.url, ARBITRARY, {}, viewer.headers)).status).toBe(200);
  });
});

describe('configuration', () => {
  it('defaults to allow with the dashboard’s manifest, and reads PERSISTED_OPERATIONS and PERSISTED_OPERATIONS_MANIFESTS', () => {
    const defaults = loadConfig({}).persistedOperations;
    expect(defaults.mode).toBe('allow');
    expect(defaults.manifests).toHaveLength(1);
    expect(loadManifests(defaults.manifests).size).toBeGreaterThan(0);
    const custom = loadConfig({
      PERSISTED_OPERATIONS: 'require',
      PERSISTED_OPERATIONS_MANIFESTS: `${manifest}, /elsewhere/b.json`,
    }).persistedOperations;
    expect(custom).toEqual({ mode: 'require', manifests: [defaults.manifests[0], manifest, '/elsewhere/b.json'] });
    expect(() => loadConfig({ PERSISTED_OPERATIONS: 'sometimes' })).toThrow(/PERSISTED_OPERATIONS/);
    expect(() => loadManifests([path.join(scratch.dir, 'missing.json')])).toThrow(/Cannot read the persisted-operations manifest/);
  });
});

describe('the dashboard under PERSISTED_OPERATIONS=require', () => {
  let browser: Browser;
  let database: TestDatabase;
  beforeAll(async () => {
    await buildWeb();
    browser = await launchChromium();
    database = await testDatabase();
  });
  afterAll(async () => {
    await browser?.close();
    await database?.cleanup();
  });

  it('signs a VIEWER in and goes live: its queries by hash, its subscriptions by text and hash', async () => {
    const [watcher] = await createKeys(database, [{ name: 'wallboard', roles: ['VIEWER'] }]);
    const server = await startServerProcess({ DATABASE_URL: database.url, PERSISTED_OPERATIONS: 'require' });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const problems = watchForErrors(page);
      const sent: unknown[] = [];
      page.on('request', (request) => {
        if (request.url().endsWith('/graphql') && request.method() === 'POST') sent.push(request.postDataJSON());
      });
      await page.goto(`${server.url}/dashboard`);
      await signIn(page, (watcher as { key: string }).key);
      await waitForText(page.getByRole('status'), 'Live', 30_000);
      await page.locator('#stat-pending').waitFor();
      expect(sent.length).toBeGreaterThan(0);
      for (const body of sent) expect(body).not.toHaveProperty('query');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      await server.kill();
    }
  }, 60_000);

  it('/review and /approvals work their whole loop by hash: claim over the socket, decide, approve', async () => {
    const [reviewer] = await createKeys(database, [{ name: 'hashed-reviewer', roles: ['REVIEWER'] }]);
    await withDatabase(database, async (db) => {
      const deps = { db, clock: systemClock };
      const setup = { name: 'setup', authenticated: false };
      await addCategories(deps, setup, ['hashed']);
      await addItems(deps, setup, [{ batchId: 'hashed', recordId: 'h-1', proposedCategory: 'hashed', reason: 'by hash' }]);
      await submitProposal(deps, PROPOSER, proposalInput('hashed-1'));
    });
    const server = await startServerProcess({ DATABASE_URL: database.url, PERSISTED_OPERATIONS: 'require' });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const problems = watchForErrors(page);
      const sent: unknown[] = [];
      page.on('request', (request) => {
        if (request.url().endsWith('/graphql') && request.method() === 'POST') sent.push(request.postDataJSON());
      });
      await page.goto(`${server.url}/review`);
      await page.getByLabel('API key or JWT', { exact: true }).fill((reviewer as { key: string }).key);
      await page.keyboard.press('Enter');
      await waitForText(page.locator('#connection'), 'Live', 30_000);
      await page.locator('#review-title').focus();
      await page.keyboard.press('n');
      await waitForText(page.locator('#claim-status'), 'Claimed hashed / h-1.');
      await page.keyboard.press('a');
      await waitForText(page.locator('#claim-status'), 'Accepted hashed / h-1. Press N for the next item.');

      // The same tab: /approvals is signed in already.
      await page.goto(`${server.url}/approvals`);
      await page.getByRole('button', { name: 'prices / hashed-1 r1' }).click();
      await page.locator('#approve').click();
      await waitForText(page.locator('#proposal-state'), /^APPROVED/);
      expect(sent.length).toBeGreaterThan(4);
      for (const body of sent) expect(body).not.toHaveProperty('query');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      await server.kill();
    }
  }, 60_000);
});
