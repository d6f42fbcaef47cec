// createApp: the HTTP server with GraphQL, GraphiQL, the dashboard, health and readiness, wired once.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { type ExecutionArgs, type ExecutionResult, GraphQLError } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { createGraphQLError, createYoga, type Plugin, useReadinessCheck } from 'graphql-yoga';
import { type WebSocket, WebSocketServer } from 'ws';
import { AuthenticationError, Authenticator } from './auth/authenticator.js';
import { authentication, mutationAuthorization, mutationRateLimit, unauthenticatedResponse } from './auth/plugins.js';
import { RateLimiter } from './auth/rate-limit.js';
import type { Config } from './config.js';
import { dashboard } from './dashboard.js';
import type { Database } from './db/client.js';
import type { Principal } from './domain/access.js';
import type { Clock, Timer } from './domain/clock.js';
import type { DomainError } from './domain/errors.js';
import { DEFAULT_POLICIES } from './domain/proposal.js';
import { Live } from './events/live.js';
import { FIELD_PERMISSIONS } from './graphql/builder.js';
import type { ConnectionScope, GraphQLContext } from './graphql/context.js';
import { toClientError } from './graphql/errors.js';
import { schema } from './graphql/schema.js';
import { TUTORIAL_DOCUMENT } from './graphql/tutorial.js';
import type { Logger } from './logger.js';
import { Metrics } from './metrics.js';
import { releaseLease } from './services/leases.js';
import { recordRefusal } from './services/refusals.js';

export interface AppOptions {
  db: Database;
  clock: Clock;
  config: Pick<Config, 'host' | 'port' | 'graphiql' | 'shutdownTimeoutMs' | 'maxBodyBytes'> &
    Partial<
      Pick<
        Config,
        'leaseWarningSeconds' | 'feedPollMs' | 'metrics' | 'metricsPublic' | 'introspection' | 'rateLimit' | 'jwt' | 'approvalPolicies'
      >
    >;
  logger: Logger;
}

export interface App {
  readonly server: Server;
  readonly live: Live;
  readonly authenticator: Authenticator;
  /** Resolves to the base URL (http://host:port) once listening. */
  start(): Promise<string>;
  /** Stops accepting requests, lets in-flight ones finish (up to the shutdown timeout), then closes the database. */
  stop(): Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Request ids: the caller's X-Request-Id when it is sane, otherwise a new UUID. Echoed in the
 * response header and on every log line of the request.
 */
function requestIds(logger: Logger, ids: WeakMap<Request, string>): Plugin {
  const started = new WeakMap<Request, number>();
  const idOf = (request: Request): string => {
    let id = ids.get(request);
    if (id === undefined) {
      const given = request.headers.get('x-request-id');
      id = given && REQUEST_ID.test(given) ? given : randomUUID();
      ids.set(request, id);
    }
    return id;
  };
  return {
    onRequest({ request }) {
      idOf(request);
      started.set(request, performance.now());
    },
    onResponse({ request, response }) {
      // Built-in endpoints such as /health answer before onRequest runs, so the id may be made here.
      const requestId = idOf(request);
      response.headers.set('x-request-id', requestId);
      const begun = started.get(request);
      logger.info(
        {
          requestId,
          method: request.method,
          path: new URL(request.url).pathname,
          status: response.status,
          durationMs: begun === undefined ? undefined : Math.round((performance.now() - begun) * 100) / 100,
        },
        'request',
      );
    },
  };
}

/**
 * Refuses request bodies over the limit before reading them. A POST must state its length, so a
 * chunked upload cannot slip past the check.
 */
function bodyLimit(maxBytes: number): Plugin {
  return {
    onRequest({ request, endResponse, fetchAPI }) {
      if (request.method !== 'POST') return;
      const declared = request.headers.get('content-length');
      const refuse = (status: number, code: string, message: string) =>
        endResponse(
          new fetchAPI.Response(JSON.stringify({ errors: [{ message, extensions: { code } }] }), {
            status,
            headers: { 'content-type': 'application/json; charset=utf-8' },
          }),
        );
      if (declared === null) {
        refuse(411, 'LENGTH_REQUIRED', 'Send a Content-Length header with the request body.');
      } else if (!/^\d+$/.test(declared) || Number(declared) > maxBytes) {
        refuse(413, 'PAYLOAD_TOO_LARGE', `The request body must be at most ${maxBytes} bytes.`);
      }
    },
  };
}

/** The longest GraphQL document accepted: far above any real one, and it bounds the parse cache (1,024 entries). */
export const MAX_DOCUMENT_CHARS = 64 * 1024;

function isJsonObjectText(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * The request's shape, before Yoga reads it: GET parameters `variables` and `extensions` must be JSON
 * objects (Yoga would throw an unexpected SyntaxError), and the document must not be longer than
 * MAX_DOCUMENT_CHARS (a single huge string literal is one token, so the token limit does not bound it).
 */
function requestShape(): Plugin {
  const refusal = (message: string, status: number, code: string) =>
    createGraphQLError(message, { extensions: { code, http: { status } } });
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (request.method !== 'GET' || url.pathname !== '/graphql') return;
      for (const name of ['variables', 'extensions']) {
        const text = url.searchParams.get(name);
        if (text !== null && !isJsonObjectText(text)) {
          endResponse(
            new fetchAPI.Response(
              JSON.stringify({
                errors: [{ message: `The ${name} parameter must be a JSON object.`, extensions: { code: 'BAD_REQUEST' } }],
              }),
              {
                status: 400,
                headers: { 'content-type': 'application/json; charset=utf-8' },
              },
            ),
          );
          return;
        }
      }
    },
    onParams({ params }) {
      if (typeof params.query === 'string' && params.query.length > MAX_DOCUMENT_CHARS) {
        throw refusal(`The GraphQL document must be at most ${MAX_DOCUMENT_CHARS} characters.`, 413, 'PAYLOAD_TOO_LARGE');
      }
    },
  };
}

