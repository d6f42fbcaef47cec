// Personal data in proposals (PROPOSAL_SENSITIVE_FIELDS), a property test against the real server: for
// random values and random configured paths, a principal without SENSITIVE_READER (a viewer-reviewer, and
// an ADMIN: it does not imply it) never sees a covered value in an HTTP answer, a WebSocket subscription
// (proposalEvents and queueEvents, the same documents a reader subscribes with: shared executions are keyed
// by roles), the SSE stream, a webhook body or a log line; a reader sees them all; the approval still works.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Event } from '../../src/db/client.js';
import { MASKED, parseSensitivePaths } from '../../src/domain/masking.js';
import { createLogger } from '../../src/logger.js';
import { deliveryBody } from '../../src/notifications/webhooks.js';
import type { ClaimedDelivery } from '../../src/services/webhook-deliveries.js';
import { testDatabase } from '../support/database.js';
import { databaseUrlOf, spawnServer } from '../support/process.js';
import { found, type Sample, samples } from '../support/sensitive-json.js';
import { startTestServer, type TestClient, type TestServer } from '../support/server.js';
import { connectWs, type WsClient, waitFor } from '../support/ws.js';

const SECRET = 'a-webhook-secret-of-at-least-32-characters';

const SUBMIT = `mutation($parameters: JSONObject!, $currentValue: JSON, $proposedValue: JSON) {
  submitProposal(input: { batchId: "pii", recordId: "r1", action: "update_contact", parameters: $parameters, reason: "Customer asked",
    target: { system: "crm", recordId: "c-1" }, currentValue: $currentValue, proposedValue: $proposedValue,
    dataSource: "crm export", riskLevel: LOW, fingerprint: "fp-1" }) {
    ... on SubmitProposalPayload { proposal { id state parameters currentValue proposedValue } }
    ... on UserError { code message } } }`;
const CLAIM = `mutation { claimProposal(input: { leaseSeconds: 120 }) {
  ... on ClaimProposalPayload { claimed proposal { parameters currentValue proposedValue } lease { token } }
  ... on UserError { code message } } }`;
const APPROVE = `mutation($token: String!) { reviewProposal(input: { token: $token, decision: APPROVE, revision: 1 }) {
  ... on ReviewProposalPayload { proposal { state parameters currentValue proposedValue } }
  ... on UserError { code message } } }`;
const READ = `query { proposals(first: 5) { edges { node { id state fingerprint parameters currentValue proposedValue
  history(first: 20) { edges { node { type details } } } } } } }`;
const PROPOSAL_EVENTS = 'subscription { proposalEvents { type details proposal { parameters currentValue proposedValue } } }';
const QUEUE_EVENTS = 'subscription { queueEvents { type details proposal { parameters currentValue proposedValue } } }';
/** Events one submission, claim and approval make: submitted, lease claimed, approval recorded, approved. */
const EVENTS = 4;

