// HTTP load cells: N concurrent clients, a warm-up, then a bounded measured window.
// Every response is checked; anything unexpected is counted, never ignored. Every request carries
// its client's own API key: client i of a cell authenticates as keys[i].
import { performance } from 'node:perf_hooks';
import { type GraphQLClient, gqlBody, graphqlClient } from './http.js';
import type { BenchKey } from './keys.js';
import { percentile } from './stats.js';

export interface ErrorCounts {
  /** Non-200 status or a failed connection. */
  http: number;
  /** Responses with a GraphQL `errors` array (or no `data`). */
  graphql: number;
  /** A `UserError` branch of a result union. */
  userErrors: number;
  /** claimItem answered `claimed: false`: the queue ran dry (the bench seeds too few items). */
  dry: number;
  /** The same item id handed out by two claims (must never happen). */
  doubleClaims: number;
}

export const noErrors = (): ErrorCounts => ({ http: 0, graphql: 0, userErrors: 0, dry: 0, doubleClaims: 0 });

export function totalErrors(counts: ErrorCounts): number {
  return counts.http + counts.graphql + counts.userErrors + counts.dry + counts.doubleClaims;
}

export function addErrors(into: ErrorCounts, from: ErrorCounts): void {
  into.http += from.http;
  into.graphql += from.graphql;
  into.userErrors += from.userErrors;
  into.dry += from.dry;
  into.doubleClaims += from.doubleClaims;
}

export interface Latency {
  p50: number;
  p99: number;
  count: number;
}

export interface CellResult {
  /** Operations (no-op queries, or full cycles) completed inside the measured window, per second. */
  rate: number;
  measuredSeconds: number;
  /** Completed in the window. */
  completed: number;
  /** Completed in total, warm-up and tail included (for the database cross-check). */
  completedTotal: number;
  latency: Record<string, Latency>;
  errors: ErrorCounts;
}

export interface CellTiming {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
}

interface Window {
  measuring: boolean;
  done: boolean;
}

/** Runs `concurrency` copies of `worker` (numbered from 0) through warm-up and the measured window; returns the window length in seconds. */
async function drive(timing: CellTiming, worker: (window: Window, index: number) => Promise<void>): Promise<number> {
  const window: Window = { measuring: false, done: false };
  let startedAt = 0;
  let endedAt = 0;
  const warm = setTimeout(() => {
    window.measuring = true;
    startedAt = performance.now();
  }, timing.warmupMs);
  const stop = setTimeout(() => {
    endedAt = performance.now();
    window.measuring = false;
    window.done = true;
  }, timing.warmupMs + timing.durationMs);
  try {
    await Promise.all(Array.from({ length: timing.concurrency }, (_, index) => worker(window, index)));
  } finally {
    clearTimeout(warm);
    clearTimeout(stop);
  }
  return (endedAt - startedAt) / 1000;
}

function summarise(samples: number[]): Latency {
  const sorted = Float64Array.from(samples).sort();
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), count: sorted.length };
}

interface GraphQLReply {
  data?: Record<string, unknown> | null;
  errors?: unknown[];
}

/** Parses a reply; counts HTTP and GraphQL errors; returns the named root field or null. */
function rootField(reply: { status: number; body: string }, field: string, errors: ErrorCounts): Record<string, unknown> | null {
  if (reply.status !== 200) {
    errors.http++;
    return null;
  }
  let parsed: GraphQLReply;
  try {
    parsed = JSON.parse(reply.body) as GraphQLReply;
  } catch {
    errors.graphql++;
    return null;
  }
  if ((parsed.errors && parsed.errors.length > 0) || !parsed.data) {
    errors.graphql++;
    return null;
  }
  const value = parsed.data[field];
  if (value === null || typeof value !== 'object') {
    errors.graphql++;
    return null;
  }
  const result = value as Record<string, unknown>;
  if (result.__typename === 'UserError') {
    errors.userErrors++;
    return null;
  }
  return result;
}

async function send(client: GraphQLClient, body: string, headers: Record<string, string>, errors: ErrorCounts) {
  try {
    return await client.post(body, headers);
  } catch {
    errors.http++;
    return null;
  }
}

/** A failing cell should not spin at full speed on errors forever: stop a worker after this many. */
const MAX_ERRORS_PER_WORKER = 100;

const NOOP = gqlBody('{ __typename }');

/** `{ __typename }` must answer exactly `data.__typename = "Query"` and no errors. */
function isNoopAnswer(reply: { status: number; body: string }, errors: ErrorCounts): boolean {
  if (reply.status !== 200) {
    errors.http++;
    return false;
  }
  try {
    const parsed = JSON.parse(reply.body) as GraphQLReply;
    if (!parsed.errors && parsed.data?.__typename === 'Query') return true;
  } catch {
    // counted below
  }
  errors.graphql++;
  return false;
}

