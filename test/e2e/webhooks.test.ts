// Outbound webhooks against a real HTTP receiver, on a real database file: signed bodies, only the wanted
// event types, retries at the backoff times on the manual clock, FAILED after the last attempt with nothing
// else affected, a restart that loses and doubles nothing, two servers on one file sending each once,
// proposal events (an automatic escalation by age, an execution reported UNKNOWN), and the ADMIN-only
// delivery log.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type App, createApp } from '../../src/app.js';
import type { DatabaseLocation } from '../../src/config/database-location.js';
import { ConfigError } from '../../src/config/json-setting.js';
import type { WebhookConfig } from '../../src/config/webhooks.js';
import { loadConfig } from '../../src/config.js';
import { type Database, openDatabase, type WebhookDelivery } from '../../src/db/client.js';
import type { Role } from '../../src/domain/access.js';
import { ManualClock } from '../../src/domain/clock.js';
import type { EscalationPolicy } from '../../src/domain/escalation.js';
import { createLogger } from '../../src/logger.js';
import { WebhookDispatcher } from '../../src/notifications/webhooks.js';
import { createApiKey } from '../../src/services/api-keys.js';
import {
  claimExecution,
  claimProposal,
  reportExecutionResult,
  reviewProposal,
  startExecutionAttempt,
  submitProposal,
} from '../../src/services/proposals/index.js';
import { type TestDatabase, testDatabase } from '../support/database.js';
import { EXECUTOR, PROPOSER, proposalInput, REVIEWER } from '../support/proposals.js';
import { postGraphQL } from '../support/server.js';

const SECRET = 'a-webhook-secret-of-at-least-32-characters';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: {
    id: number;
    webhook: string;
    event: { sequence: number; type: string; categoryName: string | null; proposalId: number | null; details: Record<string, unknown> };
  };
  answered: number;
}

/** A webhook receiver: records every request and answers with `answer()`'s status. */
async function receiver(answer: (request: Received) => number | Promise<number> = () => 204) {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const entry: Received = { headers: request.headers, body, json: JSON.parse(body), answered: 0 };
      entry.answered = await answer(entry);
      received.push(entry);
      response.writeHead(entry.answered).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receivers.push(server);
  return { url, received, accepted: () => received.filter((entry) => entry.answered < 300) };
}
const receivers: Server[] = [];

interface Running {
  app: App;
  db: Database;
  url: string;
  clock: ManualClock;
  /** Every log line the server wrote. */
  logs: string[];
  /** Waits until committed events reached the dispatcher and its sends are answered and recorded. */
  settle(): Promise<void>;
  ask(role: Role, query: string, variables?: Record<string, unknown>): Promise<Answer>;
  stop(): Promise<void>;
}
const running = new Set<Running>();

