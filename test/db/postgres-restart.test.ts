// PostgreSQL restarted under running instances (issue 15, item 8; PostgreSQL project only: vitest.config.ts,
// POSTGRES_ONLY). Two real server processes (src/main.ts) on one database of a cluster this test may stop and
// start (LEASEHOLD_TEST_POSTGRES_CONTROL, see below: never the cluster the other test files share), written to
// over HTTP and WebSocket and read by WebSocket subscribers while the server is stopped for a few seconds and
// started again (pg_ctlcluster stop/start). Meanwhile /health keeps answering 200; reads and writes that need
// the server answer DATABASE_UNAVAILABLE (HTTP 503 with Retry-After, retryable), never a 500 or a stack; an
// instance told to wait longer (POSTGRES_UNAVAILABLE_WAIT_MS) holds its writes until the server is back and
// then makes them; afterwards writes work again without restarting anything, every subscriber has every
// stored event exactly once and in order, every acknowledged write is stored and no refused one is. Then the
// event tail alone: a page of events read just before the server goes away still comes with its items, and the
// tail reconnects by itself soon after the server is back; and a write whose connection is cut inside COMMIT
// is not run again (it could be written twice) but answered DATABASE_UNAVAILABLE, its outcome unknown.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { GraphQLFormattedError } from 'graphql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { PostgresEventTail } from '../../src/db/postgres-tail.js';
import { DatabaseUnavailableError } from '../../src/db/unavailable.js';
import { RUN_PREFIX } from '../support/database.js';
import { createKeys, type KeyHolder, post, type StartedServer, startServerProcess } from '../support/process.js';
import { connectWs, type WsClient, waitFor } from '../support/ws.js';

const run = promisify(execFile);

/**
 * "<version> <cluster>" of a PostgreSQL cluster (Debian's postgresql-common) that this test may stop and start,
 * reachable with LEASEHOLD_TEST_POSTGRES_URL's role and password on 127.0.0.1. .ci/run makes one for it.
 */
const CONTROL = process.env.LEASEHOLD_TEST_POSTGRES_CONTROL;
const HOW_TO_ENABLE =
  'set LEASEHOLD_TEST_POSTGRES_CONTROL="<version> <cluster>" to a cluster of its own that this test may stop and start ' +
  "(pg_ctlcluster), with LEASEHOLD_TEST_POSTGRES_URL's role and password, e.g. pg_createcluster 15 lh_restart --port 5451 --start " +
  'and CREATE ROLE leasehold_ci LOGIN CREATEDB PASSWORD …; .ci/run does this';

/** What the instance that does not wait long is told (POSTGRES_UNAVAILABLE_WAIT_MS); the default is 2 s too. */
const SHORT_WAIT_MS = 2_000;
/** The instance that rides the restart out: longer than the server is away (stop, DOWN_MS, start). */
const LONG_WAIT_MS = 20_000;
/** How long the server stays stopped: longer than SHORT_WAIT_MS, so its writes are refused. */
const DOWN_MS = 3_000;
/**
 * How soon after the server takes connections again each subscriber gets an event: the tail's reconnection
 * attempts back off to at most 500 ms (they were 5 s apart, which made the feed resume up to seconds later).
 */
const RESUMED_WITHIN_MS = 1_500;
/** Generous for a loaded two-core machine; a hung request would take seconds. */
const ANSWER_WITHIN_MS = 1_000;

const QUEUE_EVENTS = 'subscription ($after: Int) { queueEvents(after: $after) { sequence type } }';
const ADD_CATEGORIES = 'mutation ($names: [String!]!) { addCategories(input: { names: $names }) { __typename } }';
const ADD_ITEM = `mutation ($items: [AddItemInput!]!) {
  addItems(input: { items: $items }) { __typename ... on AddItemsPayload { entries { item { recordId } error { code } } } }
}`;
const CATEGORIES = '{ categories { name } }';

interface Cluster {
  version: string;
  name: string;
  port: number;
}

