// Refused changes cost their caller: each refusal takes a token from the principal's refusal bucket, and
// while the bucket is empty the principal's mutations are answered 429 before anything runs or is recorded.
import { type DocumentNode, GraphQLError, getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Principal } from '../domain/access.js';
import type { RateLimiter, RateLimitSettings } from './rate-limit.js';

/** A refusal a second per principal, after bursts of 60 (per process). */
export const REFUSAL_RATE_LIMIT: RateLimitSettings = { perSecond: 1, burst: 60 };

/** Answers RATE_LIMITED (HTTP 429 with Retry-After) to the mutations of a principal with no refusal left to spend. */
export function refusalRateLimit(limiter: RateLimiter, principalOf: (context: unknown) => Principal | null): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      if (getOperationAST(args.document as DocumentNode, args.operationName)?.operation !== 'mutation') return;
      const principal = principalOf(args.contextValue);
      const waitSeconds = principal ? limiter.wait(principal.name) : 0;
      if (!principal || waitSeconds === 0) return;
      setResultAndStopExecution({
        errors: [
          new GraphQLError(`Too many refused changes from ${principal.name}: retry in ${waitSeconds} s.`, {
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