/**
 * GET /metrics: the Prometheus text exposition, for any authenticated principal unless made public.
 * Without this plugin the path is an ordinary 404.
 */
function metricsEndpoint(metrics: Metrics, logger: Logger, authenticator: Authenticator | null): Plugin {
  return {
    async onRequest({ url, request, endResponse, fetchAPI }) {
      if (url.pathname !== '/metrics') return;
      if (authenticator) {
        try {
          await authenticator.authenticate(request.headers.get('authorization'));
        } catch (error) {
          if (!(error instanceof AuthenticationError)) throw error;
          endResponse(unauthenticatedResponse(fetchAPI, error.message));
          return;
        }
      }
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        endResponse(new fetchAPI.Response(null, { status: 405, headers: { allow: 'GET, HEAD' } }));
        return;
      }
      try {
        endResponse(new fetchAPI.Response(await metrics.render(), { headers: { 'content-type': metrics.contentType } }));
      } catch (error) {
        logger.error({ err: error }, 'could not collect metrics');
        endResponse(new fetchAPI.Response('metrics unavailable\n', { status: 503, headers: { 'content-type': 'text/plain' } }));
      }
    },
  };
}

/**
 * Abuse limits on every operation, HTTP and WebSocket alike (checked before execution): the deepest
 * legitimate query (an item's history through a subscription) is about 6 levels deep.
 */
export const QUERY_LIMITS = { maxDepth: 12, maxAliases: 20, maxTokens: 5_000, maxDirectives: 20 } as const;

function queryLimits(): Plugin {
  return EnvelopArmorPlugin({
    maxDepth: { n: QUERY_LIMITS.maxDepth, ignoreIntrospection: true, exposeLimits: true },
    maxAliases: { n: QUERY_LIMITS.maxAliases, exposeLimits: true },
    maxTokens: { n: QUERY_LIMITS.maxTokens, exposeLimits: true },
    maxDirectives: { n: QUERY_LIMITS.maxDirectives, exposeLimits: true },
    // armor's static cost model does not know page sizes; depth, aliases and tokens bound the work instead.
    costLimit: { enabled: false },
    // Field suggestions stay on: GraphiQL users are operators exploring the schema.
    blockFieldSuggestion: { enabled: false },
  }) as Plugin;
}

