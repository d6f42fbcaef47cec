// Seed A's lease contract (SPEC §2), row by row, through the real GraphQL API on a fresh server per test.
// Items are added by the principal "setup"; each reviewer is a principal of its own (its API key), and a
// lease is used by the principal holding it.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { graphql } from '../gql/index.js';
import { startTestServer, type TestClient, type TestServer } from '../support/server.js';

graphql(`
  fragment LcItem on Item {
    id
    batchId
    recordId
    status
    proposedCategory
    finalCategory
    reviewedBy
    decidedAt
    createdAt
    claimState
    claimedBy
    claimedAt
    leaseExpiresAt
    version
  }
`);

const SetUp = graphql(`
  mutation LcSetUp($names: [String!]!) {
    addCategories(input: { names: $names }) {
      __typename
    }
  }
`);

const Add = graphql(`
  mutation LcAdd($input: AddItemInput!) {
    addItem(input: $input) {
      __typename
      ... on AddItemPayload { item { ...LcItem } }
      ... on UserError { code field }
    }
  }
`);

const Claim = graphql(`
  mutation LcClaim($leaseSeconds: Int, $batchId: String) {
    claimItem(input: { leaseSeconds: $leaseSeconds, batchId: $batchId }) {
      __typename
      ... on ClaimItemPayload {
        claimed
        serverTime
        item { ...LcItem }
        lease { token holder claimedAt expiresAt }
      }
      ... on UserError { code field }
    }
  }
`);

const ClaimDefault = graphql(`
  mutation LcClaimDefault {
    claimItem(input: {}) {
      __typename
      ... on ClaimItemPayload { claimed lease { claimedAt expiresAt } }
      ... on UserError { code field }
    }
  }
`);

const Renew = graphql(`
  mutation LcRenew($token: String!, $leaseSeconds: Int) {
    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {
      __typename
      ... on RenewLeasePayload { serverTime item { ...LcItem } }
      ... on UserError { code field }
    }
  }
`);

const RenewDefault = graphql(`
  mutation LcRenewDefault($token: String!) {
    renewLease(input: { token: $token }) {
      __typename
      ... on RenewLeasePayload { item { leaseExpiresAt } }
      ... on UserError { code field }
    }
  }
`);

const Release = graphql(`
  mutation LcRelease($token: String!) {
    releaseLease(input: { token: $token }) {
      __typename
      ... on ReleaseLeasePayload { item { ...LcItem } }
      ... on UserError { code field }
    }
  }
`);

const Decide = graphql(`
  mutation LcDecide($token: String!, $decision: Decision!, $category: String) {
    decideItem(input: { token: $token, decision: $decision, category: $category }) {
      __typename
      ... on DecideItemPayload { item { ...LcItem } }
      ... on UserError { code field }
    }
  }
`);

const Show = graphql(`
  query LcShow($batchId: String!, $recordId: String!) {
    item(batchId: $batchId, recordId: $recordId) {
      __typename
      ... on Item { ...LcItem }
      ... on UserError { code field }
    }
  }
`);

const EventCount = graphql(`
  query LcEventCount {
    events(last: 1) { edges { node { sequence } } }
  }
`);

const EventsAfter = graphql(`
  query LcEventsAfter($afterSequence: Int) {
    events(first: 100, filter: { afterSequence: $afterSequence }) { edges { node { type actor details } } }
  }
`);

type Result<T> = { data?: T | null; errors?: unknown[] };

/** The member of a result union with this __typename; fails the test with the whole answer otherwise. */
function as<T extends { __typename?: string }, N extends string>(value: T | undefined | null, typename: N): Extract<T, { __typename?: N }> {
  if (!value || value.__typename !== typename) throw new Error(`expected ${typename}, got ${JSON.stringify(value)}`);
  return value as Extract<T, { __typename?: N }>;
}

function ok<T>(result: Result<T>): T {
  if (result.errors || !result.data) throw new Error(`GraphQL errors: ${JSON.stringify(result)}`);
  return result.data;
}

let server: TestServer;
let T0: number;
const iso = (ms: number) => new Date(ms).toISOString();
const now = () => server.clock.now().getTime();

beforeEach(async () => {
  server = await startTestServer();
  T0 = now();
  ok(await server.gql(SetUp, { names: ['配送', '請求', 'その他'] }));
});
afterEach(() => server.stop());

