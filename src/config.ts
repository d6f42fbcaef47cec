// Configuration: read from the environment once, validated, with documented defaults.
import path from 'node:path';
import { z } from 'zod';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const schema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  DATABASE_URL: z.string().min(1).default('file:./data/leasehold.db'),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  SQLITE_BUSY_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  SQLITE_SYNCHRONOUS: z.enum(['NORMAL', 'FULL']).default('FULL'),
  GRAPHIQL: z.enum(['true', 'false']).default('true'),
  METRICS: z.enum(['true', 'false']).default('true'),
  LEASE_WARNING_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  FEED_POLL_MS: z.coerce.number().int().min(1).max(10_000).default(20),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(100 * 1024 * 1024)
    .default(2 * 1024 * 1024),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
});

export interface Config {
  host: string;
  port: number;
  /** Absolute path of the SQLite file. */
  databaseFile: string;
  logLevel: (typeof LOG_LEVELS)[number];
  busyTimeoutMs: number;
  synchronous: 'NORMAL' | 'FULL';
  graphiql: boolean;
  /** Serve Prometheus metrics at GET /metrics (without authentication); otherwise it answers 404. */
  metrics: boolean;
  /** Largest accepted request body; 500 items with 1000-character reasons in UTF-8 fit in the default 2 MiB. */
  maxBodyBytes: number;
  /** How long before a lease lapses its holder is warned (EXPIRING). */
  leaseWarningSeconds: number;
  /** How often to look for changes committed by other processes. */
  feedPollMs: number;
  shutdownTimeoutMs: number;
}

export class ConfigError extends Error {}

/** `file:relative/or/absolute.db` (or a bare path) → absolute file path. */
export function databaseFileFromUrl(url: string, cwd = process.cwd()): string {
  const withoutScheme = url.startsWith('file:') ? url.slice('file:'.length) : url;
  const filePath = withoutScheme.split('?')[0] ?? withoutScheme;
  if (filePath === '' || filePath === ':memory:') {
    throw new ConfigError('DATABASE_URL must name a SQLite file, e.g. file:./data/leasehold.db');
  }
  return path.resolve(cwd, filePath);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  const values = parsed.data;
  return {
    host: values.HOST,
    port: values.PORT,
    databaseFile: databaseFileFromUrl(values.DATABASE_URL),
    logLevel: values.LOG_LEVEL,
    busyTimeoutMs: values.SQLITE_BUSY_TIMEOUT_MS,
    synchronous: values.SQLITE_SYNCHRONOUS,
    graphiql: values.GRAPHIQL === 'true',
    metrics: values.METRICS === 'true',
    maxBodyBytes: values.MAX_BODY_BYTES,
    leaseWarningSeconds: values.LEASE_WARNING_SECONDS,
    feedPollMs: values.FEED_POLL_MS,
    shutdownTimeoutMs: values.SHUTDOWN_TIMEOUT_MS,
  };
}