interface DeliveryNode {
  webhook: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  event: { type: string; categoryName: string | null };
}
interface Answer {
  data?: {
    proposals?: { edges: { node: { state: string } }[] };
    webhookDeliveries?: { edges: { node: DeliveryNode }[] };
  } | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

async function start(
  location: DatabaseLocation,
  webhooks: WebhookConfig[],
  clock = new ManualClock(Date.UTC(2026, 10, 30, 9)),
  proposalEscalation: EscalationPolicy | null = null,
): Promise<Running> {
  const db = await openDatabase({ location });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const app = createApp({
    db,
    clock,
    config: { host: '127.0.0.1', port: 0, graphiql: false, shutdownTimeoutMs: 2_000, maxBodyBytes: 1 << 20, webhooks, proposalEscalation },
    logger: createLogger('debug', sink),
  });
  const url = await app.start();
  const keys = new Map<Role, string>();
  const self: Running = {
    app,
    db,
    url,
    clock,
    logs,
    async settle() {
      for (let round = 0; round < 3; round++) {
        await app.live.settled();
        await app.webhooks.settled();
      }
    },
    async ask(role, query, variables) {
      let key = keys.get(role);
      if (!key) {
        ({ key } = await createApiKey(
          { db, clock },
          { name: 'test-setup', authenticated: false },
          { name: `t-${role.toLowerCase()}`, roles: [role], samePrincipal: true },
        ));
        keys.set(role, key);
      }
      const response = await postGraphQL(url, query, variables, { authorization: `Bearer ${key}` });
      return (await response.json()) as never;
    },
    async stop() {
      running.delete(self);
      await app.stop();
    },
  };
  running.add(self);
  await self.settle();
  return self;
}

afterEach(async () => {
  for (const app of [...running]) await app.stop();
});
const databases: TestDatabase[] = [];
/** A fresh database on this run's backend, removed after the file's tests. */
async function database(): Promise<DatabaseLocation> {
  const made = await testDatabase();
  databases.push(made);
  return made.location;
}
afterAll(async () => {
  for (const server of receivers) await new Promise((resolve) => server.close(resolve));
  for (const made of databases) await made.cleanup();
});

const hook = (url: string, events: string[], name = 'ops'): WebhookConfig => ({ name, url, events: events as never, secret: SECRET });

async function addCategories(server: Running, names: string[]): Promise<void> {
  const { errors } = await server.ask('ADMIN', 'mutation($names: [String!]!) { addCategories(input: { names: $names }) { __typename } }', {
    names,
  });
  expect(errors).toBeUndefined();
}

async function deliveries(server: Running): Promise<WebhookDelivery[]> {
  return server.db.read.webhookDelivery.findMany({ orderBy: { id: 'asc' } });
}

/** The one delivery the test made. */
async function onlyDelivery(server: Running): Promise<WebhookDelivery> {
  const rows = await deliveries(server);
  expect(rows).toHaveLength(1);
  return rows[0] as WebhookDelivery;
}

/** docs/webhooks.md promises 12 sends in all. */
const MAX_ATTEMPTS = 12;

describe('outbound webhooks', () => {
  it('POSTs each wanted event once, signed with the webhook secret, and nothing it did not ask for', async () => {
    const ops = await receiver();
    const items = await receiver();
    const server = await start(await database(), [hook(ops.url, ['CATEGORY_ADDED']), hook(items.url, ['ITEM_ADDED'], 'items')]);
    await addCategories(server, ['alpha', 'beta']);
    await server.settle();

    expect(items.received).toEqual([]);
    expect(ops.received.map((entry) => entry.json.event.type)).toEqual(['CATEGORY_ADDED', 'CATEGORY_ADDED']);
    expect(ops.received.map((entry) => entry.json.event.categoryName)).toEqual(['alpha', 'beta']);
    for (const entry of ops.received) {
      expect(entry.headers['content-type']).toBe('application/json');
      expect(entry.headers['leasehold-event']).toBe('CATEGORY_ADDED');
      expect(entry.headers['leasehold-delivery']).toBe(String(entry.json.id));
      expect(entry.json.webhook).toBe('ops');
      const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(entry.headers['leasehold-signature']));
      expect(match).not.toBeNull();
      const [, t, v1] = match as RegExpExecArray;
      expect(Number(t)).toBe(Math.floor(server.clock.now().getTime() / 1000));
      expect(v1).toBe(createHmac('sha256', SECRET).update(`${t}.${entry.body}`).digest('hex'));
      // The same body signed with another secret does not verify.
      expect(v1).not.toBe(createHmac('sha256', `${SECRET}x`).update(`${t}.${entry.body}`).digest('hex'));
    }
    const rows = await deliveries(server);
    expect(rows.map((row) => [row.webhook, row.status, row.attempts])).toEqual([
      ['ops', 'DELIVERED', 1],
      ['ops', 'DELIVERED', 1],
    ]);
  });

  it('sends a webhook that wants ITEM_ADDED every item of a bulk intake (the feed hands those events to no other observer)', async () => {
    const items = await receiver();
    const server = await start(await database(), [hook(items.url, ['ITEM_ADDED'], 'items')]);
    await addCategories(server, ['alpha']);
    const { errors } = await server.ask(
      'PROPOSER',
      'mutation($items: [AddItemInput!]!) { addItems(input: { items: $items }) { __typename } }',
      {
        items: Array.from({ length: 30 }, (_, index) => ({
          batchId: 'hooked',
          recordId: `r${index}`,
          proposedCategory: 'alpha',
          reason: 'why',
        })),
      },
    );
    expect(errors).toBeUndefined();
    await server.settle();
    expect(items.received.map((entry) => entry.json.event.type)).toEqual(Array(30).fill('ITEM_ADDED'));
    expect((await deliveries(server)).map((row) => row.status)).toEqual(Array(30).fill('DELIVERED'));
  });

  it('retries a failing receiver at 10 s, 20 s, 40 s (plus up to 20 % jitter) on the clock, then delivers the same delivery id', async () => {
    let failures = 3;
    const ops = await receiver(() => (failures-- > 0 ? 500 : 200));
    const server = await start(await database(), [hook(ops.url, ['CATEGORY_ADDED'])]);
    await addCategories(server, ['gamma']);
    await server.settle();
    expect(ops.received).toHaveLength(1);

    for (const [attempt, base] of [
      [1, 10_000],
      [2, 20_000],
      [3, 40_000],
    ] as const) {
      const row = await onlyDelivery(server);
      expect(row.status).toBe('PENDING');
      expect(row.attempts).toBe(attempt);
      expect(row.lastStatusCode).toBe(500);
      const wait = row.nextAttemptAt.getTime() - server.clock.now().getTime();
      expect(wait).toBeGreaterThanOrEqual(base);
      expect(wait).toBeLessThanOrEqual(base * 1.2);
      // Not a moment before it is due.
      server.clock.advance(wait - 1);
      await server.settle();
      expect(ops.received).toHaveLength(attempt);
      server.clock.advance(1);
      await server.settle();
      expect(ops.received).toHaveLength(attempt + 1);
    }
    const row = await onlyDelivery(server);
    expect([row.status, row.attempts, row.lastStatusCode, row.lastError]).toEqual(['DELIVERED', 4, 200, null]);
    expect(new Set(ops.received.map((entry) => entry.headers['leasehold-delivery']))).toEqual(new Set([String(row.id)]));
  });

  it(`gives up after ${MAX_ATTEMPTS} attempts (FAILED), and the proposal it was about is untouched`, async () => {
    const ops = await receiver(() => 503);
    const server = await start(await database(), [hook(ops.url, ['PROPOSAL_SUBMITTED'])]);
    const submitted = await server.ask(
      'PROPOSER',
      'mutation { submitProposal(input: { batchId: "b", recordId: "r", action: "refund", parameters: { amount: 5 }, reason: "r", target: { system: "billing", recordId: "inv-1" }, currentValue: 10, proposedValue: 5, dataSource: "ledger", riskLevel: LOW, fingerprint: "fp-1" }) { __typename } }',
    );
    expect(submitted.errors).toBeUndefined();
    const proposal = '{ proposals(first: 5) { edges { node { id state revision } } } }';
    const before = (await server.ask('VIEWER', proposal)).data;
    await server.settle();
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      const row = await onlyDelivery(server);
      expect([row.status, row.attempts]).toEqual(['PENDING', attempt]);
      server.clock.set(row.nextAttemptAt);
      await server.settle();
    }
    const row = await onlyDelivery(server);
    expect([row.status, row.attempts, row.lastStatusCode, row.lastError]).toEqual(['FAILED', MAX_ATTEMPTS, 503, 'HTTP 503']);
    expect(ops.received).toHaveLength(MAX_ATTEMPTS);
    // Nothing more is sent, however long the clock runs.
    server.clock.advance(24 * 3600_000);
    await server.settle();
    expect(ops.received).toHaveLength(MAX_ATTEMPTS);
    expect((await server.ask('VIEWER', proposal)).data).toEqual(before);
    expect(before?.proposals?.edges[0]?.node.state).toBe('PENDING');
    // The history holds nothing but the submission: a webhook records no event and moves no proposal.
    expect(await server.db.read.event.count({ where: { proposalId: { not: null } } })).toBe(1);
    // Each failure is logged, by the webhook's name: never its secret or its URL.
    const failures = server.logs.filter((line) => line.includes('webhook delivery failed'));
    expect(failures).toHaveLength(MAX_ATTEMPTS);
    expect(failures[0]).toContain('"webhook":"ops"');
    expect(server.logs.join('')).not.toContain(SECRET);
    expect(server.logs.join('')).not.toContain(ops.url);
  });

