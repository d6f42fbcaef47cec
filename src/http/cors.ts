// Cross-origin access (CORS): which web pages on other origins may call the API from a browser.
import type { Plugin } from 'graphql-yoga';

/** What a cross-origin page may send: the credential, the body's type, and GraphQL over HTTP's headers. */
const ALLOWED_HEADERS = 'authorization, content-type, accept, x-request-id, x-graphql-yoga-csrf';
/** What it may read of an answer besides the basics: the id to quote in a report, and how long to wait after a 429. */
export const EXPOSED_HEADERS = 'x-request-id, retry-after';
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** `https://app.example.com` allows itself; `http://localhost:*` allows http://localhost on any port. */
export function allowsOrigin(allowed: readonly string[]): (origin: string) => boolean {
  const exact = new Set(allowed.filter((entry) => !entry.endsWith(':*')));
  const anyPort = allowed.filter((entry) => entry.endsWith(':*')).map((entry) => entry.slice(0, -2));
  const onAnyPort = (origin: string, base: string) =>
    origin === base || (origin.startsWith(`${base}:`) && /^\d+$/.test(origin.slice(base.length + 1)));
  return (origin) => exact.has(origin) || anyPort.some((base) => onAnyPort(origin, base));
}

/**
 * Answers preflights and marks answers for the allowed origins only; every other origin gets no CORS
 * header, so a browser keeps the answer from its page. Credentials are bearer tokens, never cookies,
 * so no origin is allowed credentials. Answers vary by Origin, which caches must know.
 */
export function crossOrigin(allowed: readonly string[]): Plugin {
  const allows = allowsOrigin(allowed);
  return {
    onRequest({ request, endResponse, fetchAPI }) {
      if (request.method === 'OPTIONS') endResponse(new fetchAPI.Response(null, { status: 204, headers: { 'content-length': '0' } }));
    },
    onResponse({ request, response }) {
      response.headers.append('vary', 'Origin');
      const origin = request.headers.get('origin');
      if (origin === null || !allows(origin)) return;
      response.headers.set('access-control-allow-origin', origin);
      response.headers.set('access-control-expose-headers', EXPOSED_HEADERS);
      if (request.method === 'OPTIONS') {
        response.headers.set('access-control-allow-methods', 'GET, POST');
        response.headers.set('access-control-allow-headers', ALLOWED_HEADERS);
        response.headers.set('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS));
      }
    },
  };
}
