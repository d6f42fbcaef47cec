// Fixtures for action-proposal tests that go through the services directly: principals and a proposal input.
import type { Actor } from '../../src/services/context.js';
import type { NewProposal } from '../../src/services/proposals/index.js';

export const PROPOSER: Actor = { name: 'pricing-bot', authenticated: true };
export const REVIEWER: Actor = { name: 'tanaka', authenticated: true };
export const EXECUTOR: Actor = { name: 'worker-1', authenticated: true };
export const MINUTE = 60_000;

/** A LOW-risk price change for `recordId`, its fingerprint `v1-<recordId>`; `extra` overrides any field. */
export function proposalInput(recordId: string, extra: Partial<NewProposal> = {}): NewProposal {
  return {
    batchId: 'prices',
    recordId,
    action: 'set_price',
    parameters: { sku: recordId, price: 1299 },
    reason: 'Competitor lowered the price.',
    targetSystem: 'shop',
    targetId: recordId,
    currentValue: 1499,
    proposedValue: 1299,
    dataSource: 'crawler',
    riskLevel: 'LOW',
    fingerprint: `v1-${recordId}`,
    ...extra,
  };
}
