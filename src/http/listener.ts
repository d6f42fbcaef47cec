// The HTTP server's two ends: listening on the configured address, and a graceful close; and what
// a connection may hold of it in between.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConnectionLimits } from '../config.js';
import type { Logger } from '../logger.js';

/** Resolves to the base URL (http://host:port) once listening; rejects if the address cannot be bound. */
export function listen(server: Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const hostname = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve(`http://${hostname}:${address.port}`);
    });
  });
}

/** Stops accepting connections and lets in-flight requests finish; those still running after `timeoutMs` are cut. */
export async function closeGracefully(server: Server, timeoutMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
  await closed;
  clearTimeout(timer);
}

/**
 * A client that sends its headers or its body slowly (a byte now and then) is answered 408 and cut off
 * once the timeout passes, rather than holding a connection (and a parser) for Node's defaults of 60 s
 * and 5 min. The timeouts cover receiving the request only: an answer may stream for as long as it
 * lasts (SSE), and a WebSocket, once upgraded, is no longer an HTTP request. Beyond `perAddress` open
 * connections, a new one from that address is closed at once. Call before `listen`.
 */
export function limitConnections(server: Server, limits: ConnectionLimits, logger: Logger): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  // Node looks for overdue requests this often (30 s by default, read when it starts listening).
  Object.assign(server, { connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs) });
  if (limits.perAddress === 0) return;
  const open = new Map<string, number>();
  // Addresses refused since they last had no connection: one log line each, however many they try.
  const refused = new Set<string>();
  server.on('connection', (socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const count = open.get(address) ?? 0;
    if (count >= limits.perAddress) {
      socket.destroy();
      if (!refused.has(address)) logger.warn({ address, limit: limits.perAddress }, 'refusing connections from an address at its limit');
      refused.add(address);
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else {
        open.delete(address);
        refused.delete(address);
      }
    });
  });
}