/** Applies the error convention to every execution result, where the request's id is known. */
function clientErrors(): Plugin<GraphQLContext> {
  const clean = (result: ExecutionResult, context: GraphQLContext): ExecutionResult | undefined =>
    result.errors?.length
      ? { ...result, errors: result.errors.map((error) => toClientError(error, context.requestId, context.logger)) }
      : undefined;
  return {
    onExecute({ args }) {
      return {
        async onExecuteDone({ result, setResult }) {
          // A refusal the caller is told about is in the history first.
          await args.contextValue.refusalsRecorded();
          if (Symbol.asyncIterator in result) return;
          const cleaned = clean(result, args.contextValue);
          if (cleaned) setResult(cleaned);
        },
      };
    },
    onSubscribe({ args }) {
      return {
        onSubscribeResult({ result, setResult }) {
          if (!(Symbol.asyncIterator in result)) {
            const cleaned = clean(result, args.contextValue);
            if (cleaned) setResult(cleaned);
            return;
          }
          return {
            onNext({ result: next, setResult: setNext }) {
              const cleaned = clean(next, args.contextValue);
              if (cleaned) setNext(cleaned);
            },
          };
        },
      };
    },
  };
}

/** One WebSocket's principal, and the leases claimed over it with releaseOnDisconnect (released when it closes). */
class Connection implements ConnectionScope {
  readonly tokens = new Set<string>();
  expiry: Timer | null = null;
  constructor(readonly principal: Principal) {}
  bindLease(token: string): void {
    this.tokens.add(token);
  }
}

/** WebSocket close codes: graphql-ws uses 4401/4403 for these. Reasons must fit in 123 bytes. */
const CLOSE_UNAUTHORIZED = 4401;
const CLOSE_FORBIDDEN = 4403;
const closeReason = (text: string) =>
  Buffer.from(text)
    .subarray(0, 123)
    .toString()
    .replace(/\uFFFD$/, '');

