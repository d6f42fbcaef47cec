// graphql-ws on the HTTP server's port and path, run through Yoga's envelop so every plugin and the
// same context apply to WebSocket operations: the credential checked on connect and on each subscribe,
// the connection closed when it is revoked or expires, leases bound to the connection released when it closes.
import type { Server } from 'node:http';
import { type ExecutionArgs, GraphQLError, getOperationAST, parse } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { YogaServerInstance } from 'graphql-yoga';
import { type WebSocket, WebSocketServer } from 'ws';
import { AuthenticationError, type Authenticator } from '../auth/authenticator.js';
import { takeFailedWebSocketAuthentication } from '../auth/failed-authentications.js';
import type { RateLimiter } from '../auth/rate-limit.js';
import type { Database } from '../db/client.js';
import { failureReason, isConnectionFailure } from '../db/unavailable.js';
import type { Principal } from '../domain/access.js';
import type { Clock } from '../domain/clock.js';
import type { GraphQLContext } from '../graphql/context.js';
import { databaseUnavailableError } from '../graphql/errors.js';
import { variableListsRefusal } from '../graphql/list-limits.js';
import { connectionRefusal } from '../graphql/subscription-limits.js';
import type { BodyChecks } from '../http/body-checks.js';
import { documentOnSocket, type Manifest, type PersistedOperationsMode } from '../http/persisted-operations.js';
import { MAX_DOCUMENT_CHARS } from '../http/request-limits.js';
import type { Logger } from '../logger.js';
import { releaseLease } from '../services/leases.js';
import { CLOSE_FORBIDDEN, CLOSE_TOO_MANY_REQUESTS, CLOSE_UNAUTHORIZED, Connection, closeConnection } from './connection.js';
import { checkLargeMessages } from './large-messages.js';

/** WebSocket's own close code 1013 "Try Again Later": the server cannot take the connection for now. */
const CLOSE_TRY_AGAIN_LATER = 1013;

export interface GraphQLWebSocketOptions {
  server: Server;
  yoga: YogaServerInstance<Record<string, unknown>, GraphQLContext>;
  authenticator: Authenticator;
  db: Database;
  clock: Clock;
  logger: Logger;
  /** A WebSocket message is held to the same size as an HTTP body. */
  maxMessageBytes: number;
  /** Failed authentications per address, shared with HTTP's 401s (see auth/failed-authentications.ts). */
  failedAuthentications?: RateLimiter;
  /** Where large messages are checked before graphql-ws parses them (see src/ws/large-messages.ts). */
  bodyChecks?: BodyChecks;
  /** Trusted documents (see src/http/persisted-operations.ts); default: off. */
  persisted?: { mode: PersistedOperationsMode; manifest: Manifest };
}

export interface GraphQLWebSockets {
  /** Open connections at this moment. */
  connectionCount(): number;
  /** Ends the connections a revoked API key opened (after their subscriptions have sent the error). */
  closeConnectionsOf(keyId: number): void;
  /** Closes every connection with 1001 Going Away (clients reconnect elsewhere) and stops accepting new ones. */
  close(): Promise<void>;
}

/** Whether a document's operation is a subscription (false when it does not parse: the usual path answers that). */
function isSubscription(query: string, operationName: string | null | undefined): boolean {
  try {
    return getOperationAST(parse(query, { noLocation: true }), operationName)?.operation === 'subscription';
  } catch {
    return false;
  }
}

