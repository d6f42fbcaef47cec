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
export const COALESCE_MS = 20;
/**
 * The timed writes take at most this share of the event loop: after a flush that took F ms (1,000
 * sockets take 10–30 ms), the next waits at least F ÷ share, so with many subscribers the frames of
 * busy moments gather into fewer, larger writes instead of the flushes crowding out the requests.
 */
export const FLUSH_SHARE = 1 / 2;
/**
 * The longest frames are held, after a flush that took a long time (never longer, as a flush slowed by
 * something else, e.g. garbage collection, must not hold the next ones). A burst's frames do not wait
 * for the timed flushes: the feed has each of its batches written (writeHeld).
 */
export const MAX_COALESCE_MS = 60;
/**
 * Frames a socket may hold unwritten before its sender waits for the writes to complete, as graphql-ws
 * does for every frame otherwise: a client that stops reading still stops its subscriptions from
 * pulling events, so its own bounded buffer cuts it off (SUBSCRIBER_TOO_SLOW).
 */
export const MAX_UNWRITTEN_BYTES = 64 * 1024;

/**
 * Sockets corked with frames not yet written (in ws's buffer, or made here and held in `framing`), each
 * corked once. A socket stays here until a flush writes it: one held again while a flush is being written
 * (in slices) before its turn goes out in that flush, with the new frames. Corked a second time instead, the flush's uncork would leave it corked and
 * its frames would wait for another flush, and another while frames keep coming.
 */
const corked = new Set<Socket>();
/** The next flush, when one is set going (a timer, or the next turn of the event loop). */
let flushing: { timer: NodeJS.Timeout } | { immediate: NodeJS.Immediate } | null = null;
/** Callers of writeHeld waiting for the next flush to begin, and those the flush being written will answer. */
let asked: ((tookMs: number) => void)[] = [];
let answering: ((tookMs: number) => void)[] = [];
let lastFlush = 0;
/** How long the next flush waits after the last one. */
let interval = COALESCE_MS;

/**
 * Most milliseconds of writes in one turn of the event loop: a flush to 1,000 sockets takes 15 ms or
 * more, so it goes in slices with a turn for requests between them. A turn of a busy server also runs the
 * feed's hand-over and requests: with 5 ms slices the turns added up to 35–45 ms of loop delay (p99) with
 * 1,000 subscribers watching, with 2 ms 19–38 (docs/performance.md, "Turns of a few ms").
 */
const FLUSH_SLICE_MS = 2;

/** Whether a flush is being written out (in slices): the next one waits for it to end. */
let writing = false;

function flush(): void {
  if (flushing) {
    if ('timer' in flushing) clearTimeout(flushing.timer);
    else clearImmediate(flushing.immediate);
  }
  flushing = null;
  writing = true;
  answering = asked;
  asked = [];
  lastFlush = performance.now();
  // The sockets held now; those held from here on go in this flush if not yet written, else in the next.
  writeOut([...corked], 0, 0);
}

