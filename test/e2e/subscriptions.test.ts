// The live queue over real graphql-ws clients (and SSE) against a real in-process server on a ManualClock:
// event payloads, filters, resume without gap or duplicate, the lease holder's stream, queue statistics,
// connection-bound leases and slow subscribers.
//
// Every caller is a principal with its own API key. Each describe block makes all of its principals up
// front (see `principalsOf`): a new key is an API_KEY_CREATED event, which would shift the sequences the
// tests count. The in-process servers keep the default rate limit (a bucket of 100 changes per principal,
// refilled only as the manual clock moves), so heavy writers are spread over several principals.
import type { GraphQLError, GraphQLFormattedError } from 'graphql';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { EventFeed, type FeedEvent } from '../../src/events/feed.js';
import { eventStream, streamWork } from '../../src/events/streams.js';
import { createLogger } from '../../src/logger.js';
import { post } from '../support/process.js';
import { startTestServer, type TestClient, type TestServer } from '../support/server.js';
import { type Collected, connectWs, type WsClient, waitFor, writeUntilReceived } from '../support/ws.js';

const ITEM_FIELDS = `id batchId recordId proposedCategory reason status claimState claimedBy claimedAt leaseExpiresAt leaseNumber
  version addedBy createdAt decidedAt finalCategory reviewedBy`;
const STORED_FIELDS = 'sequence type occurredAt actor categoryName fromStatus toStatus leaseExpiresAt leaseNumber itemVersion details';
const EVENT_FIELDS = `${STORED_FIELDS} serverNow item { ${ITEM_FIELDS} }`;

interface ItemPayload {
  id: string;
  batchId: string;
  recordId: string;
  status: string;
  claimState: string;
  claimedBy: string | null;
  leaseExpiresAt: string | null;
  leaseNumber: number;
  version: number;
  [field: string]: unknown;
}

interface EventPayload {
  sequence: number;
  type: string;
  occurredAt: string;
  actor: string;
  categoryName: string | null;
  fromStatus: string | null;
  toStatus: string | null;
  leaseExpiresAt: string | null;
  leaseNumber: number | null;
  itemVersion: number | null;
  details: Record<string, unknown>;
  serverNow: string;
  item: ItemPayload | null;
}

interface Notice {
  kind: string;
  leaseNumber: number;
  expiresAt: string | null;
  serverNow: string;
  event: { sequence: number; type: string; actor: string } | null;
  item: { recordId: string; claimState: string; claimedBy: string | null } | null;
}

type Events = { queueEvents: EventPayload } | { itemEvents: EventPayload };
const eventOf = (data: Events): EventPayload => ('queueEvents' in data ? data.queueEvents : data.itemEvents);
const sequences = (collected: Collected<Events>) => collected.data.map((data) => eventOf(data).sequence);
const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index);

/** The principals of one describe block, all made when it starts. */
interface Principals {
  /** ADMIN: categories. */
  admin: TestClient;
  /** PROPOSER: adds the items. */
  proposer: TestClient;
  /** VIEWER: watches the queue and reads the history. */
  viewer: TestClient;
  /** A REVIEWER or extra PROPOSER named when the block started; anyone else is a mistake in the test. */
  get(name: string): TestClient;
}

async function principalsOf(server: TestServer, names: { reviewers?: string[]; proposers?: string[] } = {}): Promise<Principals> {
  const admin = await server.as('admin', ['ADMIN']);
  const proposer = await server.as('proposer', ['PROPOSER']);
  const viewer = await server.as('watcher', ['VIEWER']);
  const others = new Map<string, TestClient>();
  for (const name of names.reviewers ?? []) others.set(name, await server.as(name, ['REVIEWER']));
  for (const name of names.proposers ?? []) others.set(name, await server.as(name, ['PROPOSER']));
  return {
    admin,
    proposer,
    viewer,
    get(name) {
      const client = others.get(name);
      if (!client) throw new Error(`${name} was not made when the describe block started`);
      return client;
    },
  };
}

/** Sends an operation over HTTP as `caller` and returns `data`, failing on any top-level error. */
async function ask(
  server: TestServer,
  caller: TestClient,
  query: string,
  variables?: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const { status, body } = await post(server.url, query, variables, caller.headers);
  if (status !== 200 || body.errors || !body.data) throw new Error(`HTTP ${status}: ${JSON.stringify(body)}`);
  return body.data;
}

/** The payload of a mutation that must succeed. */
async function mutate<T = Record<string, unknown>>(
  server: TestServer,
  caller: TestClient,
  field: string,
  query: string,
  variables?: Record<string, unknown>,
): Promise<T> {
  const result = (await ask(server, caller, query, variables))[field] as { __typename: string };
  if (result.__typename === 'UserError') throw new Error(`${field} refused: ${JSON.stringify(result)}`);
  return result as T;
}

const ADD_CATEGORIES = 'mutation ($names: [String!]!) { addCategories(input: { names: $names }) { __typename ... on UserError { code } } }';
const RETIRE_CATEGORY = 'mutation ($name: String!) { retireCategory(input: { name: $name }) { __typename ... on UserError { code } } }';
const ADD_ITEM = `mutation ($input: AddItemInput!) {
  addItem(input: $input) { __typename ... on AddItemPayload { item { id recordId createdAt } } ... on UserError { code } }
}`;
const ADD_ITEMS = `mutation ($items: [AddItemInput!]!) {
  addItems(input: { items: $items }) { __typename ... on AddItemsPayload { addedCount } ... on UserError { code } }
}`;
const CLAIM = `mutation ($leaseSeconds: Int, $batchId: String, $releaseOnDisconnect: Boolean) {
  claimItem(input: { leaseSeconds: $leaseSeconds, batchId: $batchId, releaseOnDisconnect: $releaseOnDisconnect }) {
    __typename
    ... on ClaimItemPayload { claimed item { id recordId } lease { token expiresAt } }
    ... on UserError { code field message }
  }
}`;
const RENEW = `mutation ($token: String!, $leaseSeconds: Int) {
  renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) { __typename ... on UserError { code } }
}`;
const RELEASE = 'mutation ($token: String!) { releaseLease(input: { token: $token }) { __typename ... on UserError { code } } }';
const DECIDE = `mutation ($token: String!, $decision: Decision!, $category: String) {
  decideItem(input: { token: $token, decision: $decision, category: $category }) { __typename ... on UserError { code } }
}`;
const HISTORY = `query ($after: String) {
  events(first: 100, after: $after) { edges { node { ${STORED_FIELDS} item { id batchId } } } pageInfo { hasNextPage endCursor } }
}`;
const QUEUE_EVENTS = `subscription ($after: Int, $filter: QueueEventFilter) { queueEvents(after: $after, filter: $filter) { ${EVENT_FIELDS} } }`;
const ITEM_EVENTS = `subscription ($id: ID!, $after: Int) { itemEvents(id: $id, after: $after) { ${EVENT_FIELDS} } }`;
const LEASE_EVENTS = `subscription ($token: String!) {
  leaseEvents(token: $token) {
    kind leaseNumber expiresAt serverNow
    event { sequence type actor }
    item { recordId claimState claimedBy }
  }
}`;

interface Claimed {
  claimed: boolean;
  item: { id: string; recordId: string } | null;
  lease: { token: string; expiresAt: string } | null;
}

/** A lease `holder` took: renewing, releasing, deciding and following it are the holder's to do. */
interface Lease {
  id: string;
  recordId: string;
  token: string;
  holder: TestClient;
}

