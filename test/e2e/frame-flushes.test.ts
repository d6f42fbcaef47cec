// Frames held for the next flush (src/graphql/shared-frames.ts) over real sockets: every frame arrives
// whole and in order, a socket held again during a flush is written by that flush or the next (never
// left corked), and however long a flush takes, the timed writes keep to their share of the event loop
// (after a flush of F ms the next waits at least F ÷ FLUSH_SHARE), so many subscribers' writes cannot crowd
// out requests.
// A write's cost is made known and steady: each server socket's uncork first spins for WRITE_MS (the system
// call and, on one host, the peer's receive, which vary with the machine's load).
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { fanOutPace } from '../../src/events/fan-out-pace.js';
import { COALESCE_MS, FLUSH_SHARE, framedSocket, MAX_COALESCE_MS, sendHeld, writeHeld } from '../../src/graphql/shared-frames.js';
import { waitFor } from '../support/ws.js';

const SOCKETS = 200;
/** What writing one socket's frames costs: 200 sockets make a flush of at least 20 ms. */
const WRITE_MS = 0.1;
let writeMs = WRITE_MS;

/** The message `{"n":n}` (with `padding` when given), held for the next flush as direct delivery holds one. */
const HEAD = Buffer.from('{"n":');
function hold(socket: WebSocket, n: number, padding?: string): void {
  sendHeld(socket, HEAD, Buffer.from(padding === undefined ? String(n) : `${n},"padding":"${padding}"`));
}

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

