// The results table and BENCHMARKS.md, with each part's section in it.
import type { LiveReport } from './live.js';
import { liveMarkdown } from './live-report.js';
import type { CellResult, ErrorCounts } from './load.js';
import type { Machine } from './machine.js';
import type { PostgresReport } from './postgres.js';
import { postgresMarkdown } from './postgres-report.js';
import type { ProfileSummary } from './profile.js';
import type { ScaleReport } from './scale.js';
import { scaleMarkdown } from './scale-report.js';
import { SERVER_POLICY } from './server.js';
import type { Verification } from './verification.js';

export const TARGET = 0.4;

export interface Row {
  concurrency: number;
  noop: CellResult;
  cycles: CellResult;
  raw: { rate: number; errors: number };
}

export interface Report {
  date: string;
  command: string;
  mode: 'quick' | 'full';
  warmupMs: number;
  durationMs: number;
  synchronous: string;
  machine: Machine;
  rows: Row[];
  errors: ErrorCounts;
  verifications: Verification[];
  serverLogLines: string[];
  profile?: { summary: ProfileSummary; seconds: number; concurrency: number; rate: number; file: string };
  /** Null when skipped (--no-live) or failed (see liveError). */
  live: LiveReport | null;
  liveError: string | null;
  /** Null when skipped (--no-scale) or failed (see scaleError). */
  scale: ScaleReport | null;
  scaleError: string | null;
  /** Null with --no-postgres or when it failed (see postgresError); `skipped` says when no server was set. */
  postgres: PostgresReport | null;
  postgresError: string | null;
}

const fmt = (value: number, digits = 0) =>
  Number.isFinite(value) ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a';
const pct = (value: number) => (Number.isFinite(value) ? `${(value * 100).toFixed(1)} %` : 'n/a');

export function ratios(row: Row) {
  return { vsRaw: row.cycles.rate / row.raw.rate, vsNoop: row.cycles.rate / (row.noop.rate / 2) };
}

function rowErrors(row: Row): number {
  const e = row.cycles.errors;
  const n = row.noop.errors;
  return e.http + e.graphql + e.userErrors + e.dry + e.doubleClaims + n.http + n.graphql + n.userErrors + row.raw.errors;
}

export function mainTable(rows: Row[]): string {
  const lines = [
    '| clients | no-op queries/s | review cycles/s | raw SQLite cycles/s | claimItem p50 | claimItem p99 | cycles ÷ raw | cycles ÷ (no-op/2) | ≥ 40 %? | errors |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|:---:|---:|',
  ];
  for (const row of rows) {
    const r = ratios(row);
    const claim = row.cycles.latency.claim;
    lines.push(
      `| ${row.concurrency} | ${fmt(row.noop.rate)} | ${fmt(row.cycles.rate)} | ${fmt(row.raw.rate)} | ${fmt(claim?.p50 ?? Number.NaN, 2)} ms | ${fmt(claim?.p99 ?? Number.NaN, 2)} ms | ${pct(r.vsRaw)} | ${pct(r.vsNoop)} | ${r.vsNoop >= TARGET ? 'yes' : '**no**'} | ${rowErrors(row)} |`,
    );
  }
  return lines.join('\n');
}

export function latencyTable(rows: Row[]): string {
  const lines = [
    '| clients | no-op p50 / p99 | claimItem p50 / p99 | decideItem p50 / p99 | cycles in window (claim samples) |',
    '|---:|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    const pair = (name: string, cell: CellResult) => {
      const l = cell.latency[name];
      return l ? `${fmt(l.p50, 2)} / ${fmt(l.p99, 2)} ms` : 'n/a';
    };
    lines.push(
      `| ${row.concurrency} | ${pair('noop', row.noop)} | ${pair('claim', row.cycles)} | ${pair('decide', row.cycles)} | ${fmt(row.cycles.completed)} (${fmt(row.cycles.latency.claim?.count ?? 0)}) |`,
    );
  }
  return lines.join('\n');
}

