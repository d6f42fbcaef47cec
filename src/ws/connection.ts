// One graphql-ws connection's state, and how a connection is closed on the caller's credential.
import type { WebSocket } from 'ws';
import type { Principal } from '../domain/access.js';
import type { Timer } from '../domain/clock.js';
import type { ConnectionScope } from '../graphql/context.js';

/**
 * How long a connection whose credential ended waits for its subscriptions to send their last frame
 * (each ends itself with the error, see src/http/credential-streams.ts) before it closes anyway: a
 * client that stopped reading must not keep it open.
 */
const LAST_FRAMES_GRACE_MS = 1_000;

/** One WebSocket's principal, and the leases claimed over it with releaseOnDisconnect (released when it closes). */
export class Connection implements ConnectionScope {
  readonly tokens = new Set<string>();
  expiry: Timer | null = null;
  /** Its subscriptions, until each has sent its last frame. */
  private readonly streams = new Set<Promise<void>>();
  private ending = false;
  constructor(
    readonly principal: Principal,
    private readonly socket: WebSocket,
  ) {}
  bindLease(token: string): void {
    this.tokens.add(token);
  }
  /** Follows a subscription until `finished` (its last frame sent), so the connection closes after it. */
  follow(finished: Promise<void>): void {
    this.streams.add(finished);
    void finished.then(() => this.streams.delete(finished));
  }
  /**
   * Closes the connection because its credential ended, once its subscriptions (which end on the same
   * credential) have sent their error: the client is told why each stream stopped, then why the socket did.
   */
  end(code: number, reason: string): void {
    if (this.ending) return;
    this.ending = true;
    this.expiry?.cancel();
    let grace: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      grace = setTimeout(resolve, LAST_FRAMES_GRACE_MS).unref();
    });
    void Promise.race([Promise.all(this.streams), waited]).then(() => {
      clearTimeout(grace);
      // graphql-ws sends each stream's `complete` a few promise steps after taking its end: after those.
      setImmediate(() => closeConnection(this.socket, code, reason));
    });
  }
}

/** WebSocket close codes: graphql-ws uses 4401/4403/4429 for these. Reasons must fit in 123 bytes. */
export const CLOSE_UNAUTHORIZED = 4401;
export const CLOSE_FORBIDDEN = 4403;
/** Too many failed authentications from the connection's address (HTTP's 429). */
export const CLOSE_TOO_MANY_REQUESTS = 4429;
const closeReason = (text: string) =>
  Buffer.from(text)
    .subarray(0, 123)
    .toString()
    .replace(/\uFFFD$/, '');

/** Closes a connection with a code and a reason the client can show. */
export function closeConnection(socket: WebSocket, code: number, reason: string): void {
  socket.close(code, closeReason(reason));
}
