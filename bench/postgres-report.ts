// The "PostgreSQL: several instances" section of BENCHMARKS.md (and the console summary).
import { describeRound, type GroupResult, type RoundResult } from './fanout.js';
import { FANOUT_TARGET_MS } from './live.js';
import type { Machine } from './machine.js';
import { type CycleMeasurement, type DeliveryResult, type PostgresReport, type Setup, splitClients } from './postgres.js';
import type { Spread } from './stats.js';

const int = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a');
const two = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : 'n/a');
const pct = (share: number) => (Number.isFinite(share) ? `${Math.round(share * 100)} %` : 'n/a');
const ratio = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : 'n/a');
const triple = (s: Spread | null) => (s ? `${int(s.p50)} / ${int(s.p99)} / ${int(s.max)} ms` : 'n/a');
const pair = (s: Spread) => `${int(s.p50)} / ${int(s.p99)} ms`;

function median(values: number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

const range = (values: number[], format: (value: number) => string) =>
  values.length > 1 ? ` (${format(Math.min(...values))}–${format(Math.max(...values))})` : '';

/** The measurements of one setup at one client count, in round order. */
function of(report: PostgresReport, setup: Setup, clients: number): CycleMeasurement[] {
  return report.cycles.filter((m) => m.setup.key === setup.key && m.clients === clients).sort((a, b) => a.repeat - b.repeat);
}

/** Per client count: median cycles/s per setup and the two ratios (of the medians, and per round). */
export function headline(report: PostgresReport) {
  const [sqlite, pg1, pgN] = report.setups as [Setup, Setup, Setup];
  return report.options.clients.map((clients) => {
    const rates = (setup: Setup) => of(report, setup, clients).map((m) => m.cycleRate);
    const perRound = (a: Setup, b: Setup) => {
      const top = rates(a);
      const bottom = rates(b);
      return top.map((value, index) => value / (bottom[index] ?? Number.NaN));
    };
    return {
      clients,
      sqlite: rates(sqlite),
      pg1: rates(pg1),
      pgN: rates(pgN),
      pg1VsSqlite: median(rates(pg1)) / median(rates(sqlite)),
      pg1VsSqliteRounds: perRound(pg1, sqlite),
      pgNVsPg1: median(rates(pgN)) / median(rates(pg1)),
      pgNVsPg1Rounds: perRound(pgN, pg1),
    };
  });
}

/** Server CPU (all instances) and PostgreSQL CPU per review cycle, in ms. */
const perCycle = (share: number, m: CycleMeasurement) => (share * 1000) / m.cycleRate;

function cycleTables(report: PostgresReport): string[] {
  const [sqlite, pg1, pgN] = report.setups as [Setup, Setup, Setup];
  const heads = headline(report);
  const rateCell = (values: number[]) => `${int(median(values))}${range(values, int)}`;
  const lines = [
    `| clients (total) | ${sqlite.label} (${sqlite.short}) | ${pg1.label} (${pg1.short}) | ${pgN.label} (${pgN.short}) | ${pg1.short} ÷ ${sqlite.short} | ${pgN.short} ÷ ${pg1.short} |`,
    '|---:|---:|---:|---:|---:|---:|',
    ...heads.map(
      (h) =>
        `| ${h.clients} (${pgN.short}: ${splitClients(h.clients, pgN.instances).join(' + ')}) | ${rateCell(h.sqlite)} | ${rateCell(h.pg1)} | ${rateCell(h.pgN)} | **${ratio(h.pg1VsSqlite)}**${range(h.pg1VsSqliteRounds, ratio)} | **${ratio(h.pgNVsPg1)}**${range(h.pgNVsPg1Rounds, ratio)} |`,
    ),
  ];
  if (report.options.noop) {
    lines.push(
      '',
      `No-op baseline (\`{ __typename }\`, same clients and keys, just before the cycles of each measurement; summed over the instances), median queries/s${report.options.repeats > 1 ? ' (range)' : ''}:`,
      '',
      `| clients (total) | ${sqlite.label} | ${pg1.label} | ${pgN.label} |`,
      '|---:|---:|---:|---:|',
      ...report.options.clients.map((clients) => {
        const noop = (setup: Setup) => of(report, setup, clients).map((m) => m.noopRate ?? Number.NaN);
        return `| ${clients} | ${rateCell(noop(sqlite))} | ${rateCell(noop(pg1))} | ${rateCell(noop(pgN))} |`;
      }),
    );
  }
  lines.push(
    '',
    'Each measurement (CPU: shares of one core over the measured window, from /proc; *PostgreSQL* = the backends of the bench database plus the WAL writer, checkpointer and background writer, which also serve other databases; *other* = the rest of the machine, i.e. other tenants):',
    '',
    '| round | clients | setup | cycles/s (per instance) | claimItem p50 / p99 | decideItem p50 / p99 | CPU: servers / PostgreSQL / load generator / other | CPU per cycle: servers / PostgreSQL | ready after |',
    '|---:|---:|---|---:|---:|---:|---:|---:|---:|',
  );
  const ordered = [...report.cycles].sort(
    (a, b) => a.repeat - b.repeat || a.clients - b.clients || report.setups.indexOf(a.setup) - report.setups.indexOf(b.setup),
  );
  for (const m of ordered) {
    lines.push(
      `| ${m.repeat + 1} | ${m.clients} | ${m.setup.label} | ${int(m.cycleRate)}${m.perInstanceRate.length > 1 ? ` (${m.perInstanceRate.map(int).join(' + ')})` : ''} | ${two(m.claim.p50)} / ${two(m.claim.p99)} ms | ${two(m.decide.p50)} / ${two(m.decide.p99)} ms | ${pct(m.cpu.servers)} / ${pct(m.cpu.database)} / ${pct(m.cpu.bench)} / ${pct(m.cpu.other)} | ${two(perCycle(m.cpu.servers, m))} / ${Number.isFinite(m.cpu.database) ? `${two(perCycle(m.cpu.database, m))} ms` : '–'} | ${m.startSeconds.toFixed(1)} s |`,
    );
  }
  const withWriters = ordered.filter((m) => m.writers);
  if (withWriters.length > 0) {
    lines.push(
      '',
      'The writer connections (one per instance, `application_name = leasehold-writer`) as `pg_stat_activity` showed them, sampled every ~10 ms over the measured window: mean number of writer connections in each state.',
      '',
      '| round | clients | setup | samples | writers | waiting for the advisory write lock | in a transaction, waiting for its instance | running a statement | WAL write / flush | other lock | idle |',
      '|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...withWriters.map((m) => {
        const w = m.writers as NonNullable<CycleMeasurement['writers']>;
        return `| ${m.repeat + 1} | ${m.clients} | ${m.setup.label} | ${int(w.samples)} | ${two(w.writers)} | ${two(w.advisoryLock)} | ${two(w.idleInTransaction)} | ${two(w.running)} | ${two(w.wal)} | ${two(w.otherLock)} | ${two(w.idle)} |`;
      }),
    );
  }
  return lines;
}

