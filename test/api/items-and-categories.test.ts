// Adding items (one, many, mixed good and bad), category administration (retire, list) and Unicode lengths.
// Categories are administered by the ADMIN "admin-sato", items proposed by the PROPOSER "classifier-v2" (or
// by "setup"), and reviewed by REVIEWERs, each with its own API key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphql } from '../gql/index.js';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';

const AddCategories = graphql(`
  mutation IcAddCategories($names: [String!]!) {
    addCategories(input: { names: $names }) {
      __typename
      ... on AddCategoriesPayload { categories { name createdAt createdBy retired retiredAt retiredBy } }
      ... on UserError { code field }
    }
  }
`);

const Retire = graphql(`
  mutation IcRetire($name: String!) {
    retireCategory(input: { name: $name }) {
      __typename
      ... on RetireCategoryPayload { category { name createdAt createdBy retired retiredAt retiredBy } }
      ... on UserError { code field }
    }
  }
`);

const Categories = graphql(`
  query IcCategories($includeRetired: Boolean!) {
    categories(includeRetired: $includeRetired) { name retired retiredAt retiredBy createdBy }
  }
`);

const CategoriesDefault = graphql(`
  query IcCategoriesDefault {
    categories { name retired }
  }
`);

const Add = graphql(`
  mutation IcAdd($input: AddItemInput!) {
    addItem(input: $input) {
      __typename
      ... on AddItemPayload {
        serverTime
        item { batchId recordId proposedCategory reason status claimState createdAt addedBy version finalCategory }
      }
      ... on UserError { code field }
    }
  }
`);

const AddMany = graphql(`
  mutation IcAddMany($items: [AddItemInput!]!) {
    addItems(input: { items: $items }) {
      __typename
      ... on AddItemsPayload {
        addedCount
        refusedCount
        entries {
          index
          item { batchId recordId proposedCategory reason status createdAt addedBy }
          error { __typename code field message }
        }
      }
      ... on UserError { code field }
    }
  }
`);

const Claim = graphql(`
  mutation IcClaim($batchId: String) {
    claimItem(input: { batchId: $batchId }) {
      __typename
      ... on ClaimItemPayload { claimed item { batchId recordId claimedBy } lease { token holder } }
      ... on UserError { code field }
    }
  }
`);

const Decide = graphql(`
  mutation IcDecide($token: String!, $decision: Decision!, $category: String) {
    decideItem(input: { token: $token, decision: $decision, category: $category }) {
      __typename
      ... on DecideItemPayload { item { status proposedCategory finalCategory reviewedBy } }
      ... on UserError { code field }
    }
  }
`);

const Show = graphql(`
  query IcShow($batchId: String!, $recordId: String!) {
    item(batchId: $batchId, recordId: $recordId) {
      __typename
      ... on Item { batchId recordId proposedCategory finalCategory reason status }
      ... on UserError { code field }
    }
  }
`);

const AddedEvents = graphql(`
  query IcAddedEvents($afterSequence: Int) {
    events(first: 100, filter: { types: [ITEM_ADDED], afterSequence: $afterSequence }) {
      edges { node { sequence type details } }
    }
  }
`);

const CreateKey = graphql(`
  mutation IcCreateKey($name: String!) {
    createApiKey(input: { name: $name, roles: [REVIEWER] }) {
      __typename
      ... on CreateApiKeyPayload { key apiKey { name roles } }
      ... on UserError { code field }
    }
  }
`);

const EventsAfter = graphql(`
  query IcEventsAfter($afterSequence: Int) {
    events(first: 100, filter: { afterSequence: $afterSequence }) { edges { node { type actor details } } }
  }
`);

const LastEvent = graphql(`
  query IcLastEvent {
    events(last: 1) { edges { node { sequence } } }
  }
`);

type Result<T> = { data?: T | null; errors?: unknown[] };

function ok<T>(result: Result<T>): T {
  if (result.errors || !result.data) throw new Error(`GraphQL errors: ${JSON.stringify(result)}`);
  return result.data;
}

let server: TestServer;
let admin: TestClient;
let proposer: TestClient;
let tanaka: TestClient;
let suzuki: TestClient;
const iso = (ms: number) => new Date(ms).toISOString();

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.as('admin-sato', ['ADMIN']);
  proposer = await server.as('classifier-v2', ['PROPOSER']);
  tanaka = await server.as('tanaka');
  suzuki = await server.as('suzuki');
  const set = ok(await admin.gql(AddCategories, { names: ['配送', '請求', 'その他', '旧分類'] })).addCategories;
  expect(set.__typename).toBe('AddCategoriesPayload');
  expect(ok(await admin.gql(Retire, { name: '旧分類' })).retireCategory.__typename).toBe('RetireCategoryPayload');
});
afterAll(() => server.stop());

