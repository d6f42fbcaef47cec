// The reads a dashboard or an operator makes, each timed one at a time on an otherwise idle server: item,
// event and proposal pages with the filters they use, the statistics, and a /metrics scrape. Any error fails.
import http from 'node:http';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { gqlBody, graphqlClient } from './http.js';
import type { BenchKey } from './keys.js';
import { type Spread, spread } from './stats.js';

export interface ReadResults {
  reads: ReadResult[];
  /**
   * The highest prom-client `nodejs_eventloop_lag_p99_seconds` (ms) the /metrics probes saw: that gauge restarts
   * at every scrape, so a phase that scrapes has to look at each answer.
   */
  loopGaugeMaxMs: number;
}

export interface ReadResult {
  label: string;
  latency: Spread;
  /** Rows (edges) the last answer held; NaN for reads without a page. */
  rows: number;
}

/** Where the reads look: a batch of the queue and the holder of some active leases. */
export interface ReadTargets {
  batchId: string;
  holder: string;
}

const ITEM_PAGE = `query ($filter: ItemFilter) {
  items(first: 20, filter: $filter) { edges { node { id batchId recordId status claimState claimedBy leaseExpiresAt } } pageInfo { hasNextPage endCursor } }
}`;
const EVENT_PAGE = `query ($filter: EventFilter) {
  events(first: 20, filter: $filter) { edges { node { sequence type occurredAt actor } } pageInfo { hasNextPage endCursor } }
}`;
const PROPOSAL_PAGE = `query ($filter: ProposalFilter) {
  proposals(first: 20, filter: $filter) { edges { node { id state } } pageInfo { hasNextPage endCursor } }
}`;
const PROPOSAL_STATS = `{ proposalStats { approved expired stale needingReconciliation oldestPendingAgeSeconds decisionWaitP50Seconds byState { key count } pendingByAge { key count } } }`;
const QUEUE_STATS = `subscription { queueStats { pending unclaimed activeLeases expiredLeases accepted corrected rejected oldestPendingCreatedAt sequence } }`;

interface Probe {
  label: string;
  run(): Promise<number>;
}

/** GET /metrics as `key`; resolves to the body (rejects on anything but 200). */
export function scrapeMetrics(port: number, key: BenchKey): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: '127.0.0.1', port, path: '/metrics', agent: false, headers: { authorization: key.authorization } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode === 200) resolve(body);
          else reject(new Error(`/metrics answered ${response.statusCode}: ${body.slice(0, 200)}`));
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
  });
}

/** Each read `samples` times (after two unmeasured ones), round-robin, as `key` (an ADMIN: it may read everything). */
export async function measureReads(port: number, key: BenchKey, targets: ReadTargets, samples: number): Promise<ReadResults> {
  const client = graphqlClient(port, 1);
  let loopGaugeMaxMs = Number.NaN;
  const ws = createClient({
    url: `ws://127.0.0.1:${port}/graphql`,
    connectionParams: { authorization: key.authorization },
    webSocketImpl: WebSocket,
    lazy: false,
    retryAttempts: 0,
  });
  const page = (field: string, document: string, filter: Record<string, unknown> | null) => async () => {
    const reply = await client.post(gqlBody(document, { filter }), { authorization: key.authorization });
    const answer = JSON.parse(reply.body) as { data?: Record<string, { edges: unknown[] }>; errors?: unknown[] };
    if (reply.status !== 200 || answer.errors?.length || !answer.data?.[field])
      throw new Error(`${field} ${JSON.stringify(filter)}: HTTP ${reply.status}: ${reply.body.slice(0, 300)}`);
    return answer.data[field].edges.length;
  };
  const probes: Probe[] = [
    { label: 'items first:20, status PENDING', run: page('items', ITEM_PAGE, { status: 'PENDING' }) },
    { label: 'items first:20, claimState ACTIVE', run: page('items', ITEM_PAGE, { claimState: 'ACTIVE' }) },
    { label: 'items first:20, claimState EXPIRED', run: page('items', ITEM_PAGE, { claimState: 'EXPIRED' }) },
    { label: 'items first:20, holder', run: page('items', ITEM_PAGE, { holder: targets.holder }) },
    { label: 'items first:20, batchId', run: page('items', ITEM_PAGE, { batchId: targets.batchId }) },
    { label: 'events first:20', run: page('events', EVENT_PAGE, null) },
    {
      label: 'events first:20, types [ITEM_DECIDED, LEASE_EXPIRED]',
      run: page('events', EVENT_PAGE, { types: ['ITEM_DECIDED', 'LEASE_EXPIRED'] }),
    },
    { label: 'proposals first:20, states [PENDING]', run: page('proposals', PROPOSAL_PAGE, { states: ['PENDING'] }) },
    {
      label: 'proposalStats',
      run: async () => {
        const reply = await client.post(gqlBody(PROPOSAL_STATS), { authorization: key.authorization });
        if (reply.status !== 200 || reply.body.includes('"errors"')) throw new Error(`proposalStats: ${reply.body.slice(0, 300)}`);
        return Number.NaN;
      },
    },
    {
      // queueStats is a subscription only: its first answer is the computation a new dashboard waits for.
      label: 'queueStats (subscribe → first answer)',
      run: () =>
        new Promise<number>((resolve, reject) => {
          let dispose = () => {};
          dispose = ws.subscribe(
            { query: QUEUE_STATS },
            {
              next: (result) => {
                dispose();
                if (result.errors?.length || !result.data) reject(new Error(`queueStats: ${JSON.stringify(result.errors)}`));
                else resolve(Number.NaN);
              },
              error: (error) => reject(new Error(`queueStats: ${JSON.stringify(error)}`)),
              complete: () => undefined,
            },
          );
        }),
    },
    {
      label: '/metrics scrape',
      run: async () => {
        const gauge = /^nodejs_eventloop_lag_p99_seconds (\S+)/m.exec(await scrapeMetrics(port, key));
        if (gauge) loopGaugeMaxMs = Math.max(Number.isNaN(loopGaugeMaxMs) ? 0 : loopGaugeMaxMs, Number(gauge[1]) * 1000);
        return Number.NaN;
      },
    },
  ];
  try {
    const times = probes.map(() => [] as number[]);
    const rows = probes.map(() => Number.NaN);
    for (let round = -2; round < samples; round++) {
      for (const [index, probe] of probes.entries()) {
        const started = performance.now();
        rows[index] = await probe.run();
        if (round >= 0) times[index]?.push(performance.now() - started);
      }
    }
    return {
      reads: probes.map((probe, index) => ({ label: probe.label, latency: spread(times[index] ?? []), rows: rows[index] ?? Number.NaN })),
      loopGaugeMaxMs,
    };
  } finally {
    client.close();
    await ws.dispose();
  }
}
