// Every page (/dashboard, /review, /approvals) checked by axe-core in Chromium (@axe-core/playwright), signed out and
// signed in with content on screen (an item claimed, a proposal open, Japanese text included): no serious or critical
// violation of WCAG 2.1 A/AA; Japanese text renders as glyphs. And the layout holds from a 360 px phone to a wall screen: nothing wider than the
// window (no sideways scrolling) at 360 px, 768 px and 1920 px.
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWeb } from '../../scripts/build-web.js';
import type { Role } from '../../src/domain/access.js';
import { addCategories } from '../../src/services/categories.js';
import { addItems } from '../../src/services/items.js';
import { submitProposal } from '../../src/services/proposals/index.js';
import { launchChromium, waitForText, watchForErrors } from '../support/dashboard-browser.js';
import { PROPOSER, proposalInput } from '../support/proposals.js';
import { startTestServer, type TestServer } from '../support/server.js';

let browser: Browser;
let server: TestServer;
const contexts: BrowserContext[] = [];
const WIDTHS = [360, 768, 1920] as const;

beforeAll(async () => {
  await buildWeb();
  browser = await launchChromium();
  server = await startTestServer();
  const deps = { db: server.db, clock: server.clock };
  const setup = { name: 'setup', authenticated: false };
  await addCategories(deps, setup, ['スパム', '請求書', 'その他']);
  await addItems(
    deps,
    setup,
    Array.from({ length: 5 }, (_, index) => ({
      batchId: 'メール-2026-11',
      recordId: `受信-${index}`,
      proposedCategory: 'スパム',
      reason: '件名に「当選しました」とあり、送信元が未登録のドメインです。',
    })),
  );
  await submitProposal(
    deps,
    PROPOSER,
    proposalInput('sku-a11y', {
      reason: '競合店が同じ商品を 1,299 円に値下げしました。',
      currentValue: { price: 1499, currency: 'JPY', label: '通常価格' },
      proposedValue: { price: 1299, currency: 'JPY', label: 'セール価格' },
    }),
  );
});

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await browser?.close();
  await server?.stop();
});

async function pageAs(path: string, name: string, roles: Role[]): Promise<{ page: Page; problems: string[] }> {
  const client = await server.as(name, roles);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'ja-JP', timezoneId: 'Asia/Tokyo' });
  contexts.push(context);
  const page = await context.newPage();
  const problems = watchForErrors(page);
  await page.goto(`${server.url}${path}`);
  // Signed out first: the sign-in panel alone.
  await expectAccessible(page, `${path}, signed out`);
  const input = page.locator('#api-key');
  await input.fill(client.key);
  await input.press('Enter');
  await waitForText(page.locator('#viewer-name'), `${name} (${roles.join(', ')})`);
  return { page, problems };
}

/** No serious or critical axe violation (WCAG 2.1 A and AA rules), each listed with where it was found. */
async function expectAccessible(page: Page, where: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const serious = results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) => `${where}: ${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
  expect(serious).toEqual([]);
}

/**
 * Japanese text renders as glyphs, not as the empty boxes a missing font gives: with no font for them, two different
 * kanji in the page's own font look the same (one box each); with one they do not. (CI installs a Japanese font.)
 */
async function expectGlyphs(page: Page): Promise<void> {
  const shot = async (text: string) => {
    await page.evaluate((content) => {
      const probe = document.getElementById('glyph-probe') ?? document.body.appendChild(document.createElement('span'));
      probe.id = 'glyph-probe';
      probe.style.fontSize = '32px';
      probe.textContent = content;
    }, text);
    return (await page.locator('#glyph-probe').screenshot()).toString('base64');
  };
  const [first, second] = [await shot('請'), await shot('求')];
  await page.evaluate(() => document.getElementById('glyph-probe')?.remove());
  expect(first === second, 'two different kanji render alike: no Japanese font (apt-get install fonts-ipafont-gothic)').toBe(false);
}

/** At each width, nothing is wider than the window. */
async function expectFits(page: Page, where: string): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, `${where} at ${width} px scrolls sideways by ${overflow} px`).toBeLessThanOrEqual(0);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe('the pages are usable by everyone', () => {
  it('/review: signed out, and with an item claimed', async () => {
    const { page, problems } = await pageAs('/review', 'tanaka', ['REVIEWER']);
    await waitForText(page.locator('#connection'), 'Live');
    await page.locator('#review-title').focus();
    await page.keyboard.press('n');
    await waitForText(page.locator('#claim-status'), /^Claimed メール-2026-11 \/ 受信-0\.$/);
    await waitForText(page.locator('#item-reason'), '件名に「当選しました」とあり、送信元が未登録のドメインです。');
    await expectGlyphs(page);
    await expectAccessible(page, '/review with an item');
    await expectFits(page, '/review');
    expect(problems).toEqual([]);
  });

  it('/approvals: signed out, and with a proposal open', async () => {
    const { page, problems } = await pageAs('/approvals', 'sato', ['REVIEWER']);
    await page.getByRole('button', { name: 'prices / sku-a11y r1' }).click();
    await waitForText(page.locator('#p-reason'), '競合店が同じ商品を 1,299 円に値下げしました。');
    await waitForText(page.locator('#p-diff .diff-added').filter({ hasText: 'セール価格' }), /セール価格/);
    await expectAccessible(page, '/approvals with a proposal');
    await expectFits(page, '/approvals');
    expect(problems).toEqual([]);
  });

  it('/dashboard: signed out, and live', async () => {
    const { page, problems } = await pageAs('/dashboard', 'wallboard', ['VIEWER']);
    await waitForText(page.locator('#connection'), 'Live');
    await page.locator('#items-body tr').first().waitFor();
    await expectAccessible(page, '/dashboard live');
    await expectFits(page, '/dashboard');
    expect(problems).toEqual([]);
  });
});
