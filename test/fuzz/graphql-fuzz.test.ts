// Fuzz (issue 7): schema-generated GraphQL requests and raw HTTP oddities against the real server process, as every role.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import fc from 'fast-check';
import type { GraphQLEnumType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { PERMISSIONS, type Role } from '../../src/domain/access.js';
import { FIELD_PERMISSIONS } from '../../src/graphql/builder.js';
import { schema } from '../../src/graphql/schema.js';
import { type TestDatabase, testDatabase } from '../support/database.js';
import { createKey, createKeys, type KeyHolder, type StartedServer, startServerProcess } from '../support/process.js';
import {
  bodyText,
  corrupt,
  describeJson,
  type GraphQLCase,
  type InvalidCase,
  type PoolName,
  type Pools,
  PRINCIPALS,
  type PrincipalName,
  type RawRequest,
  type RenderedRequest,
  rawRequestArb,
  render,
  SchemaArbitraries,
} from './generators.js';

/** Runs per property (three properties, one request each); `FUZZ_RUNS=5000` to go further locally. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 800);
/** Printed before the run: `FUZZ_SEED=<seed>` replays it (with the same FUZZ_RUNS). */
// CI replays one seed that is known to pass, so a red CI is about the change; anywhere else each run explores a
// new seed (printed, with the command to replay it).
const CI_SEED = 438009708;
const SEED = Number(process.env.FUZZ_SEED ?? (process.env.CI ? CI_SEED : Math.floor(Math.random() * 2 ** 31)));
/** The server's resident memory may grow by at most this much from after the warm-up to the end. */
const RSS_GROWTH_LIMIT_MIB = 80;
/** Requests of the run's mix sent before the memory baseline, so every code path is loaded. */
const WARM_UP_REQUESTS = 150;
/**
 * graphql-yoga keeps the last 1024 parsed documents (with their validation results) and the last 1024 parse errors
 * (its LRU default). Filled before the baseline with documents like the run's last ones (invalid-mode documents, and
 * the same cut short), they cost nothing more later: the growth measured is what is not them. Measured after a full
 * GC, they hold about 110 MiB of heap when full of these documents (and far more with bigger ones).
 */
const YOGA_CACHE_ENTRIES = 1024;
/** An answer slower than this is a finding too (a hung request). */
const REQUEST_TIMEOUT_MS = 15_000;

/**
 * Every status the server may answer a fuzzed request with. 200: executed, or GraphQL errors for application/json
 * clients; 400: unparsable, invalid or unresolvable requests; 401: no valid credential; 403: CSRF prevention
 * (simple requests a browser could send cross-site); 405: a method /graphql does not take, or a mutation over GET;
 * 406: an Accept header the server cannot answer; 411: a body without Content-Length; 413: a body over 2 MiB;
 * 415: a content type the server does not read; 429: rate limited (off here, but a correct answer).
 * 204 only to OPTIONS (a CORS preflight). Anything else, a 5xx above all, is a finding.
 */
const ACCEPTED_STATUSES = new Set([200, 400, 401, 403, 405, 406, 411, 413, 415, 429]);

const ROLE_OF: Record<PrincipalName, Role> = {
  admin: 'ADMIN',
  proposer: 'PROPOSER',
  reviewer: 'REVIEWER',
  executor: 'EXECUTOR',
  viewer: 'VIEWER',
};

/** Lease tokens (lh_ + 32) and API keys (lhk_ + 43), as issued by src/domain/lease.ts and src/services/api-keys.ts. */
const SECRET = /\blhk_[A-Za-z0-9_-]{43}|\blh_[A-Za-z0-9_-]{32}/g;
/** A stack frame: "at fn (file.ts:12:3)" or "at file:///x.js:1:2". */
const STACK_FRAME = /\bat [^\n"]*\.(?:[cm]?[jt]s|tsx?)(?::\d+)+|\n\s+at \S/;

interface Answer {
  requestId: string;
  status: number;
  contentType: string;
  text: string;
}

interface Stats {
  statuses: Map<number, number>;
  codes: Map<string, number>;
  /** Parse and validation errors other than the documented limits (depth, aliases, tokens, directives). */
  invalidDocuments: string[];
  executed: number;
  total: number;
}

const newStats = (): Stats => ({ statuses: new Map(), codes: new Map(), invalidDocuments: [], executed: 0, total: 0 });
const bump = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);
const table = <K>(map: Map<K, number>) =>
  [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([key, count]) => `${String(key)}×${count}`)
    .join(' ');

/**
 * Runs a full garbage collection in the server through its inspector (V8 grows its heap lazily, so without one
 * the resident size mostly says when V8 last felt like collecting) and returns the heap in use after it, in MiB.
 */
async function collectGarbage(inspectorUrl: string): Promise<number> {
  const socket = new WebSocket(inspectorUrl);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  let lastId = 0;
  const call = (method: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = ++lastId;
      const onMessage = (data: Buffer) => {
        const message = JSON.parse(data.toString('utf8')) as { id?: number; result?: Record<string, unknown>; error?: unknown };
        if (message.id !== id) return;
        socket.off('message', onMessage);
        if (message.error) reject(new Error(`${method}: ${JSON.stringify(message.error)}`));
        else resolve(message.result ?? {});
      };
      socket.on('message', onMessage);
      socket.send(JSON.stringify({ id, method }));
    });
  try {
    await call('HeapProfiler.collectGarbage');
    return Number((await call('Runtime.getHeapUsage')).usedSize) / 2 ** 20;
  } finally {
    socket.close();
  }
}

