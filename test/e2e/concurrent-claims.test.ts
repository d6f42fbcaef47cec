// Many simultaneous claims over real HTTP against one server: each item goes to exactly one claimant.
// Every claimant is a REVIEWER principal of its own (its own API key), so the holder the server
// records names the request that won.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphql } from '../gql/index.js';
import { startTestServer, type TestClient, type TestServer } from '../support/server.js';

const SetUp = graphql(`
  mutation ConcurrentSetUp($names: [String!]!, $items: [AddItemInput!]!) {
    addCategories(input: { names: $names }) {
      __typename
    }
    addItems(input: { items: $items }) {
      __typename
      ... on AddItemsPayload { addedCount refusedCount }
    }
  }
`);

const Claim = graphql(`
  mutation ConcurrentClaim {
    claimItem(input: { leaseSeconds: 600 }) {
      __typename
      ... on ClaimItemPayload {
        claimed
        item { id batchId recordId claimedBy version }
        lease { token holder }
      }
      ... on UserError { code message }
    }
  }
`);

const Decide = graphql(`
  mutation ConcurrentDecide($token: String!, $decision: Decision!, $category: String) {
    decideItem(input: { token: $token, decision: $decision, category: $category }) {
      __typename
      ... on DecideItemPayload { item { id status finalCategory reviewedBy claimState } }
      ... on UserError { code message }
    }
  }
`);

const ITEMS = 20;
const CLAIMS = 60;

describe('concurrent claims over HTTP on one server', () => {
  let server: TestServer;
  let reviewers: TestClient[];
  beforeAll(async () => {
    server = await startTestServer();
    // One key per claimant, made before the race so that only claims are in flight during it.
    reviewers = [];
    for (let index = 0; index < CLAIMS; index++) reviewers.push(await server.as(`reviewer-${index}`));
    const items = Array.from({ length: ITEMS }, (_, index) => ({
      batchId: 'race',
      recordId: `R-${String(index).padStart(3, '0')}`,
      proposedCategory: 'alpha',
      reason: 'check the proposal',
    }));
    const setUp = await server.gql(SetUp, { names: ['alpha', 'beta'], items });
    expect(setUp.errors).toBeUndefined();
    expect(setUp.data?.addItems).toMatchObject({ addedCount: ITEMS, refusedCount: 0 });
  });
  afterAll(() => server.stop());

  it(`${CLAIMS} simultaneous claims by ${CLAIMS} reviewers for ${ITEMS} items: ${ITEMS} distinct winners, the rest claimed:false, then every decision lands`, async () => {
    const responses = await Promise.all(reviewers.map((reviewer) => reviewer.gql(Claim)));

    for (const response of responses) expect(response.errors).toBeUndefined();
    const payloads = responses.map((response) => {
      const result = response.data?.claimItem;
      if (result?.__typename !== 'ClaimItemPayload') throw new Error(`claim was refused: ${JSON.stringify(response)}`);
      return result;
    });

    const winners = payloads.flatMap((payload, index) =>
      payload.claimed && payload.item && payload.lease
        ? [{ reviewer: reviewers[index] as TestClient, item: payload.item, lease: payload.lease }]
        : [],
    );
    const losers = payloads.filter((payload) => !payload.claimed);
    expect(winners).toHaveLength(ITEMS);
    expect(losers).toHaveLength(CLAIMS - ITEMS);
    for (const loser of losers) expect(loser).toMatchObject({ claimed: false, item: null, lease: null });

    // Distinct items, distinct tokens, distinct holders, and each item names the reviewer whose claim won it.
    expect(new Set(winners.map((winner) => winner.item.id)).size).toBe(ITEMS);
    expect(new Set(winners.map((winner) => winner.reviewer.name)).size).toBe(ITEMS);
    expect(new Set(winners.map((winner) => winner.lease.token)).size).toBe(ITEMS);
    expect(new Set(winners.map((winner) => winner.item.recordId))).toEqual(
      new Set(Array.from({ length: ITEMS }, (_, index) => `R-${String(index).padStart(3, '0')}`)),
    );
    for (const winner of winners) {
      expect(winner.item.claimedBy).toBe(winner.reviewer.name);
      expect(winner.lease.holder).toBe(winner.reviewer.name);
      expect(winner.item.version).toBe(2);
    }

    // Every holder decides its own item with its token, all at once.
    const decisions = await Promise.all(
      winners.map((winner, index) =>
        winner.reviewer.gql(Decide, {
          token: winner.lease.token,
          decision: index % 3 === 0 ? 'ACCEPTED' : index % 3 === 1 ? 'CORRECTED' : 'REJECTED',
          category: index % 3 === 1 ? 'beta' : null,
        }),
      ),
    );
    decisions.forEach((decision, index) => {
      expect(decision.errors).toBeUndefined();
      const winner = winners[index] as (typeof winners)[number];
      expect(decision.data?.decideItem).toEqual({
        __typename: 'DecideItemPayload',
        item: {
          id: winner.item.id,
          status: index % 3 === 0 ? 'ACCEPTED' : index % 3 === 1 ? 'CORRECTED' : 'REJECTED',
          finalCategory: index % 3 === 0 ? 'alpha' : index % 3 === 1 ? 'beta' : null,
          reviewedBy: winner.reviewer.name,
          claimState: 'NOT_APPLICABLE',
        },
      });
    });

    // The stored state and the history agree with what the clients were told.
    const rows = await server.db.read.item.findMany({ orderBy: { id: 'asc' } });
    expect(rows).toHaveLength(ITEMS);
    for (const row of rows) {
      expect(row.status).not.toBe('PENDING');
      expect(row.leaseTokenHash).toBeNull();
      expect(row.version).toBe(3);
    }
    const events = await server.db.read.event.findMany({ where: { itemId: { not: null } }, orderBy: { id: 'asc' } });
    const claimedEvents = events.filter((event) => event.type === 'LEASE_CLAIMED');
    expect(claimedEvents).toHaveLength(ITEMS);
    expect(new Set(claimedEvents.map((event) => event.itemId)).size).toBe(ITEMS);
    const winnerByItem = new Map(rows.map((row) => [row.id, row]));
    for (const event of claimedEvents) {
      const row = winnerByItem.get(event.itemId as number);
      expect(event.actor).toBe(row?.reviewedBy);
      expect(event.itemVersion).toBe(2);
    }
    const decidedEvents = events.filter((event) => event.type === 'ITEM_DECIDED');
    expect(decidedEvents).toHaveLength(ITEMS);
    expect(new Set(decidedEvents.map((event) => event.itemId)).size).toBe(ITEMS);
    expect(
      events.filter((event) => event.type !== 'ITEM_ADDED' && event.type !== 'LEASE_CLAIMED' && event.type !== 'ITEM_DECIDED'),
    ).toEqual([]);
    // No claim or decision was refused along the way (a refusal would be in the history).
    expect(await server.db.read.event.count({ where: { type: 'OPERATION_REFUSED' } })).toBe(0);

    // Nothing left to claim.
    const after = await (await server.as('late')).gql(Claim);
    expect(after.data?.claimItem).toMatchObject({ __typename: 'ClaimItemPayload', claimed: false });
  });
});
