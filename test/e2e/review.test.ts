// The reviewer's page (/review) in a real browser — Debian's Chromium driven by playwright-core — against a real
// server process on a manual clock (test/support/fake-clock-server.ts): two browser contexts are two reviewers.
// Both press "claim next" at once and get different items; one lets its 30 s lease lapse (the clock moved past it)
// and its page says so at once, refuses to send a decision on it and says why, while the other claims that item;
// the whole loop by keyboard (claim, correct to a Japanese category, accept, reject, renew, release); a key pressed
// while a request is on its way is carried out after it; a closed tab frees the item it held (releaseOnDisconnect).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWeb } from '../../scripts/build-web.js';
import { ask, holdAnswer, launchChromium, signIn, waitForText, watchForErrors } from '../support/dashboard-browser.js';
import { type TestDatabase, testDatabase } from '../support/database.js';
import { createKeys, type FakeClockServer, type KeyHolder, startFakeClockServer } from '../support/process.js';

const ADD_CATEGORIES = 'mutation ($names: [String!]!) { addCategories(input: { names: $names }) { __typename } }';
const ADD_ITEMS = 'mutation ($items: [AddItemInput!]!) { addItems(input: { items: $items }) { __typename } }';
const ITEM = `query ($batchId: String!) {
  items(filter: { batchId: $batchId }, first: 50) { edges { node { recordId status claimState claimedBy finalCategory reviewedBy } } }
}`;
const DECISIONS = `query { events(last: 100, filter: { types: [ITEM_DECIDED] }) { edges { node { actor item { recordId } } } } }`;

interface ItemRow {
  recordId: string;
  status: string;
  claimState: string;
  claimedBy: string | null;
  finalCategory: string | null;
  reviewedBy: string | null;
}

let browser: Browser;
let database: TestDatabase;
let server: FakeClockServer;
let admin: KeyHolder;
let proposer: KeyHolder;
let tanaka: KeyHolder;
let suzuki: KeyHolder;
let wallboard: KeyHolder;
const contexts: BrowserContext[] = [];
let batch = 0;

beforeAll(async () => {
  await buildWeb();
  browser = await launchChromium();
  database = await testDatabase();
  [admin, proposer, tanaka, suzuki, wallboard] = (await createKeys(database, [
    { name: 'admin', roles: ['ADMIN'] },
    { name: 'classifier', roles: ['PROPOSER'] },
    { name: 'tanaka', roles: ['REVIEWER'] },
    { name: 'suzuki', roles: ['REVIEWER'] },
    { name: 'wallboard', roles: ['VIEWER'] },
  ])) as [KeyHolder, KeyHolder, KeyHolder, KeyHolder, KeyHolder];
  server = await startFakeClockServer(database);
  await ask(server.url, admin, ADD_CATEGORIES, { names: ['スパム', '請求', 'その他'] });
});

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await browser?.close();
  await server?.stop();
  await database?.cleanup();
});

/** A new batch of `count` items proposed as スパム; returns its id. */
async function addBatch(count: number): Promise<string> {
  const batchId = `review-${++batch}`;
  const items = Array.from({ length: count }, (_, index) => ({
    batchId,
    recordId: `r${index}`,
    proposedCategory: 'スパム',
    reason: `件名に「当選」を含む (${index})`,
  }));
  await ask(server.url, proposer, ADD_ITEMS, { items });
  return batchId;
}

async function items(batchId: string): Promise<Map<string, ItemRow>> {
  const data = (await ask(server.url, admin, ITEM, { batchId })) as { items: { edges: { node: ItemRow }[] } };
  return new Map(data.items.edges.map(({ node }) => [node.recordId, node]));
}

