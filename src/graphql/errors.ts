// The one error convention at the edge: domain errors keep their code, GraphQL's own errors get one,
// anything else is logged and replaced by a request id.
import { GraphQLError } from 'graphql';
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
