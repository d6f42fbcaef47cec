// Expiry lateness on the real clock: K leases of the minimum length, claimed over a few seconds by
// one REVIEWER, and a LEASE_EXPIRED subscriber (a principal of its own) per server. Lateness =
// receipt − leaseExpiresAt (and the server's own occurredAt − leaseExpiresAt); each lease must be
// announced exactly once.
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { machineBusyMs, processCpuMs } from './fanout.js';
import { gqlBody, graphqlClient } from './http.js';
import type { BenchKey } from './keys.js';
import { type SeedState, seedItems } from './load.js';
import { type Spread, spread } from './stats.js';
import { type EventPayload, openSubscribers, type PoolErrors, type SubscriberPool } from './ws-clients.js';

export const EXPIRY_QUERY =
  'subscription { queueEvents(filter: { types: [LEASE_EXPIRED] }) { sequence occurredAt leaseExpiresAt serverNow item { id } } }';

const CLAIM = `mutation($input: ClaimItemInput!) {
  claimItem(input: $input) {
    __typename
    ... on ClaimItemPayload { claimed item { id } lease { expiresAt } }
    ... on UserError { code message }
  }
}`;

export interface ExpiryOptions {
  /** Where the leases are claimed. */
  claimPort: number;
  /** Who adds the items (a PROPOSER), and who claims them (a REVIEWER). */
  proposer: BenchKey;
  reviewer: BenchKey;
  /** One LEASE_EXPIRED subscriber on each, authenticated with `key`. */
  subscribers: { label: string; port: number; key: BenchKey }[];
  leases: number;
  leaseSeconds: number;
  /** The claims are spread evenly over this long. */
  spreadMs: number;
  databaseFile: string;
  category: string;
  /** Wait at most this long after the last expiry for the announcements. */
  graceMs: number;
  /** The server processes, left out of `otherCpu`. */
  serverPids: number[];
  log: (message: string) => void;
}

export interface ExpirySubscriberResult {
  label: string;
  /** LEASE_EXPIRED payloads for the claimed leases. */
  received: number;
  /** Claimed leases never announced to this subscriber. */
  missing: number;
  /** Extra announcements of a lease already announced. */
  duplicates: number;
  /** LEASE_EXPIRED payloads for items this run did not claim. */
  strangers: number;
  /** Payloads whose leaseExpiresAt differs from the expiry claimItem returned. */
  expiryMismatches: number;
  /** receipt − leaseExpiresAt. */
  lateness: Spread;
  /** occurredAt − leaseExpiresAt (when the server recorded the lapse). */
  recordedLate: Spread;
  /** receipt − occurredAt. */
  delivery: Spread;
  errors: PoolErrors;
}

export interface ExpiryResult {
  leases: number;
  leaseSeconds: number;
  spreadSeconds: number;
  claimErrors: number;
  subscribers: ExpirySubscriberResult[];
  /** From the file: LEASE_EXPIRED events per claimed lease. */
  recordedOnce: number;
  recordedTwice: number;
  notRecorded: number;
  /** Seconds from the first claim until the last announcement arrived (or the grace ran out). */
  elapsedSeconds: number;
  /** CPU used by everything else on the machine from the first claim to the end, as a share of one core. */
  otherCpu: number;
}

interface Claimed {
  itemId: string;
  expiresAt: number;
}

