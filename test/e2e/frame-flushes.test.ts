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
    // Frames to every socket on every turn of the event loop: for a second, and on a loaded machine (where each
    // flush and the wait after it take longer) until at least three flushes have ended, for up to 10 s.
    while (performance.now() - started < 1_000 || (flushes.length < 3 && performance.now() - started < 10_000)) {
      n++;
      for (const socket of accepted) sendHeld(socket, JSON.stringify({ n, padding }));
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
      for (const socket of accepted) sendHeld(socket, JSON.stringify({ n: (counts[0] as number) + 1 }));
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
        for (const socket of accepted) sendHeld(socket, JSON.stringify({ n: (counts[0] as number) + n }));
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
});