/** A webhook receiver: every body it was sent. */
const bodies: string[] = [];
let hook: Server;
async function hookUrl(): Promise<string> {
  if (!hook) {
    hook = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        bodies.push(Buffer.concat(chunks).toString('utf8'));
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  }
  return `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
}
afterAll(async () => {
  if (hook) await new Promise((resolve) => hook.close(resolve));
});

async function run<T = Record<string, unknown>>(client: TestClient, url: string, query: string, variables?: unknown): Promise<T> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { ...client.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  const answer = JSON.parse(text) as { data: T; errors?: unknown[] };
  expect(answer.errors, text).toBeUndefined();
  return answer.data;
}

/** An SSE subscription: its raw text so far (on a connection of its own, closed by `stop`). */
function sse(url: string, client: TestClient, query: string) {
  const body = JSON.stringify({ query });
  const request = httpRequest(`${url}/graphql`, {
    method: 'POST',
    agent: false,
    headers: {
      ...client.headers,
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'content-length': Buffer.byteLength(body),
    },
  });
  const stream = { text: '', stop: () => request.destroy() };
  request.on('response', (response) => {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      stream.text += chunk;
    });
    response.on('error', () => undefined);
  });
  request.on('error', () => undefined);
  request.end(body);
  return stream;
}

interface Watcher {
  name: string;
  reads: boolean;
  client: TestClient;
  ws: WsClient;
  subscriptions: { data: unknown[]; results: unknown[] }[];
  frames: string[];
  stream: ReturnType<typeof sse>;
}

async function watcher(server: TestServer, name: string, roles: Parameters<TestServer['as']>[1], reads: boolean): Promise<Watcher> {
  const client = await server.as(name, roles);
  const ws = await connectWs(server.url, client.headers);
  const frames: string[] = [];
  ws.socket.on('message', (data: Buffer) => frames.push(data.toString('utf8')));
  const subscriptions = [ws.subscribe(PROPOSAL_EVENTS), ws.subscribe(QUEUE_EVENTS)];
  return { name, reads, client, ws, subscriptions, frames, stream: sse(server.url, client, PROPOSAL_EVENTS) };
}

/** One run: a server configured with the sample's paths, one proposal through approval, everything anyone saw. */
async function check(sample: Sample): Promise<void> {
  const already = bodies.length;
  const server = await startTestServer({
    config: {
      sensitiveFields: parseSensitivePaths(JSON.stringify(sample.paths)),
      webhooks: [{ name: 'ops', url: await hookUrl(), events: ['PROPOSAL_SUBMITTED', 'PROPOSAL_APPROVED'], secret: SECRET }],
    },
  });
  const watchers: Watcher[] = [];
  try {
    watchers.push(
      await watcher(server, 'vera', ['VIEWER', 'REVIEWER'], false),
      await watcher(server, 'ada', ['ADMIN'], false),
      await watcher(server, 'rita', ['VIEWER', 'SENSITIVE_READER'], true),
    );
    // Every subscription is live before the first change (each answers its first event once the feed has it).
    await new Promise((resolve) => setTimeout(resolve, 50));
    const bot = await server.as('bot', ['PROPOSER']);
    const answers: Record<string, string[]> = { vera: [], ada: [], rita: [], bot: [] };
    answers.bot?.push(JSON.stringify(await run(bot, server.url, SUBMIT, sample.values)));
    const vera = watchers[0] as Watcher;
    const claim = await run<{ claimProposal: { claimed: boolean; lease: { token: string } } }>(vera.client, server.url, CLAIM);
    expect(claim.claimProposal.claimed).toBe(true);
    answers.vera?.push(JSON.stringify(claim));
    const approved = await run<{ reviewProposal: { proposal: { state: string } } }>(vera.client, server.url, APPROVE, {
      token: claim.claimProposal.lease.token,
    });
    // The approval covers the stored, full values: masking only changes what is shown.
    expect(approved.reviewProposal.proposal.state).toBe('APPROVED');
    answers.vera?.push(JSON.stringify(approved));
    for (const w of watchers) answers[w.name]?.push(JSON.stringify(await run(w.client, server.url, READ)));
    for (const w of watchers) {
      await waitFor(
        () => w.subscriptions.every((s) => s.data.length >= EVENTS) && (w.stream.text.match(/"type":"PROPOSAL_/g) ?? []).length >= EVENTS,
        10_000,
        () => `${w.name}: ${w.subscriptions.map((s) => s.data.length)} ws events, sse ${w.stream.text.length} characters`,
      );
    }
    await waitFor(
      () => bodies.length >= already + 2,
      10_000,
      () => `${bodies.length - already} webhook bodies`,
    );
    await server.settle();

    for (const w of watchers) {
      const seen = {
        http: (answers[w.name] ?? []).join('\n'),
        websocket: [...w.frames, JSON.stringify(w.subscriptions.map((s) => s.results))].join('\n'),
        sse: w.stream.text,
      };
      for (const [path, text] of Object.entries(seen)) {
        if (w.reads) expect(found(text, sample.sensitive), `${w.name} over ${path}`).toEqual(sample.sensitive);
        else {
          expect(found(text, sample.sensitive), `${w.name} over ${path}`).toEqual([]);
          if (sample.sensitive.length > 0) expect(text, `${w.name} over ${path}`).toContain(MASKED);
        }
        // Outside the sensitive parts nothing changes.
        expect(found(text, sample.plain), `${w.name} over ${path}`).toEqual(sample.plain);
      }
    }
    // The proposer without the role sees its own submission masked too.
    expect(found(answers.bot?.join('') ?? '', sample.sensitive)).toEqual([]);
    // Webhooks have no principal: always masked. Logs never print the values at all (debug level included).
    expect(found(bodies.slice(already).join('\n'), sample.sensitive)).toEqual([]);
    expect(found(server.logs.join(''), [...sample.sensitive, ...sample.plain])).toEqual([]);
  } finally {
    for (const w of watchers) {
      w.stream.stop();
      await w.ws.close();
    }
    await server.stop();
  }
}

describe('sensitive fields through every path out of the server', () => {
  it('never shows a covered value without SENSITIVE_READER, over random values and paths', async () => {
    await fc.assert(fc.asyncProperty(samples, check), { numRuns: 8, endOnFailure: true });
  }, 120_000);

  it('masks details that carry a proposal field in a webhook body, whoever would have been allowed', () => {
    const event = {
      id: 9,
      type: 'PROPOSAL_SUBMITTED',
      occurredAt: new Date(0),
      actor: 'bot',
      itemId: null,
      proposalId: 1,
      categoryName: null,
      fromStatus: null,
      toStatus: 'PENDING',
      details: JSON.stringify({ parameters: { card: '4111-secret' }, currentValue: { email: 'e@secret' }, batchId: 'pii' }),
    } as unknown as Event;
    const delivery = { id: 1, webhook: 'ops', event } as unknown as ClaimedDelivery;
    const body = deliveryBody(delivery, parseSensitivePaths('["parameters.card","currentValue.email"]'));
    expect(JSON.parse(body).event.details).toEqual({ parameters: { card: MASKED }, currentValue: { email: MASKED }, batchId: 'pii' });
  });

  it('scrubs the three fields from a log line, should one ever be passed to the logger', () => {
    const lines: string[] = [];
    const logger = createLogger(
      'debug',
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    logger.info({ parameters: { card: '4111-secret' }, proposal: { currentValue: 'e@secret', proposedValue: 'p@secret' } }, 'x');
    logger.info({ variables: { parameters: { card: '4111-secret' } } }, 'y');
    expect(lines.join('')).not.toMatch(/secret/);
    expect(lines.join('')).toContain('[redacted]');
  });

  it('ends the start with one line when PROPOSAL_SENSITIVE_FIELDS cannot be read', async () => {
    const db = await testDatabase();
    try {
      const child = spawnServer({ PORT: '0', DATABASE_URL: databaseUrlOf(db), PROPOSAL_SENSITIVE_FIELDS: '["parameters.card", "email"]' });
      expect(await child.exited).toBe(1);
      expect(child.stderr).toHaveLength(1);
      expect(JSON.parse(child.stderr[0] as string).msg).toBe(
        'Invalid configuration: PROPOSAL_SENSITIVE_FIELDS: "email": must start with parameters, currentValue, proposedValue',
      );
    } finally {
      await db.cleanup();
    }
  }, 30_000);
});
