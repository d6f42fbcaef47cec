// Start-up: configuration, database, server, and a graceful stop on SIGINT/SIGTERM.
import { pino } from 'pino';
import { createApp } from './app.js';
import { describeDatabase } from './config/database-location.js';
import { ConfigError } from './config/json-setting.js';
import { loadConfig } from './config.js';
import { openDatabase } from './db/client.js';
import { databaseClock, flooredClock, SQLITE_MAX_LIFT_MS } from './db/database-clock.js';
import { systemClock } from './domain/clock.js';
import { firstRunBanner } from './first-run.js';
import { limitConnections } from './http/listener.js';
import { createLogger } from './logger.js';
import { bootstrapAdminKey } from './services/api-keys.js';

async function main(): Promise<void> {
  const config = loadConfig();
  // pino writes asynchronously; `exit` ends this stream first, or the last lines could be lost or reordered.
  const stdout = pino.destination({ dest: 1, sync: false });
  const logger = createLogger(config.logLevel, stdout);
  const exit = (code: number) => {
    stdout.once('close', () => process.exit(code));
    stdout.end();
  };
  const db = await openDatabase({
    location: config.database,
    poolSize: config.databasePoolSize,
    writeMode: config.writeMode,
    busyTimeoutMs: config.busyTimeoutMs,
    unavailableWaitMs: config.unavailableWaitMs,
    connectTimeoutMs: config.connectTimeoutMs,
    synchronous: config.synchronous,
    // SQLite: WAL checkpoints on a worker thread, never inside a commit on the event loop (checkpointer.ts).
    checkpoints: 'background',
    logger,
  });
  // Several instances on PostgreSQL share one clock: the database server's. On SQLite the processes on
  // one file share the machine's, floored so none stamps a change before one already recorded.
  const clock =
    db.dialect === 'postgresql' ? await databaseClock(db, logger) : flooredClock(db, systemClock, { maxLiftMs: SQLITE_MAX_LIFT_MS });
  if (config.writeMode === 'sharded') {
    logger.warn(
      { writeMode: config.writeMode, dialect: db.dialect },
      db.dialect === 'postgresql'
        ? 'PG_WRITE_MODE=sharded is a prototype (decision 0009): review writes run without the global write lock; not for production'
        : 'PG_WRITE_MODE applies to PostgreSQL only: SQLite serializes its writes whatever it says',
    );
  }
  const firstKey = config.bootstrapAdminKey ? await bootstrapAdminKey({ db, clock }) : null;
  const app = createApp({ db, clock, config, logger });
  limitConnections(app.server, config.connectionLimits, logger);
  const url = await app.start();
  logger.info({ url: `${url}/graphql`, database: describeDatabase(config.database) }, `Leasehold is listening; GraphiQL at ${url}/graphql`);
  if (firstKey) {
    logger.info({ keyId: firstKey.record.id, prefix: firstKey.record.prefix }, 'made the first ADMIN API key (printed on stderr)');
    process.stderr.write(firstRunBanner(firstKey.key, url, config.database));
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    app.stop().then(
      () => {
        logger.info('stopped');
        exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        exit(1);
      },
    );
  };
  // A write past the file size limit (RLIMIT_FSIZE) would end the process (SIGXFSZ); ignored, the write
  // fails with an I/O error like a full disk, /ready answers 503 and reads go on.
  process.on('SIGXFSZ', () => logger.warn('a write went past the file size limit (RLIMIT_FSIZE)'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  const message = error instanceof ConfigError ? error.message : 'Leasehold failed to start.';
  process.stderr.write(`${JSON.stringify({ level: 'fatal', msg: message, error: String(error) })}\n`);
  process.exit(1);
});
