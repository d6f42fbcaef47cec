// The context every GraphQL operation runs with, HTTP and WebSocket alike: who calls, with which
// request id and logger, and the services' dependencies.
import { randomUUID } from 'node:crypto';
import type { YogaInitialContext } from 'graphql-yoga';
import type { Authenticator } from '../auth/authenticator.js';
import type { RateLimiter } from '../auth/rate-limit.js';
import type { Database } from '../db/client.js';
import type { Principal } from '../domain/access.js';
import type { Clock } from '../domain/clock.js';
import type { DomainError } from '../domain/errors.js';
import type { SensitivePaths } from '../domain/masking.js';
import type { Policies } from '../domain/proposal.js';
import type { ProposalRules } from '../domain/proposal-rules.js';
import type { Live } from '../events/live.js';
import type { ConnectionScope, GraphQLContext } from '../graphql/context.js';
import type { Logger } from '../logger.js';
import type { RefusalLog } from '../services/refusals.js';
import type { Connection } from '../ws/connection.js';

export interface OperationContextOptions {
  db: Database;
  clock: Clock;
  live: Live;
  logger: Logger;
  authenticator: Authenticator;
  policies: Policies;
  /** PROPOSAL_ACTIONS and TARGET_STATE_REPORTERS, parsed. */
  proposalRules: ProposalRules;
  /** PROPOSAL_SENSITIVE_FIELDS, parsed. */
  sensitiveFields: SensitivePaths;
  /** Request ids, set by the requestIds plugin. */
  ids: WeakMap<Request, string>;
  /** Authenticated callers of HTTP requests, set by the authentication plugin (a WebSocket's is on its connection). */
  principals: WeakMap<Request, Principal>;
  /** Refused changes, in the history in a bounded number of rows. */
  refusalLog: RefusalLog;
  /** Each refusal costs its principal a token here (src/auth/refusal-limit.ts). */
  refusalLimiter: RateLimiter;
}

export function operationContext(options: OperationContextOptions) {
  const { db, clock, live, logger, authenticator, policies, proposalRules, sensitiveFields, ids, principals, refusalLog, refusalLimiter } =
    options;
  return ({ request, connection }: YogaInitialContext & { connection?: unknown }): GraphQLContext => {
    const requestId = (request && ids.get(request)) ?? randomUUID();
    const principal = request ? principals.get(request) : (connection as Connection | undefined)?.principal;
    // The authentication plugin answers 401 before a context is made for an unknown caller.
    if (!principal) throw new Error('No principal for this operation: the authentication plugin did not run.');
    const requestLogger = logger.child({ requestId, principal: principal.name });
    const actor = { name: principal.name, authenticated: true };
    const refusals: Promise<void>[] = [];
    return {
      db,
      clock,
      live,
      requestId,
      logger: requestLogger,
      principal,
      actor,
      policies,
      proposalRules,
      sensitiveFields,
      connection: (connection as ConnectionScope | undefined) ?? null,
      recordRefusal(operation: string, error: DomainError) {
        refusalLimiter.charge(principal.name);
        refusals.push(
          refusalLog
            .record(actor, operation, error)
            .catch((failure: unknown) => requestLogger.error({ err: failure, operation }, 'could not record a refused operation')),
        );
      },
      forgetApiKey: (keyId: number) => authenticator.forgetKey(keyId),
      async refusalsRecorded() {
        await Promise.all(refusals.splice(0));
      },
    };
  };
}
