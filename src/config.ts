// Configuration: read from the environment once, validated, with documented defaults. The process settings live
// here; the database location, the proposal workflow's JSON settings and the webhooks have their modules in config/.
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { type DatabaseLocation, DEFAULT_DATABASE_URL, databaseLocation, WRITE_MODES, type WriteMode } from './config/database-location.js';
import { ConfigError } from './config/json-setting.js';
import { type WebhookConfig, webhooksConfig } from './config/webhooks.js';
import { approvalPolicies, escalationConfig, proposalRules, sensitiveFieldsConfig } from './config/workflow.js';
import type { EscalationPolicy } from './domain/escalation.js';
import type { SensitivePaths } from './domain/masking.js';
import type { Policies } from './domain/proposal.js';
import type { ProposalRules } from './domain/proposal-rules.js';

/** The dashboard's trusted documents, written by `npm run codegen` next to its typed documents (the same path from src/ and dist/). */
const DASHBOARD_MANIFEST = fileURLToPath(new URL('../web/gql/persisted-documents.json', import.meta.url));

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const schema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  DATABASE_URL: z.string().min(1).default(DEFAULT_DATABASE_URL),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  PG_WRITE_MODE: z.enum(WRITE_MODES).default('serialized'),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  SQLITE_BUSY_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  POSTGRES_UNAVAILABLE_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(2_000),
  POSTGRES_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  SQLITE_SYNCHRONOUS: z.enum(['NORMAL', 'FULL']).default('NORMAL'),
  GRAPHIQL: z.enum(['true', 'false']).default('true'),
  PERSISTED_OPERATIONS: z.enum(['off', 'allow', 'require']).default('allow'),
  /** Comma-separated manifest files (codegen's persisted-documents.json); empty: the dashboard's own. */
  PERSISTED_OPERATIONS_MANIFESTS: z.string().default(''),
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
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(0).max(1_000_000).default(1_024),
  METRICS_PUBLIC: z.enum(['true', 'false']).default('false'),
  INTROSPECTION: z.enum(['true', 'false']).default('true'),
  CORS_ORIGINS: z.string().optional(),
  NODE_ENV: z.string().optional(),
  BOOTSTRAP_ADMIN_KEY: z.enum(['true', 'false']).default('true'),
  RATE_LIMIT_PER_SECOND: z.coerce.number().min(0).max(100_000).default(50),
  RATE_LIMIT_BURST: z.coerce.number().int().min(1).max(100_000).default(100),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  JWT_PUBLIC_KEY: z.string().includes('-----BEGIN PUBLIC KEY-----', { message: 'must be a PEM public key (SPKI)' }).optional(),
  JWT_ALGORITHM: z.enum(['HS256', 'RS256', 'ES256']).optional(),
  JWT_ISSUER: z.string().min(1).optional(),
  JWT_AUDIENCE: z.string().min(1).optional(),
  JWT_NAME_CLAIM: z.string().min(1).default('sub'),
  JWT_ROLES_CLAIM: z.string().min(1).default('roles'),
  JWT_CLOCK_TOLERANCE_SECONDS: z.coerce.number().int().min(0).max(300).default(5),
  APPROVAL_POLICIES: z.string().optional(),
  PROPOSAL_ACTIONS: z.string().optional(),
  TARGET_STATE_REPORTERS: z.string().optional(),
  SUBSCRIPTIONS_PER_CONNECTION: z.coerce.number().int().min(1).max(100_000).default(100),
  SUBSCRIPTIONS_PER_PRINCIPAL: z.coerce.number().int().min(1).max(1_000_000).default(500),
  WEBHOOKS: z.string().optional(),
  PROPOSAL_SENSITIVE_FIELDS: z.string().optional(),
  PROPOSAL_ESCALATION: z.string().optional(),
});

/** During development a page served from this machine (a dev server on any port) may call the API. */
const DEVELOPMENT_CORS_ORIGINS = ['http://localhost:*', 'http://127.0.0.1:*'];

/**
 * CORS_ORIGINS: comma-separated origins (`https://app.example.com`, `http://localhost:*` for any port).
 * Unset, no other origin may call the API, except this machine's when NODE_ENV is development.
 */
function corsOrigins(text: string | undefined, nodeEnv: string | undefined): string[] {
  if (text === undefined) return nodeEnv === 'development' ? DEVELOPMENT_CORS_ORIGINS : [];
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map(corsOrigin);
}

