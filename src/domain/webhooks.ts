// Outbound webhook rules: how a delivery is signed, and when a failed one is tried again (docs/webhooks.md).
import { createHmac } from 'node:crypto';

/** Sends per delivery, the first included; after the last failed one the delivery is FAILED. */
export const WEBHOOK_MAX_ATTEMPTS = 12;
/** The wait after the first failure; it doubles after each further one, up to WEBHOOK_MAX_DELAY_MS. */
export const WEBHOOK_FIRST_DELAY_MS = 10_000;
export const WEBHOOK_MAX_DELAY_MS = 3_600_000;
/** Each wait is lengthened by up to this fraction at random, so receivers coming back are not hit by every retry at once. */
export const WEBHOOK_JITTER = 0.2;

/**
 * How long to wait after the `attempts`-th failed send: 10 s × 2^(attempts−1), at most 1 h, lengthened
 * by a random part of up to 20 % (`random` in [0, 1)). Null once the last attempt has been made.
 */
export function webhookRetryDelayMs(attempts: number, random: number): number | null {
  if (attempts >= WEBHOOK_MAX_ATTEMPTS) return null;
  const base = Math.min(WEBHOOK_FIRST_DELAY_MS * 2 ** (attempts - 1), WEBHOOK_MAX_DELAY_MS);
  return Math.round(base * (1 + WEBHOOK_JITTER * random));
}

/**
 * The `Leasehold-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. The
 * time is signed with the body, so a receiver can refuse an old delivery replayed to it.
 */
export function webhookSignature(secret: string, body: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}
