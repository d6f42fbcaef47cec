// GET /metrics: Prometheus text exposition of the queue, review activity and connections, on the
// real server (in-process with the manual clock, and as a process for the METRICS and METRICS_PUBLIC
// settings). Scrapes need a credential unless METRICS_PUBLIC=true.
import { createClient } from 'graphql-ws';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ConfigError } from '../../src/config/json-setting.js';
import { loadConfig } from '../../src/config.js';
import { eventLoopDelayHistogram } from '../../src/event-loop-delay.js';
import { BACKEND, type TestDatabase, testDatabase } from '../support/database.js';
import { createKey, type KeyHolder, type StartedServer, startServerProcess } from '../support/process.js';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';

/** Who sends a request: anything with the `authorization` header of an API key (or nobody). */
type Caller = Pick<TestClient | KeyHolder, 'headers'> | null;

interface Scrape {
  status: number;
  contentType: string | null;
  text: string;
  /** Sample values by series, e.g. `leasehold_items{status="PENDING"}`. */
  values: Map<string, number>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)$/;

function parseExposition(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const [, name, labels = '', raw = ''] = match;
    const value = raw === '+Inf' ? Number.POSITIVE_INFINITY : raw === '-Inf' ? Number.NEGATIVE_INFINITY : Number(raw);
    values.set(`${name}${labels}`, value);
  }
  return values;
}

async function scrape(url: string, caller: Caller): Promise<Scrape> {
  const response = await fetch(`${url}/metrics`, { headers: caller?.headers ?? {} });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    text,
    values: response.status === 200 ? parseExposition(text) : new Map(),
  };
}

function value(scraped: Scrape, series: string): number {
  const found = scraped.values.get(series);
  if (found === undefined) throw new Error(`no series ${series} in:\n${scraped.text}`);
  return found;
}

