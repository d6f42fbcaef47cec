// One graphql-ws connection's state, and how a connection is closed on the caller's credential.
import type { WebSocket } from 'ws';
import type { Principal } from '../domain/access.js';
import type { Timer } from '../domain/clock.js';
import type { ConnectionScope } from '../graphql/context.js';

/** One WebSocket's principal, and the leases claimed over it with releaseOnDisconnect (released when it closes). */
export class Connection implements ConnectionScope {
  readonly tokens = new Set<string>();
  expiry: Timer | null = null;
  constructor(readonly principal: Principal) {}
  bindLease(token: string): void {
    this.tokens.add(token);
  }
}

/** WebSocket close codes: graphql-ws uses 4401/4403 for these. Reasons must fit in 123 bytes. */
export const CLOSE_UNAUTHORIZED = 4401;
export const CLOSE_FORBIDDEN = 4403;
const closeReason = (text: string) =>
  Buffer.from(text)
    .subarray(0, 123)
    .toString()
    .replace(/\uFFFD$/, '');

/** Closes a connection with a code and a reason the client can show. */
export function closeConnection(socket: WebSocket, code: number, reason: string): void {
  socket.close(code, closeReason(reason));
}
