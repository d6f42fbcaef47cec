// Frames held for the next flush (src/graphql/shared-frames.ts) over real sockets: every frame arrives
// whole and in order, and however long a flush takes, the writes keep to a third of the event loop
// (after a flush of F ms the next waits at least 3F), so many subscribers' writes cannot crowd out requests.
// A write's cost is made known and steady: each server socket's uncork first spins for WRITE_MS (the system
// call and, on one host, the peer's receive, which vary with the machine's load).
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { fanOutPace } from '../../src/events/fan-out-pace.js';
import { COALESCE_MS, framedSocket, MAX_COALESCE_MS, sendHeld } from '../../src/graphql/shared-frames.js';
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

  it('writes every frame in order, and after a flush of F ms the next waits at least 3F from its start (the writes keep to a third)', async () => {
    const padding = 'x'.repeat(2_000);
    const before = { ...fanOutPace };
    const started = performance.now();
    let n = 0;
    let seen = fanOutPace.flushes;
    const flushes: (typeof fanOutPace)['lastFlush'][] = [];
    // One second of frames to every socket on every turn of the event loop.
    while (performance.now() - started < 1_000) {
      n++;
      for (const socket of accepted) hold(socket, n, padding);
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (fanOutPace.flushes > seen) {
        // A flush ends at most once per turn here: its slices are spread over turns, and flushes are 30 ms apart.
        expect(fanOutPace.flushes).toBe(seen + 1);
        flushes.push(fanOutPace.lastFlush);
        seen = fanOutPace.flushes;
      }
    }
    await waitFor(
      () => received.every((log) => log.length === n),
      20_000,
      () => `received ${received.map((log) => log.length).join(',')}`,
    );
    for (const log of received) expect(log).toEqual(Array.from({ length: n }, (_, index) => index + 1));

    // Each flush cost over 20 ms (200 writes of 0.1 ms), more than two thirds of COALESCE_MS. (On a loaded
    // machine each takes longer, and waits up to MAX_COALESCE_MS after: a few in the second.)
    expect(flushes.length).toBeGreaterThanOrEqual(2);
    expect((fanOutPace.writesMs - before.writesMs) / (fanOutPace.flushes - before.flushes)).toBeGreaterThan(SOCKETS * WRITE_MS);
    for (const [index, flush] of flushes.entries()) {
      // The wait after a flush: three times what it took, within COALESCE_MS and MAX_COALESCE_MS ...
      expect(flush.nextAfterMs).toBeCloseTo(Math.min(MAX_COALESCE_MS, Math.max(COALESCE_MS, 3 * flush.tookMs)), 6);
      expect(flush.nextAfterMs).toBeGreaterThan(2 * COALESCE_MS);
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

  it(`while the feed hands a burst over, holds frames for ${MAX_COALESCE_MS} ms, so each write carries many`, async () => {
    const before = fanOutPace.flushes;
    const counts = received.map((log) => log.length);
    const started = performance.now();
    let n = 0;
    try {
      fanOutPace.burstUntil = started + 60_000;
      while (performance.now() - started < 1_000) {
        n++;
        for (const socket of accepted) hold(socket, (counts[0] as number) + n);
        await new Promise<void>((resolve) => setTimeout(resolve, 5));
      }
    } finally {
      fanOutPace.burstUntil = 0;
    }
    const elapsed = performance.now() - started;
    await waitFor(() => received.every((log, index) => log.length === (counts[index] as number) + n), 20_000);
    // Never more often than every MAX_COALESCE_MS (after the one that may have been due when the burst began).
    expect(fanOutPace.flushes - before).toBeLessThanOrEqual(Math.ceil(elapsed / MAX_COALESCE_MS) + 1);
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
