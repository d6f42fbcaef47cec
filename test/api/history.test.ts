// The append-only history (SPEC §4) through the API: one event per change with the right fields and the
// principal who made it, for a refusal only its OPERATION_REFUSED record; Item.history and Query.events paging;
// Relay node/nodes; item filters; and lease tokens never shown.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/domain/access.js';
import { graphql } from '../gql/index.js';
import { postGraphQL, startTestServer, type TestServer } from '../support/server.js';

graphql(`
  fragment HiEvent on Event {
    id
    sequence
    type
    actor
    occurredAt
    categoryName
    fromStatus
    toStatus
    leaseExpiresAt
    leaseNumber
    itemVersion
    details
    item { id batchId recordId version }
  }
`);

graphql(`
  fragment HiPageInfo on PageInfo {
    startCursor
    endCursor
    hasNextPage
    hasPreviousPage
  }
`);

const SetUp = graphql(`
  mutation HiSetUp($names: [String!]!) {
    addCategories(input: { names: $names }) {
      __typename
      ... on UserError { code field message }
    }
  }
`);

const Retire = graphql(`
  mutation HiRetire($name: String!) {
    retireCategory(input: { name: $name }) {
      __typename
      ... on UserError { code field message }
    }
  }
`);

const Add = graphql(`
  mutation HiAdd($input: AddItemInput!) {
    addItem(input: $input) {
      __typename
      ... on AddItemPayload { item { id version } }
      ... on UserError { code field message }
    }
  }
`);

const AddMany = graphql(`
  mutation HiAddMany($items: [AddItemInput!]!) {
    addItems(input: { items: $items }) {
      __typename
      ... on AddItemsPayload { addedCount refusedCount }
      ... on UserError { code field message }
    }
  }
`);

const Claim = graphql(`
  mutation HiClaim($leaseSeconds: Int, $batchId: String) {
    claimItem(input: { leaseSeconds: $leaseSeconds, batchId: $batchId }) {
      __typename
      ... on ClaimItemPayload { claimed item { id recordId version } lease { token expiresAt } }
      ... on UserError { code field message }
    }
  }
`);

const Renew = graphql(`
  mutation HiRenew($token: String!, $leaseSeconds: Int) {
    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {
      __typename
      ... on RenewLeasePayload { item { version leaseExpiresAt } }
      ... on UserError { code field message }
    }
  }
`);

const Release = graphql(`
  mutation HiRelease($token: String!) {
    releaseLease(input: { token: $token }) {
      __typename
      ... on ReleaseLeasePayload { item { version } }
      ... on UserError { code field message }
    }
  }
`);

const Decide = graphql(`
  mutation HiDecide($token: String!, $decision: Decision!, $category: String) {
    decideItem(input: { token: $token, decision: $decision, category: $category }) {
      __typename
      ... on DecideItemPayload { item { version } }
      ... on UserError { code field message }
    }
  }
`);

const CreateKey = graphql(`
  mutation HiCreateKey($name: String!, $roles: [Role!]!) {
    createApiKey(input: { name: $name, roles: $roles }) {
      __typename
      ... on CreateApiKeyPayload { key apiKey { id prefix } }
      ... on UserError { code field message }
    }
  }
`);

const RevokeKey = graphql(`
  mutation HiRevokeKey($id: Int!) {
    revokeApiKey(input: { id: $id }) {
      __typename
      ... on UserError { code field message }
    }
  }
`);

const Events = graphql(`
  query HiEvents($first: Int, $last: Int, $after: String, $before: String, $filter: EventFilter) {
    events(first: $first, last: $last, after: $after, before: $before, filter: $filter) {
      edges { cursor node { ...HiEvent } }
      pageInfo { ...HiPageInfo }
    }
  }
`);

const History = graphql(`
  query HiHistory($batchId: String!, $recordId: String!, $first: Int, $last: Int, $after: String, $before: String) {
    item(batchId: $batchId, recordId: $recordId) {
      __typename
      ... on Item {
        id
        version
        history(first: $first, last: $last, after: $after, before: $before) {
          edges { cursor node { ...HiEvent } }
          pageInfo { ...HiPageInfo }
        }
      }
    }
  }
`);

const Node = graphql(`
  query HiNode($id: ID!) {
    node(id: $id) {
      __typename
      id
      ... on Item { batchId recordId status }
      ... on Event { sequence type }
    }
  }
`);

const Nodes = graphql(`
  query HiNodes($ids: [ID!]!) {
    nodes(ids: $ids) {
      __typename
      id
      ... on Item { batchId recordId }
      ... on Event { sequence type }
    }
  }
`);

const Items = graphql(`
  query HiItems($filter: ItemFilter, $first: Int, $after: String) {
    items(filter: $filter, first: $first, after: $after) {
      edges { cursor node { batchId recordId } }
      pageInfo { ...HiPageInfo }
    }
  }
`);

const Everything = graphql(`
  query HiEverything($batchId: String!, $recordId: String!) {
    item(batchId: $batchId, recordId: $recordId) {
      __typename
      ... on Item {
        id batchId recordId status proposedCategory finalCategory reason reviewedBy decidedAt createdAt addedBy
        claimState claimedBy claimedAt leaseExpiresAt version
        history(first: 100) { edges { cursor node { ...HiEvent } } }
      }
    }
    items(first: 100) { edges { cursor node { id claimedBy leaseExpiresAt version } } }
    events(first: 100) { edges { cursor node { ...HiEvent } } }
  }
`);

type Result<T> = { data?: T | null; errors?: unknown[] };

function ok<T>(result: Result<T>): T {
  if (result.errors || !result.data) throw new Error(`GraphQL errors: ${JSON.stringify(result)}`);
  return result.data;
}

const iso = (ms: number) => new Date(ms).toISOString();
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function eventRows(server: TestServer) {
  return server.db.read.event.count();
}