export async function measureExpiry(options: ExpiryOptions): Promise<ExpiryResult> {
  const { log } = options;
  const seed: SeedState = { added: 0, category: options.category };
  await seedItems(options.claimPort, options.proposer, seed, options.leases, 'expiry');
  const batchId = 'expiry-000000-0';

  const received = options.subscribers.map(() => [] as { payload: EventPayload; receivedAt: number }[]);
  const pools: SubscriberPool[] = [];
  for (const [index, target] of options.subscribers.entries()) {
    pools.push(
      await openSubscribers({
        url: `ws://127.0.0.1:${target.port}/graphql`,
        count: 1,
        authorizations: [target.key.authorization],
        query: EXPIRY_QUERY,
        onPayload: (payload, receivedAt) => received[index]?.push({ payload, receivedAt }),
      }),
    );
  }
  const client = graphqlClient(options.claimPort, 1);
  const claimed = new Map<string, Claimed>();
  let otherMs = Number.NaN;
  let windowMs = Number.NaN;
  let claimErrors = 0;
  const ourCpu = () =>
    options.serverPids.reduce((sum, pid) => sum + processCpuMs(pid), 0) + process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000;
  const busyBefore = machineBusyMs();
  const oursBefore = ourCpu();
  const started = Date.now();
  try {
    const interval = options.spreadMs / options.leases;
    for (let index = 0; index < options.leases; index++) {
      const wait = started + index * interval - Date.now();
      if (wait > 0) await sleep(wait);
      try {
        const reply = await client.post(gqlBody(CLAIM, { input: { leaseSeconds: options.leaseSeconds, batchId } }), {
          authorization: options.reviewer.authorization,
        });
        const parsed = JSON.parse(reply.body) as {
          data?: { claimItem?: { claimed?: boolean; item?: { id: string }; lease?: { expiresAt: string } } };
        };
        const result = parsed.data?.claimItem;
        if (reply.status !== 200 || result?.claimed !== true || !result.item || !result.lease) claimErrors++;
        else claimed.set(result.item.id, { itemId: result.item.id, expiresAt: Date.parse(result.lease.expiresAt) });
      } catch {
        claimErrors++;
      }
    }
    const lastExpiry = Math.max(...[...claimed.values()].map((lease) => lease.expiresAt));
    log(
      `  ${claimed.size} leases of ${options.leaseSeconds} s claimed in ${((Date.now() - started) / 1000).toFixed(1)} s; waiting for their expiry (last at +${((lastExpiry - started) / 1000).toFixed(1)} s)…`,
    );
    const deadline = lastExpiry + options.graceMs;
    const complete = () => received.every((list) => new Set(list.map((entry) => entry.payload.item?.id)).size >= claimed.size);
    while (!complete() && Date.now() < deadline) await sleep(100);
    // Give a duplicate, if any, a moment to show up.
    await sleep(500);
  } finally {
    otherMs = machineBusyMs() - busyBefore - (ourCpu() - oursBefore);
    windowMs = Date.now() - started;
    client.close();
    await Promise.all(pools.map((pool) => pool.close()));
  }
  const elapsedSeconds = (Math.max(...received.flatMap((list) => list.map((entry) => entry.receivedAt)), started) - started) / 1000;

  const subscribers = options.subscribers.map((target, index): ExpirySubscriberResult => {
    const list = received[index] ?? [];
    const seen = new Map<string, number>();
    const lateness: number[] = [];
    const recordedLate: number[] = [];
    const delivery: number[] = [];
    let strangers = 0;
    let expiryMismatches = 0;
    for (const { payload, receivedAt } of list) {
      const lease = payload.item?.id ? claimed.get(payload.item.id) : undefined;
      if (!lease) {
        strangers++;
        continue;
      }
      seen.set(lease.itemId, (seen.get(lease.itemId) ?? 0) + 1);
      const announcedExpiry = payload.leaseExpiresAt ? Date.parse(payload.leaseExpiresAt) : Number.NaN;
      if (announcedExpiry !== lease.expiresAt) expiryMismatches++;
      const occurredAt = payload.occurredAt ? Date.parse(payload.occurredAt) : Number.NaN;
      lateness.push(receivedAt - lease.expiresAt);
      recordedLate.push(occurredAt - lease.expiresAt);
      delivery.push(receivedAt - occurredAt);
    }
    const counts = [...seen.values()];
    return {
      label: target.label,
      received: counts.reduce((sum, count) => sum + count, 0),
      missing: claimed.size - seen.size,
      duplicates: counts.reduce((sum, count) => sum + count - 1, 0),
      strangers,
      expiryMismatches,
      lateness: spread(lateness),
      recordedLate: spread(recordedLate),
      delivery: spread(delivery),
      errors: pools[index]?.errors ?? { connection: 0, graphql: 0, completed: 0, malformed: 0 },
    };
  });

  // The file's own account: LEASE_EXPIRED events per claimed lease (item, lease number 1).
  const db = new Database(options.databaseFile, { readonly: true, fileMustExist: true });
  let recordedOnce = 0;
  let recordedTwice = 0;
  let notRecorded = 0;
  try {
    const rows = db
      .prepare(
        `SELECT i."id" AS id, (SELECT count(*) FROM "Event" e WHERE e."itemId" = i."id" AND e."type" = 'LEASE_EXPIRED') AS n
         FROM "Item" i WHERE i."batchId" = ?`,
      )
      .all(batchId) as { id: number; n: number }[];
    for (const row of rows) {
      if (row.n === 1) recordedOnce++;
      else if (row.n > 1) recordedTwice++;
      else notRecorded++;
    }
  } finally {
    db.close();
  }

  return {
    leases: claimed.size,
    leaseSeconds: options.leaseSeconds,
    spreadSeconds: options.spreadMs / 1000,
    claimErrors,
    subscribers,
    recordedOnce,
    recordedTwice,
    notRecorded,
    elapsedSeconds,
    otherCpu: Math.max(0, otherMs) / windowMs,
  };
}
