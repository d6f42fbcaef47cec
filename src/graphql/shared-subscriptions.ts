// Subscription events executed once, not once per subscriber: subscribers with the same document,
// operation, variables and roles share one execution (and, over WebSocket, one serialized payload) per event.
import {
  createSourceEventStream,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  execute,
  getOperationAST,
  getVariableValues,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { WebSocket } from 'ws';
import { formatRoles } from '../domain/access.js';
import type { GraphQLContext } from './context.js';
import { framedSocket, sharedFrame } from './shared-frames.js';

/** Work done for subscribers since the process started: executions stay per event while deliveries grow with subscribers. */
export const subscriptionWork = { executions: 0, deliveries: 0 };

type Outcome = ExecutionResult | Promise<ExecutionResult>;

/** One execution of one event for one sharing key, and its WebSocket form (made on first use). */
interface Shared {
  outcome: Outcome;
  framed: ExecutionResult | null;
}

/**
 * Executions by source event, then by sharing key. Keyed weakly by the event object (the feed hands
 * the same object to every subscriber), so an entry goes once the last subscriber has taken the event.
 */
const executions = new WeakMap<object, Map<string, Shared>>();

const documentIds = new WeakMap<DocumentNode, number>();
let lastDocumentId = 0;

/**
 * Everything a field resolver under a subscription can see that differs between subscribers: the
 * document (parsed once per text by Yoga's parse cache), operation, variables and the caller's roles.
 * No resolver below a subscription root reads the principal's name or the connection (their
 * `subscribe` functions do, and those still run per subscriber), so the name is not part of it.
 */
function sharingKey(args: ExecutionArgs, context: GraphQLContext): string {
  let id = documentIds.get(args.document);
  if (id === undefined) {
    id = ++lastDocumentId;
    documentIds.set(args.document, id);
  }
  return `${id}\u0000${args.operationName ?? ''}\u0000${JSON.stringify(args.variableValues ?? null)}\u0000${formatRoles(context.principal.roles)}`;
}

function sharedExecution(args: ExecutionArgs, key: string, event: unknown): Shared {
  const run = (): Outcome => {
    subscriptionWork.executions++;
    return execute({ ...args, rootValue: event }) as Outcome;
  };
  if (typeof event !== 'object' || event === null) return { outcome: run(), framed: null };
  let byKey = executions.get(event);
  if (!byKey) {
    byKey = new Map();
    executions.set(event, byKey);
  }
  let shared = byKey.get(key);
  if (!shared) {
    shared = { outcome: run(), framed: null };
    byKey.set(key, shared);
  }
  return shared;
}

/** The result one subscriber is given: over a WebSocket the form whose frame is a concatenation. */
function resultFor(shared: Shared, result: ExecutionResult, framed: boolean): ExecutionResult {
  if (!framed || result.errors) return result;
  shared.framed ??= sharedFrame(result);
  return shared.framed;
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
  const deliver = async (event: unknown): Promise<ExecutionResult> => {
    subscriptionWork.deliveries++;
    const shared = sharedExecution(args, key, event);
    return resultFor(shared, await shared.outcome, framed);
  };
  const stream: AsyncGenerator<ExecutionResult> = {
    [Symbol.asyncIterator]: () => stream,
    async next() {
      const step = await source.next();
      return step.done ? { done: true, value: undefined } : { done: false, value: await deliver(step.value) };
    },
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
      if (getVariableValues(args.schema, operation.variableDefinitions ?? [], args.variableValues ?? {}).errors) return;
      const context = args.contextValue as GraphQLContext & { socket?: WebSocket };
      const framed = context.socket !== undefined && framedSocket(context.socket);
      const key = sharingKey(args, context);
      setSubscribeFn(async (subscribeArgs) => {
        const source = await createSourceEventStream(subscribeArgs);
        if (!(Symbol.asyncIterator in source)) return source;
        return mapThroughSharedExecution(source[Symbol.asyncIterator](), subscribeArgs, key, framed);
      });
    },
  };
}