async function add(batchId: string, recordId: string, proposedCategory = '配送') {
  const data = ok(await server.gql(Add, { input: { batchId, recordId, proposedCategory, reason: `check ${recordId}` } }));
  return as(data.addItem, 'AddItemPayload').item;
}

/** The principal `name` (a REVIEWER), made on first use. */
const principal = (name: string): Promise<TestClient> => server.as(name);

/** Runs `document` as the principal `name`. */
async function by<TResult, TVariables>(name: string, document: TypedDocumentNode<TResult, TVariables>, variables?: TVariables) {
  return (await principal(name)).gql(document, variables);
}

async function claim(reviewer: string, leaseSeconds?: number | null, batchId?: string | null) {
  return ok(await (await principal(reviewer)).gql(Claim, { leaseSeconds, batchId })).claimItem;
}

async function claimed(reviewer: string, leaseSeconds?: number | null, batchId?: string | null) {
  const payload = as(await claim(reviewer, leaseSeconds, batchId), 'ClaimItemPayload');
  if (!payload.claimed || !payload.item || !payload.lease) throw new Error(`nothing claimed: ${JSON.stringify(payload)}`);
  return { item: payload.item, lease: payload.lease };
}

async function expectNothingClaimable(reviewer = 'someone-else', batchId?: string) {
  expect(await claim(reviewer, 300, batchId)).toEqual({
    __typename: 'ClaimItemPayload',
    claimed: false,
    serverTime: iso(now()),
    item: null,
    lease: null,
  });
}

async function show(batchId: string, recordId: string) {
  return as(ok(await server.gql(Show, { batchId, recordId })).item, 'Item');
}

async function lastSequence() {
  return ok(await server.gql(EventCount)).events.edges[0]?.node.sequence ?? 0;
}

/** The events recorded after `sequence`. */
async function eventsAfter(sequence: number) {
  return ok(await server.gql(EventsAfter, { afterSequence: sequence })).events.edges.map((edge) => edge.node);
}

/** What the history records for a refused change: who tried which operation, and the refusal it got. */
function refusalRecord(actor: string, operation: string, code: string, field: string | null) {
  return { type: 'OPERATION_REFUSED', actor, details: { operation, code, field, message: expect.any(String) } };
}

describe('state table: unclaimed → claim', () => {
  it('records the holder, a fresh token and the expiry; the item is no longer claimable', async () => {
    const added = await add('b1', 'r1');
    expect(added).toMatchObject({ claimState: 'UNCLAIMED', claimedBy: null, claimedAt: null, leaseExpiresAt: null, version: 1 });

    server.clock.advance(1_234);
    const { item, lease } = await claimed('tanaka', 120);
    expect(lease.token).toMatch(/^[A-Za-z0-9_-]{20,200}$/);
    expect(lease.token.startsWith('-')).toBe(false);
    expect(lease).toEqual({ token: lease.token, holder: 'tanaka', claimedAt: iso(T0 + 1_234), expiresAt: iso(T0 + 1_234 + 120_000) });
    expect(item).toMatchObject({
      id: added.id,
      batchId: 'b1',
      recordId: 'r1',
      status: 'PENDING',
      claimState: 'ACTIVE',
      claimedBy: 'tanaka',
      claimedAt: iso(T0 + 1_234),
      leaseExpiresAt: iso(T0 + 1_234 + 120_000),
      version: 2,
    });
    expect(await show('b1', 'r1')).toEqual({ __typename: 'Item', ...item });
    await expectNothingClaimable('suzuki');
  });

  it('issues a different token for every claim', async () => {
    await add('b1', 'r1');
    await add('b1', 'r2');
    await add('b1', 'r3');
    const tokens = [await claimed('a'), await claimed('a'), await claimed('b')].map((c) => c.lease.token);
    expect(new Set(tokens).size).toBe(3);
  });
});