/** A reviewer's page in a context of its own, signed in, with `batchId` and `leaseSeconds` set in the claim form. */
async function reviewer(holder: KeyHolder, batchId: string, leaseSeconds = 300): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB', timezoneId: 'UTC' });
  contexts.push(context);
  const page = await context.newPage();
  const problems = watchForErrors(page);
  const response = await page.goto(`${server.url}/review`);
  expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
  const input = page.getByLabel('API key or JWT', { exact: true });
  await input.fill(holder.key);
  await input.press('Enter');
  await waitForText(page.locator('#viewer-name'), `${holder.name} (REVIEWER)`);
  await waitForText(page.locator('#connection'), 'Live');
  await page.getByLabel('Batch (optional)').fill(batchId);
  await page.getByLabel('Lease').selectOption(String(leaseSeconds));
  // Back to the page itself: the shortcuts are not taken while a field has the focus.
  await page.locator('#review-title').focus();
  return { page, problems };
}

/** The dashboard, signed in as the wallboard. */
async function dashboard(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB', timezoneId: 'UTC' });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`${server.url}/dashboard`);
  await signIn(page, wallboard.key);
  await waitForText(page.locator('#connection'), 'Live');
  return page;
}

const claimed = async (page: Page): Promise<string> => {
  await waitForText(page.locator('#claim-status'), /^Claimed /);
  return (await page.locator('#item-record').textContent()) ?? '';
};

