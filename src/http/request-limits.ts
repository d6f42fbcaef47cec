// Abuse limits on what a request may be, checked before execution: body size, request shape,
// document length, and the depth, aliases, tokens and directives of an operation.
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { createGraphQLError, type Plugin } from 'graphql-yoga';

/**
 * Refuses request bodies over the limit before reading them. A POST must state its length, so a
 * chunked upload cannot slip past the check.
 */
export function bodyLimit(maxBytes: number): Plugin {
  return {
    onRequest({ request, endResponse, fetchAPI }) {
      if (request.method !== 'POST') return;
      const declared = request.headers.get('content-length');
      const refuse = (status: number, code: string, message: string) =>
        endResponse(
          new fetchAPI.Response(JSON.stringify({ errors: [{ message, extensions: { code } }] }), {
            status,
            headers: { 'content-type': 'application/json; charset=utf-8' },
          }),
        );
      if (declared === null) {
        refuse(411, 'LENGTH_REQUIRED', 'Send a Content-Length header with the request body.');
      } else if (!/^\d+$/.test(declared) || Number(declared) > maxBytes) {
        refuse(413, 'PAYLOAD_TOO_LARGE', `The request body must be at most ${maxBytes} bytes.`);
      }
    },
  };
}

/** The longest GraphQL document accepted: far above any real one, and it bounds the parse cache (1,024 entries). */
export const MAX_DOCUMENT_CHARS = 64 * 1024;

function isJsonObjectText(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * The request's shape, before Yoga reads it: GET parameters `variables` and `extensions` must be JSON
 * objects (Yoga would throw an unexpected SyntaxError), and the document must not be longer than
 * MAX_DOCUMENT_CHARS (a single huge string literal is one token, so the token limit does not bound it).
 */
export function requestShape(): Plugin {
  const refusal = (message: string, status: number, code: string) =>
    createGraphQLError(message, { extensions: { code, http: { status } } });
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (request.method !== 'GET' || url.pathname !== '/graphql') return;
      for (const name of ['variables', 'extensions']) {
        const text = url.searchParams.get(name);
        if (text !== null && !isJsonObjectText(text)) {
          endResponse(
            new fetchAPI.Response(
              JSON.stringify({
                errors: [{ message: `The ${name} parameter must be a JSON object.`, extensions: { code: 'BAD_REQUEST' } }],
              }),
              {
                status: 400,
                headers: { 'content-type': 'application/json; charset=utf-8' },
              },
            ),
          );
          return;
        }
      }
    },
    onParams({ params }) {
      if (typeof params.query === 'string' && params.query.length > MAX_DOCUMENT_CHARS) {
        throw refusal(`The GraphQL document must be at most ${MAX_DOCUMENT_CHARS} characters.`, 413, 'PAYLOAD_TOO_LARGE');
      }
    },
  };
}

/**
 * Abuse limits on every operation, HTTP and WebSocket alike (checked before execution): the deepest
 * legitimate query (an item's history through a subscription) is about 6 levels deep.
 */
export const QUERY_LIMITS = { maxDepth: 12, maxAliases: 20, maxTokens: 5_000, maxDirectives: 20 } as const;

export function queryLimits(): Plugin {
  return EnvelopArmorPlugin({
    maxDepth: { n: QUERY_LIMITS.maxDepth, ignoreIntrospection: true, exposeLimits: true },
    maxAliases: { n: QUERY_LIMITS.maxAliases, exposeLimits: true },
    maxTokens: { n: QUERY_LIMITS.maxTokens, exposeLimits: true },
    maxDirectives: { n: QUERY_LIMITS.maxDirectives, exposeLimits: true },
    // armor's static cost model does not know page sizes; depth, aliases and tokens bound the work instead.
    costLimit: { enabled: false },
    // Field suggestions stay on: GraphiQL users are operators exploring the schema.
    blockFieldSuggestion: { enabled: false },
  }) as Plugin;
}
