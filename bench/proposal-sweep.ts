// The proposal deadline sweep on PostgreSQL (issue 18): how long the announcer's batches hold the write lock
// when many proposals' deadlines pass at once, as a write call (one statement per batch) against the
// same work as an interactive transaction (its TypeScript form, a round trip per read and write), alternated
// in one run on fresh proposals. Standalone: `npx tsx bench/proposal-sweep.ts [proposals per round] [batch]` with
// LEASEHOLD_BENCH_POSTGRES_URL (or LEASEHOLD_TEST_POSTGRES_URL) naming a role that may create databases.
import { type Database, openDatabase } from '../src/db/client.js';
import { createScratchDatabase } from '../src/db/postgres-scratch.js';
import { ManualClock } from '../src/domain/clock.js';
import { type ProposalDeps, recordProposalDeadlines, submitProposal } from '../src/services/proposals/index.js';
import { postgresAdminUrl } from './postgres.js';

const PER_ROUND = Number(process.argv[2] ?? 1_000);
const BATCH = Number(process.argv[3] ?? 50); // the announcer's (src/events/proposal-announcer.ts)
const admin = postgresAdminUrl();
if (!admin) throw new Error('Set LEASEHOLD_BENCH_POSTGRES_URL to a PostgreSQL role that may create databases.');
const scratch = await createScratchDatabase(admin.url, { prefix: 'leasehold_bench' });
const db = await openDatabase({ location: { dialect: 'postgresql', url: scratch.url } });
const clock = new ManualClock(Date.UTC(2026, 11, 3, 12));
// The same operations, sent as interactive transactions: their TypeScript form, as every write was before.
const interactive: Database = { ...db, perform: (operation) => db.write(operation.work) };
const agent = { name: 'agent', authenticated: true };
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
try {
  console.log(`proposal deadline sweep, PostgreSQL: ${PER_ROUND} proposals past their deadline per round, batches of ${BATCH}`);
  for (const [round, form] of ['call', 'interactive', 'call', 'interactive'].entries()) {
    const deadline = new Date(clock.now().getTime() + 60_000);
    for (let start = 0; start < PER_ROUND; start += 100) {
      const batch = Array.from({ length: Math.min(100, PER_ROUND - start) }, (_, n) => `r${round}-${start + n}`);
      await Promise.all(batch.map((recordId) => submitProposal({ db, clock }, agent, { ...proposal(recordId), deadline })));
    }
    clock.advance(120_000);
    const holds: number[] = [];
    const stop = db.onLockHeld((seconds) => holds.push(seconds * 1000));
    const deps: ProposalDeps = { db: form === 'call' ? db : interactive, clock };
    const started = performance.now();
    let expired = 0;
    for (let changed = -1; changed !== 0; expired += changed) changed = await recordProposalDeadlines(deps, BATCH);
    const took = performance.now() - started;
    stop();
    holds.sort((a, b) => a - b);
    console.log(
      `  ${form.padEnd(11)} ${expired} expired in ${took.toFixed(0)} ms; lock held per batch p50 ${percentile(holds, 0.5).toFixed(1)} ms, max ${(holds.at(-1) ?? 0).toFixed(1)} ms over ${holds.length} batches`,
    );
  }
} finally {
  await db.close();
  await scratch.drop();
}

function proposal(recordId: string) {
  return {
    batchId: 'sweep',
    recordId,
    action: 'set_price',
    parameters: { sku: recordId, price: 1299 },
    reason: 'Competitor lowered the price.',
    targetSystem: 'shop',
    targetId: recordId,
    currentValue: 1499,
    proposedValue: 1299,
    dataSource: 'crawler',
    riskLevel: 'LOW' as const,
    fingerprint: `v1-${recordId}`,
  };
}
