// "/health under attack" (issue 15: "/health must stay under 50 ms through all of this"): one server process on a
// SQLite file of pending items, with the default rate and subscription limits, and /health probed back to back from
// a process of its own while a VIEWER runs each attack of test/api/viewer-limits.test.ts, refusal-flood.test.ts and
// hardening-connections.test.ts in turn from the bench process. The attack's own client work (building 1.7 MB
// messages, parsing replayed frames) cannot delay the probe: the two loops share no thread.
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import WebSocket from 'ws';
import { seedPendingItems } from '../test/support/seed-file.js';
import { type Collected, connectWs, waitFor } from '../test/support/ws.js';
import { machineBusyMs, processCpuMs } from './fanout.js';
import { gqlBody, graphqlClient } from './http.js';
import { type BenchKey, keysNamed, makeKeys } from './keys.js';
import { type LoopDelay, LoopDelayProbe } from './live-scale-loop.js';
import type { Machine } from './machine.js';
import { type RunningServer, startServer } from './server.js';
import { type Spread, spread } from './stats.js';

export interface AttackOptions {
  /** Pending items seeded (each one ITEM_ADDED event, so the replays read at least this many events). */
  items: number;
  idleMs: number;
  /** How long the slow bodies are held open. */
  slowMs: number;
  slowConnections: number;
  floodRequests: number;
}

export const DEFAULT_ATTACK_OPTIONS: AttackOptions = {
  items: 10_000,
  idleMs: 3_000,
  slowMs: 5_000,
  slowConnections: 200,
  floodRequests: 2_000,
};

/** What the issue asks of /health through every attack. */
export const HEALTH_TARGET_MS = 50;
const PROBE_GAP_MS = 5;

export interface AttackRow {
  attack: string;
  health: Spread;
  /** /health answers other than 200, and probes that failed outright. */
  healthFailures: number;
  seconds: number;
  /** Server CPU time over the window ÷ its length (1 = one core busy throughout). */
  serverCpu: number;
  /** Every CPU's busy time over the window ÷ its length (the bench, the prober and whatever else runs on the machine too). */
  machineCpu: number;
  /** The server's own event-loop delay over the window (its /metrics histogram). */
  loop: LoopDelay;
  outcome: string;
  /** The attack was answered as the limits say it should be. */
  ok: boolean;
}

export interface AttackReport {
  items: number;
  events: number;
  rows: AttackRow[];
  /** /health status once every attack is over. */
  healthAfter: number;
  serverLogLines: string[];
  serverExit: number | null;
  /** The 1-minute load average once the attacks are over (others' work on the machine shows here). */
  loadAfter: string;
}

/**
 * The prober, a separate node process: GET /health over one kept-alive connection, PROBE_GAP_MS after each answer,
 * for ever; latencies are kept between a `start` and a `stop` message, and sent back after the probe in flight at
 * `stop` has finished (so a stalled answer counts in full).
 */
const PROBER = `
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const port = Number(process.env.PROBE_PORT);
const gap = Number(process.env.PROBE_GAP_MS);
let samples = null;
let failures = 0;
let stopping = false;
process.on('message', (message) => {
  if (message === 'start') { samples = []; failures = 0; stopping = false; }
  else if (message === 'stop') stopping = true;
  else if (message === 'exit') process.exit(0);
});
process.on('disconnect', () => process.exit(0));
function probe() {
  return new Promise((resolve) => {
    const started = performance.now();
    const request = http.get({ host: '127.0.0.1', port, path: '/health', agent }, (response) => {
      response.resume();
      response.on('end', () => resolve({ ms: performance.now() - started, ok: response.statusCode === 200 }));
      response.on('error', () => resolve({ ms: performance.now() - started, ok: false }));
    });
    request.on('error', () => resolve({ ms: performance.now() - started, ok: false }));
  });
}
(async () => {
  process.send('ready');
  for (;;) {
    const recording = samples;
    const { ms, ok } = await probe();
    if (recording && recording === samples) {
      recording.push(ms);
      if (!ok) failures++;
    }
    if (stopping && samples) {
      process.send({ samples, failures });
      samples = null;
      stopping = false;
    }
    await new Promise((resolve) => setTimeout(resolve, gap));
  }
})();
`;