/** One key per client of a cell, or the cell cannot start. */
function headersFor(keys: readonly BenchKey[], timing: CellTiming): Record<string, string>[] {
  if (keys.length < timing.concurrency)
    throw new Error(`${timing.concurrency} clients need ${timing.concurrency} keys, got ${keys.length}`);
  return keys.slice(0, timing.concurrency).map((key) => ({ authorization: key.authorization }));
}

/**
 * `{ __typename }` per second: the cost of the HTTP + GraphQL pipeline with nothing behind it,
 * authentication included (each client sends its key, as in the cycle cell).
 */
export async function noopCell(port: number, timing: CellTiming, keys: readonly BenchKey[]): Promise<CellResult> {
  const headers = headersFor(keys, timing);
  const client = graphqlClient(port, timing.concurrency);
  const errors = noErrors();
  const samples: number[] = [];
  let completed = 0;
  let completedTotal = 0;
  const measuredSeconds = await drive(timing, async (window, index) => {
    const auth = headers[index] as Record<string, string>;
    let failures = 0;
    while (!window.done && failures < MAX_ERRORS_PER_WORKER) {
      const measuredAtStart = window.measuring;
      const started = performance.now();
      const reply = await send(client, NOOP, auth, errors);
      const elapsed = performance.now() - started;
      if (!reply || !isNoopAnswer(reply, errors)) {
        failures++;
        continue;
      }
      completedTotal++;
      if (measuredAtStart && window.measuring) {
        completed++;
        samples.push(elapsed);
      }
    }
  });
  client.close();
  return { rate: completed / measuredSeconds, measuredSeconds, completed, completedTotal, latency: { noop: summarise(samples) }, errors };
}

const CLAIM = `mutation Claim($input: ClaimItemInput!) {
  claimItem(input: $input) {
    __typename
    ... on ClaimItemPayload { claimed item { id } lease { token } }
    ... on UserError { code message }
  }
}`;

const DECIDE = `mutation Decide($input: DecideItemInput!) {
  decideItem(input: $input) {
    __typename
    ... on DecideItemPayload { item { id status } }
    ... on UserError { code message }
  }
}`;

/** A lease taken by claimOnce: the item, its token, and the claimItem round trip. */
export interface Claimed {
  itemId: string;
  token: string;
  ms: number;
}

const CLAIM_BODY = gqlBody(CLAIM, { input: {} });

/**
 * claimItem as the client of `auth`: null when it failed (counted in `errors`, a dry queue as `dry`).
 * An item id already in `claimedIds` counts as a double claim; the id is added.
 */
export async function claimOnce(
  client: GraphQLClient,
  auth: Record<string, string>,
  errors: ErrorCounts,
  claimedIds: Set<string>,
): Promise<Claimed | null> {
  const started = performance.now();
  const reply = await send(client, CLAIM_BODY, auth, errors);
  const ms = performance.now() - started;
  const claim = reply ? rootField(reply, 'claimItem', errors) : null;
  if (!claim) return null;
  const lease = claim.lease as { token?: string } | null;
  const item = claim.item as { id?: string } | null;
  if (claim.claimed !== true || !lease?.token || !item?.id) {
    errors.dry++;
    return null;
  }
  if (claimedIds.has(item.id)) errors.doubleClaims++;
  claimedIds.add(item.id);
  return { itemId: item.id, token: lease.token, ms };
}

/** decideItem ACCEPTED with the lease of `claimed`: the round trip in ms, or null when it failed (counted in `errors`). */
export async function decideOnce(
  client: GraphQLClient,
  auth: Record<string, string>,
  errors: ErrorCounts,
  claimed: Claimed,
): Promise<number | null> {
  const started = performance.now();
  const reply = await send(client, gqlBody(DECIDE, { input: { token: claimed.token, decision: 'ACCEPTED' } }), auth, errors);
  const ms = performance.now() - started;
  const decided = reply ? rootField(reply, 'decideItem', errors) : null;
  const decidedItem = decided?.item as { id?: string; status?: string } | undefined;
  if (!decided || decidedItem?.id !== claimed.itemId || decidedItem.status !== 'ACCEPTED') {
    if (decided) errors.graphql++;
    return null;
  }
  return ms;
}

/**
 * One cycle = claimItem, then decideItem ACCEPTED with the token it returned; each client loops, as
 * the REVIEWER principal of its own key (the holder of every lease it takes).
 */
