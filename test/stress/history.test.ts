// The stress run's verdict can fail: judge() on small hand-made histories finds each kind of broken promise it checks.
import { describe, expect, it } from 'vitest';
import { type EventRow, type ItemRow, judge, type Snapshot } from './history.js';
import { Ledger } from './ledger.js';

const T = 1_800_000_000_000;
const LEASE = 30_000;

function event(id: number, type: string, fields: Partial<EventRow>): EventRow {
  return {
    id,
    occurredAt: T,
    type,
    actor: 'r1',
    itemId: 1,
    leaseExpiresAt: null,
    leaseNumber: null,
    itemVersion: id,
    toStatus: null,
    details: '{}',
    ...fields,
  };
}

/** One item: added, claimed by r1 at T+1 s, decided ACCEPTED at T+2 s; the row and r1's acknowledgements agree. */
function decidedItem() {
  const events = [
    event(1, 'ITEM_ADDED', { actor: 'proposer' }),
    event(2, 'LEASE_CLAIMED', { occurredAt: T + 1_000, leaseNumber: 1, leaseExpiresAt: T + 1_000 + LEASE }),
    event(3, 'ITEM_DECIDED', { occurredAt: T + 2_000, leaseNumber: 1, toStatus: 'ACCEPTED', details: '{"finalCategory":"alpha"}' }),
  ];
  const item: ItemRow = {
    id: 1,
    batchId: 'b',
    recordId: 'r',
    status: 'ACCEPTED',
    finalCategory: 'alpha',
    reviewedBy: 'r1',
    decidedAt: T + 2_000,
    addedBy: 'proposer',
    leaseTokenHash: null,
    claimedBy: null,
    leaseExpiresAt: null,
    leaseNumber: 1,
    leaseExpiryRecorded: 0,
    version: 3,
  };
  const ledger = new Ledger();
  const where = { via: 'http' as const, actor: 'r1', batchId: 'b', recordId: 'r', leaseNumber: 1 };
  ledger.ack({ op: 'add', via: 'http', actor: 'proposer', batchId: 'b', recordId: 'r', at: T });
  ledger.ack({ op: 'claim', ...where, version: 2, tokenHash: 'h', expiresAt: T + 1_000 + LEASE, at: T + 1_000 });
  ledger.ack({ op: 'decide', ...where, version: 3, decision: 'ACCEPTED', finalCategory: 'alpha', at: T + 2_000 });
  return { item, events, ledger };
}

function failing(snapshot: Snapshot, ledger: Ledger, clockToleranceMs = 0): string[] {
  const { violations } = judge(snapshot, ledger, { loadEndedAt: T + 60_000, maxLeaseMs: 60_000, clockToleranceMs });
  return Object.entries(violations)
    .filter(([, list]) => list.length > 0)
    .map(([check]) => check);
}

