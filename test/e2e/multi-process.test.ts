// Two real server processes on one database (a SQLite file, or one PostgreSQL database): no double claim,
// no lost decision, no SQLITE_BUSY (or lock error) for clients. Every claimant is a REVIEWER principal with
// its own API key, made in the database before the servers start; each request goes to either process,
// whichever made the lease.
import { existsSync } from 'node:fs';
import BetterSqlite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMigrations } from '../../src/db/migrate.js';
import { POSTGRES_MIGRATIONS_DIR } from '../../src/db/migrate-postgres.js';
import { type TestDatabase, testDatabase, withPostgres } from '../support/database.js';
import {
  bootstrapAdmin,
  createKeys,
  type KeyHolder,
  post,
  type StartedServer,
  startServerProcess,
  withDatabase,
} from '../support/process.js';

const ITEMS = 200;
const BURST = ITEMS + 60;
const RACERS = 80;
const WORKERS = 16;

const CLAIM = `mutation {
  claimItem(input: { leaseSeconds: 600 }) {
    __typename
    ... on ClaimItemPayload { claimed item { batchId recordId version claimedBy } lease { token holder } }
    ... on UserError { code message }
  }
}`;
const RENEW = `mutation ($token: String!) {
  renewLease(input: { token: $token, leaseSeconds: 900 }) {
    __typename
    ... on RenewLeasePayload { item { recordId version } }
    ... on UserError { code message }
  }
}`;
const RELEASE = `mutation ($token: String!) {
  releaseLease(input: { token: $token }) {
    __typename
    ... on ReleaseLeasePayload { item { recordId version claimState } }
    ... on UserError { code message }
  }
}`;
const DECIDE = `mutation ($token: String!, $decision: Decision!, $category: String) {
  decideItem(input: { token: $token, decision: $decision, category: $category }) {
    __typename
    ... on DecideItemPayload { item { recordId version status reviewedBy } }
    ... on UserError { code message }
  }
}`;

interface Held {
  recordId: string;
  token: string;
  reviewer: KeyHolder;
  version: number;
}

/** Every client-visible outcome, to compare with the database afterwards. */
interface Ledger {
  claims: { recordId: string; reviewer: string; version: number }[];
  /** Successful claims per server URL. */
  wonAt: Map<string, number>;
  claimedFalse: number;
  releases: { recordId: string; version: number }[];
  renewals: { recordId: string; version: number }[];
  decisions: { recordId: string; reviewer: string; version: number; status: string }[];
}

/** Sends an operation as `caller` and insists on a plain, error-free data answer (no SQLITE_BUSY, no internal error). */
async function ask(
  server: StartedServer,
  caller: KeyHolder,
  query: string,
  variables: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const { status, body } = await post(server.url, query, variables, caller.headers);
  if (status !== 200 || body.errors !== undefined || !body.data) {
    throw new Error(`${server.url} answered ${status}: ${JSON.stringify(body)}`);
  }
  return body.data;
}

function payload(data: Record<string, unknown>, field: string, typename: string): Record<string, unknown> {
  const result = data[field] as Record<string, unknown> | undefined;
  if (result?.__typename !== typename) throw new Error(`expected ${typename}, got ${JSON.stringify(result)}`);
  return result;
}

async function claim(server: StartedServer, reviewer: KeyHolder, ledger: Ledger): Promise<Held | null> {
  const result = payload(await ask(server, reviewer, CLAIM, {}), 'claimItem', 'ClaimItemPayload');
  if (!result.claimed) {
    ledger.claimedFalse += 1;
    return null;
  }
  const item = result.item as { recordId: string; version: number; claimedBy: string };
  const lease = result.lease as { token: string; holder: string };
  expect(item.claimedBy).toBe(reviewer.name);
  expect(lease.holder).toBe(reviewer.name);
  ledger.claims.push({ recordId: item.recordId, reviewer: reviewer.name, version: item.version });
  ledger.wonAt.set(server.url, (ledger.wonAt.get(server.url) ?? 0) + 1);
  return { recordId: item.recordId, token: lease.token, reviewer, version: item.version };
}

async function renew(server: StartedServer, held: Held, ledger: Ledger): Promise<void> {
  const result = payload(await ask(server, held.reviewer, RENEW, { token: held.token }), 'renewLease', 'RenewLeasePayload');
  const item = result.item as { recordId: string; version: number };
  expect(item.recordId).toBe(held.recordId);
  ledger.renewals.push({ recordId: item.recordId, version: item.version });
}

