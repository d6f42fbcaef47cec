// Yoga plugins for identity: refuse anonymous HTTP requests, and limit each principal's changes.
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  GraphQLIncludeDirective,
  type GraphQLSchema,
  GraphQLSkipDirective,
  getDirectiveValues,
  getVariableValues,
  isAbstractType,
  Kind,
  type NamedTypeNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { isConnectionFailure } from '../db/unavailable.js';
import type { Permission, Principal } from '../domain/access.js';
import { DomainError } from '../domain/errors.js';
import { mayUse, type ProposalRules, whoMayUse } from '../domain/proposal-rules.js';
import { databaseUnavailableResponse } from '../graphql/errors.js';
import type { Logger } from '../logger.js';
import { AuthenticationError, type Authenticator } from './authenticator.js';
import type { RateLimiter } from './rate-limit.js';

/**
 * The 401 every refused credential gets, the same over every path. Its media type is the one the
 * caller's Accept header lists first of the two GraphQL over HTTP answers in JSON, as Yoga chooses
 * for every other answer (application/json unless application/graphql-response+json comes first).
 */
export function unauthenticatedResponse(fetchAPI: { Response: typeof Response }, message: string, accept: string | null = null): Response {
  const asked = (accept ?? '').split(',').map((entry) => entry.split(';')[0]?.trim().toLowerCase());
  const mediaType = asked.find(
    (type) => type === 'application/graphql-response+json' || type === 'application/json' || type === 'application/*' || type === '*/*',
  );
  return new fetchAPI.Response(JSON.stringify({ errors: [{ message, extensions: { code: 'UNAUTHENTICATED' } }] }), {
    status: 401,
    headers: {
      'content-type': `${mediaType === 'application/graphql-response+json' ? mediaType : 'application/json'}; charset=utf-8`,
      'www-authenticate': 'Bearer realm="leasehold"',
    },
  });
}

export interface AuthenticationOptions {
  authenticator: Authenticator;
  principals: WeakMap<Request, Principal>;
  logger: Logger;
  /** Paths that need a credential. */
  protectedPaths: ReadonlySet<string>;
  /** The GraphiQL page itself is static and public; every operation it sends needs a credential. */
  graphiql: boolean;
}

/**
 * Authenticates every request to a protected path before anything else reads it; a request
 * without a valid credential is answered 401 at once. Credentials are never logged.
 */
export function authentication(
  options: AuthenticationOptions & {
    /** A 429 to answer instead of the 401 once the caller's address has failed too often (src/auth/failed-authentications.ts). */
    failedAuthenticationLimit?: (serverContext: unknown, fetchAPI: { Response: typeof Response }) => Response | null;
  },
): Plugin {
  const { authenticator, principals, logger, protectedPaths, graphiql, failedAuthenticationLimit } = options;
  return {
    async onRequest({ request, url, endResponse, fetchAPI, serverContext }) {
      if (!protectedPaths.has(url.pathname) || request.method === 'OPTIONS') return;
      if (graphiql && request.method === 'GET' && request.headers.get('accept')?.includes('text/html')) return;
      try {
        principals.set(request, await authenticator.authenticate(request.headers.get('authorization')));
      } catch (error) {
        // The key could not be read (PostgreSQL restarting): 503 DATABASE_UNAVAILABLE, not a 500 with a stack.
        if (isConnectionFailure(error)) return endResponse(databaseUnavailableResponse(fetchAPI, error, logger));
        if (!(error instanceof AuthenticationError)) throw error;
        const tooMany = failedAuthenticationLimit?.(serverContext, fetchAPI);
        if (tooMany) return endResponse(tooMany);
        logger.info({ path: url.pathname, reason: error.message }, 'refused an unauthenticated request');
        endResponse(unauthenticatedResponse(fetchAPI, error.message, request.headers.get('accept')));
      }
    },
  };
}

function operationOf(document: DocumentNode, operationName: string | null | undefined): OperationDefinitionNode | undefined {
  return document.definitions.find(
    (definition): definition is OperationDefinitionNode =>
      definition.kind === Kind.OPERATION_DEFINITION && (operationName == null || definition.name?.value === operationName),
  );
}

interface ExecuteArgs {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName?: string | null;
  variableValues?: Record<string, unknown> | null;
}

/**
 * The root fields a mutation operation will run, by response key, collected as graphql-js's
 * `collectFields` does: through inline fragments and fragment spreads, honouring @skip and @include
 * with the request's variables, one entry per response key (aliases are separate fields). Looking
 * only at the top-level Field nodes let fragment-wrapped fields past every check. Empty when the
 * operation is not a mutation.
 */
