// Request ids: one per HTTP request, echoed to the caller and carried by every log line of the request.
import { randomUUID } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../logger.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Request ids: the caller's X-Request-Id when it is sane, otherwise a new UUID. Echoed in the
 * response header and on every log line of the request.
 */
export function requestIds(logger: Logger, ids: WeakMap<Request, string>): Plugin {
  const started = new WeakMap<Request, number>();
  const idOf = (request: Request): string => {
    let id = ids.get(request);
    if (id === undefined) {
      const given = request.headers.get('x-request-id');
      id = given && REQUEST_ID.test(given) ? given : randomUUID();
      ids.set(request, id);
    }
    return id;
  };
  return {
    onRequest({ request }) {
      idOf(request);
      started.set(request, performance.now());
    },
    onResponse({ request, response }) {
      // Built-in endpoints such as /health answer before onRequest runs, so the id may be made here.
      const requestId = idOf(request);
      response.headers.set('x-request-id', requestId);
      const begun = started.get(request);
      logger.info(
        {
          requestId,
          method: request.method,
          path: new URL(request.url).pathname,
          status: response.status,
          durationMs: begun === undefined ? undefined : Math.round((performance.now() - begun) * 100) / 100,
        },
        'request',
      );
    },
  };
}
