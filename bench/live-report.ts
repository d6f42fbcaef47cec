// The live-events sections of BENCHMARKS.md (and the console summary).
import { describeRound, type FanOutResult, type GroupResult, type RoundResult } from './fanout.js';
import { EXPIRY_TARGET_MS, FANOUT_TARGET_MS, type LiveReport } from './live.js';
import type { Spread } from './stats.js';

const int = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a');
const one = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : 'n/a');
const triple = (s: Spread) => `${int(s.p50)} / ${int(s.p99)} / ${int(s.max)} ms`;
const pair = (s: Spread | null, format = int) => (s ? `${format(s.p50)} / ${format(s.p99)} ms` : 'n/a');
/** Other processes busier than this (share of one core) while measuring: the figures are disturbed. */
export const DISTURBED = 0.2;
const verdict = (s: Spread, target: number, otherCpu = 0) =>
  (Number.isFinite(s.p99) ? (s.p99 < target ? 'yes' : '**no**') : 'n/a') +
  (otherCpu > DISTURBED ? ` (disturbed: other processes ${Math.round(otherCpu * 100)} % of a core)` : '');

function writer(round: RoundResult): string {
  return `${round.events} × addItem, ${describeRound(round)}`;
}

/** Events per second from the first send to the last answer (what the server committed and answered). */
function achieved(round: RoundResult): string {
  return `${int(round.events / Math.max(round.mutationSeconds, 0.001))}`;
}

function deliveryCell(group: GroupResult): string {
  return `${int(group.delivered)} (${int(group.expected)})`;
}

function fanOutTable(result: FanOutResult): string[] {
  const rows = result.rounds.map((round) => {
    const group = round.groups[0] as GroupResult;
    const cpu = round.serverCpu[0];
    return `| ${writer(round)} | ${achieved(round)} | ${deliveryCell(group)} | ${group.missing} / ${group.duplicates} | ${triple(group.fromOccurred)} | ${pair(group.fromAck)} | ${int(group.lastReceipt.p50)} / ${int(group.lastReceipt.max)} ms | ${pair(round.ack, one)} | ${cpu ? `${Math.round(cpu.share * 100)} % (${int(cpu.perDeliveryUs)} µs)` : 'n/a'} | ${verdict(group.fromOccurred, FANOUT_TARGET_MS, round.otherCpu)} |`;
  });
  return [
    '| mutations | events/s answered | deliveries (expected) | missing / duplicate | receipt − occurredAt p50 / p99 / max | receipt − HTTP answer p50 / p99 | last subscriber, per event: p50 / max | `addItem` answer p50 / p99 | server CPU (per delivery) | p99 < 100 ms? |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|:---:|',
    ...rows,
  ];
}