async function lastSequence() {
  return ok(await server.gql(LastEvent)).events.edges[0]?.node.sequence ?? 0;
}

async function show(batchId: string, recordId: string) {
  return ok(await server.gql(Show, { batchId, recordId })).item;
}

async function addItem(batchId: string, recordId: string, proposedCategory = '配送', reason = 'why') {
  return ok(await proposer.gql(Add, { input: { batchId, recordId, proposedCategory, reason } })).addItem;
}

/** Claims from `batchId` as `reviewer`; decide with the same reviewer (only the holder may). */
async function claimToken(batchId: string, reviewer: TestClient) {
  const claim = ok(await reviewer.gql(Claim, { batchId })).claimItem;
  if (claim.__typename !== 'ClaimItemPayload' || !claim.lease) throw new Error(`claim failed: ${JSON.stringify(claim)}`);
  return claim.lease.token;
}

describe('addItem', () => {
  it('adds a pending, unclaimed item stamped with the whole second and the adding actor', async () => {
    server.clock.advance(1_750);
    const at = server.clock.now().getTime();
    const result = ok(
      await proposer.gql(Add, { input: { batchId: 'one', recordId: 'r1', proposedCategory: '請求', reason: '根拠' } }),
    ).addItem;
    expect(result).toEqual({
      __typename: 'AddItemPayload',
      serverTime: iso(at),
      item: {
        batchId: 'one',
        recordId: 'r1',
        proposedCategory: '請求',
        reason: '根拠',
        status: 'PENDING',
        claimState: 'UNCLAIMED',
        createdAt: iso(Math.floor(at / 1000) * 1000),
        addedBy: 'classifier-v2',
        version: 1,
        finalCategory: null,
      },
    });
  });

  it('the adder is always an authenticated PROPOSER: anonymous callers get 401, other roles FORBIDDEN, and nothing is added', async () => {
    const sequence = await lastSequence();
    const mutation =
      'mutation { addItem(input: { batchId: "one", recordId: "anon", proposedCategory: "配送", reason: "x" }) { __typename } }';
    const anonymous = await postGraphQL(server.url, mutation);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] });
    const asActor = await postGraphQL(server.url, mutation, undefined, { 'x-leasehold-actor': 'classifier-v2' });
    expect(asActor.status).toBe(401);

    const forbidden = await tanaka.gql(Add, { input: { batchId: 'one', recordId: 'anon', proposedCategory: '配送', reason: 'x' } });
    expect(forbidden.data ?? null).toBeNull();
    expect(forbidden.errors?.map((error) => error.extensions?.code)).toEqual(['FORBIDDEN']);

    expect(await show('one', 'anon')).toMatchObject({ __typename: 'UserError', code: 'ITEM_NOT_FOUND' });
    // Nothing was added; only the FORBIDDEN attempt is recorded (the anonymous ones never reached the API).
    expect(ok(await server.gql(EventsAfter, { afterSequence: sequence })).events.edges.map((edge) => edge.node)).toEqual([
      {
        type: 'OPERATION_REFUSED',
        actor: 'tanaka',
        details: { operation: 'addItem', code: 'FORBIDDEN', field: null, message: forbidden.errors?.[0]?.message },
      },
    ]);
  });
});

