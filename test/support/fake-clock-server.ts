// TEST-ONLY entry point (kept out of src/ so it never ships): the real app on a ManualClock that the
// parent test moves over IPC, so several server processes on one database can be driven past lease
// expiry together. Run as `node --import tsx test/support/fake-clock-server.ts` with stdio including
// 'ipc' (startFakeClockServer in process.ts does).
//   env:  DATABASE_URL (a SQLite `file:` URL or a PostgreSQL URL, as for the real server) or DATABASE_FILE
//         (a SQLite file), CLOCK_START (ms since the epoch), LOG_LEVEL (default warn, to stderr),
//         RATE_LIMIT_PER_SECOND and RATE_LIMIT_BURST (as for the real server; the bucket refills by this
//         process's manual clock), WEBHOOKS (as for the real server; retries follow the manual clock).
//         Callers authenticate with API keys made in the database (createKeys in process.ts); no first
//         ADMIN key is made.
//   out:  one JSON line {"url": "http://127.0.0.1:PORT"} on stdout once listening
//   ipc:  {type:'advance', id, ms} → clock moved, expiries recorded, due webhook sends answered → {type:'advanced', id, now}
//         {type:'stop'} → graceful stop, exit 0 (also when the parent goes away)
import { pino } from 'pino';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/client.js';
import { ManualClock } from '../../src/domain/clock.js';
import { createLogger } from '../../src/logger.js';

export interface AdvanceMessage {
  type: 'advance';
  id: number;
  ms: number;
}
export interface StopMessage {
  type: 'stop';
}
export interface AdvancedMessage {
  type: 'advanced';
  id: number;
  now: string;
}

const file = process.env.DATABASE_FILE;
const send = process.send?.bind(process);
if ((!file && !process.env.DATABASE_URL) || !send) {
  process.stderr.write('fake-clock-server: needs DATABASE_URL or DATABASE_FILE and an IPC channel (spawn with stdio [..., "ipc"]).\n');
  process.exit(2);
}

// The database and the rate limit settings, validated as the real server validates them.
const { database, rateLimit, webhooks, writeMode } = loadConfig({
  DATABASE_URL: file ? `file:${file}` : process.env.DATABASE_URL,
  PG_WRITE_MODE: process.env.PG_WRITE_MODE,
  RATE_LIMIT_PER_SECOND: process.env.RATE_LIMIT_PER_SECOND,
  RATE_LIMIT_BURST: process.env.RATE_LIMIT_BURST,
  WEBHOOKS: process.env.WEBHOOKS,
});
const clock = new ManualClock(Number(process.env.CLOCK_START ?? Date.UTC(2026, 10, 30, 9, 0, 0)));
const logger = createLogger(process.env.LOG_LEVEL ?? 'warn', pino.destination({ dest: 2, sync: true }));
const db = await openDatabase({ location: database, synchronous: 'NORMAL', writeMode });
const app = createApp({
  db,
  clock,
  config: { host: '127.0.0.1', port: 0, graphiql: false, shutdownTimeoutMs: 2_000, maxBodyBytes: 2 * 1024 * 1024, rateLimit, webhooks },
  logger,
});
const url = await app.start();

let stopping: Promise<void> | null = null;
const stop = () => {
  stopping ??= app.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      logger.error({ err: error }, 'fake-clock-server: stop failed');
      process.exit(1);
    },
  );
  return stopping;
};

process.on('message', (message: AdvanceMessage | StopMessage) => {
  if (message.type === 'stop') {
    void stop();
    return;
  }
  if (message.type === 'advance') {
    clock.advance(message.ms);
    void app.live
      .settled()
      .then(() => app.webhooks.settled())
      .then(() => send({ type: 'advanced', id: message.id, now: clock.now().toISOString() } satisfies AdvancedMessage));
  }
});
process.on('disconnect', () => void stop());

process.stdout.write(`${JSON.stringify({ url })}\n`);