  it('survives a restart: deliveries pending and events committed while no server followed are each delivered exactly once', async () => {
    const file = await database();
    let up = false;
    const ops = await receiver(() => (up ? 200 : 500));
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 9));
    const first = await start(file, [hook(ops.url, ['CATEGORY_ADDED'])], clock);
    await addCategories(first, ['a1', 'a2', 'a3', 'a4', 'a5']);
    await first.settle();
    expect(ops.received).toHaveLength(5);
    await first.stop();

    // Events committed while no server follows the webhook (a server configured without it, the command line).
    const without = await start(file, [], clock);
    await addCategories(without, ['b1', 'b2', 'b3']);
    await without.stop();

    up = true;
    const second = await start(file, [hook(ops.url, ['CATEGORY_ADDED'])], clock);
    expect(await second.db.read.webhookDelivery.count()).toBe(8);
    clock.advance(13_000);
    await second.settle();

    const names = ops.accepted().map((entry) => entry.json.event.categoryName);
    expect([...names].sort()).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'b1', 'b2', 'b3']);
    expect(new Set(ops.accepted().map((entry) => entry.json.id)).size).toBe(8);
    const rows = await deliveries(second);
    expect(rows.map((row) => row.status)).toEqual(Array(8).fill('DELIVERED'));
    expect(rows.map((row) => row.attempts)).toEqual([2, 2, 2, 2, 2, 1, 1, 1]);
  });

  it('counts a receiver that does not answer within the timeout as a failed attempt', async () => {
    const location = await database();
    // Takes the request and never answers.
    const hanging = createServer(() => {});
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/hook`;
    const db = await openDatabase({ location });
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 9));
    const dispatcher = new WebhookDispatcher({
      db,
      clock,
      logger: createLogger('silent'),
      webhooks: [hook(url, ['API_KEY_CREATED'])],
      timeoutMs: 100,
    });
    try {
      dispatcher.start();
      await dispatcher.settled();
      await createApiKey({ db, clock }, { name: 'test-setup', authenticated: false }, { name: 'someone', roles: ['VIEWER'] });
      dispatcher.wake();
      await dispatcher.settled();
      const [row] = await db.read.webhookDelivery.findMany();
      expect([row?.status, row?.attempts, row?.lastStatusCode, row?.lastError, row?.claimedUntil]).toEqual([
        'PENDING',
        1,
        null,
        'no answer within 0.1 s',
        null,
      ]);
    } finally {
      await dispatcher.stop();
      await db.close();
      hanging.closeAllConnections();
      await new Promise((resolve) => hanging.close(resolve));
    }
  });

  it('a stop waits for the send under way and records it, so the next start does not send it again', async () => {
    const file = await database();
    let arrived: () => void = () => {};
    const arrival = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    // Answers 200 a little after the request arrives: the server is told to stop in between.
    const ops = await receiver(() => {
      arrived();
      return new Promise<number>((resolve) => setTimeout(() => resolve(200), 200));
    });
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 9));
    const first = await start(file, [hook(ops.url, ['CATEGORY_ADDED'])], clock);
    await addCategories(first, ['in-flight']);
    await arrival;
    // The change was answered while its webhook still waited for the receiver: nothing waits for a webhook.
    expect(ops.received).toHaveLength(0);
    await first.stop();
    expect(ops.accepted()).toHaveLength(1);

    const second = await start(file, [hook(ops.url, ['CATEGORY_ADDED'])], clock);
    clock.advance(3600_000);
    await second.settle();
    expect(ops.received).toHaveLength(1);
    const rows = await deliveries(second);
    expect(rows.map((row) => [row.status, row.attempts, row.claimedUntil])).toEqual([['DELIVERED', 1, null]]);
  });

  it('two servers on one file send each delivery once', async () => {
    const file = await database();
    // A receiver that takes a few milliseconds, so the two servers' passes overlap.
    const ops = await receiver(() => new Promise<number>((resolve) => setTimeout(() => resolve(200), 5)));
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 9));
    const webhooks = [hook(ops.url, ['CATEGORY_ADDED'])];
    const a = await start(file, webhooks, clock);
    const b = await start(file, webhooks, clock);
    const names = Array.from({ length: 30 }, (_, index) => `c${index}`);
    await Promise.all(names.map((name, index) => addCategories(index % 2 ? a : b, [name])));
    for (let round = 0; round < 3; round++) await Promise.all([a.settle(), b.settle()]);

    expect(ops.received.map((entry) => entry.json.event.categoryName).sort()).toEqual([...names].sort());
    expect(new Set(ops.received.map((entry) => entry.json.id)).size).toBe(30);
    expect((await deliveries(a)).every((row) => row.status === 'DELIVERED' && row.attempts === 1)).toBe(true);
  });

  it('sends one signed delivery for an automatic escalation of an old PENDING proposal and one for an execution reported UNKNOWN', async () => {
    const ops = await receiver();
    const escalation: EscalationPolicy = { pendingAfterSeconds: 3600, outcomeUnknownAfterSeconds: null, to: 'ADMIN' };
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 9));
    const server = await start(await database(), [hook(ops.url, ['PROPOSAL_ESCALATED', 'EXECUTION_OUTCOME_UNKNOWN'])], clock, escalation);
    const deps = { db: server.db, clock, escalation };
    const verify = (entry: Received) => {
      const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(entry.headers['leasehold-signature']));
      expect(match).not.toBeNull();
      const [, t, v1] = match as RegExpExecArray;
      expect(v1).toBe(createHmac('sha256', SECRET).update(`${t}.${entry.body}`).digest('hex'));
      expect(entry.headers['leasehold-event']).toBe(entry.json.event.type);
    };

    const { proposal: waiting } = await submitProposal(deps, PROPOSER, proposalInput('waits'));
    await server.settle();
    clock.advance(3600_000 - 1);
    await server.settle();
    // Submission is not subscribed, and the escalation is not due yet.
    expect(ops.received).toEqual([]);
    // Nothing but the clock moves: the announcer escalates it, and the webhook hears of it.
    clock.advance(1);
    await server.settle();
    expect(ops.received.map((entry) => [entry.json.event.type, entry.json.event.proposalId])).toEqual([['PROPOSAL_ESCALATED', waiting.id]]);
    expect(ops.received[0]?.json.event.details).toMatchObject({ to: 'ADMIN', automatic: true });
    verify(ops.received[0] as Received);

    const { proposal: sent } = await submitProposal(deps, PROPOSER, proposalInput('sent'));
    const review = await claimProposal(deps, REVIEWER, { id: sent.id });
    await reviewProposal(deps, REVIEWER, { token: review?.token ?? '', decision: 'APPROVE', revision: 1 });
    const execution = await claimExecution(deps, EXECUTOR, { leaseSeconds: 60 });
    expect(execution?.proposal.id).toBe(sent.id);
    await startExecutionAttempt(deps, EXECUTOR, { token: execution?.token ?? '', fingerprint: 'v1-sent' });
    await reportExecutionResult(deps, EXECUTOR, { token: execution?.token ?? '', outcome: 'UNKNOWN' });
    await server.settle();
    expect(ops.received.map((entry) => [entry.json.event.type, entry.json.event.proposalId])).toEqual([
      ['PROPOSAL_ESCALATED', waiting.id],
      ['EXECUTION_OUTCOME_UNKNOWN', sent.id],
    ]);
    verify(ops.received[1] as Received);
    // Once each, however long the clock runs on.
    clock.advance(24 * 3600_000);
    await server.settle();
    expect(ops.received).toHaveLength(2);
    const rows = await deliveries(server);
    expect(rows.map((row) => [row.status, row.attempts])).toEqual([
      ['DELIVERED', 1],
      ['DELIVERED', 1],
    ]);
  });

  it('lists deliveries to ADMINs only, filtered by status and webhook', async () => {
    const ops = await receiver(() => 200);
    const down = await receiver(() => 502);
    const server = await start(await database(), [hook(ops.url, ['CATEGORY_ADDED']), hook(down.url, ['CATEGORY_ADDED'], 'down')]);
    await addCategories(server, ['x']);
    await server.settle();
    const query = `query($status: WebhookDeliveryStatus, $webhook: String) {
      webhookDeliveries(first: 10, status: $status, webhook: $webhook) {
        edges { node { id webhook status attempts lastStatusCode lastError deliveredAt nextAttemptAt event { sequence type categoryName } } }
      }
    }`;
    const all = await server.ask('ADMIN', query);
    expect(all.errors).toBeUndefined();
    const nodes = all.data?.webhookDeliveries?.edges.map((edge) => edge.node) ?? [];
    expect(nodes.map((node) => [node.webhook, node.status, node.attempts, node.lastStatusCode, node.lastError])).toEqual([
      ['ops', 'DELIVERED', 1, 200, null],
      ['down', 'PENDING', 1, 502, 'HTTP 502'],
    ]);
    expect(nodes[0]?.event).toEqual(expect.objectContaining({ type: 'CATEGORY_ADDED', categoryName: 'x' }));
    const failing = await server.ask('ADMIN', query, { status: 'PENDING' });
    expect(failing.data?.webhookDeliveries?.edges.map((edge) => edge.node.webhook)).toEqual(['down']);
    const byName = await server.ask('ADMIN', query, { webhook: 'ops' });
    expect(byName.data?.webhookDeliveries?.edges.map((edge) => edge.node.status)).toEqual(['DELIVERED']);
    for (const role of ['VIEWER', 'PROPOSER', 'REVIEWER', 'EXECUTOR'] as const) {
      const refused = await server.ask(role, query);
      expect(refused.data ?? null).toBeNull();
      expect(refused.errors?.map((error) => error.extensions?.code)).toEqual(['FORBIDDEN']);
    }
  });
});

describe('WEBHOOKS configuration', () => {
  const valid = {
    name: 'ops',
    url: 'https://hooks.example.com/leasehold',
    events: ['EXECUTION_OUTCOME_UNKNOWN', 'PROPOSAL_EXPIRED'],
    secret: SECRET,
  };
  const load = (value: unknown) => loadConfig({ WEBHOOKS: typeof value === 'string' ? value : JSON.stringify(value) });

  it('reads a JSON array of webhooks; none by default', () => {
    expect(loadConfig({}).webhooks).toEqual([]);
    expect(load([valid]).webhooks).toEqual([valid]);
  });

  it.each([
    ['not JSON', '[{', /WEBHOOKS must be a JSON array/],
    ['an unknown event type', [{ ...valid, events: ['PROPOSAL_EXPLODED'] }], /WEBHOOKS: 0\.events\.0: is not an event type/],
    ['no event types', [{ ...valid, events: [] }], /0\.events: must name at least one event type/],
    ['a short secret', [{ ...valid, secret: 'short-secret' }], /0\.secret: must be at least 32 characters/],
    ['another scheme', [{ ...valid, url: 'ftp://example.com/x' }], /0\.url: must be an http/],
    ['a password in the URL', [{ ...valid, url: 'https://u:p@example.com/x' }], /0\.url: must be an http/],
    ['a name used twice', [valid, { ...valid, url: 'http://other.example/x' }], /the name "ops" is used twice/],
    ['an unknown field', [{ ...valid, token: 'x' }], /WEBHOOKS: 0: Unrecognized key/],
  ])('refuses %s in one line that never repeats a secret', (_case, value, message) => {
    let error: unknown;
    try {
      load(value);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
    expect((error as Error).message).not.toContain(SECRET);
    expect((error as Error).message).not.toContain('short-secret');
  });
});
