// Direct delivery over real graphql-ws clients against a real server: live events written from the feed
// listener straight to each socket arrive exactly once and in order for many subscribers under concurrent
// writers; an unsubscribed stream gets nothing more; a replay with `after` hands over to the direct path
// without gap or duplicate; and a socket that stops reading is cut off with SUBSCRIBER_TOO_SLOW and resumes.
import type { GraphQLFormattedError } from 'graphql';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { streamLimits } from '../../src/events/streams.js';
import { directDelivery } from '../../src/graphql/direct-delivery.js';
import { subscriptionWork } from '../../src/graphql/shared-subscriptions.js';
import { post } from '../support/process.js';
import { startTestServer, type TestClient, type TestServer } from '../support/server.js';
import { type Collected, connectWs, errorCodes, type WsClient, waitFor } from '../support/ws.js';

const ADD_CATEGORIES = 'mutation ($names: [String!]!) { addCategories(input: { names: $names }) { __typename } }';
const ADD_ITEM = `mutation ($input: AddItemInput!) { addItem(input: $input) { __typename ... on UserError { code } } }`;
const ADD_ITEMS = `mutation ($items: [AddItemInput!]!) {
  addItems(input: { items: $items }) { __typename ... on AddItemsPayload { addedCount } ... on UserError { code } }
}`;
/** The dashboard's document. */
const DASHBOARD = `subscription ($after: Int) {
  queueEvents(after: $after) { sequence occurredAt item { id recordId status claimState } }
}`;

type Events = { queueEvents: { sequence: number; item: { id: string; recordId: string } | null } };

const sequences = (collected: Collected<Events>) => collected.data.map((data) => data.queueEvents.sequence);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

async function ask(server: TestServer, caller: TestClient, query: string, variables?: Record<string, unknown>) {
  const { status, body } = await post(server.url, query, variables, caller.headers);
  if (status !== 200 || body.errors || !body.data) throw new Error(`HTTP ${status}: ${JSON.stringify(body)}`);
  return body.data;
}

async function latestSequenceOf(server: TestServer): Promise<number> {
  const { _max } = await server.db.read.event.aggregate({ _max: { id: true } });
  return _max.id ?? 0;
}

