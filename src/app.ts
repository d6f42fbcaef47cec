// createApp: the HTTP server with GraphQL, GraphiQL, health and readiness, wired once.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { type ExecutionArgs, type ExecutionResult, GraphQLError } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { createYoga, type Plugin, useReadinessCheck } from 'graphql-yoga';
import { type WebSocket, WebSocketServer } from 'ws';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import type { Clock } from './domain/clock.js';
import { Live } from './events/live.js';
import { actorResolver, type ConnectionScope, type GraphQLContext } from './graphql/context.js';
import { toClientError } from './graphql/errors.js';
import { schema } from './graphql/schema.js';
import { TUTORIAL_DOCUMENT } from './graphql/tutorial.js';
import type { Logger } from './logger.js';
import { Metrics } from './metrics.js';
import { releaseLease } from './services/leases.js';

export interface AppOptions {
  db: Database;
  clock: Clock;
  config: Pick<Config, 'host' | 'port' | 'graphiql' | 'shutdownTimeoutMs' | 'maxBodyBytes'> &
    Partial<Pick<Config, 'leaseWarningSeconds' | 'feedPollMs' | 'metrics'>>;
  logger: Logger;
}

export interface App {
  readonly server: Server;
  readonly live: Live;
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

/** GET /metrics: the Prometheus text exposition. Without this plugin the path is an ordinary 404. */
function metricsEndpoint(metrics: Metrics, logger: Logger): Plugin {
  return {
    async onRequest({ url, request, endResponse, fetchAPI }) {
      if (url.pathname !== '/metrics') return;
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
        onExecuteDone({ result, setResult }) {
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

/** Leases claimed over one WebSocket with releaseOnDisconnect, released when it closes. */
class ConnectionLeases implements ConnectionScope {
  readonly tokens = new Set<string>();
  bindLease(token: string): void {
    this.tokens.add(token);
  }
}

export function createApp(options: AppOptions): App {
  const { db, clock, config, logger } = options;
  const ids = new WeakMap<Request, string>();
  let stopping = false;
  const live = new Live({
    db,
    clock,
    logger,
    leaseWarningMs: (config.leaseWarningSeconds ?? 60) * 1000,
    pollIntervalMs: config.feedPollMs,
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
    graphiql: config.graphiql ? { title: 'Leasehold', defaultQuery: TUTORIAL_DOCUMENT, subscriptionsProtocol: 'WS' } : false,
    renderGraphiQL,
    // Errors outside execution (e.g. while building the context) have no request id at hand.
    maskedErrors: { maskError: (error) => toClientError(error, 'none', logger) },
    logging: {
      debug: (...args) => logger.debug({ args }, 'yoga'),
      info: (...args) => logger.info({ args }, 'yoga'),
      warn: (...args) => logger.warn({ args }, 'yoga'),
      error: (...args) => logger.error({ args }, 'yoga'),
    },
    context: ({ request, connection }) => {
      const requestId = (request && ids.get(request)) ?? randomUUID();
      return {
        db,
        clock,
        live,
        requestId,
        logger: logger.child({ requestId }),
        actor: actorResolver(request?.headers),
        connection: (connection as ConnectionScope | undefined) ?? null,
      };
    },
    plugins: [
      requestIds(logger, ids),
      bodyLimit(config.maxBodyBytes),
      queryLimits(),
      clientErrors(),
      ...(metrics ? [metricsEndpoint(metrics, logger)] : []),
      useReadinessCheck({
        endpoint: '/ready',
        check: async () => {
          if (stopping) return false;
          await db.read.$queryRawUnsafe('SELECT 1');
          return true;
        },
      }),
    ],
  });

  const server = createServer(yoga);

  // graphql-ws on the same port and path, through Yoga's envelop so every plugin applies to it too.
  const sockets = new WebSocketServer({ server, path: '/graphql' });
  const scopes = new WeakMap<WebSocket, ConnectionLeases>();
  const wsServer = useServer(
    {
      execute: (args) => (args.rootValue as { execute(a: ExecutionArgs): unknown }).execute(args) as never,
      subscribe: (args) => (args.rootValue as { subscribe(a: ExecutionArgs): unknown }).subscribe(args) as never,
      onConnect: (ctx) => {
        scopes.set(ctx.extra.socket, new ConnectionLeases());
        return true;
      },
      onSubscribe: async (ctx, _id, params) => {
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
          connection: scopes.get(ctx.extra.socket),
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
        for (const token of scope.tokens) {
          // Already decided, released or lapsed leases are refused; that is fine here.
          await releaseLease({ db, clock }, { name: 'system' }, { token, reason: 'CONNECTION_CLOSED' }).catch(() => undefined);
        }
        scope.tokens.clear();
      },
    },
    sockets,
  );

  return {
    server,
    live,
    start: () =>
      new Promise((resolve, reject) => {
        live.start();
        server.once('error', reject);
        server.listen(config.port, config.host, () => {
          server.off('error', reject);
          const address = server.address() as AddressInfo;
          const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve(`http://${host}:${address.port}`);
        });
      }),
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
      live.stop();
      await db.close();
    },
  };
}
