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
 * The address a failed authentication is counted against: the connection's (behind a proxy, the
 * proxy's: its clients then share one allowance).
 */
function addressOf(request: IncomingMessage | undefined): string {
  return request?.socket.remoteAddress ?? 'unknown';
}

/** Counts each failed authentication over HTTP (a 401) against its address. */
export function failedAuthenticationLimit(limiter: RateLimiter): FailedAuthenticationLimit {
  return (serverContext, fetchAPI) => {
    const waitSeconds = limiter.take(addressOf((serverContext as { req?: IncomingMessage }).req));
    if (waitSeconds === 0) return null;
    const message = `Too many failed authentications from this address: retry in ${waitSeconds} s.`;
    return new fetchAPI.Response(
      JSON.stringify({ errors: [{ message, extensions: { code: 'RATE_LIMITED', retryAfterSeconds: waitSeconds } }] }),
      { status: 429, headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': String(waitSeconds) } },
    );
  };
}

/**
 * Counts a WebSocket refused for its credential (4401) against its address, in the same allowance as
 * the HTTP 401s (one limiter for both): keys cannot be tried over WebSocket past the limit. Returns the
 * seconds to wait when the address has none left (the connection is then closed 4429 instead), else 0.
 */
export function takeFailedWebSocketAuthentication(limiter: RateLimiter, request: IncomingMessage | undefined): number {
  return limiter.take(addressOf(request));
}