async function clusterOf(control: string): Promise<Cluster> {
  const [version, name, ...rest] = control.trim().split(/\s+/);
  if (!version || !name || rest.length > 0) throw new Error(`LEASEHOLD_TEST_POSTGRES_CONTROL="${control}": ${HOW_TO_ENABLE}`);
  const { stdout } = await run('pg_lsclusters', ['--no-header', version, name]);
  const port = Number(stdout.trim().split(/\s+/)[2]);
  if (!Number.isInteger(port)) throw new Error(`pg_lsclusters does not know cluster ${version} ${name}: ${stdout}`);
  const shared = new URL(process.env.LEASEHOLD_TEST_POSTGRES_URL ?? 'postgresql://localhost:5432/');
  if (Number(shared.port || 5432) === port) {
    throw new Error(`LEASEHOLD_TEST_POSTGRES_CONTROL names the cluster every other test file uses (port ${port}): ${HOW_TO_ENABLE}`);
  }
  return { version, name, port };
}

/** LEASEHOLD_TEST_POSTGRES_URL's role and password on the cluster's port, database `database`. */
function urlOn(cluster: Cluster, database: string): string {
  const url = new URL(process.env.LEASEHOLD_TEST_POSTGRES_URL ?? '');
  url.hostname = '127.0.0.1';
  url.port = String(cluster.port);
  url.pathname = `/${database}`;
  return url.toString();
}

async function onAdmin<T>(cluster: Cluster, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: urlOn(cluster, 'postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const pgCtl = (cluster: Cluster, action: 'stop' | 'start') => run('pg_ctlcluster', [cluster.version, cluster.name, action]);

async function isOnline(cluster: Cluster): Promise<boolean> {
  const { stdout } = await run('pg_lsclusters', ['--no-header', cluster.version, cluster.name]);
  return stdout.includes('online');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One write's fate, as its client saw it. */
interface Attempt {
  recordId: string;
  via: string;
  sentAt: number;
  answeredAt: number;
  ok: boolean;
  /** HTTP status (0 over WebSocket). */
  status: number;
  code: unknown;
  retryAfter: string | null;
  retryable: unknown;
  writeOutcome: unknown;
  /** The raw answer, for the leak check and the failure message. */
  text: string;
}

interface Probe {
  what: string;
  at: number;
  ms: number;
  status: number;
  code: unknown;
  text: string;
}

function describeAnswer(ok: boolean, errors: readonly { extensions?: Record<string, unknown> }[] | undefined) {
  const extensions = errors?.[0]?.extensions ?? {};
  return { ok, code: extensions.code ?? null, retryable: extensions.retryable, writeOutcome: extensions.writeOutcome };
}

function addItemVariables(recordId: string) {
  return { items: [{ batchId: 'restart', recordId, proposedCategory: 'general', reason: 'through a restart' }] };
}

function added(data: unknown, recordId: string): boolean {
  const entries = (data as { addItems?: { entries?: { item: { recordId: string } | null }[] } } | null | undefined)?.addItems?.entries;
  return entries?.[0]?.item?.recordId === recordId;
}

/** Writes one item at a time over HTTP until `stop()`; records every answer. */
async function httpWriter(url: string, caller: KeyHolder, via: string, attempts: Attempt[], stopped: () => boolean): Promise<void> {
  for (let n = 0; !stopped(); n++) {
    const recordId = `${via}-${n}`;
    const sentAt = performance.now();
    let attempt: Attempt;
    try {
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...caller.headers },
        body: JSON.stringify({ query: ADD_ITEM, variables: addItemVariables(recordId) }),
      });
      const text = await response.text();
      let body: { data?: unknown; errors?: { extensions?: Record<string, unknown> }[] } = {};
      try {
        body = JSON.parse(text) as typeof body;
      } catch {}
      attempt = {
        recordId,
        via,
        sentAt,
        answeredAt: performance.now(),
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        text,
        ...describeAnswer(response.status === 200 && added(body.data, recordId), body.errors),
      };
    } catch (error) {
      attempt = errorAttempt(recordId, via, sentAt, error);
    }
    attempts.push(attempt);
    if (!attempt.ok) await sleep(50);
  }
}

/**
 * The same over a WebSocket connection (which authenticated when it opened). An operation refused before it
 * runs ends with an `error` message; one refused while running, with a `next` carrying errors.
 */