function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'));
  const kib = Number(/(\d+)/.exec(line ?? '')?.[1]);
  if (!Number.isFinite(kib)) throw new Error(`no VmRSS for process ${pid}`);
  return kib / 1024;
}

/** The JSON payloads of an answer: one for JSON, one per event for SSE, one per part for multipart/mixed. */
function payloadsOf(answer: Answer): unknown[] {
  const type = answer.contentType.toLowerCase();
  if (type.startsWith('text/event-stream')) {
    return answer.text
      .split('\n\n')
      .map((event) =>
        event
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trim())
          .join('\n'),
      )
      .filter((data) => data !== '')
      .map((data) => JSON.parse(data));
  }
  if (type.startsWith('multipart/mixed')) {
    return answer.text
      .split(/\r?\n-{3,}\r?\n?/)
      .map((part) =>
        part
          .split(/\r?\n\r?\n/)
          .slice(1)
          .join('\n\n')
          .trim(),
      )
      .filter((body) => body !== '')
      .map((body) => JSON.parse(body));
  }
  return [JSON.parse(answer.text)];
}

describe('fuzz: generated requests against the real server process', () => {
  /** The run's backend: a SQLite file, or a PostgreSQL database of its own. */
  let database: TestDatabase;
  let server: StartedServer;
  let agent: Agent;
  const keys = new Map<PrincipalName, KeyHolder>();
  /** Every secret some response has shown (and the principals' keys): a second showing is a leak. */
  const shownSecrets = new Set<string>();
  const pools: Pools = { token: [], id: [], category: [], batchId: [], recordId: [], fingerprint: [] };
  let requestCount = 0;
  let logCursor = 0;
  let inspectorUrl = '';
  /** Server memory after a full GC: after the warm-up, after each property. */
  const memory: { after: string; rss: number; heap: number }[] = [];
  async function measure(after: string): Promise<{ rss: number; heap: number }> {
    const heap = await collectGarbage(inspectorUrl);
    const reading = { after, rss: rssMiB(server.child.pid as number), heap };
    memory.push(reading);
    return reading;
  }
  let replacedKeys = 0;
  /** Requests whose "request" log line did not come within a second (their error lines may show up later). */
  let unattributedLogs = 0;
  const roles = Object.fromEntries(PRINCIPALS.map((name) => [name, [ROLE_OF[name]]])) as Record<PrincipalName, Role[]>;
  const allowedMutations = Object.fromEntries(
    PRINCIPALS.map((name) => [
      name,
      Object.keys(schema.getMutationType()?.getFields() ?? {}).filter((field) => {
        const permission = FIELD_PERMISSIONS.get(`Mutation.${field}`);
        return permission !== undefined && (PERMISSIONS[permission] as readonly Role[]).includes(ROLE_OF[name]);
      }),
    ]),
  ) as Record<PrincipalName, string[]>;
  const arbitraries = new SchemaArbitraries(schema, allowedMutations);
  const validCases = arbitraries.graphqlCase('valid');
  const invalidCases = arbitraries.invalidCase();
  // Raw requests carry small, valid queries (viewer-safe): what is odd about them is the HTTP around them.
  const simpleQueries = arbitraries
    .graphqlCase('valid')
    .filter((testCase) => testCase.operations.every((operation) => operation.type === 'query'))
    .map((testCase) => render(testCase, { token: [], id: [], category: [], batchId: [], recordId: [], fingerprint: [] }).query)
    .filter((query) => query.length < 2_000);
  const rawRequests = rawRequestArb(simpleQueries);

  /**
   * Sends bytes to the server as they are (node:http, so no header or body is fixed up on the way). A reused
   * keep-alive connection can be closed by the server just as the next request goes out (its idle timeout, or
   * an early 413 while a body is still being written): that one request is sent once more on a fresh connection.
   */
  async function send(method: string, path: string, headers: Record<string, string>, body: string | Uint8Array | null, chunked = false) {
    try {
      return await sendOnce(method, path, headers, body, chunked, agent);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== 'ECONNRESET' && code !== 'EPIPE') throw error;
      return sendOnce(method, path, { ...headers, connection: 'close' }, body, chunked, false);
    }
  }

  function sendOnce(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string | Uint8Array | null,
    chunked: boolean,
    via: Agent | false,
  ) {
    return new Promise<Answer>((resolve, reject) => {
      const url = new URL(server.url);
      const requestId = `fuzz-${++requestCount}`;
      const all: Record<string, string> = { 'x-request-id': requestId, ...headers };
      if (body !== null) {
        // Node's client frames a body without a length as chunked only for some methods: say so for all of them.
        if (chunked) all['transfer-encoding'] = 'chunked';
        else all['content-length'] = String(Buffer.byteLength(body));
      }
      const outgoing = request({ host: url.hostname, port: url.port, method, path, headers: all, agent: via }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            requestId,
            status: response.statusCode ?? 0,
            contentType: String(response.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      });
      outgoing.setTimeout(REQUEST_TIMEOUT_MS, () => outgoing.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
      outgoing.on('error', reject);
      if (body !== null) outgoing.write(body);
      outgoing.end();
    });
  }

  const bearer = (name: PrincipalName) => `Bearer ${(keys.get(name) as KeyHolder).key}`;

  /** A GraphQL request as a client library sends it: POST JSON, or GET with the CSRF header for queries. */
  function sendGraphQL(principal: PrincipalName, rendered: RenderedRequest): Promise<Answer> {
    const headers = { authorization: bearer(principal), accept: 'application/graphql-response+json, application/json;q=0.9' };
    if (rendered.get) {
      const search = new URLSearchParams({ query: rendered.query, variables: bodyText(rendered.variables) });
      if (rendered.operationName !== undefined) search.set('operationName', rendered.operationName);
      const path = `/graphql?${search}`;
      // Node refuses request heads over 16 KiB (431) before the application sees them: long documents go by POST.
      if (path.length < 8_000) return send('GET', path, { ...headers, 'x-graphql-yoga-csrf': '1' }, null);
    }
    const body = bodyText({ query: rendered.query, variables: rendered.variables, operationName: rendered.operationName });
    return send('POST', '/graphql', { ...headers, 'content-type': 'application/json' }, body);
  }

  /** Strings the server handed out, for later requests to use (see Pools). */
  function harvest(value: unknown, key = ''): void {
    if (Array.isArray(value)) {
      for (const item of value) harvest(item, key);
    } else if (value !== null && typeof value === 'object') {
      for (const [name, inner] of Object.entries(value)) harvest(inner, name);
    } else if (typeof value === 'string' && key in pools) {
      const pool = pools[key as PoolName];
      if (!pool.includes(value) && pool.length < 500) pool.push(value);
    }
  }

  /**
   * Error-level lines the server logged for request `requestId` (and anything else since the last call): its own
   * "request" line comes last, after whatever the request made it log, so wait for that line (up to a second).
   */
  async function newErrorLogs(requestId?: string): Promise<string[]> {
    const marker = `"requestId":"${requestId}"`;
    const deadline = Date.now() + 1_000;
    let end = server.stdout.length;
    while (requestId !== undefined) {
      const index = server.stdout.findIndex((line, at) => at >= logCursor && line.includes(marker) && line.includes('"msg":"request"'));
      if (index >= 0) {
        end = index + 1;
        break;
      }
      if (Date.now() > deadline) {
        end = server.stdout.length;
        unattributedLogs++;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const lines = server.stdout.slice(logCursor, end);
    logCursor = end;
    return lines.filter((line) => {
      try {
        return ((JSON.parse(line) as { level?: number }).level ?? 0) >= 50;
      } catch {
        return true; // not a JSON log line: something wrote past the logger
      }
    });
  }

  /**
   * Everything wrong with one answer: a status outside the accepted set, a body that is not GraphQL's JSON,
   * an INTERNAL_SERVER_ERROR, a stack trace, a secret the request did not create, or an error logged for it.
   */
  async function problemsWith(
    sent: { method: string; headers: Record<string, string>; text: string },
    answer: Answer,
    stats: Stats,
  ): Promise<string[]> {
    const problems: string[] = [];
    stats.total++;
    bump(stats.statuses, answer.status);
    const options = sent.method === 'OPTIONS' && answer.status === 204;
    if (!ACCEPTED_STATUSES.has(answer.status) && !options) problems.push(`status ${answer.status} is not an accepted answer`);
    const type = answer.contentType.toLowerCase();
    const empty = answer.text.length === 0;
    if (empty) {
      // Yoga answers 406 (Accept) and 415 (Content-Type) with no body; HEAD and OPTIONS have none either.
      if (!(options || sent.method === 'HEAD' || answer.status === 406 || answer.status === 415)) problems.push('empty body');
    } else if (type.startsWith('text/html')) {
      const asked = sent.method === 'GET' && (sent.headers.accept ?? '').includes('text/html');
      if (!asked || !answer.text.includes('<title>Leasehold</title>'))
        problems.push('an HTML body other than GraphiQL for GET Accept: text/html');
    } else {
      if (STACK_FRAME.test(answer.text)) problems.push('a stack trace in the body');
      let payloads: unknown[] = [];
      try {
        payloads = payloadsOf(answer);
      } catch {
        problems.push(`a body that is not JSON (content-type ${answer.contentType || 'none'})`);
      }
      for (const payload of payloads) {
        if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
          problems.push('a payload that is not an object');
          continue;
        }
        const { data, errors } = payload as { data?: unknown; errors?: unknown };
        if (data === undefined && errors === undefined) problems.push('a payload with neither data nor errors');
        if (data !== undefined && data !== null) stats.executed++;
        if (errors !== undefined) {
          if (!Array.isArray(errors)) {
            problems.push('errors is not a list');
            continue;
          }
          for (const error of errors as { message?: unknown; extensions?: { code?: unknown } }[]) {
            if (typeof error?.message !== 'string') problems.push('an error without a message');
            const code = String(error?.extensions?.code ?? 'none');
            bump(stats.codes, code);
            const limit = /limit of \d+ exceeded/.test(String(error?.message));
            if ((code === 'GRAPHQL_PARSE_FAILED' || code === 'GRAPHQL_VALIDATION_FAILED') && !limit)
              stats.invalidDocuments.push(String(error?.message));
            if (code === 'INTERNAL_SERVER_ERROR') problems.push('INTERNAL_SERVER_ERROR: an unexpected exception reached the edge');
          }
        }
        harvest(data);
      }
    }
    // A secret may appear once, in the answer to the request that created it, or echo one the request's path or body
    // carries (a token it uses); never the caller's own credential, or anybody else's.
    for (const secret of new Set(answer.text.match(SECRET) ?? [])) {
      if (sent.text.includes(secret)) continue;
      if (shownSecrets.has(secret)) problems.push(`a secret issued earlier is shown again: ${secret.slice(0, 8)}…`);
      shownSecrets.add(secret);
    }
    const logged = await newErrorLogs(answer.requestId);
    if (logged.length > 0) problems.push(`the server logged errors:\n${logged.map((line) => line.slice(0, 2_000)).join('\n')}`);
    return problems;
  }

  /** The fuzzer may revoke its own principals' keys (revokeApiKey with a small id): a 401 for one gets a new key. */
  async function replaceRevokedKey(principal: PrincipalName, answer: Answer): Promise<void> {
    if (answer.status !== 401) return;
    const replacement = await createKey(database, principal, roles[principal]);
    keys.set(principal, replacement);
    shownSecrets.add(replacement.key);
    replacedKeys++;
  }

  async function checkHealth(): Promise<void> {
    if (requestCount % 25 !== 0) return;
    const health = await send('GET', '/health', {}, null);
    if (health.status !== 200) throw new Error(`/health answered ${health.status} after request ${requestCount}`);
  }

  function fail(problems: string[], sent: string, answer: Answer): never {
    throw new Error(
      `${problems.join('\n')}\n--- request ${answer.requestId}:\n${sent.slice(0, 4_000)}\n--- answer ${answer.status} ${answer.contentType}:\n${answer.text.slice(0, 2_000)}`,
    );
  }

  /** Problems met during the warm-up, which does not shrink: one example per kind, reported by the last test. */
  const warmUpFindings = new Map<string, string>();
  function noteWarmUpFinding(problems: string[], sent: string): void {
    const kind = problems
      .map((problem) => problem.split('\n')[0])
      .join('; ')
      .replace(/\d+/g, 'N');
    const seen = warmUpFindings.get(kind);
    const example = `${problems.join('; ').slice(0, 600)} <- ${sent.slice(0, 600)}`;
    if (seen === undefined || example.length < seen.length) warmUpFindings.set(kind, example);
  }

  async function runGraphQL(testCase: GraphQLCase, rendered: RenderedRequest, stats: Stats, warmUp = false): Promise<void> {
    const answer = await sendGraphQL(testCase.principal, rendered);
    const sentText = describeJson({ as: testCase.principal, ...rendered });
    const problems = await problemsWith({ method: rendered.get ? 'GET' : 'POST', headers: {}, text: sentText }, answer, stats);
    await replaceRevokedKey(testCase.principal, answer);
    if (problems.length > 0) {
      if (!warmUp) fail(problems, sentText, answer);
      noteWarmUpFinding(problems, sentText);
    }
    await checkHealth();
  }

  async function runRaw(raw: RawRequest, stats: Stats, warmUp = false): Promise<void> {
    // `{name}` in a header stands for that principal's current key.
    const headers = Object.fromEntries(
      Object.entries(raw.headers).map(([name, value]) => [
        name,
        value.replace(/\{(\w+)\}/g, (_, who: PrincipalName) => keys.get(who)?.key ?? who),
      ]),
    );
    const answer = await send(raw.method, raw.path, headers, raw.body, raw.chunked);
    const sentBody = raw.body === null ? '' : typeof raw.body === 'string' ? raw.body : Buffer.from(raw.body).toString('utf8');
    const head = `${raw.method} ${raw.path}${raw.chunked ? ' (chunked)' : ''}\n${JSON.stringify(headers)}\n`;
    const shown = `${head}${sentBody.length > 3_000 ? `${sentBody.slice(0, 3_000)}… (${sentBody.length} characters)` : sentBody}`;
    const problems = await problemsWith({ method: raw.method, headers, text: `${raw.path}\n${sentBody}` }, answer, stats);
    const principal = PRINCIPALS.find((name) => raw.headers.authorization === `Bearer {${name}}`);
    if (principal) await replaceRevokedKey(principal, answer);
    if (problems.length > 0) {
      if (!warmUp) fail(problems, shown, answer);
      noteWarmUpFinding(problems, shown);
    }
    await checkHealth();
  }

  /** Set-up (and summary) requests must succeed outright. */
  async function setUp(principal: PrincipalName, query: string, variables: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const stats = newStats();
    const rendered = { query, variables, operationName: undefined, get: false };
    let answer = await sendGraphQL(principal, rendered);
    if (answer.status === 401) {
      await replaceRevokedKey(principal, answer);
      answer = await sendGraphQL(principal, rendered);
    }
    const problems = await problemsWith({ method: 'POST', headers: {}, text: query }, answer, stats);
    if (problems.length > 0) fail(problems, query, answer);
    const body = JSON.parse(answer.text) as { data?: Record<string, unknown>; errors?: unknown };
    expect(body.errors, query).toBeUndefined();
    return body.data as Record<string, unknown>;
  }

  /** What the run changed, from the history (refusals left out): evidence that mutations really ran. */
  async function changes(): Promise<string> {
    const types = (schema.getType('EventType') as GraphQLEnumType)
      .getValues()
      .map((value) => value.name)
      .filter((type) => type !== 'OPERATION_REFUSED');
    const counts = new Map<string, number>();
    let after: string | null = null;
    for (let page = 0; page < 100; page++) {
      const data = await setUp(
        'viewer',
        'query($types: [EventType!], $after: String) { events(first: 100, after: $after, filter: {types: $types}) { edges { node { type } } pageInfo { hasNextPage endCursor } } }',
        { types, after },
      );
      const events = data.events as { edges: { node: { type: string } }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
      for (const edge of events.edges) bump(counts, edge.node.type);
      if (!events.pageInfo.hasNextPage) break;
      after = events.pageInfo.endCursor;
    }
    return table(counts);
  }

  function report(title: string, stats: Stats): void {
    console.log(
      `fuzz ${title}: ${stats.total} requests, ${stats.executed} executed (data); statuses ${table(stats.statuses)}; codes ${table(stats.codes)}`,
    );
  }

  const property = <T>(arbitrary: fc.Arbitrary<T>, run: (value: T) => Promise<void>) =>
    fc.assert(
      fc.asyncProperty(arbitrary, run),
      // Each run is one request; a failure shrinks to the smallest request that still fails.
      { numRuns: RUNS, seed: SEED },
    );

  beforeAll(async () => {
    console.log(`fuzz: seed ${SEED}, ${RUNS} runs per property (replay: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} npx vitest run test/fuzz)`);
    database = await testDatabase();
    for (const made of await createKeys(
      database,
      PRINCIPALS.map((name) => ({ name, roles: roles[name] })),
    )) {
      keys.set(made.name as PrincipalName, made);
      shownSecrets.add(made.key);
    }
    server = await startServerProcess({
      DATABASE_URL: database.url,
      // The fuzzer is one principal per role firing requests back to back on purpose; the limiter would turn most
      // of them into 429s and hide the code under test. The limiter has its own tests.
      RATE_LIMIT_PER_SECOND: '0',
      // A loopback inspector, only to force a full GC before each memory reading (see collectGarbage).
      NODE_OPTIONS: '--inspect=127.0.0.1:0',
    });
    inspectorUrl = /ws:\/\/\S+/.exec(await server.waitForStderr((line) => line.startsWith('Debugger listening on ')))?.[0] ?? '';
    agent = new Agent({ keepAlive: true, maxSockets: 1 });
    logCursor = server.stdout.length;

    // A queue to work on: categories, items, proposals, and leases whose tokens later requests may use.
    pools.category.push('配送', '請求', 'その他', 'fuzz');
    await setUp('admin', 'mutation($names: [String!]!) { addCategories(input: {names: $names}) { __typename } }', {
      names: pools.category,
    });
    const items = Array.from({ length: 12 }, (_, index) => ({
      batchId: 'seed',
      recordId: `r${index}`,
      proposedCategory: '配送',
      reason: 'seed',
    }));
    await setUp(
      'proposer',
      'mutation($items: [AddItemInput!]!) { addItems(input: {items: $items}) { ... on AddItemsPayload { addedCount entries { item { id batchId recordId } } } } }',
      { items },
    );
    for (const recordId of ['p0', 'p1', 'p2', 'p3']) {
      await setUp(
        'proposer',
        `mutation { submitProposal(input: { batchId: "refunds", recordId: "${recordId}", action: "refund", parameters: { amount: 1 }, reason: "seed",
          target: { system: "billing", recordId: "${recordId}" }, dataSource: "seed", riskLevel: LOW, fingerprint: "sha256:seed" }) {
          ... on SubmitProposalPayload { proposal { id fingerprint } } } }`,
      );
    }
    for (let claim = 0; claim < 4; claim++) {
      await setUp(
        'reviewer',
        'mutation { claimItem(input: {leaseSeconds: 3600}) { ... on ClaimItemPayload { lease { token } item { id } } } }',
      );
    }
    const proposal = await setUp(
      'reviewer',
      'mutation { claimProposal(input: {leaseSeconds: 3600}) { ... on ClaimProposalPayload { lease { token } proposal { id revision } } } }',
    );
    const token = (proposal.claimProposal as { lease: { token: string } }).lease.token;
    await setUp(
      'reviewer',
      'mutation($token: String!) { reviewProposal(input: {token: $token, decision: APPROVE, revision: 1}) { __typename } }',
      {
        token,
      },
    );
    await setUp('reviewer', 'mutation { claimProposal(input: {leaseSeconds: 3600}) { ... on ClaimProposalPayload { lease { token } } } }');
    await setUp(
      'executor',
      'mutation { claimExecution(input: {leaseSeconds: 3600}) { ... on ClaimExecutionPayload { lease { token } } } }',
    );
    expect(pools.token.length).toBeGreaterThanOrEqual(6);

    // Warm-up: the same mix as the run, so the baseline has every code path loaded; then yoga's caches, filled.
    const warmUp = newStats();
    const third = Math.ceil(WARM_UP_REQUESTS / 3);
    for (const testCase of fc.sample(validCases, { numRuns: third, seed: SEED + 1 })) {
      await runGraphQL(testCase, render(testCase, pools), warmUp, true);
    }
    for (const { graphql, corruption } of fc.sample(invalidCases, { numRuns: third, seed: SEED + 2 })) {
      await runGraphQL(graphql, corrupt(render(graphql, pools), corruption), warmUp, true);
    }
    for (const raw of fc.sample(rawRequests, { numRuns: third, seed: SEED + 3 })) await runRaw(raw, warmUp, true);
    const fill = fc.sample(fc.tuple(invalidCases, fc.double({ min: 0.05, max: 0.95, noNaN: true })), {
      numRuns: YOGA_CACHE_ENTRIES + 100,
      seed: SEED + 4,
    });
    for (const [{ graphql: testCase }] of fill) await runGraphQL(testCase, render(testCase, pools), warmUp, true);
    // The same documents cut short: parse errors, of the same sizes.
    for (const [{ graphql: testCase }, at] of fill) {
      await runGraphQL(testCase, corrupt(render(testCase, pools), { kind: 'truncate', at }), warmUp, true);
    }
    report('warm-up', warmUp);
    await measure('warm-up');
  }, 120_000);

  afterAll(async () => {
    agent?.destroy();
    await server?.kill();
    await database?.cleanup();
  });

  // Generous: a failure shrinks, which sends more requests; a passing run is bounded by RUNS.
  const timeout = Math.max(120_000, RUNS * 400);

  it(
    'answers schema-valid queries and mutations, from every role, without a 5xx, an internal error or a leak',
    async () => {
      const stats = newStats();
      await property(validCases, (testCase) => runGraphQL(testCase, render(testCase, pools), stats));
      report('valid operations', stats);
      await measure('valid operations');
      // The generator is worth something only if its documents are valid and reach the resolvers.
      expect(stats.invalidDocuments).toEqual([]);
      expect(stats.executed / stats.total).toBeGreaterThan(0.3);
    },
    timeout,
  );

  it(
    'answers invalid documents, variables and operation names with client errors only',
    async () => {
      const stats = newStats();
      await property(invalidCases, ({ graphql, corruption }: InvalidCase) =>
        runGraphQL(graphql, corrupt(render(graphql, pools), corruption), stats),
      );
      report('invalid operations', stats);
      await measure('invalid operations');
    },
    timeout,
  );

  it(
    'answers raw HTTP oddities (bodies, content types, methods, batches, query strings) with client errors only',
    async () => {
      const stats = newStats();
      await property(rawRequests, (raw) => runRaw(raw, stats));
      report('raw HTTP', stats);
      await measure('raw HTTP');
    },
    timeout,
  );

  it('is still up at the end, and its memory grew by less than the bound', async () => {
    expect((await send('GET', '/health', {}, null)).status).toBe(200);
    expect((await send('GET', '/ready', {}, null)).status).toBe(200);
    expect(server.child.exitCode).toBeNull();
    const [warmUp] = memory;
    const end = await measure('the end');
    const readings = memory.map(({ after, rss, heap }) => `${after}: RSS ${rss.toFixed(1)} MiB, heap ${heap.toFixed(1)} MiB`).join('; ');
    console.log(
      `fuzz memory after a full GC — ${readings}. RSS growth from the warm-up to the end ` +
        `${(end.rss - (warmUp?.rss ?? 0)).toFixed(1)} MiB (bound ${RSS_GROWTH_LIMIT_MIB} MiB); ${requestCount} requests; ` +
        `${pools.token.length} lease tokens, ${pools.id.length} ids seen; ${replacedKeys} revoked keys replaced; ` +
        `${unattributedLogs} requests without their log line`,
    );
    console.log(`fuzz history (set-up included): ${await changes()}`);
    expect(warmUp).toBeDefined();
    expect(end.rss - (warmUp?.rss ?? Number.NaN)).toBeLessThan(RSS_GROWTH_LIMIT_MIB);
    expect(await newErrorLogs()).toEqual([]);
    // The warm-up does not shrink or stop at a finding; what it met is reported here.
    expect([...warmUpFindings.values()]).toEqual([]);
  });
});
