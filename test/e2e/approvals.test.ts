// The approvals page (/approvals) in a real browser — Debian's Chromium driven by playwright-core — against a real
// server (in this process, on a manual clock, so the test drives the proposals' other parties through the services
// on the same database and clock). A revision that is replaced while open says so, disables approval and opens the
// new one; an approval the server refuses is said, not assumed; a HIGH proposal's second approver sees "1 of 2"
// live; an operator reconciles an OUTCOME_UNKNOWN; actions appear only for the roles that may take them.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWeb } from '../../scripts/build-web.js';
import type { Role } from '../../src/domain/access.js';
import type { Actor } from '../../src/services/context.js';
import {
  claimExecution,
  claimProposal,
  holdProposal,
  reportExecutionResult,
  reportTargetState,
  resumeProposal,
  reviewProposal,
  startExecutionAttempt,
  submitProposal,
} from '../../src/services/proposals/index.js';
import { holdAnswer, launchChromium, waitForText, watchForErrors } from '../support/dashboard-browser.js';
import { EXECUTOR, PROPOSER, proposalInput } from '../support/proposals.js';
import { startTestServer, type TestServer } from '../support/server.js';

let browser: Browser;
let server: TestServer;
const contexts: BrowserContext[] = [];
const deps = () => ({ db: server.db, clock: server.clock });
const executor: Actor & { roles: ReadonlySet<Role> } = { ...EXECUTOR, roles: new Set<Role>(['EXECUTOR']) };

beforeAll(async () => {
  await buildWeb();
  browser = await launchChromium();
  server = await startTestServer();
});

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await browser?.close();
  await server?.stop();
});

/**
 * `name`'s page (`/approvals` unless `path` says otherwise), signed in with a key of `roles`; `prepare` runs on the
 * new page before it is opened (routes set up before its first request), and what it returns is `prepared`.
 */
async function approver<T = void>(
  name: string,
  roles: Role[],
  {
    path = '/approvals',
    keyLabel = 'API key or JWT',
    prepare,
  }: { path?: string; keyLabel?: string; prepare?: (page: Page) => Promise<T> } = {},
): Promise<{ page: Page; problems: string[]; prepared: T }> {
  const client = await server.as(name, roles);
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, locale: 'en-GB', timezoneId: 'UTC' });
  contexts.push(context);
  const page = await context.newPage();
  const problems = watchForErrors(page);
  const prepared = (await prepare?.(page)) as T;
  const response = await page.goto(`${server.url}${path}`);
  expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
  const input = page.getByLabel(keyLabel, { exact: true });
  await input.fill(client.key);
  await input.press('Enter');
  await waitForText(page.locator('#viewer-name'), `${name} (${roles.join(', ')})`);
  return { page, problems, prepared };
}

/** Every text `selector` shows from now on, in order (a MutationObserver in the page). */
async function recordTexts(page: Page, selector: string): Promise<() => Promise<string[]>> {
  const key = `shown:${selector}`;
  await page.evaluate(
    ([selector, key]) => {
      const node = document.querySelector(selector);
      if (!node) throw new Error(`${selector} is not on the page`);
      const shown: string[] = [];
      (window as unknown as Record<string, string[]>)[key] = shown;
      new MutationObserver(() => shown.push(node.textContent ?? '')).observe(node, { childList: true, subtree: true, characterData: true });
    },
    [selector, key] as const,
  );
  return () => page.evaluate((key) => (window as unknown as Record<string, string[]>)[key] ?? [], key);
}

/** Opens the proposal for `recordId` from the queue (the current filters). */
async function open(page: Page, recordId: string, revision = 1): Promise<void> {
  await page.getByRole('button', { name: `prices / ${recordId} r${revision}` }).click();
  await waitForText(page.locator('#proposal-title'), `prices / ${recordId}, revision ${revision}`);
}