describe('judge', () => {
  it('passes a history that keeps every promise', () => {
    const { item, events, ledger } = decidedItem();
    expect(failing({ items: [item], events, at: T + 60_000 }, ledger)).toEqual([]);
  });

  it('finds a second lease granted while the first still ran', () => {
    const { item, events, ledger } = decidedItem();
    const [added, claimed] = events as [EventRow, EventRow, EventRow];
    const overlapping = [
      added,
      claimed,
      event(3, 'LEASE_CLAIMED', { actor: 'r2', occurredAt: T + 1_500, leaseNumber: 2, leaseExpiresAt: T + 1_500 + LEASE }),
      event(4, 'ITEM_DECIDED', {
        actor: 'r2',
        occurredAt: T + 2_000,
        leaseNumber: 2,
        toStatus: 'ACCEPTED',
        details: '{"finalCategory":"alpha"}',
      }),
    ];
    const ledgerWithout = new Ledger();
    ledgerWithout.acks.push(...ledger.acks.filter((ack) => ack.op === 'add'));
    expect(
      failing({ items: [{ ...item, reviewedBy: 'r2', leaseNumber: 2, version: 4 }], events: overlapping, at: T + 60_000 }, ledgerWithout),
    ).toEqual(
      expect.arrayContaining([
        'leases: claimed in order, renewed/released/decided only while unexpired, never two unexpired at once',
        'expiry: every lapsed lease recorded as LEASE_EXPIRED exactly once, after it lapsed',
        'unacknowledged: every change in the history was acknowledged or its answer was lost',
      ]),
    );
  });

  it('finds an acknowledged decision missing from the history and from the row', () => {
    const { item, events, ledger } = decidedItem();
    const pending = { ...item, status: 'PENDING', finalCategory: null, reviewedBy: null, decidedAt: null, version: 2 };
    pending.leaseTokenHash = 'h';
    pending.claimedBy = 'r1';
    pending.leaseExpiresAt = T + 1_000 + LEASE;
    expect(failing({ items: [pending], events: events.slice(0, 2), at: T + 5_000 }, ledger)).toEqual([
      'acknowledged: every acknowledged change is in the history, once, as the client was told',
    ]);
  });

  it('finds a decision nobody was told about, unless a decide on that lease lost its answer', () => {
    const { item, events, ledger } = decidedItem();
    const untold = new Ledger();
    untold.acks.push(...ledger.acks.filter((ack) => ack.op !== 'decide'));
    expect(failing({ items: [item], events, at: T + 60_000 }, untold)).toEqual([
      'unacknowledged: every change in the history was acknowledged or its answer was lost',
    ]);
    untold.lost.push({ op: 'decide', via: 'http', actor: 'r1', batchId: 'b', recordId: 'r', leaseNumber: 1 });
    expect(failing({ items: [item], events, at: T + 60_000 }, untold)).toEqual([]);
  });

  it('finds a decision acknowledged differently from what was recorded, and a row that disagrees with its history', () => {
    const { item, events, ledger } = decidedItem();
    const told = ledger.acks.find((ack) => ack.op === 'decide');
    if (told) told.decision = 'REJECTED';
    expect(failing({ items: [{ ...item, status: 'CORRECTED' }], events, at: T + 60_000 }, ledger)).toEqual([
      'final state: the Item row is what its history says',
      'acknowledged: every acknowledged change is in the history, once, as the client was told',
    ]);
  });

  it('finds a lapse recorded twice, and a lapsed lease no server announced', () => {
    const { item, events, ledger } = decidedItem();
    const claimOnly = events.slice(0, 2);
    const lapsed = {
      ...item,
      status: 'PENDING',
      finalCategory: null,
      reviewedBy: null,
      decidedAt: null,
      leaseTokenHash: 'h',
      claimedBy: 'r1',
      leaseExpiresAt: T + 1_000 + LEASE,
      version: 2,
    };
    const decideAck = ledger.acks.findIndex((ack) => ack.op === 'decide');
    ledger.acks.splice(decideAck, 1);
    expect(failing({ items: [lapsed], events: claimOnly, at: T + 1_000 + LEASE + 10_000 }, ledger)).toEqual([
      'expiry: every lapsed lease recorded as LEASE_EXPIRED exactly once, after it lapsed',
    ]);
    const twice = [
      ...claimOnly,
      event(3, 'LEASE_EXPIRED', { actor: 'system', occurredAt: T + 1_000 + LEASE, leaseNumber: 1, leaseExpiresAt: T + 1_000 + LEASE }),
      event(4, 'LEASE_EXPIRED', { actor: 'system', occurredAt: T + 2_000 + LEASE, leaseNumber: 1, leaseExpiresAt: T + 1_000 + LEASE }),
    ];
    expect(
      failing({ items: [{ ...lapsed, leaseExpiryRecorded: 1, version: 4 }], events: twice, at: T + 1_000 + LEASE + 10_000 }, ledger),
    ).toEqual(['expiry: every lapsed lease recorded as LEASE_EXPIRED exactly once, after it lapsed']);
  });

  it("allows time to step back by at most the clocks' tolerance, where a release by one instance precedes a claim by another", () => {
    // r1 releases at T+2 s on an instance whose clock runs 3 ms ahead of r2's; r2's claim commits next, timed 3 ms earlier.
    const events = [
      event(1, 'ITEM_ADDED', { actor: 'proposer' }),
      event(2, 'LEASE_CLAIMED', { occurredAt: T + 1_000, leaseNumber: 1, leaseExpiresAt: T + 1_000 + LEASE }),
      event(3, 'LEASE_RELEASED', { occurredAt: T + 2_000, leaseNumber: 1 }),
      event(4, 'LEASE_CLAIMED', { actor: 'r2', occurredAt: T + 1_997, leaseNumber: 2, leaseExpiresAt: T + 1_997 + LEASE }),
    ];
    const item: ItemRow = {
      ...decidedItem().item,
      status: 'PENDING',
      finalCategory: null,
      reviewedBy: null,
      decidedAt: null,
      leaseTokenHash: 'h2',
      claimedBy: 'r2',
      leaseExpiresAt: T + 1_997 + LEASE,
      leaseNumber: 2,
      version: 4,
    };
    const ledger = new Ledger();
    ledger.ack({ op: 'add', via: 'http', actor: 'proposer', batchId: 'b', recordId: 'r', at: T });
    const where = { via: 'http' as const, batchId: 'b', recordId: 'r' };
    ledger.ack({ op: 'claim', ...where, actor: 'r1', leaseNumber: 1, version: 2, expiresAt: T + 1_000 + LEASE, at: T + 1_000 });
    ledger.ack({ op: 'release', ...where, actor: 'r1', leaseNumber: 1, version: 3, at: T + 2_000 });
    ledger.ack({
      op: 'claim',
      ...where,
      actor: 'r2',
      leaseNumber: 2,
      version: 4,
      tokenHash: 'h2',
      expiresAt: T + 1_997 + LEASE,
      at: T + 2_000,
    });
    const snapshot = { items: [item], events, at: T + 10_000 };
    expect(failing(snapshot, ledger, 5)).toEqual([]);
    expect(failing(snapshot, ledger, 2)).toEqual([
      "time: along each item's history (commit order) time never runs backwards beyond the clocks' tolerance",
      'leases: claimed in order, renewed/released/decided only while unexpired, never two unexpired at once',
    ]);
  });
});
