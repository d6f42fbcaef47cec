// Regressions for what the fuzzer found (test/fuzz): each was an internal error, an error-level log line
// for a client's mistake, or unbounded memory. Each now gets a clear client error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DOCUMENT_CHARS } from '../../src/http/request-limits.js';
import { postGraphQL, startTestServer, type TestClient, type TestServer } from '../support/server.js';
import { connectWs } from '../support/ws.js';

type Body = { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] };

describe('fuzz findings', () => {
  let server: TestServer;
  let viewer: TestClient;
  let proposer: TestClient;
  beforeAll(async () => {
    server = await startTestServer();
    viewer = await server.as('v', ['VIEWER']);
    proposer = await server.as('p', ['PROPOSER']);
  });
  afterAll(() => server.stop());
  const errorLines = () => server.logs.map((line) => JSON.parse(line) as { level: number }).filter((line) => line.level >= 50);

  it.each(['variables', 'extensions'])('a GET whose %s parameter is not a JSON object is a 400, not an internal error', async (name) => {
    for (const value of ['+', '[1]', '{"a":']) {
      const response = await fetch(
        `${server.url}/graphql?query=${encodeURIComponent('{ serverTime }')}&${name}=${encodeURIComponent(value)}`,
        {
          headers: { ...viewer.headers, 'x-graphql-yoga-csrf': '1' },
        },
      );
      expect(response.status).toBe(400);
      expect(((await response.json()) as Body).errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
    }
    expect(errorLines()).toEqual([]);
  });

  it('refuses JSON nested deeper than 64 levels as INVALID_JSON instead of overflowing the stack', async () => {
    let deep: unknown = 1;
    // 1,000 levels: far past the limit, still within what the test's own JSON.stringify can send.
    for (let level = 0; level < 1_000; level++) deep = { a: deep };
    const body = (await (
      await postGraphQL(
        server.url,
        `mutation($v: JSON) { submitProposal(input: { batchId: "b", recordId: "deep", action: "a", parameters: {}, reason: "r",
          target: { system: "s", recordId: "i" }, proposedValue: $v, dataSource: "d", riskLevel: LOW, fingerprint: "f" }) { ... on UserError { code field } } }`,
        { v: deep },
        proposer.headers,
      )
    ).json()) as Body;
    expect(body.data?.submitProposal).toEqual({ code: 'INVALID_JSON', field: 'proposedValue' });
    expect(errorLines()).toEqual([]);
  });

  it('logs refusals of depth and alias limits as refusals, not errors', async () => {
    const path = [
      'items',
      'edges',
      'node',
      'history',
      'edges',
      'node',
      'item',
      'history',
      'edges',
      'node',
      'item',
      'history',
      'edges',
      'node',
    ];
    const deep = `{ ${path.join(' { ')} { id${' }'.repeat(path.length)} }`;
    const body = (await (await postGraphQL(server.url, deep, {}, viewer.headers)).json()) as Body;
    expect(body.errors?.[0]?.message).toMatch(/depth/i);
    expect(errorLines()).toEqual([]);
  });

  it('refuses a document longer than the limit (HTTP 413 and over WebSocket), so the parse cache stays bounded', async () => {
    const huge = `{ item(batchId: "${'x'.repeat(MAX_DOCUMENT_CHARS)}", recordId: "r") { __typename } }`;
    const response = await postGraphQL(server.url, huge, {}, viewer.headers);
    expect(response.status).toBe(413);
    expect(((await response.json()) as Body).errors?.[0]?.extensions?.code).toBe('PAYLOAD_TOO_LARGE');
    const ws = await connectWs(server.url, viewer.headers);
    try {
      const refused = ws.subscribe(huge);
      await refused.ended;
      expect((refused.error as { extensions?: { code?: string } }[])[0]?.extensions?.code).toBe('PAYLOAD_TOO_LARGE');
    } finally {
      await ws.close();
    }
    expect(errorLines()).toEqual([]);
  });
});
