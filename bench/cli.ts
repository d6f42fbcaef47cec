// `tsx bench/cli.ts [--runs N] [--commands claim,show,decide]`: how long one command-line command takes,
// end to end (spawn to exit), for `leasehold <command>` (compiled, and for claim also from the sources
// through tsx) and seed A's `python3 review_leases.py <command>`, measured in the same run, interleaved,
// on the same machine. Each implementation works on its own database of pending items; prints the
// medians and each one's ratio to seed A's median for the same command.
import { type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { seedScriptText } from '../test/cli/seed-script.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'leasehold.js');

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index > 0 ? process.argv[index + 1] : undefined;
}

const RUNS = Number(option('--runs') ?? 41);
const COMMANDS = (option('--commands') ?? 'claim,show,decide').split(',');
const WARMUP = 3;

function check(result: SpawnSyncReturns<Buffer>, what: string): void {
  if (result.status !== 0) throw new Error(`${what} failed (${result.status}): ${result.stderr.toString()}`);
}

/** Wall time of one process, spawn to exit, in milliseconds; fails on a non-zero exit. */
function timed(command: string, args: string[], cwd: string, env: Record<string, string>, expect: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('close', (code) => {
      const elapsed = performance.now() - started;
      if (code !== 0 || !output.includes(expect)) reject(new Error(`${command} ${args.join(' ')}: exit ${code}: ${output}`));
      else resolve(elapsed);
    });
  });
}

/**
 * Source files (src/generated aside, as bin/leasehold.js ignores it) changed after dist/ was built: while
 * there are any, `npx leasehold` runs the sources, and the "compiled" rows would time those instead.
 */