async function allEvents(
  server: TestServer,
  filter?: { types?: ('LEASE_CLAIMED' | 'ITEM_DECIDED' | 'ITEM_ADDED')[]; afterSequence?: number },
) {
  const nodes = [];
  let after: string | null | undefined;
  for (;;) {
    const page = ok(await server.gql(Events, { first: 100, after, filter })).events;
    nodes.push(...page.edges.map((e) => e.node));
    if (!page.pageInfo.hasNextPage) return nodes;
    after = page.pageInfo.endCursor;
  }
}

/** Runs `document` as the principal `name` (a REVIEWER unless `roles` say otherwise). */
async function by<TResult, TVariables>(
  server: TestServer,
  name: string,
  document: TypedDocumentNode<TResult, TVariables>,
  variables?: TVariables,
  headers?: Record<string, string>,
  roles?: Role[],
) {
  return (await server.as(name, roles)).gql(document, variables, headers);
}

/** Makes the API keys of these principals before anything is counted (making one is itself an event). */
async function principals(server: TestServer, ...specs: [name: string, roles?: Role[]][]) {
  await server.as('setup', ['ADMIN', 'PROPOSER']);
  for (const [name, roles] of specs) await server.as(name, roles);
}

async function claimed(server: TestServer, reviewer: string, leaseSeconds: number, batchId?: string) {
  const claim = ok(await by(server, reviewer, Claim, { leaseSeconds, batchId })).claimItem;
  if (claim.__typename !== 'ClaimItemPayload' || !claim.lease || !claim.item) throw new Error(`claim failed: ${JSON.stringify(claim)}`);
  return { item: claim.item, token: claim.lease.token };
}

