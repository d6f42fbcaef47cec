// createApp: the composition root. Builds the live side, the GraphQL handler and the WebSocket server
// on one HTTP server, and owns their start and graceful stop.
import { createServer, type Server } from 'node:http';
import { Authenticator } from './auth/authenticator.js';
import { FAILED_AUTHENTICATION_LIMIT } from './auth/failed-authentications.js';
import { RateLimiter } from './auth/rate-limit.js';
import { onKeyRevoked } from './auth/revocations.js';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { WriteHealth } from './db/write-health.js';
import type { Clock } from './domain/clock.js';
import { NO_SENSITIVE_PATHS } from './domain/masking.js';
import { DEFAULT_POLICIES } from './domain/proposal.js';
import { Live } from './events/live.js';
import { schema } from './graphql/schema.js';
import { limitSubscriptions } from './graphql/subscription-limits.js';
import { BodyChecks } from './http/body-checks.js';
import { closeGracefully, listen } from './http/listener.js';
import { loadManifests } from './http/persisted-operations.js';
import { createGraphQLYoga } from './http/yoga.js';
import type { Logger } from './logger.js';
import { Metrics } from './metrics.js';
import { WebhookDispatcher } from './notifications/webhooks.js';
import { serveGraphQLOverWebSocket } from './ws/server.js';

export interface AppOptions {
  db: Database;
  clock: Clock;
  config: Pick<Config, 'host' | 'port' | 'graphiql' | 'shutdownTimeoutMs' | 'maxBodyBytes'> &
    Partial<
      Pick<
        Config,
        | 'leaseWarningSeconds'
        | 'feedPollMs'
        | 'metrics'
        | 'metricsPublic'
        | 'introspection'
        | 'rateLimit'
        | 'jwt'
        | 'approvalPolicies'
        | 'proposalRules'
        | 'subscriptionLimits'
        | 'persistedOperations'
        | 'webhooks'
        | 'sensitiveFields'
        | 'proposalEscalation'
      >
    >;
  logger: Logger;
}

export interface App {
  readonly server: Server;
  readonly live: Live;
  readonly authenticator: Authenticator;
  /** Outbound webhooks (docs/webhooks.md); idle when none is configured. */
  readonly webhooks: WebhookDispatcher;
  /** Resolves to the base URL (http://host:port) once listening. */
  start(): Promise<string>;
  /** Stops accepting requests, lets in-flight ones finish (up to the shutdown timeout), then closes the database. */
  stop(): Promise<void>;
}

export function createApp(options: AppOptions): App {
  const { clock, config, logger } = options;
  // Every write the app makes goes through this, so /ready knows whether writes work.
  const writeHealth = new WriteHealth(options.db, { now: () => clock.now().getTime() });
  const db = writeHealth.database;
  let stopping = false;
  const authenticator = new Authenticator({ db, clock, logger, jwt: config.jwt ?? null });
  const live = new Live({
    db,
    clock,
    logger,
    leaseWarningMs: (config.leaseWarningSeconds ?? 60) * 1000,
    pollIntervalMs: config.feedPollMs,
    policies: config.approvalPolicies ?? DEFAULT_POLICIES,
    escalation: config.proposalEscalation ?? null,
  });
  if (config.subscriptionLimits) limitSubscriptions(live, config.subscriptionLimits);
  // Open WebSocket connections are read at scrape time from `webSockets`, made further down.
  const metrics: Metrics | null =
    (config.metrics ?? true) ? new Metrics({ live, clock, db, webSocketConnections: () => webSockets.connectionCount() }) : null;
  if (metrics) live.feed.observe(metrics.onEvents);

  // One allowance of failed authentications per address, whether they come over HTTP or WebSocket.
  const failedAuthentications = new RateLimiter(FAILED_AUTHENTICATION_LIMIT, clock);
  // Large bodies and WebSocket messages are checked on a worker thread before they are parsed (see body-checks.ts).
  const bodyChecks = new BodyChecks(schema, logger);
  // Trusted documents, the same on every transport (PERSISTED_OPERATIONS; off unless configured).
  const mode = config.persistedOperations?.mode ?? 'off';
  const persisted = { mode, manifest: loadManifests(mode === 'off' ? [] : (config.persistedOperations?.manifests ?? [])) };
  const yoga = createGraphQLYoga({
    db,
    clock,
    logger,
    live,
    authenticator,
    metrics,
    config,
    stopping: () => stopping,
    writeHealth,
    failedAuthentications,
    bodyChecks,
    persisted,
  });
  const server = createServer(yoga);
  const webSockets = serveGraphQLOverWebSocket({
    server,
    yoga,
    authenticator,
    db,
    clock,
    logger,
    maxMessageBytes: config.maxBodyBytes,
    failedAuthentications,
    bodyChecks,
    persisted,
  });

  // Fed by the history: an event committed here or by another process wakes it; nothing waits for it.
  const webhooks = new WebhookDispatcher({
    db,
    clock,
    logger,
    webhooks: config.webhooks ?? [],
    sensitiveFields: config.sensitiveFields ?? NO_SENSITIVE_PATHS,
  });
  live.feed.observe(webhooks.onEvents, { itemsAdded: webhooks.wantsItemsAdded });

  // A revoked key stops working at once, whichever process revoked it, and the connections it opened end.
  live.feed.observe(
    onKeyRevoked((keyId) => {
      authenticator.forgetKey(keyId);
      webSockets.closeConnectionsOf(keyId);
    }),
  );

  return {
    server,
    live,
    authenticator,
    webhooks,
    async start() {
      // A JWT public key that does not parse is a configuration error: fail here, not on the first request.
      await authenticator.ready();
      await live.start();
      webhooks.start();
      return listen(server, config.port, config.host);
    },
    async stop() {
      stopping = true;
      await webSockets.close();
      await closeGracefully(server, config.shutdownTimeoutMs);
      await yoga.dispose();
      await bodyChecks.close();
      // Sends under way are answered (within their timeout) and recorded before the database closes.
      await webhooks.stop();
      await live.stop();
      await db.close();
    },
  };
}