describe('frames held for the next flush', () => {
  let server: WebSocketServer;
  const accepted: WebSocket[] = [];
  /** The TCP socket under each accepted one. */
  const connections: Socket[] = [];
  const clients: WebSocket[] = [];
  const received: number[][] = [];

  beforeAll(async () => {
    server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    server.on('connection', (socket, request) => {
      const connection = request.socket;
      const uncork = connection.uncork.bind(connection);
      connection.uncork = () => {
        busy(writeMs);
        uncork();
      };
      expect(framedSocket(socket, connection)).toBe(true);
      accepted.push(socket);
      connections.push(connection);
    });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const { port } = server.address() as AddressInfo;
    for (let index = 0; index < SOCKETS; index++) {
      const client = new WebSocket(`ws://127.0.0.1:${port}`);
      const log: number[] = [];
      received.push(log);
      client.on('message', (data) => log.push(JSON.parse(String(data)).n));
      await new Promise<void>((resolve, reject) => client.once('open', () => resolve()).once('error', reject));
      clients.push(client);
    }
    await waitFor(() => accepted.length === SOCKETS);
  });
  afterAll(async () => {
    for (const client of clients) client.terminate();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it(`writes every frame in order, never corks a socket twice, and after a flush of F ms the next waits at least F ÷ ${FLUSH_SHARE.toFixed(2)}`, async () => {
    const padding = 'x'.repeat(2_000);
    const before = { ...fanOutPace };
    const started = performance.now();
    let n = 0;
    let seen = fanOutPace.flushes;
    let deepest = 0;
    const flushes: (typeof fanOutPace)['lastFlush'][] = [];
    // Frames to every socket on every turn of the event loop (so sockets are held again while a flush is
    // being written in slices): for a second, and on a loaded machine until at least three flushes have ended.
    while (performance.now() - started < 1_000 || (flushes.length < 3 && performance.now() - started < 10_000)) {
      n++;
      for (const socket of accepted) hold(socket, n, padding);
      await new Promise<void>((resolve) => setImmediate(resolve));
      // Corked once while held: corked again, a flush's uncork would leave the socket corked and its frames
      // would wait another flush, and another while frames keep coming.
      for (const connection of connections) deepest = Math.max(deepest, connection.writableCorked);
      if (fanOutPace.flushes > seen) {
        // A flush ends at most once per turn here: its slices are spread over turns, and flushes are COALESCE_MS apart.
        expect(fanOutPace.flushes).toBe(seen + 1);
        flushes.push(fanOutPace.lastFlush);
        seen = fanOutPace.flushes;
      }
    }
    expect(deepest).toBe(1);
    await waitFor(
      () => received.every((log) => log.length === n),
      20_000,
      () => `received ${received.map((log) => log.length).join(',')}`,
    );
    for (const log of received) expect(log).toEqual(Array.from({ length: n }, (_, index) => index + 1));

    // Each flush cost over 20 ms (200 writes of 0.1 ms), so the wait after it is longer than COALESCE_MS.
    expect(flushes.length).toBeGreaterThanOrEqual(2);
    expect((fanOutPace.writesMs - before.writesMs) / (fanOutPace.flushes - before.flushes)).toBeGreaterThan(SOCKETS * WRITE_MS);
    for (const [index, flush] of flushes.entries()) {
      // The wait after a flush: what it took ÷ the share, within COALESCE_MS and MAX_COALESCE_MS ...
      expect(flush.nextAfterMs).toBeCloseTo(Math.min(MAX_COALESCE_MS, Math.max(COALESCE_MS, flush.tookMs / FLUSH_SHARE)), 6);
      expect(flush.nextAfterMs).toBeGreaterThan(COALESCE_MS);
      // ... and the next flush began no sooner (a timer never fires early; a loaded machine only makes it later).
      const following = flushes[index + 1];
      if (following) expect(following.startedAt - flush.startedAt).toBeGreaterThanOrEqual(flush.nextAfterMs - 1);
    }
  });

  it('writes a long flush in slices of a few ms, with a turn of the event loop between each', async () => {
    // 200 sockets at 0.5 ms each: a flush of 100 ms.
    writeMs = 0.5;
    try {
      const counts = received.map((log) => log.length);
      const before = { ...fanOutPace };
      let turns = 0;
      let turning = true;
      const turn = () => {
        turns++;
        if (turning) setImmediate(turn);
      };
      // After the flushes of the test before, and their interval, have passed.
      await new Promise((resolve) => setTimeout(resolve, MAX_COALESCE_MS));
      for (const socket of accepted) hold(socket, (counts[0] as number) + 1);
      setImmediate(turn);
      await waitFor(() => fanOutPace.flushes > before.flushes, 5_000);
      turning = false;
      const slices = fanOutPace.flushSlices - before.flushSlices;
      expect(fanOutPace.flushes).toBe(before.flushes + 1);
      expect(fanOutPace.lastFlush.tookMs).toBeGreaterThanOrEqual(SOCKETS * 0.5);
      // 100 ms in slices of about 5 ms (written in one go, it would be one slice holding the loop 100 ms) ...
      expect(slices).toBeGreaterThanOrEqual(10);
      // ... each followed by a turn in which other work ran (the counter above, for one).
      expect(turns).toBeGreaterThanOrEqual(slices - 1);
      await waitFor(() => received.every((log, index) => log.length === (counts[index] as number) + 1), 10_000);
    } finally {
      writeMs = WRITE_MS;
    }
  });

  /** Until nothing is held or being written (writeHeld answers 0 then), and every client has all it was sent. */
  async function quiet(): Promise<number[]> {
    while ((await writeHeld()) !== 0) {
      // another flush was due
    }
    const sent = () => accepted.map((_socket, index) => received[index]?.length ?? 0);
    let last = sent();
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const now = sent();
      if (now.every((count, index) => count === last[index])) return now;
      last = now;
    }
  }

  it('writeHeld writes what is held at once, not at the next timed flush, and answers with what the writing took', async () => {
    const counts = await quiet();
    // A timed flush just ended: the next one is due COALESCE_MS or more from now.
    for (const socket of accepted) hold(socket, (counts[0] as number) + 1);
    const ended = fanOutPace.flushes;
    await waitFor(() => fanOutPace.flushes > ended, 5_000);
    // On a loaded machine a further flush may have begun for sockets held again meanwhile: let it end.
    await quiet();
    const before = fanOutPace.flushes;
    for (const socket of accepted) hold(socket, (counts[0] as number) + 2);
    const asked = performance.now();
    const took = await writeHeld();
    expect(fanOutPace.flushes).toBe(before + 1);
    expect(took).toBe(fanOutPace.lastFlush.tookMs);
    expect(took).toBeGreaterThanOrEqual(SOCKETS * WRITE_MS);
    // Written as soon as its slices could run, well before the timed flush would have been due.
    expect(fanOutPace.lastFlush.startedAt - asked).toBeLessThan(COALESCE_MS);
    await waitFor(() => received.every((log, index) => log.length === (counts[index] as number) + 2), 10_000);
    // Nothing held: answered at once.
    expect(await writeHeld()).toBe(0);
    expect(fanOutPace.flushes).toBe(before + 1);
  });

  it('writeHeld asked while a flush is being written waits for the flush after it, which writes what was held since', async () => {
    const counts = await quiet();
    const before = fanOutPace.flushes;
    for (const socket of accepted) hold(socket, (counts[0] as number) + 1);
    /** The flush count when each answer came (the second flush may begin and end in the same turn as the first's end). */
    const answeredAt: number[] = [];
    const first = writeHeld().then(() => answeredAt.push(fanOutPace.flushes));
    // The first flush is being written in slices now; hold more and ask again.
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(fanOutPace.flushes).toBe(before);
    for (const socket of accepted) hold(socket, (counts[0] as number) + 2);
    const second = writeHeld().then(() => answeredAt.push(fanOutPace.flushes));
    await Promise.all([first, second]);
    // Each answered once its own flush had ended: the second by a flush after the first.
    expect(fanOutPace.flushes).toBe(before + 2);
    expect(answeredAt[0]).toBeGreaterThanOrEqual(before + 1);
    expect(answeredAt[1]).toBe(before + 2);
    await waitFor(() => received.every((log, index) => log.length === (counts[index] as number) + 2), 10_000);
    for (const [index, log] of received.entries())
      expect(log.slice(counts[index])).toEqual([(counts[0] as number) + 1, (counts[0] as number) + 2]);
  });

  it('frames made here carry every payload length whole (7-bit, 16-bit and 64-bit lengths), in order with what ws sends itself', async () => {
    const socket = accepted[0] as WebSocket;
    const log = received[0] as number[];
    const from = log.length;
    const next = (offset: number) => (log[from - 1] ?? 0) + offset;
    const sizes = [0, 100, 119, 120, 65_000, 65_530, 65_531, 70_000, 300_000];
    const order: number[] = [];
    for (const [index, size] of sizes.entries()) {
      const n = next(index + 1);
      order.push(n);
      hold(socket, n, size === 0 ? undefined : 'y'.repeat(size));
      // Every other message goes through ws's own send between two held ones: it must not overtake them.
      if (index % 2 === 1) {
        const m = next(100 + index);
        order.push(m);
        socket.send(JSON.stringify({ n: m }));
      }
    }
    const last = next(sizes.length + 1);
    order.push(last);
    hold(socket, last);
    await waitFor(
      () => log.length === from + order.length,
      10_000,
      () => `received ${log.slice(from).join(',')}`,
    );
    expect(log.slice(from)).toEqual(order);
  });

  it('frames held when the socket is closed go out before the close frame', async () => {
    const socket = accepted.at(-1) as WebSocket;
    const log = received.at(-1) as number[];
    const client = clients.at(-1) as WebSocket;
    const first = (log.at(-1) ?? 0) + 1;
    hold(socket, first);
    hold(socket, first + 1);
    const closed = new Promise<number>((resolve) => client.once('close', (code) => resolve(code)));
    socket.close(4000, 'done');
    expect(await closed).toBe(4000);
    expect(log.slice(-2)).toEqual([first, first + 1]);
  });
});
