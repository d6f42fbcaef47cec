// Seed A's tutorial, step by step, as GraphQL operations against a real server: an ADMIN sets up the
// categories, a PROPOSER (the classifier) adds the item, REVIEWERs claim, renew and decide.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphql } from '../gql/index.js';
import { startTestServer, type TestClient, type TestServer } from '../support/server.js';

const SetUp = graphql(`
  mutation TutorialSetUp($names: [String!]!) {
    addCategories(input: { names: $names }) {
      __typename
      ... on AddCategoriesPayload { categories { name } }
    }
  }
`);

const Add = graphql(`
  mutation TutorialAdd($input: AddItemInput!) {
    addItem(input: $input) {
      __typename
      ... on AddItemPayload { item { batchId recordId status claimState } }
    }
  }
`);

const Claim = graphql(`
  mutation TutorialClaim($leaseSeconds: Int) {
    claimItem(input: { leaseSeconds: $leaseSeconds }) {
      __typename
      ... on ClaimItemPayload {
        claimed
        serverTime
        item { batchId recordId proposedCategory reason claimedBy claimState }
        lease { token holder claimedAt expiresAt }
      }
      ... on UserError { code field }
    }
  }
`);

const Renew = graphql(`
  mutation TutorialRenew($token: String!, $leaseSeconds: Int) {
    renewLease(input: { token: $token, leaseSeconds: $leaseSeconds }) {
      __typename
      ... on RenewLeasePayload { item { leaseExpiresAt } }
      ... on UserError { code }
    }
  }
`);

const Decide = graphql(`
  mutation TutorialDecide($token: String!, $decision: Decision!, $category: String) {
    decideItem(input: { token: $token, decision: $decision, category: $category }) {
      __typename
      ... on DecideItemPayload { item { batchId recordId status finalCategory reviewedBy } }
      ... on UserError { code }
    }
  }
`);

const Show = graphql(`
  query TutorialShow($batchId: String!, $recordId: String!) {
    item(batchId: $batchId, recordId: $recordId) {
      __typename
      ... on Item { batchId recordId status proposedCategory finalCategory addedBy reviewedBy claimedBy claimState }
      ... on UserError { code }
    }
  }
`);

describe("seed A's tutorial over GraphQL", () => {
  let server: TestServer;
  let admin: TestClient;
  let classifier: TestClient;
  let tanaka: TestClient;
  let suzuki: TestClient;
  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.as('admin', ['ADMIN']);
    classifier = await server.as('classifier', ['PROPOSER']);
    tanaka = await server.as('tanaka');
    suzuki = await server.as('suzuki');
  });
  afterAll(() => server.stop());

  it('walks init → add → claim → claimed:false → renew → decide corrected → show', async () => {
    const setUp = await admin.gql(SetUp, { names: ['配送', '請求', 'その他'] });
    expect(setUp.data?.addCategories).toEqual({
      __typename: 'AddCategoriesPayload',
      categories: [{ name: '配送' }, { name: '請求' }, { name: 'その他' }],
    });

    const added = await classifier.gql(Add, {
      input: { batchId: 'batch-20261005', recordId: 'C-001', proposedCategory: '配送', reason: '提案カテゴリを元データと照合する' },
    });
    expect(added.data?.addItem).toEqual({
      __typename: 'AddItemPayload',
      item: { batchId: 'batch-20261005', recordId: 'C-001', status: 'PENDING', claimState: 'UNCLAIMED' },
    });

    const claim = await tanaka.gql(Claim, { leaseSeconds: 300 });
    const claimed = claim.data?.claimItem;
    if (claimed?.__typename !== 'ClaimItemPayload' || !claimed.lease) throw new Error(`claim failed: ${JSON.stringify(claim)}`);
    expect(claimed.claimed).toBe(true);
    expect(claimed.item).toEqual({
      batchId: 'batch-20261005',
      recordId: 'C-001',
      proposedCategory: '配送',
      reason: '提案カテゴリを元データと照合する',
      claimedBy: 'tanaka',
      claimState: 'ACTIVE',
    });
    expect(claimed.lease.holder).toBe('tanaka');
    expect(Date.parse(claimed.lease.expiresAt) - Date.parse(claimed.lease.claimedAt)).toBe(300_000);
    const token = claimed.lease.token;

    const second = await suzuki.gql(Claim, { leaseSeconds: 300 });
    expect(second.data?.claimItem).toMatchObject({ __typename: 'ClaimItemPayload', claimed: false, item: null, lease: null });

    server.clock.advance(100_000);
    const renewed = await tanaka.gql(Renew, { token, leaseSeconds: 300 });
    expect(renewed.data?.renewLease).toEqual({
      __typename: 'RenewLeasePayload',
      item: { leaseExpiresAt: new Date(server.clock.now().getTime() + 300_000).toISOString() },
    });

    const decided = await tanaka.gql(Decide, { token, decision: 'CORRECTED', category: '請求' });
    expect(decided.data?.decideItem).toEqual({
      __typename: 'DecideItemPayload',
      item: { batchId: 'batch-20261005', recordId: 'C-001', status: 'CORRECTED', finalCategory: '請求', reviewedBy: 'tanaka' },
    });

    const again = await tanaka.gql(Decide, { token, decision: 'CORRECTED', category: '請求' });
    expect(again.data?.decideItem).toEqual({ __typename: 'UserError', code: 'CLAIM_NOT_FOUND' });

    const shown = await suzuki.gql(Show, { batchId: 'batch-20261005', recordId: 'C-001' });
    expect(shown.data?.item).toEqual({
      __typename: 'Item',
      batchId: 'batch-20261005',
      recordId: 'C-001',
      status: 'CORRECTED',
      proposedCategory: '配送',
      finalCategory: '請求',
      addedBy: 'classifier',
      reviewedBy: 'tanaka',
      claimedBy: null,
      claimState: 'NOT_APPLICABLE',
    });
  });
});
