// Shared subscription execution over real graphql-ws clients (and SSE) against a real server on a
// ManualClock: subscribers with the same document, variables and roles share one execution per event
// and each still gets exactly what it would get alone; a revoked key ends only its own stream; and
// queueStats sends a burst, then at most one value per interval, always ending on the latest.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EventFeed } from '../../src/events/feed.js';
import { LATEST_VALUE_BURST, LATEST_VALUE_INTERVAL_MS } from '../../src/events/live.js';
import { eventStream } from '../../src/events/streams.js';
import { subscriptionWork } from '../../src/graphql/shared-subscriptions.js';
import { createLogger } from '../../src/logger.js';
import { addItems } from '../../src/services/items.js';
import { post } from '../support/process.js';
import { startTestServer, type TestClient, type TestServer } from '../support/server.js';
import { type Collected, connectWs, type WsClient, waitFor, writeUntilReceived } from '../support/ws.js';

const ADD_CATEGORIES = 'mutation ($names: [String!]!) { addCategories(input: { names: $names }) { __typename } }';
const ADD_ITEM = `mutation ($input: AddItemInput!) { addItem(input: $input) { __typename ... on UserError { code } } }`;
const CLAIM = `mutation ($batchId: String) {
  claimItem(input: { leaseSeconds: 60, batchId: $batchId }) { __typename ... on ClaimItemPayload { lease { token } } }
}`;
const DECIDE = `mutation ($token: String!) { decideItem(input: { token: $token, decision: ACCEPTED }) { __typename } }`;
const REVOKE = 'mutation ($id: Int!) { revokeApiKey(input: { id: $id }) { __typename } }';

/** The dashboard's kind of document: root arguments choose the stream, `$withItem` shapes every payload. */
const EVENTS = `subscription Events($after: Int, $filter: QueueEventFilter, $withItem: Boolean! = true) {
  queueEvents(after: $after, filter: $filter) {
    sequence type occurredAt actor details serverNow
    item @include(if: $withItem) { id batchId recordId status claimState claimedBy leaseNumber version }
  }
}`;
/** The same selection in a document no one else sends: its execution is its own, as a lone subscriber's. */
const EVENTS_ALONE = EVENTS.replace('subscription Events(', 'subscription Alone(');

interface EventPayload {
  sequence: number;
  type: string;
  item?: { batchId: string; recordId: string; status: string; claimState: string } | null;
  [field: string]: unknown;
}
type Events = { queueEvents: EventPayload };

const payloads = (collected: Collected<Events>) => collected.data.map((data) => data.queueEvents);

async function ask(server: TestServer, caller: TestClient, query: string, variables?: Record<string, unknown>) {
  const { status, body } = await post(server.url, query, variables, caller.headers);
  if (status !== 200 || body.errors || !body.data) throw new Error(`HTTP ${status}: ${JSON.stringify(body)}`);
  return body.data;
}

async function latestSequenceOf(server: TestServer): Promise<number> {
  const { _max } = await server.db.read.event.aggregate({ _max: { id: true } });
  return _max.id ?? 0;
}

const addItem = (server: TestServer, proposer: TestClient, batchId: string, recordId: string) =>
  ask(server, proposer, ADD_ITEM, { input: { batchId, recordId, proposedCategory: 'alpha', reason: `check ${recordId}` } });

