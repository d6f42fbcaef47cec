// The dashboard's browser tests' shared parts: Debian's Chromium through playwright-core, signing in, waiting
// for text the page shows, collecting page errors, and asking the server as a key holder.
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { post } from './process.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** A process-test KeyHolder or an in-process TestClient. */
export type Caller = { name: string; headers: Record<string, string> };

/** Sends an operation as `caller`; fails on any top-level error or a UserError payload. */
export async function ask(
  url: string,
  caller: Caller,
  query: string,
  variables?: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const { status, body } = await post(url, query, variables, caller.headers);
  if (status !== 200 || body.errors || !body.data) throw new Error(`${caller.name}: HTTP ${status}: ${JSON.stringify(body)}`);
  for (const value of Object.values(body.data)) {
    if ((value as { __typename?: string } | null)?.__typename === 'UserError') throw new Error(`${caller.name}: ${JSON.stringify(value)}`);
  }
  return body.data;
}

/** Waits until `locator`'s text matches `text` (Playwright polls the page; nothing here sleeps). */
export const waitForText = (locator: Locator, text: string | RegExp, timeout = 15_000) =>
  locator
    .filter({ hasText: typeof text === 'string' ? new RegExp(`^\\s*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`) : text })
    .waitFor({ timeout });

export async function signIn(page: Page, key: string): Promise<void> {
  const input = page.getByLabel('API key', { exact: true });
  await input.fill(key);
  // The keyboard path: Enter submits the form.
  await input.press('Enter');
}

/** Page errors and CSP violations; failed requests while the server is down are expected and not collected. */
export function watchForErrors(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (/content security policy/i.test(message.text())) problems.push(`csp: ${message.text()}`);
  });
  return problems;
}

/** A promise and the functions that settle it. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: Error) => void } {
  let resolve: (value: T) => void = () => {};
  let reject: (error: Error) => void = () => {};
  const promise = new Promise<T>((done, failed) => {
    resolve = done;
    reject = failed;
  });
  return { promise, resolve, reject };
}

/** A GraphQL answer held back on its way to the page; `release()` hands it over and resolves once it is handed. */
export type HeldAnswer = { release: () => Promise<void> };

/**
 * Holds back the answer to the page's next GraphQL POST whose variables `match`: the request reaches the server and
 * is carried out; its answer reaches the page only after `release()`. Resolves once the route is in place, so a
 * request the page sends after that is caught; `request` resolves when it is sent, and fails after `timeout` if it
 * never is (rather than the test waiting out its own limit).
 */
export async function holdAnswer(
  page: Page,
  match: (variables: Record<string, unknown>) => boolean,
  timeout = 15_000,
): Promise<{ request: Promise<HeldAnswer> }> {
  const sent = deferred<HeldAnswer>();
  sent.promise.catch(() => {});
  const unsent = setTimeout(() => sent.reject(new Error(`holdAnswer: the page sent no matching request within ${timeout} ms`)), timeout);
  let taken = false;
  await page.route('**/graphql', async (route) => {
    const body = route.request().postDataJSON() as { variables?: Record<string, unknown> } | null;
    if (taken || route.request().method() !== 'POST' || !match(body?.variables ?? {})) return route.fallback();
    taken = true;
    clearTimeout(unsent);
    const response = await route.fetch();
    const released = deferred();
    const handed = deferred();
    sent.resolve({
      release: () => {
        released.resolve();
        return handed.promise;
      },
    });
    await released.promise;
    await route.fulfill({ response });
    handed.resolve();
  });
  return { request: sent.promise };
}