/** `https://app.example.com/` → `https://app.example.com`, as browsers send it; `http://localhost:*` stays. */
function corsOrigin(entry: string): string {
  const anyPort = entry.endsWith(':*');
  const text = anyPort ? entry.slice(0, -2) : entry;
  const url = URL.canParse(text) ? new URL(text) : null;
  if (!url || !/^https?:$/.test(url.protocol) || url.pathname !== '/' || url.search || url.hash || url.username || (anyPort && url.port)) {
    throw new ConfigError(
      `Invalid configuration: CORS_ORIGINS: "${entry}" is not an origin (http(s)://host[:port], or http(s)://host:* for any port)`,
    );
  }
  return anyPort ? `${url.origin}:*` : url.origin;
}

export interface Config {
  host: string;
  port: number;
  /** Where the data lives: a SQLite file, or a PostgreSQL database. */
  database: DatabaseLocation;
  /** PostgreSQL only: reader connections per process (besides one writer and one LISTEN connection). */
  databasePoolSize: number;
  /** PostgreSQL: PG_WRITE_MODE (decision 0009). */
  writeMode: WriteMode;
  logLevel: (typeof LOG_LEVELS)[number];
  busyTimeoutMs: number;
  /** PostgreSQL only: how long, in all, a write waits for an unreachable server to come back before DATABASE_UNAVAILABLE. */
  unavailableWaitMs: number;
  /** PostgreSQL: the longest one connection attempt may take. */
  connectTimeoutMs: number;
  synchronous: 'NORMAL' | 'FULL';
  graphiql: boolean;
  /** Trusted documents: the mode, and the manifests' files (the dashboard's first). */
  persistedOperations: { mode: 'off' | 'allow' | 'require'; manifests: string[] };
  /** Serve Prometheus metrics at GET /metrics (without authentication); otherwise it answers 404. */
  metrics: boolean;
  /** Largest accepted request body; 500 items with 1000-character reasons in UTF-8 fit in the default 2 MiB. */
  maxBodyBytes: number;
  /** How long before a lease lapses its holder is warned (EXPIRING). */
  leaseWarningSeconds: number;
  /** How often to look for changes committed by other processes. */
  feedPollMs: number;
  shutdownTimeoutMs: number;
  /** Slow or idle clients may not hold connections (see src/http/listener.ts). */
  connectionLimits: ConnectionLimits;
  /** Serve /metrics without a credential (for scrapers that cannot send one). */
  metricsPublic: boolean;
  /** Answer introspection queries (authenticated callers only, like every operation). */
  introspection: boolean;
  /** Origins whose web pages may call the API from a browser (CORS); `scheme://host:*` allows any port. */
  corsOrigins: readonly string[];
  /** On a database that has never had an API key, make an ADMIN key at start-up and print it once. */
  bootstrapAdminKey: boolean;
  /** Mutations per second per principal (token bucket, per process); 0 turns the limit off. */
  rateLimit: { perSecond: number; burst: number };
  /** Signed tokens from an identity provider; null when none is configured. */
  jwt: JwtConfig | null;
  /** Approval policy per risk level for action proposals. */
  approvalPolicies: Policies;
  /** Risk floors per action (PROPOSAL_ACTIONS) and who may report each target system's state (TARGET_STATE_REPORTERS). */
  proposalRules: ProposalRules;
  /** Open subscriptions per WebSocket connection, and per principal in this process over every transport. */
  subscriptionLimits: { perConnection: number; perPrincipal: number };
  /** Outbound webhooks (WEBHOOKS); none by default. Their secrets are never logged. */
  webhooks: readonly WebhookConfig[];
  /** Parts of proposals shown as "[masked]" to principals without SENSITIVE_READER (PROPOSAL_SENSITIVE_FIELDS); none by default. */
  sensitiveFields: SensitivePaths;
  /** Automatic escalation of PENDING proposals past an age and of OUTCOME_UNKNOWN ones (PROPOSAL_ESCALATION); none by default. */
  proposalEscalation: EscalationPolicy | null;
}

export interface ConnectionLimits {
  /** A request's headers must all arrive within this, from the connection's start (slowloris). */
  headersTimeoutMs: number;
  /** A request, headers and body, must all arrive within this (a body sent a byte at a time). */
  requestTimeoutMs: number;
  /** Open connections from one address; 0 for no limit (behind a proxy every client has the proxy's address). */
  perAddress: number;
}

export interface JwtConfig {
  algorithm: 'HS256' | 'RS256' | 'ES256';
  /** The HS256 secret, or the RS256/ES256 public key as PEM. */
  key: string;
  issuer: string | null;
  audience: string | null;
  /** Claim holding the principal's name (dots reach into nested objects). */
  nameClaim: string;
  /** Claim holding the roles: an array or a space-separated string (dots reach into nested objects). */
  rolesClaim: string;
  clockToleranceSeconds: number;
}