describe('shared subscription execution', () => {
  let server: TestServer;
  let admin: TestClient;
  let proposer: TestClient;
  let reviewer: TestClient;
  let viewer: TestClient;
  let otherViewer: TestClient;
  let soonRevoked: TestClient;
  const sockets: WsClient[] = [];
  const connect = async (caller: TestClient) => {
    const ws = await connectWs(server.url, caller.headers);
    sockets.push(ws);
    return ws;
  };

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.as('admin', ['ADMIN']);
    proposer = await server.as('proposer', ['PROPOSER']);
    reviewer = await server.as('rita', ['REVIEWER']);
    viewer = await server.as('watcher', ['VIEWER']);
    otherViewer = await server.as('second-watcher', ['VIEWER']);
    soonRevoked = await server.as('soon-revoked', ['VIEWER']);
    await ask(server, admin, ADD_CATEGORIES, { names: ['alpha'] });
  });
  // Subscriptions left open would be executed for the next test's events too.
  afterEach(async () => {
    for (const ws of sockets.splice(0)) await ws.close().catch(() => undefined);
  });
  afterAll(() => server.stop());

  it('runs one execution per event for every subscriber with the same document, variables and roles, and each gets what it would alone', async () => {
    const start = await latestSequenceOf(server);
    const watcher = await connect(viewer);
    const second = await connect(otherViewer);
    const administrator = await connect(admin);
    const subscribers = {
      // Same document, variables and roles, different principals and connections: one execution.
      first: watcher.subscribe<Events>(EVENTS),
      second: second.subscribe<Events>(EVENTS),
      // Root arguments only choose the stream: still the same execution.
      batchX: watcher.subscribe<Events>(EVENTS, { filter: { batchId: 'x' } }),
      resumed: second.subscribe<Events>(EVENTS, { after: start }),
      // A variable given as its default is the same variable.
      explicit: watcher.subscribe<Events>(EVENTS, { withItem: true }),
      // Another role, another variable the payload depends on, another document: executions of their own.
      admin: administrator.subscribe<Events>(EVENTS),
      withoutItem: watcher.subscribe<Events>(EVENTS, { withItem: false }),
      alone: second.subscribe<Events>(EVENTS_ALONE),
    };
    const all = Object.values(subscribers);
    // Changes until every subscription is live, and every one has had all of them.
    await writeUntilReceived(
      () => all.every((collected) => collected.data.length > 0),
      (n) => addItem(server, proposer, 'x', `W-${n}`),
    );
    const mark = await latestSequenceOf(server);
    await waitFor(() => all.every((collected) => payloads(collected).at(-1)?.sequence === mark));

    const before = { ...subscriptionWork };
    await addItem(server, proposer, 'x', 'X-1');
    await addItem(server, proposer, 'y', 'Y-1');
    const lease = (await ask(server, reviewer, CLAIM, { batchId: 'x' })).claimItem as { lease: { token: string } };
    // The feed reads each page's items once, as they stand when it reads: a decision committed before the
    // feed has read the claim would show in the claim's item too. So the claim reaches everyone first.
    const claimed = await latestSequenceOf(server);
    await waitFor(() => all.every((collected) => (payloads(collected).at(-1)?.sequence ?? 0) >= claimed));
    await ask(server, reviewer, DECIDE, { token: lease.lease.token });
    await addItem(server, proposer, 'x', 'X-2');
    const end = await latestSequenceOf(server);
    const events = end - mark;
    expect(events).toBe(5);
    await waitFor(
      () => all.every((collected) => payloads(collected).at(-1)?.sequence === end),
      5_000,
      () => JSON.stringify(Object.entries(subscribers).map(([name, collected]) => [name, payloads(collected).at(-1)?.sequence])),
    );
    const since = (collected: Collected<Events>) => payloads(collected).filter((event) => event.sequence > mark);

    // The lone execution is the reference: the shared ones give exactly the same payloads.
    const reference = since(subscribers.alone);
    expect(reference.map((event) => event.sequence)).toEqual(Array.from({ length: events }, (_, index) => mark + 1 + index));
    expect(reference.map((event) => [event.type, event.item?.recordId, event.item?.status, event.item?.claimState])).toEqual([
      ['ITEM_ADDED', 'X-1', 'PENDING', 'UNCLAIMED'],
      ['ITEM_ADDED', 'Y-1', 'PENDING', 'UNCLAIMED'],
      ['LEASE_CLAIMED', 'W-0', 'PENDING', 'ACTIVE'],
      ['ITEM_DECIDED', 'W-0', 'ACCEPTED', 'NOT_APPLICABLE'],
      ['ITEM_ADDED', 'X-2', 'PENDING', 'UNCLAIMED'],
    ]);
    for (const name of ['first', 'second', 'resumed', 'explicit', 'admin'] as const) expect(since(subscribers[name])).toEqual(reference);
    expect(since(subscribers.batchX)).toEqual(reference.filter((event) => event.item?.batchId === 'x'));
    expect(since(subscribers.withoutItem)).toEqual(reference.map(({ item: _item, ...event }) => event));
    expect(payloads(subscribers.withoutItem).every((event) => !('item' in event))).toBe(true);
    // The resumed one also replayed what came before it subscribed, with no gap.
    expect(payloads(subscribers.resumed).map((event) => event.sequence)).toEqual(
      Array.from({ length: end - start }, (_, index) => start + 1 + index),
    );

    // Four executions per event (the viewers' shared one, the ADMIN's, the one without items, the lone
    // document's) for 7 × 5 + 4 deliveries; executed per subscriber, both would be 39.
    expect(subscriptionWork.deliveries - before.deliveries).toBe(7 * events + 4);
    expect(subscriptionWork.executions - before.executions).toBe(4 * events);
    for (const collected of all) expect(collected.error).toBeNull();
    // The same counts for operators, at /metrics.
    const scraped = await (await fetch(`${server.url}/metrics`, { headers: viewer.headers })).text();
    expect(scraped).toContain(`\nleasehold_subscription_executions_total ${subscriptionWork.executions}\n`);
    expect(scraped).toContain(`\nleasehold_subscription_deliveries_total ${subscriptionWork.deliveries}\n`);
  });

  it('a subscriber whose key is revoked loses its stream; the others sharing its execution keep theirs', async () => {
    const revoked = await connect(soonRevoked);
    const staying = await connect(otherViewer);
    const lost = revoked.subscribe<Events>(EVENTS);
    const kept = staying.subscribe<Events>(EVENTS);
    await writeUntilReceived(
      () => lost.data.length > 0 && kept.data.length > 0,
      (n) => addItem(server, proposer, 'warm', `V-${n}`),
    );
    const mark = await latestSequenceOf(server);
    await waitFor(() => payloads(lost).at(-1)?.sequence === mark && payloads(kept).at(-1)?.sequence === mark);
    const since = (collected: Collected<Events>) => payloads(collected).filter((event) => event.sequence > mark);
    const before = { ...subscriptionWork };

    await addItem(server, proposer, 'r', 'R-1');
    await waitFor(() => since(lost).length === 1 && since(kept).length === 1);
    expect(since(lost)).toEqual(since(kept));
    expect(subscriptionWork.executions - before.executions).toBe(1);

    const key = await server.db.read.apiKey.findFirstOrThrow({ where: { name: 'soon-revoked' } });
    await ask(server, admin, REVOKE, { id: key.id });
    await revoked.closed;
    expect(revoked.closeEvent).toMatchObject({ code: 4403 });

    await addItem(server, proposer, 'r', 'R-2');
    await addItem(server, proposer, 'r', 'R-3');
    const end = await latestSequenceOf(server);
    await waitFor(() => payloads(kept).at(-1)?.sequence === end);
    expect(since(kept).map((event) => event.type)).toEqual(['ITEM_ADDED', 'API_KEY_REVOKED', 'ITEM_ADDED', 'ITEM_ADDED']);
    expect(since(kept).map((event) => event.item?.recordId)).toEqual(['R-1', undefined, 'R-2', 'R-3']);
    expect(since(lost).map((event) => event.item?.recordId)).toEqual(['R-1']);
    expect(kept.error).toBeNull();
  });

  it('a server-sent-events subscriber shares the execution of the WebSocket ones and reads the same payload', async () => {
    const ws = await connect(viewer);
    const overWs = ws.subscribe<Events>(EVENTS);
    const start = await latestSequenceOf(server);
    const abort = new AbortController();
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...otherViewer.headers },
      body: JSON.stringify({ query: EVENTS, variables: { after: start } }),
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const overSse: EventPayload[] = [];
    let buffered = '';
    const readNext = async () => {
      const count = overSse.length;
      while (overSse.length === count) {
        const { value, done } = await reader.read();
        if (done) throw new Error('event stream ended early');
        buffered += decoder.decode(value, { stream: true });
        const messages = buffered.split('\n\n');
        buffered = messages.pop() ?? '';
        for (const message of messages) {
          const data = message
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice('data:'.length).trim())
            .join('');
          if (message.includes('event: next') && data) overSse.push((JSON.parse(data) as { data: Events }).data.queueEvents);
        }
      }
    };
    // The first change may reach the SSE stream from the replay (`after`); by the second it is live.
    await addItem(server, proposer, 's', 'S-1');
    await readNext();
    await waitFor(() => payloads(overWs).at(-1)?.item?.recordId === 'S-1');
    const before = { ...subscriptionWork };
    await addItem(server, proposer, 's', 'S-2');
    await readNext();
    abort.abort();
    await waitFor(() => payloads(overWs).at(-1)?.item?.recordId === 'S-2');
    expect(overSse.map((event) => event.item?.recordId)).toEqual(['S-1', 'S-2']);
    expect(overSse.at(-1)).toEqual(payloads(overWs).at(-1));
    expect(subscriptionWork.executions - before.executions).toBe(1);
  });
});