export function errorLine(errors: ErrorCounts): string {
  return `HTTP ${errors.http}, GraphQL errors ${errors.graphql}, UserErrors ${errors.userErrors}, queue ran dry ${errors.dry}, double claims ${errors.doubleClaims}`;
}

export function profileSection(profile: NonNullable<Report['profile']>): string {
  const { summary } = profile;
  const areas = summary.areas
    .filter((entry) => entry.share >= 0.005)
    .map((entry) => `| ${entry.area} | ${fmt(entry.selfMs)} ms | ${pct(entry.share)} |`);
  const inclusive = summary.inclusive
    .filter((entry) => entry.share >= 0.01)
    .map((entry) => `| ${entry.area} | ${fmt(entry.ms)} ms | ${pct(entry.share)} |`);
  const busy = 1 - (summary.areas.find((entry) => entry.area === '(idle)')?.share ?? 0);
  const functions = summary.functions.map(
    (entry) =>
      `| ${entry.name.replace(/\|/g, '\\|')} | ${entry.where.replace(/\|/g, '\\|')} | ${fmt(entry.selfMs)} ms | ${pct(entry.share)} |`,
  );
  return [
    `Server CPU profile (inspector, 200 µs sampling) over ${profile.seconds} s of the ${profile.concurrency}-client review-cycle cell`,
    `(${fmt(profile.rate)} cycles/s while profiled; ${fmt(summary.totalMs)} ms of samples). Profile file: \`${profile.file}\`.`,
    `The server's main thread was busy ${pct(busy)} of the window: about ${fmt((summary.totalMs * busy) / (profile.rate * profile.seconds), 2)} ms of server CPU per review cycle.`,
    '',
    'Self time by area:',
    '',
    '| area | self time | share |',
    '|---|---:|---:|',
    ...areas,
    '',
    'Inclusive (share of samples whose synchronous stack passes through the area; async callers are not on the stack, so shares overlap and undercount):',
    '',
    '| area | time on stack | share |',
    '|---|---:|---:|',
    ...inclusive,
    '',
    'Top self-time functions (native frames such as `run`, `Statement` and `all` are better-sqlite3 calls made by the Prisma adapter; `run` includes the COMMIT fsync):',
    '',
    '| function | where | self time | share |',
    '|---|---|---:|---:|',
    ...functions,
  ].join('\n');
}