async function release(server: StartedServer, held: Held, ledger: Ledger): Promise<void> {
  const result = payload(await ask(server, held.reviewer, RELEASE, { token: held.token }), 'releaseLease', 'ReleaseLeasePayload');
  const item = result.item as { recordId: string; version: number; claimState: string };
  expect(item).toMatchObject({ recordId: held.recordId, claimState: 'UNCLAIMED' });
  ledger.releases.push({ recordId: item.recordId, version: item.version });
}

async function decide(server: StartedServer, held: Held, n: number, ledger: Ledger): Promise<void> {
  const decision = ['ACCEPTED', 'CORRECTED', 'REJECTED'][n % 3] as string;
  const variables = { token: held.token, decision, category: decision === 'CORRECTED' ? 'beta' : null };
  const result = payload(await ask(server, held.reviewer, DECIDE, variables), 'decideItem', 'DecideItemPayload');
  const item = result.item as { recordId: string; version: number; status: string; reviewedBy: string };
  expect(item).toMatchObject({ recordId: held.recordId, status: decision, reviewedBy: held.reviewer.name });
  ledger.decisions.push({ recordId: item.recordId, reviewer: held.reviewer.name, version: item.version, status: decision });
}

describe('two server processes on one database', () => {
  let database: TestDatabase;
  let a: StartedServer;
  let b: StartedServer;
  let admin: KeyHolder;
  let proposer: KeyHolder;
  /** One REVIEWER principal per burst claimant, per racer and per worker. */
  let burst: KeyHolder[];
  let racers: KeyHolder[];
  let workers: KeyHolder[];

  beforeAll(async () => {
    // The keys go in the file first (which migrates it): then no server makes a first ADMIN key, and the
    // race below is between claims only. Each principal makes far fewer changes than the rate limit's
    // burst, so the servers keep their default limit.
    const reviewers = (prefix: string, count: number) =>
      Array.from({ length: count }, (_, index) => ({ name: `${prefix}-${index}`, roles: ['REVIEWER' as const] }));
    database = await testDatabase();
    const keys = await createKeys(database, [
      { name: 'admin', roles: ['ADMIN'] },
      { name: 'classifier', roles: ['PROPOSER'] },
      ...reviewers('burst', BURST),
      ...reviewers('racer', RACERS),
      ...reviewers('worker', WORKERS),
    ]);
    [admin, proposer] = keys as [KeyHolder, KeyHolder];
    burst = keys.slice(2, 2 + BURST);
    racers = keys.slice(2 + BURST, 2 + BURST + RACERS);
    workers = keys.slice(2 + BURST + RACERS);
    const env = { SQLITE_SYNCHRONOUS: 'NORMAL' };
    [a, b] = await Promise.all([startServerProcess(env, { database }), startServerProcess(env, { database })]);
  });
  afterAll(async () => {
    await Promise.all([a?.kill(), b?.kill()]);
    await database?.cleanup();
  });

  it(`shares ${ITEMS} items between concurrent claimants on both processes without a double claim or a lost decision`, async () => {
    const servers = [a, b];
    const categories = payload(
      await ask(a, admin, `mutation { addCategories(input: { names: ["alpha", "beta"] }) { __typename } }`, {}),
      'addCategories',
      'AddCategoriesPayload',
    );
    expect(categories).toBeTruthy();
    const items = Array.from({ length: ITEMS }, (_, index) => ({
      batchId: 'multi',
      recordId: `M-${String(index).padStart(4, '0')}`,
      proposedCategory: 'alpha',
      reason: 'two processes, one file',
    }));
    const added = payload(
      await ask(
        b,
        proposer,
        'mutation ($items: [AddItemInput!]!) { addItems(input: { items: $items }) { __typename ... on AddItemsPayload { addedCount refusedCount } } }',
        { items },
      ),
      'addItems',
      'AddItemsPayload',
    );
    expect(added).toMatchObject({ addedCount: ITEMS, refusedCount: 0 });

    const ledger: Ledger = { claims: [], wonAt: new Map(), claimedFalse: 0, releases: [], renewals: [], decisions: [] };

    // Round 1: 260 claims at once by 260 reviewers, half on each process.
    const claimed = await Promise.all(burst.map((reviewer, index) => claim(servers[index % 2] as StartedServer, reviewer, ledger)));
    const held = claimed.filter((entry): entry is Held => entry !== null);
    expect(held).toHaveLength(ITEMS);
    expect(ledger.claimedFalse).toBe(60);
    expect(new Set(held.map((entry) => entry.recordId)).size).toBe(ITEMS);
    // Both processes really competed for the same rows.
    expect(ledger.wonAt.get(a.url)).toBeGreaterThan(20);
    expect(ledger.wonAt.get(b.url)).toBeGreaterThan(20);

    // Round 2: every holder renews, releases or decides (on either process) while fresh claimants race for released items.
    let n = 0;
    const round2 = held.map(async (entry, index) => {
      const server = servers[(index + 1) % 2] as StartedServer;
      if (index % 4 === 0) return release(server, entry, ledger);
      if (index % 4 === 1) await renew(servers[index % 2] as StartedServer, entry, ledger);
      return decide(server, entry, n++, ledger);
    });
    const racing = racers.map(async (racer, index) => {
      const server = servers[index % 2] as StartedServer;
      const got = await claim(server, racer, ledger);
      if (got) await decide(servers[(index + 1) % 2] as StartedServer, got, n++, ledger);
    });
    await Promise.all([...round2, ...racing]);

    // Round 3: concurrent workers on both processes drain the queue (claim, sometimes renew, decide) until nothing
    // is claimable. A worker holds one lease at a time, so its name identifies each of its claims in turn.
    const draining = workers.map(async (worker, index) => {
      for (let turn = 0; ; turn++) {
        const got = await claim(servers[(index + turn) % 2] as StartedServer, worker, ledger);
        if (!got) return;
        if (turn % 3 === 0) await renew(servers[(index + turn + 1) % 2] as StartedServer, got, ledger);
        await decide(servers[(index + turn + 1) % 2] as StartedServer, got, n++, ledger);
      }
    });
    await Promise.all(draining);

    // Every item was decided exactly once, by the reviewer whose claim the client saw succeed.
    expect(ledger.decisions).toHaveLength(ITEMS);
    expect(new Set(ledger.decisions.map((decision) => decision.recordId)).size).toBe(ITEMS);
    expect(ledger.claims).toHaveLength(ITEMS + ledger.releases.length);

    // The stored state, read through a connection of the test's own once both servers are done.
    await withDatabase(database, async (db) => {
      const rows = await db.read.item.findMany({
        select: { id: true, recordId: true, status: true, reviewedBy: true, version: true, leaseTokenHash: true },
        orderBy: { id: 'asc' },
      });
      const events = await db.read.event.findMany({
        select: { id: true, type: true, actor: true, itemId: true, itemVersion: true, toStatus: true },
        orderBy: { id: 'asc' },
      });
      expect(rows).toHaveLength(ITEMS);

      const decisionByRecord = new Map(ledger.decisions.map((decision) => [decision.recordId, decision]));
      const idToRecord = new Map(rows.map((row) => [row.id, row.recordId]));
      for (const row of rows) {
        const told = decisionByRecord.get(row.recordId);
        expect(row).toMatchObject({ status: told?.status, reviewedBy: told?.reviewer, version: told?.version, leaseTokenHash: null });
      }

      // The client ledger and the history tell the same story, event for event.
      const keyed = (type: string) =>
        events
          .filter((event) => event.type === type)
          .map((event) => `${idToRecord.get(event.itemId as number)}@${event.itemVersion}:${type === 'LEASE_CLAIMED' ? event.actor : ''}`)
          .sort();
      expect(keyed('LEASE_CLAIMED')).toEqual(ledger.claims.map((entry) => `${entry.recordId}@${entry.version}:${entry.reviewer}`).sort());
      expect(keyed('LEASE_RELEASED')).toEqual(ledger.releases.map((entry) => `${entry.recordId}@${entry.version}:`).sort());
      expect(keyed('LEASE_RENEWED')).toEqual(ledger.renewals.map((entry) => `${entry.recordId}@${entry.version}:`).sort());
      expect(keyed('ITEM_DECIDED')).toEqual(ledger.decisions.map((entry) => `${entry.recordId}@${entry.version}:`).sort());

      // Per item: versions 1, 2, 3, … with no gap or repeat, and a lease is only ever claimed when none is held.
      for (const row of rows) {
        const history = events.filter((event) => event.itemId === row.id);
        expect(history.map((event) => event.itemVersion)).toEqual(history.map((_, index) => index + 1));
        expect(history.at(-1)?.itemVersion).toBe(row.version);
        let holder: string | null = null;
        for (const event of history) {
          if (event.type === 'LEASE_CLAIMED') {
            expect(holder, `item ${row.recordId} claimed by ${event.actor} while ${holder} held it`).toBeNull();
            holder = event.actor;
          } else if (event.type === 'LEASE_RENEWED') {
            expect(event.actor).toBe(holder);
          } else if (event.type === 'LEASE_RELEASED' || event.type === 'ITEM_DECIDED') {
            expect(event.actor).toBe(holder);
            holder = null;
          }
        }
        expect(history.filter((event) => event.type === 'ITEM_DECIDED')).toHaveLength(1);
        expect(history.at(-1)?.type).toBe('ITEM_DECIDED');
      }
      expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
    });

    // Both processes still answer, and neither logged an unexpected error.
    for (const server of servers) {
      const ready = await fetch(`${server.url}/ready`);
      expect(ready.status).toBe(200);
      const errorLines = server.stdout.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
      expect(errorLines).toEqual([]);
    }
  });
});

