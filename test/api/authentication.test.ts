// Authentication over HTTP: anonymous and bad credentials refused, API keys made, listed, used
// and revoked, and the safe defaults around them (CSRF, introspection, GraphiQL, cost, rate limits).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUERY_COST_LIMIT } from '../../src/graphql/builder.js';
import { postGraphQL, startTestServer, type TestServer } from '../support/server.js';

type Body = { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] };

async function call(server: TestServer, query: string, headers: Record<string, string>, variables?: Record<string, unknown>) {
  const response = await postGraphQL(server.url, query, variables, headers);
  return { status: response.status, headers: response.headers, body: (await response.json()) as Body };
}

describe('HTTP authentication', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  it.each([
    ['no Authorization header', {}, 'Send a credential'],
    ['a scheme other than Bearer', { authorization: 'Basic YWxpY2U6c2VjcmV0' }, 'must be `Bearer'],
    ['an unknown API key', { authorization: `Bearer lhk_${'A'.repeat(43)}` }, 'unknown or has been revoked'],
    ['a lease token instead of a key', { authorization: 'Bearer lh_abcdefghijklmnopqrstuvwxyz012345' }, 'neither'],
    ['a JWT when none are configured', { authorization: 'Bearer aaa.bbb.ccc' }, 'accepts no JWTs'],
    ['an oversized credential', { authorization: `Bearer ${'x'.repeat(9_000)}` }, 'too long'],
  ])('refuses %s with 401 UNAUTHENTICATED and touches nothing', async (_case, headers, message) => {
    const before = await server.db.read.event.count();
    const { status, headers: responseHeaders, body } = await call(server, '{ serverTime }', headers);
    expect(status).toBe(401);
    expect(responseHeaders.get('www-authenticate')).toBe('Bearer realm="leasehold"');
    expect(body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(body.errors?.[0]?.message).toContain(message);
    expect(await server.db.read.event.count()).toBe(before);
  });

  it('refuses anonymous mutations without running them', async () => {
    const { status } = await call(server, 'mutation { addCategories(input: { names: ["anon"] }) { __typename } }', {});
    expect(status).toBe(401);
    expect(await server.db.read.category.findUnique({ where: { name: 'anon' } })).toBeNull();
  });

  it('answers /health and /ready without a credential', async () => {
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect((await fetch(`${server.url}/ready`)).status).toBe(200);
  });

  it('serves the GraphiQL page itself without a credential (every operation it sends needs one)', async () => {
    const page = await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Authorization');
  });

  it('streams subscriptions over server-sent events with the same Authorization header (as GraphiQL does)', async () => {
    const viewer = await server.as('sse-viewer', ['VIEWER']);
    const controller = new AbortController();
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      signal: controller.signal,
      headers: { ...viewer.headers, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { queueStats { pending } }' }),
    });
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('queueStats')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain('"queueStats":{"pending":0}');
    controller.abort();
    const anonymous = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { queueStats { pending } }' }),
    });
    expect(anonymous.status).toBe(401);
  });

  it('tells the caller who it is', async () => {
    const alice = await server.as('alice', ['REVIEWER', 'VIEWER']);
    const { body } = await call(server, '{ viewer { name roles credential credentialExpiresAt } }', alice.headers);
    expect(body).toEqual({
      data: { viewer: { name: 'alice', roles: ['REVIEWER', 'VIEWER'], credential: 'API_KEY', credentialExpiresAt: null } },
    });
  });
});

