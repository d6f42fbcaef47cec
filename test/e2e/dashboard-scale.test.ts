// The dashboard (/dashboard) in Chromium against a server process on a queue of 100,000 items, seeded straight
// into the file before the server starts: the page loads, goes live, shows the right counts, table and feed,
// and a claim made while it loads, and others after, appear.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWeb } from '../../scripts/build-web.js';
import { ask, type Caller, launchChromium, signIn, waitForText, watchForErrors } from '../support/dashboard-browser.js';
import { type TestDatabase, testDatabase } from '../support/database.js';
import { createKeys, type KeyHolder, type StartedServer, startServerProcess } from '../support/process.js';
import { seedPendingItems } from '../support/seed-file.js';

const ITEMS = 100_000;

const CLAIM = `mutation {
  claimItem(input: { leaseSeconds: 600 }) {
    __typename ... on ClaimItemPayload { item { batchId recordId } lease { token } }
  }
}`;
const DECIDE = `mutation ($token: String!) { decideItem(input: { token: $token, decision: ACCEPTED }) { __typename } }`;
const LATEST = '{ events(last: 1) { edges { node { sequence type } } } }';

async function claim(url: string, reviewer: Caller): Promise<{ record: string; token: string }> {
  const payload = (await ask(url, reviewer, CLAIM)).claimItem as {
    item: { batchId: string; recordId: string } | null;
    lease: { token: string } | null;
  };
  if (!payload.item || !payload.lease) throw new Error('nothing claimable');
  return { record: `${payload.item.batchId}/${payload.item.recordId}`, token: payload.lease.token };
}

/** The counts the page shows, by element id. */
async function counts(page: Page): Promise<Record<string, string>> {
  const ids = ['pending', 'unclaimed', 'active', 'expired', 'accepted', 'corrected', 'rejected'];
  const texts = await Promise.all(ids.map((id) => page.locator(`#stat-${id}`).textContent()));
  return Object.fromEntries(ids.map((id, index) => [id, texts[index]?.trim() ?? '']));
}

describe(`the dashboard on a queue of ${ITEMS.toLocaleString('en-US')} items`, () => {
  let browser: Browser;
  let database: TestDatabase;
  let server: StartedServer;
  let reviewer: KeyHolder;
  let watcher: KeyHolder;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    await buildWeb();
    browser = await launchChromium();
    database = await testDatabase();
    if (database.location.dialect !== 'sqlite') throw new Error('this file seeds a SQLite file (vitest.config.ts: SQLITE_ONLY)');
    // Keys first (the file is created and migrated), then the queue, then the server: it starts on a full queue.
    [, , reviewer, watcher] = (await createKeys(database, [
      { name: 'admin', roles: ['ADMIN'] },
      { name: 'classifier', roles: ['PROPOSER'] },
      { name: 'tanaka', roles: ['REVIEWER'] },
      { name: 'wallboard', roles: ['VIEWER'] },
    ])) as [KeyHolder, KeyHolder, KeyHolder, KeyHolder];
    seedPendingItems(database.location.file, { items: ITEMS, category: 'alpha', admin: 'admin', proposer: 'classifier', prefix: 'big' });
    server = await startServerProcess({ DATABASE_URL: database.url, SQLITE_SYNCHRONOUS: 'NORMAL' });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB', timezoneId: 'UTC' });
    page = await context.newPage();
    problems = watchForErrors(page);
    // About 20 s on a quiet machine (seeding and a server start on a full queue); the shared 2-core machine can triple it.
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.kill();
    await database?.cleanup();
  });

  it('loads, goes live with the right counts, and shows a claim made while it loaded', async () => {
    await page.goto(`${server.url}/dashboard`);
    await signIn(page, watcher.key);
    // A reviewer claims while the page is still loading its first answers.
    const first = await claim(server.url, reviewer);
    expect(first.record).toBe('big-000000/r0000');

    await waitForText(page.getByRole('status'), 'Live');
    await waitForText(page.locator('#stat-active'), '1', 30_000);
    expect(await counts(page)).toEqual({
      pending: String(ITEMS),
      unclaimed: String(ITEMS - 1),
      active: '1',
      expired: '0',
      accepted: '0',
      corrected: '0',
      rejected: '0',
    });
    // The table: the first 100 pending items in claim order, the claimed one first with its holder.
    const row = page.locator('tr[data-record="big-000000/r0000"]');
    await waitForText(row.locator('td.holder'), 'tanaka');
    expect(await page.locator('#items-body tr').count()).toBe(100);
    await page.locator('tr[data-record="big-000000/r0099"]').waitFor();
    await waitForText(page.locator('#items-note'), /Showing the first 100/);
    // The feed ends at the latest event of the history: the claim.
    const latest = ((await ask(server.url, reviewer, LATEST)).events as { edges: { node: { sequence: number; type: string } }[] }).edges[0]
      ?.node;
    expect(latest?.type).toBe('LEASE_CLAIMED');
    await waitForText(page.locator('#feed li').first().locator('.event-seq'), `#${latest?.sequence}`);
  });

  it('follows claims and decisions made after it went live', async () => {
    const second = await claim(server.url, reviewer);
    expect(second.record).toBe('big-000000/r0001');
    await waitForText(page.locator('#stat-active'), '2');
    await waitForText(page.locator('#stat-unclaimed'), String(ITEMS - 2));
    await waitForText(page.locator('tr[data-record="big-000000/r0001"] td.holder'), 'tanaka');
    await page.locator('#feed li.event-lease-claimed', { hasText: 'big-000000 / r0001' }).waitFor();

    await ask(server.url, reviewer, DECIDE, { token: second.token });
    await waitForText(page.locator('#stat-accepted'), '1');
    await waitForText(page.locator('#stat-pending'), String(ITEMS - 1));
    await waitForText(page.locator('#stat-active'), '1');
    await page.locator('#feed li.event-item-decided', { hasText: 'big-000000 / r0001 → Accepted' }).waitFor();
    // Decided items leave the pending view; the next one moves up into the 100 shown.
    await page.locator('tr[data-record="big-000000/r0001"]').waitFor({ state: 'detached' });
    await page.locator('tr[data-record="big-000000/r0100"]').waitFor();
    expect(problems).toEqual([]);
  });
});