describe('one event per change, written with the change', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    await principals(server, ['admin-sato', ['ADMIN']], ['bot', ['PROPOSER']], ['tanaka'], ['suzuki'], ['sato'], ['mallory']);
  });
  afterAll(() => server.stop());

  /** Runs one change and returns the events it wrote (checking the count both in the API and in the table). */
  async function change(expectedEvents: number, run: () => Promise<unknown>) {
    const rows = await eventRows(server);
    const before = await allEvents(server);
    await run();
    const after = await allEvents(server);
    expect(await eventRows(server)).toBe(rows + expectedEvents);
    // Recorded events never change (their `item` is the item's current state, so compare its id only).
    const frozen = (events: typeof before) => events.map((e) => ({ ...e, item: e.item?.id ?? null }));
    expect(frozen(after.slice(0, before.length))).toEqual(frozen(before));
    const added = after.slice(before.length);
    expect(added).toHaveLength(expectedEvents);
    for (const event of added) expect(event.occurredAt).toBe(iso(server.clock.now().getTime()));
    return added;
  }

  it('records every kind of change with type, actor, states, item version, lease expiry and details', async () => {
    const T0 = server.clock.now().getTime();
    const admin = (await server.as('admin-sato', ['ADMIN'])).gql;

    let keyId = 0;
    const [keyCreated] = await change(1, async () => {
      const made = ok(await admin(CreateKey, { name: 'ito', roles: ['VIEWER', 'REVIEWER'] })).createApiKey;
      if (made.__typename !== 'CreateApiKeyPayload') throw new Error(JSON.stringify(made));
      keyId = made.apiKey.id;
    });
    expect(keyCreated).toMatchObject({
      type: 'API_KEY_CREATED',
      actor: 'admin-sato',
      item: null,
      itemVersion: null,
      categoryName: null,
      details: { keyId, name: 'ito', roles: 'REVIEWER,VIEWER' },
    });
    const [keyRevoked] = await change(1, () => admin(RevokeKey, { id: keyId }));
    expect(keyRevoked).toMatchObject({
      type: 'API_KEY_REVOKED',
      actor: 'admin-sato',
      item: null,
      itemVersion: null,
      details: { keyId, name: 'ito' },
    });

    const categories = await change(3, () => admin(SetUp, { names: ['配送', '請求', '旧'] }));
    expect(categories).toEqual(
      ['配送', '請求', '旧'].map((name) =>
        expect.objectContaining({
          type: 'CATEGORY_ADDED',
          actor: 'admin-sato',
          categoryName: name,
          item: null,
          itemVersion: null,
          fromStatus: null,
          toStatus: null,
          leaseExpiresAt: null,
          details: {},
        }),
      ),
    );

    const [retired] = await change(1, () => admin(Retire, { name: '旧' }));
    expect(retired).toMatchObject({ type: 'CATEGORY_RETIRED', actor: 'admin-sato', categoryName: '旧', item: null, itemVersion: null });

    server.clock.advance(500);

    await server.settle();
    let itemId = '';
    const [added] = await change(1, async () => {
      const result = ok(
        await by(server, 'bot', Add, { input: { batchId: 'h', recordId: 'r1', proposedCategory: '配送', reason: 'why' } }, {}, [
          'PROPOSER',
        ]),
      ).addItem;
      if (result.__typename !== 'AddItemPayload') throw new Error(JSON.stringify(result));
      itemId = result.item.id;
    });
    expect(added).toEqual(
      expect.objectContaining({
        type: 'ITEM_ADDED',
        actor: 'bot',
        categoryName: null,
        fromStatus: null,
        toStatus: 'PENDING',
        itemVersion: 1,
        leaseExpiresAt: null,
        details: { batchId: 'h', recordId: 'r1', proposedCategory: '配送' },
        item: { id: itemId, batchId: 'h', recordId: 'r1', version: expect.any(Number) },
      }),
    );

    let token = '';
    const [claimEvent] = await change(1, async () => {
      token = (await claimed(server, 'tanaka', 60)).token;
    });
    expect(claimEvent).toMatchObject({
      type: 'LEASE_CLAIMED',
      actor: 'tanaka',
      fromStatus: null,
      toStatus: null,
      itemVersion: 2,
      leaseExpiresAt: iso(T0 + 500 + 60_000),
      details: { holder: 'tanaka', leaseSeconds: 60 },
    });

    server.clock.advance(10_000);

    await server.settle();
    // The actor is the authenticated principal: a leftover actor header names nobody.
    const [renewEvent] = await change(1, () =>
      by(server, 'tanaka', Renew, { token, leaseSeconds: 120 }, { 'x-leasehold-actor': 'mallory' }),
    );
    expect(renewEvent).toMatchObject({
      type: 'LEASE_RENEWED',
      actor: 'tanaka',
      fromStatus: null,
      toStatus: null,
      itemVersion: 3,
      leaseExpiresAt: iso(T0 + 10_500 + 120_000),
      details: { holder: 'tanaka', leaseSeconds: 120, previousExpiresAt: iso(T0 + 500 + 60_000) },
    });

    const [releaseEvent] = await change(1, () => by(server, 'tanaka', Release, { token }));
    expect(releaseEvent).toMatchObject({
      type: 'LEASE_RELEASED',
      actor: 'tanaka',
      fromStatus: null,
      toStatus: null,
      itemVersion: 4,
      leaseExpiresAt: null,
      details: { holder: 'tanaka' },
    });

    const [fresh] = await change(1, async () => {
      token = (await claimed(server, 'suzuki', 30)).token;
    });
    expect(fresh).toMatchObject({
      type: 'LEASE_CLAIMED',
      actor: 'suzuki',
      itemVersion: 5,
      details: { holder: 'suzuki', leaseSeconds: 30 },
    });
    expect(fresh?.details).not.toHaveProperty('replacedHolder');

    // The expiry announcer records the lapse as the clock passes it; the re-claim then replaces the lease.
    const [lapsed] = await change(1, async () => {
      server.clock.advance(30_000);
      await server.settle();
    });
    const [replacing] = await change(1, async () => {
      token = (await claimed(server, 'sato', 300)).token;
    });
    expect(lapsed).toMatchObject({
      type: 'LEASE_EXPIRED',
      actor: 'system',
      itemVersion: 6,
      leaseNumber: 2,
      leaseExpiresAt: iso(T0 + 10_500 + 30_000),
      details: { holder: 'suzuki', expiredAt: iso(T0 + 10_500 + 30_000) },
    });
    expect(replacing).toMatchObject({
      type: 'LEASE_CLAIMED',
      actor: 'sato',
      itemVersion: 7,
      leaseNumber: 3,
      leaseExpiresAt: iso(T0 + 40_500 + 300_000),
      details: {
        holder: 'sato',
        leaseSeconds: 300,
        replacedHolder: 'suzuki',
        replacedLeaseNumber: 2,
        replacedLeaseExpiredAt: iso(T0 + 10_500 + 30_000),
      },
    });

    server.clock.advance(1_000);

    await server.settle();
    const [decided] = await change(1, () =>
      by(server, 'sato', Decide, { token, decision: 'CORRECTED', category: '請求' }, { 'x-leasehold-actor': 'mallory' }),
    );
    expect(decided).toMatchObject({
      type: 'ITEM_DECIDED',
      actor: 'sato',
      fromStatus: 'PENDING',
      toStatus: 'CORRECTED',
      itemVersion: 8,
      leaseNumber: 3,
      leaseExpiresAt: null,
      details: { decision: 'CORRECTED', finalCategory: '請求', reviewedBy: 'sato', heldMs: 1_000 },
      item: { id: itemId, version: 8 },
    });

    // The item's own history: its versions 1..8 in order, sequences strictly increasing.
    const history = ok(await server.gql(History, { batchId: 'h', recordId: 'r1', first: 100 })).item;
    if (history.__typename !== 'Item') throw new Error(JSON.stringify(history));
    const nodes = history.history.edges.map((e) => e.node);
    expect(nodes.map((e) => e.itemVersion)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(nodes.map((e) => e.type)).toEqual([
      'ITEM_ADDED',
      'LEASE_CLAIMED',
      'LEASE_RENEWED',
      'LEASE_RELEASED',
      'LEASE_CLAIMED',
      'LEASE_EXPIRED',
      'LEASE_CLAIMED',
      'ITEM_DECIDED',
    ]);
    expect(history.version).toBe(8);
    const sequences = nodes.map((e) => e.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(new Set(sequences).size).toBe(sequences.length);
  });

  it('REJECTED and ACCEPTED decisions record their status change and final category', async () => {
    await change(2, () =>
      server.gql(AddMany, {
        items: [
          { batchId: 'h2', recordId: 'a', proposedCategory: '配送', reason: 'x' },
          { batchId: 'h2', recordId: 'b', proposedCategory: '配送', reason: 'x' },
        ],
      }),
    );
    const a = await claimed(server, 'tanaka', 300, 'h2');
    const [accepted] = await change(1, () => by(server, 'tanaka', Decide, { token: a.token, decision: 'ACCEPTED' }));
    expect(accepted).toMatchObject({
      fromStatus: 'PENDING',
      toStatus: 'ACCEPTED',
      details: { decision: 'ACCEPTED', finalCategory: '配送', reviewedBy: 'tanaka' },
    });
    const b = await claimed(server, 'tanaka', 300, 'h2');
    const [rejected] = await change(1, () => by(server, 'tanaka', Decide, { token: b.token, decision: 'REJECTED' }));
    expect(rejected).toMatchObject({
      fromStatus: 'PENDING',
      toStatus: 'REJECTED',
      details: { decision: 'REJECTED', finalCategory: null, reviewedBy: 'tanaka' },
    });
  });

  it('a refused mutation changes nothing: its one trace is an OPERATION_REFUSED event saying who tried what and why', async () => {
    await change(1, () => server.gql(Add, { input: { batchId: 'h3', recordId: 'r1', proposedCategory: '配送', reason: 'x' } }));
    const live = await claimed(server, 'tanaka', 300, 'h3');
    await change(1, () => server.gql(Add, { input: { batchId: 'h3', recordId: 'r2', proposedCategory: '配送', reason: 'x' } }));
    const short = await claimed(server, 'tanaka', 30, 'h3');
    server.clock.advance(30_000);
    await server.settle();

    type Answer = { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] };
    // [label, the operation refused (null: not refused as a whole), who tried, the code, the attempt]
    const refusals: [string, string | null, string, string | null, () => Promise<Answer>][] = [
      ['addCategories duplicate', 'addCategories', 'setup', 'DUPLICATE_CATEGORY', () => server.gql(SetUp, { names: ['新', '配送'] })],
      ['addCategories repeated', 'addCategories', 'setup', 'DUPLICATE_CATEGORY', () => server.gql(SetUp, { names: ['新', '新'] })],
      ['retire unknown', 'retireCategory', 'setup', 'CATEGORY_NOT_FOUND', () => server.gql(Retire, { name: 'nope' })],
      ['retire twice', 'retireCategory', 'setup', 'CATEGORY_RETIRED', () => server.gql(Retire, { name: '旧' })],
      [
        'addItem bad text',
        'addItem',
        'setup',
        'INVALID_TEXT',
        () => server.gql(Add, { input: { batchId: ' h3', recordId: 'r9', proposedCategory: '配送', reason: 'x' } }),
      ],
      [
        'addItem duplicate',
        'addItem',
        'setup',
        'DUPLICATE_ITEM',
        () => server.gql(Add, { input: { batchId: 'h3', recordId: 'r1', proposedCategory: '配送', reason: 'x' } }),
      ],
      [
        'addItem retired',
        'addItem',
        'setup',
        'CATEGORY_RETIRED',
        () => server.gql(Add, { input: { batchId: 'h3', recordId: 'r9', proposedCategory: '旧', reason: 'x' } }),
      ],
      [
        'addItems none good (a payload with refused entries, not a refused call: nothing at all is written)',
        null,
        'setup',
        null,
        () => server.gql(AddMany, { items: [{ batchId: 'h3', recordId: 'r1', proposedCategory: '配送', reason: 'x' }] }),
      ],
      ['addItems empty', 'addItems', 'setup', 'TOO_MANY_ITEMS', () => server.gql(AddMany, { items: [] })],
      ['claim bad lease', 'claimItem', 'tanaka', 'LEASE_OUT_OF_RANGE', () => by(server, 'tanaka', Claim, { leaseSeconds: 29 })],
      [
        'renew malformed token',
        'renewLease',
        'tanaka',
        'INVALID_TOKEN',
        () => by(server, 'tanaka', Renew, { token: 'short', leaseSeconds: 300 }),
      ],
      [
        'renew expired',
        'renewLease',
        'tanaka',
        'CLAIM_EXPIRED',
        () => by(server, 'tanaka', Renew, { token: short.token, leaseSeconds: 300 }),
      ],
      ['release expired', 'releaseLease', 'tanaka', 'CLAIM_EXPIRED', () => by(server, 'tanaka', Release, { token: short.token })],
      [
        'decide expired',
        'decideItem',
        'tanaka',
        'CLAIM_EXPIRED',
        () => by(server, 'tanaka', Decide, { token: short.token, decision: 'ACCEPTED' }),
      ],
      [
        'decide unknown category',
        'decideItem',
        'tanaka',
        'UNKNOWN_CATEGORY',
        () => by(server, 'tanaka', Decide, { token: live.token, decision: 'CORRECTED', category: 'nope' }),
      ],
      [
        'decide unchanged',
        'decideItem',
        'tanaka',
        'CATEGORY_UNCHANGED',
        () => by(server, 'tanaka', Decide, { token: live.token, decision: 'CORRECTED', category: '配送' }),
      ],
      [
        'decide retired',
        'decideItem',
        'tanaka',
        'CATEGORY_RETIRED',
        () => by(server, 'tanaka', Decide, { token: live.token, decision: 'CORRECTED', category: '旧' }),
      ],
      [
        'renew bad lease',
        'renewLease',
        'tanaka',
        'LEASE_OUT_OF_RANGE',
        () => by(server, 'tanaka', Renew, { token: live.token, leaseSeconds: 3601 }),
      ],
      // Refused for who is asking: a missing role (before anything runs), or another principal's lease.
      ['claim without the REVIEWER role', 'claimItem', 'setup', 'FORBIDDEN', () => server.gql(Claim, { leaseSeconds: 300 })],
      [
        'addCategories without the ADMIN role',
        'addCategories',
        'tanaka',
        'FORBIDDEN',
        () => by(server, 'tanaka', SetUp, { names: ['新'] }),
      ],
      [
        'renew another reviewer’s lease',
        'renewLease',
        'mallory',
        'NOT_LEASE_HOLDER',
        () => by(server, 'mallory', Renew, { token: live.token, leaseSeconds: 300 }),
      ],
      [
        'decide another reviewer’s lease',
        'decideItem',
        'mallory',
        'NOT_LEASE_HOLDER',
        () => by(server, 'mallory', Decide, { token: live.token, decision: 'ACCEPTED' }),
      ],
      [
        'release another reviewer’s lapsed lease',
        'releaseLease',
        'mallory',
        'NOT_LEASE_HOLDER',
        () => by(server, 'mallory', Release, { token: short.token }),
      ],
    ];
    const state = async () => {
      // Everything but the history itself, which `change` checks.
      const { events: _events, ...rest } = ok(await server.gql(Everything, { batchId: 'h3', recordId: 'r1' }));
      return rest;
    };
    for (const [label, operation, actor, code, run] of refusals) {
      const before = await state();
      let answer: Answer = {};
      const added = await change(operation ? 1 : 0, async () => {
        answer = await run();
      });
      if (operation) {
        // What the caller was told: a top-level error (FORBIDDEN) or the UserError in the result union.
        const forbidden = answer.errors?.[0];
        const seen = forbidden
          ? { code: forbidden.extensions?.code, field: forbidden.extensions?.field ?? null, message: forbidden.message }
          : ((answer.data as Record<string, { code?: string; field?: string | null; message?: string }>)[operation] ?? {});
        expect(seen.code, label).toBe(code);
        expect(added, label).toEqual([
          expect.objectContaining({
            type: 'OPERATION_REFUSED',
            actor,
            item: null,
            itemVersion: null,
            categoryName: null,
            fromStatus: null,
            toStatus: null,
            leaseExpiresAt: null,
            details: { operation, code, field: seen.field, message: seen.message },
          }),
        ]);
      } else {
        expect(answer.data, label).toMatchObject({ addItems: { __typename: 'AddItemsPayload', addedCount: 0, refusedCount: 1 } });
        expect(added, label).toEqual([]);
      }
      expect(await state(), label).toEqual(before);
    }
    // The live lease is intact after all of that.
    await change(1, () => by(server, 'tanaka', Decide, { token: live.token, decision: 'ACCEPTED' }));
  });
});