describe('separation of duties: a principal is never given an item it proposed', () => {
  it('claims skip the items the claimant added, in and out of a batch; another reviewer gets them', async () => {
    const both = await server.as('both', ['PROPOSER', 'REVIEWER']);
    const own = as(
      ok(await both.gql(Add, { input: { batchId: 'b1', recordId: 'r1', proposedCategory: '配送', reason: 'mine' } })).addItem,
      'AddItemPayload',
    );
    expect(own.item).toMatchObject({ recordId: 'r1', claimState: 'UNCLAIMED' });
    server.clock.advance(1_000);
    await add('b1', 'r2');

    // r1 comes first in claim order, but "both" proposed it.
    const first = as(ok(await both.gql(Claim, { leaseSeconds: 60 })).claimItem, 'ClaimItemPayload');
    expect(first.item).toMatchObject({ recordId: 'r2', claimedBy: 'both' });
    for (const batchId of [null, 'b1']) {
      expect(ok(await both.gql(Claim, { leaseSeconds: 60, batchId })).claimItem).toEqual({
        __typename: 'ClaimItemPayload',
        claimed: false,
        serverTime: iso(now()),
        item: null,
        lease: null,
      });
    }
    expect((await show('b1', 'r1')).claimState).toBe('UNCLAIMED');

    expect((await claimed('tanaka', 60)).item).toMatchObject({ recordId: 'r1', claimedBy: 'tanaka' });
  });
});

describe('state table: active → renew', () => {
  it('resets the expiry to now + leaseSeconds, not old expiry + leaseSeconds', async () => {
    await add('b1', 'r1');
    const { lease } = await claimed('tanaka', 300);
    expect(lease.expiresAt).toBe(iso(T0 + 300_000));

    server.clock.advance(100_000);
    const renewed = as(ok(await by('tanaka', Renew, { token: lease.token, leaseSeconds: 300 })).renewLease, 'RenewLeasePayload');
    expect(renewed.serverTime).toBe(iso(T0 + 100_000));
    expect(renewed.item.leaseExpiresAt).toBe(iso(T0 + 400_000));
    expect(renewed.item.leaseExpiresAt).not.toBe(iso(T0 + 600_000));
    expect(renewed.item).toMatchObject({ claimState: 'ACTIVE', claimedBy: 'tanaka', claimedAt: iso(T0), version: 3 });
    expect((await show('b1', 'r1')).leaseExpiresAt).toBe(iso(T0 + 400_000));

    // The same token keeps working after a renewal.
    server.clock.advance(299_999);
    expect((await show('b1', 'r1')).claimState).toBe('ACTIVE');
    const again = as(ok(await by('tanaka', Renew, { token: lease.token, leaseSeconds: 60 })).renewLease, 'RenewLeasePayload');
    expect(again.item.leaseExpiresAt).toBe(iso(T0 + 399_999 + 60_000));
  });

  it('a shorter renewal moves the expiry earlier, and the item lapses at the new time', async () => {
    await add('b1', 'r1');
    const { lease } = await claimed('tanaka', 3600);
    server.clock.advance(10_000);
    const renewed = as(ok(await by('tanaka', Renew, { token: lease.token, leaseSeconds: 30 })).renewLease, 'RenewLeasePayload');
    expect(renewed.item.leaseExpiresAt).toBe(iso(T0 + 40_000));
    expect(Date.parse(renewed.item.leaseExpiresAt ?? '')).toBeLessThan(Date.parse(lease.expiresAt));

    server.clock.set(T0 + 39_999);
    expect((await show('b1', 'r1')).claimState).toBe('ACTIVE');
    await expectNothingClaimable('suzuki');
    server.clock.set(T0 + 40_000);
    expect((await show('b1', 'r1')).claimState).toBe('EXPIRED');
    expect((await claimed('suzuki')).item.recordId).toBe('r1');
  });

  it('a longer renewal keeps the item held past the original expiry', async () => {
    await add('b1', 'r1');
    const { lease } = await claimed('tanaka', 30);
    server.clock.advance(29_000);
    ok(await by('tanaka', Renew, { token: lease.token, leaseSeconds: 3600 }));
    server.clock.set(T0 + 31_000);
    expect((await show('b1', 'r1')).claimState).toBe('ACTIVE');
    await expectNothingClaimable('suzuki');
    server.clock.set(T0 + 29_000 + 3_600_000);
    expect((await show('b1', 'r1')).claimState).toBe('EXPIRED');
  });

  it('defaults to 300 seconds from now', async () => {
    await add('b1', 'r1');
    const { lease } = await claimed('tanaka', 3600);
    server.clock.advance(5_000);
    const renewed = as(ok(await by('tanaka', RenewDefault, { token: lease.token })).renewLease, 'RenewLeasePayload');
    expect(renewed.item.leaseExpiresAt).toBe(iso(T0 + 5_000 + 300_000));
  });

  it('renews only up to the last millisecond before expiry', async () => {
    await add('b1', 'r1');
    const { lease } = await claimed('tanaka', 30);
    server.clock.set(T0 + 29_999);
    const renewed = as(ok(await by('tanaka', Renew, { token: lease.token, leaseSeconds: 30 })).renewLease, 'RenewLeasePayload');
    expect(renewed.item.leaseExpiresAt).toBe(iso(T0 + 59_999));
    server.clock.set(T0 + 59_999);
    expect(ok(await by('tanaka', Renew, { token: lease.token, leaseSeconds: 30 })).renewLease).toEqual({
      __typename: 'UserError',
      code: 'CLAIM_EXPIRED',
      field: 'token',
    });
  });
});

