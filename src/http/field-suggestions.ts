// With introspection off, error messages do not give the schema away either: no "Did you mean …?".
import { type ExecutionResult, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * graphql-js appends ' Did you mean "x", "y", or "z"?' (or '… the enum value "X"?', '… to use an inline
 * fragment on "T"?') to the messages of validation and variable errors: guessing names one letter at a
 * time would map the schema introspection hides. Names cannot contain '?', so the suggestion ends at
 * the first one.
 */
const SUGGESTION = / ?Did you mean [^?]*\?/g;

function withoutSuggestion<E extends Error>(error: E): E | GraphQLError {
  if (!(error instanceof GraphQLError)) return error;
  const message = error.message.replace(SUGGESTION, '');
  if (message === error.message) return error;
  const { nodes, source, positions, path, originalError, extensions } = error;
  return new GraphQLError(message, { nodes, source, positions, path, originalError, extensions });
}

function withoutSuggestions(result: ExecutionResult): ExecutionResult | undefined {
  return result.errors?.length ? { ...result, errors: result.errors.map(withoutSuggestion) } : undefined;
}

/**
 * Strips the suggestions from validation errors and from execution's own errors (a variable's value
 * coerced to its type), HTTP and WebSocket alike. graphql-armor's block-field-suggestions plugin
 * covers validation only, and only the '"x"?' form.
 */
export function hideFieldSuggestions(): Plugin {
  return {
    onValidate() {
      return ({ valid, result, setResult }) => {
        if (!valid) setResult(result.map(withoutSuggestion));
      };
    },
    onExecute: () => ({
      onExecuteDone({ result, setResult }) {
        if (Symbol.asyncIterator in result) return;
        const cleaned = withoutSuggestions(result);
        if (cleaned) setResult(cleaned);
      },
    }),
    onSubscribe: () => ({
      onSubscribeResult({ result, setResult }) {
        if (Symbol.asyncIterator in result) return;
        const cleaned = withoutSuggestions(result);
        if (cleaned) setResult(cleaned);
      },
    }),
  };
}