function writer(round: RoundResult): string {
  return `${round.events} × addItem, ${describeRound(round)}`;
}

function deliveryTables(results: DeliveryResult[]): string[] {
  const lines = [
    '| mutations (through A) | backend | subscribers on | deliveries (expected) | missing / duplicate / out of order | receipt − occurredAt p50 / p99 / max | receipt − HTTP answer p50 / p99 / max | serverNow − occurredAt p50 / p99 | p99 < 100 ms? |',
    '|---|---|---|---:|---:|---:|---:|---:|:---:|',
  ];
  const roundCount = Math.max(0, ...results.map((result) => result.fanOut.rounds.length));
  for (let index = 0; index < roundCount; index++) {
    for (const result of results) {
      const round = result.fanOut.rounds[index];
      if (!round) continue;
      for (const group of round.groups as GroupResult[]) {
        lines.push(
          `| ${writer(round)} | ${result.label} | ${group.label} | ${int(group.delivered)} (${int(group.expected)}) | ${group.missing} / ${group.duplicates} / ${group.outOfOrder} | ${triple(group.fromOccurred)} | ${triple(group.fromAck)} | ${pair(group.serverSide)} | ${Number.isFinite(group.fromOccurred.p99) ? (group.fromOccurred.p99 < FANOUT_TARGET_MS ? 'yes' : '**no**') : 'n/a'} |`,
        );
      }
    }
  }
  lines.push(
    '',
    'The same rounds: what the writes achieved and the CPU it took (shares of one core over first send → last delivery).',
    '',
    '| mutations (through A) | backend | events/s answered | `addItem` answer p50 / p99 | first send → last delivery | servers (each) | PostgreSQL | subscriber workers | other processes |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (let index = 0; index < roundCount; index++) {
    for (const result of results) {
      const round = result.fanOut.rounds[index];
      if (!round) continue;
      const servers = round.serverCpu.reduce((sum, cpu) => sum + cpu.share, 0);
      const workers = round.groups.reduce((sum, group) => sum + group.workerCpu, 0);
      lines.push(
        `| ${writer(round)} | ${result.label} | ${int(round.events / Math.max(round.mutationSeconds, 0.001))} | ${two(round.ack.p50)} / ${two(round.ack.p99)} ms | ${round.deliverySeconds.toFixed(1)} s | ${pct(servers)} (${round.serverCpu.map((cpu) => pct(cpu.share)).join(', ')}) | ${pct(round.databaseCpu)} | ${pct(workers)} | ${pct(round.otherCpu)} |`,
      );
    }
  }
  return lines;
}

