// GET /metrics: the Prometheus scrape endpoint, behind the same credential as /graphql unless made public.
import type { Plugin } from 'graphql-yoga';
import { AuthenticationError, type Authenticator } from '../auth/authenticator.js';
import { unauthenticatedResponse } from '../auth/plugins.js';
import { isConnectionFailure } from '../db/unavailable.js';
import { databaseUnavailableResponse } from '../graphql/errors.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';

/**
 * GET /metrics: the Prometheus text exposition, for any authenticated principal unless made public.
 * Without this plugin the path is an ordinary 404.
 */
export function metricsEndpoint(metrics: Metrics, logger: Logger, authenticator: Authenticator | null): Plugin {
  return {
    async onRequest({ url, request, endResponse, fetchAPI }) {
      if (url.pathname !== '/metrics') return;
      if (authenticator) {
        try {
          await authenticator.authenticate(request.headers.get('authorization'));
        } catch (error) {
          if (isConnectionFailure(error)) return endResponse(databaseUnavailableResponse(fetchAPI, error, logger));
          if (!(error instanceof AuthenticationError)) throw error;
          endResponse(unauthenticatedResponse(fetchAPI, error.message));
          return;
        }
      }
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        endResponse(new fetchAPI.Response(null, { status: 405, headers: { allow: 'GET, HEAD' } }));
        return;
      }
      try {
        endResponse(new fetchAPI.Response(await metrics.render(), { headers: { 'content-type': metrics.contentType } }));
      } catch (error) {
        logger.error({ err: error }, 'could not collect metrics');
        endResponse(new fetchAPI.Response('metrics unavailable\n', { status: 503, headers: { 'content-type': 'text/plain' } }));
      }
    },
  };
}