function whereTable(result: FanOutResult): string[] {
  const rows: string[] = [];
  for (const round of result.rounds) {
    for (const group of round.groups) {
      rows.push(
        `| ${writer(round)} | ${group.label} | ${pair(group.serverSide)} | ${pair(group.afterResolve)} | ${int(group.firstQuarterMean)} / ${int(group.lastQuarterMean)} ms | ${one(round.deliverySeconds)} s | ${Math.round(group.workerCpu * 100)} % | ${int(group.loopDelay.p99)} / ${int(group.loopDelay.max)} ms | ${Math.round(round.otherCpu * 100)} % |`,
      );
    }
  }
  return [
    '| mutations | subscribers on | serverNow − occurredAt p50 / p99 | receipt − serverNow p50 / p99 | mean latency, first / last quarter of events | first send → last delivery | subscriber workers CPU | worker event-loop delay p99 / max | other processes’ CPU |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ];
}

function crossTable(result: FanOutResult): string[] {
  const rows: string[] = [];
  for (const round of result.rounds) {
    for (const group of round.groups) {
      rows.push(
        `| ${writer(round)} | ${group.label} | ${deliveryCell(group)} | ${group.missing} / ${group.duplicates} | ${triple(group.fromOccurred)} | ${pair(group.serverSide)} | ${verdict(group.fromOccurred, FANOUT_TARGET_MS, round.otherCpu)} |`,
      );
    }
  }
  return [
    '| mutations (through A) | subscribers on | deliveries (expected) | missing / duplicate | receipt − occurredAt p50 / p99 / max | serverNow − occurredAt p50 / p99 | p99 < 100 ms? |',
    '|---|---|---:|---:|---:|---:|:---:|',
    ...rows,
  ];
}

export function liveMarkdown(report: LiveReport | null, error: string | null): string[] {
  if (!report) return ['## Live events over WebSocket', '', `**Not measured:** ${error ?? 'skipped (--no-live)'}.`];
  const { fanOut, cross, expiry, options } = report;
  const mainGroup = fanOut.groups[0];
  const lines = [
    '## Live events over WebSocket',
    '',
    `- **Servers:** a separate pair on a fresh file (\`live.db\`), same build and settings as above, so the review-cycle checks stay exact. FEED_POLL_MS=${report.feedPollMs}, LEASE_WARNING_SECONDS=${report.leaseWarningSeconds} (the defaults). Server A first on its own; server B (a second \`node dist/main.js\` on the same file) is started for the cross-process and expiry measurements. The file's own keys: every subscriber and the writer are principals of their own, made before the servers start.`,
    `- **Subscribers:** graphql-ws \`createClient\` with \`ws\`, \`lazy: false\`, \`retryAttempts: 0\`, one client, WebSocket and VIEWER API key each (sent as \`connectionParams.authorization\`, checked when the connection opens and again at each subscribe), subscribed to \`subscription { queueEvents { sequence type occurredAt serverNow } }\`. They live in child processes (\`bench/ws-worker.ts\`, \`child_process.fork\`): the ${int(mainGroup?.count ?? 0)} on A split over ${mainGroup?.workers ?? 0} processes, each other group of ${int(options.crossSubscribers)} in one.`,
    '- **Mutations:** `addItem` (one ITEM_ADDED event each) over HTTP/1.1 from the bench process, as one PROPOSER principal (the rate limit is off, see above); after sentinel events until every subscriber has received one (graphql-ws does not acknowledge a subscribe) and all have caught up.',
    '- **Latency** per (event, subscriber): receipt (`Date.now()` in the client’s `next`) − the event’s `occurredAt` (server clock, same machine; both in whole ms, so ±1 ms), and − the `Date.now()` at which the mutation’s HTTP answer arrived (the commit acknowledged; negative when the event beat the answer). `serverNow` (resolved per subscriber) splits it into the server’s part and the rest.',
    '- **Load:** the server(s), the subscriber processes and the bench process share the 2 cores.',
    '- **Writers:** *paced* sends the next mutation only after the previous one was answered (and ≥ the interval after the previous send), so it runs at what the server sustains with subscribers attached; *open loop* sends on schedule whatever the backlog (up to 64 in flight).',
    `- **Target:** receipt − occurredAt p99 < ${FANOUT_TARGET_MS} ms.`,
    '',
    `### ${int(mainGroup?.count ?? 0)} subscribers on one server`,
    '',
    `Connected and subscribed in ${one(fanOut.connectSeconds)} s${fanOut.connectionFailures ? `, ${fanOut.connectionFailures} connection failures` : ''}. *Events/s answered*: events ÷ (first send → last HTTP answer). Server CPU is a share of one core over first send → last delivery, and per delivery.`,
    '',
    ...fanOutTable(fanOut),
    '',
    'Where the time goes (the cross-process rounds below included). CPU figures are shares of one core over first send → last delivery; *other processes* is what the rest of the machine used meanwhile (/proc/stat minus the servers, the subscriber workers and the bench process): more than a few % means the figures are disturbed.',
    '',
    ...whereTable(fanOut),
    ...whereTable(cross).slice(2),
    '',
    `### Cross-process: subscribers of a second server on the same file (${int(options.crossSubscribers)} on B, ${int(options.crossSubscribers)} on A)`,
    '',
    `B learns of A’s commits by polling \`PRAGMA data_version\` every FEED_POLL_MS (${report.feedPollMs} ms); A’s own subscribers (same events, same moment) are the same-process reference.`,
    '',
    ...crossTable(cross),
    '',
    '### Expiry lateness (real clock)',
    '',
  ];
  if (!expiry) {
    lines.push('Skipped in this run (it takes ~35 s): `npm run bench -- --quick --expiry` or a full run measures it.');
  } else {
    lines.push(
      `${expiry.leases} leases of ${expiry.leaseSeconds} s (the minimum) claimed through A over ${expiry.spreadSeconds} s; one subscriber on A and one on B to \`queueEvents(filter: { types: [LEASE_EXPIRED] }) { sequence occurredAt leaseExpiresAt serverNow item { id } }\`. Both servers run their expiry announcer (a clock timer for the earliest unrecorded expiry); whichever records a lapse first wins, the other finds nothing to do. The file: ${expiry.recordedOnce} leases with exactly one LEASE_EXPIRED, ${expiry.recordedTwice} with more, ${expiry.notRecorded} with none.`,
      '',
      '| subscriber on | announced (leases) | missing / duplicate | receipt − leaseExpiresAt p50 / p99 / max | occurredAt − leaseExpiresAt p50 / p99 / max | receipt − occurredAt p50 / p99 | p99 < 250 ms? |',
      '|---|---:|---:|---:|---:|---:|:---:|',
      ...expiry.subscribers.map(
        (s) =>
          `| ${s.label} | ${int(s.received)} (${int(expiry.leases)}) | ${s.missing} / ${s.duplicates} | ${triple(s.lateness)} | ${triple(s.recordedLate)} | ${pair(s.delivery)} | ${verdict(s.lateness, EXPIRY_TARGET_MS, expiry.otherCpu)} |`,
      ),
      '',
      `- **Target:** receipt − leaseExpiresAt p99 < ${EXPIRY_TARGET_MS} ms.`,
      `- Other processes used ${Math.round(expiry.otherCpu * 100)} % of a core over the ${one(expiry.elapsedSeconds)} s (nothing else of the bench runs meanwhile).`,
    );
  }
  return lines;
}

/** Console lines: the headline figures against the targets. */
export function liveSummary(report: LiveReport): string[] {
  const lines: string[] = [];
  const groupLine = (round: RoundResult, group: GroupResult) =>
    `${group.label}, ${describeRound(round)}: ${group.delivered}/${group.expected} deliveries; receipt − occurredAt p50 ${group.fromOccurred.p50} / p99 ${group.fromOccurred.p99} / max ${group.fromOccurred.max} ms (target p99 < ${FANOUT_TARGET_MS} ms: ${group.fromOccurred.p99 < FANOUT_TARGET_MS ? 'met' : 'MISSED'})${round.otherCpu > DISTURBED ? `; DISTURBED: other processes used ${Math.round(round.otherCpu * 100)} % of a core` : ''}`;
  for (const result of [report.fanOut, report.cross])
    for (const round of result.rounds) for (const group of round.groups) lines.push(groupLine(round, group));
  if (report.expiry) {
    for (const s of report.expiry.subscribers)
      lines.push(
        `expiry, subscriber on ${s.label}: receipt − leaseExpiresAt p50 ${s.lateness.p50} / p99 ${s.lateness.p99} / max ${s.lateness.max} ms (target p99 < ${EXPIRY_TARGET_MS} ms: ${s.lateness.p99 < EXPIRY_TARGET_MS ? 'met' : 'MISSED'})${report.expiry && report.expiry.otherCpu > DISTURBED ? '; DISTURBED by other processes' : ''}`,
      );
  } else lines.push('expiry lateness: skipped (pass --expiry)');
  return lines;
}
