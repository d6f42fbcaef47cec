// Structured JSON logs. Every line written while handling a request carries its request id.
import { AsyncLocalStorage } from 'node:async_hooks';
import { type DestinationStream, type Logger, pino } from 'pino';

export interface RequestScope {
  requestId: string;
}

/** The request being handled, if any: set around each HTTP request. */
export const requestScope = new AsyncLocalStorage<RequestScope>();

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'leasehold' },
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: () => {
        const scope = requestScope.getStore();
        return scope ? { requestId: scope.requestId } : {};
      },
      // Defence in depth: tokens are never passed to the logger, and these paths are scrubbed if they ever are.
      redact: { paths: ['token', '*.token', 'authorization', '*.authorization', 'headers.authorization'], censor: '[redacted]' },
    },
    destination,
  );
}

export type { Logger };