describe('direct delivery of live events to WebSocket subscribers', () => {
  let server: TestServer;
  let viewer: TestClient;
  const proposers: TestClient[] = [];
  const sockets: WsClient[] = [];
  const connect = async () => {
    const ws = await connectWs(server.url, viewer.headers);
    sockets.push(ws);
    return ws;
  };
  const addItem = (proposer: TestClient, batchId: string, recordId: string) =>
    ask(server, proposer, ADD_ITEM, { input: { batchId, recordId, proposedCategory: 'alpha', reason: `check ${recordId}` } });
  const addItems = (proposer: TestClient, batchId: string, count: number, reason = 'bulk') =>
    ask(server, proposer, ADD_ITEMS, {
      items: Array.from({ length: count }, (_, index) => ({ batchId, recordId: `${batchId}-${index}`, proposedCategory: 'alpha', reason })),
    });
  /** Writes one event and waits until every subscription has it: from then on they are live. */
  const allLive = async (subscriptions: Collected<Events>[], batchId: string) => {
    await addItem(proposers[0] as TestClient, batchId, 'marker');
    const marker = await latestSequenceOf(server);
    await waitFor(
      () => subscriptions.every((subscription) => sequences(subscription).includes(marker)),
      10_000,
      () => 'a subscription has not received the marker',
    );
    return marker;
  };

  // On by default; LIVE_DIRECT_DELIVERY=0 turns it off, and these tests are about the path itself.
  const enabled = directDelivery.enabled;
  beforeAll(async () => {
    directDelivery.enabled = true;
    server = await startTestServer();
    viewer = await server.as('watcher', ['VIEWER']);
    for (const name of ['p-one', 'p-two', 'p-three', 'p-four']) proposers.push(await server.as(name, ['PROPOSER']));
    await ask(server, await server.as('admin', ['ADMIN']), ADD_CATEGORIES, { names: ['alpha'] });
  });
  const bound = directDelivery.maxUnwrittenBytes;
  const buffered = streamLimits.maxBuffered;
  afterEach(async () => {
    directDelivery.maxUnwrittenBytes = bound;
    streamLimits.maxBuffered = buffered;
    for (const ws of sockets.splice(0)) await ws.close().catch(() => undefined);
  });
  afterAll(async () => {
    directDelivery.enabled = enabled;
    await server.stop();
  });

  it('many subscribers under concurrent writers each get every live event exactly once, in order, all written directly', async () => {
    const start = await latestSequenceOf(server);
    // 4 connections with 10 subscriptions each: frames of several subscriptions interleave on one socket.
    const connections = await Promise.all(Array.from({ length: 4 }, () => connect()));
    const subscriptions = connections.flatMap((ws) => Array.from({ length: 10 }, () => ws.subscribe<Events>(DASHBOARD, { after: start })));
    const marker = await allLive(subscriptions, 'many-marker');

    const before = { ...subscriptionWork };
    // Four writers at once, 25 changes each, one commit per change.
    await Promise.all(
      proposers.map(async (proposer, writer) => {
        for (let n = 0; n < 25; n++) await addItem(proposer, 'many', `w${writer}-${n}`);
      }),
    );
    const end = marker + 100;
    await waitFor(
      () => subscriptions.every((subscription) => sequences(subscription).at(-1) === end),
      15_000,
      () => `received ${subscriptions.map((subscription) => subscription.data.length).join(',')}`,
    );
    for (const subscription of subscriptions) {
      expect(sequences(subscription)).toEqual(range(start + 1, end));
      expect(subscription.results.every((result) => result.errors === undefined)).toBe(true);
    }
    // Every one of the 40 × 100 live deliveries took the direct path, from one execution per event.
    expect(subscriptionWork.deliveries - before.deliveries).toBe(40 * 100);
    expect(subscriptionWork.direct - before.direct).toBe(40 * 100);
    expect(subscriptionWork.executions - before.executions).toBe(100);
    // The payload is what graphql-ws would have sent: the item as it stood, with its global id.
    const item = subscriptions[0]?.data.at(-1)?.queueEvents.item;
    expect(Buffer.from(item?.id ?? '', 'base64').toString('utf8')).toMatch(/^Item:\d+$/);
    expect(item?.recordId).toMatch(/^w\d-24$/);
  });

  it('a client that unsubscribes mid-stream gets nothing more, while its neighbour on the same socket goes on', async () => {
    const ws = await connect();
    const start = await latestSequenceOf(server);
    const leaving = ws.subscribe<Events>(DASHBOARD, { after: start });
    const staying = ws.subscribe<Events>(DASHBOARD, { after: start });
    // Every `next` frame the socket receives, by subscription id.
    const frames: { id: string; sequence: number }[] = [];
    ws.socket.on('message', (raw) => {
      const message = JSON.parse(String(raw)) as { id?: string; type: string; payload?: { data?: Events } };
      if (message.type === 'next' && message.id && message.payload?.data)
        frames.push({ id: message.id, sequence: message.payload.data.queueEvents.sequence });
    });
    await allLive([leaving, staying], 'leave-marker');
    for (let n = 0; n < 10; n++) await addItem(proposers[1] as TestClient, 'leave', `before-${n}`);
    await waitFor(() => leaving.data.length === staying.data.length && sequences(leaving).at(-1) === start + 11);
    const leavingIds = new Set(frames.filter((frame) => frame.sequence === start + 11).map((frame) => frame.id));
    expect(leavingIds.size).toBe(2);

    leaving.unsubscribe();
    await leaving.ended;
    const before = { ...subscriptionWork };
    for (let n = 0; n < 10; n++) await addItem(proposers[1] as TestClient, 'leave', `after-${n}`);
    await waitFor(() => sequences(staying).at(-1) === start + 21);

    expect(sequences(leaving)).toEqual(range(start + 1, start + 11));
    expect(sequences(staying)).toEqual(range(start + 1, start + 21));
    // The 10 later events went to one subscription only: no frame for the one that left reached the socket.
    expect(subscriptionWork.direct - before.direct).toBe(10);
    const perId = [...leavingIds].map((id) => frames.filter((frame) => frame.id === id).length).sort();
    expect(perId).toEqual([11, 21]);
  });

  it('a resume with `after` replays the stored events, then goes on live with no gap or duplicate at the handover', async () => {
    const ws = await connect();
    const start = await latestSequenceOf(server);
    // More than a replay page (500) stored before, and writes going on while the replay runs.
    await addItems(proposers[2] as TestClient, 'resume-stored', 500);
    await addItems(proposers[2] as TestClient, 'resume-stored-2', 100);
    const before = { ...subscriptionWork };
    const resumed = ws.subscribe<Events>(DASHBOARD, { after: start });
    for (let n = 0; n < 20; n++) await addItem(proposers[3] as TestClient, 'resume-during', `d-${n}`);
    await waitFor(
      () => resumed.data.length >= 620,
      15_000,
      () => `resumed has ${resumed.data.length}`,
    );
    const live = subscriptionWork.direct;
    for (let n = 0; n < 20; n++) await addItem(proposers[3] as TestClient, 'resume-live', `l-${n}`);
    await waitFor(() => sequences(resumed).at(-1) === start + 640);
    expect(sequences(resumed)).toEqual(range(start + 1, start + 640));
    // The replay too was written directly while the socket had room (a stream behind hands its events to
    // the sink from within next()): most of its 620, the rest on graphql-ws's path; live ones directly.
    expect(live - before.direct).toBeGreaterThan(300);
    expect(subscriptionWork.deliveries - before.deliveries).toBe(640);
    expect(subscriptionWork.direct - live).toBe(20);
  });

  it('a client that stops reading for a while then catches up at its own pace, not 64 kB per flush', async () => {
    const paused = await connect();
    const start = await latestSequenceOf(server);
    // About 16 kB per event.
    const fields = Array.from({ length: 16 }, (_, index) => `r${index}: reason`).join(' ');
    const sub = paused.subscribe<Events>(`subscription ($after: Int) { queueEvents(after: $after) { sequence item { ${fields} } } }`, {
      after: start,
    });
    const marker = await allLive([sub], 'pause-marker');
    paused.socket.pause();
    // 48 MB: more than the kernel's buffers and the 64 kB the socket may hold, so most of it waits in the
    // subscriber's own buffer (10,000 events) and goes out through graphql-ws's path once it reads again.
    const reason = 'r'.repeat(1_000);
    for (let batch = 0; batch < 6; batch++) await addItems(proposers[1] as TestClient, `pause-${batch}`, 500, reason);
    const end = marker + 3_000;
    paused.socket.resume();
    // Held for the flushes, 64 kB (4 events) per flush of 30 ms or more would take over 20 s.
    await waitFor(
      () => sequences(sub).at(-1) === end,
      8_000,
      () => `the paused client has ${sub.data.length}`,
    );
    expect(sequences(sub)).toEqual(range(start + 1, end));
    expect(sub.error).toBeNull();
  });

  it("a socket that stops reading leaves the direct path for graphql-ws's, which waits on its writes, and is cut off with SUBSCRIBER_TOO_SLOW and `after` once a whole buffer arrives while it takes nothing", async () => {
    // Small bounds, so the socket buffers fill after a few megabytes and the event buffer after 1,000 events.
    directDelivery.maxUnwrittenBytes = 256 * 1024;
    streamLimits.maxBuffered = 1_000;
    const quick = await connect();
    const stalled = await connect();
    const start = await latestSequenceOf(server);
    const quickSub = quick.subscribe<Events>('subscription ($after: Int) { queueEvents(after: $after) { sequence } }', { after: start });
    // About 4 kB per event.
    const stalledSub = stalled.subscribe<Events>(
      'subscription ($after: Int) { queueEvents(after: $after) { sequence item { r1: reason r2: reason r3: reason r4: reason } } }',
      { after: start },
    );
    const marker = await allLive([quickSub, stalledSub], 'slow-marker');
    const before = { ...subscriptionWork };

    stalled.socket.pause();
    // 6,000 events of 4 kB: 24 MB, more than the kernel's socket buffers (4 MB to send, a few hundred kB to
    // receive for a reader that stopped) and the bound together: the rest wait in the subscriber's own
    // buffer, which holds 1,000 here. The first time it fills, the subscriber has taken events since it
    // subscribed (those written directly), so the buffer is dropped for a catch-up from the history; the
    // second time it has taken none since: cut off.
    const reason = 'r'.repeat(1_000);
    const count = 6_000;
    for (let batch = 0; batch < count / 500; batch++) await addItems(proposers[0] as TestClient, `slow-${batch}`, 500, reason);
    const end = marker + count;
    await waitFor(
      () => sequences(quickSub).at(-1) === end,
      20_000,
      () => `quick client has ${quickSub.data.length}`,
    );
    expect(sequences(quickSub)).toEqual(range(start + 1, end));
    // The quick one took the direct path throughout; the stalled one left it once its socket was full.
    expect(subscriptionWork.direct - before.direct).toBeGreaterThan(count);
    expect(subscriptionWork.direct - before.direct).toBeLessThan(2 * count);

    stalled.socket.resume();
    await stalledSub.ended;
    expect(errorCodes(stalledSub)).toEqual(['SUBSCRIBER_TOO_SLOW']);
    const after = (stalledSub.error as GraphQLFormattedError[])[0]?.extensions?.after as number;
    expect(after).toBeGreaterThan(marker);
    expect(after).toBeLessThan(end);
    // Everything up to `after` arrived, in order; nothing after it.
    expect(sequences(stalledSub)).toEqual(range(start + 1, after));

    // The connection is still usable: resuming from `after` fills the gap exactly, then goes on live.
    const resumed = stalled.subscribe<Events>('subscription ($after: Int) { queueEvents(after: $after) { sequence } }', { after });
    await waitFor(
      () => sequences(resumed).at(-1) === end,
      15_000,
      () => `resumed has ${resumed.data.length}`,
    );
    await addItem(proposers[1] as TestClient, 'slow-live', 'after-resume');
    await waitFor(() => sequences(resumed).at(-1) === end + 1);
    expect(sequences(resumed)).toEqual(range(after + 1, end + 1));
  });
});
