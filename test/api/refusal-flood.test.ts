// A flood of refused changes cannot grow the history without limit (issue 15, item 3): a principal's
// window of a minute records its first 20 refusals one row each and counts the rest into summaries (at most
// 26 rows per window, per process); refusals cost their caller (RATE_LIMITED past 60 at once, then one a
// second); failed authentications from one address are answered 429 past 30 at once, then one a second.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { testDatabase } from '../support/database.js';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';
import { connectWs, type WsClient } from '../support/ws.js';

const WINDOW_MS = 60_000;
const INDIVIDUAL_ROWS = 20;
const ROWS_PER_WINDOW = 26;
const REFUSAL_BURST = 60;
const FAILED_AUTHENTICATION_BURST = 30;
/** Summaries are written by a clock timer's callback: wait for its transaction. */
const WAIT = { timeout: 5_000, interval: 10 };

const ADD_ITEM = 'addItem(input: { batchId: "b", recordId: "r", proposedCategory: "c", reason: "why" }) { __typename }';
const PLAIN = `mutation { ${ADD_ITEM} }`;
const ALIASED = `mutation { a: ${ADD_ITEM} b: ${ADD_ITEM} }`;
/** Mutations a VIEWER is refused (FORBIDDEN), with as many fields each. */
const REFUSED = {
  plain: PLAIN,
  aliased: ALIASED,
  claimItem: 'mutation { claimItem(input: {}) { __typename } }',
  addCategories: 'mutation { addCategories(input: { names: ["x"] }) { __typename } }',
  retireCategory: 'mutation { retireCategory(input: { name: "x" }) { __typename } }',
  releaseLease: 'mutation { releaseLease(input: { token: "lh_abcdefghijklmnopqrstuvwxyz012345" }) { __typename } }',
  createApiKey: 'mutation { createApiKey(input: { name: "x", roles: [VIEWER] }) { __typename } }',
  revokeApiKey: 'mutation { revokeApiKey(input: { id: 1 }) { __typename } }',
};

interface Answer {
  /** HTTP status; 200 over a WebSocket. */
  status: number;
  retryAfter: string | null;
  codes: string[];
  errors: { message: string; extensions?: Record<string, unknown> }[];
}

type Send = (query: string) => Promise<Answer>;

function overHttp(server: TestServer, client: TestClient): Send {
  return async (query) => {
    const response = await postGraphQL(server.url, query, undefined, client.headers);
    const body = (await response.json()) as { errors?: Answer['errors'] };
    const errors = body.errors ?? [];
    return { status: response.status, retryAfter: response.headers.get('retry-after'), codes: codesOf(errors), errors };
  };
}

function overWebSocket(socket: WsClient): Send {
  return async (query) => {
    const errors = ((await socket.execute(query)).errors ?? []) as unknown as Answer['errors'];
    return { status: 200, retryAfter: null, codes: codesOf(errors), errors };
  };
}

function codesOf(errors: Answer['errors']): string[] {
  return errors.map((error) => String(error.extensions?.code));
}

interface Refusal {
  occurredAt: Date;
  details: Record<string, unknown>;
}

async function refusalsOf(server: TestServer, actor: string): Promise<Refusal[]> {
  const rows = await server.db.read.event.findMany({ where: { type: 'OPERATION_REFUSED', actor }, orderBy: { id: 'asc' } });
  return rows.map((row) => ({ occurredAt: row.occurredAt, details: JSON.parse(row.details) }));
}

/** How many refusals the rows stand for: a summary for its `count`, any other row for itself. */
function refusalCount(rows: Refusal[]): number {
  return rows.reduce((sum, row) => sum + (typeof row.details.count === 'number' ? row.details.count : 1), 0);
}

const iso = (ms: number) => new Date(ms).toISOString();

