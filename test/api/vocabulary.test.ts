// One name per idea (issue 16, item 6): the server clock is `serverTime`, a lease's expiry `leaseExpiresAt`,
// its holder `claimedBy`, and a subscription replays `afterSequence` (`after` is a cursor on connections).
// The old names answer the same for one release, marked deprecated in the schema; given under both names a
// value must agree. `totalCount` comes from the maintained counts, for no filter or `status` alone.
import { type GraphQLObjectType, getNamedType, isInputObjectType, isObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';
import { connectWs, waitFor } from '../support/ws.js';

// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely here; each test states the shape it expects.
type Body = { data?: Record<string, any> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] };

let server: TestServer;
let reviewer: TestClient;

async function gql(query: string, variables: Record<string, unknown> = {}, client?: TestClient): Promise<Body> {
  const response = await postGraphQL(server.url, query, variables, (client ?? reviewer).headers);
  return (await response.json()) as Body;
}

beforeAll(async () => {
  server = await startTestServer();
  reviewer = await server.as('vocabulary-reviewer');
  const setup = await server.as('vocabulary-setup', ['ADMIN', 'PROPOSER']);
  expect((await gql('mutation { addCategories(input: { names: ["a", "b"] }) { __typename } }', {}, setup)).errors).toBeUndefined();
  for (const recordId of ['v1', 'v2', 'v3']) {
    const added = await gql(
      'mutation ($recordId: String!) { addItem(input: { batchId: "vocab", recordId: $recordId, proposedCategory: "a", reason: "r" }) { __typename } }',
      { recordId },
      setup,
    );
    expect(added.errors).toBeUndefined();
  }
});
afterAll(() => server.stop());

describe('one vocabulary', () => {
  it('marks every old name deprecated, naming the new one, and the new one exists beside it', () => {
    const renamed: [string, string, string][] = [
      ['Event', 'serverNow', 'serverTime'],
      ['LeaseNotice', 'serverNow', 'serverTime'],
      ['QueueStats', 'serverNow', 'serverTime'],
      ['ProposalStats', 'serverNow', 'serverTime'],
      ['IssuedLease', 'expiresAt', 'leaseExpiresAt'],
      ['IssuedLease', 'holder', 'claimedBy'],
      ['LeaseNotice', 'expiresAt', 'leaseExpiresAt'],
      ['ProposalLease', 'expiresAt', 'leaseExpiresAt'],
      ['ProposalLease', 'holder', 'claimedBy'],
      ['ItemFilter', 'holder', 'claimedBy'],
      ['ProposalFilter', 'holder', 'claimedBy'],
    ];
    for (const [typeName, oldName, newName] of renamed) {
      const type = schema.getType(typeName);
      if (!isObjectType(type) && !isInputObjectType(type)) throw new Error(`${typeName} is not an object or input type`);
      const fields = type.getFields();
      expect(fields[oldName]?.deprecationReason, `${typeName}.${oldName}`).toContain(`\`${newName}\``);
      expect(fields[newName]?.deprecationReason, `${typeName}.${newName}`).toBeUndefined();
    }
    const subscription = schema.getSubscriptionType() as GraphQLObjectType;
    for (const field of ['queueEvents', 'itemEvents', 'proposalEvents']) {
      const args = new Map(subscription.getFields()[field]?.args.map((arg) => [arg.name, arg]));
      expect(args.get('after')?.deprecationReason, field).toContain('`afterSequence`');
      const afterSequence = args.get('afterSequence');
      expect(afterSequence && getNamedType(afterSequence.type).name, field).toBe('Int');
    }
  });

  it('a claim answers claimedBy and leaseExpiresAt, equal to the old holder and expiresAt; the filters take claimedBy and holder alike', async () => {
    const claim = await gql(
      'mutation { claimItem(input: { leaseSeconds: 300 }) { ... on ClaimItemPayload { item { recordId } lease { claimedBy holder leaseExpiresAt expiresAt } } } }',
    );
    const lease = claim.data?.claimItem.lease;
    expect(lease.claimedBy).toBe('vocabulary-reviewer');
    expect(lease.holder).toBe(lease.claimedBy);
    expect(lease.leaseExpiresAt).toBe(lease.expiresAt);
    const held = claim.data?.claimItem.item.recordId;
    const byNew = await gql('{ items(filter: { claimedBy: "vocabulary-reviewer" }) { edges { node { recordId } } } }');
    const byOld = await gql('{ items(filter: { holder: "vocabulary-reviewer" }) { edges { node { recordId } } } }');
    expect(byNew.data?.items.edges).toEqual([{ node: { recordId: held } }]);
    expect(byOld.data).toEqual(byNew.data);
    const both = await gql('{ items(filter: { claimedBy: "vocabulary-reviewer", holder: "someone-else" }) { edges { cursor } } }');
    expect(both.errors?.[0]?.extensions).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'filter.claimedBy' });
    const proposals = await gql('{ proposals(filter: { claimedBy: "nobody", holder: "nobody" }) { edges { cursor } } }');
    expect(proposals.errors).toBeUndefined();
  });

  it('subscriptions replay from afterSequence, and from after as before; both with different values are refused', async () => {
    const ws = await connectWs(server.url, reviewer.headers);
    try {
      const byNew = ws.subscribe<{ queueEvents: { sequence: number; serverTime: string } }>(
        'subscription { queueEvents(afterSequence: 0) { sequence serverTime } }',
      );
      const byOld = ws.subscribe<{ queueEvents: { sequence: number; serverNow: string } }>(
        'subscription { queueEvents(after: 0) { sequence serverNow } }',
      );
      await waitFor(() => byNew.data.length >= 5 && byOld.data.length >= 5);
      expect(byNew.data.slice(0, 5).map((event) => event.queueEvents.sequence)).toEqual([1, 2, 3, 4, 5]);
      expect(byOld.data.slice(0, 5).map((event) => event.queueEvents.sequence)).toEqual([1, 2, 3, 4, 5]);
      expect(Date.parse(byNew.data[0]?.queueEvents.serverTime ?? '')).toBe(server.clock.now().getTime());
      const conflicting = ws.subscribe('subscription { itemEvents(id: "SXRlbTox", afterSequence: 1, after: 2) { sequence } }');
      await conflicting.ended;
      const ended = Array.isArray(conflicting.error) ? (conflicting.error as { extensions?: Record<string, unknown> }[]) : [];
      const codes = [...conflicting.results.flatMap((result) => result.errors ?? []), ...ended].map((error) => error.extensions?.code);
      expect(codes).toContain('INVALID_ARGUMENT');
    } finally {
      await ws.close();
    }
  });

  it('items(…).totalCount counts the whole list from the maintained counts: no filter or status alone, else null', async () => {
    const counts = await gql(`{
      all: items(first: 1) { totalCount }
      pending: items(first: 1, filter: { status: PENDING }) { totalCount }
      accepted: items(first: 1, filter: { status: ACCEPTED }) { totalCount }
      batch: items(first: 1, filter: { batchId: "vocab" }) { totalCount }
    }`);
    expect(counts.errors).toBeUndefined();
    const [row] = await server.db.query<{ all: unknown; pending: unknown }>(
      `SELECT count(*) AS "all", count(CASE WHEN "status" = 'PENDING' THEN 1 END) AS pending FROM "Item"`,
    );
    expect(counts.data?.all.totalCount).toBe(Number(row?.all));
    expect(counts.data?.pending.totalCount).toBe(Number(row?.pending));
    expect(counts.data?.accepted.totalCount).toBe(0);
    expect(counts.data?.batch.totalCount).toBeNull();
  });
});
