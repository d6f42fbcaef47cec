// The live measurements, on their own pair of servers and file (so the review-cycle checks above stay
// exact): fan-out latency to many subscribers of server A, cross-process delivery to subscribers of
// a second server B on the same file, and expiry lateness on the real clock. Every subscriber is a
// VIEWER principal with its own key (watching needs no more); items are added by a PROPOSER, the
// expiry leases claimed by a REVIEWER.
import path from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig } from '../src/config.js';
import { type ExpiryResult, measureExpiry } from './expiry.js';
import { type FanOutResult, measureFanOut, type Round, sqliteHistory } from './fanout.js';
import { type BenchKey, keysNamed, makeKeys, principals } from './keys.js';
import { seedCategories } from './load.js';
import { type RunningServer, startServer } from './server.js';
import type { Verification } from './verification.js';

export interface LiveOptions {
  quick: boolean;
  subscribers: number;
  crossSubscribers: number;
  events: number;
  /** Worker processes holding the main group of subscribers. */
  wsWorkers: number;
  expiry: boolean;
  leases: number;
}

export interface LiveReport {
  options: LiveOptions;
  /** The server defaults the measurements ran with. */
  feedPollMs: number;
  leaseWarningSeconds: number;
  fanOut: FanOutResult;
  cross: FanOutResult;
  expiry: ExpiryResult | null;
  verifications: Verification[];
  serverLogLines: string[];
}

export const FANOUT_TARGET_MS = 100;
export const EXPIRY_TARGET_MS = 250;
const CATEGORY = 'bench-live';

/** Full runs: the brief's 5 ms spacing open loop, a steady lower rate, and a writer that waits for each answer. */
export function roundsFor(options: Pick<LiveOptions, 'quick' | 'events'>): Round[] {
  if (options.quick) return [{ events: options.events, intervalMs: 5, openLoop: true }];
  return [
    { events: options.events, intervalMs: 5, openLoop: false },
    { events: options.events, intervalMs: 50, openLoop: true },
    { events: options.events, intervalMs: 5, openLoop: true },
  ];
}

/** One verification: every event reached every subscriber of `result` once, in order; labelled `${part}: ${label}: …`. */
export function fanOutChecks(label: string, result: FanOutResult, part = 'live'): Verification[] {
  const problems: string[] = [];
  let deliveries = 0;
  let expected = 0;
  for (const [index, round] of result.rounds.entries()) {
    if (round.matchedEvents !== round.events) problems.push(`round ${index + 1}: ${round.matchedEvents} of ${round.events} events matched`);
    if (round.mutationErrors > 0) problems.push(`round ${index + 1}: ${round.mutationErrors} addItem errors`);
    if (!round.drained) problems.push(`round ${index + 1}: not drained`);
    for (const group of round.groups) {
      deliveries += group.delivered;
      expected += group.expected;
      const where = `round ${index + 1}, ${group.label}`;
      if (group.missing > 0) problems.push(`${where}: ${group.missing} missing (${group.subscribersMissing} subscribers)`);
      if (group.duplicates > 0) problems.push(`${where}: ${group.duplicates} duplicates`);
      if (group.outOfOrder > 0) problems.push(`${where}: ${group.outOfOrder} out of order`);
      const errors = group.errors.connection + group.errors.graphql + group.errors.completed + group.errors.malformed;
      if (errors > 0) problems.push(`${where}: subscriber errors ${JSON.stringify(group.errors)}`);
    }
  }
  if (result.connectionFailures > 0) problems.push(`${result.connectionFailures} connections failed`);
  return [
    {
      label: `${part}: ${label}: every event delivered once, in order, to every subscriber`,
      ok: problems.length === 0,
      detail:
        problems.length === 0
          ? `${deliveries.toLocaleString('en-US')} deliveries = ${expected.toLocaleString('en-US')} expected (events × subscribers), 0 missing, 0 duplicate`
          : problems.join('; '),
    },
  ];
}

function expiryChecks(result: ExpiryResult): Verification[] {
  const problems: string[] = [];
  if (result.claimErrors > 0) problems.push(`${result.claimErrors} claims failed`);
  if (result.recordedOnce !== result.leases || result.recordedTwice > 0 || result.notRecorded > 0)
    problems.push(`file: ${result.recordedOnce} once, ${result.recordedTwice} more than once, ${result.notRecorded} never`);
  for (const subscriber of result.subscribers) {
    if (subscriber.missing || subscriber.duplicates || subscriber.strangers || subscriber.expiryMismatches)
      problems.push(
        `${subscriber.label}: ${subscriber.missing} missing, ${subscriber.duplicates} duplicate, ${subscriber.strangers} unknown, ${subscriber.expiryMismatches} with another expiry`,
      );
  }
  return [
    {
      label: 'live: each lease expired exactly once',
      ok: problems.length === 0,
      detail:
        problems.length === 0
          ? `${result.leases} leases: 1 LEASE_EXPIRED each in the file; each subscriber (${result.subscribers.map((s) => s.label).join(', ')}) got each once, with the expiry claimItem returned`
          : problems.join('; '),
    },
  ];
}