async function wsWriter(client: WsClient, via: string, attempts: Attempt[], stopped: () => boolean): Promise<void> {
  for (let n = 0; !stopped(); n++) {
    const recordId = `${via}-${n}`;
    const sentAt = performance.now();
    const one = client.subscribe(ADD_ITEM, addItemVariables(recordId));
    await one.ended;
    const result = one.results[0];
    const attempt: Attempt =
      one.error && !Array.isArray(one.error)
        ? errorAttempt(recordId, via, sentAt, `connection closed: ${client.closeEvent?.code} ${client.closeEvent?.reason}`)
        : {
            recordId,
            via,
            sentAt,
            answeredAt: performance.now(),
            status: 0,
            retryAfter: null,
            text: JSON.stringify(one.error ?? result),
            ...describeAnswer(
              !one.error && !result?.errors && added(result?.data, recordId),
              (one.error as GraphQLFormattedError[] | null) ?? result?.errors,
            ),
          };
    attempts.push(attempt);
    if (!attempt.ok) await sleep(50);
  }
}

function errorAttempt(recordId: string, via: string, sentAt: number, error: unknown): Attempt {
  return {
    recordId,
    via,
    sentAt,
    answeredAt: performance.now(),
    ok: false,
    status: -1,
    code: 'CLIENT_ERROR',
    retryAfter: null,
    retryable: false,
    writeOutcome: null,
    text: String(error),
  };
}

/** A queueEvents subscriber that notes when each event arrived. */
function watch(client: WsClient, after: number) {
  const received: { sequence: number; at: number }[] = [];
  const state: { error: unknown; completed: boolean } = { error: null, completed: false };
  client.client.subscribe<{ queueEvents: { sequence: number } }>(
    { query: QUEUE_EVENTS, variables: { after } },
    {
      next: (result) => {
        if (result.data) received.push({ sequence: result.data.queueEvents.sequence, at: performance.now() });
        else state.error = result.errors;
      },
      error: (error) => {
        state.error = error;
      },
      complete: () => {
        state.completed = true;
      },
    },
  );
  return { received, state };
}

const setup = CONTROL
  ? describe
  : process.env.CI === 'true'
    ? // CI must run it: .ci/run sets the variable, and its absence is a failure, not a skip.
      (name: string, _body: () => void) =>
        describe(name, () => {
          it('needs LEASEHOLD_TEST_POSTGRES_CONTROL', () => {
            throw new Error(`LEASEHOLD_TEST_POSTGRES_CONTROL is not set under CI: ${HOW_TO_ENABLE}`);
          });
        })
    : (name: string, _body: () => void) => {
        process.stderr.write(`${name}: skipped; to run it, ${HOW_TO_ENABLE}.\n`);
        describe.skip(`${name} (skipped: ${HOW_TO_ENABLE})`, () => {
          it('restarts PostgreSQL under running instances', () => {});
        });
      };