describe('API keys over GraphQL', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  it('an ADMIN makes a key that is shown once, stored as its SHA-256, listed without the secret, and revocable at once', async () => {
    const admin = await server.as('root', ['ADMIN']);
    const made = await call(
      server,
      'mutation { createApiKey(input: { name: "worker-7", roles: [PROPOSER, VIEWER, PROPOSER] }) { ... on CreateApiKeyPayload { key apiKey { id name roles prefix createdBy revokedAt } } } }',
      admin.headers,
    );
    const payload = made.body.data?.createApiKey as {
      key: string;
      apiKey: { id: number; name: string; roles: string[]; prefix: string; createdBy: string };
    };
    expect(payload.key).toMatch(/^lhk_[A-Za-z0-9_-]{43}$/);
    expect(payload.apiKey).toMatchObject({
      name: 'worker-7',
      roles: ['PROPOSER', 'VIEWER'],
      prefix: payload.key.slice(0, 12),
      createdBy: 'root',
    });

    const row = await server.db.read.apiKey.findUniqueOrThrow({ where: { id: payload.apiKey.id } });
    expect(row.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(payload.key);

    const worker = { authorization: `Bearer ${payload.key}` };
    expect((await call(server, '{ viewer { name roles } }', worker)).body.data).toEqual({
      viewer: { name: 'worker-7', roles: ['PROPOSER', 'VIEWER'] },
    });

    const listed = await call(server, '{ apiKeys { id name prefix lastUsedAt } }', admin.headers);
    expect(JSON.stringify(listed.body)).not.toContain(payload.key);
    expect(listed.body.data?.apiKeys).toContainEqual(expect.objectContaining({ id: payload.apiKey.id, name: 'worker-7' }));

    const revoked = await call(
      server,
      'mutation($id: Int!) { revokeApiKey(input: { id: $id }) { ... on RevokeApiKeyPayload { apiKey { revokedAt revokedBy } } ... on UserError { code } } }',
      admin.headers,
      { id: payload.apiKey.id },
    );
    expect(revoked.body.data?.revokeApiKey).toEqual({ apiKey: { revokedAt: server.clock.now().toISOString(), revokedBy: 'root' } });
    const after = await call(server, '{ viewer { name } }', worker);
    expect(after.status).toBe(401);
    expect(after.body.errors?.[0]?.message).toContain('revoked');

    const twice = await call(
      server,
      'mutation($id: Int!) { revokeApiKey(input: { id: $id }) { ... on UserError { code field } } }',
      admin.headers,
      {
        id: payload.apiKey.id,
      },
    );
    expect(twice.body.data?.revokeApiKey).toEqual({ code: 'API_KEY_REVOKED', field: 'id' });

    const active = await call(server, '{ apiKeys { id } all: apiKeys(includeRevoked: true) { id revokedAt } }', admin.headers);
    expect(active.body.data?.apiKeys).not.toContainEqual({ id: payload.apiKey.id });
    expect(active.body.data?.all).toContainEqual(expect.objectContaining({ id: payload.apiKey.id }));

    const events = await server.db.read.event.findMany({
      where: { type: { in: ['API_KEY_CREATED', 'API_KEY_REVOKED'] } },
      orderBy: { id: 'asc' },
    });
    const mine = events.filter((event) => JSON.parse(event.details).keyId === payload.apiKey.id);
    expect(mine.map((event) => [event.type, event.actor])).toEqual([
      ['API_KEY_CREATED', 'root'],
      ['API_KEY_REVOKED', 'root'],
    ]);
    for (const event of mine) expect(event.details).not.toContain(payload.key);
  });

  it('refuses a key with no roles, an empty name, or an unknown id, with coded errors', async () => {
    const admin = await server.as('root', ['ADMIN']);
    const noRoles = await call(
      server,
      'mutation { createApiKey(input: { name: "x", roles: [] }) { ... on UserError { code field } } }',
      admin.headers,
    );
    expect(noRoles.body.data?.createApiKey).toEqual({ code: 'INVALID_ROLE', field: 'roles' });
    const badName = await call(
      server,
      'mutation { createApiKey(input: { name: " x", roles: [VIEWER] }) { ... on UserError { code field } } }',
      admin.headers,
    );
    expect(badName.body.data?.createApiKey).toEqual({ code: 'INVALID_TEXT', field: 'name' });
    const unknown = await call(server, 'mutation { revokeApiKey(input: { id: 424242 }) { ... on UserError { code } } }', admin.headers);
    expect(unknown.body.data?.revokeApiKey).toEqual({ code: 'API_KEY_NOT_FOUND' });
    const badRole = await call(server, 'mutation { createApiKey(input: { name: "x", roles: [SUPERUSER] }) { __typename } }', admin.headers);
    expect(badRole.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('records last use', async () => {
    const viewer = await server.as('looker', ['VIEWER']);
    await call(server, '{ serverTime }', viewer.headers);
    const row = await (async () => {
      for (let attempt = 0; attempt < 100; attempt++) {
        const found = await server.db.read.apiKey.findFirst({ where: { name: 'looker' } });
        if (found?.lastUsedAt) return found;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return null;
    })();
    expect(row?.lastUsedAt?.toISOString()).toBe(server.clock.now().toISOString());
  });
});

describe('refusals are recorded with the principal', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  it('records a missing role and a broken rule as OPERATION_REFUSED, and the response waits for the record', async () => {
    const viewer = await server.as('vic', ['VIEWER']);
    const refused = await call(server, 'mutation { claimItem(input: {}) { __typename } }', viewer.headers);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const reviewer = await server.as('rita');
    const broken = await call(
      server,
      'mutation { decideItem(input: { token: "lh_abcdefghijklmnopqrstuvwxyz012345", decision: ACCEPTED }) { ... on UserError { code } } }',
      reviewer.headers,
    );
    expect(broken.body.data?.decideItem).toEqual({ code: 'CLAIM_NOT_FOUND' });

    const events = await server.db.read.event.findMany({ where: { type: 'OPERATION_REFUSED' }, orderBy: { id: 'asc' } });
    expect(events.map((event) => ({ actor: event.actor, details: JSON.parse(event.details) }))).toEqual([
      { actor: 'vic', details: expect.objectContaining({ operation: 'claimItem', code: 'FORBIDDEN', field: null }) },
      { actor: 'rita', details: expect.objectContaining({ operation: 'decideItem', code: 'CLAIM_NOT_FOUND', field: 'token' }) },
    ]);
  });

  it('refuses a mutation operation whole when any of its fields is forbidden: nothing before it runs', async () => {
    const setup = await server.as('setup', ['ADMIN', 'PROPOSER']);
    const mixed = await call(
      server,
      'mutation { first: addCategories(input: { names: ["never-added"] }) { __typename } second: claimItem(input: {}) { __typename } }',
      setup.headers,
    );
    expect(mixed.body.data).toBeNull();
    expect(mixed.body.errors).toEqual([
      expect.objectContaining({ path: ['second'], extensions: expect.objectContaining({ code: 'FORBIDDEN' }) }),
    ]);
    expect(await server.db.read.category.findUnique({ where: { name: 'never-added' } })).toBeNull();
    const refusals = await server.db.read.event.findMany({ where: { type: 'OPERATION_REFUSED', actor: 'setup' } });
    expect(refusals.map((event) => JSON.parse(event.details).operation)).toEqual(['claimItem']);
  });

  it('does not record refused reads, nor anonymous attempts', async () => {
    const proposer = await server.as('pat', ['PROPOSER']);
    const before = await server.db.read.event.count();
    expect((await call(server, '{ apiKeys { id } }', proposer.headers)).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await call(server, 'mutation { claimItem(input: {}) { __typename } }', {})).status).toBe(401);
    expect(await server.db.read.event.count()).toBe(before);
  });
});

describe('separation of duties', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  const add = (recordId: string) =>
    `mutation { addItem(input: { batchId: "sod", recordId: "${recordId}", proposedCategory: "c", reason: "r" }) { ... on AddItemPayload { item { addedBy } } } }`;
  const claim =
    'mutation { claimItem(input: {}) { ... on ClaimItemPayload { claimed item { recordId addedBy claimedBy } lease { token holder } } } }';

  it('never gives a reviewer an item it proposed, and gives it to someone else', async () => {
    const admin = await server.as('root', ['ADMIN']);
    await call(server, 'mutation { addCategories(input: { names: ["c"] }) { __typename } }', admin.headers);
    const both = await server.as('dual', ['PROPOSER', 'REVIEWER']);
    const other = await server.as('machine', ['PROPOSER']);
    expect((await call(server, add('own'), both.headers)).body.data?.addItem).toEqual({ item: { addedBy: 'dual' } });
    server.clock.advance(1_000);
    await call(server, add('theirs'), other.headers);

    const first = (await call(server, claim, both.headers)).body.data?.claimItem as { item: { recordId: string; claimedBy: string } };
    expect(first.item).toMatchObject({ recordId: 'theirs', claimedBy: 'dual' });
    expect((await call(server, claim, both.headers)).body.data?.claimItem).toMatchObject({ claimed: false });

    const bob = await server.as('bob');
    expect((await call(server, claim, bob.headers)).body.data?.claimItem).toMatchObject({
      claimed: true,
      item: { recordId: 'own', addedBy: 'dual' },
    });
  });

  it('refuses a decision on one’s own proposal even when the lease came another way (the local command line)', async () => {
    const { addItem } = await import('../../src/services/items.js');
    const { claimItem } = await import('../../src/services/leases.js');
    const carolLocally = { name: 'carol', authenticated: false };
    await addItem({ db: server.db, clock: server.clock }, carolLocally, {
      batchId: 'cli',
      recordId: 'c-1',
      proposedCategory: 'c',
      reason: 'r',
    });
    const lease = await claimItem({ db: server.db, clock: server.clock }, carolLocally, { batchId: 'cli' });
    expect(lease?.item.claimedBy).toBe('carol');

    const carol = await server.as('carol');
    const decided = await call(
      server,
      'mutation($t: String!) { decideItem(input: { token: $t, decision: ACCEPTED }) { ... on UserError { code field } } }',
      carol.headers,
      { t: lease?.token },
    );
    expect(decided.body.data?.decideItem).toEqual({ code: 'SELF_REVIEW', field: 'token' });
    expect((await server.db.read.item.findFirstOrThrow({ where: { recordId: 'c-1' } })).status).toBe('PENDING');
  });

  it('lets only the holder use a lease token, whoever else has it', async () => {
    const machine = await server.as('machine', ['PROPOSER']);
    await call(server, add('held'), machine.headers);
    const alice = await server.as('alice');
    const mallory = await server.as('mallory');
    let token = '';
    for (;;) {
      const claimed = (await call(server, claim, alice.headers)).body.data?.claimItem as {
        claimed: boolean;
        item: { recordId: string };
        lease: { token: string };
      };
      expect(claimed.claimed).toBe(true);
      if (claimed.item.recordId === 'held') {
        token = claimed.lease.token;
        break;
      }
    }
    for (const mutation of [
      'renewLease(input: { token: $t })',
      'releaseLease(input: { token: $t })',
      'decideItem(input: { token: $t, decision: REJECTED })',
    ]) {
      const body = (
        await call(server, `mutation($t: String!) { ${mutation} { ... on UserError { code field } } }`, mallory.headers, { t: token })
      ).body;
      expect(Object.values(body.data ?? {})[0]).toEqual({ code: 'NOT_LEASE_HOLDER', field: 'token' });
    }
    const item = await server.db.read.item.findFirstOrThrow({ where: { recordId: 'held' } });
    expect(item).toMatchObject({ status: 'PENDING', claimedBy: 'alice' });
    const decided = await call(
      server,
      'mutation($t: String!) { decideItem(input: { token: $t, decision: REJECTED }) { ... on DecideItemPayload { item { reviewedBy } } } }',
      alice.headers,
      { t: token },
    );
    expect(decided.body.data?.decideItem).toEqual({ item: { reviewedBy: 'alice' } });
  });
});

describe('safe defaults', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ config: { rateLimit: { perSecond: 1, burst: 3 } } });
  });
  afterAll(() => server.stop());

  it('refuses simple (CSRF-able) requests: form or text bodies, and GET without the CSRF header', async () => {
    const viewer = await server.as('v', ['VIEWER']);
    const form = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { ...viewer.headers, 'content-type': 'text/plain' },
      body: JSON.stringify({ query: '{ serverTime }' }),
    });
    expect(form.status).toBe(403);
    const get = await fetch(`${server.url}/graphql?query=${encodeURIComponent('{ serverTime }')}`, { headers: viewer.headers });
    expect(get.status).toBe(403);
    const withHeader = await fetch(`${server.url}/graphql?query=${encodeURIComponent('{ serverTime }')}`, {
      headers: { ...viewer.headers, 'x-graphql-yoga-csrf': '1' },
    });
    expect(withHeader.status).toBe(200);
    // A client's mistake: logged as a refusal, never at error level (that would page someone).
    const levels = server.logs.map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(levels.filter((line) => line.level >= 50)).toEqual([]);
    expect(levels.filter((line) => line.msg === 'refused a request')).toHaveLength(2);
  });

  it('refuses an operation that costs more than the limit before running it, and names the limit', async () => {
    const viewer = await server.as('v', ['VIEWER']);
    const expensive = await call(
      server,
      '{ items(first: 100) { edges { node { history(first: 100) { edges { node { id type } } } } } } }',
      viewer.headers,
    );
    expect(expensive.body.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: QUERY_COST_LIMIT });
    const fine = await call(
      server,
      '{ items(first: 100) { edges { node { id batchId recordId status claimState history(first: 5) { edges { node { id type } } } } } } }',
      viewer.headers,
    );
    expect(fine.body.errors, JSON.stringify(fine.body.errors)).toBeUndefined();
  });

  it('limits changes per principal (HTTP 429 with Retry-After) and refills with time; reads and other principals are not limited', async () => {
    const admin = await server.as('limited', ['ADMIN']);
    const other = await server.as('other-admin', ['ADMIN']);
    const change = (n: number) => `mutation { addCategories(input: { names: ["rl-${n}-${Math.random()}"] }) { __typename } }`;
    for (let n = 0; n < 3; n++) expect((await call(server, change(n), admin.headers)).status).toBe(200);
    const limited = await call(server, change(3), admin.headers);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.body.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: 1 });
    expect((await call(server, '{ serverTime }', admin.headers)).status).toBe(200);
    expect((await call(server, change(4), other.headers)).status).toBe(200);
    server.clock.advance(1_000);
    expect((await call(server, change(5), admin.headers)).status).toBe(200);
  });

  it('counts every mutation field of an operation against the limit', async () => {
    const admin = await server.as('batcher', ['ADMIN']);
    const fields = (names: string[]) =>
      `mutation { ${names.map((name, n) => `m${n}: addCategories(input: { names: ["${name}"] }) { __typename }`).join(' ')} }`;
    expect((await call(server, fields(['a-0', 'a-1']), admin.headers)).status).toBe(200);
    // One token left; two fields need two, so the whole operation is refused and nothing is added.
    expect((await call(server, fields(['b-0', 'b-1']), admin.headers)).status).toBe(429);
    expect(await server.db.read.category.count({ where: { name: { startsWith: 'b-' } } })).toBe(0);
    // An operation with more fields than the bucket holds needs a full bucket, not the impossible.
    server.clock.advance(3_000);
    expect((await call(server, fields(['c-0', 'c-1', 'c-2', 'c-3']), admin.headers)).status).toBe(200);
  });
});

describe('configurable exposure', () => {
  it('turns introspection off when configured, for everyone', async () => {
    const server = await startTestServer({ config: { introspection: false } });
    try {
      const admin = await server.as('root', ['ADMIN']);
      const body = (await call(server, '{ __schema { queryType { name } } }', admin.headers)).body;
      expect(body.errors?.[0]?.message).toMatch(/introspection/i);
      expect((await call(server, '{ serverTime }', admin.headers)).body.errors).toBeUndefined();
    } finally {
      await server.stop();
    }
  });

  it('answers introspection for authenticated callers by default', async () => {
    const server = await startTestServer();
    try {
      const viewer = await server.as('v', ['VIEWER']);
      expect((await call(server, '{ __schema { queryType { name } } }', viewer.headers)).body.data).toEqual({
        __schema: { queryType: { name: 'Query' } },
      });
      expect((await call(server, '{ __schema { queryType { name } } }', {})).status).toBe(401);
    } finally {
      await server.stop();
    }
  });

  it('serves no GraphiQL page when it is turned off (the path then wants a credential)', async () => {
    const server = await startTestServer({ config: { graphiql: false } });
    try {
      expect((await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } })).status).toBe(401);
    } finally {
      await server.stop();
    }
  });
});
