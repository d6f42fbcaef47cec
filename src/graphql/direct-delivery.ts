// Subscription events written from the feed listener straight to WebSocket subscribers: one frame
// per subscriber around the payload serialized once, with no promise, hook or iterator step per event.
import { WebSocket } from 'ws';
import { ATTACH_SINK, type SinkableStream } from '../events/streams.js';
import { sendHeld } from './shared-frames.js';

export const directDelivery = {
  /**
   * Off by default (LIVE_DIRECT_DELIVERY=1 turns it on, for benchmarks and its tests): in the live-at-scale
   * bench with 1,000 subscribers some streams stopped receiving after the fan-out phase (the bench's
   * settle timed out, on SQLite and PostgreSQL), while graphql-ws's path delivered every event. Until
   * that is understood, every event takes graphql-ws's path.
   */
  enabled: process.env.LIVE_DIRECT_DELIVERY === '1',
  /**
   * Bytes a socket may hold unwritten (ws's buffer and the frames corked for the next flush) before
   * its direct subscriptions end with SUBSCRIBER_TOO_SLOW. Written frames no longer wait in the
   * subscriber's event buffer, so this is where a client that stops reading is noticed; a burst of
   * 500 events (one feed page) of a few kilobytes each still fits.
   */
  maxUnwrittenBytes: 4 * 1024 * 1024,
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
  // graphql-ws's own `next` message, as it would serialize it.
  const head = `{"id":${JSON.stringify(id)},"type":"next","payload":`;
  (source as SinkableStream)[ATTACH_SINK]((event) => {
    if (socket.bufferedAmount > directDelivery.maxUnwrittenBytes) return 'too-slow';
    const payload = payloadOf(event);
    if (payload === null) return 'declined';
    // A socket closing has its subscriptions returned by graphql-ws in a moment; nothing more to write.
    if (socket.readyState === WebSocket.OPEN) sendHeld(socket, `${head}${payload}}`);
    delivered();
    return 'written';
  });
  return true;
}
