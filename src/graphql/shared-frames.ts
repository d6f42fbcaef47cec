// Shared subscription results on the wire: one serialized payload per result (graphql-ws stringifies
// each subscriber's `next` message itself, so the result stands in as a short marker there and the
// socket swaps in the JSON made once), and the frames of a burst written to each socket together.
import type { Socket } from 'node:net';
import type { ExecutionResult } from 'graphql';
import { WebSocket } from 'ws';
import { fanOutPace } from '../events/fan-out-pace.js';

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
      if (this.data !== data || this.errors !== undefined || this.extensions !== undefined) {
        const { toJSON: _toJSON, ...plain } = this;
        return plain;
      }
      json ??= JSON.stringify({ data });
      pendingPayload = json;
      return MARKER;
    },
  } as ExecutionResult;
}

/**
 * How long frames may gather in a socket before they are written: a write (a system call, and on the
 * same host the peer's receive) costs far more than a frame, so under load several frames share one.
 * The first frame after a quiet spell goes out on the next turn of the event loop.
 */
export const COALESCE_MS = 30;
/**
 * The writes take at most this share of the event loop: after a flush that took F ms (1,000 sockets
 * take ~15 ms), the next waits at least F ÷ share, so with many subscribers a burst's frames gather
 * into fewer, larger writes instead of the flushes crowding out the requests.
 */
const FLUSH_SHARE = 1 / 3;
/**
 * The longest frames are held: while the feed hands a burst over (a bulk intake), always, so each socket's
 * write carries a burst's frames by the dozen; otherwise only after a flush that took a long time (never
 * longer than this, as a flush slowed by something else, e.g. garbage collection, must not hold the next ones).
 */
export const MAX_COALESCE_MS = 200;
/**
 * Frames a socket may hold unwritten before its sender waits for the writes to complete, as graphql-ws
 * does for every frame otherwise: a client that stops reading still stops its subscriptions from
 * pulling events, so its own bounded buffer cuts it off (SUBSCRIBER_TOO_SLOW).
 */
export const MAX_UNWRITTEN_BYTES = 64 * 1024;

/** Sockets holding frames until the next flush. */
const corked = new Set<Socket>();
let flushing: NodeJS.Timeout | NodeJS.Immediate | null = null;
let lastFlush = 0;
/** How long the next flush waits after the last one. */
let interval = COALESCE_MS;

/**
 * Most milliseconds of writes in one turn of the event loop: a flush to 1,000 sockets takes 15 ms or
 * more, so it goes in slices with a turn for requests between them.
 */
const FLUSH_SLICE_MS = 5;

/** Whether a flush is being written out (in slices): the next one waits for it to end. */
let writing = false;

function flush(): void {
  flushing = null;
  writing = true;
  lastFlush = performance.now();
  // Taken out of the set first: a socket held again while this runs waits for the next flush, not for none.
  const sockets = [...corked];
  corked.clear();
  writeOut(sockets, 0, 0);
}

/** Uncorks `sockets` from `from` on, FLUSH_SLICE_MS at a time; `spent` is what the flush's earlier slices took. */
function writeOut(sockets: readonly Socket[], from: number, spent: number): void {
  const started = performance.now();
  let next = from;
  while (next < sockets.length) {
    (sockets[next++] as Socket).uncork();
    if (next % 16 === 0 && performance.now() - started >= FLUSH_SLICE_MS) break;
  }
  const took = spent + (performance.now() - started);
  fanOutPace.flushSlices++;
  if (next < sockets.length) {
    setImmediate(() => writeOut(sockets, next, took));
    return;
  }
  writing = false;
  interval = Math.min(MAX_COALESCE_MS, Math.max(COALESCE_MS, took / FLUSH_SHARE));
  fanOutPace.writesMs += took;
  fanOutPace.flushes++;
  fanOutPace.lastFlush = { startedAt: lastFlush, tookMs: took, nextAfterMs: interval };
  schedule();
}

/** Sets the next flush going, if frames are held and none is due or being written. */
function schedule(): void {
  if (flushing || writing || corked.size === 0) return;
  const now = performance.now();
  const wait = lastFlush + (now < fanOutPace.burstUntil ? MAX_COALESCE_MS : interval) - now;
  flushing = wait <= 0 ? setImmediate(flush) : setTimeout(flush, wait);
}

function hold(socket: Socket): void {
  if (corked.has(socket)) return;
  socket.cork();
  corked.add(socket);
  schedule();
}

/** The sockets framing shared payloads: each one's own `send` and the TCP socket under it. */
const framing = new WeakMap<WebSocket, { send: (data: string) => void; connection: Socket }>();

/**
 * Writes a whole frame made elsewhere (src/graphql/direct-delivery.ts) to a socket `framedSocket`
 * accepted, held with its other frames until the next flush.
 */
export function sendHeld(socket: WebSocket, frame: string): void {
  const framed = framing.get(socket);
  if (!framed) throw new Error('sendHeld needs a socket accepted by framedSocket');
  hold(framed.connection);
  framed.send(frame);
}

/**
 * Makes `socket` put shared payloads into its frames and gather its frames into fewer writes; false
 * when it is not a WebSocket of ours (then its subscribers get plain results). `connection` is the
 * TCP socket under it (the upgrade request's).
 */
export function framedSocket(socket: unknown, connection: Socket | undefined): boolean {
  if (!(socket instanceof WebSocket) || connection === undefined) return false;
  if (framing.has(socket)) return true;
  const send = socket.send.bind(socket) as (data: unknown, ...rest: unknown[]) => void;
  socket.send = ((data: unknown, ...rest: unknown[]) => {
    if (pendingPayload === null || typeof data !== 'string' || !data.endsWith(MARKED_TAIL)) {
      // Anything else (an answer, an error, a completion) goes out now, after the frames held before it.
      send(data, ...rest);
      if (corked.delete(connection)) connection.uncork();
      return;
    }
    const payload = pendingPayload;
    pendingPayload = null;
    const frame = `${data.slice(0, -MARKED_TAIL.length)},"payload":${payload}}`;
    const done = rest.at(-1);
    if (connection.destroyed || typeof done !== 'function' || connection.writableLength >= MAX_UNWRITTEN_BYTES) {
      // Behind: written now, after the frames held before it, and the sender waits for the write. Held
      // for the next flush instead, a subscriber this far behind would get one frame per flush and never
      // catch up; this way it goes at the pace its client reads.
      send(frame, ...rest);
      if (corked.delete(connection)) connection.uncork();
      return;
    }
    // Written at the next flush; the sender goes on at once (a failed write closes the socket, and
    // graphql-ws ends its subscriptions then).
    hold(connection);
    send(frame, ...rest.slice(0, -1));
    queueMicrotask(() => done());
  }) as WebSocket['send'];
  framing.set(socket, { send, connection });
  return true;
}