/** A few sentences computed from the figures; the structural reasons are stated once, below them. */
function reading(report: PostgresReport, machine: Machine): string[] {
  const heads = headline(report);
  const [sqlite, pg1, pgN] = report.setups as [Setup, Setup, Setup];
  const mean = (values: number[]) => (values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length);
  const lines: string[] = [];
  for (const h of heads) {
    lines.push(
      `- **${h.clients} clients:** ${pg1.short} ÷ ${sqlite.short} = ${ratio(h.pg1VsSqlite)}, ${pgN.short} ÷ ${pg1.short} = ${ratio(h.pgNVsPg1)} (medians of ${int(median(h.sqlite))}, ${int(median(h.pg1))} and ${int(median(h.pgN))} cycles/s).`,
    );
  }
  const busiest = report.options.clients[report.options.clients.length - 1] ?? 0;
  const many = of(report, pgN, busiest);
  const one = of(report, pg1, busiest);
  const writerMean = (list: CycleMeasurement[], field: keyof NonNullable<CycleMeasurement['writers']>) =>
    mean(list.flatMap((m) => (m.writers ? [m.writers[field]] : [])));
  if (many.length > 0 && one.length > 0) {
    const busy = (list: CycleMeasurement[]) =>
      mean(list.map((m) => m.cpu.servers + (Number.isFinite(m.cpu.database) ? m.cpu.database : 0) + m.cpu.bench + m.cpu.other));
    const noop = (list: CycleMeasurement[]) => median(list.map((m) => m.noopRate ?? Number.NaN));
    lines.push(
      writerMean(one, 'idleInTransaction') > writerMean(one, 'running')
        ? `- **One writer at a time, and it mostly waits for its instance.** With one instance at ${busiest} clients, the writer connection was inside a transaction waiting for its instance to send the next statement ${pct(writerMean(one, 'idleInTransaction'))} of the time, running a statement ${pct(writerMean(one, 'running'))}, writing or flushing WAL ${pct(writerMean(one, 'wal'))}, and idle ${pct(writerMean(one, 'idle'))}. So the serialized part of a write is mostly the instance's side — a round trip per statement of an interactive transaction, and the Node work between them — not PostgreSQL executing statements or its fsync. With ${pgN.instances} instances, ${two(writerMean(many, 'advisoryLock'))} of the ${pgN.instances} writers were waiting for the advisory lock on average, and ${two(writerMean(many, 'idle'))} writers were idle.`
        : `- **One writer at a time, and it no longer waits for its instance.** With one instance at ${busiest} clients, the writer connection was running a statement ${pct(writerMean(one, 'running'))} of the time, writing or flushing WAL ${pct(writerMean(one, 'wal'))}, idle ${pct(writerMean(one, 'idle'))}, and inside a transaction waiting for its instance ${pct(writerMean(one, 'idleInTransaction'))}: the review loop's writes are one statement per group-commit batch (\`leasehold_write\`, src/db/write-calls.ts), so the lock is held only while PostgreSQL runs them and commits. With ${pgN.instances} instances, ${two(writerMean(many, 'advisoryLock'))} of the ${pgN.instances} writers were waiting for the advisory lock on average, and ${two(writerMean(many, 'idle'))} writers were idle.`,
      `- **More work per cycle with more instances.** Server CPU per cycle at ${busiest} clients: ${two(mean(one.map((m) => perCycle(m.cpu.servers, m))))} ms with one instance, ${two(mean(many.map((m) => perCycle(m.cpu.servers, m))))} ms summed over ${pgN.instances}; PostgreSQL ${two(mean(one.map((m) => perCycle(m.cpu.database, m))))} vs ${two(mean(many.map((m) => perCycle(m.cpu.database, m))))} ms. Every instance reads every commit back through its event feed (events, then the items), and each instance's group-commit batch is smaller, so the fixed cost of a transaction (BEGIN, the lock, COMMIT and its WAL flush) is shared by fewer cycles.`,
      `- **The machine was saturated.** At ${busiest} clients everything together (instances, PostgreSQL, load generator, other processes) kept ${pct(busy(many))} of the ${machine.nproc * 100} % busy with ${pgN.instances} instances (${pct(busy(one))} with one); other processes alone took ${pct(mean(many.map((m) => m.cpu.other)))}.${report.options.noop ? ` Even the no-op query, which takes no lock, gave ${int(noop(many))} queries/s over ${pgN.instances} instances against ${int(noop(one))} on one: extra processes on ${machine.nproc} busy cores add no HTTP capacity, they only share it.` : ''}`,
    );
  }
  lines.push(
    `- **Why this setup cannot show scale-out:** every write transaction, in every instance, first takes \`pg_advisory_xact_lock\` (POSTGRES_WRITE_LOCK), so writes run one transaction at a time across all instances, as on SQLite; the review loop's writes hold it for one statement per batch (\`leasehold_write\`), other writes for a whole interactive transaction with a round trip per statement, each until its WAL flush (synchronous_commit=${report.server?.settings.synchronous_commit ?? '?'}). A review cycle is two writes (claim, decide) and nothing else, so there is no read work for the extra instances to take over; what they could add is HTTP, GraphQL and authentication capacity, which needs idle cores, and here ${machine.nproc} cores are shared by the instances, PostgreSQL, the load generator and other tenants. Scale-out would need writes that do not queue behind one lock (decision 0009), and cores to run the instances on.`,
    `- **${pg1.short} against ${sqlite.short}:** SQLite runs its statements inside the server process (a function call each); on PostgreSQL a batch of claims or decisions is one round trip to another process (\`leasehold_write\` runs them there, under the lock), and that process shares the cores with the instances.`,
  );
  const deliveryLine = (result: DeliveryResult) => {
    const parts = result.fanOut.rounds.slice(0, 2).map((round) => {
      const [own, ...others] = round.groups;
      const othersP50 = others.map((group) => group.fromOccurred.p50);
      const othersP99 = others.map((group) => group.fromOccurred.p99);
      return `${describeRound(round)}: writing instance p50 ${int(own?.fromOccurred.p50 ?? Number.NaN)} / p99 ${int(own?.fromOccurred.p99 ?? Number.NaN)} ms, the others p50 ${int(Math.min(...othersP50))}–${int(Math.max(...othersP50))} / p99 ${int(Math.min(...othersP99))}–${int(Math.max(...othersP99))} ms`;
    });
    return `${result.label}: ${parts.join('; ')}`;
  };
  if (report.delivery.length > 0) {
    lines.push(
      `- **Delivery across instances** (receipt − occurredAt, at the rates the writer sustains): ${report.delivery.map(deliveryLine).join('. ')}. Every subscriber on every instance got every event once, in order (see the checks). At 200 events/s offered, neither backend answered more than ${int(Math.max(...report.delivery.flatMap((result) => result.fanOut.rounds.slice(2).map((round) => round.events / Math.max(round.mutationSeconds, 0.001)))))} addItem/s here, so that round measures a backlog, not delivery.`,
    );
  }
  lines.push(
    '- **How an instance hears of a commit:** on PostgreSQL through NOTIFY on its LISTEN connection, which wakes its feed at once to read the new rows; on SQLite by polling `PRAGMA data_version` every FEED_POLL_MS (20 ms). The writing instance also wakes its own feed right after its commit. So on SQLite an instance that did not write adds up to one poll interval, and on PostgreSQL every instance, the writing one included, reads the events back over the network.',
  );
  return lines;
}