async function claim(server: TestServer, holder: TestClient, leaseSeconds: number, batchId?: string): Promise<Lease> {
  const result = await mutate<Claimed>(server, holder, 'claimItem', CLAIM, { leaseSeconds, batchId });
  if (!result.item || !result.lease) throw new Error(`nothing claimable for ${holder.name}`);
  return { id: result.item.id, recordId: result.item.recordId, token: result.lease.token, holder };
}

const addItem = (server: TestServer, proposer: TestClient, batchId: string, recordId: string, proposedCategory = 'alpha') =>
  mutate<{ item: { id: string; recordId: string; createdAt: string } }>(server, proposer, 'addItem', ADD_ITEM, {
    input: { batchId, recordId, proposedCategory, reason: `check ${recordId}` },
  }).then((payload) => payload.item);

/** The whole stored history, in order, as the events query shows it. */
type StoredEvent = Omit<EventPayload, 'serverNow' | 'item'> & { item: { id: string; batchId: string } | null };

async function history(server: TestServer, reader: TestClient): Promise<StoredEvent[]> {
  const all: StoredEvent[] = [];
  let after: string | null = null;
  for (;;) {
    const data = await ask(server, reader, HISTORY, { after });
    const page = data.events as { edges: { node: (typeof all)[number] }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
    all.push(...page.edges.map((edge) => edge.node));
    if (!page.pageInfo.hasNextPage) return all;
    after = page.pageInfo.endCursor;
  }
}

/** The last sequence in the server's history, as committed (read on either backend through its reader). */
async function latestSequenceOf(server: TestServer): Promise<number> {
  const { _max } = await server.db.read.event.aggregate({ _max: { id: true } });
  return _max.id ?? 0;
}

/** Error codes of a subscription refused or ended by the server (in a `next` payload or an `error` message). */
function refusalCodes(collected: Collected<unknown>): unknown[] {
  const inResults = collected.results.flatMap((result) => (result.errors ?? []).map((error) => error.extensions?.code));
  const inError = Array.isArray(collected.error)
    ? (collected.error as { extensions?: Record<string, unknown> }[]).map((error) => error.extensions?.code)
    : [];
  return [...inResults, ...inError];
}

describe('subscriptions over graphql-ws', () => {
  let server: TestServer;
  let people: Principals;
  const clients: WsClient[] = [];
  const open = async () => {
    const client = await connectWs(server.url, people.viewer.headers);
    clients.push(client);
    return client;
  };
  const now = () => server.clock.now().toISOString();
  const latest = () => latestSequenceOf(server);

  beforeAll(async () => {
    server = await startTestServer();
    people = await principalsOf(server, { reviewers: ['rita', 'sam', 'tess', 'ann', 'xav', 'bea', 'cat'] });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  afterAll(() => server.stop());

  it('delivers every event type with the stored fields, the item as it stood, the lease expiry and the server clock', async () => {
    const ws = await open();
    const all = ws.subscribe<Events>(QUEUE_EVENTS, { after: 0 });
    const seen: EventPayload[] = [];
    /** Waits for exactly `count` new events and returns them. */
    const next = async (count = 1) => {
      await waitFor(
        () => all.data.length >= seen.length + count,
        5_000,
        () => `have ${all.data.length}, want ${seen.length + count}`,
      );
      const fresh = all.data.slice(seen.length, seen.length + count).map(eventOf);
      seen.push(...fresh);
      return fresh;
    };

    // The history starts with the keys of this block's principals, made before anything else.
    const keys = await next(await latest());
    expect(keys.map((event) => [event.type, event.actor, event.item, event.details.name])).toEqual(
      ['admin', 'proposer', 'watcher', 'rita', 'sam', 'tess', 'ann', 'xav', 'bea', 'cat'].map((name) => [
        'API_KEY_CREATED',
        'test-setup',
        null,
        name,
      ]),
    );
    // The details name the key (its id and roles), never any part of the key itself.
    expect(keys[3]?.details).toEqual({ keyId: 4, name: 'rita', roles: 'REVIEWER' });
    const byName = new Map([people.admin, people.proposer, people.viewer].map((client) => [client.name, client]));
    for (const event of keys) {
      const { key } = byName.get(String(event.details.name)) ?? people.get(String(event.details.name));
      expect(JSON.stringify(event)).not.toContain(key.slice(4, 12));
      expect(JSON.stringify(event)).not.toContain(key.slice(12));
    }

    await mutate(server, people.admin, 'addCategories', ADD_CATEGORIES, { names: ['alpha', 'beta', 'gamma'] });
    const categories = await next(3);
    expect(categories.map((event) => [event.type, event.categoryName, event.actor, event.item])).toEqual([
      ['CATEGORY_ADDED', 'alpha', 'admin', null],
      ['CATEGORY_ADDED', 'beta', 'admin', null],
      ['CATEGORY_ADDED', 'gamma', 'admin', null],
    ]);

    server.clock.advance(1_000);
    const added = await addItem(server, people.proposer, 'pay', 'P-1');
    const [itemAdded] = await next();
    expect(itemAdded).toMatchObject({
      type: 'ITEM_ADDED',
      actor: 'proposer',
      occurredAt: now(),
      serverNow: now(),
      toStatus: 'PENDING',
      leaseExpiresAt: null,
      itemVersion: 1,
      item: {
        id: added.id,
        batchId: 'pay',
        recordId: 'P-1',
        proposedCategory: 'alpha',
        reason: 'check P-1',
        status: 'PENDING',
        claimState: 'UNCLAIMED',
        claimedBy: null,
        claimedAt: null,
        leaseExpiresAt: null,
        leaseNumber: 0,
        version: 1,
        addedBy: 'proposer',
        createdAt: added.createdAt,
        decidedAt: null,
        finalCategory: null,
        reviewedBy: null,
      },
    });

    server.clock.advance(1_000);
    const first = await claim(server, people.get('rita'), 120);
    const [claimed] = await next();
    const firstExpiry = new Date(server.clock.now().getTime() + 120_000).toISOString();
    expect(claimed).toMatchObject({
      type: 'LEASE_CLAIMED',
      actor: 'rita',
      occurredAt: now(),
      serverNow: now(),
      leaseExpiresAt: firstExpiry,
      leaseNumber: 1,
      details: { holder: 'rita', leaseSeconds: 120 },
      item: {
        id: added.id,
        claimState: 'ACTIVE',
        claimedBy: 'rita',
        claimedAt: now(),
        leaseExpiresAt: firstExpiry,
        leaseNumber: 1,
        version: 2,
      },
    });

    server.clock.advance(10_000);
    await mutate(server, first.holder, 'renewLease', RENEW, { token: first.token, leaseSeconds: 60 });
    const [renewed] = await next();
    const renewedExpiry = new Date(server.clock.now().getTime() + 60_000).toISOString();
    expect(renewed).toMatchObject({
      type: 'LEASE_RENEWED',
      actor: 'rita',
      occurredAt: now(),
      serverNow: now(),
      leaseExpiresAt: renewedExpiry,
      leaseNumber: 1,
      details: { previousExpiresAt: firstExpiry, leaseSeconds: 60 },
      item: { claimState: 'ACTIVE', leaseExpiresAt: renewedExpiry, version: 3 },
    });

    server.clock.advance(1_000);
    await mutate(server, first.holder, 'releaseLease', RELEASE, { token: first.token });
    const [released] = await next();
    expect(released).toMatchObject({
      type: 'LEASE_RELEASED',
      actor: 'rita',
      occurredAt: now(),
      leaseExpiresAt: null,
      leaseNumber: 1,
      item: { claimState: 'UNCLAIMED', claimedBy: null, leaseExpiresAt: null, version: 4 },
    });
    expect(released?.details.reason).toBeUndefined();

    await claim(server, people.get('sam'), 30);
    const [second] = await next();
    const secondExpiry = new Date(server.clock.now().getTime() + 30_000).toISOString();
    expect(second).toMatchObject({ type: 'LEASE_CLAIMED', actor: 'sam', leaseNumber: 2, leaseExpiresAt: secondExpiry });
    server.clock.advance(30_000);
    await server.settle();
    const [expired] = await next();
    expect(expired).toMatchObject({
      type: 'LEASE_EXPIRED',
      actor: 'system',
      occurredAt: secondExpiry,
      serverNow: secondExpiry,
      leaseExpiresAt: secondExpiry,
      leaseNumber: 2,
      details: { holder: 'sam', expiredAt: secondExpiry },
      item: { claimState: 'EXPIRED', claimedBy: 'sam', leaseExpiresAt: secondExpiry, leaseNumber: 2 },
    });

    server.clock.advance(5_000);
    const third = await claim(server, people.get('tess'), 300);
    const [reclaimed] = await next();
    expect(reclaimed).toMatchObject({ type: 'LEASE_CLAIMED', actor: 'tess', leaseNumber: 3, details: { replacedHolder: 'sam' } });
    await mutate(server, third.holder, 'decideItem', DECIDE, { token: third.token, decision: 'CORRECTED', category: 'beta' });
    const [decided] = await next();
    expect(decided).toMatchObject({
      type: 'ITEM_DECIDED',
      actor: 'tess',
      occurredAt: now(),
      serverNow: now(),
      fromStatus: 'PENDING',
      toStatus: 'CORRECTED',
      leaseExpiresAt: null,
      leaseNumber: 3,
      item: {
        status: 'CORRECTED',
        claimState: 'NOT_APPLICABLE',
        finalCategory: 'beta',
        reviewedBy: 'tess',
        decidedAt: now(),
        claimedBy: null,
        leaseExpiresAt: null,
      },
    });

    await mutate(server, people.admin, 'retireCategory', RETIRE_CATEGORY, { name: 'gamma' });
    const [retired] = await next();
    expect(retired).toMatchObject({ type: 'CATEGORY_RETIRED', categoryName: 'gamma', actor: 'admin', item: null, occurredAt: now() });

    // A refused change is recorded too, with the principal who attempted it.
    const refused = await ask(server, people.get('sam'), RENEW, { token: first.token });
    expect(refused.renewLease).toEqual({ __typename: 'UserError', code: 'CLAIM_NOT_FOUND' });
    const [refusal] = await next();
    expect(refusal).toMatchObject({
      type: 'OPERATION_REFUSED',
      actor: 'sam',
      occurredAt: now(),
      item: null,
      details: { operation: 'renewLease', code: 'CLAIM_NOT_FOUND', field: 'token' },
    });

    // Nothing more, nothing less than the stored history, field for field, in order.
    const stored = await history(server, people.viewer);
    expect(seen.map(({ serverNow: _now, item: _item, ...event }) => event)).toEqual(stored.map(({ item: _item, ...event }) => event));
    expect(seen.map((event) => event.item?.id ?? null)).toEqual(stored.map((event) => event.item?.id ?? null));
    expect(seen.map((event) => event.sequence)).toEqual(range(1, stored.length));

    // A replay later carries the clock at delivery, not the time of the change.
    server.clock.advance(3_600_000);
    const replay = ws.subscribe<Events>(QUEUE_EVENTS, { after: 0 });
    await waitFor(() => replay.data.length === stored.length);
    expect(replay.data.map((data) => eventOf(data).serverNow)).toEqual(stored.map(() => now()));
    expect(replay.data.map((data) => eventOf(data).occurredAt)).toEqual(stored.map((event) => event.occurredAt));
  });

  it('a kinds filter keeps the events of items of those kinds and drops category events', async () => {
    const start = await latest();
    const ws = await open();
    const kinds = ws.subscribe<Events>(QUEUE_EVENTS, { after: start, filter: { kinds: ['CLASSIFICATION'] } });
    await mutate(server, people.admin, 'addCategories', ADD_CATEGORIES, { names: ['kind-test'] });
    const item = await addItem(server, people.proposer, 'k-1', 'K');
    const end = await latest();
    await waitFor(
      () => sequences(kinds).at(-1) === end,
      5_000,
      () => `kinds got ${sequences(kinds).join(',')}`,
    );
    const stored = (await history(server, people.viewer)).filter((event) => event.sequence > start);
    expect(stored.map((event) => event.type)).toEqual(['CATEGORY_ADDED', 'ITEM_ADDED']);
    expect(kinds.data.map((data) => eventOf(data).type)).toEqual(['ITEM_ADDED']);
    expect(eventOf(kinds.data[0] as never).item?.id).toBe(item.id);
  });

  it('itemEvents carries only that item; queue filters by batch, by type, and both', async () => {
    const start = await latest();
    const a = await addItem(server, people.proposer, 'f-1', 'A');
    await addItem(server, people.proposer, 'f-2', 'X');
    await addItem(server, people.proposer, 'f-1', 'B');
    const leaseA = await claim(server, people.get('ann'), 300, 'f-1');
    const leaseX = await claim(server, people.get('xav'), 300, 'f-2');
    await mutate(server, leaseX.holder, 'renewLease', RENEW, { token: leaseX.token });

    // Subscribed after some of the changes: the replayed part and the live part must agree with the filters.
    const ws = await open();
    const subs = {
      item: ws.subscribe<Events>(ITEM_EVENTS, { id: a.id, after: start }),
      batch: ws.subscribe<Events>(QUEUE_EVENTS, { after: start, filter: { batchId: 'f-1' } }),
      types: ws.subscribe<Events>(QUEUE_EVENTS, { after: start, filter: { types: ['LEASE_CLAIMED', 'ITEM_DECIDED'] } }),
      both: ws.subscribe<Events>(QUEUE_EVENTS, { after: start, filter: { batchId: 'f-1', types: ['LEASE_CLAIMED'] } }),
    };
    await mutate(server, leaseA.holder, 'releaseLease', RELEASE, { token: leaseA.token });
    await mutate(server, leaseX.holder, 'decideItem', DECIDE, { token: leaseX.token, decision: 'ACCEPTED' });
    const leaseA2 = await claim(server, people.get('bea'), 300, 'f-1');
    await addItem(server, people.proposer, 'f-2', 'Y');
    const leaseB = await claim(server, people.get('cat'), 300, 'f-1');
    await mutate(server, leaseB.holder, 'decideItem', DECIDE, { token: leaseB.token, decision: 'REJECTED' });
    await mutate(server, leaseA2.holder, 'releaseLease', RELEASE, { token: leaseA2.token });
    // The last change matches every subscription, so once it has arrived nothing else can still be on the way.
    expect((await claim(server, people.get('ann'), 300, 'f-1')).recordId).toBe('A');
    const end = await latest();

    const stored = (await history(server, people.viewer)).filter((event) => event.sequence > start);
    const expected = {
      item: stored.filter((event) => event.item?.id === a.id),
      batch: stored.filter((event) => event.item?.batchId === 'f-1'),
      types: stored.filter((event) => event.type === 'LEASE_CLAIMED' || event.type === 'ITEM_DECIDED'),
      both: stored.filter((event) => event.item?.batchId === 'f-1' && event.type === 'LEASE_CLAIMED'),
    };
    for (const [name, sub] of Object.entries(subs)) {
      await waitFor(
        () => sequences(sub).at(-1) === end,
        5_000,
        () => `${name} got ${sequences(sub).join(',')}, want up to ${end}`,
      );
    }
    // itemEvents: every event of item A (added, then claimed and released twice, claimed again) and nothing of B, X or Y.
    expect(subs.item.data.map(eventOf).every((event) => event.item?.id === a.id)).toBe(true);
    expect(sequences(subs.item)).toEqual(expected.item.map((event) => event.sequence));
    expect(subs.item.data.map((data) => eventOf(data).type)).toEqual([
      'ITEM_ADDED',
      'LEASE_CLAIMED',
      'LEASE_RELEASED',
      'LEASE_CLAIMED',
      'LEASE_RELEASED',
      'LEASE_CLAIMED',
    ]);
    expect(sequences(subs.batch)).toEqual(expected.batch.map((event) => event.sequence));
    expect(subs.batch.data.every((data) => eventOf(data).item?.batchId === 'f-1')).toBe(true);
    expect(sequences(subs.types)).toEqual(expected.types.map((event) => event.sequence));
    expect(sequences(subs.both)).toEqual(expected.both.map((event) => event.sequence));
    expect(subs.both.data.map((data) => eventOf(data).actor)).toEqual(['ann', 'bea', 'cat', 'ann']);
    expect(subs.types.data.map((data) => eventOf(data).type)).toContain('ITEM_DECIDED');
  });

  it('refuses bad subscription arguments with a code', async () => {
    const ws = await open();
    const negative = ws.subscribe(QUEUE_EVENTS, { after: -1 });
    const notAnItem = ws.subscribe(ITEM_EVENTS, { id: Buffer.from('Category:alpha').toString('base64') });
    const badBatch = ws.subscribe(QUEUE_EVENTS, { filter: { batchId: ' padded ' } });
    await Promise.all([negative.ended, notAnItem.ended, badBatch.ended]);
    expect(refusalCodes(negative)).toEqual(['INVALID_ARGUMENT']);
    expect(refusalCodes(notAnItem)).toEqual(['INVALID_ARGUMENT']);
    expect(refusalCodes(badBatch)).toEqual(['INVALID_TEXT']);
  });
});

/** Concurrent writers while a subscription resumes: each its own PROPOSER (100 changes each would use a whole bucket). */
const WRITERS = Array.from({ length: 8 }, (_, writer) => `writer-${writer}`);

describe('resuming a subscription', () => {
  let server: TestServer;
  let people: Principals;
  const clients: WsClient[] = [];
  beforeAll(async () => {
    server = await startTestServer();
    people = await principalsOf(server, { proposers: [...WRITERS, 'live-writer', 'ahead-writer'] });
    await mutate(server, people.admin, 'addCategories', ADD_CATEGORIES, { names: ['alpha'] });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await server.stop();
  });

  const items = (prefix: string, count: number) =>
    Array.from({ length: count }, (_, index) => ({
      batchId: prefix,
      recordId: `${prefix}-${index}`,
      proposedCategory: 'alpha',
      reason: 'resume',
    }));

  it('after=N while writes keep coming gives exactly N+1..M: no gap, no duplicate', async () => {
    // A backlog longer than one replay page (500), then resume from inside it while writers keep adding.
    // (The history starts with the keys and the category.)
    const base = await latestSequenceOf(server);
    for (let batch = 0; batch < 3; batch++)
      await mutate(server, people.proposer, 'addItems', ADD_ITEMS, { items: items(`old-${batch}`, 400) });
    const resumeAfter = base + 150;
    let writing = true;
    const writers = WRITERS.map(async (writer) => {
      for (let n = 0; n < 50; n++) await addItem(server, people.get(writer), `live-${writer}`, `L-${n}`);
    });
    const allWritten = Promise.all(writers).finally(() => {
      writing = false;
    });
    // Polls the history (a read on the server's own reader) until the live writers are under way.
    const deadline = performance.now() + 5_000;
    while ((await latestSequenceOf(server)) <= base + 1_200 + 20) {
      if (performance.now() > deadline) throw new Error('the live writers did not get under way within 5 s');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const ws = await connectWs(server.url, people.viewer.headers);
    clients.push(ws);
    const resumed = ws.subscribe<Events>(`subscription ($after: Int) { queueEvents(after: $after) { sequence type } }`, {
      after: resumeAfter,
    });
    expect(writing).toBe(true);
    await allWritten;
    const end = await latestSequenceOf(server);
    expect(end).toBe(base + 1_200 + 400);
    await waitFor(
      () => resumed.data.length >= end - resumeAfter,
      10_000,
      () => `got ${resumed.data.length} of ${end - resumeAfter}`,
    );
    // One more change proves nothing else was queued behind the last one.
    await addItem(server, people.proposer, 'live-tail', 'T');
    await waitFor(() => resumed.data.length >= end + 1 - resumeAfter);
    expect(sequences(resumed)).toEqual(range(resumeAfter + 1, end + 1));
  });

  it('without after starts live: nothing stored before is replayed, and what follows arrives in order', async () => {
    const before = await latestSequenceOf(server);
    const ws = await connectWs(server.url, people.viewer.headers);
    clients.push(ws);
    const live = ws.subscribe<Events>('subscription { queueEvents { sequence } }');
    const writer = people.get('live-writer');
    await writeUntilReceived(
      () => live.data.length > 0,
      (n) => addItem(server, writer, 'live-only', `N-${n}`),
      90,
    );
    await addItem(server, writer, 'live-only', 'N-last');
    const end = await latestSequenceOf(server);
    await waitFor(() => (sequences(live).at(-1) ?? 0) >= end);
    const got = sequences(live);
    expect(got[0]).toBeGreaterThan(before);
    expect(got).toEqual(range(got[0] as number, end));
  });

  it('after beyond the end of the history continues live', async () => {
    const end = await latestSequenceOf(server);
    const ws = await connectWs(server.url, people.viewer.headers);
    clients.push(ws);
    const ahead = ws.subscribe<Events>('subscription ($after: Int) { queueEvents(after: $after) { sequence } }', { after: end + 1_000 });
    const writer = people.get('ahead-writer');
    // Before the fix, the first 1 000 events were skipped: far more than the writes allowed here.
    await writeUntilReceived(
      () => ahead.data.length > 0,
      (n) => addItem(server, writer, 'ahead', `A-${n}`),
      90,
    );
    await addItem(server, writer, 'ahead', 'A-last');
    const last = await latestSequenceOf(server);
    await waitFor(() => (sequences(ahead).at(-1) ?? 0) >= last);
    const got = sequences(ahead);
    expect(got[0]).toBeGreaterThan(end);
    expect(got[0]).toBeLessThan(end + 1_000);
    expect(got).toEqual(range(got[0] as number, last));
  });
});

describe("the lease holder's stream (leaseEvents)", () => {
  let server: TestServer;
  let people: Principals;
  const clients: WsClient[] = [];
  let observer: Collected<Events>;
  const now = () => server.clock.now().toISOString();
  const at = (offsetMs: number, from: Date) => new Date(from.getTime() + offsetMs).toISOString();

  beforeAll(async () => {
    server = await startTestServer();
    people = await principalsOf(server, { reviewers: ['hana', 'ivan', 'dora', 'rex', 'olga', 'mallory'] });
    await mutate(server, people.admin, 'addCategories', ADD_CATEGORIES, { names: ['alpha'] });
    const ws = await connectWs(server.url, people.viewer.headers);
    clients.push(ws);
    observer = ws.subscribe<Events>('subscription { queueEvents(after: 0) { sequence } }');
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await server.stop();
  });

  /**
   * Subscribes to a lease's notices and waits until the server really listens: the stream arms one clock
   * timer (its EXPIRING reminder), counted once everything before it has reached the feed.
   */
  async function holderStream(lease: Lease): Promise<Collected<{ leaseEvents: Notice }>> {
    const end = await latestSequenceOf(server);
    await waitFor(() => sequences(observer).at(-1) === end);
    const timers = server.clock.pendingTimers();
    const ws = await connectWs(server.url, lease.holder.headers);
    clients.push(ws);
    const stream = ws.subscribe<{ leaseEvents: Notice }>(LEASE_EVENTS, { token: lease.token });
    await waitFor(() => server.clock.pendingTimers() === timers + 1 || stream.results.length > 0);
    return stream;
  }
  const notices = (stream: Collected<{ leaseEvents: Notice }>) => stream.data.map((data) => data.leaseEvents);

  it('RENEWED with the new expiry, EXPIRING 60 s before it (not earlier), EXPIRED when it passes, then LOST and the end', async () => {
    await addItem(server, people.proposer, 'hold', 'H-1');
    const t0 = server.clock.now();
    const lease = await claim(server, people.get('hana'), 300, 'hold');
    const stream = await holderStream(lease);

    server.clock.advance(100_000);
    await mutate(server, lease.holder, 'renewLease', RENEW, { token: lease.token, leaseSeconds: 120 });
    await waitFor(() => notices(stream).length === 1);
    expect(notices(stream)[0]).toMatchObject({
      kind: 'RENEWED',
      leaseNumber: 1,
      expiresAt: at(220_000, t0),
      serverNow: now(),
      event: { type: 'LEASE_RENEWED', actor: 'hana' },
      item: { recordId: 'H-1', claimState: 'ACTIVE', claimedBy: 'hana' },
    });

    // One second before the warning window: no reminder yet. A renewal to the same expiry is the marker (notices keep their order).
    server.clock.advance(59_000);
    await mutate(server, lease.holder, 'renewLease', RENEW, { token: lease.token, leaseSeconds: 61 });
    await waitFor(() => notices(stream).length === 2);
    expect(notices(stream)[1]).toMatchObject({ kind: 'RENEWED', expiresAt: at(220_000, t0) });

    server.clock.advance(1_000);
    await waitFor(() => notices(stream).length === 3);
    expect(notices(stream)[2]).toEqual({
      kind: 'EXPIRING',
      leaseNumber: 1,
      expiresAt: at(220_000, t0),
      serverNow: at(160_000, t0),
      event: null,
      item: { recordId: 'H-1', claimState: 'ACTIVE', claimedBy: 'hana' },
    });

    server.clock.advance(60_000);
    await server.settle();
    await waitFor(() => notices(stream).length === 4);
    expect(notices(stream)[3]).toMatchObject({
      kind: 'EXPIRED',
      expiresAt: at(220_000, t0),
      serverNow: at(220_000, t0),
      event: { type: 'LEASE_EXPIRED', actor: 'system' },
      item: { claimState: 'EXPIRED' },
    });
    expect(stream.completed).toBe(false);

    // A holder who subscribes only now is told at once that the lease lapsed.
    const late = await connectWs(server.url, lease.holder.headers);
    clients.push(late);
    const lateStream = late.subscribe<{ leaseEvents: Notice }>(LEASE_EVENTS, { token: lease.token });
    await waitFor(() => lateStream.data.length === 1);
    expect(lateStream.data[0]?.leaseEvents).toMatchObject({ kind: 'EXPIRED', expiresAt: at(220_000, t0), event: null });

    await claim(server, people.get('ivan'), 300, 'hold');
    await waitFor(() => stream.completed && lateStream.completed);
    expect(notices(stream)[4]).toMatchObject({
      kind: 'LOST',
      leaseNumber: 1,
      expiresAt: null,
      event: { type: 'LEASE_CLAIMED', actor: 'ivan' },
      item: { claimedBy: 'ivan', claimState: 'ACTIVE' },
    });
    expect(notices(stream)).toHaveLength(5);
    expect(notices(lateStream).map((notice) => notice.kind)).toEqual(['EXPIRED', 'LOST']);
    expect(stream.error).toBeNull();
  });

  it('DECIDED and RELEASED end the stream', async () => {
    await addItem(server, people.proposer, 'end', 'E-1');
    await addItem(server, people.proposer, 'end', 'E-2');
    const toDecide = await claim(server, people.get('dora'), 300, 'end');
    const toRelease = await claim(server, people.get('rex'), 300, 'end');
    const decidedStream = await holderStream(toDecide);
    const releasedStream = await holderStream(toRelease);

    await mutate(server, toDecide.holder, 'decideItem', DECIDE, { token: toDecide.token, decision: 'ACCEPTED' });
    await mutate(server, toRelease.holder, 'releaseLease', RELEASE, { token: toRelease.token });
    await waitFor(() => decidedStream.completed && releasedStream.completed);
    expect(notices(decidedStream)).toEqual([
      expect.objectContaining({
        kind: 'DECIDED',
        expiresAt: null,
        event: expect.objectContaining({ type: 'ITEM_DECIDED', actor: 'dora' }),
      }),
    ]);
    expect(notices(releasedStream)).toEqual([
      expect.objectContaining({
        kind: 'RELEASED',
        expiresAt: null,
        event: expect.objectContaining({ type: 'LEASE_RELEASED', actor: 'rex' }),
      }),
    ]);

    // A token whose lease has ended is no longer a lease.
    const ws = await connectWs(server.url, toDecide.holder.headers);
    clients.push(ws);
    const ended = ws.subscribe(LEASE_EVENTS, { token: toDecide.token });
    await ended.ended;
    expect(refusalCodes(ended)).toEqual(['CLAIM_NOT_FOUND']);
  });

  it('only the holder may follow a lease: another reviewer is refused NOT_LEASE_HOLDER, a VIEWER FORBIDDEN', async () => {
    await addItem(server, people.proposer, 'own', 'O-1');
    const lease = await claim(server, people.get('olga'), 300, 'own');
    const other = await connectWs(server.url, people.get('mallory').headers);
    const watcher = await connectWs(server.url, people.viewer.headers);
    clients.push(other, watcher);
    const stolen = other.subscribe(LEASE_EVENTS, { token: lease.token });
    const peeked = watcher.subscribe(LEASE_EVENTS, { token: lease.token });
    await Promise.all([stolen.ended, peeked.ended]);
    expect(refusalCodes(stolen)).toEqual(['NOT_LEASE_HOLDER']);
    expect(refusalCodes(peeked)).toEqual(['FORBIDDEN']);
    expect([stolen.data, peeked.data]).toEqual([[], []]);

    // The holder's own stream is unaffected and ends with the decision.
    const own = await holderStream(lease);
    await mutate(server, lease.holder, 'decideItem', DECIDE, { token: lease.token, decision: 'REJECTED' });
    await waitFor(() => own.completed);
    expect(notices(own).map((notice) => [notice.kind, notice.event?.actor])).toEqual([['DECIDED', 'olga']]);
  });

  it('a malformed token is INVALID_TOKEN, an unknown one CLAIM_NOT_FOUND', async () => {
    const ws = await connectWs(server.url, people.get('rex').headers);
    clients.push(ws);
    const malformed = ws.subscribe(LEASE_EVENTS, { token: 'not a token!' });
    const unknown = ws.subscribe(LEASE_EVENTS, { token: 'A'.repeat(43) });
    await Promise.all([malformed.ended, unknown.ended]);
    expect(refusalCodes(malformed)).toEqual(['INVALID_TOKEN']);
    expect(refusalCodes(unknown)).toEqual(['CLAIM_NOT_FOUND']);
    expect(malformed.data).toEqual([]);
    expect(unknown.data).toEqual([]);
  });
});

describe('queueStats', () => {
  let server: TestServer;
  let people: Principals;
  let ws: WsClient;
  beforeAll(async () => {
    server = await startTestServer();
    people = await principalsOf(server, { reviewers: ['stan'] });
    ws = await connectWs(server.url, people.viewer.headers);
  });
  afterAll(async () => {
    await ws.close();
    await server.stop();
  });

  it('sends the counts now, then again after each change, with ages by the server clock', async () => {
    const STATS = `subscription { queueStats {
      pending accepted corrected rejected unclaimed activeLeases expiredLeases oldestPendingCreatedAt oldestPendingAgeSeconds sequence serverNow
    } }`;
    type Stats = Record<string, unknown> & { sequence: number };
    const stats = ws.subscribe<{ queueStats: Stats }>(STATS);
    const current = () => stats.data.at(-1)?.queueStats;
    /** The value sent once the server has seen the latest change. */
    const settledStats = async () => {
      const end = await latestSequenceOf(server);
      await waitFor(
        () => current()?.sequence === end,
        5_000,
        () => `stats at ${current()?.sequence}, history at ${end}`,
      );
      return current();
    };
    const zero = { pending: 0, accepted: 0, corrected: 0, rejected: 0, unclaimed: 0, activeLeases: 0, expiredLeases: 0 };
    const t0 = server.clock.now();
    const iso = (offsetMs: number) => new Date(t0.getTime() + offsetMs).toISOString();

    // The history holds only the principals' keys so far: nothing counted yet.
    await waitFor(() => stats.data.length > 0);
    expect(current()).toEqual({
      ...zero,
      oldestPendingCreatedAt: null,
      oldestPendingAgeSeconds: null,
      sequence: await latestSequenceOf(server),
      serverNow: iso(0),
    });

    await mutate(server, people.admin, 'addCategories', ADD_CATEGORIES, { names: ['alpha', 'beta'] });
    await addItem(server, people.proposer, 'st', 'S-1');
    expect(await settledStats()).toMatchObject({
      ...zero,
      pending: 1,
      unclaimed: 1,
      oldestPendingCreatedAt: iso(0),
      oldestPendingAgeSeconds: 0,
    });

    server.clock.advance(90_000);
    await addItem(server, people.proposer, 'st', 'S-2');
    expect(await settledStats()).toMatchObject({
      pending: 2,
      unclaimed: 2,
      activeLeases: 0,
      oldestPendingAgeSeconds: 90,
      serverNow: iso(90_000),
    });

    server.clock.advance(10_000);
    const lease = await claim(server, people.get('stan'), 30);
    expect(await settledStats()).toMatchObject({
      pending: 2,
      unclaimed: 1,
      activeLeases: 1,
      expiredLeases: 0,
      oldestPendingAgeSeconds: 100,
    });

    server.clock.advance(30_000);
    await server.settle();
    expect(await settledStats()).toMatchObject({
      pending: 2,
      unclaimed: 1,
      activeLeases: 0,
      expiredLeases: 1,
      oldestPendingAgeSeconds: 130,
      serverNow: iso(130_000),
    });

    const again = await claim(server, people.get('stan'), 300);
    expect(again.recordId).toBe(lease.recordId);
    expect(await settledStats()).toMatchObject({ activeLeases: 1, expiredLeases: 0 });
    await mutate(server, again.holder, 'decideItem', DECIDE, { token: again.token, decision: 'CORRECTED', category: 'beta' });
    expect(await settledStats()).toMatchObject({
      ...zero,
      pending: 1,
      corrected: 1,
      unclaimed: 1,
      oldestPendingCreatedAt: iso(90_000),
      oldestPendingAgeSeconds: 40,
    });
    expect(stats.error).toBeNull();
  });
});

describe('connection-bound leases', () => {
  let server: TestServer;
  let people: Principals;
  beforeAll(async () => {
    server = await startTestServer();
    people = await principalsOf(server, { reviewers: ['cora', 'cruz', 'dan', 'dee', 'hal'] });
    await mutate(server, people.admin, 'addCategories', ADD_CATEGORIES, { names: ['alpha'] });
  });
  afterAll(() => server.stop());

  const itemHistory = async (batchId: string, recordId: string) => {
    const data = await ask(
      server,
      people.viewer,
      'query ($b: String!, $r: String!) { item(batchId: $b, recordId: $r) { ... on Item { claimState history(first: 50) { edges { node { type actor details } } } } } }',
      { b: batchId, r: recordId },
    );
    const item = data.item as {
      claimState: string;
      history: { edges: { node: { type: string; actor: string; details: Record<string, unknown> } }[] };
    };
    return { claimState: item.claimState, events: item.history.edges.map((edge) => edge.node) };
  };

  it('releases the lease when the socket that claimed it closes, or is cut off', async () => {
    await addItem(server, people.proposer, 'cb', 'C-1');
    await addItem(server, people.proposer, 'cb', 'C-2');
    await addItem(server, people.proposer, 'cb', 'C-3');
    const watcher = await connectWs(server.url, people.viewer.headers);
    const watched = watcher.subscribe<Events>(QUEUE_EVENTS, {
      after: await latestSequenceOf(server),
      filter: { types: ['LEASE_RELEASED'] },
    });

    // Each screen claims as the principal whose key opened its connection.
    const screen = await connectWs(server.url, people.get('cora').headers);
    const bound = await screen.execute<{ claimItem: Claimed }>(CLAIM, { leaseSeconds: 600, batchId: 'cb', releaseOnDisconnect: true });
    const unbound = await screen.execute<{ claimItem: Claimed }>(CLAIM, { leaseSeconds: 600, batchId: 'cb' });
    expect(bound.data?.claimItem).toMatchObject({ __typename: 'ClaimItemPayload', claimed: true, item: { recordId: 'C-1' } });
    expect(unbound.data?.claimItem).toMatchObject({ claimed: true, item: { recordId: 'C-2' } });

    const crashed = await connectWs(server.url, people.get('cruz').headers);
    const alsoBound = await crashed.execute<{ claimItem: Claimed }>(CLAIM, { leaseSeconds: 600, batchId: 'cb', releaseOnDisconnect: true });
    expect(alsoBound.data?.claimItem).toMatchObject({ claimed: true, item: { recordId: 'C-3' } });

    // Clean close, and an abrupt one (no close frame: a crashed browser tab).
    await screen.close();
    crashed.socket.terminate();
    await crashed.closed;
    await waitFor(
      () => watched.data.length === 2,
      5_000,
      () => JSON.stringify(watched.data),
    );
    const released = watched.data.map(eventOf);
    expect(released.map((event) => [event.item?.recordId, event.actor, event.details]).sort()).toEqual([
      ['C-1', 'cora', { holder: 'cora', reason: 'CONNECTION_CLOSED' }],
      ['C-3', 'cruz', { holder: 'cruz', reason: 'CONNECTION_CLOSED' }],
    ]);

    // Both are claimable again; the lease taken without the flag outlived its connection.
    expect(await itemHistory('cb', 'C-1')).toMatchObject({ claimState: 'UNCLAIMED' });
    expect((await itemHistory('cb', 'C-1')).events.at(-1)).toEqual({
      type: 'LEASE_RELEASED',
      actor: 'cora',
      details: { holder: 'cora', reason: 'CONNECTION_CLOSED' },
    });
    expect((await itemHistory('cb', 'C-2')).claimState).toBe('ACTIVE');
    const next = await claim(server, people.get('dan'), 300, 'cb');
    const after = await claim(server, people.get('dan'), 300, 'cb');
    expect([next.recordId, after.recordId]).toEqual(['C-1', 'C-3']);
    await watcher.close();
  });

  it('a decided connection-bound lease is left alone when the socket closes', async () => {
    await addItem(server, people.proposer, 'cd', 'D-1');
    const screen = await connectWs(server.url, people.get('dee').headers);
    const bound = await screen.execute<{ claimItem: Claimed }>(CLAIM, { leaseSeconds: 600, batchId: 'cd', releaseOnDisconnect: true });
    const token = bound.data?.claimItem.lease?.token as string;
    const decided = await screen.execute<{ decideItem: { __typename: string } }>(DECIDE, { token, decision: 'ACCEPTED' });
    expect(decided.data?.decideItem.__typename).toBe('DecideItemPayload');
    const before = await latestSequenceOf(server);
    await screen.close();
    // Closing ran the release (refused, as the lease is gone); a later change lands right after the decision.
    await addItem(server, people.proposer, 'cd', 'D-2');
    expect(await latestSequenceOf(server)).toBe(before + 1);
    expect((await itemHistory('cd', 'D-1')).events.map((event) => event.type)).toEqual(['ITEM_ADDED', 'LEASE_CLAIMED', 'ITEM_DECIDED']);
  });

  it('over plain HTTP, releaseOnDisconnect is refused with INVALID_ARGUMENT and nothing is claimed', async () => {
    await addItem(server, people.proposer, 'ch', 'H-1');
    const data = await ask(server, people.get('hal'), CLAIM, { leaseSeconds: 300, batchId: 'ch', releaseOnDisconnect: true });
    expect(data.claimItem).toMatchObject({ __typename: 'UserError', code: 'INVALID_ARGUMENT', field: 'releaseOnDisconnect' });
    expect(await itemHistory('ch', 'H-1')).toMatchObject({ claimState: 'UNCLAIMED', events: [{ type: 'ITEM_ADDED' }] });
    // The refusal is in the history, with who attempted it.
    expect((await history(server, people.viewer)).at(-1)).toMatchObject({
      type: 'OPERATION_REFUSED',
      actor: 'hal',
      item: null,
      details: { operation: 'claimItem', code: 'INVALID_ARGUMENT', field: 'releaseOnDisconnect' },
    });
  });
});

describe('slow subscribers', () => {
  let server: TestServer;
  let people: Principals;
  beforeAll(async () => {
    server = await startTestServer();
    // The first test alone makes 41 changes: it writes as a proposer of its own.
    people = await principalsOf(server, { proposers: ['one-by-one'] });
    await mutate(server, people.admin, 'addCategories', ADD_CATEGORIES, { names: ['alpha'] });
  });
  afterAll(() => server.stop());

  const bulk = (prefix: string, count: number, reason = 'slow subscriber') =>
    Array.from({ length: count }, (_, index) => ({ batchId: prefix, recordId: `${prefix}-${index}`, proposedCategory: 'alpha', reason }));

  it('a stream that stops reading is cut off with SUBSCRIBER_TOO_SLOW and `after`, without holding up the others', async () => {
    // The stream API in this process, on the server's file: a feed of our own, woken by the server's commits too.
    const tail = await server.db.openTail();
    const feed = new EventFeed(tail, createLogger('silent'));
    await feed.start();
    const unwake = server.db.onCommit(() => feed.wake());
    try {
      const start = feed.sequence;
      const everything = () => true;
      const slow = await eventStream(feed, tail, { filter: everything, maxBuffered: 10 });
      const patient = await eventStream(feed, tail, { filter: everything, maxBuffered: 1_000 });
      const fast = await eventStream(feed, tail, { filter: everything, maxBuffered: 10 });
      const fastGot: number[] = [];
      const reading = (async () => {
        for await (const event of fast) {
          fastGot.push(event.id);
          if (fastGot.length === 40) return;
        }
      })();
      // 40 changes, one commit each: the fast reader keeps up, the slow one never reads.
      for (let n = 0; n < 40; n++) await addItem(server, people.get('one-by-one'), 'slow', `S-${n}`);
      await reading;
      expect(fastGot).toEqual(range(start + 1, start + 40));

      const error = await slow.next().then(
        () => null,
        (thrown: unknown) => thrown as GraphQLError,
      );
      expect(error?.extensions).toEqual({ code: 'SUBSCRIBER_TOO_SLOW', afterSequence: start, after: start });
      expect(error?.message).toContain(`afterSequence: ${start}`);
      expect(await slow.next()).toEqual({ done: true, value: undefined });

      // Under its own limit, a stream that paused loses nothing.
      const kept: number[] = [];
      for (let n = 0; n < 40; n++) kept.push(((await patient.next()).value as FeedEvent).id);
      expect(kept).toEqual(range(start + 1, start + 40));
      await patient.return?.();

      // Resuming from the error's `after` gives everything it missed, then live.
      const resumed = await eventStream(feed, tail, { after: error?.extensions.after as number, filter: everything });
      const got: number[] = [];
      for (let n = 0; n < 40; n++) got.push(((await resumed.next()).value as FeedEvent).id);
      expect(got).toEqual(range(start + 1, start + 40));
      const live = resumed.next();
      await addItem(server, people.get('one-by-one'), 'slow', 'S-live');
      expect(((await live).value as FeedEvent).id).toBe(start + 41);
      await resumed.return?.();
    } finally {
      unwake();
      feed.stop();
      await tail.close();
    }
  });

  it('a client whose socket stops reading does not delay another client', async () => {
    const QUERY = `subscription ($after: Int) { queueEvents(after: $after) { sequence type item { recordId reason } } }`;
    const quick = await connectWs(server.url, people.viewer.headers);
    const stalled = await connectWs(server.url, people.viewer.headers);
    try {
      const start = await latestSequenceOf(server);
      const quickSub = quick.subscribe<Events>(QUERY, { after: start });
      const stalledSub = stalled.subscribe<Events>(QUERY, { after: start });
      stalled.socket.pause();

      const reason = 'r'.repeat(1_000);
      for (let batch = 0; batch < 5; batch++)
        await mutate(server, people.proposer, 'addItems', ADD_ITEMS, { items: bulk(`p-${batch}`, 100, reason) });
      // Measured from the last commit: the writes take what the backend takes (PostgreSQL's several times
      // SQLite's); what matters is that the quick client is not kept waiting behind the stalled one.
      const written = performance.now();
      await waitFor(
        () => quickSub.data.length === 500,
        5_000,
        () => `quick client has ${quickSub.data.length} of 500`,
      );
      const lag = performance.now() - written;
      expect(sequences(quickSub)).toEqual(range(start + 1, start + 500));
      expect(lag).toBeLessThan(3_000);
      expect(stalledSub.data.length).toBe(0);

      // Once it reads again it gets everything, in order.
      stalled.socket.resume();
      await waitFor(
        () => stalledSub.data.length === 500,
        10_000,
        () => `stalled client has ${stalledSub.data.length} of 500`,
      );
      expect(sequences(stalledSub)).toEqual(range(start + 1, start + 500));
    } finally {
      await Promise.all([quick.close(), stalled.close()]);
    }
  });
  /**
   * A client reads one event, then its socket stops reading while `count` items commit at once, as a bulk
   * import by another process would commit them: one transaction on a connection of its own, taking the
   * write lock as every writer does. (Through the item service that takes a minute and more on PostgreSQL;
   * meanwhile the stalled socket would miss graphql-ws's keep-alive pings and be terminated (1006) after 12
   * to 24 s, before any buffer overflows. The rows are those addItem would make.) Large payloads fill the
   * socket buffers after a few hundred events; then the server-side buffer (10,000 events) fills. Resolves
   * once a quick client beside it has everything, the stalled one still paused.
   */
  async function stallThrough(count: number) {
    const quick = await connectWs(server.url, people.viewer.headers);
    const stalled = await connectWs(server.url, people.viewer.headers);
    const start = await latestSequenceOf(server);
    const quickSub = quick.subscribe<Events>('subscription ($after: Int) { queueEvents(after: $after) { sequence } }', { after: start });
    const stalledSub = stalled.subscribe<Events>(
      'subscription ($after: Int) { queueEvents(after: $after) { sequence item { r1: reason r2: reason r3: reason r4: reason } } }',
      { after: start },
    );
    const reason = 'r'.repeat(1_000);
    const prefix = `o${count}`;
    await mutate(server, people.proposer, 'addItems', ADD_ITEMS, { items: bulk(`${prefix}-first`, 1, reason) });
    await waitFor(() => stalledSub.data.length === 1);
    const total = 1 + count;
    const importer = await openDatabase({ location: server.db.location });
    try {
      stalled.socket.pause();
      await importer.write(async (_tx, sql) => {
        await sql.run(
          `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
           INSERT INTO "Item" ("batchId", "recordId", "proposedCategory", "reason", "createdAt", "addedBy")
           SELECT '${prefix}-bulk', '${prefix}-' || i, 'alpha', ?, (SELECT "createdAt" FROM "Item" WHERE "batchId" = '${prefix}-first'), 'importer' FROM n`,
          reason,
        );
        await sql.run(
          `INSERT INTO "Event" ("occurredAt", "type", "actor", "itemId", "itemVersion", "toStatus", "details")
           SELECT "createdAt", 'ITEM_ADDED', "addedBy", "id", 1, 'PENDING',
             '{"batchId":"' || "batchId" || '","recordId":"' || "recordId" || '","proposedCategory":"alpha"}'
           FROM "Item" WHERE "batchId" = '${prefix}-bulk' ORDER BY "id"`,
        );
      });
    } finally {
      await importer.close();
    }
    // PostgreSQL's feed reads 25,000 events in several seconds more than SQLite's.
    await waitFor(
      () => quickSub.data.length === total,
      30_000,
      () => `quick client has ${quickSub.data.length} of ${total}`,
    );
    expect(sequences(quickSub)).toEqual(range(start + 1, start + total));
    return { quick, stalled, start, total, stalledSub };
  }

  it('over WebSocket, a client that falls a buffer behind while it reads catches up from the history: every event, in order, never cut off', async () => {
    const before = streamWork.catchUps;
    // Past its buffer once (after it had read): it drops the buffer, and replays the history once it reads again.
    const { quick, stalled, start, total, stalledSub } = await stallThrough(15_000);
    try {
      expect(streamWork.catchUps - before).toBeGreaterThanOrEqual(1);
      stalled.socket.resume();
      await waitFor(
        () => stalledSub.data.length === total,
        20_000,
        () => `stalled client has ${stalledSub.data.length} of ${total}`,
      );
      expect(sequences(stalledSub)).toEqual(range(start + 1, start + total));
      expect(stalledSub.error).toBeNull();
      // Live again after it.
      await mutate(server, people.proposer, 'addItems', ADD_ITEMS, { items: bulk('o-after', 1) });
      await waitFor(() => stalledSub.data.length === total + 1);
      expect(sequences(stalledSub).at(-1)).toBe(start + total + 1);
    } finally {
      await Promise.all([quick.close(), stalled.close()]);
    }
  });

  it('over WebSocket, a client that takes nothing while a whole buffer arrives is cut off with SUBSCRIBER_TOO_SLOW and resumes from `after`', async () => {
    // Past its buffer twice while it reads nothing: the first time it had read since it subscribed (a
    // catch-up), the second it had not.
    const { quick, stalled, start, total, stalledSub } = await stallThrough(25_000);
    try {
      stalled.socket.resume();
      await stalledSub.ended;
      const errors = stalledSub.error as GraphQLFormattedError[];
      expect(errors.map((error) => error.extensions?.code)).toEqual(['SUBSCRIBER_TOO_SLOW']);
      const after = errors[0]?.extensions?.after as number;
      expect(after).toBeLessThan(start + total);
      // Everything up to `after` arrived, in order; nothing after it.
      expect(sequences(stalledSub)).toEqual(range(start + 1, after));

      // The connection is still usable: resuming from `after` fills the gap exactly.
      const resumed = stalled.subscribe<Events>('subscription ($after: Int) { queueEvents(after: $after) { sequence } }', { after });
      await waitFor(
        () => resumed.data.length === start + total - after,
        20_000,
        () => `resumed has ${resumed.data.length}`,
      );
      expect(sequences(resumed)).toEqual(range(after + 1, start + total));
    } finally {
      await Promise.all([quick.close(), stalled.close()]);
    }
  });
});

describe('server-sent events', () => {
  let server: TestServer;
  let people: Principals;
  beforeAll(async () => {
    server = await startTestServer();
    people = await principalsOf(server);
    await mutate(server, people.admin, 'addCategories', ADD_CATEGORIES, { names: ['alpha'] });
  });
  afterAll(() => server.stop());

  it('POST /graphql with Accept: text/event-stream streams subscription events', async () => {
    const start = await latestSequenceOf(server);
    const abort = new AbortController();
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...people.viewer.headers },
      body: JSON.stringify({
        query: 'subscription ($after: Int) { queueEvents(after: $after) { sequence type item { recordId } } }',
        variables: { after: start },
      }),
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const received: { sequence: number; type: string; item: { recordId: string } }[] = [];
    let buffered = '';
    const readUntil = async (count: number) => {
      while (received.length < count) {
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
          if (message.includes('event: next') && data)
            received.push((JSON.parse(data) as { data: { queueEvents: (typeof received)[number] } }).data.queueEvents);
        }
      }
    };
    await addItem(server, people.proposer, 'sse', 'E-1');
    await readUntil(1);
    await addItem(server, people.proposer, 'sse', 'E-2');
    await readUntil(2);
    abort.abort();
    expect(received).toEqual([
      { sequence: start + 1, type: 'ITEM_ADDED', item: { recordId: 'E-1' } },
      { sequence: start + 2, type: 'ITEM_ADDED', item: { recordId: 'E-2' } },
    ]);

    // Without a credential, no stream: 401 before anything is subscribed.
    const anonymous = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { queueEvents { sequence } }' }),
    });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] });
  });
});
