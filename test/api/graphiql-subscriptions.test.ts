// GraphiQL as a user runs it, in Chromium: paste the key into the Headers pane, run the README's WatchQueue
// subscription, change something in another request, and see the event arrive. GraphiQL sends subscriptions
// as server-sent events over GET, which Yoga's CSRF check refuses without its header: the page adds it.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, watchForErrors } from '../support/dashboard-browser.js';
import { postGraphQL, startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let browser: Browser;
beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const WATCH = 'subscription WatchQueue { queueEvents { sequence type item { recordId } } }';

async function replaceEditor(page: Page, selector: string, text: string): Promise<void> {
  await page.locator(selector).click();
  await page.keyboard.press('Control+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

const HEADERS_EDITOR = '.monaco-editor[data-uri$="headers.json"]';

/** Opens GraphiQL in a fresh browser context, waits for its Headers pane, runs `work`; the page must log no error. */
async function withGraphiQL(work: (page: Page) => Promise<void>, beforeOpening?: (page: Page) => void): Promise<void> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const errors = watchForErrors(page);
    beforeOpening?.(page);
    await page.goto(`${server.url}/graphql`);
    await page.getByText('Headers', { exact: true }).waitFor({ timeout: 30_000 });
    await work(page);
    expect(errors).toEqual([]);
  } finally {
    await context.close();
  }
}

describe('GraphiQL with a pasted key', () => {
  it('fetches the schema again once the key is pasted: the Docs pane shows it, not "Error fetching schema"', async () => {
    const viewer = await server.as('graphiql-docs', ['VIEWER']);
    await withGraphiQL(async (page) => {
      await page.getByRole('button', { name: 'Show Documentation Explorer' }).click();
      const docs = page.locator('.graphiql-plugin').first();
      // Without a key the page's first fetch is refused.
      await docs.getByText('Error fetching schema').waitFor({ timeout: 10_000 });
      await page.getByText('Headers', { exact: true }).click();
      await replaceEditor(page, HEADERS_EDITOR, `{"authorization": "Bearer ${viewer.key}"}`);
      await docs.getByText('Root Types').waitFor({ timeout: 10_000 });
      expect(await docs.textContent()).not.toContain('Error fetching schema');
    });
  });
});

describe('GraphiQL tabs', () => {
  it('a new tab ("+") opens with the headers of the tab it was opened from, kept with it', async () => {
    const viewer = await server.as('graphiql-tabs', ['VIEWER']);
    await withGraphiQL(async (page) => {
      await page.getByText('Headers', { exact: true }).click();
      const headers = `{"authorization": "Bearer ${viewer.key}"}`;
      await replaceEditor(page, HEADERS_EDITOR, headers);
      await page.getByRole('button', { name: 'New tab' }).click();
      await page.locator('.graphiql-tab').nth(1).waitFor();
      // Monaco draws spaces as no-break spaces.
      const shown = async () => ((await page.locator(`${HEADERS_EDITOR} .view-lines`).textContent()) ?? '').replaceAll('\u00a0', ' ');
      await expect.poll(shown, { timeout: 5_000 }).toBe(headers);
      // GraphiQL keeps them with the new tab, as if typed there.
      await expect
        .poll(async () => JSON.parse((await page.evaluate(() => sessionStorage.getItem('graphiql:tabState'))) ?? '{}').tabs?.[1]?.headers)
        .toBe(headers);
    });
  });
});

describe('GraphiQL subscriptions', () => {
  it('runs WatchQueue with only the Authorization header pasted, and shows an event made elsewhere', async () => {
    const viewer = await server.as('graphiql-viewer', ['VIEWER']);
    const setup = await server.as('setup', ['ADMIN', 'PROPOSER']);
    await postGraphQL(server.url, 'mutation { addCategories(input: { names: ["a"] }) { __typename } }', undefined, setup.headers);
    const refused: string[] = [];
    const recordRefusals = (page: Page) =>
      page.on('response', (response) => {
        if (response.status() >= 400) refused.push(`${response.status()} ${response.request().method()} ${response.url()}`);
      });
    await withGraphiQL(async (page) => {
      await page.getByText('Headers', { exact: true }).click();
      await replaceEditor(page, HEADERS_EDITOR, `{"authorization": "Bearer ${viewer.key}"}`);
      await replaceEditor(page, '.monaco-editor[data-uri$="operation.graphql"]', WATCH);
      // Before the key was pasted, the page's schema request was refused (401): only what follows counts.
      refused.length = 0;
      // GraphiQL works out the operation to run from the editor's text a moment after it changes.
      await page.waitForTimeout(700);
      await page.keyboard.press('Control+Enter');
      // The subscription is running once the server has it; add items until one shows up (the first may come first).
      const result = page.locator('.graphiql-response');
      let shown = false;
      for (let attempt = 0; attempt < 50 && !shown; attempt++) {
        const added = await postGraphQL(
          server.url,
          `mutation { addItem(input: { batchId: "graphiql", recordId: "r${attempt}", proposedCategory: "a", reason: "r" }) { __typename } }`,
          undefined,
          setup.headers,
        );
        expect(added.status).toBe(200);
        shown = await result
          .getByText('ITEM_ADDED')
          .first()
          .waitFor({ timeout: 200 })
          .then(() => true)
          .catch(() => false);
      }
      expect(shown, `the response pane shows: ${await result.textContent()}; refused: ${refused.join(', ')}`).toBe(true);
      expect(refused).toEqual([]);
    }, recordRefusals);
  });
});
