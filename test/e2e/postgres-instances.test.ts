// Several instances on one PostgreSQL database (PostgreSQL project only: vitest.config.ts, POSTGRES_ONLY).
// Three real server processes (src/main.ts, DATABASE_URL on one database): concurrent claims spread over
// the three never lease an item twice; a queueEvents subscriber on each instance receives the same
// ordered history, made through all three; a subscriber resumes with `after` on another instance and gets
// exactly what it missed; SIGKILLing one instance loses no acknowledged decision while the others keep
// serving. Then three fake-clock processes (the real app on a manual clock, moved together over IPC, as
// one shared clock would move): each lapsed lease is recorded and announced exactly once across the three.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WRITE_MODES } from '../../src/config/database-location.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { type TestDatabase, testDatabase } from '../support/database.js';
import {
  createKeys,
  type FakeClockServer,
  type KeyHolder,
  post,
  type StartedServer,
  startFakeClockServer,
  startServerProcess,
} from '../support/process.js';
import { type Collected, connectWs, type WsClient, waitFor } from '../support/ws.js';

const QUEUE_EVENTS = `subscription ($after: Int) {
  queueEvents(after: $after) { sequence type actor occurredAt leaseExpiresAt leaseNumber item { id recordId } }
}`;
const ADD_CATEGORIES = 'mutation ($names: [String!]!) { addCategories(input: { names: $names }) { __typename } }';
const ADD_ITEMS = `mutation ($items: [AddItemInput!]!) {
  addItems(input: { items: $items }) { __typename ... on AddItemsPayload { addedCount refusedCount } }
}`;
const CLAIM = `mutation ($leaseSeconds: Int, $batchId: String) {
  claimItem(input: { leaseSeconds: $leaseSeconds, batchId: $batchId }) {
    __typename
    ... on ClaimItemPayload { claimed item { id recordId claimedBy version } lease { token holder expiresAt } }
    ... on UserError { code message }
  }
}`;
const DECIDE = `mutation ($token: String!, $decision: Decision!) {
  decideItem(input: { token: $token, decision: $decision }) {
    __typename
    ... on DecideItemPayload { item { recordId status reviewedBy version } }
    ... on UserError { code message }
  }
}`;
const RELEASE = `mutation ($token: String!) {
  releaseLease(input: { token: $token }) { __typename ... on UserError { code message } }
}`;

interface EventPayload {
  sequence: number;
  type: string;
  actor: string;
  occurredAt: string;
  leaseExpiresAt: string | null;
  leaseNumber: number | null;
  item: { id: string; recordId: string } | null;
}
type QueueEvents = { queueEvents: EventPayload };

interface ClaimPayload {
  __typename: string;
  claimed?: boolean;
  item?: { id: string; recordId: string; claimedBy: string; version: number } | null;
  lease?: { token: string; holder: string; expiresAt: string } | null;
  code?: string;
}

const sequences = (collected: Collected<QueueEvents>) => collected.data.map((data) => data.queueEvents.sequence);
const events = (collected: Collected<QueueEvents>) => collected.data.map((data) => data.queueEvents);

/** Sends an operation as `caller`; insists on HTTP 200 with data and no top-level error. */
async function ask(url: string, caller: KeyHolder, query: string, variables?: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { status, body } = await post(url, query, variables, caller.headers);
  if (status !== 200 || body.errors || !body.data) throw new Error(`${url} answered ${status}: ${JSON.stringify(body)}`);
  return body.data;
}

/** A mutation's payload, which must be of `typename`. */
async function payload<T>(
  url: string,
  caller: KeyHolder,
  field: string,
  typename: string,
  query: string,
  variables?: Record<string, unknown>,
) {
  const result = (await ask(url, caller, query, variables))[field] as { __typename: string };
  if (result.__typename !== typename) throw new Error(`${field} at ${url}: expected ${typename}, got ${JSON.stringify(result)}`);
  return result as T;
}

const items = (batchId: string, count: number) =>
  Array.from({ length: count }, (_, index) => ({
    batchId,
    recordId: `${batchId}-${String(index).padStart(3, '0')}`,
    proposedCategory: 'alpha',
    reason: 'several instances, one database',
  }));

