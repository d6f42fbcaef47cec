// Live streams end with the credential that opened them: a subscription, over WebSocket or server-sent
// events (GET or POST), whichever its field, gets a last result with an UNAUTHENTICATED error and ends
// when its API key is revoked (by any process) or its token expires, and nothing more after it.
import { type ExecutionResult, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Authenticator } from '../auth/authenticator.js';
import type { GraphQLContext } from '../graphql/context.js';
import { Connection } from '../ws/connection.js';

/** A subscription's results until its credential ends; `finished` settles once its last result was taken or it was closed. */
interface WatchedStream extends AsyncGenerator<ExecutionResult> {
  readonly finished: Promise<void>;
}

function untilCredentialEnds(
  results: AsyncIterable<ExecutionResult>,
  authenticator: Authenticator,
  context: GraphQLContext,
): WatchedStream {
  const source = results[Symbol.asyncIterator]();
  /** The last result, once the credential has ended. */
  let last: ExecutionResult | null = null;
  let over = false;
  /** Settles the `next()` waiting on the source, if one is. */
  let waiting: ((step: IteratorResult<ExecutionResult>) => void) | null = null;
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const done = (): IteratorResult<ExecutionResult> => {
    over = true;
    watch.cancel();
    finish();
    return { done: true, value: undefined };
  };
  const lastStep = (): IteratorResult<ExecutionResult> => {
    over = true;
    return { done: false, value: last as ExecutionResult };
  };
  const watch = authenticator.watch(context.principal, (ending) => {
    last = { errors: [new GraphQLError(ending.message, { extensions: { code: ending.code } })] };
    // Stops the source at once, and with it any frame written straight from the feed (src/graphql/direct-delivery.ts).
    source.return?.().catch((error: unknown) => context.logger.warn({ err: error }, 'a subscription did not close cleanly'));
    const pending = waiting;
    waiting = null;
    pending?.(lastStep());
  });
  const stream: WatchedStream = {
    [Symbol.asyncIterator]: () => stream,
    finished,
    next() {
      if (over) return Promise.resolve(done());
      if (last) return Promise.resolve(lastStep());
      return new Promise((resolve, reject) => {
        waiting = resolve;
        source.next().then(
          (step) => {
            // The credential ended meanwhile: the watch gave the error instead of this step.
            if (waiting !== resolve) return;
            waiting = null;
            resolve(step.done ? done() : step);
          },
          (error: unknown) => {
            if (waiting !== resolve) return;
            waiting = null;
            done();
            reject(error);
          },
        );
      });
    },
    async return() {
      const pending = waiting;
      waiting = null;
      const step = done();
      pending?.(step);
      await source.return?.();
      return step;
    },
    async throw(error: unknown) {
      await stream.return(undefined);
      throw error;
    },
  };
  return stream;
}

/** Ends every subscription with its credential, over every transport (both run subscriptions through Yoga's envelop). */
export function credentialStreams(authenticator: Authenticator): Plugin<GraphQLContext> {
  return {
    onSubscribe({ args }) {
      return {
        onSubscribeResult({ result, setResult }) {
          if (!(Symbol.asyncIterator in result)) return;
          const context = args.contextValue;
          const stream = untilCredentialEnds(result, authenticator, context);
          // A WebSocket whose credential ended closes once its streams have sent their error.
          if (context.connection instanceof Connection) context.connection.follow(stream.finished);
          setResult(stream);
        },
      };
    },
  };
}