interface Probed {
  samples: number[];
  failures: number;
}

class Prober {
  private readonly child: ChildProcess;
  private pending: { resolve(probed: Probed): void; reject(error: Error): void } | null = null;
  readonly ready: Promise<void>;

  constructor(port: number) {
    this.child = spawn(process.execPath, ['-e', PROBER], {
      env: { ...process.env, PROBE_PORT: String(port), PROBE_GAP_MS: String(PROBE_GAP_MS) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.ready = new Promise((resolve, reject) => {
      this.child.once('exit', (code) => {
        const exited = new Error(`the /health prober exited (${code})`);
        reject(exited);
        this.pending?.reject(exited);
        this.pending = null;
      });
      this.child.on('message', (message: unknown) => {
        if (message === 'ready') resolve();
        else if (this.pending && typeof message === 'object' && message !== null) {
          const { resolve: answer } = this.pending;
          this.pending = null;
          answer(message as Probed);
        }
      });
    });
  }

  /** Probes while `attack` runs; its answer is the attack's outcome. */
  async during<T>(attack: () => Promise<T>): Promise<{ result: T; probed: Probed; seconds: number }> {
    this.child.send('start');
    const started = performance.now();
    const settled = await attack().then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    const seconds = (performance.now() - started) / 1000;
    const probed = await new Promise<Probed>((resolve, reject) => {
      this.pending = { resolve, reject };
      this.child.send('stop');
    });
    if ('error' in settled) throw settled.error;
    return { result: settled.value, probed, seconds };
  }

  close(): void {
    if (this.child.connected) this.child.send('exit');
    this.child.kill();
  }
}

const itemId = (n: number) => Buffer.from(`Item:${n}`).toString('base64');
const int = (n: number) => n.toLocaleString('en-US');

type Body = { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] };

/** The error codes a WebSocket operation was answered or ended with. */
function codesOf(collected: Collected<unknown>): string[] {
  const ended = Array.isArray(collected.error) ? (collected.error as { extensions?: Record<string, unknown> }[]) : [];
  return [...collected.results.flatMap((result) => result.errors ?? []), ...ended].map((error) => String(error.extensions?.code));
}

/** `codes` counted, e.g. "5 INVALID_ARGUMENT". */
function tally(codes: string[]): string {
  const counts = new Map<string, number>();
  for (const code of codes) counts.set(code, (counts.get(code) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([code, count]) => `${int(count)} ${code}`)
    .join(', ');
}

function httpCodes(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as Body;
    const code = parsed.errors?.[0]?.extensions?.code;
    if (code !== undefined) return String(code);
    return parsed.errors ? `HTTP ${status} error` : `HTTP ${status} ok`;
  } catch {
    return `HTTP ${status}`;
  }
}

interface Attack {
  name: string;
  /** Work done before the window is measured: building the requests, connecting. */
  prepare?(): Promise<void>;
  run(): Promise<{ outcome: string; ok: boolean }>;
}

/** Rounds of each list attack (each round: its 5 requests at once, answered before the next), for a sample worth a p99. */
const LIST_ROUNDS = 10;

/** A graphql-transport-ws connection spoken by hand, so requests can be serialised before the window. */
async function rawWs(port: number, key: BenchKey): Promise<WebSocket> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/graphql`, 'graphql-transport-ws');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: key.authorization } })));
    socket.once('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string };
      if (message.type === 'connection_ack') resolve();
      else reject(new Error(`expected connection_ack, got ${String(data).slice(0, 200)}`));
    });
  });
  return socket;
}

/** Sends `messages` (subscribe messages with ids `ids`) at once and resolves with each operation's first error code ('none' if it had none). */
function sendAll(socket: WebSocket, messages: string[], ids: string[]): Promise<string[]> {
  return new Promise((resolve) => {
    const codes = new Map<string, string>();
    const done = new Set<string>();
    const onMessage = (data: WebSocket.RawData) => {
      const message = JSON.parse(String(data)) as {
        id?: string;
        type: string;
        payload?: { errors?: Body['errors'] } | NonNullable<Body['errors']>;
      };
      if (message.id === undefined || !ids.includes(message.id)) return;
      const errors = Array.isArray(message.payload) ? message.payload : (message.payload?.errors ?? []);
      const code = errors[0]?.extensions?.code;
      if (code !== undefined && !codes.has(message.id)) codes.set(message.id, String(code));
      if (message.type === 'complete' || message.type === 'error') done.add(message.id);
      if (done.size === ids.length) {
        socket.off('message', onMessage);
        resolve(ids.map((id) => codes.get(id) ?? 'none'));
      }
    };
    socket.on('message', onMessage);
    for (const message of messages) socket.send(message);
  });
}

function attacks(port: number, options: AttackOptions, events: number, viewers: BenchKey[]): Attack[] {
  const url = `http://127.0.0.1:${port}`;
  const viewer = (index: number) => viewers[index] as BenchKey;
  const params = (key: BenchKey) => ({ authorization: key.authorization });
  const nodesQuery = 'query ($ids: [ID!]!) { nodes(ids: $ids) { __typename } }';
  const ids = () => Array.from({ length: 100_000 }, (_, n) => itemId(n + 1));

  /** `count` requests at once over `sockets` kept-alive connections; the codes they were answered with. */
  async function overHttp(key: BenchKey, bodies: string[], sockets: number): Promise<string[]> {
    const client = graphqlClient(port, sockets);
    try {
      const codes: string[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: sockets }, async () => {
          for (let index = next++; index < bodies.length; index = next++) {
            try {
              const reply = await client.post(bodies[index] as string, { authorization: key.authorization });
              codes.push(httpCodes(reply.status, reply.body));
            } catch (error) {
              codes.push(`failed: ${error instanceof Error ? error.message : String(error)}`);
            }
          }
        }),
      );
      return codes;
    } finally {
      client.close();
    }
  }

  /** LIST_ROUNDS rounds of 5 × `body` (built before the window) over HTTP at once, each round answered before the next. */
  function listOverHttp(name: string, build: () => string): Attack {
    let body = '';
    return {
      name,
      async prepare() {
        body = build();
      },
      async run() {
        const codes: string[] = [];
        for (let round = 0; round < LIST_ROUNDS; round++)
          codes.push(
            ...(await overHttp(
              viewer(0),
              Array.from({ length: 5 }, () => body),
              5,
            )),
          );
        body = '';
        return { outcome: `refused: ${tally(codes)}`, ok: codes.every((code) => code === 'INVALID_ARGUMENT') };
      },
    };
  }

  return [
    {
      name: 'idle (nothing else running)',
      async run() {
        await sleep(options.idleMs);
        return { outcome: '—', ok: true };
      },
    },
    (() => {
      let socket: WebSocket | null = null;
      let rounds: { messages: string[]; ids: string[] }[] = [];
      return {
        name: `${LIST_ROUNDS} rounds of 5 × nodes(ids:) with 100,000 ids, sent at once on one WebSocket`,
        async prepare() {
          socket = await rawWs(port, viewer(0));
          const variables = JSON.stringify({ ids: ids() });
          rounds = Array.from({ length: LIST_ROUNDS }, (_, round) => {
            const roundIds = Array.from({ length: 5 }, (_, n) => String(round * 5 + n + 1));
            return {
              ids: roundIds,
              messages: roundIds.map(
                (id) => `{"id":"${id}","type":"subscribe","payload":{"query":${JSON.stringify(nodesQuery)},"variables":${variables}}}`,
              ),
            };
          });
        },
        async run() {
          const open = socket as WebSocket;
          try {
            const codes: string[] = [];
            for (const round of rounds) codes.push(...(await sendAll(open, round.messages, round.ids)));
            return { outcome: `refused: ${tally(codes)}`, ok: codes.every((code) => code === 'INVALID_ARGUMENT') };
          } finally {
            open.close();
            rounds = [];
          }
        },
      };
    })(),
    listOverHttp(`${LIST_ROUNDS} rounds of 5 × nodes(ids:) with 100,000 ids over HTTP, concurrently`, () =>
      gqlBody(nodesQuery, { ids: ids() }),
    ),
    listOverHttp(`${LIST_ROUNDS} rounds of 5 × events(filter: { types }) with 100,000 types over HTTP, concurrently`, () =>
      gqlBody('query ($types: [EventType!]) { events(filter: { types: $types }) { edges { cursor } } }', {
        types: Array.from({ length: 100_000 }, () => 'ITEM_ADDED'),
      }),
    ),
    {
      name: '5,000 queueEvents subscriptions on one WebSocket',
      async run() {
        const ws = await connectWs(url, params(viewer(1)));
        try {
          const streams = Array.from({ length: 5_000 }, () => ws.subscribe('subscription { queueEvents { sequence } }'));
          // graphql-ws handles a socket's messages in order: once this query is answered, every subscribe has been.
          await ws.execute('{ serverTime }');
          await waitFor(() => streams.filter((stream) => codesOf(stream).length > 0).length >= 4_900, 30_000).catch(() => undefined);
          const refused = streams.flatMap(codesOf);
          const running = streams.filter((stream) => codesOf(stream).length === 0 && !stream.completed).length;
          return {
            outcome: `${int(running)} running, refused: ${tally(refused)}`,
            ok: running === 100 && refused.length === 4_900 && refused.every((code) => code === 'SUBSCRIPTION_LIMIT_REACHED'),
          };
        } finally {
          await ws.close();
        }
      },
    },
    {
      name: `20 × queueEvents(after: 0) on one WebSocket, replaying ${int(events)} events each`,
      async run() {
        const ws = await connectWs(url, params(viewer(2)));
        try {
          const replays = Array.from({ length: 20 }, () =>
            ws.subscribe<{ queueEvents: { sequence: number } }>('subscription { queueEvents(after: 0) { sequence } }'),
          );
          const caughtUp = () => replays.every((replay) => replay.data.length >= events || codesOf(replay).length > 0 || replay.completed);
          await waitFor(caughtUp, 120_000).catch(() => undefined);
          const delivered = replays.reduce((sum, replay) => sum + replay.data.length, 0);
          const codes = replays.flatMap(codesOf);
          const complete = replays.filter((replay) => replay.data.length >= events).length;
          return {
            outcome: `${complete}/20 caught up, ${int(delivered)} events delivered${codes.length > 0 ? `; ${tally(codes)}` : ''}`,
            ok: complete === 20 && codes.length === 0,
          };
        } finally {
          await ws.close();
        }
      },
    },
    {
      name: `refusal flood: ${int(options.floodRequests)} × addItem by a VIEWER over HTTP, 32 at a time`,
      async run() {
        const body = gqlBody(
          'mutation { addItem(input: { batchId: "b", recordId: "r", proposedCategory: "c", reason: "why" }) { __typename } }',
        );
        const codes = await overHttp(
          viewer(3),
          Array.from({ length: options.floodRequests }, () => body),
          32,
        );
        return {
          outcome: `refused: ${tally(codes)}`,
          ok: codes.length === options.floodRequests && codes.every((code) => code === 'FORBIDDEN' || code === 'RATE_LIMITED'),
        };
      },
    },
    {
      name: `${options.slowConnections} slow bodies (headers, then 1 body byte a second) held ${options.slowMs / 1000} s`,
      async run() {
        const sockets = await Promise.all(
          Array.from(
            { length: options.slowConnections },
            () =>
              new Promise<{ socket: net.Socket; closed: () => boolean; received: () => string }>((resolve, reject) => {
                const socket = net.connect({ host: '127.0.0.1', port });
                let received = '';
                let closed = false;
                socket.setEncoding('utf8').on('data', (chunk: string) => {
                  received += chunk;
                });
                socket.on('error', () => undefined);
                socket.once('close', () => {
                  closed = true;
                });
                socket.once('connect', () => {
                  socket.write(
                    `POST /graphql HTTP/1.1\r\nHost: leasehold\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nAuthorization: ${viewer(4).authorization}\r\n\r\n{"query":"`,
                  );
                  resolve({ socket, closed: () => closed, received: () => received });
                });
                socket.once('error', reject);
              }),
          ),
        );
        const deadline = performance.now() + options.slowMs;
        while (performance.now() < deadline) {
          await sleep(1_000);
          for (const one of sockets) if (!one.closed()) one.socket.write('a');
        }
        const cut = sockets.filter((one) => one.closed()).length;
        const answered = tally(sockets.map((one) => one.received().split('\r\n')[0] ?? '').filter((line) => line !== ''));
        for (const one of sockets) one.socket.destroy();
        return {
          outcome: `${int(sockets.length - cut)} still open at the end, ${cut} closed by the server${answered ? ` (${answered})` : ''}`,
          ok: true,
        };
      },
    },
  ];
}

