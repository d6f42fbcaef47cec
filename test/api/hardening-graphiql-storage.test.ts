// GraphiQL keeps the key pasted in its Headers pane for the browser tab only: sessionStorage, never localStorage.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, watchForErrors } from '../support/dashboard-browser.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let browser: Browser;
beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Everything in one of the origin's storages, read from a page of the origin that is not GraphiQL. */
async function storedOnOrigin(context: BrowserContext, storage: 'localStorage' | 'sessionStorage'): Promise<string> {
  const page = await context.newPage();
  try {
    await page.goto(`${server.url}/health`);
    return await page.evaluate((name) => JSON.stringify(Object.entries(window[name])), storage);
  } finally {
    await page.close();
  }
}

async function openGraphiQL(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${server.url}/graphql`);
  await page.getByText('Headers', { exact: true }).waitFor({ timeout: 30_000 });
  return page;
}

describe('GraphiQL and the pasted key', () => {
  it('is kept in the tab’s sessionStorage (a reload keeps it), never in localStorage, and is gone in a new tab', async () => {
    const context = await browser.newContext();
    try {
      const key = (await server.as('graphiql-user')).key;
      // What an earlier version of the page left on disk is removed.
      const stale = await context.newPage();
      await stale.goto(`${server.url}/health`);
      await stale.evaluate(() => localStorage.setItem('graphiql:headers', '{"authorization":"Bearer lhk_left-over-from-before"}'));
      await stale.close();

      const page = await openGraphiQL(context);
      const errors = watchForErrors(page);
      await page.getByText('Headers', { exact: true }).click();
      await page.locator('.monaco-editor[data-uri$="headers.json"]').click();
      await page.keyboard.insertText(`{"authorization": "Bearer ${key}"}`);
      // GraphiQL saves what is typed shortly after; wait until it is stored, wherever that is.
      await page.waitForFunction(
        (secret) => [...Object.values(localStorage), ...Object.values(sessionStorage)].some((value) => value.includes(secret)),
        key,
        { timeout: 10_000 },
      );

      const onDisk = await storedOnOrigin(context, 'localStorage');
      expect(onDisk.includes(key), 'the key is in localStorage').toBe(false);
      expect(onDisk.includes('left-over-from-before'), 'an earlier key is still in localStorage').toBe(false);
      expect(await page.evaluate(() => JSON.stringify(Object.entries(sessionStorage)))).toContain(key);

      await page.reload();
      await page.getByText('Headers', { exact: true }).waitFor({ timeout: 30_000 });
      expect(await page.evaluate((secret) => Object.values(sessionStorage).some((value) => value.includes(secret)), key)).toBe(true);
      expect((await storedOnOrigin(context, 'localStorage')).includes(key), 'the key is in localStorage').toBe(false);

      const other = await openGraphiQL(context);
      expect(await other.evaluate(() => JSON.stringify(Object.entries(sessionStorage)))).not.toContain(key);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