describe('the reviewer page against a server process', () => {
  it('two reviewers claim at once and get different items; a lapsed lease is said at once, refused locally, and claimable by the other', async () => {
    const batchId = await addBatch(3);
    const [a, b, board] = await Promise.all([reviewer(tanaka, batchId, 30), reviewer(suzuki, batchId, 30), dashboard()]);
    await waitForText(board.locator('#chart-held'), 'Claim to decision, last hour: no decisions yet.');
    await Promise.all([a.page.keyboard.press('n'), b.page.keyboard.press('n')]);
    const [first, second] = await Promise.all([claimed(a.page), claimed(b.page)]);
    expect(new Set([first, second]).size).toBe(2);
    // The item on the page, with its proposal, and the lease's countdown on the server's clock.
    await waitForText(a.page.locator('#item-category'), 'スパム');
    expect(await a.page.locator('#item-reason').textContent()).toMatch(/^件名に「当選」を含む/);
    expect(await a.page.locator('#lease-countdown').textContent()).toMatch(/^0:(29|30) left, until 09:00:30$/);
    const before = await items(batchId);
    expect(before.get(first)?.claimedBy).toBe('tanaka');
    expect(before.get(second)?.claimedBy).toBe('suzuki');

    // suzuki decides; then the clock passes tanaka's 30 s lease.
    await b.page.keyboard.press('a');
    await waitForText(b.page.locator('#claim-status'), `Accepted ${batchId} / ${second}. Press N for the next item.`);
    // The dashboard hears of the decision: its count, and the claim-to-decision time (no time passed on the clock).
    await waitForText(board.locator('#stat-accepted'), '1');
    await waitForText(board.locator('#chart-held'), 'Claim to decision, last hour: median 0 s, 90th percentile 0 s (1 decision).');
    await server.advance(31_000);
    await waitForText(a.page.locator('#lease-state'), /^Your lease lapsed at 09:00:30 \(server clock\)/);
    expect(await a.page.locator('#lease').getAttribute('data-state')).toBe('ended');
    expect(await a.page.locator('#accept').isDisabled()).toBe(true);
    // The shortcut still works, and says why nothing was sent.
    await a.page.keyboard.press('a');
    await waitForText(a.page.locator('#problem'), /^Not sent: Your lease lapsed at 09:00:30/);

    // The lapsed item is the oldest claimable one: suzuki's next claim takes it.
    await b.page.keyboard.press('n');
    expect(await claimed(b.page)).toBe(first);
    await b.page.keyboard.press('r');
    await waitForText(b.page.locator('#claim-status'), `Rejected ${batchId} / ${first}. Press N for the next item.`);
    await waitForText(board.locator('#chart-held'), /\(2 decisions\)\.$/);
    const after = await items(batchId);
    expect(after.get(first)).toMatchObject({ status: 'REJECTED', reviewedBy: 'suzuki' });
    expect(after.get(second)).toMatchObject({ status: 'ACCEPTED', reviewedBy: 'suzuki' });
    // tanaka's page never sent a decision.
    const decided = (await ask(server.url, admin, DECISIONS)) as { events: { edges: { node: { actor: string } }[] } };
    expect(decided.events.edges.filter(({ node }) => node.actor === 'tanaka')).toEqual([]);
    expect(a.problems).toEqual([]);
    expect(b.problems).toEqual([]);
  });

  it('works the whole loop by keyboard: correct to a Japanese category, renew, release', async () => {
    const batchId = await addBatch(2);
    const { page, problems } = await reviewer(tanaka, batchId);
    await page.keyboard.press('n');
    const record = await claimed(page);
    // Claimed at 09:00:31 (the first test moved the clock 31 s) for 300 s; the clock moves 60 s and E renews it for
    // 300 s from the server's now.
    await waitForText(page.locator('#lease-countdown'), /until 09:05:31$/);
    await server.advance(60_000);
    await page.keyboard.press('e');
    await waitForText(page.locator('#lease-countdown'), /until 09:06:31$/);
    // Release (L): the item is back in the queue.
    await page.keyboard.press('l');
    await waitForText(page.locator('#lease-state'), /^You released the item/);
    expect((await items(batchId)).get(record)?.claimState).toBe('UNCLAIMED');
    // Claim it again and correct it: C picks the category, Enter sends the correction.
    await page.keyboard.press('n');
    expect(await claimed(page)).toBe(record);
    await page.keyboard.press('c');
    expect(await page.evaluate('document.activeElement?.id')).toBe('correct-category');
    await page.locator('#correct-category').selectOption('請求');
    await page.keyboard.press('Enter');
    await waitForText(page.locator('#claim-status'), `Corrected ${batchId} / ${record}. Press N for the next item.`);
    await waitForText(page.locator('#done-list li').first(), `Corrected: ${batchId} / ${record} → 請求`);
    expect((await items(batchId)).get(record)).toMatchObject({ status: 'CORRECTED', finalCategory: '請求', reviewedBy: 'tanaka' });
    expect(problems).toEqual([]);
  });

  it('carries out a key pressed while a request is on its way, and reads a release the same when heard first live', async () => {
    const batchId = await addBatch(1);
    const { page, problems } = await reviewer(tanaka, batchId);
    await page.keyboard.press('n');
    const record = await claimed(page);
    // The renewal's answer is held back until L has been pressed: the page hears the renewal on its live
    // connection first (the countdown moves), and L, pressed then, must not be lost.
    const renewing = await holdAnswer(page, (variables) => 'leaseSeconds' in variables && 'token' in variables);
    await page.keyboard.press('e');
    const renewal = await renewing.request;
    await waitForText(page.locator('#lease-countdown'), /until 09:\d\d:\d\d$/);
    expect(await page.locator('#review').getAttribute('aria-busy')).toBe('true');
    // The release, in turn, is answered only after the page has heard of it live: it reads as this page's own.
    const releasing = await holdAnswer(page, (variables) => Object.keys(variables).join() === 'token');
    await page.keyboard.press('l');
    void renewal.release();
    const release = await releasing.request;
    await waitForText(page.locator('#lease-state'), /^You released the item: it is back in the queue/);
    void release.release();
    await expect.poll(async () => page.locator('#review').getAttribute('aria-busy')).toBe(null);
    expect((await items(batchId)).get(record)?.claimState).toBe('UNCLAIMED');
    await waitForText(page.locator('#lease-state'), /^You released the item/);
    expect(problems).toEqual([]);
  });

  it('frees the item when the tab that held it closes (releaseOnDisconnect)', async () => {
    const batchId = await addBatch(1);
    const { page } = await reviewer(suzuki, batchId);
    await page.keyboard.press('n');
    const record = await claimed(page);
    expect((await items(batchId)).get(record)?.claimState).toBe('ACTIVE');
    await page.close();
    await expect.poll(async () => (await items(batchId)).get(record)?.claimState, { timeout: 15_000 }).toBe('UNCLAIMED');
  });
});