/** Seeds a file, starts one server with the default limits, and runs every attack under the /health probe. */
export async function runAttacks(
  tmp: string,
  synchronous: 'NORMAL' | 'FULL',
  options: AttackOptions,
  log: (message: string) => void,
): Promise<AttackReport> {
  log(`\n[/health under attack] ${int(options.items)} pending items; server with the default rate and subscription limits`);
  const file = path.join(tmp, 'attacks.db');
  const viewerNames = ['atk-viewer-nodes', 'atk-viewer-subscriptions', 'atk-viewer-replays', 'atk-viewer-flood', 'atk-viewer-slow'];
  const keys = await makeKeys(file, [
    { name: 'atk-admin', roles: ['ADMIN'] },
    { name: 'atk-proposer', roles: ['PROPOSER'] },
    ...viewerNames.map((name) => ({ name, roles: ['VIEWER' as const] })),
  ]);
  const viewers = keysNamed(keys, viewerNames);
  const [admin] = keysNamed(keys, ['atk-admin']) as [BenchKey];
  const seedSeconds = seedPendingItems(file, {
    items: options.items,
    category: 'c',
    admin: 'atk-admin',
    proposer: 'atk-proposer',
    prefix: 'atk',
  });
  const db = new Database(file, { readonly: true });
  const events = Number(db.prepare('SELECT COUNT(*) FROM "Event"').pluck().get());
  db.close();
  log(`  seeded in ${seedSeconds.toFixed(1)} s (${int(events)} events in the history)`);

  // The service's own policy: RATE_LIMIT_PER_SECOND, MAX_CONNECTIONS_PER_ADDRESS, … at their defaults (see SERVER_POLICY).
  const server: RunningServer = await startServer({
    databaseFile: file,
    synchronous,
    env: { RATE_LIMIT_PER_SECOND: undefined, MAX_CONNECTIONS_PER_ADDRESS: undefined },
  });
  log(`  server on 127.0.0.1:${server.port}`);
  const prober = new Prober(server.port);
  const rows: AttackRow[] = [];
  let healthAfter = 0;
  let serverExit: number | null = null;
  try {
    await prober.ready;
    for (const attack of attacks(server.port, options, events, viewers)) {
      await attack.prepare?.();
      const loop = new LoopDelayProbe(server.port, admin);
      await loop.start();
      const cpuBefore = processCpuMs(server.pid);
      const busyBefore = machineBusyMs();
      const { result, probed, seconds } = await prober.during(() => attack.run());
      const row: AttackRow = {
        attack: attack.name,
        health: spread(probed.samples),
        healthFailures: probed.failures,
        seconds,
        serverCpu: (processCpuMs(server.pid) - cpuBefore) / 1000 / seconds,
        machineCpu: (machineBusyMs() - busyBefore) / 1000 / seconds,
        loop: await loop.stop(),
        ...result,
      };
      rows.push(row);
      log(
        `  ${row.attack}: /health p50 ${row.health.p50.toFixed(1)} / p99 ${row.health.p99.toFixed(1)} / max ${row.health.max.toFixed(1)} ms over ${row.health.count} (${row.healthFailures} failed); ${seconds.toFixed(1)} s, server CPU ${percent(row.serverCpu)} of ${percent(row.machineCpu)} busy, server loop delay p99 ${loopDelay(row.loop)}; ${row.outcome}${row.ok ? '' : ' (NOT AS EXPECTED)'}`,
      );
      // Let the server finish closing what the attack left (sockets, subscriptions) before the next one is measured.
      await sleep(500);
    }
    const response = await fetch(`http://127.0.0.1:${server.port}/health`);
    healthAfter = response.status;
    await response.arrayBuffer();
  } finally {
    prober.close();
    serverExit = await server.stop();
  }
  return {
    items: options.items,
    events,
    rows,
    healthAfter,
    serverLogLines: [...server.logs],
    serverExit,
    loadAfter: (os.loadavg()[0] ?? 0).toFixed(2),
  };
}

