// The walkthrough GraphiQL opens with must stay valid and give the answers the README promises.
import { parse, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { TUTORIAL_DOCUMENT } from '../../src/graphql/tutorial.js';
import { postGraphQL, startTestServer, type TestServer } from '../support/server.js';

describe('GraphiQL tutorial document', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  async function run(operationName: string, variables: Record<string, unknown> = {}) {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: TUTORIAL_DOCUMENT, operationName, variables }),
    });
    const body = (await response.json()) as { data?: Record<string, Record<string, unknown>>; errors?: unknown };
    expect(body.errors).toBeUndefined();
    return body.data ?? {};
  }

  it('validates against the schema', () => {
    expect(validate(schema, parse(TUTORIAL_DOCUMENT))).toEqual([]);
  });

  it('is served as the default GraphiQL document', async () => {
    const response = await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('mutation SetUpCategories');
  });

  it('runs top to bottom with the answers the README shows', async () => {
    expect(await run('SetUpCategories')).toEqual({
      addCategories: { categories: [{ name: '配送' }, { name: '請求' }, { name: 'その他' }] },
    });
    expect(await run('AddItem')).toEqual({
      addItem: { item: { batchId: 'batch-20261005', recordId: 'C-001', status: 'PENDING', claimState: 'UNCLAIMED' } },
    });
    const claim = (await run('ClaimItem')).claimItem as { claimed: boolean; lease: { token: string; holder: string } };
    expect(claim.claimed).toBe(true);
    expect(claim.lease.holder).toBe('tanaka');
    expect(claim.lease.token).toMatch(/^lh_[A-Za-z0-9_-]{32}$/);

    expect((await run('ClaimItem')).claimItem).toMatchObject({ claimed: false, item: null, lease: null });

    server.clock.advance(60_000);
    const renewed = (await run('RenewLease', { token: claim.lease.token })).renewLease as { item: { leaseExpiresAt: string } };
    expect(renewed.item.leaseExpiresAt).toBe(new Date(server.clock.now().getTime() + 300_000).toISOString());

    expect(await run('DecideItem', { token: claim.lease.token })).toEqual({
      decideItem: {
        item: { batchId: 'batch-20261005', recordId: 'C-001', status: 'CORRECTED', finalCategory: '請求', reviewedBy: 'tanaka' },
      },
    });

    const shown = (await run('ShowItem')).item as Record<string, unknown> & { history: { edges: { node: { type: string } }[] } };
    expect(shown).toMatchObject({
      status: 'CORRECTED',
      proposedCategory: '配送',
      finalCategory: '請求',
      reviewedBy: 'tanaka',
      claimedBy: null,
      claimState: 'NOT_APPLICABLE',
    });
    expect(shown.history.edges.map((edge) => edge.node.type)).toEqual(['ITEM_ADDED', 'LEASE_CLAIMED', 'LEASE_RENEWED', 'ITEM_DECIDED']);
    expect(JSON.stringify(shown)).not.toContain(claim.lease.token);
  });

  it('loads without any network: no external scripts or styles', async () => {
    const html = await (await postGraphQL(server.url, '{ __typename }')).text();
    expect(html).toContain('__typename');
    const page = await (await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } })).text();
    expect(page).not.toMatch(/<(script|link)[^>]+(src|href)=["']https?:/i);
  });
});