/** Per measurement and form: how long each write transaction held the write lock, and per write. */
function lockTable(report: PostgresReport): string[] {
  const rows = report.cycles.flatMap((measured) =>
    measured.lockHolds.map(
      (hold) =>
        `| ${measured.repeat + 1} | ${measured.clients} | ${measured.setup.label} | ${hold.form} | ${int(hold.holds)} | ${(hold.writes / hold.holds).toFixed(1)} | ${hold.p50Ms.toFixed(2)} / ${hold.p99Ms.toFixed(2)} ms | ${hold.meanMs.toFixed(2)} ms | ${((hold.meanMs * hold.holds) / hold.writes).toFixed(3)} ms |`,
    ),
  );
  if (rows.length === 0) return ['Not measured.'];
  return [
    'From each instance’s `/metrics` at the end of the cell (warm-up and no-op window included), added up over the instances: `leasehold_write_lock_held_seconds{form}` (from having the lock until COMMIT was answered) and `leasehold_write_lock_writes_total{form}`. p50 and p99 are read from the histogram’s buckets (0.5, 1, 2.5, 5, 10, 25 ms …), linear within one, so each is known to its bucket’s width. *statement*: a batch of review writes as one `leasehold_write` call (PostgreSQL); *transaction*: an interactive transaction (SQLite, and PostgreSQL’s other writes).',
    '',
    '| round | clients | setup | form | write transactions | writes each (mean) | held p50 / p99 | held, mean | per write (mean ÷ writes each) |',
    '|---:|---:|---|---|---:|---:|---:|---:|---:|',
    ...rows,
  ];
}