/** Uncorks `sockets` from `from` on, FLUSH_SLICE_MS at a time; `spent` is what the flush's earlier slices took. */
function writeOut(sockets: readonly Socket[], from: number, spent: number): void {
  const started = performance.now();
  let next = from;
  while (next < sockets.length) {
    const socket = sockets[next++] as Socket;
    // Not held any more: written meanwhile (an answer or a frame of a socket that is behind goes out at once).
    if (corked.delete(socket)) release(socket);
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
  const answered = answering;
  answering = [];
  for (const answer of answered) answer(took);
  // Asked for while this flush was written: the frames held since go out now, not at the next interval.
  if (asked.length > 0) flush();
  else schedule();
}

/**
 * Writes the frames held now at once, rather than at the next timed flush (the feed does this for each
 * batch of a burst, see src/events/feed.ts); resolves with what the writing took once they are written.
 * While a flush is being written, the next one begins when it ends.
 */
export function writeHeld(): Promise<number> {
  if (corked.size === 0 && !writing) return Promise.resolve(0);
  return new Promise((resolve) => {
    asked.push(resolve);
    if (!writing) flush();
  });
}
fanOutPace.writeHeld = writeHeld;

/** Sets the next flush going, if frames are held and none is due or being written. */
function schedule(): void {
  if (flushing || writing || corked.size === 0) return;
  const due = lastFlush + interval;
  const wait = due - performance.now();
  flushing = wait <= 0 ? { immediate: setImmediate(flush) } : { timer: setTimeout(() => flushWhenDue(due), wait) };
}

/** A timer may fire up to a millisecond or so early (it counts from the loop's cached time): then it waits out the rest. */
function flushWhenDue(due: number): void {
  const left = due - performance.now();
  if (left > 0) flushing = { timer: setTimeout(() => flushWhenDue(due), left) };
  else flush();
}

function hold(socket: Socket): void {
  if (corked.has(socket)) return;
  socket.cork();
  corked.add(socket);
  schedule();
}

/**
 * A socket's part in the framing: ws's own `send`, the TCP socket under it, and the frames written
 * directly (sendHeld) that wait for the next flush, as pairs of buffers (the message's head, its payload).
 */
interface Framing {
  socket: WebSocket;
  send: (data: string, ...rest: unknown[]) => void;
  connection: Socket;
  direct: Buffer[];
  /** The bytes `direct` will take on the wire, WebSocket headers included. */
  directBytes: number;
}

const framing = new WeakMap<WebSocket, Framing>();
const framingOf = new WeakMap<Socket, Framing>();

/** The length of a server frame's header for a payload of `length` bytes (no mask: RFC 6455 §5.2). */
const headerLength = (length: number) => (length < 126 ? 2 : length < 65_536 ? 4 : 10);

/** One buffer of text frames, one per (head, payload) pair of `parts`, each message being head + payload + `}`. */
function encodeFrames(parts: readonly Buffer[], bytes: number): Buffer {
  const out = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (let index = 0; index < parts.length; index += 2) {
    const head = parts[index] as Buffer;
    const payload = parts[index + 1] as Buffer;
    const length = head.length + payload.length + 1;
    out[at++] = 0x81; // FIN, text
    if (length < 126) out[at++] = length;
    else if (length < 65_536) {
      out[at++] = 126;
      out.writeUInt16BE(length, at);
      at += 2;
    } else {
      out[at++] = 127;
      out.writeUInt32BE(Math.floor(length / 2 ** 32), at);
      out.writeUInt32BE(length >>> 0, at + 4);
      at += 8;
    }
    at += head.copy(out, at);
    at += payload.copy(out, at);
    out[at++] = 0x7d; // }
  }
  return out;
}

/** Puts a socket's direct frames into the socket (behind what it already holds), as one write. */
function writeDirect(framed: Framing): void {
  if (framed.direct.length === 0) return;
  const parts = framed.direct;
  const bytes = framed.directBytes;
  framed.direct = [];
  framed.directBytes = 0;
  // A socket closing or closed takes no more messages (graphql-ws ends its subscriptions in a moment).
  if (framed.socket.readyState !== WebSocket.OPEN || framed.connection.destroyed) return;
  framed.connection.write(encodeFrames(parts, bytes));
}

/** Writes what a socket holds: its direct frames, then everything corked. */
function release(connection: Socket): void {
  const framed = framingOf.get(connection);
  if (framed) writeDirect(framed);
  connection.uncork();
}

/** Bytes a socket has not written yet: ws's buffer (`bufferedAmount`) and the direct frames held here. */
export function unwrittenBytes(socket: WebSocket): number {
  return socket.bufferedAmount + (framing.get(socket)?.directBytes ?? 0);
}

/** Payloads as bytes, encoded once per event for all its subscribers; forgotten on the next turn. */
const encoded = new Map<string, Buffer>();

/** The UTF-8 bytes of `payload`, made once per turn of the event loop however many subscribers get it. */
export function payloadBytes(payload: string): Buffer {
  let bytes = encoded.get(payload);
  if (bytes === undefined) {
    if (encoded.size === 0) setImmediate(() => encoded.clear());
    bytes = Buffer.from(payload, 'utf8');
    encoded.set(payload, bytes);
  }
  return bytes;
}

/**
 * Holds the message `head` + `payload` + `}` for `socket` (accepted by `framedSocket`) until the next
 * flush, as a frame made here rather than by ws: at the flush a socket's frames go out as one buffer, one
 * write. The payload's bytes are shared by every subscriber of the event (payloadBytes); the head is the
 * subscription's own (`{"id":…,"type":"next","payload":`).
 */
export function sendHeld(socket: WebSocket, head: Buffer, payload: Buffer): void {
  const framed = framing.get(socket);
  if (!framed) throw new Error('sendHeld needs a socket accepted by framedSocket');
  const length = head.length + payload.length + 1;
  framed.direct.push(head, payload);
  framed.directBytes += headerLength(length) + length;
  hold(framed.connection);
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
  const framed: Framing = { socket, send, connection, direct: [], directBytes: 0 };
  // ws writes every other frame itself: the direct frames held before it go first, so order is kept.
  const close = socket.close.bind(socket);
  socket.close = ((...args: Parameters<WebSocket['close']>) => {
    writeDirect(framed);
    close(...args);
  }) as WebSocket['close'];
  socket.send = ((data: unknown, ...rest: unknown[]) => {
    writeDirect(framed);
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
  framing.set(socket, framed);
  framingOf.set(connection, framed);
  return true;
}
