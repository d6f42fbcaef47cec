// GET /ready: 200 while this instance takes traffic and its database answers, 503 otherwise.
import { type Plugin, useReadinessCheck } from 'graphql-yoga';
import type { Database } from '../db/client.js';
import type { Logger } from '../logger.js';

/** `stopping` turns readiness off first, so a load balancer drains this instance before it closes. */
export function readiness(db: Database, logger: Logger, stopping: () => boolean): Plugin {
  return useReadinessCheck({
    endpoint: '/ready',
    check: async () => {
      if (stopping()) return false;
      try {
        await db.read.$queryRawUnsafe('SELECT 1');
        return true;
      } catch (error) {
        // The answer is a bare 503: the reason (hosts, users) belongs in the log, not the response.
        logger.warn({ err: error }, 'not ready: the database did not answer');
        return false;
      }
    },
  });
}