/** Items/s of addItems (500 per call over HTTP) on each backend, and PostgreSQL's share of SQLite's. */
function intakeTable(report: PostgresReport): string[] {
  if (report.intake.length === 0) return ['Not measured (--pg-intake-items=0).'];
  const rows = [...new Set(report.intake.map((measured) => measured.clients))].map((clients) => {
    const on = (backend: string) => report.intake.find((measured) => measured.clients === clients && measured.backend === backend);
    const sqlite = on('sqlite');
    const postgres = on('postgresql');
    const cell = (measured: typeof sqlite) =>
      measured ? `${int(measured.itemsPerSecond)} (${int(measured.items)} in ${measured.seconds.toFixed(2)} s)` : 'n/a';
    const share = sqlite && postgres ? (postgres.itemsPerSecond / sqlite.itemsPerSecond).toFixed(2) : 'n/a';
    return `| ${clients} | ${cell(sqlite)} | ${cell(postgres)} | ${share} |`;
  });
  const imported = (backend: string) => report.imports.find((measured) => measured.backend === backend);
  const sqliteImport = imported('sqlite');
  const postgresImport = imported('postgresql');
  if (sqliteImport || postgresImport) {
    const cell = (measured: typeof sqliteImport) =>
      measured ? `${int(measured.itemsPerSecond)} (${int(measured.items)} in ${measured.seconds.toFixed(2)} s)` : 'n/a';
    const share = sqliteImport && postgresImport ? (postgresImport.itemsPerSecond / sqliteImport.itemsPerSecond).toFixed(2) : 'n/a';
    rows.push(`| \`leasehold import\` | ${cell(sqliteImport)} | ${cell(postgresImport)} | ${share} |`);
    const afterStart = (measured: typeof sqliteImport) =>
      measured ? `${int(measured.afterStartItemsPerSecond)} (start-up ${measured.probeSeconds.toFixed(2)} s)` : 'n/a';
    const afterShare =
      sqliteImport && postgresImport ? (postgresImport.afterStartItemsPerSecond / sqliteImport.afterStartItemsPerSecond).toFixed(2) : 'n/a';
    rows.push(`| \`leasehold import\`, past its start | ${afterStart(sqliteImport)} | ${afterStart(postgresImport)} | ${afterShare} |`);
  }
  return [
    `\`addItems\` of 500 items per call over HTTP (each item with its ITEM_ADDED event, counted in the database afterwards), one server on a fresh database of each backend, after a warm-up of 5,000 items per client (ten calls), ${int(report.options.intakeItems)} items per measurement; with several clients the calls of each go one after another and the clients at once. \`leasehold import\`: a JSON Lines file of as many items into a fresh database of each backend, by its own process (chunks of 500, each one transaction), timed from its start to its exit; *past its start*: a second import of 500 items into the same database times the process's start (Node, modules, migration check), and the rate is (items − 500) ÷ (the first import's time − the second's).`,
    '',
    '| clients | SQLite: items/s | PostgreSQL: items/s | PostgreSQL ÷ SQLite |',
    '|---:|---:|---:|---:|',
    ...rows,
  ];
}

