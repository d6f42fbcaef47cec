// API keys, JWTs and lease tokens never reach the logs or the history, whatever happens to them:
// made, used, refused, revoked. The server logs at debug level here, its most talkative.
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hs256, postGraphQL, startTestServer, type TestServer } from '../support/server.js';
import { connectWs } from '../support/ws.js';

const SECRET = 'a-log-test-secret-long-enough-0123456789abcd';

describe('secrets in logs and events', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      config: {
        jwt: hs256(SECRET),
      },
    });
  });
  afterAll(() => server.stop());

  it('a whole working day of credentials and leases leaves no secret behind', async () => {
    const secrets: string[] = [SECRET];
    const run = async (query: string, headers: Record<string, string>, variables: Record<string, unknown> = {}) =>
      (await (await postGraphQL(server.url, query, variables, headers)).json()) as { data: Record<string, unknown>; errors?: unknown[] };

    const admin = await server.as('root', ['ADMIN']);
    secrets.push(admin.key);
    const made = await run(
      'mutation { p: createApiKey(input: { name: "model", roles: [PROPOSER] }) { ... on CreateApiKeyPayload { key apiKey { id } } } r: createApiKey(input: { name: "yui", roles: [REVIEWER] }) { ... on CreateApiKeyPayload { key } } }',
      admin.headers,
    );
    const proposerKey = (made.data.p as { key: string; apiKey: { id: number } }).key;
    const reviewerKey = (made.data.r as { key: string }).key;
    secrets.push(proposerKey, reviewerKey);
    const proposer = { authorization: `Bearer ${proposerKey}` };
    const reviewer = { authorization: `Bearer ${reviewerKey}` };

    await run('mutation { addCategories(input: { names: ["a", "b"] }) { __typename } }', admin.headers);
    await run('mutation { addItem(input: { batchId: "s", recordId: "1", proposedCategory: "a", reason: "r" }) { __typename } }', proposer);
    await run('mutation { addItem(input: { batchId: "s", recordId: "2", proposedCategory: "a", reason: "r" }) { __typename } }', proposer);

    const claim = 'mutation { claimItem(input: { leaseSeconds: 60 }) { ... on ClaimItemPayload { lease { token } } } }';
    const first = ((await run(claim, reviewer)).data.claimItem as { lease: { token: string } }).lease.token;
    secrets.push(first);
    await run('mutation($t: String!) { renewLease(input: { token: $t }) { __typename } }', reviewer, { t: first });
    // Refusals quote the operation, never the token: another principal using it, then a broken rule.
    await run('mutation($t: String!) { decideItem(input: { token: $t, decision: ACCEPTED }) { __typename } }', proposer, { t: first });
    await run('mutation($t: String!) { decideItem(input: { token: $t, decision: ACCEPTED, category: "b" }) { __typename } }', reviewer, {
      t: first,
    });
    await run('mutation($t: String!) { decideItem(input: { token: $t, decision: CORRECTED, category: "b" }) { __typename } }', reviewer, {
      t: first,
    });
    const second = ((await run(claim, reviewer)).data.claimItem as { lease: { token: string } }).lease.token;
    secrets.push(second);
    server.clock.advance(61_000);
    await server.settle();
    await run('mutation($t: String!) { releaseLease(input: { token: $t }) { __typename } }', reviewer, { t: second });

    // Over a WebSocket too, lease subscription included.
    const third = ((await run(claim, reviewer)).data.claimItem as { lease: { token: string } }).lease.token;
    secrets.push(third);
    const ws = await connectWs(server.url, reviewer);
    const notices = ws.subscribe('subscription($t: String!) { leaseEvents(token: $t) { kind } }', { t: third });
    await ws.execute('mutation($t: String!) { releaseLease(input: { token: $t }) { __typename } }', { t: third });
    await notices.ended;
    await ws.close();

    // Refused credentials of every kind.
    const jwt = await new SignJWT({ sub: 'sso-user', roles: ['VIEWER'], exp: Math.floor(server.clock.now().getTime() / 1000) + 60 })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(SECRET));
    const forged = await new SignJWT({ sub: 'sso-user', roles: ['ADMIN'], exp: 4_000_000_000 })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('wrong-secret-that-is-long-enough-0123456789'));
    const wrongKey = `lhk_${'Z'.repeat(43)}`;
    secrets.push(jwt, forged, wrongKey);
    await run('{ viewer { name } }', { authorization: `Bearer ${jwt}` });
    await run('{ viewer { name } }', { authorization: `Bearer ${forged}` });
    await run('{ viewer { name } }', { authorization: `Bearer ${wrongKey}` });
    await connectWs(server.url, { authorization: `Bearer ${wrongKey}` }).catch(() => undefined);

    // Revoked, then tried again.
    await run(
      `mutation { revokeApiKey(input: { id: ${(made.data.p as { apiKey: { id: number } }).apiKey.id} }) { __typename } }`,
      admin.headers,
    );
    await run('{ viewer { name } }', proposer);

    const events = await server.db.read.event.findMany();
    expect(events.length).toBeGreaterThan(10);
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining(['OPERATION_REFUSED', 'API_KEY_CREATED', 'API_KEY_REVOKED', 'LEASE_EXPIRED']),
    );
    const logs = server.logs.join('');
    expect(logs).toContain('refused an unauthenticated request');
    const history = JSON.stringify(events);
    for (const secret of secrets) {
      expect(logs.includes(secret), `a secret (${secret.slice(0, 6)}…) is in the logs`).toBe(false);
      expect(history.includes(secret), `a secret (${secret.slice(0, 6)}…) is in the history`).toBe(false);
    }
  });
});