setup('PostgreSQL restarted under running instances', () => {
  let cluster: Cluster;
  let databaseName: string;
  let databaseUrl: string;
  let servers: StartedServer[] = [];
  const clients: WsClient[] = [];
  const people = new Map<string, KeyHolder>();
  const as = (name: string) => people.get(name) as KeyHolder;

  const storedIds = (sql: string) =>
    onDatabase(async (client) => (await client.query<{ id: number | string }>(sql)).rows.map((row) => String(row.id)));
  async function onDatabase<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  }

  /** Until a session of the test database runs under `applicationName` (set by the triggers below). */
  async function waitForSession(applicationName: string): Promise<void> {
    const deadline = performance.now() + 10_000;
    const count = () =>
      onDatabase(
        async (client) =>
          (
            await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [
              applicationName,
            ])
          ).rows[0]?.n,
      );
    while ((await count()) !== 1) {
      if (performance.now() > deadline) throw new Error(`no session "${applicationName}" within 10 s`);
      await sleep(20);
    }
  }

  /** When the server next takes a connection (pg_ctlcluster start returns a little later). */
  async function firstConnection(): Promise<number> {
    for (;;) {
      const client = new pg.Client({ connectionString: databaseUrl });
      client.on('error', () => {});
      try {
        await client.connect();
        const at = performance.now();
        await client.end();
        return at;
      } catch {
        await client.end().catch(() => {});
        await sleep(10);
      }
    }
  }

  beforeAll(async () => {
    cluster = await clusterOf(CONTROL as string);
    if (!(await isOnline(cluster))) await pgCtl(cluster, 'start');
    databaseName = `${RUN_PREFIX}restart_${randomBytes(4).toString('hex')}`;
    await onAdmin(cluster, (client) => client.query(`CREATE DATABASE "${databaseName}"`));
    databaseUrl = urlOn(cluster, databaseName);
    const location = { dialect: 'postgresql' as const, url: databaseUrl };
    // Made (and the database migrated) before any instance starts, so none makes a first ADMIN key.
    const keys = await createKeys(location, [
      { name: 'admin', roles: ['ADMIN'] },
      { name: 'classifier', roles: ['PROPOSER'] },
      { name: 'watcher', roles: ['VIEWER'] },
    ]);
    for (const key of keys) people.set(key.name, key);
    // The item "long-held-0" sleeps in this trigger the first time it is inserted (a sequence does not roll back),
    // so its write is in flight when the server stops, and goes through once it is back.
    await onDatabase(async (client) => {
      await client.query('CREATE SEQUENCE held_once');
      await client.query(`CREATE FUNCTION hold_once() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW."recordId" = 'long-held-0' AND nextval('held_once') = 1 THEN
            PERFORM set_config('application_name', 'held', true);
            PERFORM pg_sleep(60);
          END IF;
          RETURN NEW;
        END $$`);
      await client.query('CREATE TRIGGER hold_once BEFORE INSERT ON "Item" FOR EACH ROW EXECUTE FUNCTION hold_once()');
    });
    servers = await Promise.all(
      [SHORT_WAIT_MS, LONG_WAIT_MS].map((wait) =>
        // The writers below loop as fast as the instances answer, all as one principal: its change limit (50/s by
        // default) is not what this test is about, and writes that fast would meet it (RATE_LIMITED).
        startServerProcess({ POSTGRES_UNAVAILABLE_WAIT_MS: String(wait), RATE_LIMIT_PER_SECOND: '0' }, { database: { location } }),
      ),
    );
    const answer = await post((servers[0] as StartedServer).url, ADD_CATEGORIES, { names: ['general'] }, as('admin').headers);
    expect(answer.body).toEqual({ data: { addCategories: { __typename: 'AddCategoriesPayload' } } });
  });

  afterAll(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
    await Promise.all(servers.map((server) => server.kill()));
    if (cluster) {
      // A failure while the server was stopped must not leave it stopped.
      if (!(await isOnline(cluster))) await pgCtl(cluster, 'start');
      if (databaseName) await onAdmin(cluster, (client) => client.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`));
    }
  });

  it('the instances keep answering, refuse writes typed and retryable while it is down, lose nothing and skip or repeat no event', async () => {
    const [short, long] = servers as [StartedServer, StartedServer];
    const [start] = await storedIds('SELECT coalesce(max("id"), 0) AS id FROM "Event"');
    const after = Number(start);
    const open = async (server: StartedServer, who: string) => {
      const client = await connectWs(server.url, as(who).headers);
      clients.push(client);
      return client;
    };
    const watchers = [watch(await open(short, 'watcher'), after), watch(await open(long, 'watcher'), after)];
    const [shortWs, longWs] = [await open(short, 'classifier'), await open(long, 'classifier')];

    const attempts: Attempt[] = [];
    const probes: Probe[] = [];
    let stop = false;
    const stopped = () => stop;
    const probe = async (server: StartedServer, what: string, request: () => Promise<Response>) => {
      while (!stop) {
        const at = performance.now();
        try {
          const response = await request();
          const text = await response.text();
          const code = (JSON.parse(text.startsWith('{') ? text : '{}') as { errors?: { extensions?: { code?: unknown } }[] }).errors?.[0]
            ?.extensions?.code;
          probes.push({
            what: `${what}@${server === short ? 'short' : 'long'}`,
            at,
            ms: performance.now() - at,
            status: response.status,
            code,
            text,
          });
        } catch (error) {
          probes.push({ what, at, ms: performance.now() - at, status: -1, code: 'CLIENT_ERROR', text: String(error) });
        }
        await sleep(40);
      }
    };
    const read = (server: StartedServer) => () =>
      fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...as('watcher').headers },
        body: JSON.stringify({ query: CATEGORIES }),
      });
    const loops = Promise.all([
      httpWriter(short.url, as('classifier'), 'short-http', attempts, stopped),
      wsWriter(shortWs, 'short-ws', attempts, stopped),
      wsWriter(longWs, 'long-ws', attempts, stopped),
      ...servers.flatMap((server) => [
        probe(server, '/health', () => fetch(`${server.url}/health`)),
        probe(server, 'categories', read(server)),
      ]),
    ]);
    const acknowledgedSince = (via: string, since: number) => attempts.filter((a) => a.via === via && a.ok && a.sentAt >= since).length;
    const everyWriter = (since: number, count: number) => () =>
      ['short-http', 'short-ws', 'long-ws'].every((via) => acknowledgedSince(via, since) >= count);

    let stopBegan = 0;
    let downAt = 0;
    let startBegan = 0;
    let upAt = 0;
    /** When the server first took a connection again (pg_ctlcluster returns a little later). */
    let acceptingAt = 0;
    const held: Promise<Attempt>[] = [];
    try {
      await waitFor(everyWriter(0, 5), 10_000, () => 'writes before the restart');
      // A write in flight on each instance as the server goes away: the long-waiting instance's sleeps in a
      // trigger (holding the write lock), the other instance's waits for that lock.
      const heldWrite = (server: StartedServer, via: string) => {
        const attempts: Attempt[] = [];
        return httpWriter(server.url, as('classifier'), via, attempts, () => attempts.length > 0).then(() => attempts[0] as Attempt);
      };
      held.push(heldWrite(long, 'long-held'));
      await waitForSession('held');
      held.unshift(heldWrite(short, 'short-held'));
      // Time for its credential's lookup (milliseconds) before the server goes.
      await sleep(300);
      stopBegan = performance.now();
      await pgCtl(cluster, 'stop');
      downAt = performance.now();
      await sleep(DOWN_MS);
      startBegan = performance.now();
      const started = pgCtl(cluster, 'start');
      acceptingAt = await firstConnection();
      await started;
      upAt = performance.now();
      // Writes work again, on both instances and both transports, without restarting either instance.
      await waitFor(everyWriter(upAt, 5), 15_000, () => `writes after the restart: ${JSON.stringify(attempts.slice(-3))}`);
    } finally {
      stop = true;
      await loops;
    }
    const [shortHeld, longHeld] = (await Promise.all(held)) as [Attempt, Attempt];
    attempts.push(shortHeld, longHeld);

    // Both instances are still the processes started before the restart.
    for (const server of servers) expect(server.child.exitCode).toBeNull();

    // Never a 500, an internal error or a stack: each answer is a success or DATABASE_UNAVAILABLE, 503 with Retry-After.
    const answers = [...attempts.map((a) => a.text), ...probes.map((p) => p.text)].join('\n');
    expect(answers).not.toMatch(/INTERNAL_SERVER_ERROR|PrismaClient|\.ts:\d+|\n\s+at /);
    const refused = attempts.filter((a) => !a.ok);
    expect(refused.filter((a) => a.code !== 'DATABASE_UNAVAILABLE' || a.retryable !== true)).toEqual([]);
    expect(refused.filter((a) => a.status !== 0 && (a.status !== 503 || a.retryAfter !== '2'))).toEqual([]);
    expect(probes.filter((p) => p.status !== 200 && (p.status !== 503 || p.code !== 'DATABASE_UNAVAILABLE'))).toEqual([]);
    // /health answered 200 throughout, promptly; reads answered promptly too (data, or DATABASE_UNAVAILABLE).
    expect(probes.filter((p) => p.what.startsWith('/health') && (p.status !== 200 || p.ms > ANSWER_WITHIN_MS))).toEqual([]);
    expect(probes.filter((p) => p.ms > ANSWER_WITHIN_MS)).toEqual([]);
    expect(probes.filter((p) => p.what.startsWith('categories') && p.at > downAt && p.at < startBegan).map((p) => p.code)).toContain(
      'DATABASE_UNAVAILABLE',
    );

    // The write in flight on the instance that waits SHORT_WAIT_MS was refused once that had passed since it
    // was sent, with nothing written; the one on the instance that waits longer was made once the server was back.
    expect(shortHeld).toMatchObject({ ok: false, status: 503, code: 'DATABASE_UNAVAILABLE', retryAfter: '2' });
    expect(shortHeld.writeOutcome).toBeUndefined();
    expect(shortHeld.answeredAt - shortHeld.sentAt).toBeGreaterThanOrEqual(SHORT_WAIT_MS - 50);
    expect(shortHeld.answeredAt).toBeLessThan(startBegan);
    expect(longHeld).toMatchObject({ ok: true, status: 200 });
    // Made once the server was back: after its start began (the instance's own retry can connect a few ms before
    // this test's probe, which polls every 10 ms, sees it accept).
    expect(longHeld.answeredAt).toBeGreaterThan(startBegan);
    // The writers that kept going on the first instance were refused meanwhile, over both transports; the one on
    // the other, whose write was waiting behind the held one, was refused nothing.
    for (const via of ['short-http', 'short-ws']) expect(refused.filter((a) => a.via === via).length, via).toBeGreaterThan(0);
    expect(refused.filter((a) => a.via === 'long-ws')).toEqual([]);

    // Nothing acknowledged is lost, and nothing refused was written (no refusal here had an unknown outcome).
    const items = new Set(await storedIds(`SELECT "recordId" AS id FROM "Item" WHERE "batchId" = 'restart'`));
    const acknowledged = attempts.filter((a) => a.ok).map((a) => a.recordId);
    expect(acknowledged.filter((recordId) => !items.has(recordId))).toEqual([]);
    expect(refused.filter((a) => a.writeOutcome === undefined && items.has(a.recordId))).toEqual([]);
    expect(items.size).toBe(acknowledged.length + refused.filter((a) => a.writeOutcome === 'UNKNOWN' && items.has(a.recordId)).length);

    // Every subscriber, on both instances, gets every stored event after `start` once, in order, and stays subscribed.
    const history = (await storedIds(`SELECT "id" FROM "Event" WHERE "id" > ${after} ORDER BY "id"`)).map(Number);
    for (const [index, watcher] of watchers.entries()) {
      await waitFor(
        () => watcher.received.at(-1)?.sequence === history.at(-1),
        10_000,
        () => `subscriber ${index} at ${watcher.received.at(-1)?.sequence}, want ${history.at(-1)}`,
      );
      expect(watcher.received.map((event) => event.sequence)).toEqual(history);
      expect(watcher.state).toEqual({ error: null, completed: false });
    }

    const resumed = watchers.map((watcher) =>
      Math.round((watcher.received.find((event) => event.at > acceptingAt)?.at ?? Number.POSITIVE_INFINITY) - acceptingAt),
    );
    // Each instance's tail reconnected and delivered again soon after the server took connections again.
    for (const ms of resumed) expect(ms).toBeLessThan(RESUMED_WITHIN_MS);

    // Figures (ms): how long writes were refused, and how soon each tail delivered again once the server was back.
    const firstRefusal = Math.min(...refused.map((a) => a.answeredAt));
    const lastRefusal = Math.max(...refused.map((a) => a.answeredAt));
    const firstAckAfter = Math.min(...attempts.filter((a) => a.ok && a.answeredAt > acceptingAt).map((a) => a.answeredAt));
    console.log(
      JSON.stringify({
        stopTookMs: Math.round(downAt - stopBegan),
        stoppedForMs: Math.round(startBegan - downAt),
        acceptingAfterStartBeganMs: Math.round(acceptingAt - startBegan),
        pgCtlStartTookMs: Math.round(upAt - startBegan),
        firstRefusalAfterStopBeganMs: Math.round(firstRefusal - stopBegan),
        lastRefusalAfterAcceptingMs: Math.round(lastRefusal - acceptingAt),
        writesRefusedForMs: Math.round(lastRefusal - firstRefusal),
        heldWriteMadeAfterAcceptingMs: Math.round(longHeld.answeredAt - acceptingAt),
        firstAcknowledgedWriteAfterAcceptingMs: Math.round(firstAckAfter - acceptingAt),
        firstEventDeliveredAfterAcceptingMs: resumed,
        refused: refused.length,
        acknowledged: acknowledged.length,
        events: history.length,
      }),
    );
  });

  it('the event tail: a page read just before the server goes away comes with its items, and it reconnects by itself soon after it is back', async () => {
    const tail = await PostgresEventTail.open(databaseUrl);
    try {
      const [start] = await storedIds('SELECT coalesce(max("id"), 0) AS id FROM "Event"');
      const answer = await post((servers[1] as StartedServer).url, ADD_ITEM, addItemVariables('page-then-away'), as('classifier').headers);
      expect(added(answer.body.data, 'page-then-away')).toBe(true);
      const events = await tail.eventsAfter(Number(start), 10);
      const ids = events.flatMap((event) => (event.itemId === null ? [] : [event.itemId]));
      expect(ids).toHaveLength(1);
      tail.changed();
      await pgCtl(cluster, 'stop');
      let acceptingAt = Number.POSITIVE_INFINITY;
      let reconnectedAt = Number.POSITIVE_INFINITY;
      try {
        // What the feed does next with the page: had this read failed, the feed, already past it, would never deliver it.
        const items = await tail.itemsById(ids);
        expect([...items.values()].map((item) => item.recordId)).toEqual(['page-then-away']);
        // Away long enough for the tail's reconnection attempts to back off to their longest.
        await sleep(DOWN_MS);
      } finally {
        // Nothing reads from the tail meanwhile: it reconnects (and reports a change, as it may have missed some) on its own.
        const reconnected = waitFor(() => tail.changed(), 20_000).then(() => {
          reconnectedAt = performance.now();
        });
        const started = pgCtl(cluster, 'start');
        acceptingAt = await firstConnection();
        await started;
        await reconnected;
      }
      const reconnectedAfterMs = reconnectedAt - acceptingAt;
      console.log(JSON.stringify({ tailReconnectedAfterAcceptingMs: Math.round(reconnectedAfterMs) }));
      expect(reconnectedAfterMs).toBeLessThan(RESUMED_WITHIN_MS);
    } finally {
      await tail.close();
    }
  });

  it('a write whose connection is lost during COMMIT is not run again: DATABASE_UNAVAILABLE, its outcome unknown', async () => {
    // A deferred trigger that sleeps in the first COMMIT that inserts a category, for the test to cut the connection there.
    await onDatabase(async (client) => {
      await client.query('CREATE SEQUENCE commit_once');
      await client.query(`CREATE FUNCTION sleep_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF nextval('commit_once') = 1 THEN
            PERFORM set_config('application_name', 'committing', true);
            PERFORM pg_sleep(60);
          END IF;
          RETURN NULL;
        END $$`);
      await client.query(`CREATE CONSTRAINT TRIGGER sleep_at_commit AFTER INSERT ON "Category"
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION sleep_at_commit()`);
    });
    const db = await openDatabase({ location: { dialect: 'postgresql', url: databaseUrl } });
    try {
      let runs = 0;
      const write = db.write(async (tx) => {
        runs += 1;
        await tx.category.create({ data: { name: 'cut-at-commit', createdAt: new Date(), createdBy: 'test' } });
      });
      const outcome = write.then(
        () => null,
        (error: unknown) => error,
      );
      await waitForSession('committing');
      await onDatabase((client) =>
        client.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'committing'`),
      );
      const error = await outcome;
      expect(error).toBeInstanceOf(DatabaseUnavailableError);
      expect((error as DatabaseUnavailableError).outcome).toBe('unknown');
      // Sent again it might have been written twice; here it was not written at all (the server ended it inside COMMIT).
      expect(runs).toBe(1);
      expect(await storedIds(`SELECT "name" AS id FROM "Category" WHERE "name" = 'cut-at-commit'`)).toEqual([]);
      // The next write goes through on a new connection.
      await db.write((tx) => tx.category.create({ data: { name: 'after-the-cut', createdAt: new Date(), createdBy: 'test' } }));
    } finally {
      await db.close();
      await onDatabase((client) => client.query('DROP TRIGGER sleep_at_commit ON "Category"'));
    }
  });
});
