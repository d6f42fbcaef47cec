// The GraphQL HTTP handler: Yoga with the schema, GraphiQL, the error convention, and every plugin
// Leasehold runs on HTTP requests and (through the envelop) on WebSocket operations, in order.
import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import { GraphQLError } from 'graphql';
import { createYoga, type YogaLogger, type YogaServerInstance } from 'graphql-yoga';
import type { Authenticator } from '../auth/authenticator.js';
import { FAILED_AUTHENTICATION_LIMIT, failedAuthenticationLimit } from '../auth/failed-authentications.js';
import { authentication, mutationAuthorization, mutationRateLimit } from '../auth/plugins.js';
import { RateLimiter } from '../auth/rate-limit.js';
import { REFUSAL_RATE_LIMIT, refusalRateLimit } from '../auth/refusal-limit.js';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import type { WriteHealth } from '../db/write-health.js';
import type { Principal } from '../domain/access.js';
import type { Clock } from '../domain/clock.js';
import { NO_SENSITIVE_PATHS } from '../domain/masking.js';
import { DEFAULT_POLICIES } from '../domain/proposal.js';
import { DEFAULT_PROPOSAL_RULES } from '../domain/proposal-rules.js';
import type { Live } from '../events/live.js';
import { FIELD_PERMISSIONS } from '../graphql/builder.js';
import type { GraphQLContext } from '../graphql/context.js';
import { toClientError } from '../graphql/errors.js';
import { listVariables } from '../graphql/list-limits.js';
import { schema } from '../graphql/schema.js';
import { sharedSubscriptions } from '../graphql/shared-subscriptions.js';
import { TUTORIAL_DOCUMENT } from '../graphql/tutorial.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import { REFUSAL_WINDOW, RefusalLog } from '../services/refusals.js';
import { webPages } from '../web-pages.js';
import { type BodyChecks, offThreadBodyChecks } from './body-checks.js';
import { clientErrors } from './client-errors.js';
import { crossOrigin } from './cors.js';
import { credentialStreams } from './credential-streams.js';
import { CSRF_HEADER, csrfPrevention } from './csrf.js';
import { hideFieldSuggestions } from './field-suggestions.js';
import { renderGraphiQLPage } from './graphiql-page.js';
import { landingPage } from './landing-page.js';
import { metricsEndpoint } from './metrics-endpoint.js';
import { operationContext } from './operation-context.js';
import { type Manifest, type PersistedOperationsMode, persistedOperations } from './persisted-operations.js';
import { readiness } from './readiness.js';
import { requestIds } from './request-ids.js';
import { bodyLimit, queryLimits, requestShape } from './request-limits.js';

export type GraphQLYoga = YogaServerInstance<Record<string, unknown>, GraphQLContext>;

export interface GraphQLYogaOptions {
  db: Database;
  clock: Clock;
  logger: Logger;
  live: Live;
  authenticator: Authenticator;
  /** Null when metrics are off: /metrics is then an ordinary 404. */
  metrics: Metrics | null;
  config: Pick<Config, 'graphiql' | 'maxBodyBytes'> &
    Partial<
      Pick<
        Config,
        'metricsPublic' | 'introspection' | 'rateLimit' | 'approvalPolicies' | 'proposalRules' | 'corsOrigins' | 'sensitiveFields'
      >
    >;
  /** True once the app is stopping: /ready answers 503 from then on. */
  stopping: () => boolean;
  /** The outcome of this instance's writes: /ready answers 503 while they fail. */
  writeHealth?: WriteHealth;
  /** Failed authentications per address, shared with the WebSocket server (default: one of its own). */
  failedAuthentications?: RateLimiter;
  /** Where large bodies are checked before they are parsed (none: every body is parsed on the event loop). */
  bodyChecks?: BodyChecks;
  /** Trusted documents (see persisted-operations.ts); default: off. */
  persisted?: { mode: PersistedOperationsMode; manifest: Manifest };
}

