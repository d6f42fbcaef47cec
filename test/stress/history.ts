// The verdict: replays the Event table item by item and compares it with the Item table and with what the clients
// were told. No two unexpired leases at once, every acknowledged change in the history exactly once, nothing in the
// history a client was not told about unless that client's answer was lost, and the final state the history implies.
import type { Ack, Ledger } from './ledger.js';

export interface ItemRow {
  id: number;
  batchId: string;
  recordId: string;
  status: string;
  finalCategory: string | null;
  reviewedBy: string | null;
  decidedAt: number | null;
  addedBy: string;
  leaseTokenHash: string | null;
  claimedBy: string | null;
  leaseExpiresAt: number | null;
  leaseNumber: number;
  leaseExpiryRecorded: number;
  version: number;
}

export interface EventRow {
  id: number;
  occurredAt: number;
  type: string;
  actor: string;
  itemId: number;
  leaseExpiresAt: number | null;
  leaseNumber: number | null;
  itemVersion: number | null;
  toStatus: string | null;
  details: string;
}

export interface Snapshot {
  items: ItemRow[];
  /** Every event about an item, in commit (id) order. */
  events: EventRow[];
  /** Client clock when the snapshot was read. */
  at: number;
}

export interface Verdict {
  /** Named checks, each with the violations found (empty when it holds). */
  violations: Record<string, string[]>;
  figures: Record<string, number>;
}

/** A lease lapsed this long ago must be recorded by then: the announcer's timer, a feed poll and one write. */
const ANNOUNCE_GRACE_MS = 1_500;

interface Interval {
  leaseNumber: number;
  holder: string;
  start: number;
  end: number;
  /** How the lease ended: released, decided, expired (recorded), or still open at the snapshot. */
  closedBy: 'LEASE_RELEASED' | 'ITEM_DECIDED' | 'LEASE_EXPIRED' | null;
  expiredRecorded: number;
}

const LEASE_EVENTS = new Set(['LEASE_CLAIMED', 'LEASE_RENEWED', 'LEASE_RELEASED', 'LEASE_EXPIRED', 'ITEM_DECIDED']);

const key = (batchId: string, recordId: string) => `${batchId}\u0000${recordId}`;
const leaseKey = (itemId: number, leaseNumber: number | null | undefined) => `${itemId}#${leaseNumber}`;

export interface JudgeOptions {
  loadEndedAt: number;
  maxLeaseMs: number;
  /**
   * How far apart the clocks of the processes that wrote the history may be, in ms: 0 when they share one clock (SQLite:
   * every writer on one machine reads its clock under the write lock, so time never runs backwards in commit order).
   * On PostgreSQL each instance follows the database server's clock by a measured offset, known only to within a few
   * ms (decision 0008), so an event may carry a time a little before the event committed just before it by another
   * instance. Along an item's history (commit order) time may then step back by at most this much, and a lease that
   * ended by a release or decision may seem to overlap the next one by at most this much: the write lock ordered them.
   */
  clockToleranceMs?: number;
}