/** Scrapes until `check` stops throwing (feed delivery and socket close are asynchronous). */
async function eventually(url: string, caller: Caller, check: (scraped: Scrape) => void, timeoutMs = 5_000): Promise<Scrape> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const scraped = await scrape(url, caller);
    try {
      check(scraped);
      return scraped;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

async function gql<T = Record<string, unknown>>(
  url: string,
  caller: Caller,
  query: string,
  variables?: Record<string, unknown>,
): Promise<T> {
  const response = await postGraphQL(url, query, variables, caller?.headers);
  const body = (await response.json()) as { data?: T; errors?: unknown[] };
  if (body.errors || body.data === undefined) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
  return body.data;
}

const SET_UP = 'mutation { addCategories(input: { names: ["billing", "shipping"] }) { __typename } }';
const ADD = `mutation ($batchId: String!, $recordId: String!) {
  addItem(input: { batchId: $batchId, recordId: $recordId, proposedCategory: "billing", reason: "looks like an invoice" }) {
    __typename
  }
}`;
const CLAIM = `mutation ($leaseSeconds: Int) {
  claimItem(input: { leaseSeconds: $leaseSeconds }) {
    __typename
    ... on ClaimItemPayload { claimed lease { token } }
    ... on UserError { code }
  }
}`;
const DECIDE = `mutation ($token: String!, $decision: Decision!, $category: String) {
  decideItem(input: { token: $token, decision: $decision, category: $category }) {
    __typename
    ... on UserError { code }
  }
}`;

/** The principals of one in-process server: who sets up and proposes, who reviews, who scrapes. */
interface Cast {
  admin: TestClient;
  proposer: TestClient;
  tanaka: TestClient;
  prometheus: TestClient;
}

async function castOf(server: TestServer): Promise<Cast> {
  return {
    admin: await server.as('admin', ['ADMIN']),
    proposer: await server.as('classifier', ['PROPOSER']),
    tanaka: await server.as('tanaka', ['REVIEWER']),
    // A scraper needs no more than reading.
    prometheus: await server.as('prometheus', ['VIEWER']),
  };
}

async function addItems(server: TestServer, cast: Cast, count: number, batchId = 'batch-1'): Promise<void> {
  for (let index = 0; index < count; index++) {
    const data = await gql(server.url, cast.proposer, ADD, { batchId, recordId: `R-${index}` });
    expect(data).toEqual({ addItem: { __typename: 'AddItemPayload' } });
  }
}

async function claim(server: TestServer, cast: Cast, leaseSeconds = 300): Promise<string> {
  const data = await gql<{ claimItem: { claimed?: boolean; lease?: { token: string } } }>(server.url, cast.tanaka, CLAIM, { leaseSeconds });
  expect(data.claimItem.claimed).toBe(true);
  return (data.claimItem.lease as { token: string }).token;
}

async function decide(server: TestServer, cast: Cast, token: string, decision: string, category?: string): Promise<void> {
  const data = await gql(server.url, cast.tanaka, DECIDE, { token, decision, category });
  expect(data).toEqual({ decideItem: { __typename: 'DecideItemPayload' } });
}

const OWN = [
  ['leasehold_items', 'gauge'],
  ['leasehold_leases_active', 'gauge'],
  ['leasehold_leases_expired', 'gauge'],
  ['leasehold_oldest_pending_item_age_seconds', 'gauge'],
  ['leasehold_claim_to_decision_seconds', 'histogram'],
  ['leasehold_decisions_total', 'counter'],
  ['leasehold_lease_expiries_total', 'counter'],
  ['leasehold_websocket_connections', 'gauge'],
  ['leasehold_event_loop_delay_seconds', 'histogram'],
  ['leasehold_write_lock_held_seconds', 'histogram'],
  ['leasehold_write_lock_writes_total', 'counter'],
] as const;

describe('GET /metrics', () => {
  let server: TestServer;
  let cast: Cast;

  beforeEach(async () => {
    server = await startTestServer();
    cast = await castOf(server);
    await gql(server.url, cast.admin, SET_UP);
  });
  afterEach(async () => {
    await server?.stop();
  });

  it('needs a credential by default: 401 UNAUTHENTICATED without one or with an unknown key, for every method', async () => {
    for (const [method, headers] of [
      ['GET', {}],
      ['HEAD', {}],
      ['POST', { 'content-length': '0' }],
      ['GET', { authorization: `Bearer lhk_${'A'.repeat(43)}` }],
      ['GET', { authorization: 'Basic cHJvbWV0aGV1czpzZWNyZXQ=' }],
    ] as const) {
      const response = await fetch(`${server.url}/metrics`, { method, headers });
      expect(response.status, `${method} ${JSON.stringify(headers)}`).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="leasehold"');
      const text = await response.text();
      expect(text).not.toMatch(/leasehold_|# TYPE/);
      if (method !== 'HEAD') {
        const body = JSON.parse(text) as { errors: { extensions: Record<string, unknown> }[] };
        expect(body.errors.map((error) => error.extensions.code)).toEqual(['UNAUTHENTICATED']);
      }
    }
    // Any role may scrape.
    for (const caller of Object.values(cast)) expect((await scrape(server.url, caller)).status).toBe(200);
  });

  it('answers in the Prometheus text format (0.0.4), every leasehold_ metric described and at zero on a fresh queue', async () => {
    const scraped = await scrape(server.url, cast.prometheus);
    expect(scraped.status).toBe(200);
    expect(scraped.contentType).toMatch(/^text\/plain; version=0\.0\.4(; charset=utf-8)?$/);

    // Every family has HELP and TYPE; every sample belongs to a declared family.
    const types = new Map<string, string>();
    for (const line of scraped.text.split('\n')) {
      const typeLine = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (typeLine) types.set(typeLine[1] as string, typeLine[2] as string);
    }
    for (const [name, type] of OWN) {
      expect(types.get(name), name).toBe(type);
      expect(scraped.text).toMatch(new RegExp(`^# HELP ${name} \\S.*$`, 'm'));
    }
    for (const series of scraped.values.keys()) {
      const name = series.replace(/\{.*$/, '');
      const family = types.has(name) ? name : name.replace(/_(bucket|sum|count|created)$/, '');
      expect(types.has(family), series).toBe(true);
    }

    for (const status of ['PENDING', 'ACCEPTED', 'CORRECTED', 'REJECTED'])
      expect(value(scraped, `leasehold_items{status="${status}"}`)).toBe(0);
    for (const decision of ['ACCEPTED', 'CORRECTED', 'REJECTED']) {
      expect(value(scraped, `leasehold_decisions_total{decision="${decision}"}`)).toBe(0);
    }
    expect(value(scraped, 'leasehold_leases_active')).toBe(0);
    expect(value(scraped, 'leasehold_leases_expired')).toBe(0);
    expect(value(scraped, 'leasehold_oldest_pending_item_age_seconds')).toBe(0);
    expect(value(scraped, 'leasehold_lease_expiries_total')).toBe(0);
    expect(value(scraped, 'leasehold_claim_to_decision_seconds_count')).toBe(0);
    expect(value(scraped, 'leasehold_websocket_connections')).toBe(0);
    // Node.js process metrics come along on the same registry.
    expect(value(scraped, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(scraped.values.has('nodejs_heap_size_used_bytes')).toBe(true);
  });

  it('follows items, active leases, the oldest pending age, decisions by outcome and claim-to-decision time', async () => {
    await addItems(server, cast, 4);
    server.clock.advance(90_000);
    let scraped = await scrape(server.url, cast.prometheus);
    expect(value(scraped, 'leasehold_items{status="PENDING"}')).toBe(4);
    expect(value(scraped, 'leasehold_oldest_pending_item_age_seconds')).toBe(90);
    expect(value(scraped, 'leasehold_leases_active')).toBe(0);

    const tokens = [await claim(server, cast), await claim(server, cast), await claim(server, cast)];
    scraped = await scrape(server.url, cast.prometheus);
    expect(value(scraped, 'leasehold_leases_active')).toBe(3);
    expect(value(scraped, 'leasehold_leases_expired')).toBe(0);

    // Held 20 s, 45 s and 200 s by the deciding leases.
    server.clock.advance(20_000);
    await decide(server, cast, tokens[0] as string, 'ACCEPTED');
    server.clock.advance(25_000);
    await decide(server, cast, tokens[1] as string, 'CORRECTED', 'shipping');
    server.clock.advance(155_000);
    await decide(server, cast, tokens[2] as string, 'REJECTED');

    scraped = await eventually(server.url, cast.prometheus, (s) => expect(value(s, 'leasehold_claim_to_decision_seconds_count')).toBe(3));
    expect(value(scraped, 'leasehold_items{status="PENDING"}')).toBe(1);
    expect(value(scraped, 'leasehold_items{status="ACCEPTED"}')).toBe(1);
    expect(value(scraped, 'leasehold_items{status="CORRECTED"}')).toBe(1);
    expect(value(scraped, 'leasehold_items{status="REJECTED"}')).toBe(1);
    expect(value(scraped, 'leasehold_decisions_total{decision="ACCEPTED"}')).toBe(1);
    expect(value(scraped, 'leasehold_decisions_total{decision="CORRECTED"}')).toBe(1);
    expect(value(scraped, 'leasehold_decisions_total{decision="REJECTED"}')).toBe(1);
    expect(value(scraped, 'leasehold_leases_active')).toBe(0);
    expect(value(scraped, 'leasehold_oldest_pending_item_age_seconds')).toBe(90 + 200);
    expect(value(scraped, 'leasehold_claim_to_decision_seconds_sum')).toBe(20 + 45 + 200);
    const bucket = (le: string) => value(scraped, `leasehold_claim_to_decision_seconds_bucket{le="${le}"}`);
    expect([bucket('10'), bucket('30'), bucket('60'), bucket('120'), bucket('300'), bucket('3600'), bucket('+Inf')]).toEqual([
      0, 1, 2, 2, 3, 3, 3,
    ]);

    // Another decision of the same outcome counts again.
    const fourth = await claim(server, cast);
    server.clock.advance(1_000);
    await decide(server, cast, fourth, 'ACCEPTED');
    scraped = await eventually(server.url, cast.prometheus, (s) =>
      expect(value(s, 'leasehold_decisions_total{decision="ACCEPTED"}')).toBe(2),
    );
    expect(value(scraped, 'leasehold_items{status="PENDING"}')).toBe(0);
    expect(value(scraped, 'leasehold_oldest_pending_item_age_seconds')).toBe(0);
    expect(value(scraped, 'leasehold_claim_to_decision_seconds_count')).toBe(4);
  });

  it('records how long each write transaction held the write lock, and for how many writes, by its form', async () => {
    const before = await scrape(server.url, cast.prometheus);
    await addItems(server, cast, 2);
    const tokens = [await claim(server, cast), await claim(server, cast)];
    await decide(server, cast, tokens[0] as string, 'ACCEPTED');
    await decide(server, cast, tokens[1] as string, 'REJECTED');
    const scraped = await scrape(server.url, cast.prometheus);
    const grew = (series: string) => value(scraped, series) - value(before, series);
    // Adding items, claims and decisions: one statement per batch on PostgreSQL (write-calls.ts), an interactive
    // transaction on SQLite. Each request here waits for the one before, so each write is a batch of its own.
    const review = BACKEND === 'postgresql' ? 'statement' : 'transaction';
    // (On PostgreSQL the keys' last-use writes are calls too, so there may be more than these six.)
    if (BACKEND === 'postgresql') expect(grew('leasehold_write_lock_writes_total{form="statement"}')).toBeGreaterThanOrEqual(6);
    else expect(grew('leasehold_write_lock_writes_total{form="statement"}')).toBe(0);
    expect(grew('leasehold_write_lock_writes_total{form="transaction"}')).toBeGreaterThanOrEqual(BACKEND === 'postgresql' ? 0 : 6);
    expect(grew(`leasehold_write_lock_held_seconds_count{form="${review}"}`)).toBeGreaterThanOrEqual(6);
    expect(grew(`leasehold_write_lock_held_seconds_sum{form="${review}"}`)).toBeGreaterThan(0);
    expect(value(scraped, `leasehold_write_lock_held_seconds_bucket{le="+Inf",form="${review}"}`)).toBe(
      value(scraped, `leasehold_write_lock_held_seconds_count{form="${review}"}`),
    );
  });

  it('counts lapsed leases as expired while they stay on the item, and each recorded lapse once', async () => {
    await addItems(server, cast, 3);
    const tokens = [await claim(server, cast, 30), await claim(server, cast, 30), await claim(server, cast, 600)];

    server.clock.advance(31_000);
    await server.settle();
    const scraped = await eventually(server.url, cast.prometheus, (s) => expect(value(s, 'leasehold_lease_expiries_total')).toBe(2));
    expect(value(scraped, 'leasehold_leases_expired')).toBe(2);
    expect(value(scraped, 'leasehold_leases_active')).toBe(1);
    expect(value(scraped, 'leasehold_items{status="PENDING"}')).toBe(3);

    // Re-claiming a lapsed item makes it active again; the lapse is not counted twice.
    tokens.push(await claim(server, cast, 300));
    const after = await scrape(server.url, cast.prometheus);
    expect(value(after, 'leasehold_leases_expired')).toBe(1);
    expect(value(after, 'leasehold_leases_active')).toBe(2);
    expect(value(after, 'leasehold_lease_expiries_total')).toBe(2);

    // Neither a lease token nor its stored hash ever shows up.
    const hashes = (await server.db.read.item.findMany({ select: { leaseTokenHash: true } }))
      .map((item) => item.leaseTokenHash)
      .filter((hash): hash is string => hash !== null);
    expect(hashes.length).toBeGreaterThan(0);
    for (const secret of [...tokens, ...hashes]) {
      expect(after.text).not.toContain(secret);
    }
    expect(after.text).not.toMatch(/lh_/);
    // Nor does an API key, the scraper's own included.
    expect(after.text).not.toMatch(/lhk_/);
  });

  it('counts open WebSocket connections on /graphql, and not the ones refused for want of a credential', async () => {
    // A connection without a credential is closed with 4401 and never counted.
    const anonymous = createClient({ url: `${server.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
    const refused = await anonymous
      .iterate({ query: 'subscription { queueStats { pending } }' })
      .next()
      .then(
        () => null,
        (error: unknown) => error as { code?: number },
      );
    await anonymous.dispose();
    expect(refused?.code).toBe(4401);
    await eventually(server.url, cast.prometheus, (s) => expect(value(s, 'leasehold_websocket_connections')).toBe(0));

    const client = createClient({
      url: `${server.url.replace(/^http/, 'ws')}/graphql`,
      connectionParams: cast.prometheus.headers,
      webSocketImpl: WebSocket,
      lazy: true,
      retryAttempts: 0,
    });
    try {
      const subscription = client.iterate<{ queueStats: { pending: number } }>({ query: 'subscription { queueStats { pending } }' });
      const first = await subscription.next();
      expect(first.value?.data?.queueStats.pending).toBe(0);
      await eventually(server.url, cast.prometheus, (s) => expect(value(s, 'leasehold_websocket_connections')).toBe(1));

      const second = createClient({
        url: `${server.url.replace(/^http/, 'ws')}/graphql`,
        connectionParams: cast.tanaka.headers,
        webSocketImpl: WebSocket,
        retryAttempts: 0,
      });
      const other = second.iterate<{ queueStats: { pending: number } }>({ query: 'subscription { queueStats { pending } }' });
      await other.next();
      await eventually(server.url, cast.prometheus, (s) => expect(value(s, 'leasehold_websocket_connections')).toBe(2));
      await other.return?.();
      await second.dispose();
      await eventually(server.url, cast.prometheus, (s) => expect(value(s, 'leasehold_websocket_connections')).toBe(1));

      await subscription.return?.();
    } finally {
      await client.dispose();
    }
    await eventually(server.url, cast.prometheus, (s) => expect(value(s, 'leasehold_websocket_connections')).toBe(0));
  });

  it('records garbage-collection pauses in buckets fine enough to tell one that stalls the loop (10 ms) from the usual', async () => {
    // Young objects by the hundred thousand: a minor collection follows within a few megabytes.
    let kept: unknown[] = [];
    for (let round = 0; round < 20; round++) kept = Array.from({ length: 100_000 }, (_, index) => ({ index, round }));
    expect(kept).toHaveLength(100_000);
    const scraped = await eventually(server.url, cast.prometheus, (text) => {
      expect(value(text, 'nodejs_gc_duration_seconds_count{kind="minor"}')).toBeGreaterThan(0);
    });
    for (const bound of ['0.001', '0.0025', '0.005', '0.01', '0.02', '0.05'])
      expect(scraped.values.has(`nodejs_gc_duration_seconds_bucket{le="${bound}",kind="minor"}`)).toBe(true);
  });

  it('refuses other methods with 405 and answers HEAD', async () => {
    const posted = await fetch(`${server.url}/metrics`, { method: 'POST', headers: { 'content-length': '0', ...cast.prometheus.headers } });
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET, HEAD');
    const head = await fetch(`${server.url}/metrics`, { method: 'HEAD', headers: cast.prometheus.headers });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('records the event-loop delay as a histogram: a loop blocked for 50 ms adds a sample over 20 ms', async () => {
    const delay = 'leasehold_event_loop_delay_seconds';
    const over20ms = (scraped: Scrape) => value(scraped, `${delay}_count`) - value(scraped, `${delay}_bucket{le="0.02"}`);
    const before = await scrape(server.url, cast.prometheus);
    // The server runs in this process, so this blocks its loop: the sampler's next run is at least 40 ms late.
    const started = performance.now();
    while (performance.now() - started < 50) {
      // busy on purpose
    }
    const after = await scrape(server.url, cast.prometheus);
    expect(over20ms(after) - over20ms(before)).toBeGreaterThanOrEqual(1);
    expect(value(after, `${delay}_count`)).toBeGreaterThan(value(before, `${delay}_count`));
    expect(value(after, `${delay}_bucket{le="+Inf"}`)).toBe(value(after, `${delay}_count`));
  });

  it('keeps each app’s numbers apart when several run in one process', async () => {
    const other = await startTestServer();
    try {
      const theirCast = await castOf(other);
      await addItems(server, cast, 2);
      await gql(other.url, theirCast.admin, SET_UP);
      await addItems(other, theirCast, 1);
      const token = await claim(other, theirCast);
      await decide(other, theirCast, token, 'REJECTED');
      const mine = await scrape(server.url, cast.prometheus);
      const theirs = await eventually(other.url, theirCast.prometheus, (s) =>
        expect(value(s, 'leasehold_decisions_total{decision="REJECTED"}')).toBe(1),
      );
      // Each app knows only its own keys.
      expect((await scrape(other.url, cast.prometheus)).status).toBe(401);
      expect(value(mine, 'leasehold_items{status="PENDING"}')).toBe(2);
      expect(value(mine, 'leasehold_decisions_total{decision="REJECTED"}')).toBe(0);
      expect(value(theirs, 'leasehold_items{status="PENDING"}')).toBe(0);
      expect(value(theirs, 'leasehold_items{status="REJECTED"}')).toBe(1);
    } finally {
      await other.stop();
    }
  });
});

describe('the event-loop delay histogram', () => {
  const delay = 'leasehold_event_loop_delay_seconds';
  const over20ms = (values: Map<string, number>) =>
    (values.get(`${delay}_count`) ?? Number.NaN) - (values.get(`${delay}_bucket{le="0.02"}`) ?? Number.NaN);
  const blockFor = (ms: number) => {
    const started = performance.now();
    while (performance.now() - started < ms) {
      // busy on purpose
    }
  };
  /** One turn of the loop: its timers phase runs the sampler's overdue timer before this one. */
  const nextTimers = () => new Promise((resolve) => setTimeout(resolve, 0));

  it('counts a stall that starts right after a scrape, before the sampler has run again', async () => {
    const registry = new Registry();
    eventLoopDelayHistogram([registry]);
    // The sampler's first run only starts its stopwatch: wait for its first sample.
    const deadline = performance.now() + 5_000;
    while ((parseExposition(await registry.metrics()).get(`${delay}_count`) ?? 0) === 0 && performance.now() < deadline) await nextTimers();
    for (let round = 0; round < 3; round++) {
      const before = parseExposition(await registry.metrics());
      // No loop turn since the scrape read the sampler: a sampler reset there would lose this stall.
      blockFor(50);
      await nextTimers();
      const after = parseExposition(await registry.metrics());
      expect(over20ms(after) - over20ms(before), `round ${round}`).toBeGreaterThanOrEqual(1);
      expect(after.get(`${delay}_bucket{le="+Inf"}`)).toBe(after.get(`${delay}_count`));
    }
  });
});

describe('the METRICS and METRICS_PUBLIC settings', () => {
  it('METRICS defaults to true, METRICS_PUBLIC to false, and both accept only true or false', () => {
    expect(loadConfig({}).metrics).toBe(true);
    expect(loadConfig({ METRICS: 'false' }).metrics).toBe(false);
    expect(() => loadConfig({ METRICS: 'no' })).toThrow(ConfigError);
    expect(loadConfig({}).metricsPublic).toBe(false);
    expect(loadConfig({ METRICS_PUBLIC: 'true' }).metricsPublic).toBe(true);
    expect(() => loadConfig({ METRICS_PUBLIC: 'yes' })).toThrow(ConfigError);
  });

  describe('in the server process', () => {
    let enabledDb: TestDatabase;
    let publicDb: TestDatabase;
    let disabledDb: TestDatabase;
    let enabled: StartedServer;
    let open: StartedServer;
    let disabled: StartedServer;
    let scraper: KeyHolder;
    let viewer: KeyHolder;

    beforeAll(async () => {
      // A database of its own for each (a SQLite file, or a PostgreSQL database). Keys made in each before
      // its server starts, so no first-run ADMIN key is made (or printed); the public one has no key at all
      // and is told not to make one.
      [enabledDb, publicDb, disabledDb] = await Promise.all([testDatabase(), testDatabase(), testDatabase()]);
      scraper = await createKey(enabledDb, 'prometheus', ['VIEWER']);
      viewer = await createKey(disabledDb, 'viewer', ['VIEWER']);
      [enabled, open, disabled] = await Promise.all([
        startServerProcess({}, { database: enabledDb }),
        startServerProcess({ METRICS_PUBLIC: 'true', BOOTSTRAP_ADMIN_KEY: 'false' }, { database: publicDb }),
        startServerProcess({ METRICS: 'false' }, { database: disabledDb }),
      ]);
    });
    afterAll(async () => {
      await Promise.all([enabled?.kill(), open?.kill(), disabled?.kill()]);
      await Promise.all([enabledDb?.cleanup(), publicDb?.cleanup(), disabledDb?.cleanup()]);
    });

    it('serves /metrics by default to an authenticated caller only', async () => {
      const anonymous = await scrape(enabled.url, null);
      expect(anonymous.status).toBe(401);
      expect(anonymous.text).not.toMatch(/leasehold_|# TYPE/);
      expect(JSON.parse(anonymous.text)).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] });

      const scraped = await scrape(enabled.url, scraper);
      expect(scraped.status).toBe(200);
      expect(scraped.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(value(scraped, 'leasehold_items{status="PENDING"}')).toBe(0);
    });

    it('serves /metrics without a credential with METRICS_PUBLIC=true, while /graphql still needs one', async () => {
      expect(open.stderr).toEqual([]);
      const scraped = await scrape(open.url, null);
      expect(scraped.status).toBe(200);
      expect(scraped.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(value(scraped, 'leasehold_items{status="PENDING"}')).toBe(0);
      expect((await postGraphQL(open.url, '{ serverTime }')).status).toBe(401);
    });

    it('answers 404 at /metrics with METRICS=false, and everything else still works', async () => {
      for (const caller of [null, viewer]) {
        const response = await fetch(`${disabled.url}/metrics`, { headers: caller?.headers ?? {} });
        expect(response.status).toBe(404);
        expect(await response.text()).not.toMatch(/leasehold_|# TYPE/);
      }
      expect((await fetch(`${disabled.url}/health`)).status).toBe(200);
      const graphql = await postGraphQL(disabled.url, '{ serverTime }', undefined, viewer.headers);
      expect(graphql.status).toBe(200);
      expect(await graphql.json()).toMatchObject({ data: { serverTime: expect.any(String) } });
    });
  });
});