describe('state table: active → release', () => {
  it('clears the lease without a decision; the item is claimable again at once; the token is dead', async () => {
    await add('b1', 'r1');
    await add('b1', 'r2');
    const { lease } = await claimed('tanaka');
    server.clock.advance(7_000);
    const released = as(ok(await by('tanaka', Release, { token: lease.token })).releaseLease, 'ReleaseLeasePayload');
    const expected = {
      batchId: 'b1',
      recordId: 'r1',
      status: 'PENDING',
      finalCategory: null,
      reviewedBy: null,
      decidedAt: null,
      claimState: 'UNCLAIMED',
      claimedBy: null,
      claimedAt: null,
      leaseExpiresAt: null,
      version: 3,
    };
    expect(released.item).toMatchObject(expected);
    expect(await show('b1', 'r1')).toMatchObject(expected);

    // Back in its place in the queue: it comes before r2.
    const next = await claimed('suzuki');
    expect(next.item).toMatchObject({ recordId: 'r1', claimedBy: 'suzuki' });
    expect(next.lease.token).not.toBe(lease.token);

    for (const op of [
      by('tanaka', Release, { token: lease.token }).then((r) => ok(r).releaseLease),
      by('tanaka', Renew, { token: lease.token }).then((r) => ok(r).renewLease),
      by('tanaka', Decide, { token: lease.token, decision: 'ACCEPTED' }).then((r) => ok(r).decideItem),
    ]) {
      expect(await op).toEqual({ __typename: 'UserError', code: 'CLAIM_NOT_FOUND', field: 'token' });
    }
    expect(await show('b1', 'r1')).toMatchObject({ claimedBy: 'suzuki', claimState: 'ACTIVE', status: 'PENDING' });
  });
});

describe('state table: active → decide', () => {
  it('stores the decision, clears the lease, and takes the item out of the queue', async () => {
    await add('b1', 'r1');
    const { lease } = await claimed('tanaka');
    server.clock.advance(42_000);
    const decided = as(ok(await by('tanaka', Decide, { token: lease.token, decision: 'ACCEPTED' })).decideItem, 'DecideItemPayload');
    const expected = {
      status: 'ACCEPTED',
      proposedCategory: '配送',
      finalCategory: '配送',
      reviewedBy: 'tanaka',
      decidedAt: iso(T0 + 42_000),
      claimState: 'NOT_APPLICABLE',
      claimedBy: null,
      claimedAt: null,
      leaseExpiresAt: null,
      version: 3,
    };
    expect(decided.item).toMatchObject(expected);
    expect(await show('b1', 'r1')).toMatchObject(expected);
    await expectNothingClaimable('suzuki');
    // Long after, still decided and still not claimable.
    server.clock.advance(10 * 3_600_000);
    await expectNothingClaimable('suzuki');
    expect((await show('b1', 'r1')).claimState).toBe('NOT_APPLICABLE');
    expect(ok(await by('tanaka', Decide, { token: lease.token, decision: 'REJECTED' })).decideItem).toEqual({
      __typename: 'UserError',
      code: 'CLAIM_NOT_FOUND',
      field: 'token',
    });
    expect((await show('b1', 'r1')).status).toBe('ACCEPTED');
  });
});