describe('queueStats rate', () => {
  let server: TestServer;
  let proposer: TestClient;
  let ws: WsClient;
  beforeAll(async () => {
    server = await startTestServer();
    const admin = await server.as('admin', ['ADMIN']);
    proposer = await server.as('proposer', ['PROPOSER']);
    const viewer = await server.as('watcher', ['VIEWER']);
    await ask(server, admin, ADD_CATEGORIES, { names: ['alpha'] });
    ws = await connectWs(server.url, viewer.headers);
  });
  afterAll(async () => {
    await ws.close();
    await server.stop();
  });

  it(`sends ${LATEST_VALUE_BURST} values in a row, then at most one per ${LATEST_VALUE_INTERVAL_MS} ms by the clock, always ending on the latest`, async () => {
    const stats = ws.subscribe<{ queueStats: { pending: number; sequence: number } }>('subscription { queueStats { pending sequence } }');
    const sent = () => stats.data.map((data) => data.queueStats.sequence);
    await waitFor(() => sent().length === 1);
    let added = 0;
    /** One change, delivered by the feed on its own (a batch of its own). */
    const change = async () => {
      await addItem(server, proposer, 'bulk', `B-${++added}`);
      await server.settle();
    };

    // The burst: each change shows at once while the clock stands still.
    for (let value = 2; value <= LATEST_VALUE_BURST; value++) {
      await change();
      const latest = await latestSequenceOf(server);
      await waitFor(() => sent().at(-1) === latest);
    }
    const burst = sent();
    expect(burst).toHaveLength(LATEST_VALUE_BURST);

    // Spent: ten more changes, and nothing until the clock reaches the next interval; then only the latest.
    for (let n = 0; n < 10; n++) await change();
    const latest = await latestSequenceOf(server);
    await ws.execute('{ serverTime }');
    expect(sent()).toEqual(burst);
    server.clock.advance(LATEST_VALUE_INTERVAL_MS);
    await waitFor(() => sent().at(-1) === latest);
    expect(sent()).toEqual([...burst, latest]);
    expect(stats.data.at(-1)?.queueStats.pending).toBe(added);

    // Nothing owed, nothing sent; a quiet interval later a change shows at once again.
    server.clock.advance(LATEST_VALUE_INTERVAL_MS);
    await change();
    const afterQuiet = await latestSequenceOf(server);
    await waitFor(() => sent().at(-1) === afterQuiet);
    expect(sent()).toEqual([...burst, latest, afterQuiet]);
    expect(stats.error).toBeNull();
  });
});

