// Subscription events written from the feed listener straight to WebSocket subscribers: one frame
// per subscriber around the payload serialized once, with no promise, hook or iterator step per event.
import { WebSocket } from 'ws';
import { ATTACH_SINK, type SinkableStream } from '../events/streams.js';
import { MAX_UNWRITTEN_BYTES, payloadBytes, sendHeld, unwrittenBytes } from './shared-frames.js';

export const directDelivery = {
  /** On unless LIVE_DIRECT_DELIVERY=0 (then every event takes graphql-ws's path, e.g. to compare the two). */
  enabled: process.env.LIVE_DIRECT_DELIVERY !== '0',
  /**
   * Bytes a socket may hold unwritten (ws's buffer and the frames corked for the next flush) and still
   * be written to directly: what graphql-ws's path allows too (MAX_UNWRITTEN_BYTES). Beyond it the
   * subscriber's events wait in its own bounded buffer and go through graphql-ws's path, which writes
   * each at once and waits for the write: a client that reads slowly catches up at its own pace, and one
   * that stops reading fills that buffer and is cut off with SUBSCRIBER_TOO_SLOW, as on the other path.
   * Between two flushes a subscriber that keeps up holds a few kilobytes, so it stays on the direct path.
   */
  maxUnwrittenBytes: MAX_UNWRITTEN_BYTES,
};

/**
 * Hands `source`'s live events to the socket directly; false when it cannot (not an event stream,
 * or direct delivery is off), and then the subscription stays wholly on graphql-ws's path.
 * `payloadOf` gives the shared JSON of an event's result, or null when it is not ready at once or
 * carries errors: that event (and whatever queues behind it) goes through `next()` as before, and the
 * direct path resumes once graphql-ws waits again. The iterator graphql-ws holds stays pending meanwhile,
 * so it still completes the subscription (client `complete`, socket closed) and sends the stream's error.
 */
export function deliverDirectly(
  source: AsyncIterator<unknown>,
  socket: WebSocket,
  id: string,
  payloadOf: (event: unknown) => string | null,
  delivered: () => void,
): boolean {
  if (!directDelivery.enabled || !(ATTACH_SINK in source)) return false;
  // graphql-ws's own `next` message, as it would serialize it: this head, the payload, and `}`.
  const head = Buffer.from(`{"id":${JSON.stringify(id)},"type":"next","payload":`, 'utf8');
  (source as SinkableStream)[ATTACH_SINK]((event) => {
    if (unwrittenBytes(socket) > directDelivery.maxUnwrittenBytes) return 'declined';
    const payload = payloadOf(event);
    if (payload === null) return 'declined';
    // A socket closing has its subscriptions returned by graphql-ws in a moment; nothing more to write.
    if (socket.readyState === WebSocket.OPEN) sendHeld(socket, head, payloadBytes(payload));
    delivered();
    return 'written';
  });
  return true;
}
