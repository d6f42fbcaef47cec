// The live queue across processes on one database (a SQLite file, or one PostgreSQL database): changes
// made by another process reach WebSocket subscribers, and a lapsed lease is recorded (and pushed) exactly
// once while two servers race to record it. Callers use API keys made in the database (any process's key
// works on every server on it).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { type TestDatabase, testDatabase } from '../support/database.js';
import {
  CLOCK_START,
  createKeys,
  databaseUrlOf,
  type FakeClockServer,
  type KeyHolder,
  post,
  ROOT,
  startFakeClockServer,
  TSX_LOADER,
} from '../support/process.js';
import { type Collected, connectWs, type WsClient, waitFor, writeUntilReceived } from '../support/ws.js';

function childEnv(extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...extra };
}

/** Collects a child's output as complete lines. */
function lines(stream: NodeJS.ReadableStream | null, sink: string[]) {
  let partial = '';
  stream?.on('data', (chunk: Buffer) => {
    partial += chunk.toString('utf8');
    const complete = partial.split('\n');
    partial = complete.pop() ?? '';
    for (const line of complete) if (line.length > 0) sink.push(line);
  });
}

/** Runs the services directly in a short-lived process of its own (as the command line would), and returns what it printed. */
async function runWriterProcess(database: TestDatabase, script: string): Promise<Record<string, unknown>> {
  const src = (module: string) => pathToFileURL(path.join(ROOT, 'src', module)).href;
  const program = `
    const { openDatabase } = await import(${JSON.stringify(src('db/client.ts'))});
    const { loadConfig } = await import(${JSON.stringify(src('config.ts'))});
    const { ManualClock } = await import(${JSON.stringify(src('domain/clock.ts'))});
    const items = await import(${JSON.stringify(src('services/items.ts'))});
    const leases = await import(${JSON.stringify(src('services/leases.ts'))});
    const { database } = loadConfig({ DATABASE_URL: process.env.DATABASE_URL });
    const db = await openDatabase({ location: database, synchronous: 'NORMAL' });
    const deps = { db, clock: new ManualClock(Number(process.env.CLOCK_START)) };
    const result = await (async () => { ${script} })();
    await db.close();
    process.stdout.write(JSON.stringify(result) + '\\n');
  `;
  const child = spawn(process.execPath, ['--import', TSX_LOADER, '--input-type=module', '-e', program], {
    cwd: ROOT,
    env: childEnv({ DATABASE_URL: databaseUrlOf(database), CLOCK_START: String(CLOCK_START) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  lines(child.stdout, stdout);
  lines(child.stderr, stderr);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`writer process failed (${code}): ${stderr.join('\n')}`);
  return JSON.parse(stdout.at(-1) as string) as Record<string, unknown>;
}

async function ask(url: string, caller: KeyHolder, query: string, variables?: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { status, body } = await post(url, query, variables, caller.headers);
  if (status !== 200 || body.errors || !body.data) throw new Error(`${url} answered ${status}: ${JSON.stringify(body)}`);
  return body.data;
}

const ADD_ITEMS = `mutation ($items: [AddItemInput!]!) {
  addItems(input: { items: $items }) { __typename ... on AddItemsPayload { addedCount } }
}`;
const CLAIM = `mutation ($leaseSeconds: Int, $batchId: String) {
  claimItem(input: { leaseSeconds: $leaseSeconds, batchId: $batchId }) {
    __typename ... on ClaimItemPayload { item { id recordId } lease { token expiresAt } } ... on UserError { code }
  }
}`;
const QUEUE_EVENTS = `subscription ($after: Int) {
  queueEvents(after: $after) { sequence type actor occurredAt serverNow leaseExpiresAt leaseNumber details item { id batchId recordId claimState claimedBy leaseNumber } }
}`;

interface EventPayload {
  sequence: number;
  type: string;
  actor: string;
  occurredAt: string;
  serverNow: string;
  leaseExpiresAt: string | null;
  leaseNumber: number | null;
  details: Record<string, unknown>;
  item: { id: string; batchId: string; recordId: string; claimState: string; claimedBy: string | null; leaseNumber: number } | null;
}

const events = (collected: Collected<{ queueEvents: EventPayload }>) => collected.data.map((data) => data.queueEvents);
const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index);

/** The stored history, read through a connection of the test's own (committed data only, on either backend). */
function readEvents(db: Database): Promise<{ id: number; type: string; itemId: number | null; leaseNumber: number | null }[]> {
  return db.read.event.findMany({ select: { id: true, type: true, itemId: true, leaseNumber: true }, orderBy: { id: 'asc' } });
}

const latestSequence = async (db: Database) => (await readEvents(db)).at(-1)?.id ?? 0;

/** The reviewers of the expiry race: round r claims 4 + 2r leases, one per reviewer. */
const ROUNDS = [0, 1, 2].map((round) => Array.from({ length: 4 + round * 2 }, (_, n) => `r${round}-${n}`));

describe('two fake-clock server processes on one database', () => {
  let database: TestDatabase;
  /** The test's own reading connection to the database. */
  let db: Database;
  let a: FakeClockServer;
  let b: FakeClockServer;
  /** Every principal the tests use, made before any test takes its starting sequence (a new key is an event). */
  const people = new Map<string, KeyHolder>();
  const as = (name: string) => people.get(name) as KeyHolder;
  const clients: WsClient[] = [];
  const open = async (server: FakeClockServer, who: KeyHolder = as('watcher')) => {
    const client = await connectWs(server.url, who.headers);
    clients.push(client);
    return client;
  };
  /** Both clocks move together, the way one wall clock would. */
  const advanceBoth = (ms: number) => Promise.all([a.advance(ms), b.advance(ms)]);

  beforeAll(async () => {
    database = await testDatabase();
    [a, b] = await Promise.all([startFakeClockServer(database), startFakeClockServer(database)]);
    db = await openDatabase({ location: database.location });
    const keys = await createKeys(database, [
      { name: 'admin', roles: ['ADMIN'] },
      { name: 'classifier', roles: ['PROPOSER'] },
      { name: 'watcher', roles: ['VIEWER'] },
      // bob claims through server B; kim's lease is made by a script and then used over HTTP.
      ...['bob', 'kim', ...ROUNDS.flat()].map((name) => ({ name, roles: ['REVIEWER' as const] })),
    ]);
    for (const key of keys) people.set(key.name, key);
    await ask(a.url, as('admin'), 'mutation { addCategories(input: { names: ["alpha"] }) { __typename } }');
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.close();
    await database?.cleanup();
  });

  it("changes made by another process reach the first server's subscribers", async () => {
    const start = await latestSequence(db);
    const watcher = await open(a);
    const onA = watcher.subscribe<{ queueEvents: EventPayload }>(QUEUE_EVENTS, { after: start });

    // A second server process…
    await ask(b.url, as('classifier'), ADD_ITEMS, {
      items: [{ batchId: 'xp', recordId: 'B-1', proposedCategory: 'alpha', reason: 'added through B' }],
    });
    const fromB = await ask(b.url, as('bob'), CLAIM, { leaseSeconds: 300, batchId: 'xp' });
    const bLease = (fromB.claimItem as { lease: { expiresAt: string } }).lease;
    await waitFor(
      () => onA.data.length === 2,
      5_000,
      () => JSON.stringify(events(onA)),
    );
    // Both changes may reach A in one poll; the item is then shown as it stands after both (as documented).
    expect(events(onA)).toEqual([
      expect.objectContaining({
        sequence: start + 1,
        type: 'ITEM_ADDED',
        item: expect.objectContaining({ recordId: 'B-1' }),
      }),
      expect.objectContaining({
        sequence: start + 2,
        type: 'LEASE_CLAIMED',
        actor: 'bob',
        leaseExpiresAt: bLease.expiresAt,
        serverNow: new Date(CLOCK_START).toISOString(),
        item: expect.objectContaining({ recordId: 'B-1', claimState: 'ACTIVE', claimedBy: 'bob', leaseNumber: 1 }),
      }),
    ]);

    // …and a process that is no server at all, writing through the services (as the command line does).
    const written = await runWriterProcess(
      database,
      `await items.addItem(deps, { name: 'cli', authenticated: false }, { batchId: 'cli', recordId: 'K-1', proposedCategory: 'alpha', reason: 'from a script' });
       const claim = await leases.claimItem(deps, { name: 'kim', authenticated: false }, { leaseSeconds: 600, batchId: 'cli' });
       return { token: claim.token };`,
    );
    await waitFor(
      () => onA.data.length === 4,
      5_000,
      () => JSON.stringify(events(onA)),
    );
    expect(events(onA).slice(2)).toEqual([
      expect.objectContaining({
        sequence: start + 3,
        type: 'ITEM_ADDED',
        actor: 'cli',
        item: expect.objectContaining({ recordId: 'K-1' }),
      }),
      expect.objectContaining({
        sequence: start + 4,
        type: 'LEASE_CLAIMED',
        actor: 'kim',
        item: expect.objectContaining({ recordId: 'K-1', claimState: 'ACTIVE', claimedBy: 'kim' }),
      }),
    ]);

    // The script's lease holder, kim, follows its lease on server A while renewing and deciding it through server B.
    const token = written.token as string;
    const holder = await open(a, as('kim'));
    const notices = holder.subscribe<{ leaseEvents: { kind: string; expiresAt: string | null; event: { sequence: number } | null } }>(
      'subscription ($token: String!) { leaseEvents(token: $token) { kind expiresAt event { sequence } } }',
      { token },
    );
    const RENEW = 'mutation ($token: String!) { renewLease(input: { token: $token, leaseSeconds: 900 }) { __typename } }';
    // When A starts listening is not observable from here: renew until the first notice arrives.
    await writeUntilReceived(
      () => notices.data.length > 0,
      () => ask(b.url, as('kim'), RENEW, { token }),
    );
    // Anyone else holding the token gets nowhere, on either server.
    const stolen = await ask(
      a.url,
      as('bob'),
      'mutation ($token: String!) { renewLease(input: { token: $token }) { __typename ... on UserError { code } } }',
      {
        token,
      },
    );
    expect(stolen.renewLease).toEqual({ __typename: 'UserError', code: 'NOT_LEASE_HOLDER' });
    await ask(b.url, as('kim'), 'mutation ($token: String!) { decideItem(input: { token: $token, decision: ACCEPTED }) { __typename } }', {
      token,
    });
    await waitFor(
      () => notices.completed,
      5_000,
      () => JSON.stringify(notices.data),
    );
    const kinds = notices.data.map((data) => data.leaseEvents.kind);
    expect(kinds.at(-1)).toBe('DECIDED');
    expect(kinds.slice(0, -1).every((kind) => kind === 'RENEWED')).toBe(true);
    expect(notices.data[0]?.leaseEvents.expiresAt).toBe(new Date(CLOCK_START + 900_000).toISOString());
    // Every notice is a distinct recorded event, in order.
    const noticeSequences = notices.data.map((data) => data.leaseEvents.event?.sequence as number);
    expect([...noticeSequences].sort((x, y) => x - y)).toEqual(noticeSequences);
    expect(new Set(noticeSequences).size).toBe(noticeSequences.length);
  });

  it('a lapsed lease is recorded once as LEASE_EXPIRED and pushed once by each server, though both clocks pass it together', async () => {
    const watchA = await open(a);
    const watchB = await open(b);
    const start = await latestSequence(db);
    const onA = watchA.subscribe<{ queueEvents: EventPayload }>(QUEUE_EVENTS, { after: start });
    const onB = watchB.subscribe<{ queueEvents: EventPayload }>(QUEUE_EVENTS, { after: start });
    const claimedItems = new Set<string>();

    for (let round = 0; round < 3; round++) {
      const batchId = `exp-${round}`;
      const count = 4 + round * 2;
      await ask(a.url, as('classifier'), ADD_ITEMS, {
        items: Array.from({ length: count }, (_, n) => ({ batchId, recordId: `X-${n}`, proposedCategory: 'alpha', reason: 'lapses' })),
      });
      // Half the leases through each server; 30 s, the shortest allowed; one reviewer each.
      const claims = await Promise.all(
        (ROUNDS[round] as string[]).map((reviewer, n) =>
          ask((n % 2 === 0 ? a : b).url, as(reviewer), CLAIM, { leaseSeconds: 30, batchId }),
        ),
      );
      for (const claimed of claims) claimedItems.add((claimed.claimItem as { item: { id: string } }).item.id);
      // Both servers have seen every claim, so both expiry announcers are armed for them.
      const claimedSoFar = await latestSequence(db);
      await waitFor(() => events(onA).at(-1)?.sequence === claimedSoFar && events(onB).at(-1)?.sequence === claimedSoFar);

      const [movedA, movedB] = await advanceBoth(30_000);
      expect(movedA.now).toBe(movedB.now);
    }

    // Exactly one LEASE_EXPIRED per lease in the history.
    const stored = (await readEvents(db)).filter((event) => event.id > start);
    const expired = stored.filter((event) => event.type === 'LEASE_EXPIRED');
    const claimed = stored.filter((event) => event.type === 'LEASE_CLAIMED');
    expect(claimed).toHaveLength(4 + 6 + 8);
    expect(expired.map((event) => `${event.itemId}#${event.leaseNumber}`).sort()).toEqual(
      claimed.map((event) => `${event.itemId}#${event.leaseNumber}`).sort(),
    );

    // Each server's subscriber got each of them once, in order, with nothing else missing: a later
    // change is the marker that everything before it has been delivered.
    await ask(b.url, as('classifier'), ADD_ITEMS, {
      items: [{ batchId: 'marker', recordId: 'M', proposedCategory: 'alpha', reason: 'marker' }],
    });
    const end = await latestSequence(db);
    for (const [name, sub] of [
      ['A', onA],
      ['B', onB],
    ] as const) {
      await waitFor(
        () => events(sub).at(-1)?.sequence === end,
        5_000,
        () => `${name} at ${events(sub).at(-1)?.sequence}, want ${end}`,
      );
      expect(events(sub).map((event) => event.sequence)).toEqual(range(start + 1, end));
      const pushed = events(sub).filter((event) => event.type === 'LEASE_EXPIRED');
      expect(pushed.map((event) => event.sequence)).toEqual(expired.map((event) => event.id));
      expect(new Set(pushed.map((event) => event.item?.id)).size).toBe(claimedItems.size);
      // (Not the item's claimState: it is reckoned by the delivering server's clock, which may not have moved yet.)
      for (const event of pushed) expect(event).toMatchObject({ actor: 'system', occurredAt: event.leaseExpiresAt });
    }

    // Neither server logged an error while racing.
    for (const server of [a, b]) {
      const errors = server.stderr.filter((line) => ((JSON.parse(line) as { level?: number }).level ?? 0) >= 50);
      expect(errors).toEqual([]);
    }
  });
});
