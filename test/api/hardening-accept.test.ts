// A 401 is answered in the media type the caller asked for, like every other GraphQL answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

async function ask(accept: string | null, authorization?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (accept !== null) headers.accept = accept;
  if (authorization) headers.authorization = authorization;
  const response = await fetch(`${server.url}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: '{ __typename }' }) });
  return { status: response.status, contentType: response.headers.get('content-type'), body: (await response.json()) as unknown };
}

describe('a 401 and the Accept header', () => {
  it('answers application/graphql-response+json when that is what the caller asks for first', async () => {
    for (const accept of [
      'application/graphql-response+json',
      'application/graphql-response+json; charset=utf-8, application/json; q=0.9',
      'text/html, application/graphql-response+json',
    ]) {
      for (const authorization of [undefined, 'Bearer lhk_not-a-real-key']) {
        const answer = await ask(accept, authorization);
        expect(answer, accept).toMatchObject({
          status: 401,
          contentType: 'application/graphql-response+json; charset=utf-8',
          body: { errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] },
        });
      }
    }
  });

  it('answers application/json otherwise, as Yoga does for an authenticated caller', async () => {
    const setup = await server.as('accept-reader');
    for (const accept of [null, '*/*', 'application/json', 'application/json, application/graphql-response+json']) {
      expect((await ask(accept)).contentType, String(accept)).toBe('application/json; charset=utf-8');
      const authenticated = await ask(accept, setup.headers.authorization);
      expect(authenticated.contentType, String(accept)).toMatch(/^application\/json/);
    }
    const authenticated = await ask('application/graphql-response+json', setup.headers.authorization);
    expect(authenticated.contentType).toMatch(/^application\/graphql-response\+json/);
  });
});
