// createApp: the HTTP server with GraphQL, GraphiQL, health and readiness, wired once.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { GraphQLError } from 'graphql';
import { createYoga, type Plugin, useReadinessCheck } from 'graphql-yoga';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import type { Clock } from './domain/clock.js';
import { DomainError } from './domain/errors.js';
import { actorResolver, type GraphQLContext } from './graphql/context.js';
import { schema } from './graphql/schema.js';
import { TUTORIAL_DOCUMENT } from './graphql/tutorial.js';
import { type Logger, requestScope } from './logger.js';

export interface AppOptions {
  db: Database;
  clock: Clock;
  config: Pick<Config, 'host' | 'port' | 'graphiql' | 'shutdownTimeoutMs'>;
  logger: Logger;
}

export interface App {
  readonly server: Server;
  /** Resolves to the base URL (http://host:port) once listening. */
  start(): Promise<string>;
  /** Stops accepting requests, lets in-flight ones finish (up to the shutdown timeout), then closes the database. */
  stop(): Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

function currentRequestId(): string {
  return requestScope.getStore()?.requestId ?? 'none';
}

/** GraphQL's own errors (syntax, validation, variable coercion) are the client's to see. */
function isGraphQLErrorAllTheWayDown(error: unknown): boolean {
  if (!(error instanceof GraphQLError)) return false;
  return error.originalError == null || isGraphQLErrorAllTheWayDown(error.originalError);
}

/** Expected failures keep their code; anything else is logged and replaced by a request id. */
function maskError(logger: Logger) {
  return (error: unknown, message: string): Error => {
    const original = error instanceof GraphQLError ? error.originalError : error;
    if (original instanceof DomainError) {
      return new GraphQLError(original.message, {
        ...(error instanceof GraphQLError ? { nodes: error.nodes, path: error.path } : {}),
        extensions: { code: original.code, field: original.field },
      });
    }
    if (error instanceof GraphQLError && isGraphQLErrorAllTheWayDown(error)) {
      if (error.extensions.code) return error;
      // e.g. a variable of the wrong type: the caller's mistake, so it gets a code like every other one.
      return new GraphQLError(error.message, {
        nodes: error.nodes,
        path: error.path,
        extensions: { ...error.extensions, code: 'BAD_USER_INPUT' },
      });
    }
    const requestId = currentRequestId();
    logger.error({ err: original }, 'unexpected error while executing an operation');
    return new GraphQLError(`${message} Quote request id ${requestId} when reporting it.`, {
      ...(error instanceof GraphQLError ? { nodes: error.nodes, path: error.path } : {}),
      extensions: { code: 'INTERNAL_SERVER_ERROR', requestId },
    });
  };
}

/** Access log line per request, and the request id echoed back to the caller. */
function accessLog(logger: Logger): Plugin {
  const started = new WeakMap<Request, number>();
  return {
    onRequest({ request }) {
      started.set(request, performance.now());
    },
    onResponse({ request, response }) {
      response.headers.set('x-request-id', currentRequestId());
      const begun = started.get(request);
      logger.info(
        {
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

export function createApp(options: AppOptions): App {
  const { db, clock, config, logger } = options;
  let stopping = false;

  const yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    healthCheckEndpoint: '/health',
    landingPage: false,
    graphiql: config.graphiql ? { title: 'Leasehold', defaultQuery: TUTORIAL_DOCUMENT } : false,
    renderGraphiQL,
    maskedErrors: { maskError: maskError(logger) },
    logging: {
      debug: (...args) => logger.debug({ args }, 'yoga'),
      info: (...args) => logger.info({ args }, 'yoga'),
      warn: (...args) => logger.warn({ args }, 'yoga'),
      error: (...args) => logger.error({ args }, 'yoga'),
    },
    context: ({ request }) => ({
      db,
      clock,
      requestId: currentRequestId(),
      actor: actorResolver(request?.headers),
    }),
    plugins: [
      accessLog(logger),
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

  const server = createServer((request, response) => {
    const header = request.headers['x-request-id'];
    const requestId = typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
    requestScope.run({ requestId }, () => {
      void yoga(request, response);
    });
  });

  return {
    server,
    start: () =>
      new Promise((resolve, reject) => {
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
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
      await closed;
      clearTimeout(timer);
      await yoga.dispose();
      await db.close();
    },
  };
}