export function createGraphQLYoga(options: GraphQLYogaOptions): GraphQLYoga {
  const { db, clock, logger, live, authenticator, metrics, config, stopping, writeHealth } = options;
  const ids = new WeakMap<Request, string>();
  const principals = new WeakMap<Request, Principal>();
  const limiter = new RateLimiter(config.rateLimit ?? { perSecond: 50, burst: 100 }, clock);
  const policies = config.approvalPolicies ?? DEFAULT_POLICIES;
  const proposalRules = config.proposalRules ?? DEFAULT_PROPOSAL_RULES;
  const sensitiveFields = config.sensitiveFields ?? NO_SENSITIVE_PATHS;
  // Turning the rate limit off (RATE_LIMIT_PER_SECOND=0) turns the refusals' limits off too: each is then its own row.
  const limitRefusals = limiter.enabled;
  const refusalLog = new RefusalLog({ db, clock, logger }, limitRefusals ? REFUSAL_WINDOW : null);
  const refusalLimiter = new RateLimiter(limitRefusals ? REFUSAL_RATE_LIMIT : { perSecond: 0, burst: 0 }, clock);
  return createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    healthCheckEndpoint: '/health',
    landingPage: false,
    // crossOrigin below, with the allowlist; Yoga's own CORS would let every origin in.
    cors: false,
    // Subscriptions from GraphiQL go over SSE: its WebSocket client sends no Headers-pane values
    // (so no credential), while SSE requests carry them like every other request. It sends them as GETs,
    // which the CSRF check below refuses without its header: GraphiQL adds it to every request (the page is
    // ours, so the header proves what it is meant to, that the request was not a bare cross-site one).
    graphiql: config.graphiql
      ? {
          title: 'Leasehold',
          defaultQuery: TUTORIAL_DOCUMENT,
          subscriptionsProtocol: 'SSE',
          additionalHeaders: { [CSRF_HEADER]: 'graphiql' },
        }
      : false,
    renderGraphiQL: renderGraphiQLPage,
    // Errors outside execution (e.g. while building the context) have no request id at hand.
    maskedErrors: { maskError: (error) => toClientError(error, 'none', logger) },
    logging: yogaLogging(logger),
    context: operationContext({
      db,
      clock,
      live,
      logger,
      authenticator,
      policies,
      proposalRules,
      sensitiveFields,
      ids,
      principals,
      refusalLog,
      refusalLimiter,
    }),
    plugins: [
      requestIds(logger, ids),
      crossOrigin(config.corsOrigins ?? []),
      webPages(logger, undefined, options.persisted?.mode),
      landingPage({ graphiql: config.graphiql }),
      authentication({
        authenticator,
        principals,
        logger,
        protectedPaths: new Set(['/graphql']),
        graphiql: config.graphiql,
        failedAuthenticationLimit: failedAuthenticationLimit(
          options.failedAuthentications ?? new RateLimiter(FAILED_AUTHENTICATION_LIMIT, clock),
        ),
      }),
      bodyLimit(config.maxBodyBytes),
      ...(options.bodyChecks ? [offThreadBodyChecks(options.bodyChecks)] : []),
      requestShape(),
      ...(options.persisted ? persistedOperations(options.persisted.mode, options.persisted.manifest, principals) : []),
      csrfPrevention(logger),
      queryLimits(),
      // A variable holding a huge list is refused before graphql-js coerces it (src/graphql/list-limits.ts).
      listVariables(),
      ...(config.introspection === false ? [useDisableIntrospection(), hideFieldSuggestions()] : []),
      // Before the authorization, whose refusals it limits.
      refusalRateLimit(refusalLimiter, (context) => (context as GraphQLContext).principal ?? null),
      // Refusals still only counted reach the history on a graceful stop too.
      { onDispose: () => refusalLog.flush() },
      mutationAuthorization(
        (field) => FIELD_PERMISSIONS.get(`Mutation.${field}`),
        (context) => context as GraphQLContext,
      ),
      mutationRateLimit(limiter, (context) => (context as GraphQLContext).principal ?? null),
      clientErrors(),
      sharedSubscriptions(),
      credentialStreams(authenticator),
      ...(metrics ? [metricsEndpoint(metrics, logger, config.metricsPublic ? null : authenticator)] : []),
      readiness(db, logger, stopping, writeHealth ?? null),
    ],
  });
}

/** Yoga's own log lines through the app's logger; a client's mistake Yoga refuses itself (4xx) is not a server error. */
function yogaLogging(logger: Logger): YogaLogger {
  const loggedRefusals = new WeakSet<GraphQLError>();
  return {
    debug: (...args) => logger.debug({ args }, 'yoga'),
    info: (...args) => logger.info({ args }, 'yoga'),
    warn: (...args) => logger.warn({ args }, 'yoga'),
    error: (...args) => {
      // Yoga's and graphql-armor's own refusals (syntax, limits) are GraphQLErrors with no cause behind them.
      const refusal = args.find(
        (arg): arg is GraphQLError =>
          arg instanceof GraphQLError &&
          ((arg.extensions.http as { status?: number } | undefined)?.status ?? (arg.originalError == null ? 400 : 500)) < 500,
      );
      if (refusal) {
        // Yoga reports such an error from more than one place (e.g. a missing CSRF header); one line per refusal is enough.
        if (!loggedRefusals.has(refusal)) logger.info({ reason: refusal.message }, 'refused a request');
        loggedRefusals.add(refusal);
      } else logger.error({ args }, 'yoga');
    },
  };
}
