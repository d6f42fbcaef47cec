// The one error convention at the edge: domain errors keep their code, GraphQL's own errors get one,
// anything else is logged and replaced by a request id.
import { GraphQLError } from 'graphql';
import { DatabaseUnavailableError, failureReason, isConnectionFailure, UNAVAILABLE_RETRY_AFTER_SECONDS } from '../db/unavailable.js';
import { DatabaseBusyError } from '../db/write-lock.js';
import { DomainError } from '../domain/errors.js';
import type { Logger } from '../logger.js';

/** GraphQL's own errors (syntax, validation, variable coercion) are the client's to see. */
function isGraphQLErrorAllTheWayDown(error: unknown): error is GraphQLError {
  if (!(error instanceof GraphQLError)) return false;
  return error.originalError == null || isGraphQLErrorAllTheWayDown(error.originalError);
}

function location(error: unknown) {
  return error instanceof GraphQLError ? { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path } : {};
}

/** What a client may see of `error`. Unexpected errors are logged (with the request id) and masked. */
export function toClientError(error: unknown, requestId: string, logger: Logger): GraphQLError {
  const original = error instanceof GraphQLError && error.originalError ? error.originalError : error;
  if (original instanceof DomainError) {
    return new GraphQLError(original.message, { ...location(error), extensions: { code: original.code, field: original.field } });
  }
  if (original instanceof DatabaseBusyError) return databaseBusy(original, requestId, location(error), logger);
  if (isConnectionFailure(original)) return databaseUnavailable(original, requestId, location(error), logger);
  if (isGraphQLErrorAllTheWayDown(error)) {
    if (error.extensions.code) return error;
    // e.g. a variable of the wrong type: the caller's mistake, so it gets a code like every other one.
    return new GraphQLError(error.message, { ...location(error), extensions: { ...error.extensions, code: 'BAD_USER_INPUT' } });
  }
  if (error instanceof GraphQLError && error.extensions.code === 'INTERNAL_SERVER_ERROR' && error.extensions.requestId) {
    return error; // already masked
  }
  logger.error({ err: original, requestId }, 'unexpected error while executing an operation');
  return new GraphQLError(`Unexpected error. Quote request id ${requestId} when reporting it.`, {
    ...location(error),
    extensions: { code: 'INTERNAL_SERVER_ERROR', requestId },
  });
}

/**
 * Another process held the write lock for the whole busy timeout: nothing was written and the same
 * request may simply be sent again. HTTP 503 with Retry-After, the status proxies and clients already
 * retry on, as RATE_LIMITED answers 429.
 */
function databaseBusy(error: DatabaseBusyError, requestId: string, at: ReturnType<typeof location>, logger: Logger): GraphQLError {
  logger.warn({ waitedMs: Math.round(error.waitedMs) }, 'a write gave up waiting for the database write lock another process holds');
  const seconds = error.retryAfterSeconds;
  return new GraphQLError(
    `The database is busy: another process has held its write lock too long. Nothing was written; retry in ${seconds} s.`,
    {
      ...at,
      extensions: {
        code: 'DATABASE_BUSY',
        retryable: true,
        retryAfterSeconds: seconds,
        requestId,
        http: { status: 503, headers: { 'retry-after': String(seconds) } },
      },
    },
  );
}

/**
 * The database server could not be reached or dropped the connection (PostgreSQL restarting, a failover,
 * the network): a read, or a write that waited UNAVAILABLE_WAIT_MS for it to come back, nothing of it
 * written. HTTP 503 with Retry-After, like DATABASE_BUSY. The one case where the write's fate is not
 * known (the connection lost during COMMIT) says so: the caller should look before sending it again.
 */
export function databaseUnavailable(error: unknown, requestId: string, at: ReturnType<typeof location>, logger: Logger): GraphQLError {
  const outcome = error instanceof DatabaseUnavailableError ? error.outcome : 'not-written';
  logger.warn({ reason: failureReason(error), requestId, outcome }, 'the database server cannot be reached: answered DATABASE_UNAVAILABLE');
  const seconds = UNAVAILABLE_RETRY_AFTER_SECONDS;
  const message =
    outcome === 'unknown'
      ? `The database connection was lost while this change was being committed: it may or may not have been saved. Read it back before retrying (in ${seconds} s).`
      : `The database is unavailable: nothing was changed; retry in ${seconds} s.`;
  return new GraphQLError(message, {
    ...at,
    extensions: {
      code: 'DATABASE_UNAVAILABLE',
      retryable: true,
      retryAfterSeconds: seconds,
      ...(outcome === 'unknown' ? { writeOutcome: 'UNKNOWN' } : {}),
      requestId,
      http: { status: 503, headers: { 'retry-after': String(seconds) } },
    },
  });
}

/** DATABASE_UNAVAILABLE for an operation refused before it ran (a WebSocket operation whose credential could not be read). */
export function databaseUnavailableError(error: unknown, logger: Logger): GraphQLError {
  const { message, extensions } = databaseUnavailable(error, 'none', {}, logger);
  const { http: _http, requestId: _none, ...rest } = extensions;
  return new GraphQLError(message, { extensions: rest });
}

/**
 * DATABASE_UNAVAILABLE as a whole HTTP response, for a failure met before any GraphQL runs (reading the
 * caller's API key): the same body, status and Retry-After as when an operation meets it.
 */
export function databaseUnavailableResponse(fetchAPI: { Response: typeof Response }, error: unknown, logger: Logger): Response {
  const { message, extensions } = databaseUnavailableError(error, logger);
  const seconds = String(UNAVAILABLE_RETRY_AFTER_SECONDS);
  return new fetchAPI.Response(JSON.stringify({ errors: [{ message, extensions }] }), {
    status: 503,
    headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': seconds },
  });
}
