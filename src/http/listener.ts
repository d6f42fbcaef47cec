// The HTTP server's two ends: listening on the configured address, and a graceful close.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

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