function jwtConfig(values: z.infer<typeof schema>): JwtConfig | null {
  if (values.JWT_SECRET && values.JWT_PUBLIC_KEY)
    throw new ConfigError('Invalid configuration: set JWT_SECRET or JWT_PUBLIC_KEY, not both');
  const key = values.JWT_SECRET ?? values.JWT_PUBLIC_KEY;
  if (!key) {
    if (values.JWT_ALGORITHM) throw new ConfigError('Invalid configuration: JWT_ALGORITHM needs JWT_SECRET or JWT_PUBLIC_KEY');
    return null;
  }
  const algorithm = values.JWT_ALGORITHM ?? (values.JWT_SECRET ? 'HS256' : 'RS256');
  if ((algorithm === 'HS256') !== Boolean(values.JWT_SECRET)) {
    throw new ConfigError('Invalid configuration: HS256 takes JWT_SECRET; RS256 and ES256 take JWT_PUBLIC_KEY');
  }
  return {
    algorithm,
    key,
    issuer: values.JWT_ISSUER ?? null,
    audience: values.JWT_AUDIENCE ?? null,
    nameClaim: values.JWT_NAME_CLAIM,
    rolesClaim: values.JWT_ROLES_CLAIM,
    clockToleranceSeconds: values.JWT_CLOCK_TOLERANCE_SECONDS,
  };
}

function connectionLimits(values: z.infer<typeof schema>): ConnectionLimits {
  if (values.HTTP_HEADERS_TIMEOUT_MS > values.HTTP_REQUEST_TIMEOUT_MS) {
    throw new ConfigError('Invalid configuration: HTTP_HEADERS_TIMEOUT_MS must not be longer than HTTP_REQUEST_TIMEOUT_MS');
  }
  return {
    headersTimeoutMs: values.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: values.HTTP_REQUEST_TIMEOUT_MS,
    perAddress: values.MAX_CONNECTIONS_PER_ADDRESS,
  };
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
    database: databaseLocation(values.DATABASE_URL),
    databasePoolSize: values.DATABASE_POOL_SIZE,
    writeMode: values.PG_WRITE_MODE,
    logLevel: values.LOG_LEVEL,
    busyTimeoutMs: values.SQLITE_BUSY_TIMEOUT_MS,
    unavailableWaitMs: values.POSTGRES_UNAVAILABLE_WAIT_MS,
    connectTimeoutMs: values.POSTGRES_CONNECT_TIMEOUT_MS,
    synchronous: values.SQLITE_SYNCHRONOUS,
    graphiql: values.GRAPHIQL === 'true',
    persistedOperations: {
      mode: values.PERSISTED_OPERATIONS,
      manifests: [
        DASHBOARD_MANIFEST,
        ...values.PERSISTED_OPERATIONS_MANIFESTS.split(',')
          .map((file) => file.trim())
          .filter((file) => file !== ''),
      ],
    },
    metrics: values.METRICS === 'true',
    maxBodyBytes: values.MAX_BODY_BYTES,
    leaseWarningSeconds: values.LEASE_WARNING_SECONDS,
    feedPollMs: values.FEED_POLL_MS,
    shutdownTimeoutMs: values.SHUTDOWN_TIMEOUT_MS,
    connectionLimits: connectionLimits(values),
    metricsPublic: values.METRICS_PUBLIC === 'true',
    introspection: values.INTROSPECTION === 'true',
    corsOrigins: corsOrigins(values.CORS_ORIGINS, values.NODE_ENV),
    bootstrapAdminKey: values.BOOTSTRAP_ADMIN_KEY === 'true',
    rateLimit: { perSecond: values.RATE_LIMIT_PER_SECOND, burst: values.RATE_LIMIT_BURST },
    jwt: jwtConfig(values),
    approvalPolicies: approvalPolicies(values.APPROVAL_POLICIES),
    proposalRules: proposalRules(values.PROPOSAL_ACTIONS, values.TARGET_STATE_REPORTERS),
    subscriptionLimits: { perConnection: values.SUBSCRIPTIONS_PER_CONNECTION, perPrincipal: values.SUBSCRIPTIONS_PER_PRINCIPAL },
    webhooks: webhooksConfig(values.WEBHOOKS),
    sensitiveFields: sensitiveFieldsConfig(values.PROPOSAL_SENSITIVE_FIELDS),
    proposalEscalation: escalationConfig(values.PROPOSAL_ESCALATION),
  };
}