export async function cycleCell(port: number, timing: CellTiming, claimedIds: Set<string>, keys: readonly BenchKey[]): Promise<CellResult> {
  const headers = headersFor(keys, timing);
  const client = graphqlClient(port, timing.concurrency);
  const errors = noErrors();
  const claimSamples: number[] = [];
  const decideSamples: number[] = [];
  let completed = 0;
  let completedTotal = 0;
  const measuredSeconds = await drive(timing, async (window, index) => {
    const auth = headers[index] as Record<string, string>;
    let failures = 0;
    while (!window.done && failures < MAX_ERRORS_PER_WORKER) {
      const claimMeasured = window.measuring;
      const claimed = await claimOnce(client, auth, errors, claimedIds);
      if (!claimed) {
        failures++;
        continue;
      }
      if (claimMeasured && window.measuring) claimSamples.push(claimed.ms);

      const decideMeasured = window.measuring;
      const decideMs = await decideOnce(client, auth, errors, claimed);
      if (decideMs === null) {
        failures++;
        continue;
      }
      completedTotal++;
      if (decideMeasured && window.measuring) decideSamples.push(decideMs);
      if (window.measuring) completed++;
    }
  });
  client.close();
  return {
    rate: completed / measuredSeconds,
    measuredSeconds,
    completed,
    completedTotal,
    latency: { claim: summarise(claimSamples), decide: summarise(decideSamples) },
    errors,
  };
}

/**
 * Exactly `cycles` review cycles (as in cycleCell) shared by `keys.length` clients, each looping
 * claim → decide; every claim and decide round trip is appended to the samples. For measurements
 * that must know how many items they take from the queue.
 */
export async function countedCycles(
  port: number,
  keys: readonly BenchKey[],
  cycles: number,
  claimedIds: Set<string>,
  errors: ErrorCounts,
  samples: { claim: number[]; decide: number[] },
): Promise<number> {
  const client = graphqlClient(port, keys.length);
  let left = cycles;
  let completed = 0;
  try {
    await Promise.all(
      keys.map(async (key) => {
        const auth = { authorization: key.authorization };
        let failures = 0;
        while (left > 0 && failures < MAX_ERRORS_PER_WORKER) {
          left--;
          const claimed = await claimOnce(client, auth, errors, claimedIds);
          const decideMs = claimed ? await decideOnce(client, auth, errors, claimed) : null;
          if (!claimed || decideMs === null) {
            // Not done: another attempt takes its place.
            left++;
            failures++;
            continue;
          }
          samples.claim.push(claimed.ms);
          samples.decide.push(decideMs);
          completed++;
        }
      }),
    );
  } finally {
    client.close();
  }
  return completed;
}

/** Sets up categories as `admin` (an ADMIN principal). */
export async function seedCategories(port: number, admin: BenchKey, names: string[]): Promise<void> {
  const client = graphqlClient(port, 1);
  try {
    const reply = await client.post(
      gqlBody('mutation($names: [String!]!) { addCategories(input: { names: $names }) { __typename ... on UserError { code message } } }', {
        names,
      }),
      { authorization: admin.authorization },
    );
    const errors = noErrors();
    const result = rootField(reply, 'addCategories', errors);
    if (result?.__typename !== 'AddCategoriesPayload') throw new Error(`addCategories failed: ${reply.body}`);
  } finally {
    client.close();
  }
}

const ADD_ITEMS = `mutation($items: [AddItemInput!]!) {
  addItems(input: { items: $items }) {
    __typename
    ... on AddItemsPayload { addedCount refusedCount }
    ... on UserError { code message }
  }
}`;

/** The items the server queue has been given so far (keeps (batchId, recordId) unique across top-ups). */
export interface SeedState {
  added: number;
  category: string;
}

/** Adds `count` items with addItems as `proposer` (a PROPOSER principal), 500 per call; batch ids start with `prefix`. */
export async function seedItems(port: number, proposer: BenchKey, state: SeedState, count: number, prefix = 'bench'): Promise<void> {
  const client = graphqlClient(port, 1);
  try {
    let left = count;
    while (left > 0) {
      const size = Math.min(500, left);
      const batchId = `${prefix}-${String(Math.floor(state.added / 500)).padStart(6, '0')}-${state.added}`;
      const items = Array.from({ length: size }, (_, index) => ({
        batchId,
        recordId: `r${String(index).padStart(4, '0')}`,
        proposedCategory: state.category,
        reason: 'Bench item: the proposal a reviewer would check.',
      }));
      const reply = await client.post(gqlBody(ADD_ITEMS, { items }), { authorization: proposer.authorization });
      const errors = noErrors();
      const result = rootField(reply, 'addItems', errors);
      if (!result || result.addedCount !== size || result.refusedCount !== 0)
        throw new Error(`addItems failed: ${reply.body.slice(0, 500)}`);
      state.added += size;
      left -= size;
    }
  } finally {
    client.close();
  }
}