describe('refusals from one principal in a window', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  it('records the first 20 one row each, at once, and the rest as one summary per operation and code when the window closes', async () => {
    const viewer = await server.as('vic', ['VIEWER']);
    const send = overHttp(server, viewer);
    const start = server.clock.now().getTime();
    for (let index = 0; index < INDIVIDUAL_ROWS; index++) expect((await send(PLAIN)).codes).toEqual(['FORBIDDEN']);
    const individual = await refusalsOf(server, 'vic');
    expect(individual).toHaveLength(INDIVIDUAL_ROWS);
    // Exactly the row every refusal used to leave.
    expect(individual[0]?.details).toEqual({
      operation: 'addItem',
      code: 'FORBIDDEN',
      field: null,
      message: 'vic may not use Mutation.addItem: it needs one of the roles PROPOSER.',
    });

    server.clock.advance(10_000);
    for (let index = 0; index < 5; index++) expect((await send(ALIASED)).codes).toEqual(['FORBIDDEN', 'FORBIDDEN']);
    for (const query of [
      REFUSED.claimItem,
      REFUSED.claimItem,
      REFUSED.claimItem,
      REFUSED.addCategories,
      REFUSED.retireCategory,
      REFUSED.releaseLease,
      REFUSED.createApiKey,
      REFUSED.createApiKey,
      REFUSED.revokeApiKey,
    ]) {
      expect((await send(query)).codes).toEqual(['FORBIDDEN']);
    }
    // Counted, not written, until the window closes.
    expect(await refusalsOf(server, 'vic')).toHaveLength(INDIVIDUAL_ROWS);

    server.clock.advance(WINDOW_MS - 10_000);
    const span = { windowStart: iso(start), windowEnd: iso(start + WINDOW_MS) };
    await vi.waitFor(async () => expect(await refusalsOf(server, 'vic')).toHaveLength(ROWS_PER_WINDOW), WAIT);
    const summaries = (await refusalsOf(server, 'vic')).slice(INDIVIDUAL_ROWS);
    const forbidden = (operation: string, count: number) => ({
      operation,
      code: 'FORBIDDEN',
      field: null,
      message: expect.stringContaining(`vic may not use Mutation.${operation}`),
      count,
      ...span,
    });
    expect(summaries.map((row) => row.details)).toEqual([
      forbidden('addItem', 10),
      forbidden('claimItem', 3),
      forbidden('addCategories', 1),
      forbidden('retireCategory', 1),
      forbidden('releaseLease', 1),
      {
        operation: null,
        code: null,
        field: null,
        message: expect.any(String),
        operations: 'createApiKey, revokeApiKey',
        codes: 'FORBIDDEN',
        count: 3,
        ...span,
      },
    ]);
    expect(summaries.every((row) => row.occurredAt.getTime() === start + WINDOW_MS)).toBe(true);
    expect(refusalCount(await refusalsOf(server, 'vic'))).toBe(INDIVIDUAL_ROWS + 10 + 9);

    // The next refusal opens a new window: a row of its own again.
    expect((await send(PLAIN)).codes).toEqual(['FORBIDDEN']);
    expect(await refusalsOf(server, 'vic')).toHaveLength(ROWS_PER_WINDOW + 1);
  });

  it('answers RATE_LIMITED (HTTP 429 with Retry-After) once the principal is over its refusals, before anything is refused or recorded', async () => {
    const viewer = await server.as('vera', ['VIEWER']);
    const send = overHttp(server, viewer);
    for (let index = 0; index < REFUSAL_BURST / 2; index++) expect((await send(ALIASED)).codes).toEqual(['FORBIDDEN', 'FORBIDDEN']);

    const limited = await send(PLAIN);
    expect(limited.status).toBe(429);
    expect(limited.retryAfter).toBe('1');
    expect(limited.errors).toEqual([
      { message: 'Too many refused changes from vera: retry in 1 s.', extensions: { code: 'RATE_LIMITED', retryAfterSeconds: 1 } },
    ]);
    expect((await send(REFUSED.claimItem)).status).toBe(429);

    // A refusal a second comes back; an operation refused on two fields costs two.
    server.clock.advance(1_000);
    expect((await send(ALIASED)).codes).toEqual(['FORBIDDEN', 'FORBIDDEN']);
    const again = await send(PLAIN);
    expect([again.status, again.retryAfter]).toEqual([429, '2']);
    server.clock.advance(2_000);
    expect((await send(PLAIN)).codes).toEqual(['FORBIDDEN']);
    server.clock.advance(WINDOW_MS);
    await vi.waitFor(async () => expect(refusalCount(await refusalsOf(server, 'vera'))).toBe(REFUSAL_BURST + 3), WAIT);
  });

  it('limits refusals from the resolvers too (a broken rule, not only a missing role)', async () => {
    const proposer = await server.as('pia', ['PROPOSER']);
    const send = overHttp(server, proposer);
    const unknownCategory =
      'mutation { addItem(input: { batchId: "b", recordId: "r", proposedCategory: "none", reason: "why" }) { ... on UserError { code } } }';
    for (let index = 0; index < REFUSAL_BURST; index++) {
      const answer = await send(unknownCategory);
      expect(answer.status).toBe(200);
      expect(answer.errors).toEqual([]);
    }
    const limited = await send(unknownCategory);
    expect([limited.status, limited.codes]).toEqual([429, ['RATE_LIMITED']]);
    expect(await refusalsOf(server, 'pia')).toHaveLength(INDIVIDUAL_ROWS);
  });

  it('leaves other principals alone: their changes run and their refusals are recorded at once, as before', async () => {
    const flood = await server.as('vince', ['VIEWER']);
    for (let index = 0; index <= REFUSAL_BURST / 2; index++) await overHttp(server, flood)(ALIASED);
    expect((await overHttp(server, flood)(PLAIN)).status).toBe(429);

    const setup = overHttp(server, await server.as('setup', ['ADMIN', 'PROPOSER']));
    expect((await setup('mutation { addCategories(input: { names: ["fine"] }) { __typename } }')).errors).toEqual([]);
    expect((await setup(REFUSED.plain.replace('"c"', '"fine"'))).errors).toEqual([]);
    const otherViewer = await overHttp(server, await server.as('val', ['VIEWER']))(PLAIN);
    expect([otherViewer.status, otherViewer.codes]).toEqual([200, ['FORBIDDEN']]);
    expect(await refusalsOf(server, 'val')).toHaveLength(1);
    const reviewer = overHttp(server, await server.as('rita'));
    const decide = await reviewer(
      'mutation { decideItem(input: { token: "lh_abcdefghijklmnopqrstuvwxyz012345", decision: ACCEPTED }) { ... on UserError { code } } }',
    );
    expect(decide.status).toBe(200);
    expect((await refusalsOf(server, 'rita')).map((row) => row.details)).toEqual([
      { operation: 'decideItem', code: 'CLAIM_NOT_FOUND', field: 'token', message: expect.any(String) },
    ]);
  });
});

