// `tsx bench/cli.ts [--runs N]`: how long one command-line claim takes, end to end (spawn to exit),
// for `leasehold claim` (compiled, and from the sources through tsx) and seed A's
// `python3 review_leases.py claim`, measured in the same run, interleaved, on the same machine.
// Each implementation claims from its own fresh database of pending items; prints the medians.
import { type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { seedScriptText } from '../test/cli/seed-script.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'leasehold.js');

const runsArgument = process.argv.indexOf('--runs');
const RUNS = runsArgument > 0 ? Number(process.argv[runsArgument + 1]) : 41;
const WARMUP = 3;

function check(result: SpawnSyncReturns<Buffer>, what: string): void {
  if (result.status !== 0) throw new Error(`${what} failed (${result.status}): ${result.stderr.toString()}`);
}

/** Wall time of one process, spawn to exit, in milliseconds; fails on a non-zero exit. */
function timed(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<number> {
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
      if (code !== 0 || !output.includes('"claimed":true')) reject(new Error(`${command} ${args.join(' ')}: exit ${code}: ${output}`));
      else resolve(elapsed);
    });
  });
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
    check(spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT }), 'npm run build');
    const script = path.join(dir, 'review_leases.py');
    writeFileSync(script, seedScriptText());
    const items = RUNS + WARMUP;

    // Seed A's database, filled through its own schema (one transaction: only the claims are timed).
    check(spawnSync('python3', [script, 'init', 'seed.db', '--category', 'a'], { cwd: dir }), 'seed A init');
    const seedDb = new Database(path.join(dir, 'seed.db'));
    const insert = seedDb.prepare(
      'INSERT INTO review_item (batch_id, record_id, proposed_category, reason, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    const now = Math.floor(Date.now() / 1000);
    seedDb.transaction(() => {
      for (let index = 0; index < items * 2; index++) insert.run('bench', `r${String(index).padStart(5, '0')}`, 'a', 'benchmark item', now);
    })();
    seedDb.close();

    // Leasehold's, through `leasehold import`: one file each for the compiled and the source runs.
    const lines = Array.from({ length: items }, (_, index) =>
      JSON.stringify({
        batch_id: 'bench',
        record_id: `r${String(index).padStart(5, '0')}`,
        proposed_category: 'a',
        reason: 'benchmark item',
      }),
    ).join('\n');
    writeFileSync(path.join(dir, 'items.jsonl'), lines);
    for (const db of ['compiled.db', 'source.db']) {
      check(spawnSync(process.execPath, [BIN, 'init', db, '--category', 'a'], { cwd: dir }), `${db} init`);
      check(spawnSync(process.execPath, [BIN, 'import', db, 'items.jsonl', '--progress', 'none'], { cwd: dir }), `${db} import`);
    }

    const subjects: { name: string; command: string; args: string[]; env: Record<string, string> }[] = [
      {
        name: 'leasehold claim (compiled dist/)',
        command: process.execPath,
        args: [BIN, 'claim', 'compiled.db', '--reviewer', 'bench'],
        env: {},
      },
      {
        name: 'leasehold claim (sources via tsx)',
        command: process.execPath,
        args: [BIN, 'claim', 'source.db', '--reviewer', 'bench'],
        env: { LEASEHOLD_CLI_SOURCE: '1' },
      },
      {
        name: 'seed A: python3 review_leases.py claim',
        command: 'python3',
        args: [script, 'claim', 'seed.db', '--reviewer', 'bench'],
        env: {},
      },
    ];
    const times = subjects.map(() => [] as number[]);
    for (let round = 0; round < RUNS + WARMUP; round++) {
      // Interleaved, so that whatever else the machine does falls on all three alike.
      for (const [index, subject] of subjects.entries()) {
        const elapsed = await timed(subject.command, subject.args, dir, subject.env);
        if (round >= WARMUP) times[index]?.push(elapsed);
      }
    }

    const rows = subjects.map((subject, index) => {
      const values = times[index] as number[];
      return { name: subject.name, median: percentile(values, 50), p10: percentile(values, 10), p90: percentile(values, 90) };
    });
    const seedMedian = (rows[2] as { median: number }).median;
    console.log(`One claim from the command line, spawn to exit: ${RUNS} runs each after ${WARMUP} warm-up runs, interleaved.`);
    console.log(
      `Node ${process.version}, ${spawnSync('python3', ['--version']).stdout.toString().trim()}, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}.`,
    );
    console.log('');
    console.log('| command | median | p10 | p90 | vs seed A |');
    console.log('| --- | ---: | ---: | ---: | ---: |');
    for (const row of rows) {
      console.log(
        `| ${row.name} | ${row.median.toFixed(0)} ms | ${row.p10.toFixed(0)} ms | ${row.p90.toFixed(0)} ms | ${(row.median / seedMedian).toFixed(1)}× |`,
      );
    }
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