/** The stored history after `after`, read through a connection of the test's own. */
async function storedEvents(db: Database, after: number) {
  return db.read.event.findMany({
    where: { id: { gt: after } },
    select: { id: true, type: true, actor: true, itemId: true, leaseNumber: true },
    orderBy: { id: 'asc' },
  });
}

async function latestSequence(db: Database): Promise<number> {
  const { _max } = await db.read.event.aggregate({ _max: { id: true } });
  return _max.id ?? 0;
}

/**
 * Lines of a server's JSON log at level error or above. Anything else on the stream (a Node process
 * warning, which is not a log line) is shown in the test output rather than parsed.
 */
function errorLines(lines: readonly string[]): string[] {
  const other = lines.filter((line) => !line.startsWith('{'));
  if (other.length > 0) console.warn(`not log lines:\n${other.join('\n')}`);
  return lines.filter((line) => line.startsWith('{') && ((JSON.parse(line) as { level?: number }).level ?? 0) >= 50);
}

// In both write modes (decision 0009): `sharded` runs the instances' claims and decisions without the global lock.
describe.each(WRITE_MODES)('three server processes on one PostgreSQL database (PG_WRITE_MODE=%s)', (writeMode) => {
  const N = 40;
  const WORKERS = 12;
  let database: TestDatabase;
  /** The test's own connection, for reading what was stored. */
  let db: Database;
  let servers: StartedServer[];
  const people = new Map<string, KeyHolder>();
  const as = (name: string) => people.get(name) as KeyHolder;
  const clients: WsClient[] = [];
  const watch = async (server: StartedServer, after: number) => {
    const client = await connectWs(server.url, as('watcher').headers);
    clients.push(client);
    return { client, events: client.subscribe<QueueEvents>(QUEUE_EVENTS, { after }) };
  };

  beforeAll(async () => {
    database = await testDatabase();
    expect(database.location.dialect).toBe('postgresql');
    const reviewers = (prefix: string, count: number) =>
      Array.from({ length: count }, (_, index) => ({ name: `${prefix}-${index}`, roles: ['REVIEWER' as const] }));
    // The keys first, so no instance makes a first ADMIN key; made through the key service on the database.
    const keys = await createKeys(database, [
      { name: 'admin', roles: ['ADMIN'] },
      { name: 'classifier', roles: ['PROPOSER'] },
      { name: 'watcher', roles: ['VIEWER'] },
      ...reviewers('claimant', 3 * N),
      ...reviewers('worker', WORKERS),
      { name: 'late', roles: ['REVIEWER'] },
    ]);
    for (const key of keys) people.set(key.name, key);
    servers = await Promise.all([0, 1, 2].map(() => startServerProcess({ PG_WRITE_MODE: writeMode }, { database })));
    db = await openDatabase({ location: database.location, writeMode });
    await payload(servers[0]?.url as string, as('admin'), 'addCategories', 'AddCategoriesPayload', ADD_CATEGORIES, { names: ['alpha'] });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  afterAll(async () => {
    await Promise.all((servers ?? []).map((server) => server.kill()));
    await db?.close();
    await database?.cleanup();
  });

  it(`3×${N} concurrent claims over three instances give each of ${N} items to exactly one claimer, and every instance's subscriber gets the same ordered history`, async () => {
    const [, b, c] = servers as [StartedServer, StartedServer, StartedServer];
    const start = await latestSequence(db);
    const watchers = await Promise.all(servers.map((server) => watch(server, start)));

    await payload(b.url, as('classifier'), 'addItems', 'AddItemsPayload', ADD_ITEMS, { items: items('race', N) });
    // 3N claims at once, one per claimant, each instance taking a third of them.
    const claimants = Array.from({ length: 3 * N }, (_, index) => as(`claimant-${index}`));
    const results = await Promise.all(
      claimants.map((claimant, index) =>
        payload<ClaimPayload>((servers[index % 3] as StartedServer).url, claimant, 'claimItem', 'ClaimItemPayload', CLAIM, {
          leaseSeconds: 600,
          batchId: 'race',
        }).then((result) => ({ result, claimant, at: index % 3 })),
      ),
    );
    const winners = results.filter(({ result }) => result.claimed);
    expect(winners).toHaveLength(N);
    expect(results.filter(({ result }) => !result.claimed).every(({ result }) => result.item === null && result.lease === null)).toBe(true);
    expect(new Set(winners.map(({ result }) => result.item?.recordId)).size).toBe(N);
    for (const { result, claimant } of winners) {
      expect(result.item?.claimedBy).toBe(claimant.name);
      expect(result.lease?.holder).toBe(claimant.name);
    }

    // Each holder settles its lease through another instance than the one that leased it: a third release, the rest decide.
    await Promise.all(
      winners.map(({ result, claimant, at }, index) => {
        const url = (servers[(at + 1 + (index % 2)) % 3] as StartedServer).url;
        const token = result.lease?.token as string;
        return index % 3 === 0
          ? payload(url, claimant, 'releaseLease', 'ReleaseLeasePayload', RELEASE, { token })
          : payload(url, claimant, 'decideItem', 'DecideItemPayload', DECIDE, { token, decision: 'ACCEPTED' });
      }),
    );

    // The database agrees: one LEASE_CLAIMED per item, by the winner the client was told of.
    const stored = await storedEvents(db, start);
    const claimed = stored.filter((event) => event.type === 'LEASE_CLAIMED');
    expect(claimed).toHaveLength(N);
    expect(new Set(claimed.map((event) => event.itemId)).size).toBe(N);
    expect(claimed.map((event) => event.actor).sort()).toEqual(winners.map(({ claimant }) => claimant.name).sort());
    expect(stored.filter((event) => event.type === 'OPERATION_REFUSED')).toEqual([]);

    // A last change, through the third instance, marks the end of what each subscriber must have.
    await payload(c.url, as('classifier'), 'addItems', 'AddItemsPayload', ADD_ITEMS, { items: items('marker-1', 1) });
    const end = await latestSequence(db);
    const history = (await storedEvents(db, start)).map((event) => event.id);
    expect(history.at(-1)).toBe(end);
    for (const [index, { events: got }] of watchers.entries()) {
      await waitFor(
        () => sequences(got).at(-1) === end,
        10_000,
        () => `instance ${index} at ${sequences(got).at(-1)}, want ${end}`,
      );
    }
    // The same ids, in the same order, on every instance: exactly the stored history.
    for (const { events: got } of watchers) expect(sequences(got)).toEqual(history);
    expect(new Set(watchers.map(({ events: got }) => JSON.stringify(events(got))))).toHaveProperty('size', 1);
    // Who won where (for the record; any split is correct as long as no item is leased twice).
    const wonAt = [0, 1, 2].map((index) => winners.filter(({ at }) => at === index).length);
    expect(wonAt.reduce((sum, count) => sum + count, 0)).toBe(N);
  });

  it('a subscriber that went away resumes with `after` on another instance and gets exactly what it missed', async () => {
    const [a, b, c] = servers as [StartedServer, StartedServer, StartedServer];
    const start = await latestSequence(db);
    const first = await watch(a, start);
    await payload(a.url, as('classifier'), 'addItems', 'AddItemsPayload', ADD_ITEMS, { items: items('resume-a', 3) });
    const seenUpTo = await latestSequence(db);
    await waitFor(() => sequences(first.events).at(-1) === seenUpTo);
    await first.client.close();

    // Missed while away: changes through all three instances.
    await payload(b.url, as('classifier'), 'addItems', 'AddItemsPayload', ADD_ITEMS, { items: items('resume-b', 4) });
    const lease = await payload<ClaimPayload>(c.url, as('late'), 'claimItem', 'ClaimItemPayload', CLAIM, { batchId: 'resume-b' });
    await payload(a.url, as('late'), 'decideItem', 'DecideItemPayload', DECIDE, { token: lease.lease?.token, decision: 'REJECTED' });
    const missedUpTo = await latestSequence(db);

    const resumed = await watch(c, seenUpTo);
    await waitFor(() => sequences(resumed.events).at(-1) === missedUpTo);
    // And it goes on live from there.
    await payload(b.url, as('classifier'), 'addItems', 'AddItemsPayload', ADD_ITEMS, { items: items('resume-live', 1) });
    const end = await latestSequence(db);
    await waitFor(() => sequences(resumed.events).at(-1) === end);

    expect(sequences(first.events)).toEqual(
      (await storedEvents(db, start)).filter((event) => event.id <= seenUpTo).map((event) => event.id),
    );
    expect(sequences(resumed.events)).toEqual((await storedEvents(db, seenUpTo)).map((event) => event.id));
    expect(events(resumed.events).map((event) => event.type)).toEqual([
      ...Array.from({ length: 4 }, () => 'ITEM_ADDED'),
      'LEASE_CLAIMED',
      'ITEM_DECIDED',
      'ITEM_ADDED',
    ]);
  });

  it('SIGKILLing one instance loses no acknowledged decision, and the other two keep serving', async () => {
    const [a, b, victim] = servers as [StartedServer, StartedServer, StartedServer];
    const M = 60;
    const start = await latestSequence(db);
    const watchers = await Promise.all(servers.map((server) => watch(server, start)));
    await payload(a.url, as('classifier'), 'addItems', 'AddItemsPayload', ADD_ITEMS, { items: items('kill', M) });

    const alive = [...servers];
    const pick = (n: number) => alive[n % alive.length] as StartedServer;
    const acknowledged: { recordId: string; reviewer: string; status: string; version: number; afterKill: boolean }[] = [];
    /** Requests that got no answer because their instance died: they may or may not have committed. */
    const inDoubt = { claims: [] as string[], decisions: new Set<string>() };
    let killed: Promise<void> | null = null;

    const work = async (worker: KeyHolder, index: number) => {
      for (let turn = 0; ; turn++) {
        let claim: ClaimPayload;
        try {
          claim = await payload<ClaimPayload>(pick(index + turn).url, worker, 'claimItem', 'ClaimItemPayload', CLAIM, { batchId: 'kill' });
        } catch (error) {
          if (!killed) throw error;
          inDoubt.claims.push(worker.name);
          continue;
        }
        if (!claim.claimed) return;
        const recordId = claim.item?.recordId as string;
        const status = turn % 2 === 0 ? 'ACCEPTED' : 'REJECTED';
        // Decided through another instance; if that one dies on the way, through another again with the same token.
        for (let attempt = 1; ; attempt++) {
          const url = pick(index + turn + attempt).url;
          const { status: http, body } = await post(url, DECIDE, { token: claim.lease?.token, decision: status }, worker.headers).catch(
            (error: unknown) => {
              if (!killed) throw error;
              return { status: 0, body: {} as { data?: Record<string, unknown> | null } };
            },
          );
          if (http === 0) {
            inDoubt.decisions.add(recordId);
            continue;
          }
          const decided = body.data?.decideItem as { __typename: string; item?: { version: number }; code?: string } | undefined;
          if (decided?.__typename === 'DecideItemPayload') {
            acknowledged.push({
              recordId,
              reviewer: worker.name,
              status,
              version: decided.item?.version as number,
              afterKill: killed !== null,
            });
            // Kill the third instance a third of the way through, with requests in flight to it.
            if (acknowledged.length === 20 && !killed) {
              alive.splice(alive.indexOf(victim), 1);
              killed = victim.kill();
            }
            break;
          }
          // The lease is gone only if an earlier attempt, cut off by the kill, did decide it.
          if (decided?.code === 'CLAIM_NOT_FOUND' && inDoubt.decisions.has(recordId)) break;
          throw new Error(`decideItem at ${url}: ${http} ${JSON.stringify(body)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, (_, index) => work(as(`worker-${index}`), index)));
    await killed;
    expect(await victim.exited).toBe('SIGKILL');
    expect(acknowledged.filter((entry) => entry.afterKill).length).toBeGreaterThan(0);

    // Every acknowledged decision is stored as told; anything else decided was in doubt; whatever is still
    // pending is held by a lease whose claim got no answer.
    const rows = await db.read.item.findMany({ where: { batchId: 'kill' }, orderBy: { id: 'asc' } });
    const byRecord = new Map(rows.map((row) => [row.recordId, row]));
    for (const entry of acknowledged) {
      expect(byRecord.get(entry.recordId)).toMatchObject({ status: entry.status, reviewedBy: entry.reviewer, version: entry.version });
    }
    const told = new Set(acknowledged.map((entry) => entry.recordId));
    expect(told.size).toBe(acknowledged.length);
    for (const row of rows.filter((row) => row.status !== 'PENDING' && !told.has(row.recordId))) {
      expect(inDoubt.decisions.has(row.recordId), `${row.recordId} decided but neither acknowledged nor in doubt`).toBe(true);
    }
    const pending = rows.filter((row) => row.status === 'PENDING');
    expect(pending.length).toBeLessThanOrEqual(inDoubt.claims.length);
    for (const row of pending) {
      expect(row.leaseTokenHash).not.toBeNull();
      expect(inDoubt.claims).toContain(row.claimedBy);
    }
    const stored = await storedEvents(db, start);
    const ids = new Map(rows.map((row) => [row.id, row.recordId]));
    const decidedEvents = stored.filter((event) => event.type === 'ITEM_DECIDED').map((event) => ids.get(event.itemId as number));
    expect(new Set(decidedEvents).size).toBe(decidedEvents.length);
    expect(decidedEvents.length).toBe(rows.filter((row) => row.status !== 'PENDING').length);

    // The two others still serve, and their subscribers have the whole history, in order, kill or no kill.
    for (const server of [a, b]) expect((await fetch(`${server.url}/ready`)).status).toBe(200);
    await payload(b.url, as('classifier'), 'addItems', 'AddItemsPayload', ADD_ITEMS, { items: items('marker-kill', 1) });
    const end = await latestSequence(db);
    const history = (await storedEvents(db, start)).map((event) => event.id);
    for (const [index, { events: got }] of watchers.slice(0, 2).entries()) {
      await waitFor(
        () => sequences(got).at(-1) === end,
        10_000,
        () => `instance ${index} at ${sequences(got).at(-1)}, want ${end}`,
      );
      expect(sequences(got)).toEqual(history);
    }
    // The killed instance's subscriber lost its connection; resuming on a survivor fills in the rest exactly.
    const orphan = watchers[2] as { client: WsClient; events: Collected<QueueEvents> };
    await orphan.client.closed;
    const lastSeen = sequences(orphan.events).at(-1) ?? start;
    expect(sequences(orphan.events)).toEqual(history.filter((id) => id <= lastSeen));
    const resumed = await watch(a, lastSeen);
    await waitFor(() => sequences(resumed.events).at(-1) === end, 10_000);
    expect(sequences(resumed.events)).toEqual(history.filter((id) => id > lastSeen));
    for (const server of [a, b]) expect(errorLines(server.stdout)).toEqual([]);
  });
});

describe('three fake-clock processes on one PostgreSQL database, on one clock', () => {
  /** Round r claims 6 + 3r leases of 30 s (the shortest allowed), a third through each instance. */
  const ROUNDS = [0, 1, 2].map((round) => Array.from({ length: 6 + round * 3 }, (_, n) => `r${round}-${n}`));
  let database: TestDatabase;
  let db: Database;
  let instances: FakeClockServer[];
  const people = new Map<string, KeyHolder>();
  const as = (name: string) => people.get(name) as KeyHolder;
  const clients: WsClient[] = [];

  beforeAll(async () => {
    database = await testDatabase();
    expect(database.location.dialect).toBe('postgresql');
    const keys = await createKeys(database, [
      { name: 'admin', roles: ['ADMIN'] },
      { name: 'classifier', roles: ['PROPOSER'] },
      { name: 'watcher', roles: ['VIEWER'] },
      ...ROUNDS.flat().map((name) => ({ name, roles: ['REVIEWER' as const] })),
    ]);
    for (const key of keys) people.set(key.name, key);
    instances = await Promise.all([0, 1, 2].map(() => startFakeClockServer(database)));
    db = await openDatabase({ location: database.location });
    await payload(instances[0]?.url as string, as('admin'), 'addCategories', 'AddCategoriesPayload', ADD_CATEGORIES, { names: ['alpha'] });
  });
  afterAll(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await Promise.all((instances ?? []).map((instance) => instance.stop()));
    await db?.close();
    await database?.cleanup();
  });

  it('each lapsed lease is recorded once as LEASE_EXPIRED, and every instance announces each once, in the same order', async () => {
    const start = await latestSequence(db);
    const watchers = await Promise.all(
      instances.map(async (instance) => {
        const client = await connectWs(instance.url, as('watcher').headers);
        clients.push(client);
        return client.subscribe<QueueEvents>(QUEUE_EVENTS, { after: start });
      }),
    );
    const leases: { itemId: string; expiresAt: string }[] = [];

    for (const [round, reviewers] of ROUNDS.entries()) {
      const batchId = `lapse-${round}`;
      await payload(instances[round % 3]?.url as string, as('classifier'), 'addItems', 'AddItemsPayload', ADD_ITEMS, {
        items: items(batchId, reviewers.length),
      });
      const claims = await Promise.all(
        reviewers.map((reviewer, n) =>
          payload<ClaimPayload>((instances[n % 3] as FakeClockServer).url, as(reviewer), 'claimItem', 'ClaimItemPayload', CLAIM, {
            leaseSeconds: 30,
            batchId,
          }),
        ),
      );
      for (const claim of claims) {
        expect(claim.claimed).toBe(true);
        leases.push({ itemId: claim.item?.id as string, expiresAt: claim.lease?.expiresAt as string });
      }
      // Every instance has seen every claim, so each one's expiry announcer is armed for all of them.
      const claimedSoFar = await latestSequence(db);
      await waitFor(() => watchers.every((watcher) => sequences(watcher).at(-1) === claimedSoFar));

      if (round === 1) {
        // One instance's clock passes the expiry first and records it; the others get there later and find it done.
        await (instances[1] as FakeClockServer).advance(30_000);
        await Promise.all([instances[0]?.advance(30_000), instances[2]?.advance(30_000)]);
      } else {
        // All three at once: they race to record the same lapses.
        const moved = await Promise.all(instances.map((instance) => instance.advance(30_000)));
        expect(new Set(moved.map((message) => message.now)).size).toBe(1);
      }
    }

    // Exactly one LEASE_EXPIRED per lease in the history, at the lease's expiry.
    const stored = await storedEvents(db, start);
    const claimed = stored.filter((event) => event.type === 'LEASE_CLAIMED');
    const expired = stored.filter((event) => event.type === 'LEASE_EXPIRED');
    expect(claimed).toHaveLength(ROUNDS.flat().length);
    expect(expired.map((event) => `${event.itemId}#${event.leaseNumber}`).sort()).toEqual(
      claimed.map((event) => `${event.itemId}#${event.leaseNumber}`).sort(),
    );

    // Each instance's subscriber got the whole history, in order: so each expiry once, the same on all three.
    await payload(instances[2]?.url as string, as('classifier'), 'addItems', 'AddItemsPayload', ADD_ITEMS, {
      items: items('marker', 1),
    });
    const end = await latestSequence(db);
    const history = (await storedEvents(db, start)).map((event) => event.id);
    for (const [index, watcher] of watchers.entries()) {
      await waitFor(
        () => sequences(watcher).at(-1) === end,
        10_000,
        () => `instance ${index} at ${sequences(watcher).at(-1)}, want ${end}`,
      );
      expect(sequences(watcher)).toEqual(history);
      const pushed = events(watcher).filter((event) => event.type === 'LEASE_EXPIRED');
      expect(pushed.map((event) => event.sequence)).toEqual(expired.map((event) => event.id));
      for (const event of pushed) expect(event).toMatchObject({ actor: 'system', occurredAt: event.leaseExpiresAt });
      expect(pushed.map((event) => `${event.item?.id}@${event.leaseExpiresAt}`).sort()).toEqual(
        leases.map((lease) => `${lease.itemId}@${lease.expiresAt}`).sort(),
      );
    }
    for (const instance of instances) expect(errorLines(instance.stderr)).toEqual([]);
  });
});
