// One serialized payload per shared subscription result over WebSocket: graphql-ws stringifies each
// subscriber's `next` message itself, so the shared result stands in as a short marker there and the
// socket swaps in the JSON made once; only the frame around it is per subscriber.
import type { ExecutionResult } from 'graphql';
import { WebSocket } from 'ws';

const MARKER = '\u0000leasehold:shared-payload';
/** How a `next` message whose payload is the marker ends: the payload is graphql-ws's last field, and never a string otherwise. */
const MARKED_TAIL = `,"payload":${JSON.stringify(MARKER)}}`;

/**
 * The JSON of the payload whose marker was just written. graphql-ws stringifies a message and hands it
 * to the socket in one synchronous step, so the marker and its JSON are never separated.
 */
let pendingPayload: string | null = null;

/** A result that serializes as the marker when graphql-ws copies it into a `next` message. */
export function sharedFrame(result: ExecutionResult): ExecutionResult {
  const data = result.data;
  let json: string | null = null;
  return {
    data,
    // graphql-ws copies the result's own fields into the message; an added field means someone
    // changed it on the way, and then the copy is serialized as it is.
    toJSON(this: Record<string, unknown>) {
      if (this.data !== data || Object.keys(this).length !== 2) {
        const { toJSON: _toJSON, ...plain } = this;
        return plain;
      }
      json ??= JSON.stringify({ data });
      pendingPayload = json;
      return MARKER;
    },
  } as ExecutionResult;
}

const framing = new WeakSet<WebSocket>();

/**
 * Makes `socket` put shared payloads into its frames; false when it is not a WebSocket of ours (then
 * its subscribers get plain results).
 */
export function framedSocket(socket: unknown): boolean {
  if (!(socket instanceof WebSocket)) return false;
  if (framing.has(socket)) return true;
  const send = socket.send.bind(socket) as (data: unknown, ...rest: unknown[]) => void;
  socket.send = ((data: unknown, ...rest: unknown[]) => {
    if (pendingPayload !== null && typeof data === 'string' && data.endsWith(MARKED_TAIL)) {
      const payload = pendingPayload;
      pendingPayload = null;
      send(`${data.slice(0, -MARKED_TAIL.length)},"payload":${payload}}`, ...rest);
      return;
    }
    send(data, ...rest);
  }) as WebSocket['send'];
  framing.add(socket);
  return true;
}