describe('state table: expired lease → claim by anyone', () => {
  it('gives a new holder and a new token', async () => {
    await add('b1', 'r1');
    const first = await claimed('tanaka', 30);
    server.clock.advance(30_000);
    expect((await show('b1', 'r1')).claimState).toBe('EXPIRED');
    expect((await show('b1', 'r1')).claimedBy).toBe('tanaka');

    const second = await claimed('suzuki', 60);
    expect(second.lease.token).not.toBe(first.lease.token);
    expect(second.lease).toMatchObject({ holder: 'suzuki', claimedAt: iso(T0 + 30_000), expiresAt: iso(T0 + 90_000) });
    // Version 2 → 3 records the first lease's lapse (LEASE_EXPIRED), 3 → 4 grants the new lease.
    expect(second.item).toMatchObject({ recordId: 'r1', claimedBy: 'suzuki', claimState: 'ACTIVE', version: 4 });
  });

  it('the former holder may re-claim too, and also gets a new token', async () => {
    await add('b1', 'r1');
    const first = await claimed('tanaka', 30);
    server.clock.advance(45_000);
    const second = await claimed('tanaka', 30);
    expect(second.item.recordId).toBe('r1');
    expect(second.lease.token).not.toBe(first.lease.token);
    expect(ok(await by('tanaka', Renew, { token: first.lease.token })).renewLease).toMatchObject({ code: 'CLAIM_NOT_FOUND' });
    expect(ok(await by('tanaka', Renew, { token: second.lease.token })).renewLease).toMatchObject({ __typename: 'RenewLeasePayload' });
  });
});

/** decide, renew and release with `token`, as the principal `name`; each with the operation a refusal is recorded under. */
const holderOperations = (name: string) =>
  [
    ['decide', 'decideItem', (token: string) => by(name, Decide, { token, decision: 'ACCEPTED' }).then((r) => ok(r).decideItem)],
    ['renew', 'renewLease', (token: string) => by(name, Renew, { token, leaseSeconds: 300 }).then((r) => ok(r).renewLease)],
    ['release', 'releaseLease', (token: string) => by(name, Release, { token }).then((r) => ok(r).releaseLease)],
  ] as const;

describe('state table: re-claimed → the old token', () => {
  it.each(holderOperations('tanaka'))(
    '%s with the old token → CLAIM_NOT_FOUND; the new holder is undisturbed',
    async (_op, operation, run) => {
      await add('b1', 'r1');
      const old = await claimed('tanaka', 30);
      server.clock.advance(31_000);
      const current = await claimed('suzuki', 300);
      const before = await show('b1', 'r1');
      const sequence = await lastSequence();

      expect(await run(old.lease.token)).toEqual({ __typename: 'UserError', code: 'CLAIM_NOT_FOUND', field: 'token' });
      expect(await show('b1', 'r1')).toEqual(before);
      // Nothing changed; the history records only the refused attempt.
      expect(await eventsAfter(sequence)).toEqual([refusalRecord('tanaka', operation, 'CLAIM_NOT_FOUND', 'token')]);

      const decided = as(
        ok(await by('suzuki', Decide, { token: current.lease.token, decision: 'REJECTED' })).decideItem,
        'DecideItemPayload',
      );
      expect(decided.item).toMatchObject({ status: 'REJECTED', finalCategory: null, reviewedBy: 'suzuki' });
    },
  );
});

describe('state table: active → another principal with the token → NOT_LEASE_HOLDER', () => {
  it.each(holderOperations('mallory'))(
    '%s by another reviewer → NOT_LEASE_HOLDER; the holder’s lease is undisturbed',
    async (_op, operation, run) => {
      await add('b1', 'r1');
      const { lease } = await claimed('tanaka', 60);
      await principal('mallory');
      server.clock.advance(10_000);
      const before = await show('b1', 'r1');
      const sequence = await lastSequence();

      // A leaked token is useless to anyone but its holder.
      expect(await run(lease.token)).toEqual({ __typename: 'UserError', code: 'NOT_LEASE_HOLDER', field: 'token' });
      expect(await show('b1', 'r1')).toEqual(before);
      expect(await eventsAfter(sequence)).toEqual([refusalRecord('mallory', operation, 'NOT_LEASE_HOLDER', 'token')]);

      const renewed = as(ok(await by('tanaka', Renew, { token: lease.token, leaseSeconds: 60 })).renewLease, 'RenewLeasePayload');
      expect(renewed.item).toMatchObject({ claimedBy: 'tanaka', leaseExpiresAt: iso(T0 + 70_000) });
    },
  );

  it('even after the lease lapsed, another principal is told it is not the holder, not that it expired', async () => {
    await add('b1', 'r1');
    const { lease } = await claimed('tanaka', 30);
    server.clock.set(T0 + 30_000);
    await server.settle();
    expect(ok(await by('mallory', Renew, { token: lease.token })).renewLease).toEqual({
      __typename: 'UserError',
      code: 'NOT_LEASE_HOLDER',
      field: 'token',
    });
    expect(ok(await by('tanaka', Renew, { token: lease.token })).renewLease).toEqual({
      __typename: 'UserError',
      code: 'CLAIM_EXPIRED',
      field: 'token',
    });
  });
});