/** Loops/s of the action-proposal loop on each backend, PostgreSQL's share of SQLite's, and the lock holds. */
function proposalLoopTable(report: PostgresReport): string[] {
  if (report.proposalLoops.length === 0) return ['Not measured (--pg-proposal-workers=0).'];
  const on = (backend: string) => report.proposalLoops.find((measured) => measured.backend === backend);
  const sqlite = on('sqlite');
  const postgres = on('postgresql');
  const holds = (measured: typeof sqlite) =>
    measured?.lockHolds
      .map(
        (hold) =>
          `${hold.form}: ${int(hold.holds)} holds, p50 ${hold.p50Ms.toFixed(2)} / p99 ${hold.p99Ms.toFixed(2)} ms, ${(hold.writes / hold.holds).toFixed(1)} writes each`,
      )
      .join('; ') || 'n/a';
  const row = (label: string, measured: typeof sqlite) =>
    measured
      ? `| ${label} | ${measured.loopsPerSecond.toFixed(1)} (${int(measured.loops)} in ${measured.seconds.toFixed(2)} s) | ${holds(measured)} |`
      : `| ${label} | n/a | n/a |`;
  return [
    `One loop is six mutations over HTTP, as the three parties send them: submitProposal (LOW, needing one approver), claimProposal by id and reviewProposal APPROVE, claimExecution, startExecutionAttempt and reportExecutionResult SUCCEEDED. ${report.options.proposalWorkers} workers at once, each with a PROPOSER, a REVIEWER and an EXECUTOR key of its own (an executor may take another worker's approved proposal); one server on a fresh database of each backend, ${report.options.warmupMs / 1000} s warm-up + ${report.options.durationMs / 1000} s measured. Lock holds from the server's /metrics since it started (warm-up included).`,
    '',
    '| backend | loops/s | write lock held, per batch |',
    '|---|---:|---|',
    row('SQLite', sqlite),
    row('PostgreSQL', postgres),
    '',
    `PostgreSQL ÷ SQLite: ${sqlite && postgres ? (postgres.loopsPerSecond / sqlite.loopsPerSecond).toFixed(2) : 'n/a'}.`,
  ];
}

