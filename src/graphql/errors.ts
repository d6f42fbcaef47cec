// The one error convention at the edge: domain errors keep their code, GraphQL's own errors get one,
// anything else is logged and replaced by a request id.
import { GraphQLError } from 'graphql';
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