describe('addItems with good and bad entries', () => {
  it('answers one entry per input in order, adds the good ones, and counts both', async () => {
    expect((await addItem('mix', 'existing', '配送', 'first version')).__typename).toBe('AddItemPayload');
    const sequence = await lastSequence();
    const good = (batchId: string, recordId: string, proposedCategory = '配送', reason = `reason ${recordId}`) => ({
      batchId,
      recordId,
      proposedCategory,
      reason,
    });
    const inputs = [
      good('mix', 'r1'),
      good('mix', ' r2'),
      good('mix', 'r3', '未知'),
      good('mix', 'r4', '請求'),
      good('mix', 'existing', '請求', 'second version'),
      good('mix', 'r1', 'その他', 'same key as entry 0'),
      good('mix', 'r6', '旧分類'),
      good('mix2', 'r1'),
      good('mix', 'r8', '配送', 'x'.repeat(1001)),
      good('mix', 'r2'),
    ];
    const payload = ok(await proposer.gql(AddMany, { items: inputs })).addItems;
    if (payload.__typename !== 'AddItemsPayload') throw new Error(JSON.stringify(payload));

    expect(payload.addedCount).toBe(4);
    expect(payload.refusedCount).toBe(6);
    expect(payload.entries.map((e) => e.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const outcome = payload.entries.map((e) =>
      e.item ? `added ${e.item.batchId}/${e.item.recordId}` : `${e.error?.code} ${e.error?.field}`,
    );
    expect(outcome).toEqual([
      'added mix/r1',
      'INVALID_TEXT items[1].recordId',
      'UNKNOWN_CATEGORY items[2].proposedCategory',
      'added mix/r4',
      'DUPLICATE_ITEM items[4].recordId',
      'DUPLICATE_ITEM items[5].recordId',
      'CATEGORY_RETIRED items[6].proposedCategory',
      'added mix2/r1',
      'INVALID_TEXT items[8].reason',
      'added mix/r2',
    ]);
    for (const entry of payload.entries) {
      // Exactly one of item and error.
      expect((entry.item === null) !== (entry.error === null)).toBe(true);
      if (entry.error) {
        expect(entry.error.__typename).toBe('UserError');
        expect(entry.error.message.length).toBeGreaterThan(0);
      }
    }
    expect(payload.entries[3]?.item).toMatchObject({
      proposedCategory: '請求',
      reason: 'reason r4',
      status: 'PENDING',
      addedBy: 'classifier-v2',
    });

    // The good ones are in the queue; the refused ones are not; duplicates left the first version alone.
    for (const [batchId, recordId] of [
      ['mix', 'r1'],
      ['mix', 'r4'],
      ['mix2', 'r1'],
      ['mix', 'r2'],
    ] as const) {
      expect(await show(batchId, recordId)).toMatchObject({ __typename: 'Item', status: 'PENDING' });
    }
    for (const recordId of ['r3', 'r6', 'r8']) {
      expect(await show('mix', recordId)).toMatchObject({ __typename: 'UserError', code: 'ITEM_NOT_FOUND' });
    }
    expect(await show('mix', 'existing')).toMatchObject({ proposedCategory: '配送', reason: 'first version' });
    expect(await show('mix', 'r1')).toMatchObject({ proposedCategory: '配送', reason: 'reason r1' });

    // Exactly one ITEM_ADDED event per added item, in input order, and nothing else.
    const events = ok(await server.gql(AddedEvents, { afterSequence: sequence })).events.edges.map((e) => e.node);
    expect(events.map((e) => `${e.details.batchId}/${e.details.recordId}`)).toEqual(['mix/r1', 'mix/r4', 'mix2/r1', 'mix/r2']);
    expect(await lastSequence()).toBe(sequence + 4);
  });

  it('a call where every entry is refused is still a payload, and writes nothing', async () => {
    const sequence = await lastSequence();
    const payload = ok(
      await server.gql(AddMany, {
        items: [
          { batchId: 'none', recordId: '', proposedCategory: '配送', reason: 'x' },
          { batchId: 'none', recordId: 'r2', proposedCategory: 'nope', reason: 'x' },
        ],
      }),
    ).addItems;
    expect(payload).toMatchObject({ __typename: 'AddItemsPayload', addedCount: 0, refusedCount: 2 });
    expect(await lastSequence()).toBe(sequence);
  });

  it('adds 500 items in one call, all stamped with the same second', async () => {
    const sequence = await lastSequence();
    server.clock.advance(999);
    const items = Array.from({ length: 500 }, (_, i) => ({
      batchId: 'bulk',
      recordId: `r${String(i).padStart(3, '0')}`,
      proposedCategory: '配送',
      reason: 'x',
    }));
    const payload = ok(await server.gql(AddMany, { items })).addItems;
    if (payload.__typename !== 'AddItemsPayload') throw new Error(JSON.stringify(payload));
    expect(payload.addedCount).toBe(500);
    expect(payload.refusedCount).toBe(0);
    expect(new Set(payload.entries.map((e) => e.item?.createdAt)).size).toBe(1);
    expect(payload.entries.map((e) => e.item?.recordId)).toEqual(items.map((i) => i.recordId));
    expect(await lastSequence()).toBe(sequence + 500);
  });
});

describe('categories', () => {
  it('lists active categories by name by default, and retired ones only when asked', async () => {
    const active = ok(await server.gql(CategoriesDefault)).categories;
    expect(active.map((c) => c.name)).not.toContain('旧分類');
    expect(active.every((c) => !c.retired)).toBe(true);
    expect(ok(await server.gql(Categories, { includeRetired: false })).categories.map((c) => c.name)).toEqual(active.map((c) => c.name));

    const all = ok(await server.gql(Categories, { includeRetired: true })).categories;
    const names = all.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['配送', '請求', 'その他', '旧分類']));
    expect(names).toEqual([...names].sort());
    expect(all.find((c) => c.name === '旧分類')).toMatchObject({ retired: true, retiredBy: 'admin-sato', createdBy: 'admin-sato' });
    expect(all.find((c) => c.name === '配送')).toMatchObject({ retired: false, retiredAt: null, retiredBy: null });
    expect(all.length).toBe(active.length + 1);
  });

  it('addCategories returns the new categories in the order given, with who and when', async () => {
    const at = server.clock.now().getTime();
    const result = ok(await admin.gql(AddCategories, { names: ['zz-last', 'aa-first'] })).addCategories;
    expect(result).toEqual({
      __typename: 'AddCategoriesPayload',
      categories: [
        { name: 'zz-last', createdAt: iso(at), createdBy: 'admin-sato', retired: false, retiredAt: null, retiredBy: null },
        { name: 'aa-first', createdAt: iso(at), createdBy: 'admin-sato', retired: false, retiredAt: null, retiredBy: null },
      ],
    });
  });
});