export function judge(snapshot: Snapshot, ledger: Ledger, options: JudgeOptions): Verdict {
  const tolerance = options.clockToleranceMs ?? 0;
  const violations: Record<string, string[]> = {
    'item versions: 1, 2, 3, … per item, the last one on the row': [],
    "time: along each item's history (commit order) time never runs backwards beyond the clocks' tolerance": [],
    'leases: claimed in order, renewed/released/decided only while unexpired, never two unexpired at once': [],
    'expiry: every lapsed lease recorded as LEASE_EXPIRED exactly once, after it lapsed': [],
    'final state: the Item row is what its history says': [],
    'decisions: at most one ITEM_DECIDED per item': [],
    'acknowledged: every acknowledged change is in the history, once, as the client was told': [],
    'unacknowledged: every change in the history was acknowledged or its answer was lost': [],
    'stuck: every remaining lease ends within the longest lease after the load': [],
  };
  const fail = (check: keyof typeof violations, text: string) => violations[check]?.push(text);

  const itemsById = new Map(snapshot.items.map((item) => [item.id, item]));
  const itemsByKey = new Map(snapshot.items.map((item) => [key(item.batchId, item.recordId), item]));
  const history = new Map<number, EventRow[]>();
  for (const event of snapshot.events) {
    const list = history.get(event.itemId) ?? [];
    list.push(event);
    history.set(event.itemId, list);
  }

  // Replay each item's history.
  const claimEvents = new Map<string, EventRow>();
  const decidedEvents = new Map<number, EventRow>();
  let intervals = 0;
  let lapsedAndRecorded = 0;
  let stepsBack = 0;
  let largestStepBack = 0;
  for (const item of snapshot.items) {
    const events = history.get(item.id) ?? [];
    const label = `${item.batchId}/${item.recordId} (id ${item.id})`;
    for (let index = 1; index < events.length; index++) {
      const before = events[index - 1] as EventRow;
      const after = events[index] as EventRow;
      const back = before.occurredAt - after.occurredAt;
      if (back <= 0) continue;
      stepsBack += 1;
      largestStepBack = Math.max(largestStepBack, back);
      if (back > tolerance) {
        fail(
          "time: along each item's history (commit order) time never runs backwards beyond the clocks' tolerance",
          `${label}: event ${after.id} ${after.type} by ${after.actor} at ${after.occurredAt}, ${back} ms before event ${before.id} ${before.type} by ${before.actor}`,
        );
      }
    }
    const versions = events.map((event) => event.itemVersion);
    if (versions.some((version, index) => version !== index + 1) || versions.at(-1) !== item.version || events[0]?.type !== 'ITEM_ADDED') {
      fail('item versions: 1, 2, 3, … per item, the last one on the row', `${label}: versions ${versions.join(',')}, row ${item.version}`);
    }

    const leases: Interval[] = [];
    let current = null as Interval | null;
    let decided: EventRow | null = null;
    for (const event of events) {
      if (!LEASE_EVENTS.has(event.type)) continue;
      const at = event.occurredAt;
      const where = `${label} event ${event.id} ${event.type} lease ${event.leaseNumber} by ${event.actor} at ${at}`;
      if (decided)
        fail(
          'leases: claimed in order, renewed/released/decided only while unexpired, never two unexpired at once',
          `${where}: after the decision`,
        );
      if (event.type === 'LEASE_CLAIMED') {
        const expected: number = (current?.leaseNumber ?? 0) + 1;
        if (event.leaseNumber !== expected) {
          fail(
            'leases: claimed in order, renewed/released/decided only while unexpired, never two unexpired at once',
            `${where}: expected lease ${expected}`,
          );
        }
        if (current && current.closedBy === null) {
          // Replacing a lease is only allowed once it has lapsed, and its lapse is recorded first.
          fail(
            'expiry: every lapsed lease recorded as LEASE_EXPIRED exactly once, after it lapsed',
            `${where}: lease ${current.leaseNumber} (until ${current.end}) replaced without a LEASE_EXPIRED`,
          );
          if (at < current.end) {
            fail(
              'leases: claimed in order, renewed/released/decided only while unexpired, never two unexpired at once',
              `${where}: lease ${current.leaseNumber} by ${current.holder} still ran until ${current.end}`,
            );
          }
          current.end = Math.min(current.end, at);
        }
        current = {
          leaseNumber: event.leaseNumber ?? -1,
          holder: event.actor,
          start: at,
          end: event.leaseExpiresAt ?? Number.NaN,
          closedBy: null,
          expiredRecorded: 0,
        };
        leases.push(current);
        claimEvents.set(leaseKey(item.id, event.leaseNumber), event);
        continue;
      }
      if (!current || event.leaseNumber !== current.leaseNumber) {
        fail(
          'leases: claimed in order, renewed/released/decided only while unexpired, never two unexpired at once',
          `${where}: not the current lease ${current?.leaseNumber}`,
        );
        continue;
      }
      if (event.type === 'LEASE_EXPIRED') {
        current.expiredRecorded += 1;
        if (current.expiredRecorded > 1 || current.closedBy !== null || at < current.end) {
          fail(
            'expiry: every lapsed lease recorded as LEASE_EXPIRED exactly once, after it lapsed',
            `${where}: lease until ${current.end}, closed by ${current.closedBy}, recorded ${current.expiredRecorded} times`,
          );
        }
        current.closedBy = 'LEASE_EXPIRED';
        continue;
      }
      // Renew, release and decide need the lease unexpired at the moment they happen, and its holder.
      if (current.closedBy !== null || !(at < current.end) || event.actor !== current.holder) {
        fail(
          'leases: claimed in order, renewed/released/decided only while unexpired, never two unexpired at once',
          `${where}: lease by ${current.holder} until ${current.end}, closed by ${current.closedBy}`,
        );
      }
      if (event.type === 'LEASE_RENEWED') {
        current.end = event.leaseExpiresAt ?? Number.NaN;
      } else {
        current.end = Math.min(current.end, at);
        current.closedBy = event.type as 'LEASE_RELEASED' | 'ITEM_DECIDED';
        if (event.type === 'ITEM_DECIDED') {
          if (decidedEvents.has(item.id))
            fail('decisions: at most one ITEM_DECIDED per item', `${where}: also event ${decidedEvents.get(item.id)?.id}`);
          decided = event;
          decidedEvents.set(item.id, event);
        }
      }
    }

    // The explicit form of the promise: sorted by start, each lease starts no earlier than the previous one ended. A
    // lease ended by its holder (release, decision) ends at that event's time, from its writer's clock: the next lease
    // may then seem to start up to the clocks' tolerance earlier. A lapse is decided by the claiming writer's own clock.
    intervals += leases.length;
    for (let index = 1; index < leases.length; index++) {
      const previous = leases[index - 1] as Interval;
      const next = leases[index] as Interval;
      const slack = previous.closedBy === 'LEASE_RELEASED' || previous.closedBy === 'ITEM_DECIDED' ? tolerance : 0;
      if (next.start + slack < previous.end) {
        fail(
          'leases: claimed in order, renewed/released/decided only while unexpired, never two unexpired at once',
          `${label}: lease ${next.leaseNumber} (${next.holder}) from ${next.start} overlaps lease ${previous.leaseNumber} (${previous.holder}) until ${previous.end}`,
        );
      }
    }
    lapsedAndRecorded += leases.filter((lease) => lease.closedBy === 'LEASE_EXPIRED').length;

    // The row agrees with the replay.
    const row = (text: string) => fail('final state: the Item row is what its history says', `${label}: ${text}`);
    if (decided) {
      const details = JSON.parse(decided.details) as { finalCategory?: string | null };
      if (item.status !== decided.toStatus) row(`status ${item.status}, last decision ${decided.toStatus}`);
      if (item.reviewedBy !== decided.actor) row(`reviewedBy ${item.reviewedBy}, decided by ${decided.actor}`);
      if ((item.finalCategory ?? null) !== (details.finalCategory ?? null))
        row(`finalCategory ${item.finalCategory}, decided ${details.finalCategory}`);
      if (item.decidedAt !== decided.occurredAt) row(`decidedAt ${item.decidedAt}, decided at ${decided.occurredAt}`);
      if (item.leaseTokenHash !== null || item.leaseExpiresAt !== null) row('decided but still leased');
    } else {
      if (item.status !== 'PENDING') row(`status ${item.status} without an ITEM_DECIDED`);
      const open = current && current.closedBy !== 'LEASE_RELEASED';
      if (item.leaseNumber !== (current?.leaseNumber ?? 0)) row(`leaseNumber ${item.leaseNumber}, history ${current?.leaseNumber ?? 0}`);
      if (open && current) {
        if (item.leaseTokenHash === null || item.claimedBy !== current.holder || item.leaseExpiresAt !== current.end) {
          row(
            `lease ${current.leaseNumber} by ${current.holder} until ${current.end}, row: ${item.claimedBy} until ${item.leaseExpiresAt}`,
          );
        }
        if (item.leaseExpiryRecorded !== (current.closedBy === 'LEASE_EXPIRED' ? 1 : 0))
          row(`leaseExpiryRecorded ${item.leaseExpiryRecorded}`);
      } else if (item.leaseTokenHash !== null) {
        row(`a token hash without an open lease in the history`);
      }
    }

    // Nothing stuck: a lapsed lease is announced by a running server; an open one ends within the longest lease.
    if (item.status === 'PENDING' && item.leaseTokenHash !== null && item.leaseExpiresAt !== null) {
      if (item.leaseExpiryRecorded === 0 && item.leaseExpiresAt <= snapshot.at - ANNOUNCE_GRACE_MS) {
        fail(
          'expiry: every lapsed lease recorded as LEASE_EXPIRED exactly once, after it lapsed',
          `${label}: lease ${item.leaseNumber} lapsed at ${item.leaseExpiresAt}, ${snapshot.at - item.leaseExpiresAt} ms before the snapshot, not recorded`,
        );
      }
      if (item.leaseExpiresAt > options.loadEndedAt + options.maxLeaseMs) {
        fail('stuck: every remaining lease ends within the longest lease after the load', `${label}: lease until ${item.leaseExpiresAt}`);
      }
    }
  }

  // What the clients were told, against the history.
  const acked = (text: string) => fail('acknowledged: every acknowledged change is in the history, once, as the client was told', text);
  const eventsByVersion = new Map<string, EventRow>();
  for (const event of snapshot.events) eventsByVersion.set(`${event.itemId}@${event.itemVersion}`, event);
  const matchedEvents = new Set<number>();
  const claimAcks = new Map<string, Ack>();
  const decisionAcks = new Map<number, Ack>();
  const addAcks = new Set<string>();
  for (const ack of ledger.acks) {
    const item = itemsByKey.get(key(ack.batchId, ack.recordId));
    const label = `${ack.via} ${ack.op} by ${ack.actor} on ${ack.batchId}/${ack.recordId} lease ${ack.leaseNumber ?? '?'} v${ack.version ?? '?'}`;
    if (!item) {
      acked(`${label}: no such item`);
      continue;
    }
    const events = history.get(item.id) ?? [];
    if (ack.op === 'add') {
      if (addAcks.has(key(ack.batchId, ack.recordId))) acked(`${label}: acknowledged twice`);
      addAcks.add(key(ack.batchId, ack.recordId));
      if (item.addedBy !== ack.actor) acked(`${label}: addedBy ${item.addedBy}`);
      if (events[0]?.type === 'ITEM_ADDED') matchedEvents.add(events[0].id);
      continue;
    }
    let event: EventRow | undefined;
    if (ack.via === 'http') {
      event = eventsByVersion.get(`${item.id}@${ack.version}`);
    } else if (ack.op === 'claim') {
      // The command line prints seed A's whole seconds and no lease number: its claim is the one by its reviewer in that second.
      event = events.find(
        (candidate) =>
          candidate.type === 'LEASE_CLAIMED' &&
          candidate.actor === ack.actor &&
          Math.floor(candidate.occurredAt / 1000) === ack.claimedAtSecond &&
          !matchedEvents.has(candidate.id),
      );
    } else {
      const type = { renew: 'LEASE_RENEWED', release: 'LEASE_RELEASED', decide: 'ITEM_DECIDED' }[ack.op];
      event = events.find(
        (candidate) =>
          candidate.type === type &&
          candidate.actor === ack.actor &&
          !matchedEvents.has(candidate.id) &&
          Math.abs(candidate.occurredAt - ack.at) < 60_000,
      );
    }
    const type = { claim: 'LEASE_CLAIMED', renew: 'LEASE_RENEWED', release: 'LEASE_RELEASED', decide: 'ITEM_DECIDED' }[ack.op];
    if (!event || event.type !== type || event.actor !== ack.actor) {
      acked(`${label}: history has ${event ? `${event.type} by ${event.actor}` : 'nothing'}`);
      continue;
    }
    if (matchedEvents.has(event.id)) acked(`${label}: event ${event.id} acknowledged twice`);
    matchedEvents.add(event.id);
    if (ack.leaseNumber !== undefined && event.leaseNumber !== ack.leaseNumber)
      acked(`${label}: event ${event.id} is about lease ${event.leaseNumber}`);
    if (ack.expiresAt !== undefined) {
      const recorded = ack.via === 'cli' ? Math.floor((event.leaseExpiresAt ?? 0) / 1000) * 1000 : event.leaseExpiresAt;
      if (recorded !== ack.expiresAt) acked(`${label}: told expiry ${ack.expiresAt}, recorded ${event.leaseExpiresAt}`);
    }
    if (ack.op === 'claim') {
      const lease = leaseKey(item.id, event.leaseNumber);
      if (claimAcks.has(lease)) acked(`${label}: lease ${event.leaseNumber} acknowledged to ${claimAcks.get(lease)?.actor} too`);
      claimAcks.set(lease, ack);
      // The token the client holds is the one the row holds, while that lease is current.
      if (item.leaseNumber === event.leaseNumber && item.leaseTokenHash !== null && item.leaseTokenHash !== ack.tokenHash) {
        acked(`${label}: the row holds another token for this lease`);
      }
    }
    if (ack.op === 'decide') {
      if (decisionAcks.has(item.id)) acked(`${label}: a second acknowledged decision (first by ${decisionAcks.get(item.id)?.actor})`);
      decisionAcks.set(item.id, ack);
      if (event.toStatus !== ack.decision) acked(`${label}: told ${ack.decision}, recorded ${event.toStatus}`);
      if (decidedEvents.get(item.id)?.id !== event.id) acked(`${label}: not the item's decision`);
    }
  }

  // Changes nobody was told about: each needs a lost answer of the same kind (on the same lease, where known).
  const unacked = (text: string) => fail('unacknowledged: every change in the history was acknowledged or its answer was lost', text);
  const lostOnLease = new Map<string, number>();
  const lostByActor = new Map<string, number>();
  for (const lost of ledger.lost) {
    const item = lost.batchId === undefined ? undefined : itemsByKey.get(key(lost.batchId, lost.recordId ?? ''));
    if (item)
      lostOnLease.set(
        `${lost.op}:${leaseKey(item.id, lost.leaseNumber)}`,
        (lostOnLease.get(`${lost.op}:${leaseKey(item.id, lost.leaseNumber)}`) ?? 0) + 1,
      );
    lostByActor.set(`${lost.op}:${lost.actor}`, (lostByActor.get(`${lost.op}:${lost.actor}`) ?? 0) + 1);
  }
  const OPS: Record<string, string> = {
    LEASE_CLAIMED: 'claim',
    LEASE_RENEWED: 'renew',
    LEASE_RELEASED: 'release',
    ITEM_DECIDED: 'decide',
    ITEM_ADDED: 'add',
  };
  const lostAdders = new Set(ledger.lost.filter((lost) => lost.op === 'add').map((lost) => lost.actor));
  for (const item of snapshot.items) {
    if (!addAcks.has(key(item.batchId, item.recordId)) && !lostAdders.has(item.addedBy)) {
      unacked(`item ${item.batchId}/${item.recordId} added by ${item.addedBy}: no client was told, and no answer was lost`);
    }
  }
  let unackedCount = 0;
  for (const event of snapshot.events) {
    const op = OPS[event.type];
    if (!op || matchedEvents.has(event.id)) continue;
    // Items seeded before the load are acknowledged as a whole by the seeding, checked by count below.
    if (event.type === 'ITEM_ADDED') continue;
    unackedCount += 1;
    const item = itemsById.get(event.itemId) as ItemRow;
    const budgetKey = op === 'claim' ? `claim:${event.actor}` : `${op}:${leaseKey(event.itemId, event.leaseNumber)}`;
    const budget = op === 'claim' ? lostByActor : lostOnLease;
    const left = budget.get(budgetKey) ?? 0;
    if (left <= 0) {
      unacked(
        `event ${event.id} ${event.type} by ${event.actor} on ${item.batchId}/${item.recordId} lease ${event.leaseNumber}: no client was told, and no answer was lost`,
      );
    } else {
      budget.set(budgetKey, left - 1);
    }
  }

  return {
    violations,
    figures: {
      items: snapshot.items.length,
      'item events': snapshot.events.length,
      'leases (intervals replayed)': intervals,
      'leases lapsed and recorded (LEASE_EXPIRED)': lapsedAndRecorded,
      'items decided': decidedEvents.size,
      'decisions acknowledged': decisionAcks.size,
      'history changes whose answer was lost': unackedCount,
      'events timed before the event committed before them (clock skew)': stepsBack,
      'largest such step back (ms)': largestStepBack,
      'items still leased at the snapshot': snapshot.items.filter(
        (item) => item.status === 'PENDING' && item.leaseTokenHash !== null && item.leaseExpiryRecorded === 0,
      ).length,
    },
  };
}