function newerThanBuild(): string[] {
  const built = statSync(path.join(ROOT, 'dist', 'cli', 'main.js')).mtimeMs;
  const newer: string[] = [];
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const full = path.join(directory, entry.name);
      if (full === path.join(ROOT, 'src', 'generated')) continue;
      if (entry.isDirectory()) walk(full);
      else if (statSync(full).mtimeMs > built) newer.push(path.relative(ROOT, full));
    }
  };
  walk(path.join(ROOT, 'src'));
  return newer;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'leasehold-bench-cli-'));
  try {
    // The compiled command line is what `npx leasehold` runs once dist/ is current.
    // tsc writes dist/ even when it reports type errors (elsewhere in a tree being edited): those are
    // reported, and the timing goes on with what was written.
    const build = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT });
    if (build.status !== 0) process.stderr.write(`bench/cli.ts: tsc reported errors; timing dist/ as written:\n${build.stdout.toString()}`);
    const script = path.join(dir, 'review_leases.py');
    // The compiled rows run dist/ as bin/leasehold.js does once it finds dist/ current, but without that
    // check: while src/ is being edited (by anyone) the bin would time the sources instead. The check
    // itself, a walk of src/'s modification times, is timed separately below.
    const distRunner = path.join(dir, 'leasehold-dist.mjs');
    writeFileSync(
      distRunner,
      `import { main } from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist', 'cli', 'main.js')).href)};\nprocess.exit(await main(process.argv.slice(2)));\n`,
    );
    writeFileSync(script, seedScriptText());
    const rounds = RUNS + WARMUP;
    // Claims take items from the front of the queue; decide needs one claimed item per run (claimed in
    // setting up, untimed); show looks at one item.
    const items = rounds * 3;
    const record = (index: number) => `r${String(index).padStart(5, '0')}`;

    // Seed A's database, filled through its own schema (one transaction: only the commands are timed).
    check(spawnSync('python3', [script, 'init', 'seed.db', '--category', 'a'], { cwd: dir }), 'seed A init');
    const seedDb = new Database(path.join(dir, 'seed.db'));
    const insert = seedDb.prepare(
      'INSERT INTO review_item (batch_id, record_id, proposed_category, reason, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    const now = Math.floor(Date.now() / 1000);
    seedDb.transaction(() => {
      for (let index = 0; index < items; index++) insert.run('bench', record(index), 'a', 'benchmark item', now);
    })();
    seedDb.close();

    // Leasehold's, through `leasehold import`: one file each for the compiled and the source runs.
    const lines = Array.from({ length: items }, (_, index) =>
      JSON.stringify({ batch_id: 'bench', record_id: record(index), proposed_category: 'a', reason: 'benchmark item' }),
    ).join('\n');
    writeFileSync(path.join(dir, 'items.jsonl'), lines);
    for (const db of ['compiled.db', 'source.db']) {
      check(spawnSync(process.execPath, [BIN, 'init', db, '--category', 'a'], { cwd: dir }), `${db} init`);
      check(spawnSync(process.execPath, [BIN, 'import', db, 'items.jsonl', '--progress', 'none'], { cwd: dir }), `${db} import`);
    }

    /** Claims `rounds` items on `db` for the decide runs (seed A's script or ours), returning their tokens. */
    const claimTokens = (command: string, args: string[]): string[] =>
      Array.from({ length: COMMANDS.includes('decide') ? rounds : 0 }, () => {
        const result = spawnSync(command, [...args, '--reviewer', 'bench', '--lease-seconds', '3600'], { cwd: dir });
        check(result, `${args.join(' ')} (claim for decide)`);
        return (JSON.parse(result.stdout.toString()) as { claim_token: string }).claim_token;
      });
    const tokens = {
      compiled: claimTokens(process.execPath, [BIN, 'claim', 'compiled.db']),
      seed: claimTokens('python3', [script, 'claim', 'seed.db']),
    };

    interface Subject {
      command: string;
      name: string;
      program: string;
      args: (round: number) => string[];
      env: Record<string, string>;
      expect: string;
      seed: boolean;
    }
    const commandArgs: Record<string, { args: (round: number, tokens: string[]) => string[]; expect: string }> = {
      claim: { args: () => ['--reviewer', 'bench'], expect: '"claimed":true' },
      show: { args: () => ['--batch-id', 'bench', '--record-id', record(0)], expect: '"claim_state":' },
      // `--token=…`: a token may start with "-", which argparse would take for an option.
      decide: { args: (round, list) => [`--token=${list[round] as string}`, '--decision', 'accepted'], expect: '"status":"accepted"' },
    };
    const subjects: Subject[] = [];
    for (const command of COMMANDS) {
      const spec = commandArgs[command];
      if (!spec) throw new Error(`bench/cli.ts: no such command ${command} (claim, show, decide)`);
      subjects.push({
        command,
        name: `leasehold ${command} (compiled dist/)`,
        program: process.execPath,
        args: (round) => [distRunner, command, 'compiled.db', ...spec.args(round, tokens.compiled)],
        env: {},
        expect: spec.expect,
        seed: false,
      });
      if (command === 'claim') {
        subjects.push({
          command,
          name: 'leasehold claim (sources via tsx)',
          program: process.execPath,
          args: (round) => [BIN, command, 'source.db', ...spec.args(round, [])],
          env: { LEASEHOLD_CLI_SOURCE: '1' },
          expect: spec.expect,
          seed: false,
        });
      }
      subjects.push({
        command,
        name: `seed A: python3 review_leases.py ${command}`,
        program: 'python3',
        args: (round) => [script, command, 'seed.db', ...spec.args(round, tokens.seed)],
        env: {},
        expect: spec.expect,
        seed: true,
      });
    }
    const times = subjects.map(() => [] as number[]);
    for (let round = 0; round < rounds; round++) {
      // Interleaved, so that whatever else the machine does falls on all of them alike.
      for (const [index, subject] of subjects.entries()) {
        const elapsed = await timed(subject.program, subject.args(round), dir, subject.env, subject.expect);
        if (round >= WARMUP) times[index]?.push(elapsed);
      }
    }

    const walkStarted = performance.now();
    const edited = newerThanBuild();
    const walkMs = performance.now() - walkStarted;
    if (edited.length > 0) {
      process.stderr.write(
        `bench/cli.ts: ${edited.join(', ')} changed after the build, so the "compiled" runs may have run the sources: run again.\n`,
      );
    }

    const rows = subjects.map((subject, index) => {
      const values = times[index] as number[];
      return { ...subject, median: percentile(values, 50), p10: percentile(values, 10), p90: percentile(values, 90) };
    });
    const seedMedian = (command: string) => rows.find((row) => row.seed && row.command === command)?.median ?? Number.NaN;
    console.log(`One command from the command line, spawn to exit: ${RUNS} runs each after ${WARMUP} warm-up runs, interleaved.`);
    console.log(
      `Node ${process.version}, ${spawnSync('python3', ['--version']).stdout.toString().trim()}, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}.`,
    );
    console.log('');
    console.log('| command | median | p10 | p90 | vs seed A |');
    console.log('| --- | ---: | ---: | ---: | ---: |');
    for (const row of rows) {
      console.log(
        `| ${row.name} | ${row.median.toFixed(0)} ms | ${row.p10.toFixed(0)} ms | ${row.p90.toFixed(0)} ms | ${(row.median / seedMedian(row.command)).toFixed(2)}× |`,
      );
    }
    console.log('');
    console.log(
      `The compiled rows run dist/cli/main.js directly; \`npx leasehold\` first checks dist/ is current (a walk of src/: ${walkMs.toFixed(1)} ms here, in a warm process).`,
    );
    console.log('');
    console.log(JSON.stringify({ runs: RUNS, medians: Object.fromEntries(rows.map((row) => [row.name, Math.round(row.median)])) }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
