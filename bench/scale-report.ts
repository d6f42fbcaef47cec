// The scale section of BENCHMARKS.md (claim latency by queue length, server memory) and its console summary.

import { SEED_BATCH } from '../test/support/seed-file.js';
import type { GroupResult } from './fanout.js';
import type { Machine } from './machine.js';
import { CLAIM_RATIO_TARGET, type Memory, type QueueResult, type ScaleReport } from './scale.js';

const int = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a');
const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)} ms` : 'n/a');
const mib = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)} MiB` : 'n/a');
const ratio = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : 'n/a');

/** Whether the p50 ratio meets the target; a quick run's sizes are not the ones the target is about. */
function verdict(report: ScaleReport): string {
  if (report.options.quick) return 'not assessed (quick run)';
  return report.ratios.p50 <= CLAIM_RATIO_TARGET ? 'met' : 'MISSED';
}

function queueRow(result: QueueResult): string {
  return `| ${int(result.items)} | ${int(result.cycles)} | ${ms(result.claim.p50)} | ${ms(result.claim.p99)} | ${ms(result.decide.p50)} / ${ms(result.decide.p99)} | ${ms(result.serverCpuPerCycleMs)} | ${result.startSeconds.toFixed(1)} s | ${result.seedSeconds.toFixed(1)} s, ${int(result.seededMiB)} MiB |`;
}

function memoryRow(items: number, state: string, memory: Memory, note = ''): string {
  return `| ${int(items)} | ${state} | ${mib(memory.rssMiB)} | ${note} |`;
}

export function scaleMarkdown(report: ScaleReport | null, error: string | null, machine: Machine): string[] {
  const title = '## Claim latency and memory at scale';
  if (!report) return [title, '', `**Not measured:** ${error ?? 'skipped (--no-scale)'}.`];
  const { options, small, large, ratios, memory } = report;
  const group = report.fanOut.rounds[0]?.groups[0] as GroupResult | undefined;
  const perSubscriberKiB = ((memory.connected.rssMiB - large.afterClaims.rssMiB) * 1024) / options.subscribers;
  const clients = `${options.clients} client${options.clients === 1 ? '' : 's'}`;
  return [
    title,
    '',
    `- **Command:** \`npm run bench\` measures it after the sections above; alone: \`npm run bench -- --scale-only\` (${report.seconds.toFixed(0)} s in this run, seeding and checks included). \`--quick\` runs it at ${int(1_000)} vs ${int(100_000)} items with 50 subscribers, as a smoke test.`,
    `- **Machine:** ${machine.nproc} CPUs (nproc), ${machine.cpuModel}, ${machine.ramGiB} GiB RAM; temp files on ${machine.tmpFilesystem}; load average when this part started ${report.loadAverage}; other processes used ${Number.isFinite(report.otherCpu) ? `${Math.round(report.otherCpu * 100)} %` : 'n/a'} of a core during the claim rounds (more than a few % means the latencies are disturbed).`,
    `- **Files:** two fresh files, each seeded before its server starts, straight through better-sqlite3 in one transaction (\`test/support/seed-file.ts\`): the category with its CATEGORY_ADDED event, then the items in batches of ${SEED_BATCH} (one \`createdAt\` second per batch, as \`addItems\` stamps them), each with its ITEM_ADDED event, so the history matches the queue. The API keys are made first, through the key service.`,
    `- **Servers:** one \`node dist/main.js\` per file, both running throughout, same build and settings as above.`,
    `- **Claims:** ${clients}, ${options.clients === 1 ? 'a REVIEWER principal of its own, looping' : 'each a REVIEWER principal of its own, looping'} \`claimItem\` → \`decideItem(ACCEPTED)\` as in the review cycles above. After a warm-up round, ${options.rounds} rounds of ${int(options.cyclesPerRound)} cycles on each file, alternating which file goes first, so drift on the machine falls on both alike. After each round as many new items are added with \`addItems\` (they join the tail), so a file holds between ${int(small.items - options.cyclesPerRound)} and ${int(small.items)} (resp. ${int(large.items - options.cyclesPerRound)} and ${int(large.items)}) pending items while measured, and every claim takes a new head of the queue: claims never revisit an item. Afterwards the files are checked: the decided items are exactly the head in (createdAt, batchId, recordId) order.`,
    `- **Query plan** of the claim's SELECT (\`EXPLAIN QUERY PLAN\` on the ${int(large.items)}-item file): \`${report.queryPlan.join('; ')}\`. The index's order is the claim order, so \`LIMIT 1\` stops at the first claimable entry: a B-tree descent, O(log n), however long the queue.`,
    '',
    '| pending items | claims measured | claimItem p50 | claimItem p99 | decideItem p50 / p99 | server CPU per cycle | start → ready | seeding, file size then |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
    queueRow(small),
    queueRow(large),
    `| **${int(large.items)} ÷ ${int(small.items)}** | | **${ratio(ratios.p50)}** | **${ratio(ratios.p99)}** | | ${ratio(ratios.serverCpu)} | | |`,
    '',
    `- **Target:** claimItem p50 with ${int(large.items)} items ÷ p50 with ${int(small.items)} ≤ ${CLAIM_RATIO_TARGET} (the spec's "claim latency flat from 1k to 1M items"): ${verdict(report)} (${ratio(ratios.p50)}); the p99 ratio is ${ratio(ratios.p99)}.`,
    '- *Server CPU per cycle* is the server process’s CPU time (/proc) over the measured rounds ÷ cycles: what one claim + decide costs the server, without the load generator’s share of the cores, and the least noisy way to see whether the work grows with the queue.',
    '',
    `### Resident memory of the server with ${int(large.items)} items`,
    '',
    `VmRSS of the server process (\`/proc/<pid>/status\`), read ${options.quick ? '0.5' : '2'} s after each step. The subscribers: graphql-ws clients as in the live measurements (\`bench/ws-worker.ts\`, ${group?.workers ?? 0} worker processes), each a VIEWER principal of its own, subscribed to \`queueEvents\`; then ${int(options.burst)} \`addItem\` events, open loop, one every 5 ms.`,
    '',
    '| items in the file | state | VmRSS | note |',
    '|---:|---|---:|---|',
    memoryRow(small.items, 'idle after start', small.idle, 'the same build on the small file, for comparison'),
    memoryRow(large.items, 'idle after start', large.idle),
    memoryRow(
      large.items,
      'after the claim rounds',
      large.afterClaims,
      `${int(large.cycles + options.cyclesPerRound)} review cycles and their top-ups`,
    ),
    memoryRow(
      large.items,
      `${int(options.subscribers)} subscribers connected`,
      memory.connected,
      `${Number.isFinite(perSubscriberKiB) ? `${int(perSubscriberKiB)} KiB per subscriber over the previous row` : ''}`,
    ),
    memoryRow(
      large.items,
      `after ${int(options.burst)} events delivered to them`,
      memory.afterBurst,
      group
        ? `${int(group.delivered)} deliveries (${int(group.expected)} expected), receipt − occurredAt p50 ${int(group.fromOccurred.p50)} / p99 ${int(group.fromOccurred.p99)} ms`
        : '',
    ),
    memoryRow(large.items, 'subscribers gone', memory.afterLeft),
    `| ${int(large.items)} | peak over the run (VmHWM) | ${mib(memory.peakMiB)} | |`,
    '',
    "- Compare the two idle rows: the item count does not show in the server's memory. SQLite's page cache is bounded per connection (the default 2 MiB), and the rest of the file is read through the kernel's page cache, which is not the server's RSS.",
  ];
}

