// The per-request context shared by HTTP and WebSocket operations: who is calling, and the
// services they call into.
import type { Principal } from '../domain/access.js';
import type { DomainError } from '../domain/errors.js';
import type { SensitivePaths } from '../domain/masking.js';
import type { ProposalRules } from '../domain/proposal-rules.js';
import type { Live } from '../events/live.js';
import type { Logger } from '../logger.js';
import type { Actor, ServiceDeps } from '../services/context.js';
import type { Policies } from '../services/proposals/index.js';

export interface GraphQLContext extends ServiceDeps {
  requestId: string;
  /** Logger whose lines carry this request's id. */
  logger: Logger;
  /** The live side of the queue: event feed, expiry announcer, statistics. */
  live: Live;
  /** Set for operations arriving over a WebSocket: leases bound to it are released when it closes. */
  connection: ConnectionScope | null;
  /** Approval policies per risk level (configuration). */
  policies: Policies;
  /** Risk floors per action and who may report each target system's state (configuration). */
  proposalRules: ProposalRules;
  /** Parts of proposals masked for principals without SENSITIVE_READER (src/domain/masking.ts). */
  sensitiveFields: SensitivePaths;
  /** The authenticated caller. Anonymous requests never reach GraphQL (see src/auth/). */
  principal: Principal;
  /** The principal as services see it: every change records it as actor, holder or decider. */
  actor: Actor;
  /**
   * Records a refused attempt at a change as an OPERATION_REFUSED event. The response waits for
   * the record (see the clientErrors plugin, src/http/client-errors.ts), so a refusal the caller saw is in the history.
   */
  recordRefusal(operation: string, error: DomainError): void;
  /** Stops accepting a revoked key in this process at once (other processes learn of it from the event feed). */
  forgetApiKey(keyId: number): void;
  /** Resolves once every refusal recorded so far is committed. */
  refusalsRecorded(): Promise<void>;
}

/** A WebSocket connection's own state. */
export interface ConnectionScope {
  /** Remembers a lease token to release when this connection closes. */
  bindLease(token: string): void;
}
