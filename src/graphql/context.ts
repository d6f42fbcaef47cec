// The per-request context shared by HTTP and WebSocket operations.
import type { Live } from '../events/live.js';
import type { Logger } from '../logger.js';
import type { Actor, ServiceDeps } from '../services/context.js';

export interface GraphQLContext extends ServiceDeps {
  requestId: string;
  /** Logger whose lines carry this request's id. */
  logger: Logger;
  /** The live side of the queue: event feed, expiry announcer, statistics. */
  live: Live;
  /** Set for operations arriving over a WebSocket: leases bound to it are released when it closes. */
  connection: ConnectionScope | null;
  /**
   * Who is acting. Until authentication arrives this is the name a caller gives
   * (seed A's `--reviewer`), or the `X-Leasehold-Actor` header for other changes.
   * Every mutation takes its actor from here and nowhere else.
   */
  actor(claimedName?: string | null): Actor;
}

const ACTOR_HEADER = 'x-leasehold-actor';

export function actorResolver(headers: Headers | undefined): GraphQLContext['actor'] {
  const fromHeader = headers?.get(ACTOR_HEADER) ?? null;
  return (claimedName) => ({ name: claimedName ?? fromHeader ?? 'anonymous' });
}

/** A WebSocket connection's own state. */
export interface ConnectionScope {
  /** Remembers a lease token to release when this connection closes. */
  bindLease(token: string): void;
}