describe.each(['HTTP', 'WebSocket'])('a VIEWER flooding refused mutations, plain and aliased, over %s for three minutes', (transport) => {
  let server: TestServer;
  let socket: WsClient | null = null;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await socket?.close();
    await server.stop();
  });

  it(`writes at most ${ROWS_PER_WINDOW} rows a minute, is answered RATE_LIMITED past its allowance, and every refusal is counted`, async () => {
    const viewer = await server.as('flood', ['VIEWER']);
    let send = overHttp(server, viewer);
    if (transport === 'WebSocket') {
      socket = await connectWs(server.url, viewer.headers);
      send = overWebSocket(socket);
    }
    const start = server.clock.now().getTime();
    const queries = Object.values(REFUSED);
    let refused = 0;
    let limited = 0;
    let sent = 0;
    // Every second of three minutes, as many operations as the server takes before answering RATE_LIMITED.
    for (let second = 0; second < 180; second++) {
      if (second > 0) server.clock.advance(1_000);
      for (;;) {
        const answer = await send(queries[sent++ % queries.length] as string);
        if (answer.codes.includes('RATE_LIMITED')) {
          expect(answer.codes).toEqual(['RATE_LIMITED']);
          if (transport === 'HTTP') expect([answer.status, Number(answer.retryAfter)]).toEqual([429, expect.any(Number)]);
          limited++;
          break;
        }
        expect(answer.codes.every((code) => code === 'FORBIDDEN')).toBe(true);
        refused += answer.codes.length;
      }
    }
    expect(limited).toBe(180);
    // The burst, then about one a second (an operation refused on two fields may overdraw by one).
    expect(refused).toBeGreaterThanOrEqual(REFUSAL_BURST + 170);
    expect(refused).toBeLessThanOrEqual(REFUSAL_BURST + 180 + 1);

    server.clock.advance(WINDOW_MS);
    await vi.waitFor(async () => expect(refusalCount(await refusalsOf(server, 'flood'))).toBe(refused), WAIT);
    const rows = await refusalsOf(server, 'flood');
    const perMinute = [0, 1, 2, 3].map(
      (minute) =>
        rows.filter((row) => Math.floor((row.occurredAt.getTime() - start) / WINDOW_MS) === minute && row.occurredAt.getTime() >= start)
          .length,
    );
    expect(perMinute.reduce((sum, count) => sum + count, 0)).toBe(rows.length);
    for (const count of perMinute) expect(count).toBeLessThanOrEqual(ROWS_PER_WINDOW);
    // Each window: its 20 rows as they happened, and its summaries when it closed.
    for (const windowStart of [start, start + WINDOW_MS, start + 2 * WINDOW_MS]) {
      const individual = rows.filter(
        (row) =>
          row.details.count === undefined && row.occurredAt.getTime() >= windowStart && row.occurredAt.getTime() < windowStart + WINDOW_MS,
      );
      const summaries = rows.filter((row) => row.details.windowStart === iso(windowStart));
      expect(individual).toHaveLength(INDIVIDUAL_ROWS);
      expect(summaries.length).toBeGreaterThan(0);
      expect(individual.length + summaries.length).toBeLessThanOrEqual(ROWS_PER_WINDOW);
    }
  });
});

