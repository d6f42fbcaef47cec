// The walkthrough GraphiQL opens with must stay valid and give the answers the README promises, run the way
// a newcomer runs it: CreateKeys with the first ADMIN key, then each later step with the key it names in the
// Headers pane, and WatchQueue in a second tab that sees the changes as they happen.
import { parse, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { TUTORIAL_DOCUMENT } from '../../src/graphql/tutorial.js';
import { postGraphQL, startTestServer, type TestServer } from '../support/server.js';
import { connectWs, waitFor, writeUntilReceived } from '../support/ws.js';

const API_KEY = /^lhk_[A-Za-z0-9_-]{43}$/;

interface WatchedEvent {
  sequence: number;
  type: string;
  actor: string;
  item: { batchId: string; recordId: string; status: string; claimState: string; claimedBy: string | null } | null;
}

describe('GraphiQL tutorial document', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  /** Runs one operation of the document with `key` in the Authorization header, as GraphiQL's Headers pane sends it. */
  async function run(key: string, operationName: string, variables: Record<string, unknown> = {}) {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query: TUTORIAL_DOCUMENT, operationName, variables }),
    });
    const body = (await response.json()) as { data?: Record<string, Record<string, unknown>>; errors?: unknown };
    expect(body.errors).toBeUndefined();
    expect(response.status).toBe(200);
    return body.data ?? {};
  }

  async function lastSequence(key: string): Promise<number> {
    const response = await postGraphQL(server.url, '{ events(last: 1) { edges { node { sequence } } } }', undefined, {
      authorization: `Bearer ${key}`,
    });
    const body = (await response.json()) as { data: { events: { edges: { node: { sequence: number } }[] } } };
    return body.data.events.edges[0]?.node.sequence ?? 0;
  }

  it('validates against the schema', () => {
    expect(validate(schema, parse(TUTORIAL_DOCUMENT))).toEqual([]);
  });

  it('is served as the default GraphiQL document, without a credential for the page itself', async () => {
    const response = await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('mutation CreateKeys');
    expect(page).toContain('mutation SetUpCategories');
  });

  it('runs top to bottom with the answers the README shows, switching keys as it says', async () => {
    // The ADMIN key `npm start` prints on a new database.
    const admin = (await server.as('admin', ['ADMIN'])).key;

    // Second tab: WatchQueue (any key may watch), open before the first change. Only what happens after it
    // opens is the tutorial's: making the ADMIN key above is the server's first start, not a step.
    const opened = await lastSequence(admin);
    const watcher = await connectWs(server.url, { authorization: `Bearer ${admin}` });
    const watched: WatchedEvent[] = [];
    const watchErrors: unknown[] = [];
    const stopWatching = watcher.client.subscribe<{ queueEvents: WatchedEvent }>(
      { query: TUTORIAL_DOCUMENT, operationName: 'WatchQueue' },
      {
        next: (result) => {
          if (result.errors) watchErrors.push(...result.errors);
          if (result.data && result.data.queueEvents.sequence > opened) watched.push(result.data.queueEvents);
        },
        error: (error) => watchErrors.push(error),
        complete: () => undefined,
      },
    );

    try {
      // 1. As the ADMIN: CreateKeys. (Its start on the server cannot be observed, so the watch is proven live by
      // receiving CreateKeys' own events; a rerun is refused, the names being taken, and the first run's keys are used.)
      let keys: Record<string, { key: string; apiKey: { id: number; name: string; roles: string[] } }> = {};
      await writeUntilReceived(
        () => watched.length > 0,
        async () => {
          const made = (await run(admin, 'CreateKeys')) as typeof keys;
          if (made.classifier?.key) keys = made;
        },
        20,
      );
      expect(keys.classifier).toMatchObject({ key: expect.stringMatching(API_KEY), apiKey: { name: 'classifier', roles: ['PROPOSER'] } });
      expect(keys.tanaka).toMatchObject({ key: expect.stringMatching(API_KEY), apiKey: { name: 'tanaka', roles: ['REVIEWER'] } });
      expect(keys.classifier?.apiKey.id).toEqual(expect.any(Number));
      const classifier = keys.classifier?.key as string;
      const tanaka = keys.tanaka?.key as string;
      expect(classifier).not.toBe(tanaka);

      // Then SetUpCategories, still as the ADMIN.
      expect(await run(admin, 'SetUpCategories')).toEqual({
        addCategories: { categories: [{ name: '配送' }, { name: '請求' }, { name: 'その他' }] },
      });

      // 2. The classifier's key: AddItem.
      expect(await run(classifier, 'AddItem')).toEqual({
        addItem: { item: { batchId: 'batch-20261005', recordId: 'C-001', status: 'PENDING', claimState: 'UNCLAIMED' } },
      });

      // 3. tanaka's key: ClaimItem, then RenewLease and DecideItem with the token in Variables.
      const claim = (await run(tanaka, 'ClaimItem')).claimItem as { claimed: boolean; lease: { token: string; claimedBy: string } };
      expect(claim.claimed).toBe(true);
      expect(claim.lease.claimedBy).toBe('tanaka');
      expect(claim.lease.token).toMatch(/^lh_[A-Za-z0-9_-]{32}$/);

      expect((await run(tanaka, 'ClaimItem')).claimItem).toMatchObject({ claimed: false, item: null, lease: null });

      server.clock.advance(60_000);
      const renewed = (await run(tanaka, 'RenewLease', { token: claim.lease.token })).renewLease as { item: { leaseExpiresAt: string } };
      expect(renewed.item.leaseExpiresAt).toBe(new Date(server.clock.now().getTime() + 300_000).toISOString());

      expect(await run(tanaka, 'DecideItem', { token: claim.lease.token })).toEqual({
        decideItem: {
          item: { batchId: 'batch-20261005', recordId: 'C-001', status: 'CORRECTED', finalCategory: '請求', reviewedBy: 'tanaka' },
        },
      });

      // WhoAmI tells each key apart.
      expect(await run(tanaka, 'WhoAmI')).toEqual({ viewer: { name: 'tanaka', roles: ['REVIEWER'], credential: 'API_KEY' } });
      expect(await run(classifier, 'WhoAmI')).toEqual({ viewer: { name: 'classifier', roles: ['PROPOSER'], credential: 'API_KEY' } });
      expect(await run(admin, 'WhoAmI')).toEqual({ viewer: { name: 'admin', roles: ['ADMIN'], credential: 'API_KEY' } });

      // The second tab saw every change, in order, with who made it.
      const itemChanges = () => watched.filter((event) => event.item !== null);
      await waitFor(
        () => itemChanges().some((event) => event.type === 'ITEM_DECIDED'),
        5_000,
        () => JSON.stringify({ watched, watchErrors }),
      );
      expect(watchErrors).toEqual([]);
      const sequences = watched.map((event) => event.sequence);
      expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
      const keyEvents = watched.filter((event) => event.type === 'API_KEY_CREATED');
      expect(keyEvents.length % 2).toBe(0);
      expect(keyEvents.length).toBeGreaterThan(0);
      expect(keyEvents.every((event) => event.actor === 'admin')).toBe(true);
      expect(watched.filter((event) => event.type === 'CATEGORY_ADDED').map((event) => event.actor)).toEqual(['admin', 'admin', 'admin']);
      expect(itemChanges().map((event) => [event.type, event.actor, event.item?.batchId, event.item?.recordId])).toEqual([
        ['ITEM_ADDED', 'classifier', 'batch-20261005', 'C-001'],
        ['LEASE_CLAIMED', 'tanaka', 'batch-20261005', 'C-001'],
        ['LEASE_RENEWED', 'tanaka', 'batch-20261005', 'C-001'],
        ['ITEM_DECIDED', 'tanaka', 'batch-20261005', 'C-001'],
      ]);
      expect(watched.map((event) => event.type)).not.toContain('OPERATION_REFUSED');

      // ShowItem, with any key.
      const shown = (await run(classifier, 'ShowItem')).item as Record<string, unknown> & {
        history: { edges: { node: { type: string; actor: string } }[] };
      };
      expect(shown).toMatchObject({
        status: 'CORRECTED',
        proposedCategory: '配送',
        finalCategory: '請求',
        reviewedBy: 'tanaka',
        claimedBy: null,
        claimState: 'NOT_APPLICABLE',
      });
      expect(shown.history.edges.map((edge) => [edge.node.type, edge.node.actor])).toEqual([
        ['ITEM_ADDED', 'classifier'],
        ['LEASE_CLAIMED', 'tanaka'],
        ['LEASE_RENEWED', 'tanaka'],
        ['ITEM_DECIDED', 'tanaka'],
      ]);
      expect(JSON.stringify(shown)).not.toContain(claim.lease.token);
      for (const key of [admin, classifier, tanaka]) expect(JSON.stringify({ shown, watched })).not.toContain(key);
    } finally {
      stopWatching();
      await watcher.close();
    }
  });

  it('answers a step run without a key, or with the wrong one, with what is missing', async () => {
    const anonymous = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: TUTORIAL_DOCUMENT, operationName: 'WhoAmI' }),
    });
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code).toBe('UNAUTHENTICATED');

    // The likeliest slip: staying on the ADMIN key after step 1.
    const admin = await server.as('admin', ['ADMIN']);
    for (const [operationName, role] of [
      ['AddItem', 'PROPOSER'],
      ['ClaimItem', 'REVIEWER'],
    ]) {
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...admin.headers },
        body: JSON.stringify({ query: TUTORIAL_DOCUMENT, operationName }),
      });
      const body = (await response.json()) as { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] };
      expect(
        body.errors?.map((error) => error.extensions?.code),
        operationName,
      ).toEqual(['FORBIDDEN']);
      expect(body.errors?.[0]?.message, operationName).toContain(role);
    }
  });

  it('loads without any network: no external scripts or styles', async () => {
    const answer = await (
      await postGraphQL(server.url, '{ __typename }', undefined, (await server.as('viewer', ['VIEWER'])).headers)
    ).text();
    expect(answer).toContain('__typename');
    const page = await (await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } })).text();
    expect(page).not.toMatch(/<(script|link)[^>]+(src|href)=["']https?:/i);
  });
});