const percent = (share: number) => (Number.isNaN(share) ? '—' : `${Math.round(share * 100)} %`);
/** The p99 with the bounds of its histogram bucket, e.g. "12.0 ms (10–20)". */
function loopDelay(loop: LoopDelay): string {
  if (Number.isNaN(loop.p99)) return '—';
  return loop.bucket ? `${loop.p99.toFixed(1)} ms (${loop.bucket[0]}–${loop.bucket[1]})` : `${loop.p99.toFixed(1)} ms`;
}
const ms = (value: number) => (Number.isNaN(value) ? '—' : value.toFixed(1));

/** The section as markdown: the command, the machine, the table. */
export function attacksMarkdown(report: AttackReport, command: string, machine: Machine, date: string): string[] {
  const where = `${machine.nproc} CPUs (nproc), ${machine.cpuModel}, ${machine.ramGiB} GiB RAM, Node ${machine.node}, SQLite ${machine.sqlite}, temp files on ${machine.tmpFilesystem}, load average ${machine.loadAverage}`;
  return [
    '## /health under attack',
    '',
    `\`${command}\`, ${date}; ${where}.`,
    '',
    `One server process (\`node dist/main.js\`, SQLite, ${int(report.items)} pending items, ${int(report.events)} events in the history) with the default limits (rate limit, connections per address, subscriptions per connection and principal). /health is probed back to back (${PROBE_GAP_MS} ms after each answer, one kept-alive connection) from a node process of its own; each attack is sent by a VIEWER from the bench process, one after another, each with its own sample. Target: /health under ${HEALTH_TARGET_MS} ms throughout.`,
    '',
    '| attack | /health p50 | p99 | max | samples | attack took | server loop delay p99 | server CPU | all CPUs busy | what the attack got |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...report.rows.map((row) => {
      const over = row.health.max >= HEALTH_TARGET_MS ? ' ⚠' : '';
      const failed = row.healthFailures > 0 ? ` (${row.healthFailures} failed)` : '';
      return `| ${row.attack} | ${ms(row.health.p50)} ms | ${ms(row.health.p99)} ms | ${ms(row.health.max)} ms${over} | ${row.health.count}${failed} | ${row.seconds.toFixed(1)} s | ${loopDelay(row.loop)} | ${percent(row.serverCpu)} | ${percent(row.machineCpu)} | ${row.outcome}${row.ok ? '' : ' (not as expected)'} |`;
    }),
    '',
    `⚠: a /health answer took ${HEALTH_TARGET_MS} ms or more. Server loop delay: the p99 of the server's own event-loop delay over the window (\`leasehold_event_loop_delay_seconds\` in /metrics, scraped before and after; in brackets the bounds of its bucket, ms): low beside a slow /health means /health waited behind many short turns or for a CPU, not behind one long turn. Server CPU: the server process's CPU time over the window ÷ the window (100 % = one core); all CPUs busy: the machine's busy time over the window, out of ${machine.nproc * 100} %. The list attacks' requests are serialised before their window; the bench, the prober and the server share the machine's ${machine.nproc} CPUs (1-minute load average ${report.loadAfter} after the attacks). After the attacks /health answered ${report.healthAfter}; the server exited ${report.serverExit} and wrote ${report.serverLogLines.length} warning/error line(s).`,
  ];
}

/** Whether the part went as it should: every attack answered as the limits say, and the server well afterwards. */
export function attacksFailed(report: AttackReport): boolean {
  return report.rows.some((row) => !row.ok || row.healthFailures > 0) || report.healthAfter !== 200 || report.serverExit !== 0;
}