describe('failed authentications from one address', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  it('are answered 429 with Retry-After past the limit, unlogged, while a valid credential from the same address still works', async () => {
    const viewer = await server.as('valid', ['VIEWER']);
    const before = await server.db.read.event.count();
    const wrong = { authorization: `Bearer lhk_${'A'.repeat(43)}` };
    for (let index = 0; index < FAILED_AUTHENTICATION_BURST; index++) {
      expect((await postGraphQL(server.url, PLAIN, undefined, index % 2 ? wrong : {})).status).toBe(401);
    }
    const logged = () => server.logs.filter((line) => line.includes('refused an unauthenticated request')).length;
    expect(logged()).toBe(FAILED_AUTHENTICATION_BURST);

    const limited = await postGraphQL(server.url, PLAIN, undefined, wrong);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(await limited.json()).toEqual({
      errors: [
        {
          message: 'Too many failed authentications from this address: retry in 1 s.',
          extensions: { code: 'RATE_LIMITED', retryAfterSeconds: 1 },
        },
      ],
    });
    for (let index = 0; index < 100; index++) expect((await postGraphQL(server.url, '{ serverTime }')).status).toBe(429);
    expect(logged()).toBe(FAILED_AUTHENTICATION_BURST);

    const valid = await postGraphQL(server.url, '{ viewer { name } }', undefined, viewer.headers);
    expect([valid.status, await valid.json()]).toEqual([200, { data: { viewer: { name: 'valid' } } }]);
    expect(await server.db.read.event.count()).toBe(before);

    server.clock.advance(1_000);
    expect((await postGraphQL(server.url, PLAIN)).status).toBe(401);
    expect((await postGraphQL(server.url, PLAIN)).status).toBe(429);
  });
});

describe('a graceful stop', () => {
  it('writes the refusals still only counted', async () => {
    const database = await testDatabase();
    try {
      const server = await startTestServer({ database });
      const send = overHttp(server, await server.as('quitter', ['VIEWER']));
      const start = server.clock.now().getTime();
      for (let index = 0; index < INDIVIDUAL_ROWS + 5; index++) expect((await send(PLAIN)).codes).toEqual(['FORBIDDEN']);
      server.clock.advance(10_000);
      await server.stop();

      const db = await openDatabase({ location: database.location });
      try {
        const rows = await db.read.event.findMany({ where: { type: 'OPERATION_REFUSED', actor: 'quitter' }, orderBy: { id: 'asc' } });
        expect(rows).toHaveLength(INDIVIDUAL_ROWS + 1);
        expect(JSON.parse(rows[INDIVIDUAL_ROWS]?.details ?? '{}')).toMatchObject({
          operation: 'addItem',
          code: 'FORBIDDEN',
          count: 5,
          windowStart: iso(start),
          windowEnd: iso(start + 10_000),
        });
      } finally {
        await db.close();
      }
    } finally {
      await database.cleanup();
    }
  });
});

describe('with the rate limit off (RATE_LIMIT_PER_SECOND=0)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ config: { rateLimit: { perSecond: 0, burst: 0 } } });
  });
  afterAll(() => server.stop());

  it('records every refusal as its own row, at once, and never answers RATE_LIMITED', async () => {
    const send = overHttp(server, await server.as('trusted', ['VIEWER']));
    for (let index = 0; index < REFUSAL_BURST; index++) expect((await send(ALIASED)).codes).toEqual(['FORBIDDEN', 'FORBIDDEN']);
    const rows = await refusalsOf(server, 'trusted');
    expect(rows).toHaveLength(2 * REFUSAL_BURST);
    expect(rows.every((row) => row.details.count === undefined)).toBe(true);
  });
});