export function serveGraphQLOverWebSocket(options: GraphQLWebSocketOptions): GraphQLWebSockets {
  const { server, yoga, authenticator, db, clock, logger, maxMessageBytes, failedAuthentications, bodyChecks } = options;
  const persisted = options.persisted ?? { mode: 'off', manifest: new Map() };
  // Each message a client sends is handled on a turn of the event loop of its own: parsing one of up to
  // MAX_BODY_BYTES takes ~10 ms, and a client sending five in one write would otherwise hold the loop for all.
  const sockets = new WebSocketServer({ server, path: '/graphql', maxPayload: maxMessageBytes, allowSynchronousEvents: false });
  // Before graphql-ws's own listener below, so the one it adds to each socket is wrapped.
  if (bodyChecks) sockets.on('connection', (socket) => checkLargeMessages(socket, bodyChecks));
  const scopes = new WeakMap<WebSocket, Connection>();
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
          if (isConnectionFailure(error)) {
            // The key could not be read (PostgreSQL restarting): the client may come back shortly.
            logger.warn({ reason: failureReason(error) }, 'refused a WebSocket connection: the database is unavailable');
            closeConnection(ctx.extra.socket, CLOSE_TRY_AGAIN_LATER, 'Try again later: the database is unavailable.');
            return false;
          }
          if (!(error instanceof AuthenticationError)) throw error;
          // Counted as an HTTP 401 is; past the address's allowance, closed 4429 and no longer logged one by one.
          const waitSeconds = failedAuthentications ? takeFailedWebSocketAuthentication(failedAuthentications, ctx.extra.request) : 0;
          if (waitSeconds > 0) {
            closeConnection(
              ctx.extra.socket,
              CLOSE_TOO_MANY_REQUESTS,
              `Too many failed authentications from this address: retry in ${waitSeconds} s.`,
            );
            return false;
          }
          logger.info({ reason: error.message }, 'refused an unauthenticated WebSocket connection');
          closeConnection(ctx.extra.socket, CLOSE_UNAUTHORIZED, `Unauthorized: ${error.message}`);
          return false;
        }
        const connection = new Connection(principal, ctx.extra.socket);
        // With the leeway an HTTP request gets: a token accepted here is not cut off at once.
        const until = authenticator.validUntil(principal);
        if (until)
          connection.expiry = clock.setTimer(until, () => connection.end(CLOSE_UNAUTHORIZED, 'Unauthorized: the token has expired.'));
        scopes.set(ctx.extra.socket, connection);
        return true;
      },
      onSubscribe: async (ctx, id, params) => {
        if (params.query.length > MAX_DOCUMENT_CHARS) {
          return [
            new GraphQLError(`The GraphQL document must be at most ${MAX_DOCUMENT_CHARS} characters.`, {
              extensions: { code: 'PAYLOAD_TOO_LARGE' },
            }),
          ];
        }
        const connection = scopes.get(ctx.extra.socket);
        // A connection at its limit refuses more subscriptions before the credential's database read.
        const full = connection && connectionRefusal(connection);
        if (full && isSubscription(params.query, params.operationName)) return [full];
        let valid: boolean;
        try {
          valid = connection !== undefined && (await authenticator.stillValid(connection.principal));
        } catch (error) {
          // The key could not be read (PostgreSQL restarting): this operation is refused, the connection stays.
          if (isConnectionFailure(error)) return [databaseUnavailableError(error, logger)];
          throw error;
        }
        if (!connection || !valid) {
          closeConnection(ctx.extra.socket, CLOSE_UNAUTHORIZED, 'Unauthorized: the credential is no longer valid.');
          return [new GraphQLError('The credential is no longer valid.', { extensions: { code: 'UNAUTHENTICATED' } })];
        }
        // Trusted documents (PERSISTED_OPERATIONS): the manifest's text for the hash given, as over HTTP.
        const trusted = documentOnSocket(persisted.mode, persisted.manifest, params, connection.principal);
        if (trusted instanceof GraphQLError) return [trusted];
        const operation = { ...params, query: trusted };
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
          params: operation,
          connection,
          // Direct delivery (src/graphql/direct-delivery.ts) writes this subscription's `next` frames itself.
          subscriptionId: id,
        });
        // A syntax error or a limit (parse- or validation-time) is this operation's error, not the connection's.
        try {
          const args: ExecutionArgs = {
            schema: enveloped,
            operationName: operation.operationName,
            document: parse(operation.query),
            variableValues: operation.variables,
            contextValue: await contextFactory(),
            rootValue: { execute, subscribe },
          };
          const errors = validate(args.schema, args.document);
          if (errors.length > 0) return errors;
          // Over-long lists in the variables are refused before GraphQL spends its time coercing them.
          const lists = variableListsRefusal(args.schema, args.document, args.operationName, args.variableValues);
          return lists ? [lists] : args;
        } catch (error) {
          if (error instanceof GraphQLError) return [error];
          if (isConnectionFailure(error)) return [databaseUnavailableError(error, logger)];
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

  return {
    connectionCount: () => sockets.clients.size,
    closeConnectionsOf(keyId) {
      for (const socket of sockets.clients) {
        const connection = scopes.get(socket);
        if (connection?.principal.keyId === keyId) connection.end(CLOSE_FORBIDDEN, 'Forbidden: the API key was revoked.');
      }
    },
    async close() {
      for (const socket of sockets.clients) socket.close(1001, 'Server shutting down');
      await wsServer.dispose();
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
    },
  };
}
