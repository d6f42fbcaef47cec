// Failed authentications cost the address they come from: past a limit, its requests without a valid
// credential are answered 429 instead of 401, and no longer logged one by one. A valid credential from
// the same address is never held back.
import type { IncomingMessage } from 'node:http';
import type { RateLimiter, RateLimitSettings } from './rate-limit.js';

/** A failed authentication a second per address, after bursts of 30 (per process). */
export const FAILED_AUTHENTICATION_LIMIT: RateLimitSettings = { perSecond: 1, burst: 30 };

/** What the authentication plugin answers a failed authentication with instead of its 401, or null for the 401. */
export type FailedAuthenticationLimit = (serverContext: unknown, fetchAPI: { Response: typeof Response }) => Response | null;

/**
 * Counts each failed authentication against the address of the connection it came on (behind a proxy,
 * the proxy's: its clients then share one allowance).
 */
export function failedAuthenticationLimit(limiter: RateLimiter): FailedAuthenticationLimit {
  return (serverContext, fetchAPI) => {
    const address = (serverContext as { req?: IncomingMessage }).req?.socket.remoteAddress ?? 'unknown';
    const waitSeconds = limiter.take(address);
    if (waitSeconds === 0) return null;
    const message = `Too many failed authentications from this address: retry in ${waitSeconds} s.`;
    return new fetchAPI.Response(
      JSON.stringify({ errors: [{ message, extensions: { code: 'RATE_LIMITED', retryAfterSeconds: waitSeconds } }] }),
      { status: 429, headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': String(waitSeconds) } },
    );
  };
}
