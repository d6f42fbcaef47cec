// Revocation and expiry end every live stream, whatever its transport (server-sent events over GET and
// POST, graphql-ws) and whatever its field: the last result is an UNAUTHENTICATED error, then the stream
// completes and nothing more arrives; a WebSocket then closes (4403 revoked, 4401 expired). A key revoked
// by another database handle (another process) reaches the streams through the event feed. A JWT's leeway
// is the same on HTTP and WebSocket. Expiry follows the server's ManualClock.
import type { ExecutionResult } from 'graphql';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Authenticator } from '../../src/auth/authenticator.js';
import { openDatabase } from '../../src/db/client.js';
import { createLogger } from '../../src/logger.js';
import { revokeApiKey } from '../../src/services/api-keys.js';
import { submitProposal } from '../../src/services/proposals/index.js';
import { post } from '../support/process.js';
import { proposalInput } from '../support/proposals.js';
import { hs256, startTestServer, type TestServer } from '../support/server.js';
import { connectWs, type WsClient, waitFor, writeUntilReceived } from '../support/ws.js';

const SECRET = 'a-credential-streams-test-secret-0123456789';
const LEEWAY_SECONDS = 30;

const ADD_ITEM = `mutation ($input: AddItemInput!) {
  addItem(input: $input) { __typename ... on AddItemPayload { item { id } } ... on UserError { code } }
}`;
const CLAIM = `mutation ($batchId: String) {
  claimItem(input: { batchId: $batchId, leaseSeconds: 3600 }) {
    __typename ... on ClaimItemPayload { lease { token } } ... on UserError { code }
  }
}`;
const RENEW = 'mutation ($token: String!) { renewLease(input: { token: $token, leaseSeconds: 3600 }) { __typename } }';
const REVOKE = 'mutation ($id: Int!) { revokeApiKey(input: { id: $id }) { __typename } }';

/** One subscription of each field, with the variables it takes from the subject's item and lease. */
const SUBSCRIPTIONS = {
  queueEvents: ['subscription { queueEvents(after: 0) { sequence } }', () => ({})],
  itemEvents: ['subscription ($id: ID!) { itemEvents(id: $id, after: 0) { sequence } }', (item: Held) => ({ id: item.id })],
  leaseEvents: ['subscription ($token: String!) { leaseEvents(token: $token) { kind } }', (item: Held) => ({ token: item.token })],
  proposalEvents: ['subscription { proposalEvents(after: 0) { sequence } }', () => ({})],
  queueStats: ['subscription { queueStats { sequence } }', () => ({})],
} as const satisfies Record<string, readonly [string, (item: Held) => Record<string, unknown>]>;
type Field = keyof typeof SUBSCRIPTIONS;
const FIELDS = Object.keys(SUBSCRIPTIONS) as Field[];

/** An item the subject has claimed. */
interface Held {
  id: string;
  token: string;
}

/** What one live stream received, the same for every transport. */
interface Stream {
  readonly results: ExecutionResult[];
  /** The server completed it. */
  readonly completed: boolean;
  /** Settles once it has ended, however. */
  readonly ended: Promise<void>;
  close(): void;
}

type Transport = 'SSE over GET' | 'SSE over POST' | 'WebSocket';
const TRANSPORTS: Transport[] = ['SSE over GET', 'SSE over POST', 'WebSocket'];