describe('state table: expired but not re-claimed → CLAIM_EXPIRED', () => {
  it.each(holderOperations('tanaka'))(
    '%s at the exact expiry instant and later → CLAIM_EXPIRED, nothing changes',
    async (_op, operation, run) => {
      await add('b1', 'r1');
      const { lease } = await claimed('tanaka', 30);
      server.clock.set(T0 + 30_000);
      // The lapse is recorded once, as it happens (LEASE_EXPIRED, version 3); the token stays recorded.
      await server.settle();
      const before = await show('b1', 'r1');
      expect(before).toMatchObject({ claimState: 'EXPIRED', claimedBy: 'tanaka', status: 'PENDING', version: 3 });
      const sequence = await lastSequence();

      expect(await run(lease.token)).toEqual({ __typename: 'UserError', code: 'CLAIM_EXPIRED', field: 'token' });
      server.clock.advance(3_600_000);
      expect(await run(lease.token)).toEqual({ __typename: 'UserError', code: 'CLAIM_EXPIRED', field: 'token' });
      expect(await show('b1', 'r1')).toEqual(before);
      // Nothing changed (not even a late LEASE_EXPIRED); the history records only the two refused attempts.
      const refused = refusalRecord('tanaka', operation, 'CLAIM_EXPIRED', 'token');
      expect(await eventsAfter(sequence)).toEqual([refused, refused]);
    },
  );

  it('one millisecond before expiry the holder can still decide', async () => {
    await add('b1', 'r1');
    const { lease } = await claimed('tanaka', 30);
    server.clock.set(T0 + 29_999);
    const decided = as(ok(await by('tanaka', Decide, { token: lease.token, decision: 'ACCEPTED' })).decideItem, 'DecideItemPayload');
    expect(decided.item.status).toBe('ACCEPTED');
  });
});

describe('claim order: createdAt (whole seconds), then batchId, then recordId', () => {
  it('orders items added in the same second by batchId then recordId, whatever order they came in', async () => {
    // Second 0, scrambled arrival (milliseconds inside the second must not matter).
    const second0: [string, string][] = [
      ['b', 'r2'],
      ['a', 'r2'],
      ['b', 'r1'],
      ['a', 'r10'],
      ['a', 'r1'],
      ['a', 'r3'],
    ];
    for (const [batchId, recordId] of second0) {
      server.clock.advance(150);
      const item = await add(batchId, recordId);
      expect(item.createdAt).toBe(iso(T0));
    }
    // Later seconds: batch ids that sort earlier must still come after every older item.
    server.clock.set(T0 + 1_000);
    await add('z', 'r1');
    server.clock.set(T0 + 1_999);
    await add('A', 'r9');
    server.clock.set(T0 + 2_500);
    await add('0', 'r0');
    expect((await show('0', 'r0')).createdAt).toBe(iso(T0 + 2_000));

    const order: string[] = [];
    for (;;) {
      const result = as(await claim('tanaka', 3600), 'ClaimItemPayload');
      if (!result.claimed) break;
      order.push(`${result.item?.batchId}/${result.item?.recordId}`);
    }
    expect(order).toEqual(['a/r1', 'a/r10', 'a/r2', 'a/r3', 'b/r1', 'b/r2', 'A/r9', 'z/r1', '0/r0']);
  });

  it('an expired or released item keeps its place ahead of newer items', async () => {
    await add('b', 'x');
    server.clock.advance(1_000);
    await add('b', 'y');
    server.clock.advance(1_000);
    await add('b', 'z');
    const x = await claimed('t1', 30);
    const y = await claimed('t2', 3600);
    expect([x.item.recordId, y.item.recordId]).toEqual(['x', 'y']);

    server.clock.advance(30_000);
    expect((await claimed('t3', 30)).item.recordId).toBe('x');
    expect((await claimed('t4', 3600)).item.recordId).toBe('z');

    ok(await by('t2', Release, { token: y.lease.token }));
    expect((await claimed('t5', 3600)).item.recordId).toBe('y');
    await expectNothingClaimable();
  });

  it('claims only from the given batch when batchId is passed, in the same order', async () => {
    await add('A', '2');
    await add('B', '2');
    await add('A', '1');
    await add('B', '1');
    server.clock.advance(1_000);
    await add('B', '0');

    expect((await claimed('t', 300, 'B')).item).toMatchObject({ batchId: 'B', recordId: '1' });
    expect((await claimed('t', 300, 'B')).item).toMatchObject({ batchId: 'B', recordId: '2' });
    expect((await claimed('t', 300, 'B')).item).toMatchObject({ batchId: 'B', recordId: '0' });
    await expectNothingClaimable('t', 'B');
    await expectNothingClaimable('t', 'no-such-batch');
    // The other batch was never touched.
    expect((await show('A', '1')).claimState).toBe('UNCLAIMED');
    expect((await show('A', '2')).claimState).toBe('UNCLAIMED');
    expect((await claimed('t')).item).toMatchObject({ batchId: 'A', recordId: '1' });
  });
});

