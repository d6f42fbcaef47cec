// createApp: the HTTP server with GraphQL, GraphiQL, health and readiness, wired once.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import type { ExecutionResult } from 'graphql';
import { createYoga, type Plugin, useReadinessCheck } from 'graphql-yoga';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import type { Clock } from './domain/clock.js';
import { actorResolver, type GraphQLContext } from './graphql/context.js';
import { toClientError } from './graphql/errors.js';
import { schema } from './graphql/schema.js';
import { TUTORIAL_DOCUMENT } from './graphql/tutorial.js';
import type { Logger } from './logger.js';

export interface AppOptions {
  db: Database;
  clock: Clock;
  config: Pick<Config, 'host' | 'port' | 'graphiql' | 'shutdownTimeoutMs' | 'maxBodyBytes'>;
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
  };
}

export function createApp(options: AppOptions): App {
  const { db, clock, config, logger } = options;
  const ids = new WeakMap<Request, string>();
  let stopping = false;

  const yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    healthCheckEndpoint: '/health',
    landingPage: false,
    graphiql: config.graphiql ? { title: 'Leasehold', defaultQuery: TUTORIAL_DOCUMENT } : false,
    renderGraphiQL,
    // Errors outside execution (e.g. while building the context) have no request id at hand.
    maskedErrors: { maskError: (error) => toClientError(error, 'none', logger) },
    logging: {
      debug: (...args) => logger.debug({ args }, 'yoga'),
      info: (...args) => logger.info({ args }, 'yoga'),
      warn: (...args) => logger.warn({ args }, 'yoga'),
      error: (...args) => logger.error({ args }, 'yoga'),
    },
    context: ({ request }) => {
      const requestId = (request && ids.get(request)) ?? randomUUID();
      return { db, clock, requestId, logger: logger.child({ requestId }), actor: actorResolver(request?.headers) };
    },
    plugins: [
      requestIds(logger, ids),
      bodyLimit(config.maxBodyBytes),
      clientErrors(),
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