describe('paging the history', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    await principals(server, ['tanaka'], ['suzuki']);
    ok(await server.gql(SetUp, { names: ['配送', '請求'] }));
    for (const recordId of ['a', 'b']) {
      ok(await server.gql(Add, { input: { batchId: 'p', recordId, proposedCategory: '配送', reason: 'x' } }));
    }
    // Interleave the two items' changes so their histories are not contiguous in the global history.
    const a = await claimed(server, 'tanaka', 300, 'p');
    const b = await claimed(server, 'suzuki', 300, 'p');
    for (let i = 0; i < 3; i++) {
      server.clock.advance(1_000);
      await server.settle();
      ok(await by(server, 'tanaka', Renew, { token: a.token, leaseSeconds: 300 }));
      ok(await by(server, 'suzuki', Renew, { token: b.token, leaseSeconds: 300 }));
    }
    ok(await by(server, 'tanaka', Decide, { token: a.token, decision: 'ACCEPTED' }));
    ok(await by(server, 'suzuki', Release, { token: b.token }));
  });
  afterAll(() => server.stop());

  it('Query.events pages forward with first/after and backward with last/before, gap-free and oldest first', async () => {
    const all = await allEvents(server);
    // 3 API keys (setup, tanaka, suzuki) + 2 categories + 2 adds + 2 claims + 6 renewals + 1 decision + 1 release
    expect(all).toHaveLength(17);
    expect(all.slice(0, 3).map((e) => e.type)).toEqual(['API_KEY_CREATED', 'API_KEY_CREATED', 'API_KEY_CREATED']);
    const sequences = all.map((e) => e.sequence);
    expect(sequences).toEqual([...sequences].sort((x, y) => x - y));

    const forward: number[] = [];
    let after: string | null | undefined;
    let pages = 0;
    for (;;) {
      const page = ok(await server.gql(Events, { first: 4, after })).events;
      expect(page.edges.length).toBeLessThanOrEqual(4);
      expect(page.pageInfo.hasPreviousPage).toBe(pages > 0);
      expect(page.pageInfo.startCursor).toBe(page.edges[0]?.cursor ?? null);
      expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)?.cursor ?? null);
      forward.push(...page.edges.map((e) => e.node.sequence));
      pages++;
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(pages).toBe(5);
    expect(forward).toEqual(sequences);

    const backward: number[][] = [];
    let before: string | null | undefined;
    for (;;) {
      const page = ok(await server.gql(Events, { last: 4, before })).events;
      backward.unshift(page.edges.map((e) => e.node.sequence));
      expect(page.pageInfo.hasNextPage).toBe(backward.length > 1);
      if (!page.pageInfo.hasPreviousPage) break;
      before = page.pageInfo.startCursor;
    }
    expect(backward.flat()).toEqual(sequences);
    expect(backward.at(-1)).toEqual(sequences.slice(-4));

    // A cursor addresses a position: after the 5th event comes the 6th, before it the 4th.
    const fifth = ok(await server.gql(Events, { first: 5 })).events.edges[4]?.cursor;
    expect(ok(await server.gql(Events, { first: 1, after: fifth })).events.edges[0]?.node.sequence).toBe(sequences[5]);
    expect(ok(await server.gql(Events, { last: 1, before: fifth })).events.edges[0]?.node.sequence).toBe(sequences[3]);
    // Default page size is 20 (all 17 here); first: 0 is an empty page.
    expect(ok(await server.gql(Events, {})).events.edges).toHaveLength(17);
    expect(ok(await server.gql(Events, { first: 0 })).events.edges).toEqual([]);
  });

  it('filters events by types and afterSequence, and pages within the filter', async () => {
    const all = await allEvents(server);
    const claimsAndDecisions = await allEvents(server, { types: ['LEASE_CLAIMED', 'ITEM_DECIDED'] });
    expect(claimsAndDecisions.map((e) => e.sequence)).toEqual(
      all.filter((e) => e.type === 'LEASE_CLAIMED' || e.type === 'ITEM_DECIDED').map((e) => e.sequence),
    );
    expect(claimsAndDecisions.map((e) => e.type)).toEqual(['LEASE_CLAIMED', 'LEASE_CLAIMED', 'ITEM_DECIDED']);

    // The pivot is the first renewal: after it come only renewals, the decision and the release.
    const pivotIndex = all.findIndex((e) => e.type === 'LEASE_RENEWED');
    expect(pivotIndex).toBe(9);
    const pivot = all[pivotIndex]?.sequence ?? 0;
    expect((await allEvents(server, { afterSequence: pivot })).map((e) => e.sequence)).toEqual(
      all.slice(pivotIndex + 1).map((e) => e.sequence),
    );
    expect(await allEvents(server, { afterSequence: all.at(-1)?.sequence })).toEqual([]);
    expect((await allEvents(server, { afterSequence: 0 })).length).toBe(all.length);
    expect((await allEvents(server, { types: ['LEASE_CLAIMED', 'ITEM_DECIDED'], afterSequence: pivot })).map((e) => e.type)).toEqual([
      'ITEM_DECIDED',
    ]);

    const first = ok(await server.gql(Events, { first: 1, filter: { types: ['LEASE_CLAIMED'] } })).events;
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = ok(await server.gql(Events, { first: 1, after: first.pageInfo.endCursor, filter: { types: ['LEASE_CLAIMED'] } })).events;
    expect(second.edges.map((e) => e.node.actor)).toEqual(['suzuki']);
    expect(second.pageInfo.hasNextPage).toBe(false);
  });

  it("Item.history holds only that item's events, oldest first, and pages both ways", async () => {
    const full = ok(await server.gql(History, { batchId: 'p', recordId: 'a', first: 100 })).item;
    if (full.__typename !== 'Item') throw new Error(JSON.stringify(full));
    const nodes = full.history.edges.map((e) => e.node);
    expect(nodes.map((e) => e.type)).toEqual([
      'ITEM_ADDED',
      'LEASE_CLAIMED',
      'LEASE_RENEWED',
      'LEASE_RENEWED',
      'LEASE_RENEWED',
      'ITEM_DECIDED',
    ]);
    expect(nodes.every((e) => e.item?.id === full.id)).toBe(true);
    expect(full.history.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
    const sequences = nodes.map((e) => e.sequence);

    const page1 = ok(await server.gql(History, { batchId: 'p', recordId: 'a', first: 4 })).item;
    if (page1.__typename !== 'Item') throw new Error('not an item');
    expect(page1.history.edges.map((e) => e.node.sequence)).toEqual(sequences.slice(0, 4));
    expect(page1.history.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const page2 = ok(await server.gql(History, { batchId: 'p', recordId: 'a', first: 4, after: page1.history.pageInfo.endCursor })).item;
    if (page2.__typename !== 'Item') throw new Error('not an item');
    expect(page2.history.edges.map((e) => e.node.sequence)).toEqual(sequences.slice(4));
    expect(page2.history.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });

    const tail = ok(await server.gql(History, { batchId: 'p', recordId: 'a', last: 2 })).item;
    if (tail.__typename !== 'Item') throw new Error('not an item');
    expect(tail.history.edges.map((e) => e.node.type)).toEqual(['LEASE_RENEWED', 'ITEM_DECIDED']);
    expect(tail.history.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    const before = ok(await server.gql(History, { batchId: 'p', recordId: 'a', last: 10, before: tail.history.pageInfo.startCursor })).item;
    if (before.__typename !== 'Item') throw new Error('not an item');
    expect(before.history.edges.map((e) => e.node.sequence)).toEqual(sequences.slice(0, 4));

    const other = ok(await server.gql(History, { batchId: 'p', recordId: 'b' })).item;
    if (other.__typename !== 'Item') throw new Error('not an item');
    expect(other.history.edges.map((e) => e.node.type)).toEqual([
      'ITEM_ADDED',
      'LEASE_CLAIMED',
      'LEASE_RENEWED',
      'LEASE_RENEWED',
      'LEASE_RENEWED',
      'LEASE_RELEASED',
    ]);
    expect(other.history.edges.every((e) => !sequences.includes(e.node.sequence))).toBe(true);
  });

  it('Relay node(id) and nodes(ids) fetch items and events by global id; unknown ids are null', async () => {
    const item = ok(await server.gql(History, { batchId: 'p', recordId: 'b', first: 1 })).item;
    if (item.__typename !== 'Item') throw new Error('not an item');
    const event = item.history.edges[0]?.node;
    if (!event) throw new Error('no event');

    expect(ok(await server.gql(Node, { id: item.id })).node).toEqual({
      __typename: 'Item',
      id: item.id,
      batchId: 'p',
      recordId: 'b',
      status: 'PENDING',
    });
    expect(ok(await server.gql(Node, { id: event.id })).node).toEqual({
      __typename: 'Event',
      id: event.id,
      sequence: event.sequence,
      type: 'ITEM_ADDED',
    });
    expect(Buffer.from(item.id, 'base64').toString()).toMatch(/^Item:\d+$/);
    expect(Buffer.from(event.id, 'base64').toString()).toBe(`Event:${event.sequence}`);

    const missingItem = Buffer.from('Item:999999').toString('base64');
    const missingEvent = Buffer.from('Event:999999').toString('base64');
    expect(ok(await server.gql(Node, { id: missingItem })).node).toBeNull();
    expect(ok(await server.gql(Nodes, { ids: [event.id, missingItem, item.id, missingEvent, item.id] })).nodes).toEqual([
      { __typename: 'Event', id: event.id, sequence: event.sequence, type: 'ITEM_ADDED' },
      null,
      { __typename: 'Item', id: item.id, batchId: 'p', recordId: 'b' },
      null,
      { __typename: 'Item', id: item.id, batchId: 'p', recordId: 'b' },
    ]);
    expect(ok(await server.gql(Nodes, { ids: [] })).nodes).toEqual([]);
  });
});