/** Console lines: the headline figures against the target. */
export function scaleSummary(report: ScaleReport): string[] {
  const { small, large, ratios, memory, options } = report;
  const perSubscriberKiB = ((memory.connected.rssMiB - large.afterClaims.rssMiB) * 1024) / options.subscribers;
  return [
    `scale, claimItem (${options.clients} client${options.clients === 1 ? '' : 's'}): ${int(small.items)} pending p50 ${ms(small.claim.p50)} / p99 ${ms(small.claim.p99)}; ${int(large.items)} pending p50 ${ms(large.claim.p50)} / p99 ${ms(large.claim.p99)}; ratio p50 ${ratio(ratios.p50)} (target ≤ ${CLAIM_RATIO_TARGET}: ${verdict(report)}), p99 ${ratio(ratios.p99)}; server CPU per cycle ${ms(small.serverCpuPerCycleMs)} vs ${ms(large.serverCpuPerCycleMs)} (ratio ${ratio(ratios.serverCpu)})${report.otherCpu > 0.2 ? `; DISTURBED: other processes used ${Math.round(report.otherCpu * 100)} % of a core` : ''}`,
    `scale, server RSS with ${int(large.items)} items: idle ${mib(large.idle.rssMiB)} (${int(small.items)} items: ${mib(small.idle.rssMiB)}); after claims ${mib(large.afterClaims.rssMiB)}; ${int(options.subscribers)} subscribers ${mib(memory.connected.rssMiB)} (${int(perSubscriberKiB)} KiB each); after ${int(options.burst)} events to them ${mib(memory.afterBurst.rssMiB)}; subscribers gone ${mib(memory.afterLeft.rssMiB)}; peak ${mib(memory.peakMiB)}`,
  ];
}
