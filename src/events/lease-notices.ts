// The lease holder's own stream: renewed, expiring soon, expired, lost to a re-claim, released,
// decided. Built from the feed for one (item, lease number), plus a warning timer on the clock.
import { GraphQLError } from 'graphql';
import type { Item } from '../db/client.js';
import type { Timer } from '../domain/clock.js';
import { hashLeaseToken } from '../domain/lease.js';
import type { FeedEvent } from './feed.js';
import type { Live } from './live.js';

export type LeaseNoticeKind = 'RENEWED' | 'EXPIRING' | 'EXPIRED' | 'LOST' | 'RELEASED' | 'DECIDED';

export interface LeaseNotice {
  kind: LeaseNoticeKind;
  itemId: number;
  leaseNumber: number;
  /** The lease's expiry as this notice leaves it (null once it has ended). */
  expiresAt: Date | null;
  /** The recorded event behind the notice; none for EXPIRING, which is a reminder, not a change. */
  event: FeedEvent | null;
  item: Item | null;
}

const TERMINAL: ReadonlySet<LeaseNoticeKind> = new Set(['LOST', 'RELEASED', 'DECIDED']);

function noticeFor(event: FeedEvent, leaseNumber: number): LeaseNoticeKind | null {
  if (event.type === 'LEASE_CLAIMED' && (event.leaseNumber ?? 0) > leaseNumber) return 'LOST';
  if (event.leaseNumber !== leaseNumber) return null;
  switch (event.type) {
    case 'LEASE_RENEWED':
      return 'RENEWED';
    case 'LEASE_EXPIRED':
      return 'EXPIRED';
    case 'LEASE_RELEASED':
      return 'RELEASED';
    case 'ITEM_DECIDED':
      return 'DECIDED';
    default:
      return null;
  }
}

/**
 * Notices for the lease `token` proves. Refused with CLAIM_NOT_FOUND when no pending item holds it.
 * Ends after LOST, RELEASED or DECIDED. Only `holder` may follow it (NOT_LEASE_HOLDER otherwise).
 */
export async function leaseNotices(live: Live, token: string, holder: string): Promise<AsyncIterableIterator<LeaseNotice>> {
  // Events delivered while the lease is looked up are kept and replayed below, so none falls between
  // the read and the listener.
  const early: FeedEvent[] = [];
  const stopEarly = live.feed.listen((events) => {
    early.push(...events);
  });
  let held: Item | null;
  try {
    held = await live.tail.itemByLeaseTokenHash(hashLeaseToken(token));
  } finally {
    stopEarly();
  }
  if (held?.status !== 'PENDING' || held.leaseExpiresAt === null) {
    throw new GraphQLError('No pending item holds this token: it was never issued, or was released, decided or replaced.', {
      extensions: { code: 'CLAIM_NOT_FOUND', field: 'token' },
    });
  }
  if (held.claimedBy !== holder) {
    throw new GraphQLError('This lease is held by another principal; only its holder may follow it.', {
      extensions: { code: 'NOT_LEASE_HOLDER', field: 'token' },
    });
  }
  const itemId = held.id;
  const leaseNumber = held.leaseNumber;
  let expiresAt: Date | null = held.leaseExpiresAt;
  const queue: LeaseNotice[] = [];
  let closed = false;
  let finished = false;
  let waiting: ((result: IteratorResult<LeaseNotice>) => void) | null = null;
  let warning: Timer | null = null;

  const push = (notice: LeaseNotice) => {
    if (finished) return;
    if (TERMINAL.has(notice.kind)) finished = true;
    if (notice.kind !== 'EXPIRING' && notice.kind !== 'RENEWED') {
      warning?.cancel();
      warning = null;
    }
    if (waiting) {
      const resolve = waiting;
      waiting = null;
      resolve({ done: false, value: notice });
    } else queue.push(notice);
  };
  const armWarning = () => {
    warning?.cancel();
    warning = null;
    if (expiresAt === null) return;
    const at = new Date(expiresAt.getTime() - live.leaseWarningMs);
    const until = expiresAt;
    warning = live.clock.setTimer(at, () => {
      if (live.clock.now() < until) push({ kind: 'EXPIRING', itemId, leaseNumber, expiresAt: until, event: null, item: null });
    });
  };
  const onEvents = (events: readonly FeedEvent[]) => {
    for (const event of events) {
      if (event.itemId !== itemId) continue;
      const kind = noticeFor(event, leaseNumber);
      if (!kind) continue;
      if (kind === 'RENEWED') {
        expiresAt = event.leaseExpiresAt;
        armWarning();
      } else if (kind !== 'EXPIRED') expiresAt = null;
      push({
        kind,
        itemId,
        leaseNumber,
        expiresAt: kind === 'EXPIRED' ? event.leaseExpiresAt : expiresAt,
        event,
        item: event.itemSnapshot,
      });
    }
  };
  // Only what happened after the state read above (the item's version orders its changes).
  const heldVersion = held.version;
  onEvents(early.filter((event) => event.itemId === itemId && (event.itemVersion ?? 0) > heldVersion));
  const unlisten = live.feed.listen(onEvents);
  armWarning();
  // A lease that lapsed before the subscription started is reported at once (its event may never come
  // again), as is a lease already taken over by the time we looked.
  if (live.clock.now() >= held.leaseExpiresAt && held.leaseExpiryRecorded) {
    push({ kind: 'EXPIRED', itemId, leaseNumber, expiresAt: held.leaseExpiresAt, event: null, item: held });
  }

  const close = () => {
    closed = true;
    unlisten();
    warning?.cancel();
    waiting?.({ done: true, value: undefined });
    waiting = null;
  };
  const iterator: AsyncIterableIterator<LeaseNotice> = {
    [Symbol.asyncIterator]() {
      return iterator;
    },
    async next() {
      if (closed) return { done: true, value: undefined };
      const queued = queue.shift();
      if (queued) return { done: false, value: queued };
      if (finished) {
        close();
        return { done: true, value: undefined };
      }
      return new Promise((resolve) => {
        waiting = resolve;
      });
    },
    async return() {
      close();
      return { done: true, value: undefined };
    },
  };
  return iterator;
}
