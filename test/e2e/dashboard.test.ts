// The dashboard (/dashboard) in a real browser — Debian's Chromium driven by playwright-core — against a real
// server process: the key prompt and a refused key, live counts, countdown and feed, recovery after the server
// is SIGKILLed and restarted on the same database and port (no event missed or repeated), a revoked key; then a
// deterministic screenshot (docs/dashboard.png) on an in-process server with a manual clock.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWeb } from '../../scripts/build-web.js';
import { systemClock } from '../../src/domain/clock.js';
import { addItem } from '../../src/services/items.js';
import { ask, type Caller, launchChromium, signIn, waitForText, watchForErrors } from '../support/dashboard-browser.js';
import { type TestDatabase, testDatabase } from '../support/database.js';
import { createKeys, type KeyHolder, ROOT, type StartedServer, startServerProcess, withDatabase } from '../support/process.js';
import { startTestServer, type TestClient, type TestServer } from '../support/server.js';

const SCREENSHOT = path.join(ROOT, 'docs', 'dashboard.png');

let browser: Browser;

beforeAll(async () => {
  // The page under test is the current source, whatever an earlier `npm run build` left in dist/.
  await buildWeb();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

const ADD_CATEGORIES = 'mutation ($names: [String!]!) { addCategories(input: { names: $names }) { __typename } }';
const ADD_ITEMS = `mutation ($items: [AddItemInput!]!) {
  addItems(input: { items: $items }) { __typename ... on AddItemsPayload { addedCount } }
}`;
const CLAIM = `mutation ($leaseSeconds: Int, $batchId: String) {
  claimItem(input: { leaseSeconds: $leaseSeconds, batchId: $batchId }) {
    __typename ... on ClaimItemPayload { item { batchId recordId } lease { token } }
  }
}`;
const DECIDE = `mutation ($token: String!, $decision: Decision!, $category: String) {
  decideItem(input: { token: $token, decision: $decision, category: $category }) { __typename }
}`;
const HISTORY = `query ($after: String) {
  events(first: 100, after: $after) { edges { node { sequence } } pageInfo { hasNextPage endCursor } }
}`;
const API_KEYS = '{ apiKeys { id name } }';
const REVOKE = 'mutation ($id: Int!) { revokeApiKey(input: { id: $id }) { __typename } }';

const items = (batchId: string, recordIds: string[]) =>
  recordIds.map((recordId) => ({ batchId, recordId, proposedCategory: 'alpha', reason: `check ${recordId}` }));

/** Claims the next item (of `batchId`, if given) as `reviewer`; returns the record id and the lease token. */
async function claim(url: string, reviewer: Caller, leaseSeconds: number, batchId?: string): Promise<{ recordId: string; token: string }> {
  const payload = (await ask(url, reviewer, CLAIM, { leaseSeconds, batchId })).claimItem as {
    item: { recordId: string } | null;
    lease: { token: string } | null;
  };
  if (!payload.item || !payload.lease) throw new Error(`nothing claimable for ${reviewer.name}`);
  return { recordId: payload.item.recordId, token: payload.lease.token };
}

/** Every sequence number in the history, in order. */
async function historySequences(url: string, reader: Caller): Promise<number[]> {
  const sequences: number[] = [];
  let after: string | null = null;
  for (;;) {
    const page = (await ask(url, reader, HISTORY, { after })).events as {
      edges: { node: { sequence: number } }[];
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
    };
    sequences.push(...page.edges.map((edge) => edge.node.sequence));
    if (!page.pageInfo.hasNextPage) return sequences;
    after = page.pageInfo.endCursor;
  }
}

/** The sequence numbers the feed shows, newest first as on the page. */
async function feedSequences(page: Page): Promise<number[]> {
  return (await page.locator('#feed .event-seq').allTextContents()).map((text) => Number(text.replace('#', '')));
}

describe('the dashboard against a server process', () => {
  /** A SQLite file, or a PostgreSQL database. */
  let database: TestDatabase;
  let server: StartedServer;
  let port: number;
  let admin: KeyHolder;
  let proposer: KeyHolder;
  let reviewer: KeyHolder;
  let watcher: KeyHolder;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  const env = () => ({ DATABASE_URL: database.url, SQLITE_SYNCHRONOUS: 'NORMAL', PORT: String(port ?? 0) });

  beforeAll(async () => {
    database = await testDatabase();
    // The keys go in first, so the server makes no first ADMIN key of its own.
    [admin, proposer, reviewer, watcher] = (await createKeys(database, [
      { name: 'admin', roles: ['ADMIN'] },
      { name: 'classifier', roles: ['PROPOSER'] },
      { name: 'tanaka', roles: ['REVIEWER'] },
      { name: 'wallboard', roles: ['VIEWER'] },
    ])) as [KeyHolder, KeyHolder, KeyHolder, KeyHolder];
    server = await startServerProcess(env());
    port = Number(new URL(server.url).port);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB', timezoneId: 'UTC' });
    page = await context.newPage();
    problems = watchForErrors(page);
    // The browser's clock runs an hour ahead of the server's: countdowns must follow the server anyway.
    await page.clock.install({ time: Date.now() + 60 * 60 * 1000 });
  });

  afterAll(async () => {
    await context?.close();
    await server?.kill();
    await database?.cleanup();
  });

  it('serves the page without a credential, with a strict Content-Security-Policy', async () => {
    const response = await page.goto(`${server.url}/dashboard`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    await page.getByRole('heading', { name: 'Sign in with an API key' }).waitFor();
    // Landmarks, and focus waiting in the key field.
    for (const role of ['banner', 'main', 'contentinfo'] as const) expect(await page.getByRole(role).count()).toBe(1);
    expect(await page.evaluate('document.activeElement?.id')).toBe('api-key');
  });

  it('refuses a wrong key with a clear message and asks again', async () => {
    await signIn(page, `lhk_${'x'.repeat(43)}`);
    await page.getByRole('alert').filter({ hasText: 'The server refused this API key. The API key is not valid' }).waitFor();
    await page.getByLabel('API key', { exact: true }).waitFor();
    expect(await page.getByLabel('API key', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#dashboard').isHidden()).toBe(true);
  });

  it('shows counts, a countdown on the server clock and the feed as the queue changes', async () => {
    await signIn(page, watcher.key);
    await waitForText(page.getByRole('status'), 'Live');
    await waitForText(page.locator('#viewer-name'), 'wallboard (VIEWER)');

    await ask(server.url, admin, ADD_CATEGORIES, { names: ['alpha', 'beta'] });
    await ask(server.url, proposer, ADD_ITEMS, { items: items('b1', ['C-001', 'C-002', 'C-003']) });
    await waitForText(page.locator('#stat-pending'), '3');
    await waitForText(page.locator('#stat-unclaimed'), '3');
    await page.locator('tr[data-record="b1/C-003"]').waitFor();

    const lease = await claim(server.url, reviewer, 120);
    expect(lease.recordId).toBe('C-001');
    await waitForText(page.locator('#stat-active'), '1');
    const row = page.locator('tr[data-record="b1/C-001"]');
    await waitForText(row.locator('td.holder'), 'tanaka');
    const countdown = row.locator('td.countdown');
    await waitForText(countdown, /^\s*[12]:\d\d\s*$/);
    const first = (await countdown.textContent())?.trim() ?? '';
    const [minutes, seconds] = first.split(':').map(Number) as [number, number];
    // 120 s lease by the server's clock, although the browser's clock is an hour ahead.
    expect(minutes * 60 + seconds).toBeGreaterThan(90);
    expect(minutes * 60 + seconds).toBeLessThanOrEqual(120);
    // It counts down by itself, between pushes.
    await countdown.filter({ hasNotText: first }).waitFor({ timeout: 5_000 });

    await ask(server.url, reviewer, DECIDE, { token: lease.token, decision: 'ACCEPTED' });
    await waitForText(page.locator('#stat-accepted'), '1');
    await waitForText(page.locator('#stat-pending'), '2');
    await page.locator('#feed li.event-item-decided', { hasText: 'b1 / C-001 → Accepted' }).waitFor();
    await waitForText(page.locator('#chart-summary'), /1 decision, 0 lease expiries/);
    // Decided items leave the default (pending) view.
    await row.waitFor({ state: 'detached' });
    expect(problems).toEqual([]);
  });

  it('survives a SIGKILLed server and shows every event once after it comes back on the same port', async () => {
    const shown = await feedSequences(page);
    expect(shown.length).toBeGreaterThan(0);
    // What the page asks for on the new connection: the feed must resume after the last event it showed.
    const resubscribed: { afterSequence?: number }[] = [];
    page.on('websocket', (socket) =>
      socket.on('framesent', ({ payload }) => {
        const message = JSON.parse(String(payload)) as {
          type: string;
          payload?: { query: string; variables?: { afterSequence?: number; filter?: unknown } };
        };
        const variables = message.payload?.variables;
        if (message.type === 'subscribe' && message.payload?.query.includes('queueEvents') && variables?.filter === null)
          resubscribed.push(variables);
      }),
    );
    await server.kill();
    await waitForText(page.getByRole('status'), /Disconnected — reconnecting/);
    await page.locator('#offline').waitFor();

    // A change while no server runs (another process on the database, as an import would make).
    await withDatabase(database, (db) =>
      addItem(
        { db, clock: systemClock },
        { name: 'importer', authenticated: false },
        { batchId: 'b1', recordId: 'C-004', proposedCategory: 'alpha', reason: 'check C-004' },
      ),
    );

    server = await startServerProcess(env());
    expect(server.url).toBe(`http://127.0.0.1:${port}`);
    // Changes right after the restart, possibly before the page has reconnected.
    const lease = await claim(server.url, reviewer, 300);
    await ask(server.url, reviewer, DECIDE, { token: lease.token, decision: 'CORRECTED', category: 'beta' });

    await waitForText(page.getByRole('status'), 'Live', 30_000);
    await page.locator('#offline').waitFor({ state: 'hidden' });
    await waitForText(page.locator('#stat-corrected'), '1');
    await waitForText(page.locator('#stat-pending'), '2');
    await page.locator('tr[data-record="b1/C-004"]').waitFor();

    expect(resubscribed[0]?.afterSequence).toBe(Math.max(...shown));

    const history = await historySequences(server.url, watcher);
    const latest = history.at(-1) as number;
    await page.locator(`#feed li[data-sequence="${latest}"]`).waitFor();
    const feed = await feedSequences(page);
    // Newest first, each once, and nothing missing: exactly the stored history.
    expect([...feed].reverse()).toEqual(history);
    expect(problems).toEqual([]);
  });

  it('filters the table by batch and status, and the feed by batch', async () => {
    await page.getByLabel('Batch').fill('b1');
    await page.getByLabel('Status').selectOption('ALL');
    await page.getByRole('button', { name: 'Apply' }).click();
    await waitForText(page.locator('#items-caption'), 'Items in batch b1, in claim order');
    await waitForText(page.locator('tr[data-record="b1/C-001"] td.status'), 'Accepted');
    await waitForText(page.locator('#feed-scope'), 'Events of batch b1, newest first.');
    await page.locator('#feed li').first().waitFor();
    // Only this batch's item events: no key or category events.
    for (const subject of await page.locator('#feed .event-subject').allTextContents()) expect(subject).toMatch(/^b1 \/ C-00\d/);
    expect(new URL(page.url()).search).toBe('?batch=b1&status=ALL');

    // By keyboard: Tab from the status to the Apply button, Enter.
    await page.getByLabel('Status').selectOption('CORRECTED');
    await page.getByLabel('Status').press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Apply');
    await page.keyboard.press('Enter');
    await waitForText(page.locator('#items-caption'), 'Corrected items in batch b1, in claim order');
    await page.locator('tr[data-record="b1/C-001"]').waitFor({ state: 'detached' });
    expect(await page.locator('#items-body tr').count()).toBe(1);
  });

  it('reloads the table at most once a second however fast the queue changes, and ends on the latest state', async () => {
    await page.getByLabel('Batch').fill('burst');
    await page.getByLabel('Status').selectOption('PENDING');
    await page.getByRole('button', { name: 'Apply' }).click();
    await waitForText(page.locator('#feed-scope'), 'Events of batch burst, newest first.');
    const loads: number[] = [];
    const count = (request: import('playwright-core').Request) => {
      if (request.method() === 'POST' && request.postData()?.includes('DashboardItems')) loads.push(loads.length);
    };
    // The page's timers run on the browser clock: paused, no second passes until the test moves it.
    await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1_000);
    page.on('request', count);
    try {
      for (const recordId of ['T-001', 'T-002', 'T-003', 'T-004', 'T-005', 'T-006']) {
        await ask(server.url, proposer, ADD_ITEMS, { items: items('burst', [recordId]) });
      }
      await page.locator('#feed li', { hasText: 'burst / T-006' }).waitFor();
      // Six changes inside one (paused) second: at most the one load that starts at once.
      expect(loads.length).toBeLessThanOrEqual(1);
      await page.clock.runFor(1_000);
      await page.locator('tr[data-record="burst/T-006"]').waitFor();
      expect(loads.length).toBeLessThanOrEqual(2);
    } finally {
      page.off('request', count);
      await page.clock.resume();
    }
    expect(problems).toEqual([]);
  });

  it('asks for a key again when the key is revoked while connected (its streams end with UNAUTHENTICATED, then 4403)', async () => {
    const keys = (await ask(server.url, admin, API_KEYS)).apiKeys as { id: number; name: string }[];
    const id = keys.find((key) => key.name === 'wallboard')?.id;
    await ask(server.url, admin, REVOKE, { id });
    await page.getByRole('alert').filter({ hasText: 'The API key has been revoked.' }).waitFor();
    await page.getByRole('heading', { name: 'Sign in with an API key' }).waitFor();
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
  });
});

describe('the dashboard on a manual clock', () => {
  let server: TestServer;
  let context: BrowserContext;

  /** 09:00:00 UTC, where the manual clock stops and the screenshot is taken. */
  const NOW = Date.UTC(2026, 10, 30, 9, 0, 0);
  const YESTERDAY = 'batch-20261129';
  const TODAY = 'batch-20261130';

  beforeAll(async () => {
    server = await startTestServer({ start: NOW - 55 * 60 * 1000 });
    const admin = await server.as('admin', ['ADMIN']);
    const proposer = await server.as('classifier', ['PROPOSER']);
    const tanaka = await server.as('tanaka');
    const suzuki = await server.as('suzuki');
    await server.as('wallboard', ['VIEWER']);
    const minutes = (count: number) => server.clock.advance(count * 60 * 1000);
    const at = (caller: TestClient, query: string, variables?: Record<string, unknown>) => ask(server.url, caller, query, variables);

    // ASCII names: the machines that run this test may have no CJK font, and tofu would make a poor picture.
    await at(admin, ADD_CATEGORIES, { names: ['shipping', 'billing', 'other'] });
    // One item in yesterday's batch (its lease will lapse), then today's batch, a minute apart.
    const add = (batchId: string, recordId: string) =>
      at(proposer, ADD_ITEMS, { items: [{ batchId, recordId, proposedCategory: 'shipping', reason: `check ${recordId}` }] });
    await add(YESTERDAY, 'A-001');
    for (const recordId of ['C-001', 'C-002', 'C-003', 'C-004', 'C-005', 'C-006', 'C-007']) {
      minutes(1);
      await add(TODAY, recordId);
    }
    // Decisions spread over the hour, for the chart.
    const decisions: [TestClient, string, string | null][] = [
      [tanaka, 'ACCEPTED', null],
      [suzuki, 'CORRECTED', 'billing'],
      [tanaka, 'REJECTED', null],
    ];
    for (const [reviewer, decision, category] of decisions) {
      minutes(7);
      const lease = await claim(server.url, reviewer, 300, TODAY);
      minutes(2);
      await at(reviewer, DECIDE, { token: lease.token, decision, category });
    }
    // A lease that lapses: the item stays EXPIRED (claims below stay in today's batch).
    minutes(3);
    await claim(server.url, suzuki, 60, YESTERDAY);
    minutes(2);
    await server.settle();
    // Two leases running at the screenshot's moment: 3:30 and 10:00 left.
    server.clock.set(NOW - 90 * 1000);
    await claim(server.url, suzuki, 300, TODAY);
    server.clock.set(NOW);
    await claim(server.url, tanaka, 600, TODAY);
    await server.settle();
  });

  afterAll(async () => {
    await context?.close();
    await server?.stop();
  });

  it('renders the same picture every time (docs/dashboard.png), and fits a phone', async () => {
    context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      locale: 'en-GB',
      timezoneId: 'UTC',
      deviceScaleFactor: 1,
    });
    const page = await context.newPage();
    const problems = watchForErrors(page);
    // The page's clock stands still at the server's "now": every countdown and age is exactly reproducible.
    // (Installed a moment earlier: it runs until paused, and pausing cannot go back in time.)
    await page.clock.install({ time: NOW - 60_000 });
    await page.clock.pauseAt(NOW);
    await page.goto(`${server.url}/dashboard`);
    const viewer = await server.as('wallboard', ['VIEWER']);
    await signIn(page, viewer.key);
    await waitForText(page.getByRole('status'), 'Live');
    await waitForText(page.locator('#stat-pending'), '5');
    await waitForText(page.locator('#stat-active'), '2');
    await waitForText(page.locator('#chart-summary'), /3 decisions, 1 lease expiry/);
    await waitForText(page.locator(`tr[data-record="${TODAY}/C-004"] td.countdown`), '3:30');
    await waitForText(page.locator(`tr[data-record="${TODAY}/C-005"] td.countdown`), '10:00');
    await waitForText(page.locator(`tr[data-record="${YESTERDAY}/A-001"] td.countdown`), 'expired');
    await waitForText(page.locator('#stat-oldest'), '55 min 0 s');
    // The history reaches the page in slices (the feed hands events over a few ms at a time): wait for all of it.
    const history = await historyLength(server);
    await expect.poll(() => page.locator('#feed li').count(), { timeout: 10_000 }).toBe(history);
    mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true, animations: 'disabled', caret: 'hide' });

    // Phone width: one column, nothing wider than the screen (the table scrolls inside its own region).
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(problems).toEqual([]);
  });
});

async function historyLength(server: TestServer): Promise<number> {
  const viewer = await server.as('wallboard', ['VIEWER']);
  return (await historySequences(server.url, viewer)).length;
}