describe('items(filter:)', () => {
  let server: TestServer;
  let T0 = 0;
  const keys = (data: { items: { edges: { node: { batchId: string; recordId: string } }[] } }) =>
    data.items.edges.map((e) => `${e.node.batchId}/${e.node.recordId}`);

  beforeAll(async () => {
    server = await startTestServer();
    T0 = server.clock.now().getTime();
    ok(await server.gql(SetUp, { names: ['配送', '請求'] }));
    const add = async (batchId: string, recordId: string) =>
      ok(await server.gql(Add, { input: { batchId, recordId, proposedCategory: '配送', reason: 'x' } }));
    await add('f1', 'a');
    await add('f1', 'b');
    await add('f1', 'c');
    server.clock.set(T0 + 10_000);
    await server.settle();
    await add('f2', 'a');
    await add('f2', 'b');
    await add('f2', 'c');
    server.clock.set(T0 + 20_000);
    await server.settle();
    await add('f2', 'd');
    await add('f3', 'a');

    ok(await by(server, 'tanaka', Decide, { token: (await claimed(server, 'tanaka', 3600, 'f1')).token, decision: 'ACCEPTED' })); // f1/a
    await claimed(server, 'tanaka', 3600, 'f1'); // f1/b active
    await claimed(server, 'tanaka', 30, 'f2'); // f2/a, expires below
    ok(await by(server, 'x', Decide, { token: (await claimed(server, 'x', 3600, 'f2')).token, decision: 'REJECTED' })); // f2/b
    await claimed(server, 'suzuki', 3600, 'f2'); // f2/c active
    ok(await by(server, 'y', Decide, { token: (await claimed(server, 'y', 3600, 'f2')).token, decision: 'CORRECTED', category: '請求' })); // f2/d
    server.clock.advance(30_000);
    await server.settle();
  });
  afterAll(() => server.stop());

  const cases: [string, Record<string, unknown> | undefined, string[]][] = [
    ['no filter: every item in the order added', undefined, ['f1/a', 'f1/b', 'f1/c', 'f2/a', 'f2/b', 'f2/c', 'f2/d', 'f3/a']],
    ['status PENDING', { status: 'PENDING' }, ['f1/b', 'f1/c', 'f2/a', 'f2/c', 'f3/a']],
    ['status ACCEPTED', { status: 'ACCEPTED' }, ['f1/a']],
    ['status REJECTED', { status: 'REJECTED' }, ['f2/b']],
    ['status CORRECTED', { status: 'CORRECTED' }, ['f2/d']],
    ['claimState UNCLAIMED', { claimState: 'UNCLAIMED' }, ['f1/c', 'f3/a']],
    ['claimState ACTIVE', { claimState: 'ACTIVE' }, ['f1/b', 'f2/c']],
    ['claimState EXPIRED', { claimState: 'EXPIRED' }, ['f2/a']],
    ['claimState NOT_APPLICABLE', { claimState: 'NOT_APPLICABLE' }, ['f1/a', 'f2/b', 'f2/d']],
    ['batchId', { batchId: 'f2' }, ['f2/a', 'f2/b', 'f2/c', 'f2/d']],
    ['batchId with no items', { batchId: 'nope' }, []],
    ['holder: only unexpired leases (not the lapsed one, not decided ones)', { holder: 'tanaka' }, ['f1/b']],
    ['holder suzuki', { holder: 'suzuki' }, ['f2/c']],
    ['holder who decided but holds nothing', { holder: 'x' }, []],
    ['createdAfter is inclusive', { createdAfter: 'T+10' }, ['f2/a', 'f2/b', 'f2/c', 'f2/d', 'f3/a']],
    ['createdBefore is exclusive', { createdBefore: 'T+10' }, ['f1/a', 'f1/b', 'f1/c']],
    ['createdAfter and createdBefore together', { createdAfter: 'T+10', createdBefore: 'T+20' }, ['f2/a', 'f2/b', 'f2/c']],
    ['createdAfter between seconds', { createdAfter: 'T+10.001' }, ['f2/d', 'f3/a']],
    ['status and batchId together', { status: 'PENDING', batchId: 'f2' }, ['f2/a', 'f2/c']],
    ['claimState and holder together', { claimState: 'ACTIVE', holder: 'suzuki' }, ['f2/c']],
    ['conditions that cannot all hold', { status: 'ACCEPTED', claimState: 'ACTIVE' }, []],
  ];

  it.each(cases)('%s', async (_label, filter, expected) => {
    const time = (value: unknown) =>
      typeof value === 'string' && value.startsWith('T+') ? iso(T0 + Number(value.slice(2)) * 1000) : value;
    const resolved = filter && Object.fromEntries(Object.entries(filter).map(([k, v]) => [k, time(v)]));
    expect(keys(ok(await server.gql(Items, { filter: resolved, first: 100 })))).toEqual(expected);
  });

  it('claimState follows the server clock: the ACTIVE leases become EXPIRED an hour later', async () => {
    server.clock.advance(3_600_000);
    await server.settle();
    expect(keys(ok(await server.gql(Items, { filter: { claimState: 'ACTIVE' } })))).toEqual([]);
    expect(keys(ok(await server.gql(Items, { filter: { claimState: 'EXPIRED' } })))).toEqual(['f1/b', 'f2/a', 'f2/c']);
    expect(keys(ok(await server.gql(Items, { filter: { holder: 'tanaka' } })))).toEqual([]);
  });

  it('pages a filtered list with first/after', async () => {
    const page1 = ok(await server.gql(Items, { filter: { status: 'PENDING' }, first: 2 }));
    expect(keys(page1)).toEqual(['f1/b', 'f1/c']);
    expect(page1.items.pageInfo.hasNextPage).toBe(true);
    const page2 = ok(await server.gql(Items, { filter: { status: 'PENDING' }, first: 2, after: page1.items.pageInfo.endCursor }));
    expect(keys(page2)).toEqual(['f2/a', 'f2/c']);
    const page3 = ok(await server.gql(Items, { filter: { status: 'PENDING' }, first: 2, after: page2.items.pageInfo.endCursor }));
    expect(keys(page3)).toEqual(['f3/a']);
    expect(page3.items.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });
});

describe('lease tokens are never shown again', () => {
  let server: TestServer;
  const tokens: string[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    ok(await server.gql(SetUp, { names: ['配送', '請求'] }));
    for (const recordId of ['r1', 'r2', 'r3']) {
      ok(await server.gql(Add, { input: { batchId: 's', recordId, proposedCategory: '配送', reason: 'x' } }));
    }
    // r1: claim, renew, release, re-claim, decide.
    const first = await claimed(server, 'tanaka', 60);
    tokens.push(first.token);
    ok(await by(server, 'tanaka', Renew, { token: first.token, leaseSeconds: 120 }));
    ok(await by(server, 'tanaka', Release, { token: first.token }));
    const second = await claimed(server, 'suzuki', 60);
    tokens.push(second.token);
    ok(await by(server, 'suzuki', Decide, { token: second.token, decision: 'CORRECTED', category: '請求' }));
    // r2: claimed and still held. r3: claimed, lapsed, re-claimed by someone else.
    const held = await claimed(server, 'tanaka', 3600);
    tokens.push(held.token);
    const lapsed = await claimed(server, 'sato', 30);
    tokens.push(lapsed.token);
    server.clock.advance(30_000);
    await server.settle();
    ok(await by(server, 'sato', Renew, { token: lapsed.token }));
    const replacing = await claimed(server, 'ito', 300);
    tokens.push(replacing.token);
    // Refusals that carry a token (each recorded as OPERATION_REFUSED): the old one, a retry of the decided one,
    // and a live one presented by a principal that does not hold it.
    expect(ok(await by(server, 'sato', Decide, { token: lapsed.token, decision: 'ACCEPTED' })).decideItem).toMatchObject({
      code: 'CLAIM_NOT_FOUND',
    });
    expect(ok(await by(server, 'suzuki', Release, { token: second.token })).releaseLease).toMatchObject({ code: 'CLAIM_NOT_FOUND' });
    expect(ok(await by(server, 'mallory', Renew, { token: held.token })).renewLease).toMatchObject({ code: 'NOT_LEASE_HOLDER' });
    // A request the server cannot even validate, with a token inside the query text and the variables.
    const tanaka = (await server.as('tanaka')).headers;
    const ito = (await server.as('ito')).headers;
    await postGraphQL(
      server.url,
      `mutation { renewLease(input: { token: "${held.token}", leaseSeconds: "soon" }) { __typename } }`,
      undefined,
      tanaka,
    );
    await postGraphQL(
      server.url,
      'mutation ($t: String!) { releaseLease(input: { token: $t, nope: 1 }) { __typename } }',
      { t: held.token },
      tanaka,
    );
    await postGraphQL(server.url, 'mutation ($t: Int!) { releaseLease(input: { token: $t }) { __typename } }', { t: replacing.token }, ito);
    expect(new Set(tokens).size).toBe(5);
  });
  afterAll(() => server.stop());

  function expectNoToken(text: string) {
    for (const token of tokens) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(sha256(token));
    }
  }

  it('no item lookup, list, history, event or node shows a token or its hash', async () => {
    for (const recordId of ['r1', 'r2', 'r3']) {
      const everything = ok(await server.gql(Everything, { batchId: 's', recordId }));
      expectNoToken(JSON.stringify(everything));
      const item = everything.item;
      if (item.__typename !== 'Item') throw new Error('not an item');
      expectNoToken(JSON.stringify(ok(await server.gql(Node, { id: item.id }))));
    }
    const events = await allEvents(server);
    expect(events.length).toBeGreaterThan(8);
    // The refusals' own records (expired renew, the old and the decided token, another principal's) are among them.
    expect(events.filter((event) => event.type === 'OPERATION_REFUSED').map((event) => event.details.code)).toEqual([
      'CLAIM_EXPIRED',
      'CLAIM_NOT_FOUND',
      'CLAIM_NOT_FOUND',
      'NOT_LEASE_HOLDER',
    ]);
    for (const event of events) {
      expect(Object.keys(event.details)).not.toContain('token');
      expect(Object.keys(event.details)).not.toContain('tokenHash');
    }
    expectNoToken(JSON.stringify(events));
  });

  it('no log line contains a token or its hash', async () => {
    const logs = server.logs.join('\n');
    // The capture works: every request above was logged.
    expect(server.logs.filter((line) => line.includes('"msg":"request"')).length).toBeGreaterThan(15);
    expectNoToken(logs);
  });

  it('the database stores only the hash of the live tokens, and no token anywhere in its files', async () => {
    const rows = await server.db.read.item.findMany({ where: { batchId: 's' }, orderBy: { recordId: 'asc' } });
    expect(rows.map((r) => r.leaseTokenHash)).toEqual([null, sha256(tokens[2] ?? ''), sha256(tokens[4] ?? '')]);
    if (server.db.location.dialect === 'sqlite') {
      expect(existsSync(server.file)).toBe(true);
      for (const file of [server.file, `${server.file}-wal`, `${server.file}-journal`]) {
        if (!existsSync(file)) continue;
        const bytes = readFileSync(file);
        for (const token of tokens) expect(bytes.includes(Buffer.from(token))).toBe(false);
      }
    } else {
      // PostgreSQL's files belong to its server: every row of every table in the database, as text, stands for them.
      const client = new pg.Client({ connectionString: server.databaseUrl });
      await client.connect();
      try {
        const { rows: tables } = await client.query<{ name: string }>(
          "SELECT format('%I.%I', table_schema, table_name) AS name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE'",
        );
        expect(tables.map((table) => table.name)).toEqual(expect.arrayContaining(['public."Item"', 'public."Event"']));
        let text = '';
        for (const table of tables)
          text += (await client.query<{ row: string }>(`SELECT t::text AS row FROM ${table.name} t`)).rows.map((row) => row.row).join('\n');
        expect(text).toContain(sha256(tokens[2] ?? ''));
        for (const token of tokens) expect(text.includes(token)).toBe(false);
      } finally {
        await client.end();
      }
    }
  });
});