describe('replaying a long history', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    await ask(server, await server.as('admin', ['ADMIN']), ADD_CATEGORIES, { names: ['alpha'] });
  });
  afterAll(() => server.stop());

  it('reads pages of 500 and gives the event loop a turn between them', async () => {
    const start = await latestSequenceOf(server);
    const proposer = { name: 'bulk-proposer', authenticated: true };
    for (let page = 0; page < 3; page++) {
      const items = Array.from({ length: 400 }, (_, index) => ({
        batchId: 'replay',
        recordId: `P${page}-${index}`,
        proposedCategory: 'alpha',
        reason: 'replayed',
      }));
      await addItems({ db: server.db, clock: server.clock }, proposer, items);
    }
    const tail = await server.db.openTail();
    const feed = new EventFeed(tail, createLogger('silent'));
    await feed.start();
    try {
      const stream = await eventStream(feed, tail, { after: start, filter: () => true });
      // Counts turns of the event loop while the replay runs (SQLite's reads never wait, so nothing else would give one).
      let turns = 0;
      let counting = true;
      const count = () => {
        turns++;
        if (counting) setImmediate(count);
      };
      setImmediate(count);
      const turnOf: number[] = [];
      const ids: number[] = [];
      for (let n = 0; n < 1_200; n++) {
        ids.push(((await stream.next()).value as { id: number }).id);
        turnOf.push(turns);
      }
      counting = false;
      await stream.return?.();
      expect(ids).toEqual(Array.from({ length: 1_200 }, (_, index) => start + 1 + index));
      // Pages are the 500 events after a multiple of 500 (shared by the streams replaying them): a turn
      // before each page after the first, at least two of them in 1,200 events.
      const pageEnds = ids.flatMap((id, index) => (id % 500 === 0 && index + 1 < ids.length ? [index] : []));
      expect(pageEnds.length).toBeGreaterThanOrEqual(2);
      for (const index of pageEnds) expect(turnOf[index + 1]).toBeGreaterThan(turnOf[index] as number);
    } finally {
      await feed.stop();
      await tail.close();
    }
  });
});
