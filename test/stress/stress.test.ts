// Stress and crash (npm run test:stress), on each backend (STRESS_BACKEND; vitest.stress.config.ts runs both):
// - SQLite: 2 server processes and the command line on one file;
// - PostgreSQL: 3 server processes on one database, and no command line: `leasehold` (seed A's commands) works on
//   SQLite files only, so every write comes over HTTP and the instances meet only in the database (advisory write lock,
//   LISTEN/NOTIFY event tail).
// 10,000+ items, 64 reviewers claiming, renewing, releasing, deciding and abandoning leases while servers are
// SIGKILLed and restarted; afterwards the history must show no two leases at once, every acknowledged decision exactly
// once, and an intact database (integrity_check on SQLite; no session or advisory lock left behind on PostgreSQL).
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type KeyHolder, post } from '../support/process.js';
import { CLI_PROPOSER, CLI_REVIEWER, cliWriter } from './cli-writer.js';
import { HttpClients } from './client.js';
import { Cluster } from './cluster.js';
import { type StressDatabase, stressDatabase } from './database.js';
import { judge } from './history.js';
import { Ledger } from './ledger.js';
import { readSettings, seededRandom, sleep } from './settings.js';
import { killer, liveProposer, MAX_LEASE_SECONDS, reviewer } from './workload.js';

const settings = readSettings();

const SERVER_ENV = {
  // Every request is logged at info; at this volume only warnings and errors are worth keeping.
  LOG_LEVEL: 'warn',
  // The run drives each principal hard on purpose (a proposer adding 500 items per call, reviewers looping as fast as
  // the servers answer): the per-principal limit would turn that into RATE_LIMITED answers and hide the contention
  // this test is about. The limit itself is tested in test/api.
  RATE_LIMIT_PER_SECOND: '0',
  BOOTSTRAP_ADMIN_KEY: 'false',
};

const SEED_BATCH = 500;
/** Reviewers with this remainder (index % 16) once sit on a lease past its expiry, then try to decide. */
const LATE = 7;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const POSTGRES = settings.backend === 'postgresql';
/** The command-line writer runs on SQLite only: the CLI opens SQLite files, it has no PostgreSQL backend. */
const WITH_CLI = !POSTGRES;
const WHERE = POSTGRES
  ? `${settings.servers} servers on one PostgreSQL database (no CLI writer: the leasehold CLI works on SQLite files only)`
  : `${settings.servers} servers and the command line on one SQLite file`;