/** The tables in the PostgreSQL database `url`'s public schema. */
const postgresTables = (url: string) =>
  withPostgres(url, async (client) => {
    const { rows } = await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'");
    return rows.map((row) => row.name);
  });

describe('two server processes starting on a new database at the same moment', () => {
  let database: TestDatabase;
  const started: StartedServer[] = [];
  beforeAll(async () => {
    // Nothing there yet: no SQLite file, or an empty PostgreSQL database (not migrated).
    database = await testDatabase({ empty: true });
  });
  afterAll(async () => {
    await Promise.all(started.map((server) => server.kill()));
    await database?.cleanup();
  });

  it('both migrate, both become ready, the migrations are recorded once, and one first ADMIN key is made between them', async () => {
    const { location } = database;
    if (location.dialect === 'sqlite') expect(existsSync(location.file)).toBe(false);
    else expect(await postgresTables(location.url)).toEqual([]);
    const results = await Promise.allSettled([startServerProcess({}, { database }), startServerProcess({}, { database })]);
    for (const result of results) if (result.status === 'fulfilled') started.push(result.value);
    expect(results.map((result) => (result.status === 'rejected' ? String(result.reason) : 'started'))).toEqual(['started', 'started']);

    // Exactly one of them made (and printed) the first key; the other found it there. (That line follows the
    // "listening" one, and the log is written asynchronously: wait until it has come through the pipe. The
    // database check below proves no second key was made.)
    const MADE = 'made the first ADMIN API key (printed on stderr)';
    await Promise.any(started.map((server) => server.waitForLog((line) => line.msg === MADE, 10_000)));
    const made = started.map((server) => server.stdout.some((line) => (JSON.parse(line) as { msg?: string }).msg === MADE));
    expect(made.filter(Boolean)).toHaveLength(1);
    const maker = started[made.indexOf(true)] as StartedServer;
    const admin = await bootstrapAdmin(maker);
    expect(started[made.indexOf(false)]?.stderr.join('\n')).not.toMatch(/lhk_/);

    for (const server of started) {
      expect((await fetch(`${server.url}/ready`)).status).toBe(200);
      expect((await post(server.url, '{ categories { name } }')).status).toBe(401);
      const { body } = await post(server.url, '{ categories { name } viewer { name roles } }', undefined, admin.headers);
      expect(body).toEqual({ data: { categories: [], viewer: { name: 'admin', roles: ['ADMIN'] } } });
    }

    if (location.dialect === 'sqlite') {
      // Read-only, with SQLite itself: the servers made the file, not this test.
      const db = new BetterSqlite(location.file, { readonly: true });
      try {
        const recorded = db.prepare('SELECT migration_name AS name FROM "_prisma_migrations" ORDER BY migration_name').all();
        expect(recorded).toEqual(readMigrations().map((migration) => ({ name: migration.name })));
        // Several processes on one file need the write-ahead log (readers never wait for the writer).
        expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      } finally {
        db.close();
      }
    } else {
      const recorded = await withPostgres(location.url, async (client) => {
        const history = await client.query<{ name: string; finished: boolean }>(
          'SELECT migration_name AS name, finished_at IS NOT NULL AS finished FROM "_prisma_migrations" ORDER BY migration_name',
        );
        // Several instances on one database: each follows the history on a LISTEN connection of its own,
        // and no instance still holds the migration lock (the next one to start would wait for it). The
        // lock's bigint key 7415620001 (src/db/migrate-postgres.ts) shows as classid 1, objid 3120652705.
        // (Not every advisory lock: a write in flight, such as a key's last-use time, holds the write lock.)
        const tails = await client.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'leasehold-tail'",
        );
        const advisory = await client.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = 1 AND objid = 3120652705 AND objsubid = 1
             AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        );
        return { history: history.rows, tails: tails.rows[0]?.n, migrationLocks: advisory.rows[0]?.n };
      });
      expect(recorded).toEqual({
        history: readMigrations(POSTGRES_MIGRATIONS_DIR).map((migration) => ({ name: migration.name, finished: true })),
        tails: 2,
        migrationLocks: 0,
      });
    }
    // The first key, once, and its one event: the same on either backend.
    await withDatabase(database, async (db) => {
      expect(await db.read.apiKey.findMany({ select: { name: true, roles: true, createdBy: true } })).toEqual([
        { name: 'admin', roles: 'ADMIN', createdBy: 'system' },
      ]);
      expect(await db.read.event.count({ where: { type: 'API_KEY_CREATED' } })).toBe(1);
    });
  });
});
