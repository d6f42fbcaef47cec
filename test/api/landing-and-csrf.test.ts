// What a newcomer meets first: GET / says where to go, and a request refused by the CSRF check says what to send.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSRF_HEADER } from '../../src/http/csrf.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('first contact', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  it('GET / answers a page linking GraphiQL, the dashboard and the probes (it was an empty 404); other methods 405', async () => {
    const response = await fetch(`${server.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await response.text();
    for (const link of ['href="/graphql"', 'href="/dashboard"', 'href="/health"', 'href="/ready"']) expect(html).toContain(link);
    expect(html).toContain('docs/clients.md');
    expect((await fetch(`${server.url}/`, { method: 'HEAD' })).status).toBe(200);
    const post = await fetch(`${server.url}/`, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('a request the CSRF check refuses is told what to send: JSON content-type, or the header', async () => {
    const viewer = await server.as('newcomer', ['VIEWER']);
    const { headers: auth } = viewer;
    for (const request of [
      // No content-type at all (what `curl -d` without -H sends is a form; this is plainer still).
      fetch(`${server.url}/graphql`, { method: 'POST', headers: auth, body: new Blob([JSON.stringify({ query: '{ serverTime }' })]) }),
      fetch(`${server.url}/graphql?query=${encodeURIComponent('{ serverTime }')}`, { headers: auth }),
    ]) {
      const response = await request;
      expect(response.status).toBe(403);
      const body = (await response.json()) as { errors: { message: string; extensions?: { code?: string } }[] };
      expect(body.errors[0]?.extensions?.code).toBe('CSRF_HEADER_REQUIRED');
      expect(body.errors[0]?.message).toContain('content-type: application/json');
      expect(body.errors[0]?.message).toContain(CSRF_HEADER);
    }
    const fine = await fetch(`${server.url}/graphql?query=${encodeURIComponent('{ serverTime }')}`, {
      headers: { ...auth, [CSRF_HEADER]: '1' },
    });
    expect(fine.status).toBe(200);
  });
});