describe(`stress and crash: ${WHERE}`, () => {
  let database: StressDatabase | null = null;
  let cluster: Cluster | null = null;
  afterAll(async () => {
    await cluster?.killAll();
    // STRESS_KEEP_DATABASE=1 keeps the file or database of a run, to look into a failure.
    if (process.env.STRESS_KEEP_DATABASE === '1') console.log(`kept the database: ${database?.url}`);
    else await database?.cleanup();
  });

  it(
    `${settings.items} items, ${settings.reviewers} reviewers, ${settings.servers} servers, ${settings.kills} SIGKILLs, ≥ ${settings.seconds} s`,
    async () => {
      if (POSTGRES && !process.env.LEASEHOLD_TEST_POSTGRES_URL)
        throw new Error('STRESS_BACKEND=postgresql needs LEASEHOLD_TEST_POSTGRES_URL.');
      const db = await stressDatabase(settings.backend);
      database = db;
      const servers = new Cluster(db.url, SERVER_ENV);
      cluster = servers;
      const ledger = new Ledger();
      const phases: [string, number][] = [];
      let mark = performance.now();
      const phase = (name: string) => {
        const now = performance.now();
        phases.push([name, now - mark]);
        mark = now;
      };

      // Keys first (on SQLite this also creates and migrates the file), so no server makes a first ADMIN key.
      const reviewerNames = Array.from({ length: settings.reviewers }, (_, index) => `reviewer-${String(index).padStart(3, '0')}`);
      const keys = await db.createKeys([
        { name: 'admin', roles: ['ADMIN'] },
        { name: 'proposer-seed', roles: ['PROPOSER'] },
        { name: 'proposer-live', roles: ['PROPOSER'] },
        ...reviewerNames.map((name) => ({ name, roles: ['REVIEWER' as const] })),
      ]);
      const [admin, seeder, liveAdder, ...reviewers] = keys as [KeyHolder, KeyHolder, KeyHolder, ...KeyHolder[]];
      phase('keys');

      await servers.start(settings.servers);
      phase('servers');
      const first = servers.slots[0]?.url as string;
      const categories = await post(
        first,
        'mutation { addCategories(input: { names: ["alpha", "beta", "gamma"] }) { __typename } }',
        {},
        admin.headers,
      );
      expect(categories.body).toEqual({ data: { addCategories: { __typename: 'AddCategoriesPayload' } } });

      // Seeding over HTTP by a PROPOSER principal, 500 items per call, spread over the servers.
      const clients = new HttpClients(servers, ledger, seededRandom(settings.seed + 1));
      for (let start = 0, batch = 0; start < settings.items; start += SEED_BATCH, batch++) {
        const items = Array.from({ length: Math.min(SEED_BATCH, settings.items - start) }, (_, index) => ({
          batchId: `seed-${String(batch).padStart(4, '0')}`,
          recordId: `S-${String(start + index).padStart(6, '0')}`,
          proposedCategory: index % 2 === 0 ? 'alpha' : 'beta',
          reason: 'seeded for the stress run',
        }));
        await clients.addItems(seeder, items);
      }
      expect(ledger.counters.get('http add: items acknowledged')).toBe(settings.items);
      phase('seeding');

      // The load.
      const startedAt = Date.now();
      const endsAt = startedAt + settings.seconds * 1000;
      let killsDone = settings.kills === 0;
      const load = { clients, ledger, endsAt, stopping: () => killsDone && Date.now() >= endsAt };
      const killing = killer(servers, ledger, settings.kills, settings.seconds, startedAt, seededRandom(settings.seed + 2)).then(
        (times) => {
          killsDone = true;
          return times;
        },
      );
      const [killedAt] = await Promise.all([
        killing,
        ...reviewers.map((who, index) => reviewer(load, who, seededRandom(settings.seed + 100 + index), index % 16 === LATE)),
        liveProposer(load, liveAdder, seededRandom(settings.seed + 3)),
        WITH_CLI
          ? cliWriter({
              file: db.file,
              dir: path.dirname(db.file),
              ledger,
              random: seededRandom(settings.seed + 4),
              stopping: load.stopping,
              items: settings.cliItems,
            })
          : Promise.resolve(),
      ]);
      const loadEndedAt = Date.now();
      phase('load');

      // Let leases that lapse now be announced by the running servers, then read the history at one moment.
      while (!servers.allUp()) await sleep(50);
      await sleep(settings.settleSeconds * 1000);
      phase('settle');
      const snapshot = await db.readSnapshot();
      const verdict = judge(snapshot, ledger, {
        loadEndedAt,
        maxLeaseMs: MAX_LEASE_SECONDS * 1000,
        clockToleranceMs: settings.clockToleranceMs,
      });

      // One last crash of every server, then the database must be intact and still hold every decision.
      await servers.killAll();
      const final = await db.finalChecks();
      const decisionsBefore = snapshot.events.filter((event) => event.type === 'ITEM_DECIDED').map((event) => event.id);
      phase('checks');

      // The summary: one screen.
      const count = (name: string) => ledger.counters.get(name) ?? 0;
      const acks = (via: string, op: string) => ledger.acks.filter((ack) => ack.via === via && ack.op === op);
      const byDecision = (via: string) =>
        ['ACCEPTED', 'CORRECTED', 'REJECTED']
          .map((decision) => `${decision} ${acks(via, 'decide').filter((ack) => ack.decision === decision).length}`)
          .join(', ');
      const lostByOp = ['claim', 'renew', 'release', 'decide', 'add']
        .map((op) => `${op} ${ledger.lost.filter((lost) => lost.op === op).length}`)
        .join(', ');
      const refusalCodes = new Map<string, number>();
      for (const refusal of ledger.refusals) {
        const name = `${refusal.via} ${refusal.op} ${refusal.code} (${refusal.excuse ?? 'UNEXCUSED'})`;
        refusalCodes.set(name, (refusalCodes.get(name) ?? 0) + 1);
      }
      const starts = [...servers.startMs].sort((a, b) => a - b);
      const loadMs = loadEndedAt - startedAt;
      const httpAcks = ledger.acks.filter((ack) => ack.via === 'http' && ack.op !== 'add').length;
      const httpAdds = acks('http', 'add');
      const total = phases.reduce((sum, [, ms]) => sum + ms, 0);
      const lines = [
        `Leasehold stress run on ${settings.backend} — seed ${settings.seed} (STRESS_SEED replays the choices): ${settings.servers} servers on ${db.label}, ${settings.reviewers} reviewers, ${WITH_CLI ? '1 CLI writer' : 'no CLI writer (the leasehold CLI works on SQLite files only)'}`,
        `  elapsed ${seconds(total)}: ${phases.map(([name, ms]) => `${name} ${seconds(ms)}`).join(', ')}`,
        `  items ${snapshot.items.length}: seeded over HTTP ${settings.items}, added live over HTTP ${httpAdds.length - settings.items}, by the CLI ${acks('cli', 'add').length}`,
        `  kills ${servers.kills} SIGKILL (+ ${settings.servers} at the end), the last at +${seconds((killedAt.at(-1) ?? startedAt) - startedAt)}; restarts ready in median ${seconds(starts[Math.floor(starts.length / 2)] ?? 0)}, max ${seconds(starts.at(-1) ?? 0)}`,
        `  HTTP acknowledged: claims ${acks('http', 'claim').length} (nothing claimable ${count('http claim: nothing claimable')}), renewals ${acks('http', 'renew').length}, releases ${acks('http', 'release').length}, abandoned ${count('http lease: abandoned')}`,
        `    decisions ${acks('http', 'decide').length}: ${byDecision('http')}; ${seconds(loadMs)} of load → ${(httpAcks / (loadMs / 1000)).toFixed(0)} acknowledged lease operations/s`,
        WITH_CLI
          ? `  CLI acknowledged: claims ${acks('cli', 'claim').length}, renewals ${acks('cli', 'renew').length}, releases ${acks('cli', 'release').length}, decisions ${acks('cli', 'decide').length} (${byDecision('cli')}); ${[...ledger.counters].filter(([name]) => name.startsWith('cli ') && name.endsWith(': run')).reduce((sum, [, n]) => sum + n, 0)} processes run`
          : '  CLI: not run on PostgreSQL (the leasehold command line opens SQLite files only)',
        `  answers lost to kills (not acknowledged; retried): ${lostByOp}`,
        `  refusals: ${[...refusalCodes].map(([name, n]) => `${name} ${n}`).join('; ') || 'none'}`,
        `  history: ${Object.entries(snapshot.eventTypes)
          .filter(([, n]) => n > 0)
          .map(([type, n]) => `${type} ${n}`)
          .join(', ')}`,
        `  verdict (clocks within ${settings.clockToleranceMs} ms): ${Object.entries(verdict.figures)
          .map(([name, n]) => `${name} ${n}`)
          .join(', ')}`,
        `  problems ${ledger.problems.length}, unexpected exits ${servers.unexpectedExits.length}, server error lines ${servers.problems().length}, warnings ${servers.warnings().length}; after the final kill: ${final.summary}`,
      ];
      // The first server error lines, if any: an answer-level failure below only shows what the clients saw.
      for (const line of servers.problems().slice(0, 5)) lines.push(`  server error: ${line.slice(0, 1_000)}`);
      console.log(lines.join('\n'));

      // Every check, each failing with the first violations it found.
      const show = (list: readonly string[]) => ({ count: list.length, first: list.slice(0, 15) });
      expect(show(ledger.problems), 'answers no client may get (5xx, GraphQL errors, SQLITE_BUSY, timeouts, CLI failures)').toEqual(
        show([]),
      );
      expect(
        show(ledger.refusals.filter((refusal) => refusal.excuse === null).map((refusal) => JSON.stringify(refusal))),
        'unexpected refusals',
      ).toEqual(show([]));
      expect(servers.unexpectedExits).toEqual([]);
      expect(show(servers.problems()), 'server error log lines').toEqual(show([]));
      for (const [check, list] of Object.entries(verdict.violations)) expect(show(list), check).toEqual(show([]));
      for (const [check, list] of Object.entries(final.problems)) expect(show(list), check).toEqual(show([]));
      expect(final.decisions, 'decisions after the final SIGKILL of every server').toEqual(decisionsBefore);

      // The run did what it claims to: the sizes, the kills, leases lapsing, and (on SQLite) both kinds of writer.
      expect(servers.kills).toBe(settings.kills);
      expect(snapshot.items.length).toBeGreaterThanOrEqual(settings.items + acks('cli', 'add').length);
      expect(acks('cli', 'add').length).toBe(settings.cliItems);
      expect(verdict.figures['decisions acknowledged']).toBeGreaterThan(0);
      expect(verdict.figures['leases lapsed and recorded (LEASE_EXPIRED)']).toBeGreaterThan(0);
      expect(snapshot.items.filter((item) => item.addedBy === CLI_PROPOSER).length).toBe(settings.cliItems);
      if (WITH_CLI) {
        expect(acks('cli', 'decide').length).toBeGreaterThan(0);
        expect(snapshot.events.some((event) => event.type === 'LEASE_CLAIMED' && event.actor === CLI_REVIEWER)).toBe(true);
      }
    },
    (settings.seconds * 3 + 300) * 1000,
  );
});
