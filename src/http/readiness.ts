// GET /ready: 200 while this instance takes traffic, its database answers and its writes work, 503 otherwise.
import { type Plugin, useReadinessCheck } from 'graphql-yoga';
import type { Database } from '../db/client.js';
import type { WriteHealth } from '../db/write-health.js';
import type { Logger } from '../logger.js';

/**
 * `stopping` turns readiness off first, so a load balancer drains this instance before it closes.
 * Writes are judged by the real writes' outcomes (see WriteHealth): a probe costs no write while they
 * succeed, and one small write a second at most while they fail.
 */
export function readiness(db: Database, logger: Logger, stopping: () => boolean, writes: WriteHealth | null = null): Plugin {
  let reported: string | null = null;
  /** Whether the database's silence has been logged: once per outage, not once per probe. */
  let unanswered = false;
  return useReadinessCheck({
    endpoint: '/ready',
    check: async () => {
      if (stopping()) return false;
      try {
        await db.read.$queryRawUnsafe('SELECT 1');
      } catch (error) {
        // The answer is a bare 503: the reason (hosts, users) belongs in the log, not the response. One line
        // when it starts (a probe every few seconds from every balancer would repeat it), with no stack.
        if (!unanswered)
          logger.warn({ reason: firstLine(error), code: (error as { code?: unknown }).code }, 'not ready: the database did not answer');
        unanswered = true;
        return false;
      }
      if (unanswered) logger.info('ready again: the database answers');
      unanswered = false;
      if (writes === null || (await writes.writable())) {
        if (reported !== null) logger.info('ready again: writes work');
        reported = null;
        return true;
      }
      if (reported !== writes.failing) logger.warn({ code: writes.failing }, 'not ready: writes fail (disk full, read-only or I/O error)');
      reported = writes.failing;
      return false;
    },
  });
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.trim().split('\n')[0]?.slice(0, 300) ?? '';
}
