// Structured JSON logs (pino). Request-scoped lines come from child loggers carrying the request id.
import { type DestinationStream, type Logger, pino } from 'pino';

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'leasehold' },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Defence in depth: tokens and proposals' values (personal data, PROPOSAL_SENSITIVE_FIELDS) are never
      // passed to the logger, and these paths are scrubbed if they ever are.
      redact: {
        paths: [
          'token',
          '*.token',
          'authorization',
          '*.authorization',
          'headers.authorization',
          ...['parameters', 'currentValue', 'proposedValue', 'variables'].flatMap((field) => [field, `*.${field}`]),
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

export type { Logger };
