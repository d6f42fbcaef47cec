// The webhook retry schedule and signature, as docs/webhooks.md states them.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { webhookRetryDelayMs, webhookSignature } from '../../src/domain/webhooks.js';

describe('webhookRetryDelayMs', () => {
  it.each([
    [1, 10_000],
    [2, 20_000],
    [3, 40_000],
    [8, 1_280_000],
    [9, 2_560_000],
    [10, 3_600_000],
    [11, 3_600_000],
  ])('after failed attempt %i waits %i ms, plus up to 20 percent jitter', (attempts, base) => {
    expect(webhookRetryDelayMs(attempts, 0)).toBe(base);
    expect(webhookRetryDelayMs(attempts, 0.5)).toBe(Math.round(base * 1.1));
    expect(webhookRetryDelayMs(attempts, 0.999_999)).toBeLessThanOrEqual(base * 1.2);
  });

  it('gives up after the 12th attempt', () => {
    expect(webhookRetryDelayMs(12, 0)).toBeNull();
  });
});

describe('webhookSignature', () => {
  it('is t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">', () => {
    const at = new Date(Date.UTC(2026, 10, 30, 9, 0, 0, 999));
    const t = Math.floor(at.getTime() / 1000);
    const expected = createHmac('sha256', 's'.repeat(32)).update(`${t}.{"a":1}`).digest('hex');
    expect(webhookSignature('s'.repeat(32), '{"a":1}', at)).toBe(`t=${t},v1=${expected}`);
  });
});