export function postgresMarkdown(report: PostgresReport | null, error: string | null, machine: Machine, command: string): string[] {
  const title = '## PostgreSQL: several instances';
  if (error) return [title, '', `**Not measured:** the PostgreSQL part failed: ${error}.`];
  if (!report) return [title, '', '**Not measured:** skipped (--no-postgres).'];
  if (report.skipped || !report.server) {
    return [
      title,
      '',
      `**Not measured in this run:** ${report.skipped ?? 'no server'}. Set LEASEHOLD_BENCH_POSTGRES_URL (or LEASEHOLD_TEST_POSTGRES_URL) and run \`npm run bench -- --postgres-only\`.`,
    ];
  }
  const { options, server } = report;
  const s = server.settings;
  const pgN = report.setups[2] as Setup;
  const local = /@(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(server.adminUrl);
  const allOk = report.verifications.every((v) => v.ok) && report.serverLogLines.length === 0;
  return [
    title,
    '',
    `- **Date:** ${report.date}`,
    `- **Command:** \`${command}\` (${int(report.seconds.total)} s in this run: ${int(report.seconds.cycles)} s of review cycles, ${int(report.seconds.delivery)} s of delivery). \`npm run bench\` runs this part after the sections above when LEASEHOLD_BENCH_POSTGRES_URL or LEASEHOLD_TEST_POSTGRES_URL is set, and says so when it is not; \`--no-postgres\` leaves it out.`,
    `- **Machine:** ${machine.nproc} CPUs (nproc), ${machine.cpuModel}, ${machine.ramGiB} GiB RAM; Node ${machine.node}; load average ${report.loadAverage.start} when this part started, ${report.loadAverage.end} when it ended (other engineers' tests share the machine: see *other* below). ${local ? 'PostgreSQL runs on the same machine (127.0.0.1), so it shares the cores with the instances and the load generator.' : 'PostgreSQL is not on 127.0.0.1: its CPU is not in the figures (n/a) unless its processes are visible here.'}`,
    `- **PostgreSQL:** ${server.version}; \`fsync=${s.fsync}\`, \`synchronous_commit=${s.synchronous_commit}\`, \`wal_sync_method=${s.wal_sync_method}\`, \`full_page_writes=${s.full_page_writes}\`, \`commit_delay=${s.commit_delay}\`, \`shared_buffers=${s.shared_buffers}\`, \`max_connections=${s.max_connections}\`${s.fsync === 'on' && s.synchronous_commit === 'on' ? ' (durable: each commit waits for its WAL to be flushed)' : ''}.`,
    `- **Databases:** a fresh one per measurement: \`CREATE DATABASE leasehold_bench_<random>\` through the admin URL (${server.variable}), migrated by the bench's key setup (\`openDatabase\`, which migrates as the servers do on start), \`DROP DATABASE … WITH (FORCE)\` afterwards. SQLite: a fresh file per measurement, as in the main table.`,
    `- **Instances:** \`node dist/main.js\` with the settings of the main table, DATABASE_URL=postgresql://…/leasehold_bench_…, DATABASE_POOL_SIZE ${process.env.DATABASE_POOL_SIZE ?? '10 (the default)'}, PG_WRITE_MODE ${process.env.PG_WRITE_MODE ?? 'serialized (the default)'}: per instance one writer connection, up to that many readers and one LISTEN connection.`,
    `- **Review cycles:** the cycle of the main table (\`cycleCell\`: claimItem → decideItem ACCEPTED, each client a REVIEWER principal of its own), ${options.warmupMs / 1000} s warm-up + ${options.durationMs / 1000} s measured per cell. With ${pgN.instances} instances the clients are split over them (${options.clients.map((c) => `${c} → ${splitClients(c, pgN.instances).join(' + ')}`).join(', ')}), all measured windows start together, and cycles/s is the sum. One load generator (the bench process) drives every instance. Every setup and client count ${options.repeats > 1 ? `is measured ${options.repeats} times, the order of the setups alternating between rounds; the tables give the median and, in brackets, the range, and each ratio is of the medians, with the per-round ratios in brackets` : 'is measured once'}.`,
    '',
    '### Review cycles per second',
    '',
    ...cycleTables(report),
    '',
    `### Event delivery across instances (${options.subscribers} subscribers on each of ${pgN.instances} instances)`,
    '',
    `- **Setup:** ${pgN.instances} instances on one fresh database (PostgreSQL), and for comparison ${pgN.instances} processes on one fresh file (SQLite; the live section above has the 2-process version of it). ${options.subscribers} subscribers on each instance, as in the live section (graphql-ws, one VIEWER key and WebSocket each, \`queueEvents { sequence type occurredAt serverNow }\`, one worker process per instance's group). \`addItem\` through instance A only, as one PROPOSER, after sentinel events until every subscriber has one.`,
    '- **Latency** per (event, subscriber): receipt − `occurredAt` (stamped in the writing transaction, just before its commit; on PostgreSQL with the database server’s clock, which the instances follow, known to within half the shortest of 5 round trips — under a millisecond on 127.0.0.1), and receipt − the moment the mutation’s HTTP answer arrived at the bench (negative when the event beat the answer). Every subscriber’s sequence numbers are checked against the history read back from the database: each event exactly once, in order.',
    '',
    ...(report.delivery.length > 0 ? deliveryTables(report.delivery) : ['Not measured.']),
    '',
    '### Write lock held',
    '',
    ...lockTable(report),
    '',
    '### Bulk intake',
    '',
    ...intakeTable(report),
    '',
    '### The action-proposal loop',
    '',
    ...proposalLoopTable(report),
    '',
    '### Reading',
    '',
    ...reading(report, machine),
    '',
    '### Checks',
    '',
    `- Server log lines at warn or above: ${report.serverLogLines.length}.`,
    ...report.serverLogLines.slice(0, 10).map((line) => `  - \`${line.slice(0, 300).replace(/`/g, "'")}\``),
    ...report.verifications.map((v) => `- ${v.ok ? 'OK' : '**FAILED**'} ${v.label}: ${v.detail}`),
    `- Overall: ${allOk ? 'all checks passed' : '**some checks failed**'}.`,
  ];
}