describe('the approvals page against a server', () => {
  it('shows what a revision would change, and says at once when a new revision replaces it', async () => {
    const { proposal } = await submitProposal(deps(), PROPOSER, proposalInput('sku-1', { reason: '競合が値下げした' }));
    const { page, problems } = await approver('sato', ['REVIEWER']);
    await open(page, 'sku-1');
    // Current against proposed, each line marked, not only coloured.
    await waitForText(page.locator('#p-diff .diff-removed'), /−\s*current only:\s*1499/);
    await waitForText(page.locator('#p-diff .diff-added'), /\+\s*proposed:\s*1299/);
    await waitForText(page.locator('#p-reason'), '競合が値下げした');
    await waitForText(page.locator('#p-policy'), /^0 of 1 approval/);
    expect(await page.locator('#approve').isEnabled()).toBe(true);

    // The target changes (the revision goes STALE) and the proposer submits revision 2.
    await reportTargetState(deps(), executor, { targetSystem: 'shop', targetId: 'sku-1', fingerprint: 'v2-sku-1' });
    await submitProposal(deps(), PROPOSER, proposalInput('sku-1', { revision: 2, fingerprint: 'v2-sku-1', currentValue: 1399 }));
    await waitForText(page.locator('#proposal-notice'), /^Revision 2 replaces this one/);
    expect(await page.locator('#approve').isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Open revision 2 (PENDING)' }).click();
    await waitForText(page.locator('#proposal-title'), 'prices / sku-1, revision 2');
    await waitForText(page.locator('#p-diff .diff-removed'), /1399/);
    await page.locator('#approve').click();
    await waitForText(page.locator('#proposal-state'), /^APPROVED/);
    const first = await server.db.read.proposal.findUnique({ where: { id: proposal.id }, include: { approvals: true } });
    expect(first?.state).toBe('STALE');
    expect(first?.approvals).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('approving revision 1 the page still shows after revision 2 replaced it: refused by the server, said, and revision 2 shown', async () => {
    await submitProposal(deps(), PROPOSER, proposalInput('sku-5'));
    // The page's WebSocket goes through the test, which can hold back what the server pushes: the page does not hear
    // of revision 2 before its approval goes out (the race the live update otherwise closes).
    let holding = false;
    const held: (string | Buffer)[] = [];
    let toPage = (_message: string | Buffer): void => {};
    const { page, problems } = await approver('sato', ['REVIEWER'], {
      prepare: (page) =>
        page.routeWebSocket(/\/graphql$/, (socket) => {
          const upstream = socket.connectToServer();
          toPage = (message) => socket.send(message);
          upstream.onMessage((message) => (holding ? held.push(message) : socket.send(message)));
          socket.onMessage((message) => upstream.send(message));
        }),
    });
    await open(page, 'sku-5');
    holding = true;
    await reportTargetState(deps(), executor, { targetSystem: 'shop', targetId: 'sku-5', fingerprint: 'v2-sku-5' });
    await submitProposal(deps(), PROPOSER, proposalInput('sku-5', { revision: 2, fingerprint: 'v2-sku-5', currentValue: 1399 }));
    expect(await page.locator('#approve').isEnabled()).toBe(true);
    await page.locator('#approve').click();
    await waitForText(page.locator('#problem'), /^Not sent: /);
    await waitForText(page.locator('#proposal-notice'), /^Revision 2 replaces this one/);
    expect(await page.locator('#approve').isDisabled()).toBe(true);
    holding = false;
    for (const message of held.splice(0)) toPage(message);
    await page.getByRole('button', { name: 'Open revision 2 (PENDING)' }).click();
    await waitForText(page.locator('#proposal-title'), 'prices / sku-5, revision 2');
    const first = await server.db.read.proposal.findFirst({ where: { recordId: 'sku-5', revision: 1 }, include: { approvals: true } });
    expect(first?.state).toBe('STALE');
    expect(first?.approvals).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('says why an approval was not taken when the server refuses it, and shows the proposal as it stands', async () => {
    const { proposal } = await submitProposal(deps(), PROPOSER, proposalInput('sku-2'));
    const { page } = await approver('sato', ['REVIEWER']);
    await open(page, 'sku-2');
    // Another reviewer holds the review lease: the claim behind "Approve" finds nothing to claim.
    const held = await claimProposal(deps(), { name: 'ito', authenticated: true }, { id: proposal.id });
    expect(held?.token).toBeTruthy();
    await page.locator('#approve').click();
    await waitForText(page.locator('#problem'), /^Not sent: /);
    const stored = await server.db.read.proposal.findUnique({ where: { id: proposal.id }, include: { approvals: true } });
    expect(stored?.approvals).toEqual([]);
  });

  it("a HIGH proposal's second approver sees 1 of 2, live, then approves it", async () => {
    await submitProposal(deps(), PROPOSER, proposalInput('sku-3', { riskLevel: 'HIGH' }));
    const [sato, ito] = await Promise.all([approver('sato', ['REVIEWER']), approver('ito', ['REVIEWER'])]);
    await Promise.all([open(sato.page, 'sku-3'), open(ito.page, 'sku-3')]);
    // The dashboard counts it among the HIGH-risk proposals awaiting approval (a maintained count), until approved.
    const board = await approver('wallboard', ['VIEWER'], { path: '/dashboard', keyLabel: 'API key' });
    await waitForText(board.page.locator('#prop-risk-HIGH'), '1');
    await waitForText(ito.page.locator('#p-policy'), /^0 of 2 approvals/);
    await waitForText(ito.page.locator('#p-after'), /^After your approval it still needs 1 more/);
    await sato.page.locator('#approve').click();
    await waitForText(sato.page.locator('#p-policy'), /^1 of 2 approvals/);
    // ito's page hears of it without a reload.
    await waitForText(ito.page.locator('#p-policy'), /^1 of 2 approvals/);
    await waitForText(ito.page.locator('#p-after'), /^After this approval it is APPROVED/);
    await ito.page.locator('#approve').click();
    await waitForText(ito.page.locator('#proposal-state'), /^APPROVED/);
    await waitForText(ito.page.locator('#p-policy'), /^2 of 2 approvals/);
    await waitForText(board.page.locator('#prop-risk-HIGH'), '0');
    expect(ito.problems).toEqual([]);
  });

  it('lists what the filters last asked for, whatever order the answers come back in', async () => {
    await submitProposal(deps(), PROPOSER, proposalInput('sku-6'));
    await submitProposal(deps(), PROPOSER, proposalInput('sku-7'));
    await reportTargetState(deps(), executor, { targetSystem: 'shop', targetId: 'sku-7', fingerprint: 'v2-sku-7' });
    // The first list (PENDING, the page's default) is answered only after the one the viewer asked for next (STALE).
    const states = (variables: Record<string, unknown>) => (variables.filter as { states?: string[] } | undefined)?.states?.join();
    const list = (state: string) => (variables: Record<string, unknown>) => 'first' in variables && states(variables) === state;
    const {
      page,
      problems,
      prepared: [pendingList, staleList],
    } = await approver('sato', ['REVIEWER'], {
      prepare: async (page) => [await holdAnswer(page, list('PENDING')), await holdAnswer(page, list('STALE'))] as const,
    });
    const pending = await pendingList.request;
    const shown = await recordTexts(page, '#queue-body');
    await page.getByLabel('State').selectOption('STALE');
    await page.getByRole('button', { name: 'Apply' }).click();
    const stale = await staleList.request;
    await pending.release();
    await stale.release();
    await page.locator('#queue-body tr').filter({ hasText: 'sku-7' }).waitFor();
    // The earlier ask's answer, come last, is never shown: neither before the later one nor over it.
    expect(await page.locator('#queue-body').textContent()).not.toContain('sku-6');
    expect((await shown()).filter((text) => text.includes('sku-6'))).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('shows the open proposal as the latest ask found it, whatever order the answers come back in', async () => {
    const { proposal } = await submitProposal(deps(), PROPOSER, proposalInput('sku-9'));
    const { page, problems } = await approver('sato', ['REVIEWER']);
    await open(page, 'sku-9');
    const lead: Actor = { name: 'lead', authenticated: true };
    const detail = (variables: Record<string, unknown>) => Object.keys(variables).join() === 'id';
    // The page reads the proposal again on hearing of the hold, and again on hearing of the resumption; the first
    // read's answer (ON_HOLD) reaches it only after the second's has been asked for.
    const afterHold = await holdAnswer(page, detail);
    await holdProposal(deps(), lead, { id: proposal.id, reason: 'Checking the price list.' });
    const held = await afterHold.request;
    const afterResume = await holdAnswer(page, detail);
    await resumeProposal(deps(), lead, { id: proposal.id, reason: 'Checked.' });
    const resumed = await afterResume.request;
    const shown = await recordTexts(page, '#proposal-state');
    await held.release();
    await resumed.release();
    await waitForText(page.locator('#p-history li').first(), /^PROPOSAL_RESUMED by lead, /);
    expect(await page.locator('#proposal-state').textContent()).toMatch(/^PENDING/);
    expect((await shown()).filter((text) => text.startsWith('ON_HOLD'))).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('an operator reconciles an OUTCOME_UNKNOWN; a viewer gets no action buttons', async () => {
    // Its own target system, so the executor's claim takes this one and not the revision approved above.
    const { proposal } = await submitProposal(deps(), PROPOSER, proposalInput('sku-4', { targetSystem: 'erp' }));
    const review = await claimProposal(deps(), { name: 'sato', authenticated: true }, { id: proposal.id });
    await reviewProposal(deps(), { name: 'sato', authenticated: true }, { token: review?.token ?? '', decision: 'APPROVE', revision: 1 });
    const execution = await claimExecution(deps(), EXECUTOR, { leaseSeconds: 60, targetSystems: ['erp'] });
    expect(execution?.proposal.id).toBe(proposal.id);
    await startExecutionAttempt(deps(), EXECUTOR, { token: execution?.token ?? '', fingerprint: 'v1-sku-4' });
    await reportExecutionResult(deps(), EXECUTOR, { token: execution?.token ?? '', outcome: 'UNKNOWN' });

    // The dashboard counts it as needing reconciliation, and links to the approvals page filtered to those.
    const board = await approver('wallboard', ['VIEWER'], { path: '/dashboard', keyLabel: 'API key' });
    await waitForText(board.page.locator('#prop-unknown'), '1');
    await board.page.locator('#prop-unknown').click();
    await waitForText(board.page.locator('#queue-note'), /^1 proposals/);
    expect(await board.page.getByLabel('State').inputValue()).toBe('OUTCOME_UNKNOWN');

    const viewer = await approver('wallboard', ['VIEWER']);
    await viewer.page.getByLabel('State').selectOption('OUTCOME_UNKNOWN');
    await viewer.page.getByRole('button', { name: 'Apply' }).click();
    await open(viewer.page, 'sku-4');
    expect(await viewer.page.locator('#actions').isHidden()).toBe(true);

    const { page, problems } = await approver('ops', ['RECONCILER']);
    await page.getByLabel('State').selectOption('OUTCOME_UNKNOWN');
    await page.getByRole('button', { name: 'Apply' }).click();
    const row = page.locator('#queue-body tr').filter({ hasText: 'sku-4' });
    await waitForText(row.locator('td').last(), /./);
    await open(page, 'sku-4');
    expect(await page.locator('#review-actions').isHidden()).toBe(true);
    await page.getByLabel('It was carried out').check();
    await page.getByLabel('Reason (or, to reconcile, the evidence)').fill('The shop shows 1299 since 09:00.');
    await page.getByRole('button', { name: 'Reconcile' }).click();
    await waitForText(page.locator('#proposal-state'), /^EXECUTED/);
    await waitForText(page.locator('#p-history li').first(), /^PROPOSAL_RECONCILED by ops, /);
    const dashboard = await approver('wallboard', ['VIEWER'], { path: '/dashboard', keyLabel: 'API key' });
    await waitForText(dashboard.page.locator('#prop-unknown'), '0');
    expect(problems).toEqual([]);
  });
});