export function renderMarkdown(report: Report): string {
  const m = report.machine;
  const allOk = report.verifications.every((v) => v.ok);
  const sections = [
    '# Benchmarks',
    '',
    'Generated by `bench/run.ts`; rerun it rather than editing the numbers by hand.',
    '',
    `- **Date:** ${report.date}`,
    `- **Machine:** ${m.nproc} CPUs (nproc), ${m.cpuModel}, ${m.ramGiB} GiB RAM, ${m.kernel}; Node ${m.node}; SQLite ${m.sqlite}; temp files on ${m.tmpFilesystem}; load average at start ${m.loadAverage}`,
    `- **Command:** \`${report.command}\``,
    `- **Cells:** ${report.warmupMs / 1000} s warm-up, then ${report.durationMs / 1000} s measured, per cell; all traffic on 127.0.0.1; the load generator shares the machine with the server.`,
    `- **Server:** \`node dist/main.js\` (fresh build), NODE_ENV=production, LOG_LEVEL=warn, GRAPHIQL=false, SQLITE_SYNCHRONOUS=${report.synchronous} (the server default), ${SERVER_POLICY}, new SQLite file in WAL mode.`,
    "- **Identity:** every request carries `Authorization: Bearer <API key>`, one key per client: each client of a row is a REVIEWER principal of its own, and sends both that row's no-op queries and its review cycles (so both sides of the ratio pay authentication). Items are added by a PROPOSER principal, categories by an ADMIN; no reviewer ever proposed an item, so no claim skips one.",
    `- **Raw SQLite:** better-sqlite3 in the bench process, one connection, same migrated schema, \`journal_mode=WAL\`, \`synchronous=${report.synchronous}\`, \`foreign_keys=ON\`.`,
    '',
    '## Results',
    '',
    mainTable(report.rows),
    '',
    '- *review cycle* = `claimItem` then `decideItem(decision: ACCEPTED)` with the returned token, over HTTP/1.1 keep-alive; each client loops claim → decide.',
    '- *raw SQLite cycle* = the same two transactions on better-sqlite3 (BEGIN IMMEDIATE; first claimable by createdAt, batchId, recordId, not proposed by the claimant; conditional UPDATE; event INSERT; COMMIT; then BEGIN IMMEDIATE; item by token hash, held by the decider; conditional UPDATE; event INSERT; COMMIT), one writer, no network, no authentication. It is measured in the same row, right after the HTTP cells.',
    "- *no-op* = `{ __typename }` POSTed to /graphql with the client's API key: HTTP + authentication + Yoga + GraphQL with nothing behind it. A cycle is two requests, so `no-op/2` is the ceiling the pipeline alone allows.",
    `- **Target:** cycles/s ≥ ${TARGET * 100} % of (no-op queries/s ÷ 2).`,
    '',
    'Latency detail:',
    '',
    latencyTable(report.rows),
    '',
    ...liveMarkdown(report.live, report.liveError),
    '',
    ...scaleMarkdown(report.scale, report.scaleError, report.machine),
    '',
    ...postgresMarkdown(report.postgres, report.postgresError, report.machine, report.command),
    '',
    '## Correctness while measuring',
    '',
    `- Errors over all cells: ${errorLine(report.errors)}; raw SQLite errors ${report.rows.reduce((sum, row) => sum + row.raw.errors, 0)}.`,
    `- Server log lines at warn or above: ${report.serverLogLines.length}.`,
    ...report.serverLogLines.slice(0, 10).map((line) => `  - \`${line.slice(0, 300).replace(/`/g, "'")}\``),
    ...report.verifications.map((v) => `- ${v.ok ? 'OK' : '**FAILED**'} ${v.label}: ${v.detail}`),
    `- Overall: ${allOk && report.serverLogLines.length === 0 ? 'all checks passed' : '**some checks failed**'}.`,
    '',
    '## How to read these numbers',
    '',
    '- Absolute numbers drift a lot on a shared 2-core machine (other tenants, CPU steal, thermal and I/O noise), and the load generator competes with the server for the same two cores. Do not compare absolute rates across runs or machines.',
    '- The ratios are what matter: each row measures the HTTP cycle, the no-op query and the raw SQLite cycle side by side in one run, so machine speed largely cancels out.',
    '  - *cycles ÷ raw* says how much of the storage ceiling the GraphQL/Prisma stack delivers (fsync cost is in both).',
    '  - *cycles ÷ (no-op/2)* says how much a real claim + decide costs over an empty GraphQL round trip; the team target is ≥ 40 %.',
    '- Raw SQLite is single-writer and synchronous, so its rate does not depend on the client count; it is re-measured per row only to expose drift.',
    '- Live events: latencies are absolute, so they depend on what else the 2 cores were doing; the subscriber processes compete with the server they measure (their CPU and event-loop delay are in the table). Compare the rounds of one run with each other, and look at the server CPU per delivery: it is what limits how many events per second reach 1,000 subscribers.',
    '- PostgreSQL: the setups of a client count are measured in the same run, in alternating order, so read the ratios; the PostgreSQL section keeps its own checks and its reading.',
    '- Claim latency at scale: both queue lengths are measured in alternating rounds of the same run, so read the ratio (and the server CPU per cycle, which the load generator does not disturb), not the absolute latencies.',
    '- `--quick` runs are smoke tests: their numbers are noise.',
    '- What was changed to get here, with the figures of each step and where the remaining time goes: [docs/performance.md](docs/performance.md).',
  ];
  if (report.profile) sections.push('', '## Where the server spends its time', '', profileSection(report.profile));
  else
    sections.push(
      '',
      'A server CPU profile can be added with `npm run bench -- --profile` (a separate, profiled server; not part of the table).',
    );
  return `${sections.join('\n')}\n`;
}