describe('lease length', () => {
  it.each([
    [30, 30_000],
    [31, 31_000],
    [3599, 3_599_000],
    [3600, 3_600_000],
  ])('claim accepts %i seconds', async (seconds, ms) => {
    await add('b1', 'r1');
    const { lease } = await claimed('tanaka', seconds);
    expect(Date.parse(lease.expiresAt) - Date.parse(lease.claimedAt)).toBe(ms);
  });

  it.each([29, 3601, 0, -1, 86_400])('claim refuses %i seconds with LEASE_OUT_OF_RANGE and claims nothing', async (seconds) => {
    await add('b1', 'r1');
    await principal('tanaka');
    const sequence = await lastSequence();
    expect(await claim('tanaka', seconds)).toEqual({ __typename: 'UserError', code: 'LEASE_OUT_OF_RANGE', field: 'leaseSeconds' });
    expect(await show('b1', 'r1')).toMatchObject({ claimState: 'UNCLAIMED', claimedBy: null, version: 1 });
    expect(await eventsAfter(sequence)).toEqual([refusalRecord('tanaka', 'claimItem', 'LEASE_OUT_OF_RANGE', 'leaseSeconds')]);
  });

  it('claim defaults to 300 seconds (omitted or null)', async () => {
    await add('b1', 'r1');
    await add('b1', 'r2');
    const omitted = as(ok(await by('tanaka', ClaimDefault)).claimItem, 'ClaimItemPayload');
    expect(omitted.lease).toEqual({ claimedAt: iso(T0), expiresAt: iso(T0 + 300_000) });
    const explicitNull = await claimed('tanaka', null);
    expect(explicitNull.lease.expiresAt).toBe(iso(T0 + 300_000));
  });

  it.each([29, 3601])('renew refuses %i seconds with LEASE_OUT_OF_RANGE and keeps the lease as it was', async (seconds) => {
    await add('b1', 'r1');
    const { lease } = await claimed('tanaka', 60);
    server.clock.advance(10_000);
    expect(ok(await by('tanaka', Renew, { token: lease.token, leaseSeconds: seconds })).renewLease).toEqual({
      __typename: 'UserError',
      code: 'LEASE_OUT_OF_RANGE',
      field: 'leaseSeconds',
    });
    expect(await show('b1', 'r1')).toMatchObject({ leaseExpiresAt: iso(T0 + 60_000), version: 2 });
  });

  it.each([30, 3600])('renew accepts %i seconds', async (seconds) => {
    await add('b1', 'r1');
    const { lease } = await claimed('tanaka', 60);
    server.clock.advance(10_000);
    const renewed = as(ok(await by('tanaka', Renew, { token: lease.token, leaseSeconds: seconds })).renewLease, 'RenewLeasePayload');
    expect(renewed.item.leaseExpiresAt).toBe(iso(T0 + 10_000 + seconds * 1000));
  });
});

describe('nothing claimable is a normal answer', () => {
  it('answers claimed:false on an empty queue, a fully leased queue and a fully decided queue', async () => {
    await expectNothingClaimable('tanaka');
    await add('b1', 'r1');
    const { lease } = await claimed('tanaka');
    await expectNothingClaimable('suzuki');
    ok(await by('tanaka', Decide, { token: lease.token, decision: 'REJECTED' }));
    await expectNothingClaimable('suzuki');
  });
});