function fileChecks(file: string): Verification[] {
  const db = new Database(file, { readonly: true });
  try {
    const integrity = (db.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check;
    return [{ label: 'live: integrity_check', ok: integrity === 'ok', detail: integrity }];
  } finally {
    db.close();
  }
}

export async function runLive(
  tmp: string,
  synchronous: 'NORMAL' | 'FULL',
  options: LiveOptions,
  log: (message: string) => void,
): Promise<LiveReport> {
  // The servers inherit this environment, so read the two settings that matter here from it too.
  const defaults = loadConfig({ FEED_POLL_MS: process.env.FEED_POLL_MS, LEASE_WARNING_SECONDS: process.env.LEASE_WARNING_SECONDS });
  const file = path.join(tmp, 'live.db');
  const servers: RunningServer[] = [];
  const verifications: Verification[] = [];
  const serverLogLines: string[] = [];
  const rounds = roundsFor(options);
  let fanOut: FanOutResult | undefined;
  let cross: FanOutResult | undefined;
  let expiry: ExpiryResult | null = null;
  // Every principal of the live measurements, made in the file before server A starts.
  const subscribers = principals('fanout-sub', options.subscribers, ['VIEWER']);
  const onB = principals('cross-sub-b', options.crossSubscribers, ['VIEWER']);
  const onA = principals('cross-sub-a', options.crossSubscribers, ['VIEWER']);
  const keys = await makeKeys(file, [
    { name: 'bench-admin', roles: ['ADMIN'] },
    { name: 'bench-live', roles: ['PROPOSER'] },
    { name: 'bench-expiry', roles: ['REVIEWER'] },
    { name: 'expiry-watch-a', roles: ['VIEWER'] },
    { name: 'expiry-watch-b', roles: ['VIEWER'] },
    ...subscribers,
    ...onB,
    ...onA,
  ]);
  const named = (list: { name: string }[]) =>
    keysNamed(
      keys,
      list.map((entry) => entry.name),
    );
  const [admin, proposer, claimer, watchA, watchB] = keysNamed(keys, [
    'bench-admin',
    'bench-live',
    'bench-expiry',
    'expiry-watch-a',
    'expiry-watch-b',
  ]) as [BenchKey, BenchKey, BenchKey, BenchKey, BenchKey];
  try {
    const a = await startServer({ databaseFile: file, synchronous });
    servers.push(a);
    await seedCategories(a.port, admin, [CATEGORY]);
    log(`\n[live: ${options.subscribers} subscribers on server A (127.0.0.1:${a.port}), addItem through A]`);
    fanOut = await measureFanOut({
      name: 'fanout',
      mutatePort: a.port,
      proposer,
      groups: [
        {
          label: 'server A',
          port: a.port,
          count: options.subscribers,
          keys: named(subscribers),
          workers: Math.min(options.wsWorkers, options.subscribers),
        },
      ],
      rounds,
      history: sqliteHistory(file),
      category: CATEGORY,
      servers: [{ label: 'A', pid: a.pid }],
      drainTimeoutMs: options.quick ? 15_000 : 60_000,
      log,
    });
    verifications.push(...fanOutChecks(`${options.subscribers} subscribers on A`, fanOut));

    const b = await startServer({ databaseFile: file, synchronous });
    servers.push(b);
    log(
      `\n[live: cross-process: ${options.crossSubscribers} subscribers on server B (127.0.0.1:${b.port}, same file) and ${options.crossSubscribers} on A, addItem through A]`,
    );
    cross = await measureFanOut({
      name: 'cross',
      mutatePort: a.port,
      proposer,
      groups: [
        { label: 'server B (other process)', port: b.port, count: options.crossSubscribers, keys: named(onB), workers: 1 },
        { label: 'server A (same process)', port: a.port, count: options.crossSubscribers, keys: named(onA), workers: 1 },
      ],
      rounds,
      history: sqliteHistory(file),
      category: CATEGORY,
      servers: [
        { label: 'A', pid: a.pid },
        { label: 'B', pid: b.pid },
      ],
      drainTimeoutMs: options.quick ? 15_000 : 60_000,
      log,
    });
    verifications.push(...fanOutChecks(`${options.crossSubscribers} subscribers on B + ${options.crossSubscribers} on A`, cross));

    if (options.expiry) {
      log(`\n[live: expiry lateness: ${options.leases} leases of 30 s claimed through A; a LEASE_EXPIRED subscriber on A and one on B]`);
      expiry = await measureExpiry({
        claimPort: a.port,
        proposer,
        reviewer: claimer,
        subscribers: [
          { label: 'server A', port: a.port, key: watchA },
          { label: 'server B', port: b.port, key: watchB },
        ],
        leases: options.leases,
        leaseSeconds: 30,
        spreadMs: 4_000,
        databaseFile: file,
        category: CATEGORY,
        graceMs: 15_000,
        serverPids: [a.pid, b.pid],
        log,
      });
      verifications.push(...expiryChecks(expiry));
      for (const subscriber of expiry.subscribers) {
        log(
          `  ${subscriber.label}: ${subscriber.received}/${expiry.leases} announced; receipt − leaseExpiresAt p50 ${subscriber.lateness.p50} / p99 ${subscriber.lateness.p99} / max ${subscriber.lateness.max} ms; occurredAt − leaseExpiresAt p50 ${subscriber.recordedLate.p50} / p99 ${subscriber.recordedLate.p99} / max ${subscriber.recordedLate.max} ms`,
        );
      }
    } else {
      log('\n[live: expiry lateness SKIPPED (it takes ~35 s): pass --expiry to run it]');
    }
  } finally {
    for (const [index, server] of servers.entries()) {
      const code = await server.stop();
      verifications.push({ label: `live: server ${'AB'[index]} clean shutdown`, ok: code === 0, detail: `exit code ${code}` });
      serverLogLines.push(...server.logs.map((line) => `${'AB'[index]}: ${line}`));
    }
  }
  verifications.push(...fileChecks(file));
  if (!fanOut || !cross) throw new Error('live measurements did not complete');
  return {
    options,
    feedPollMs: defaults.feedPollMs,
    leaseWarningSeconds: defaults.leaseWarningSeconds,
    fanOut,
    cross,
    expiry,
    verifications,
    serverLogLines,
  };
}
