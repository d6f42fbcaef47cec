// The error convention applied to every execution result, HTTP and WebSocket alike.
import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from '../graphql/context.js';
import { toClientError } from '../graphql/errors.js';

/** Applies the error convention to every execution result, where the request's id is known. */
export function clientErrors(): Plugin<GraphQLContext> {
  const clean = (result: ExecutionResult, context: GraphQLContext): ExecutionResult | undefined =>
    result.errors?.length
      ? { ...result, errors: result.errors.map((error) => toClientError(error, context.requestId, context.logger)) }
      : undefined;
  return {
    onExecute({ args }) {
      return {
        async onExecuteDone({ result, setResult }) {
          // A refusal the caller is told about is in the history first.
          await args.contextValue.refusalsRecorded();
          if (Symbol.asyncIterator in result) return;
          const cleaned = clean(result, args.contextValue);
          if (cleaned) setResult(cleaned);
        },
      };
    },
    onSubscribe({ args }) {
      return {
        onSubscribeResult({ result, setResult }) {
          if (!(Symbol.asyncIterator in result)) {
            const cleaned = clean(result, args.contextValue);
            if (cleaned) setResult(cleaned);
            return;
          }
          return {
            onNext({ result: next, setResult: setNext }) {
              const cleaned = clean(next, args.contextValue);
              if (cleaned) setNext(cleaned);
            },
          };
        },
      };
    },
  };
}