/** Console lines: the headline ratios and the delivery latencies. */
export function postgresSummary(report: PostgresReport): string[] {
  if (report.skipped) return [`postgres part: SKIPPED (${report.skipped})`];
  const [sqlite, pg1, pgN] = report.setups as [Setup, Setup, Setup];
  const lines = headline(report).map(
    (h) =>
      `postgres part, ${h.clients} clients: ${sqlite.short} ${int(median(h.sqlite))}, ${pg1.short} ${int(median(h.pg1))}, ${pgN.short} ${int(median(h.pgN))} cycles/s; ${pg1.short} ÷ ${sqlite.short} = ${ratio(h.pg1VsSqlite)}, ${pgN.short} ÷ ${pg1.short} = ${ratio(h.pgNVsPg1)}`,
  );
  for (const result of report.delivery)
    for (const round of result.fanOut.rounds)
      for (const group of round.groups)
        lines.push(
          `postgres part, delivery, ${result.label}, ${describeRound(round)}, ${group.label}: ${group.delivered}/${group.expected}; receipt − occurredAt p50 ${group.fromOccurred.p50} / p99 ${group.fromOccurred.p99} / max ${group.fromOccurred.max} ms`,
        );
  for (const measured of report.intake)
    lines.push(`postgres part, intake, ${measured.backend}, ${measured.clients} client(s): ${int(measured.itemsPerSecond)} items/s`);
  for (const measured of report.imports)
    lines.push(
      `postgres part, import, ${measured.backend}: ${int(measured.itemsPerSecond)} items/s (past its start: ${int(measured.afterStartItemsPerSecond)})`,
    );
  for (const measured of report.proposalLoops)
    lines.push(
      `postgres part, proposal loop, ${measured.backend}, ${measured.workers} workers: ${measured.loopsPerSecond.toFixed(1)} loops/s`,
    );
  lines.push(
    `postgres part took ${report.seconds.total.toFixed(1)} s (cycles ${report.seconds.cycles.toFixed(1)} s, intake ${report.seconds.intake.toFixed(1)} s, proposal loop ${report.seconds.proposals.toFixed(1)} s, delivery ${report.seconds.delivery.toFixed(1)} s)`,
  );
  return lines;
}
