// A large WebSocket message is checked on the worker thread (src/http/body-checks.ts) before graphql-ws
// parses it: a `subscribe` whose variables hold an over-long list is answered with an `error` message for
// its id and never parsed on the event loop. Messages stay in order: while one is being checked, those
// after it wait for it.
import type { RawData, WebSocket } from 'ws';
import { type BodyChecks, OFF_THREAD_BYTES } from '../http/body-checks.js';

function bytesOf(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}

function sizeOf(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((total, part) => total + part.length, 0);
  return data.byteLength;
}

/**
 * Wraps the `message` listeners added to `socket` from now on (graphql-ws adds one as the connection
 * opens), so large messages reach them only after the worker has passed them.
 */
export function checkLargeMessages(socket: WebSocket, checks: BodyChecks): void {
  // biome-ignore lint/suspicious/noExplicitAny: ws's `on` is overloaded per event; this passes each listener through as given.
  const on = socket.on.bind(socket) as (event: string, listener: (...args: any[]) => void) => WebSocket;
  socket.on = ((event: string, listener: (...args: unknown[]) => void) => {
    if (event !== 'message') return on(event, listener);
    /** The messages still being checked, or waiting behind one that is: null when none is. */
    let queue: Promise<void> | null = null;
    return on('message', (data: RawData, isBinary: boolean) => {
      const large = sizeOf(data) >= OFF_THREAD_BYTES;
      if (queue === null && !large) {
        listener.call(socket, data, isBinary);
        return;
      }
      const step = async () => {
        try {
          if (large) {
            const verdict = await checks.check(bytesOf(data), 'ws');
            if (verdict?.refusal && verdict.messageId !== null) {
              socket.send(JSON.stringify({ id: verdict.messageId, type: 'error', payload: [verdict.refusal] }));
              return;
            }
          }
          listener.call(socket, data, isBinary);
        } catch {
          // graphql-ws's listener handles its own errors (it answers or closes); nothing may stop the next message.
        }
      };
      const current: Promise<void> = (queue ?? Promise.resolve()).then(step);
      queue = current;
      void current.finally(() => {
        if (queue === current) queue = null;
      });
    });
  }) as WebSocket['on'];
}
