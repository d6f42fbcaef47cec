// The pictures of /review and /approvals in docs/ (and the README), taken the same way every run: an in-process
// server on a manual clock, the page's clock paused at the server's "now", fixed data (Japanese text included: CI
// installs a Japanese font). Each picture is also a check that the page shows what it should at that moment.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWeb } from '../../scripts/build-web.js';
import type { Role } from '../../src/domain/access.js';
import { addCategories } from '../../src/services/categories.js';
import { addItems } from '../../src/services/items.js';
import { claimProposal, reviewProposal, submitProposal } from '../../src/services/proposals/index.js';
import { launchChromium, waitForText, watchForErrors } from '../support/dashboard-browser.js';
import { ROOT } from '../support/process.js';
import { PROPOSER, proposalInput } from '../support/proposals.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** 09:00:00 UTC, where the manual clock stands when the pictures are taken. */
const NOW = Date.UTC(2026, 10, 30, 9, 0, 0);

let browser: Browser;
let server: TestServer;
let context: BrowserContext;

beforeAll(async () => {
  await buildWeb();
  browser = await launchChromium();
  server = await startTestServer({ start: NOW - 20 * 60 * 1000 });
  const deps = { db: server.db, clock: server.clock };
  const setup = { name: 'setup', authenticated: false };
  await addCategories(deps, setup, ['スパム', '請求書', '配送', 'その他']);
  await addItems(deps, setup, [
    {
      batchId: 'inbox-20261130',
      recordId: 'mail-0412',
      proposedCategory: 'スパム',
      reason: '件名に「当選しました」とあり、送信元が未登録のドメインです。',
    },
    { batchId: 'inbox-20261130', recordId: 'mail-0413', proposedCategory: '請求書', reason: '添付の PDF に請求番号と支払期日があります。' },
  ]);
  server.clock.advance(10 * 60 * 1000);
  await submitProposal(
    deps,
    PROPOSER,
    proposalInput('sku-1042', {
      riskLevel: 'HIGH',
      reason: '競合店が同じ商品を 1,299 円に値下げしました。',
      currentValue: { price: 1499, currency: 'JPY', label: '通常価格' },
      proposedValue: { price: 1299, currency: 'JPY', label: 'セール価格' },
      parameters: { sku: 'sku-1042', price: 1299 },
    }),
  );
  server.clock.advance(5 * 60 * 1000);
  const tanaka = { name: 'tanaka', authenticated: true };
  const review = await claimProposal(deps, tanaka, {});
  await reviewProposal(deps, tanaka, { token: review?.token ?? '', decision: 'APPROVE', revision: 1 });
  server.clock.set(NOW);
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB', timezoneId: 'UTC', deviceScaleFactor: 1 });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.stop();
});

/** A page whose clock stands at NOW, signed in as `name`. */
async function open(pagePath: string, name: string, roles: Role[]): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems = watchForErrors(page);
  await page.clock.install({ time: NOW - 60_000 });
  await page.clock.pauseAt(NOW);
  await page.goto(`${server.url}${pagePath}`);
  const client = await server.as(name, roles);
  await page.locator('#api-key').fill(client.key);
  await page.locator('#api-key').press('Enter');
  await waitForText(page.locator('#viewer-name'), `${name} (${roles.join(', ')})`);
  return { page, problems };
}

async function picture(page: Page, name: string): Promise<void> {
  const file = path.join(ROOT, 'docs', name);
  mkdirSync(path.dirname(file), { recursive: true });
  await page.screenshot({ path: file, fullPage: true, animations: 'disabled', caret: 'hide' });
}

describe('pictures of the pages', () => {
  it('/review with an item claimed for five minutes (docs/review.png)', async () => {
    const { page, problems } = await open('/review', 'suzuki', ['REVIEWER']);
    await waitForText(page.locator('#connection'), 'Live');
    await page.locator('#review-title').focus();
    await page.keyboard.press('n');
    await waitForText(page.locator('#claim-status'), 'Claimed inbox-20261130 / mail-0412.');
    await waitForText(page.locator('#lease-countdown'), '5:00 left, until 09:05:00');
    await page.locator('#review-title').focus();
    await picture(page, 'review.png');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('/approvals with a HIGH proposal approved once of twice (docs/approvals.png)', async () => {
    const { page, problems } = await open('/approvals', 'sato', ['REVIEWER']);
    await page.getByRole('button', { name: 'prices / sku-1042 r1' }).click();
    await waitForText(page.locator('#p-policy'), /^1 of 2 approvals/);
    await waitForText(page.locator('#p-after'), /^After this approval it is APPROVED/);
    await page.locator('#approvals-title').focus();
    await picture(page, 'approvals.png');
    expect(problems).toEqual([]);
    await page.close();
  });
});
