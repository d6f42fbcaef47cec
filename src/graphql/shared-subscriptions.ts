// Subscription events executed once, not once per subscriber: subscribers with the same document,
// operation, variables and roles share one execution (and, over WebSocket, one serialized payload) per event.

import type { IncomingMessage } from 'node:http';
import {
  type ArgumentNode,
  createSourceEventStream,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  execute,
  getOperationAST,
  getVariableValues,
  Kind,
  type OperationDefinitionNode,
  visit,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { WebSocket } from 'ws';
import { formatRoles } from '../domain/access.js';
import type { GraphQLContext } from './context.js';
import { deliverDirectly } from './direct-delivery.js';
import { framedSocket, sharedFrame } from './shared-frames.js';

/** Work done for subscribers since the process started: executions stay per event while deliveries grow with subscribers. */
export const subscriptionWork = { executions: 0, deliveries: 0, /** Of the deliveries, those written straight from the feed. */ direct: 0 };

/** One execution of one event for one sharing key: its result once known, and its WebSocket form (made on first use). */
interface Shared {
  result: ExecutionResult | null;
  settled: Promise<unknown> | null;
  framed: ExecutionResult | null;
  /** The payload's JSON for direct delivery (made on first use). */
  json: string | null;
}

/**
 * Executions by source event, then by sharing key. Keyed weakly by the event object (the feed hands
 * the same object to every subscriber), so an entry goes once the last subscriber has taken the event.
 */
const executions = new WeakMap<object, Map<string, Shared>>();

const documents = new WeakMap<DocumentNode, { id: number; variables: Map<OperationDefinitionNode, string[]> }>();
let lastDocumentId = 0;

/**
 * The variables an event's execution reads: every one the operation uses except in the arguments of
 * its root field. Those arguments (`after`, `filter`, `id`, `token`) choose the source stream in the
 * field's `subscribe`, which runs per subscriber; the root fields' `resolve` passes the event on
 * without reading them. So dashboards resuming from different `after`s still share.
 */
function executionVariables(document: DocumentNode, operation: OperationDefinitionNode): string[] {
  const rootArguments = new Set<ArgumentNode>(
    operation.selectionSet.selections.flatMap((selection) => (selection.kind === Kind.FIELD ? (selection.arguments ?? []) : [])),
  );
  const names = new Set<string>();
  visit(document, {
    Argument: (node) => (rootArguments.has(node) ? false : undefined),
    Variable: (node) => {
      names.add(node.name.value);
    },
    VariableDefinition: () => false,
  });
  return [...names].sort();
}

/**
 * Everything a field resolver under a subscription can see that differs between subscribers: the
 * document (parsed once per text by Yoga's parse cache), operation, the variables it reads and the
 * caller's roles. No resolver below a subscription root reads the principal's name or the connection
 * (their `subscribe` functions do, and those still run per subscriber), so the name is not part of it.
 */
function sharingKey(
  args: ExecutionArgs,
  operation: OperationDefinitionNode,
  values: Record<string, unknown>,
  context: GraphQLContext,
): string {
  let known = documents.get(args.document);
  if (!known) {
    known = { id: ++lastDocumentId, variables: new Map() };
    documents.set(args.document, known);
  }
  let names = known.variables.get(operation);
  if (!names) {
    names = executionVariables(args.document, operation);
    known.variables.set(operation, names);
  }
  const variables = JSON.stringify(names.map((name) => values[name] ?? null));
  return `${known.id}\u0000${args.operationName ?? ''}\u0000${variables}\u0000${formatRoles(context.principal.roles)}`;
}

function run(args: ExecutionArgs, event: unknown): Shared {
  subscriptionWork.executions++;
  const shared: Shared = { result: null, settled: null, framed: null, json: null };
  const outcome = execute({ ...args, rootValue: event });
  if (outcome instanceof Promise) {
    shared.settled = outcome.then((result) => {
      shared.result = result;
    });
  } else shared.result = outcome;
  return shared;
}

function sharedExecution(args: ExecutionArgs, key: string, event: unknown): Shared {
  if (typeof event !== 'object' || event === null) return run(args, event);
  let byKey = executions.get(event);
  if (!byKey) {
    byKey = new Map();
    executions.set(event, byKey);
  }
  let shared = byKey.get(key);
  if (!shared) {
    shared = run(args, event);
    byKey.set(key, shared);
  }
  return shared;
}

/** The result one subscriber is given: over a WebSocket the form whose frame is a concatenation. */
function resultFor(shared: Shared, framed: boolean): IteratorResult<ExecutionResult> {
  const result = shared.result as ExecutionResult;
  if (!framed || result.errors) return { done: false, value: result };
  shared.framed ??= sharedFrame(result);
  return { done: false, value: shared.framed };
}

/** The JSON of an event's shared result for a frame written directly; null when not ready at once or with errors. */
function sharedPayload(args: ExecutionArgs, key: string, event: unknown): string | null {
  const shared = sharedExecution(args, key, event);
  if (shared.result === null || shared.result.errors) return null;
  shared.json ??= JSON.stringify({ data: shared.result.data });
  return shared.json;
}

function countDirect(): void {
  subscriptionWork.deliveries++;
  subscriptionWork.direct++;
}

/**
 * The source stream of one subscriber (its `subscribe` resolver runs as before: authorization,
 * filters, `after`, its own bounded buffer), each event mapped through the shared execution.
 */
function mapThroughSharedExecution(
  source: AsyncIterator<unknown>,
  args: ExecutionArgs,
  key: string,
  framed: boolean,
): AsyncGenerator<ExecutionResult> {
  const deliver = (step: IteratorResult<unknown>): IteratorResult<ExecutionResult> | Promise<IteratorResult<ExecutionResult>> => {
    if (step.done) return { done: true, value: undefined };
    subscriptionWork.deliveries++;
    const shared = sharedExecution(args, key, step.value);
    return shared.result ? resultFor(shared, framed) : (shared.settled as Promise<unknown>).then(() => resultFor(shared, framed));
  };
  const stream: AsyncGenerator<ExecutionResult> = {
    [Symbol.asyncIterator]: () => stream,
    next: () => source.next().then(deliver),
    async return() {
      await source.return?.();
      return { done: true, value: undefined };
    },
    async throw(error: unknown) {
      await source.return?.();
      throw error;
    },
  };
  return stream;
}

/** Replaces the subscribe step for every subscription, HTTP (SSE) and WebSocket alike. */
export function sharedSubscriptions(): Plugin<GraphQLContext> {
  return {
    onSubscribe({ args, setSubscribeFn }) {
      const operation = getOperationAST(args.document, args.operationName);
      // Operations Yoga's own subscribe refuses (no such operation, bad variables) keep its answers.
      if (operation?.operation !== 'subscription') return;
      const variables = getVariableValues(args.schema, operation.variableDefinitions ?? [], args.variableValues ?? {});
      if (variables.errors) return;
      const context = args.contextValue as GraphQLContext & { socket?: WebSocket; req?: IncomingMessage; subscriptionId?: string };
      const framed = context.socket !== undefined && framedSocket(context.socket, context.req?.socket);
      // Coerced, so a default and the same value given explicitly share.
      const key = sharingKey(args, operation, variables.coerced, context);
      setSubscribeFn(async (subscribeArgs) => {
        const source = await createSourceEventStream(subscribeArgs);
        if (!(Symbol.asyncIterator in source)) return source;
        const events = source[Symbol.asyncIterator]();
        if (framed && context.subscriptionId !== undefined) {
          const socket = context.socket as WebSocket;
          deliverDirectly(events, socket, context.subscriptionId, (event) => sharedPayload(subscribeArgs, key, event), countDirect);
        }
        return mapThroughSharedExecution(events, subscribeArgs, key, framed);
      });
    },
  };
}