/** A subscription over server-sent events; resolves once the server answered 200 (the stream is subscribed then). */
async function sse(
  url: string,
  method: 'GET' | 'POST',
  credential: Record<string, string>,
  query: string,
  variables: Record<string, unknown>,
): Promise<Stream> {
  const abort = new AbortController();
  const response =
    method === 'GET'
      ? await fetch(`${url}/graphql?${new URLSearchParams({ query, variables: JSON.stringify(variables) })}`, {
          headers: { accept: 'text/event-stream', 'x-graphql-yoga-csrf': '1', ...credential },
          signal: abort.signal,
        })
      : await fetch(`${url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...credential },
          body: JSON.stringify({ query, variables }),
          signal: abort.signal,
        });
  if (response.status !== 200) throw new Error(`SSE over ${method}: HTTP ${response.status} ${await response.text()}`);
  const results: ExecutionResult[] = [];
  let completed = false;
  const reading = async () => {
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      const messages = buffered.split('\n\n');
      buffered = messages.pop() ?? '';
      for (const message of messages) {
        const lines = message.split('\n');
        const data = lines
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice('data:'.length).trim())
          .join('');
        if (lines.includes('event: next')) results.push(JSON.parse(data) as ExecutionResult);
        if (lines.includes('event: complete')) completed = true;
      }
    }
  };
  return {
    results,
    get completed() {
      return completed;
    },
    // Closed by the test: that ends it too.
    ended: reading().catch(() => undefined),
    close: () => abort.abort(),
  };
}

/** A subscription over a graphql-ws connection. */
function overWebSocket(ws: WsClient, query: string, variables: Record<string, unknown>): Stream {
  const collected = ws.subscribe(query, variables);
  return {
    results: collected.results as ExecutionResult[],
    get completed() {
      return collected.completed;
    },
    ended: collected.ended,
    close: () => collected.unsubscribe(),
  };
}

describe('live streams end with their credential', () => {
  let server: TestServer;
  let next = 0;
  beforeAll(async () => {
    server = await startTestServer({ config: { jwt: { ...hs256(SECRET), clockToleranceSeconds: LEEWAY_SECONDS } } });
    const setup = await server.as('setup', ['ADMIN', 'PROPOSER']);
    expect(
      (await post(server.url, 'mutation { addCategories(input: { names: ["alpha"] }) { __typename } }', {}, setup.headers)).status,
    ).toBe(200);
    // So that proposalEvents(after: 0) has something to replay.
    await submitProposal({ db: server.db, clock: server.clock }, { name: 'setup', authenticated: true }, proposalInput('P-1'));
  });
  afterAll(() => server.stop());

  const jwtFor = (name: string, exp: number) =>
    new SignJWT({ sub: name, roles: ['REVIEWER'], exp }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));
  const nowSeconds = () => Math.floor(server.clock.now().getTime() / 1000);

  /** Adds an item of its own (an ITEM_ADDED event every queue subscriber is shown); returns its id and batch. */
  async function addItem(): Promise<{ id: string; batchId: string }> {
    const batchId = `batch-${++next}`;
    const setup = await server.as('setup', ['ADMIN', 'PROPOSER']);
    const input = { batchId, recordId: 'R-1', proposedCategory: 'alpha', reason: 'credential streams' };
    const added = await post(server.url, ADD_ITEM, { input }, setup.headers);
    const id = (added.body.data?.addItem as { item?: { id: string } } | undefined)?.item?.id;
    if (!id) throw new Error(`addItem refused: ${JSON.stringify(added.body)}`);
    return { id, batchId };
  }

  /** An item of its own, claimed by the subject with `credential` (so it may follow the lease). */
  async function claimedBy(credential: Record<string, string>): Promise<Held> {
    const { id, batchId } = await addItem();
    const claimed = await post(server.url, CLAIM, { batchId }, credential);
    const token = (claimed.body.data?.claimItem as { lease?: { token: string } } | undefined)?.lease?.token;
    if (!token) throw new Error(`the subject could not claim: ${JSON.stringify(claimed.body)}`);
    return { id, token };
  }

  /**
   * One stream of every subscription field for the subject over `transport`, each seen live (a first
   * result; the lease's stream after a renewal) before the test goes on.
   */
  async function openStreams(
    transport: Transport,
    credential: Record<string, string>,
  ): Promise<{ streams: Record<Field, Stream>; ws: WsClient | null }> {
    const held = await claimedBy(credential);
    const ws = transport === 'WebSocket' ? await connectWs(server.url, credential) : null;
    const streams = {} as Record<Field, Stream>;
    for (const field of FIELDS) {
      const [query, variablesOf] = SUBSCRIPTIONS[field];
      const variables = variablesOf(held);
      streams[field] = ws
        ? overWebSocket(ws, query, variables)
        : await sse(server.url, transport === 'SSE over GET' ? 'GET' : 'POST', credential, query, variables);
    }
    await waitFor(() => FIELDS.every((field) => field === 'leaseEvents' || streams[field].results.length > 0));
    await writeUntilReceived(
      () => streams.leaseEvents.results.length > 0,
      () => post(server.url, RENEW, { token: held.token }, credential),
    );
    for (const field of FIELDS) expect(streams[field].results.every((result) => !result.errors)).toBe(true);
    return { streams, ws };
  }

  /** Every stream's last result is the error, then it completed. */
  async function expectEnded(streams: Record<Field, Stream>, message: string): Promise<void> {
    await waitFor(
      () => FIELDS.every((field) => streams[field].completed),
      5_000,
      () => `not completed: ${FIELDS.filter((field) => !streams[field].completed).join(', ')}`,
    );
    for (const field of FIELDS) {
      expect(streams[field].results.at(-1), field).toEqual({ errors: [{ message, extensions: { code: 'UNAUTHENTICATED' } }] });
    }
  }

  /** After a change another subscriber is shown, the ended streams have received nothing more. */
  async function expectNothingAfter(streams: Record<Field, Stream>): Promise<void> {
    const counts = FIELDS.map((field) => streams[field].results.length);
    const watcher = await server.as('watcher', ['VIEWER']);
    const control = await connectWs(server.url, watcher.headers);
    try {
      const events = overWebSocket(control, 'subscription { queueEvents { sequence } }', {});
      await writeUntilReceived(
        () => events.results.length > 0,
        () => addItem(),
      );
    } finally {
      await control.close();
    }
    expect(FIELDS.map((field) => streams[field].results.length)).toEqual(counts);
  }

  /** The credential's end as every transport shows it: each stream ends with `message`, a socket closes as `close`, and nothing follows. */
  async function expectCutOff(
    opened: Awaited<ReturnType<typeof openStreams>>,
    message: string,
    close: { code: number; reason?: unknown },
  ): Promise<void> {
    await expectEnded(opened.streams, message);
    if (opened.ws) {
      await opened.ws.closed;
      expect(opened.ws.closeEvent).toMatchObject(close);
    }
    await expectNothingAfter(opened.streams);
  }

  const keyIdOf = async (name: string) => (await server.db.read.apiKey.findFirstOrThrow({ where: { name } })).id;

  it.each(TRANSPORTS)('a key revoked over GraphQL ends every stream it opened, over %s', async (transport) => {
    const name = `revoked-${transport}`;
    const subject = await server.as(name, ['REVIEWER']);
    const opened = await openStreams(transport, subject.headers);
    const admin = await server.as('admin', ['ADMIN']);
    const revoked = await post(server.url, REVOKE, { id: await keyIdOf(name) }, admin.headers);
    expect(revoked.body).toEqual({ data: { revokeApiKey: { __typename: 'RevokeApiKeyPayload' } } });
    await expectCutOff(opened, 'The API key has been revoked.', { code: 4403 });
  });

  it.each(TRANSPORTS)(
    'a key revoked by another process ends every stream it opened, through the event feed, over %s',
    async (transport) => {
      const name = `revoked-elsewhere-${transport}`;
      const subject = await server.as(name, ['REVIEWER']);
      const opened = await openStreams(transport, subject.headers);
      // A database handle of its own: its commit reaches the server only through the database, as another process's would.
      const elsewhere = await openDatabase({ location: server.db.location });
      try {
        await revokeApiKey({ db: elsewhere, clock: server.clock }, { name: 'ops', authenticated: false }, await keyIdOf(name));
      } finally {
        await elsewhere.close();
      }
      await expectCutOff(opened, 'The API key has been revoked.', { code: 4403 });
    },
  );

  it.each(TRANSPORTS)(
    'a JWT ends every stream it opened when it expires on the server clock (after its leeway), over %s',
    async (transport) => {
      const token = await jwtFor(`kiosk-${transport}`, nowSeconds() + 60);
      const { streams, ws } = await openStreams(transport, { authorization: `Bearer ${token}` });
      // Past `exp` but inside the leeway: still live.
      server.clock.advance((60 + LEEWAY_SECONDS - 1) * 1000);
      await new Promise((resolve) => setImmediate(resolve));
      expect(FIELDS.filter((field) => streams[field].completed)).toEqual([]);
      expect(ws?.closeEvent ?? null).toBeNull();
      server.clock.advance(1_000);
      await expectCutOff({ streams, ws }, 'The token has expired.', { code: 4401, reason: expect.stringContaining('expired') });
    },
  );

  it('a JWT inside its leeway is accepted alike over HTTP, SSE and WebSocket, and refused alike beyond it', async () => {
    const viewer = '{ viewer { name } }';
    const inside = { authorization: `Bearer ${await jwtFor('late-kiosk', nowSeconds() - LEEWAY_SECONDS + 10)}` };
    expect(await post(server.url, viewer, {}, inside)).toEqual({ status: 200, body: { data: { viewer: { name: 'late-kiosk' } } } });
    const ws = await connectWs(server.url, inside);
    expect(await ws.execute(viewer)).toEqual({ data: { viewer: { name: 'late-kiosk' } } });
    const overWs = overWebSocket(ws, 'subscription { queueStats { sequence } }', {});
    const overSse = await sse(server.url, 'POST', inside, 'subscription { queueStats { sequence } }', {});
    await waitFor(() => overWs.results.length > 0 && overSse.results.length > 0);
    expect(ws.closeEvent).toBeNull();
    // Both end together, when the leeway does.
    server.clock.advance(9_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect([overWs.completed, overSse.completed, ws.closeEvent]).toEqual([false, false, null]);
    server.clock.advance(1_000);
    await Promise.all([overWs.ended, overSse.ended, ws.closed]);
    const expired = { errors: [{ message: 'The token has expired.', extensions: { code: 'UNAUTHENTICATED' } }] };
    expect([overWs.results.at(-1), overSse.results.at(-1)]).toEqual([expired, expired]);
    expect(ws.closeEvent).toMatchObject({ code: 4401 });

    const beyond = { authorization: `Bearer ${await jwtFor('later-kiosk', nowSeconds() - LEEWAY_SECONDS)}` };
    const refused = await post(server.url, viewer, {}, beyond);
    expect(refused.status).toBe(401);
    expect(refused.body.errors).toEqual([expect.objectContaining({ message: 'The token has expired.' })]);
    const closed = await connectWs(server.url, beyond).then(
      async (opened) => {
        await opened.close();
        throw new Error('the connection was accepted');
      },
      (error: unknown) => error as { code: number; reason: string },
    );
    expect(closed).toMatchObject({ code: 4401, reason: 'Unauthorized: The token has expired.' });
  });

  it('a stream whose watch begins after its key was revoked (authenticated just before) still ends', async () => {
    const subject = await server.as('revoked-meanwhile', ['REVIEWER']);
    // An authenticator of its own, so the moment between authentication and the watch can be held open.
    const authenticator = new Authenticator({ db: server.db, clock: server.clock, logger: createLogger('silent'), jwt: null });
    const principal = await authenticator.authenticate(subject.headers.authorization);
    authenticator.forgetKey(principal.keyId as number);
    const ended = await new Promise<string>((resolve) => authenticator.watch(principal, (ending) => resolve(ending.message)));
    expect(ended).toBe('The API key has been revoked.');
  });
});