function mutationRootFields(args: ExecuteArgs): Map<string, FieldNode> {
  const fields = new Map<string, FieldNode>();
  const operation = operationOf(args.document, args.operationName);
  const root = args.schema.getMutationType();
  if (operation?.operation !== 'mutation' || !root) return fields;
  // Invalid variables fail the whole operation before anything runs; the caller is still refused for a
  // field it may not use first, so then every field a directive could include is collected. Coerced only
  // for a selection with a directive: coercing them is graphql-js's work over every value (addItems' 500
  // inputs, twice over with execution's own), and most operations have none.
  let variables: Record<string, unknown> | null | undefined;
  const coercedVariables = () => {
    if (variables === undefined) {
      const coerced = getVariableValues(args.schema, operation.variableDefinitions ?? [], args.variableValues ?? {});
      variables = coerced.errors ? null : coerced.coerced;
    }
    return variables;
  };
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of args.document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const included = (node: Parameters<typeof getDirectiveValues>[1]) => {
    if (!node.directives?.length) return true;
    const values = coercedVariables();
    return (
      values === null ||
      (getDirectiveValues(GraphQLSkipDirective, node, values)?.if !== true &&
        getDirectiveValues(GraphQLIncludeDirective, node, values)?.if !== false)
    );
  };
  const applies = (typeCondition: NamedTypeNode | undefined) => {
    if (!typeCondition) return true;
    const condition = args.schema.getType(typeCondition.name.value);
    return condition === root || (condition != null && isAbstractType(condition) && args.schema.isSubType(condition, root));
  };
  const visited = new Set<string>();
  const collect = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (!included(selection)) continue;
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        if (!fields.has(key)) fields.set(key, selection);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (applies(selection.typeCondition)) collect(selection.selectionSet);
      } else {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (visited.has(name) || !fragment || !applies(fragment.typeCondition)) continue;
        visited.add(name);
        collect(fragment.selectionSet);
      }
    }
  };
  collect(operation.selectionSet);
  return fields;
}

/** What the mutation authorization plugin needs from the GraphQL context. */
export interface AuthorizationContext {
  principal: Principal;
  /** PROPOSAL_ACTIONS and TARGET_STATE_REPORTERS: a name in the latter may report target state. */
  proposalRules: ProposalRules;
  recordRefusal(operation: string, error: DomainError): void;
  /** Resolves once every refusal recorded so far is committed. */
  refusalsRecorded(): Promise<void>;
}

/**
 * All or nothing: a mutation operation with any root field the caller may not use is refused whole,
 * before any field runs (fields run in order and cannot be null, so a refusal half-way would hide
 * changes that already committed). Each refused field is recorded. Scope-auth still guards each field.
 */
export function mutationAuthorization(
  permissionOf: (field: string) => Permission | undefined,
  contextOf: (context: unknown) => AuthorizationContext,
): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const fields = mutationRootFields(args);
      if (fields.size === 0) return;
      const context = contextOf(args.contextValue);
      const errors: GraphQLError[] = [];
      for (const [key, selection] of fields) {
        const field = selection.name.value;
        const permission = permissionOf(field);
        if (permission && mayUse(context.principal, permission, context.proposalRules)) continue;
        const refusal = new DomainError(
          'FORBIDDEN',
          `${context.principal.name} may not use Mutation.${field}: it needs one of the roles ${whoMayUse(permission)}.`,
        );
        context.recordRefusal(field, refusal);
        errors.push(
          new GraphQLError(refusal.message, {
            nodes: [selection],
            path: [key],
            extensions: { code: refusal.code, field: null },
          }),
        );
      }
      if (errors.length === 0) return;
      setResultAndStopExecution({ data: null, errors });
      // The caller is told only once the refusals are in the history. Execution stops here, so the
      // plugins after this one (clientErrors, which waits for refusals otherwise) never see it.
      return { onExecuteDone: () => context.refusalsRecorded() };
    },
  };
}

/**
 * Each root mutation field costs one token from the caller's bucket; an operation that would
 * overdraw it is refused whole, before anything runs (HTTP 429 with Retry-After).
 */
export function mutationRateLimit(limiter: RateLimiter, principalOf: (context: unknown) => Principal | null): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      if (!limiter.enabled) return;
      const operation = operationOf(args.document, args.operationName);
      // Every mutation costs at least one token, even one whose fields are all skipped.
      const cost = operation?.operation === 'mutation' ? Math.max(1, mutationRootFields(args).size) : 0;
      const principal = principalOf(args.contextValue);
      if (cost === 0 || !principal) return;
      const waitSeconds = limiter.take(principal.name, cost);
      if (waitSeconds === 0) return;
      setResultAndStopExecution({
        errors: [
          new GraphQLError(`Too many changes from ${principal.name}: retry in ${waitSeconds} s.`, {
            extensions: {
              code: 'RATE_LIMITED',
              retryAfterSeconds: waitSeconds,
              http: { status: 429, headers: { 'retry-after': String(waitSeconds) } },
            },
          }),
        ],
      });
    },
  };
}