describe('claimState at the exact boundary (expired when expiresAt <= now)', () => {
  it('goes UNCLAIMED → ACTIVE → (expiry − 1 ms) ACTIVE → (expiry) EXPIRED → re-claimed ACTIVE → NOT_APPLICABLE', async () => {
    await add('b1', 'r1');
    expect((await show('b1', 'r1')).claimState).toBe('UNCLAIMED');
    await claimed('tanaka', 30);
    expect((await show('b1', 'r1')).claimState).toBe('ACTIVE');

    server.clock.set(T0 + 29_999);
    expect((await show('b1', 'r1')).claimState).toBe('ACTIVE');
    await expectNothingClaimable('suzuki');

    server.clock.set(T0 + 30_000);
    expect((await show('b1', 'r1')).claimState).toBe('EXPIRED');
    const again = await claimed('suzuki', 30);
    expect(again.item.claimState).toBe('ACTIVE');

    ok(await by('suzuki', Decide, { token: again.lease.token, decision: 'ACCEPTED' }));
    expect((await show('b1', 'r1')).claimState).toBe('NOT_APPLICABLE');
  });
});

describe('decide', () => {
  it('ACCEPTED: final category = the proposal; reviewedBy = the holder', async () => {
    await add('b1', 'r1', '請求');
    const { lease } = await claimed('tanaka');
    const decided = as(ok(await by('tanaka', Decide, { token: lease.token, decision: 'ACCEPTED' })).decideItem, 'DecideItemPayload');
    expect(decided.item).toMatchObject({ status: 'ACCEPTED', proposedCategory: '請求', finalCategory: '請求', reviewedBy: 'tanaka' });
  });

  it('CORRECTED: needs a category that exists and differs; refusals keep the lease; then final = the correction', async () => {
    await add('b1', 'r1', '配送');
    const { lease } = await claimed('tanaka');
    const before = await show('b1', 'r1');
    const attempts: [string | null, string][] = [
      [null, 'CATEGORY_REQUIRED'],
      ['未知', 'UNKNOWN_CATEGORY'],
      ['配送', 'CATEGORY_UNCHANGED'],
    ];
    for (const [category, code] of attempts) {
      expect(ok(await by('tanaka', Decide, { token: lease.token, decision: 'CORRECTED', category })).decideItem).toEqual({
        __typename: 'UserError',
        code,
        field: 'category',
      });
      expect(await show('b1', 'r1')).toEqual(before);
    }
    const decided = as(
      ok(await by('tanaka', Decide, { token: lease.token, decision: 'CORRECTED', category: 'その他' })).decideItem,
      'DecideItemPayload',
    );
    expect(decided.item).toMatchObject({ status: 'CORRECTED', proposedCategory: '配送', finalCategory: 'その他', reviewedBy: 'tanaka' });
  });

  it('REJECTED: no final category; a category is refused', async () => {
    await add('b1', 'r1');
    const { lease } = await claimed('tanaka');
    expect(ok(await by('tanaka', Decide, { token: lease.token, decision: 'REJECTED', category: '請求' })).decideItem).toEqual({
      __typename: 'UserError',
      code: 'UNEXPECTED_CATEGORY',
      field: 'category',
    });
    const decided = as(ok(await by('tanaka', Decide, { token: lease.token, decision: 'REJECTED' })).decideItem, 'DecideItemPayload');
    expect(decided.item).toMatchObject({ status: 'REJECTED', finalCategory: null, reviewedBy: 'tanaka' });
  });

  it('only the lease holder decides, and reviewedBy is the holder: no header can claim another name', async () => {
    await add('b1', 'r1');
    const { lease } = await claimed('tanaka');
    // Another reviewer with the token is refused, whatever name it puts in a header.
    const mallory = await principal('mallory');
    const stolen = await mallory.gql(Decide, { token: lease.token, decision: 'ACCEPTED' }, { 'x-leasehold-actor': 'tanaka' });
    expect(ok(stolen).decideItem).toEqual({ __typename: 'UserError', code: 'NOT_LEASE_HOLDER', field: 'token' });
    expect(await show('b1', 'r1')).toMatchObject({ status: 'PENDING', claimState: 'ACTIVE', claimedBy: 'tanaka' });
    // The holder's decision is recorded under its own name, whatever name it puts in a header.
    const tanaka = await principal('tanaka');
    const decided = await tanaka.gql(Decide, { token: lease.token, decision: 'ACCEPTED' }, { 'x-leasehold-actor': 'mallory' });
    expect(as(ok(decided).decideItem, 'DecideItemPayload').item.reviewedBy).toBe('tanaka');
  });
});