describe('retireCategory', () => {
  it('stops new use of a category; old items keep it and can still be accepted or rejected', async () => {
    ok(await admin.gql(AddCategories, { names: ['退役予定'] }));
    expect((await addItem('ret', 'proposed-1', '退役予定')).__typename).toBe('AddItemPayload');
    expect((await addItem('ret', 'proposed-2', '退役予定')).__typename).toBe('AddItemPayload');
    expect((await addItem('ret', 'a-corrected-to', '配送')).__typename).toBe('AddItemPayload');
    expect((await addItem('ret', 'correct-away', '退役予定')).__typename).toBe('AddItemPayload');
    // Before retirement, correct one item to the category.
    const early = await claimToken('ret', tanaka);
    expect(ok(await tanaka.gql(Decide, { token: early, decision: 'CORRECTED', category: '退役予定' })).decideItem).toMatchObject({
      item: { finalCategory: '退役予定' },
    });

    server.clock.advance(5_000);
    const at = server.clock.now().getTime();
    const retired = ok(await admin.gql(Retire, { name: '退役予定' })).retireCategory;
    expect(retired).toMatchObject({
      __typename: 'RetireCategoryPayload',
      category: { name: '退役予定', retired: true, retiredAt: iso(at), retiredBy: 'admin-sato', createdBy: 'admin-sato' },
    });
    expect(ok(await server.gql(CategoriesDefault)).categories.map((c) => c.name)).not.toContain('退役予定');
    expect(ok(await server.gql(Categories, { includeRetired: true })).categories.map((c) => c.name)).toContain('退役予定');

    // Refused for new items.
    expect(await addItem('ret', 'new', '退役予定')).toEqual({
      __typename: 'UserError',
      code: 'CATEGORY_RETIRED',
      field: 'proposedCategory',
    });

    // Still shown on old items, as proposal and as final category.
    expect(await show('ret', 'proposed-1')).toMatchObject({ proposedCategory: '退役予定', status: 'PENDING' });

    // Items proposing the retired category are still claimable and decidable (same second: recordId order).
    const decisions: string[] = [];
    for (;;) {
      const claim = ok(await suzuki.gql(Claim, { batchId: 'ret' })).claimItem;
      if (claim.__typename !== 'ClaimItemPayload' || !claim.claimed || !claim.lease || !claim.item) break;
      const { recordId } = claim.item;
      const token = claim.lease.token;
      if (recordId === 'correct-away') {
        // Correcting a retired proposal to an active category works; correcting to the retired one is refused.
        expect(ok(await suzuki.gql(Decide, { token, decision: 'CORRECTED', category: '請求' })).decideItem).toMatchObject({
          item: { status: 'CORRECTED', proposedCategory: '退役予定', finalCategory: '請求' },
        });
      } else if (recordId === 'proposed-1') {
        expect(ok(await suzuki.gql(Decide, { token, decision: 'ACCEPTED' })).decideItem).toMatchObject({
          item: { status: 'ACCEPTED', proposedCategory: '退役予定', finalCategory: '退役予定', reviewedBy: 'suzuki' },
        });
      } else if (recordId === 'proposed-2') {
        expect(ok(await suzuki.gql(Decide, { token, decision: 'CORRECTED', category: '退役予定' })).decideItem).toEqual({
          __typename: 'UserError',
          code: 'CATEGORY_UNCHANGED',
          field: 'category',
        });
        expect(ok(await suzuki.gql(Decide, { token, decision: 'REJECTED' })).decideItem).toMatchObject({
          item: { status: 'REJECTED', finalCategory: null },
        });
      } else {
        throw new Error(`unexpected item ${recordId}`);
      }
      decisions.push(recordId);
    }
    expect(decisions).toEqual(['correct-away', 'proposed-1', 'proposed-2']);

    // The item corrected to it before retirement still shows it.
    expect(await show('ret', 'a-corrected-to')).toMatchObject({ status: 'CORRECTED', finalCategory: '退役予定' });
  });

  it('refuses CORRECTED to a retired category', async () => {
    expect((await addItem('ret2', 'r1', '配送')).__typename).toBe('AddItemPayload');
    const token = await claimToken('ret2', tanaka);
    expect(ok(await tanaka.gql(Decide, { token, decision: 'CORRECTED', category: '旧分類' })).decideItem).toEqual({
      __typename: 'UserError',
      code: 'CATEGORY_RETIRED',
      field: 'category',
    });
    expect(ok(await tanaka.gql(Decide, { token, decision: 'CORRECTED', category: 'その他' })).decideItem).toMatchObject({
      item: { finalCategory: 'その他' },
    });
  });
});