export function createApp(options: AppOptions): App {
  const { db, clock, config, logger } = options;
  const ids = new WeakMap<Request, string>();
  const principals = new WeakMap<Request, Principal>();
  const loggedRefusals = new WeakSet<GraphQLError>();
  const authenticator = new Authenticator({ db, clock, logger, jwt: config.jwt ?? null });
  const limiter = new RateLimiter(config.rateLimit ?? { perSecond: 50, burst: 100 }, clock);
  let stopping = false;
  const live = new Live({
    db,
    clock,
    logger,
    leaseWarningMs: (config.leaseWarningSeconds ?? 60) * 1000,
    pollIntervalMs: config.feedPollMs,
    policies: config.approvalPolicies ?? DEFAULT_POLICIES,
  });
  // Open WebSocket connections are read at scrape time from `sockets`, made further down.
  const metrics: Metrics | null =
    (config.metrics ?? true) ? new Metrics({ live, clock, webSocketConnections: (): number => sockets.clients.size }) : null;
  if (metrics) live.feed.listen(metrics.onEvents);

  const yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    healthCheckEndpoint: '/health',
    landingPage: false,
    // Subscriptions from GraphiQL go over SSE: its WebSocket client sends no Headers-pane values
    // (so no credential), while SSE requests carry them like every other request.
    graphiql: config.graphiql ? { title: 'Leasehold', defaultQuery: TUTORIAL_DOCUMENT, subscriptionsProtocol: 'SSE' } : false,
    renderGraphiQL,
    // Errors outside execution (e.g. while building the context) have no request id at hand.
    maskedErrors: { maskError: (error) => toClientError(error, 'none', logger) },
    logging: {
      debug: (...args) => logger.debug({ args }, 'yoga'),
      info: (...args) => logger.info({ args }, 'yoga'),
      warn: (...args) => logger.warn({ args }, 'yoga'),
      // A client's mistake Yoga refuses itself (e.g. a missing CSRF header, 4xx) is not a server error.
      error: (...args) => {
        // Yoga's and graphql-armor's own refusals (syntax, limits) are GraphQLErrors with no cause behind them.
        const refusal = args.find(
          (arg): arg is GraphQLError =>
            arg instanceof GraphQLError &&
            ((arg.extensions.http as { status?: number } | undefined)?.status ?? (arg.originalError == null ? 400 : 500)) < 500,
        );
        if (refusal) {
          // Yoga reports such an error from more than one place; one line per refusal is enough.
          if (!loggedRefusals.has(refusal)) logger.info({ reason: refusal.message }, 'refused a request');
          loggedRefusals.add(refusal);
        } else logger.error({ args }, 'yoga');
      },
    },
    context: ({ request, connection }) => {
      const requestId = (request && ids.get(request)) ?? randomUUID();
      const principal = request ? principals.get(request) : (connection as Connection | undefined)?.principal;
      // The authentication plugin answers 401 before a context is made for an unknown caller.
      if (!principal) throw new Error('No principal for this operation: the authentication plugin did not run.');
      const requestLogger = logger.child({ requestId, principal: principal.name });
      const actor = { name: principal.name, authenticated: true };
      const refusals: Promise<void>[] = [];
      return {
        db,
        clock,
        live,
        requestId,
        logger: requestLogger,
        principal,
        actor,
        policies: config.approvalPolicies ?? DEFAULT_POLICIES,
        connection: (connection as ConnectionScope | undefined) ?? null,
        recordRefusal(operation: string, error: DomainError) {
          refusals.push(
            recordRefusal({ db, clock }, actor, operation, error).catch((failure: unknown) =>
              requestLogger.error({ err: failure, operation }, 'could not record a refused operation'),
            ),
          );
        },
        forgetApiKey: (keyId: number) => authenticator.forgetKey(keyId),
        async refusalsRecorded() {
          await Promise.all(refusals.splice(0));
        },
      };
    },
    plugins: [
      requestIds(logger, ids),
      dashboard(logger),
      authentication({ authenticator, principals, logger, protectedPaths: new Set(['/graphql']), graphiql: config.graphiql }),
      bodyLimit(config.maxBodyBytes),
      requestShape(),
      useCSRFPrevention({ requestHeaders: ['x-graphql-yoga-csrf'] }),
      queryLimits(),
      ...(config.introspection === false ? [useDisableIntrospection()] : []),
      mutationAuthorization(
        (field) => FIELD_PERMISSIONS.get(`Mutation.${field}`),
        (context) => context as GraphQLContext,
      ),
      mutationRateLimit(limiter, (context) => (context as GraphQLContext).principal ?? null),
      clientErrors(),
      ...(metrics ? [metricsEndpoint(metrics, logger, config.metricsPublic ? null : authenticator)] : []),
      useReadinessCheck({
        endpoint: '/ready',
        check: async () => {
          if (stopping) return false;
          try {
            await db.read.$queryRawUnsafe('SELECT 1');
            return true;
          } catch (error) {
            // The answer is a bare 503: the reason (hosts, users) belongs in the log, not the response.
            logger.warn({ err: error }, 'not ready: the database did not answer');
            return false;
          }
        },
      }),
    ],
  });

  const server = createServer(yoga);

  // graphql-ws on the same port and path, through Yoga's envelop so every plugin applies to it too.
  // A WebSocket message is held to the same size as an HTTP body.
  const sockets = new WebSocketServer({ server, path: '/graphql', maxPayload: config.maxBodyBytes });
  const scopes = new WeakMap<WebSocket, Connection>();
  const refuse = (socket: WebSocket, code: number, reason: string) => socket.close(code, closeReason(reason));
  const wsServer = useServer(
    {
      execute: (args) => (args.rootValue as { execute(a: ExecutionArgs): unknown }).execute(args) as never,
      subscribe: (args) => (args.rootValue as { subscribe(a: ExecutionArgs): unknown }).subscribe(args) as never,
      // The credential travels in connectionParams (browsers cannot set headers on a WebSocket).
      onConnect: async (ctx) => {
        const params = ctx.connectionParams ?? {};
        const authorization = params.authorization ?? params.Authorization;
        let principal: Principal;
        try {
          principal = await authenticator.authenticate(typeof authorization === 'string' ? authorization : null);
        } catch (error) {
          if (!(error instanceof AuthenticationError)) throw error;
          logger.info({ reason: error.message }, 'refused an unauthenticated WebSocket connection');
          refuse(ctx.extra.socket, CLOSE_UNAUTHORIZED, `Unauthorized: ${error.message}`);
          return false;
        }
        const connection = new Connection(principal);
        if (principal.expiresAt) {
          connection.expiry = clock.setTimer(principal.expiresAt, () =>
            refuse(ctx.extra.socket, CLOSE_UNAUTHORIZED, 'Unauthorized: the token has expired.'),
          );
        }
        scopes.set(ctx.extra.socket, connection);
        return true;
      },
      onSubscribe: async (ctx, _id, params) => {
        if (params.query.length > MAX_DOCUMENT_CHARS) {
          return [
            new GraphQLError(`The GraphQL document must be at most ${MAX_DOCUMENT_CHARS} characters.`, {
              extensions: { code: 'PAYLOAD_TOO_LARGE' },
            }),
          ];
        }
        const connection = scopes.get(ctx.extra.socket);
        if (!connection || !(await authenticator.stillValid(connection.principal))) {
          refuse(ctx.extra.socket, CLOSE_UNAUTHORIZED, 'Unauthorized: the credential is no longer valid.');
          return [new GraphQLError('The credential is no longer valid.', { extensions: { code: 'UNAUTHENTICATED' } })];
        }
        const {
          schema: enveloped,
          execute,
          subscribe,
          contextFactory,
          parse,
          validate,
        } = yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params,
          connection,
        });
        // A syntax error or a limit (parse- or validation-time) is this operation's error, not the connection's.
        try {
          const args: ExecutionArgs = {
            schema: enveloped,
            operationName: params.operationName,
            document: parse(params.query),
            variableValues: params.variables,
            contextValue: await contextFactory(),
            rootValue: { execute, subscribe },
          };
          const errors = validate(args.schema, args.document);
          return errors.length > 0 ? errors : args;
        } catch (error) {
          if (error instanceof GraphQLError) return [error];
          throw error;
        }
      },
      onClose: async (ctx) => {
        const scope = scopes.get(ctx.extra.socket);
        if (!scope) return;
        scope.expiry?.cancel();
        for (const token of scope.tokens) {
          // Already decided, released or lapsed leases are refused; that is fine here.
          await releaseLease({ db, clock }, { name: 'system', authenticated: false }, { token, reason: 'CONNECTION_CLOSED' }).catch(
            () => undefined,
          );
        }
        scope.tokens.clear();
      },
    },
    sockets,
  );

  // A revoked key ends the connections it opened, whichever process revoked it.
  live.feed.listen((events) => {
    for (const event of events) {
      if (event.type !== 'API_KEY_REVOKED') continue;
      const keyId = (JSON.parse(event.details) as { keyId?: number }).keyId;
      if (typeof keyId !== 'number') continue;
      authenticator.forgetKey(keyId);
      for (const socket of sockets.clients) {
        if (scopes.get(socket)?.principal.keyId === keyId) refuse(socket, CLOSE_FORBIDDEN, 'Forbidden: the API key was revoked.');
      }
    }
  });

  return {
    server,
    live,
    authenticator,
    async start() {
      // A JWT public key that does not parse is a configuration error: fail here, not on the first request.
      await authenticator.ready();
      await live.start();
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => {
          server.off('error', reject);
          const address = server.address() as AddressInfo;
          const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve(`http://${host}:${address.port}`);
        });
      });
    },
    async stop() {
      stopping = true;
      // Close subscriptions cleanly (1001 Going Away) so clients reconnect elsewhere.
      for (const socket of sockets.clients) socket.close(1001, 'Server shutting down');
      await wsServer.dispose();
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
      await closed;
      clearTimeout(timer);
      await yoga.dispose();
      await live.stop();
      await db.close();
    },
  };
}