describe('Unicode lengths are counted in code points (as Python len does)', () => {
  const emoji = (n: number) => '😀'.repeat(n);
  const decomposed = (n: number) => 'e\u0301'.repeat(n / 2);

  it('a 50-emoji category fits; 51 does not', async () => {
    expect(ok(await server.gql(AddCategories, { names: [emoji(50)] })).addCategories.__typename).toBe('AddCategoriesPayload');
    expect(ok(await server.gql(AddCategories, { names: [emoji(51)] })).addCategories).toEqual({
      __typename: 'UserError',
      code: 'INVALID_TEXT',
      field: 'names[0]',
    });
  });

  it('items at the code-point limits are accepted and round-trip exactly; one more is refused', async () => {
    const batchId = emoji(100);
    const recordId = decomposed(100);
    const reason = '漢'.repeat(500) + emoji(500);
    expect(batchId.length).toBe(200);
    expect(recordId.length).toBe(100);
    const added = await addItem(batchId, recordId, emoji(50), reason);
    expect(added).toMatchObject({ __typename: 'AddItemPayload', item: { batchId, recordId, proposedCategory: emoji(50), reason } });
    expect(await show(batchId, recordId)).toMatchObject({ __typename: 'Item', batchId, recordId, reason });

    expect(await addItem(emoji(101), 'r', '配送')).toEqual({ __typename: 'UserError', code: 'INVALID_TEXT', field: 'batchId' });
    expect(await addItem('b', `${decomposed(100)}e`, '配送')).toEqual({ __typename: 'UserError', code: 'INVALID_TEXT', field: 'recordId' });
    expect(await addItem('b', 'r', '配送', `${reason}x`)).toEqual({ __typename: 'UserError', code: 'INVALID_TEXT', field: 'reason' });
  });

  it('a 100-emoji principal name is a valid holder; 101 is refused when the key is made', async () => {
    expect((await addItem('uni-claim', 'r1')).__typename).toBe('AddItemPayload');
    const made = ok(await admin.gql(CreateKey, { name: emoji(100) })).createApiKey;
    if (made.__typename !== 'CreateApiKeyPayload') throw new Error(JSON.stringify(made));
    expect(made.apiKey).toEqual({ name: emoji(100), roles: ['REVIEWER'] });
    const claim = ok(await server.gql(Claim, { batchId: 'uni-claim' }, { authorization: `Bearer ${made.key}` })).claimItem;
    expect(claim).toMatchObject({
      __typename: 'ClaimItemPayload',
      claimed: true,
      item: { claimedBy: emoji(100) },
      lease: { holder: emoji(100) },
    });
    expect(ok(await admin.gql(CreateKey, { name: emoji(101) })).createApiKey).toEqual({
      __typename: 'UserError',
      code: 'INVALID_TEXT',
      field: 'name',
    });
  });

  it('text is stored as given, not normalized: precomposed and decomposed é are different records', async () => {
    expect((await addItem('nfc', '\u00e9')).__typename).toBe('AddItemPayload');
    expect((await addItem('nfc', 'e\u0301')).__typename).toBe('AddItemPayload');
    expect(await show('nfc', '\u00e9')).toMatchObject({ recordId: '\u00e9' });
    expect(await show('nfc', 'e\u0301')).toMatchObject({ recordId: 'e\u0301' });
  });
});
