// Running the command lines under test as real processes: ours (`node bin/leasehold.js`) and seed A's
// review_leases.py, extracted from the seed text at test time. Plus the differential harness that
// runs one command sequence against both, each in its own fresh folder, and compares what a script
// can observe: exit code, which stream, and the JSON (keys, order and values; tokens, times and
// message text normalised).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect } from 'vitest';
import { seedScriptText } from './seed-script.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = path.join(ROOT, 'bin', 'leasehold.js');
export { SEED_A_FILE, SEED_A_MISSING, SEED_A_TESTS_RUN, seedAvailable, seedScriptText } from './seed-script.js';

export function tempDir(prefix = 'leasehold-cli-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd: string;
  env?: Record<string, string>;
  input?: string;
  timeoutMs?: number;
}

const BASE_ENV = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  LANG: 'C.UTF-8',
  PYTHONUTF8: '1',
  PYTHONDONTWRITEBYTECODE: '1',
};

export function spawnProcess(command: string, args: string[], options: RunOptions): { child: ChildProcess; done: Promise<RunResult> } {
  // Standard input, when given, comes through a real pipe (`printf | command`), as in a shell script:
  // Node's own stdin pipes are sockets, which /dev/stdin cannot be opened on.
  const piped = options.input !== undefined;
  const child = spawn(piped ? 'sh' : command, piped ? ['-c', 'printf "%s" "$CLI_TEST_INPUT" | "$@"', 'sh', command, ...args] : args, {
    cwd: options.cwd,
    env: { ...BASE_ENV, ...options.env, ...(piped ? { CLI_TEST_INPUT: options.input } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  const done = new Promise<RunResult>((resolve) => {
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, done };
}

export function runLeasehold(args: string[], options: RunOptions): Promise<RunResult> {
  return spawnProcess(process.execPath, [BIN, ...args], options).done;
}

export function runSeed(script: string, args: string[], options: RunOptions): Promise<RunResult> {
  return spawnProcess('python3', [script, ...args], options).done;
}

/** Parses every line of a stream as JSON (a non-JSON line fails the test). */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON line: ${line}`);
      }
    });
}

const TIME_KEYS = ['claimed_at', 'claim_expires_at'];

/**
 * One output line as a script sees it, with what legitimately differs replaced: the token, the
 * epoch-second times (checked to be whole seconds near now), and the message text.
 */
export function normaliseLine(line: string): string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return `<text:${line.length > 0}>`;
  }
  if (typeof value !== 'object' || value === null) return line;
  const record = { ...(value as Record<string, unknown>) };
  const nowSeconds = Date.now() / 1000;
  for (const key of Object.keys(record)) {
    if (key === 'claim_token') {
      expect(typeof record[key]).toBe('string');
      record[key] = '<token>';
    } else if (TIME_KEYS.includes(key)) {
      const time = record[key] as number;
      expect(Number.isInteger(time)).toBe(true);
      expect(Math.abs(time - nowSeconds)).toBeLessThan(3700);
      record[key] = '<time>';
    } else if (key === 'message') {
      expect(typeof record[key]).toBe('string');
      record[key] = '<message>';
    }
  }
  return JSON.stringify(record);
}

export interface Observed {
  code: number | null;
  stdout: string[];
  stderr: string[];
}

export function observe(result: RunResult, helpText = false): Observed {
  const lines = (text: string) => text.split('\n').filter((line) => line.length > 0);
  if (helpText) {
    // --help prints free text (ours differs from argparse's); only "some text on stdout" is compared.
    return { code: result.code, stdout: [`<help:${result.stdout.length > 0}>`], stderr: lines(result.stderr) };
  }
  return { code: result.code, stdout: lines(result.stdout).map(normaliseLine), stderr: lines(result.stderr).map(normaliseLine) };
}

type Impl = 'seed' | 'leasehold';

export interface StepOptions {
  /** Save the step's stdout in this file of the implementation's folder (`claim … > claim.json`). */
  stdoutTo?: string;
  /** Remember the step's claim_token under this name; `{token:name}` in later arguments uses it. */
  capture?: string;
  /** The step prints help text: compare the exit code and that something was printed. */
  help?: boolean;
  /** Standard input; `{token:name}` in it is replaced as in the arguments. */
  input?: string;
}

export interface StepResult {
  seed: RunResult;
  leasehold: RunResult;
  /** Both, normalised (they are equal, or the step failed). */
  observed: Observed;
}

/**
 * One scenario: the same steps against seed A's script and our command line, each in a fresh
 * folder, compared after every step.
 */
export class Differential {
  readonly dirs: Record<Impl, string>;
  private readonly tokens: Record<Impl, Map<string, string>> = { seed: new Map(), leasehold: new Map() };
  readonly transcript: string[] = [];

  constructor(
    private readonly root: string,
    private readonly script: string,
  ) {
    this.dirs = { seed: path.join(root, 'seed'), leasehold: path.join(root, 'leasehold') };
    mkdirSync(this.dirs.seed);
    mkdirSync(this.dirs.leasehold);
  }

  static create(script: string): Differential {
    const root = mkdtempSync(path.join(tmpdir(), 'leasehold-diff-'));
    return new Differential(root, script);
  }

  cleanup(): void {
    rmSync(this.root, { recursive: true, force: true });
  }

  token(impl: Impl, name: string): string {
    const token = this.tokens[impl].get(name);
    if (token === undefined) throw new Error(`no token captured as ${name}`);
    return token;
  }

  /** Writes the same file (or one per implementation) into both folders. */
  write(file: string, content: string | Buffer | ((impl: Impl) => string | Buffer)): void {
    for (const impl of ['seed', 'leasehold'] as const) {
      writeFileSync(path.join(this.dirs[impl], file), typeof content === 'function' ? content(impl) : content);
    }
  }

  /**
   * Fills in `{token:name}`. Seed A's tokens start with "-" one time in 64, and its parser then reads
   * `--token -abc…` as an option (the bug Leasehold's `lh_` tokens avoid): when seed A's token would
   * start with "-", `--token {token:x}` is passed as `--token=…` to both, so the scenario tests what it
   * means to.
   */
  private resolve(impl: Impl, args: string[]): string[] {
    const out: string[] = [];
    for (const arg of args) {
      const whole = /^\{token:([a-z0-9_]+)\}$/i.exec(arg);
      const previous = out[out.length - 1];
      if (whole && previous?.startsWith('--t') && this.tokens.seed.get(whole[1] as string)?.startsWith('-')) {
        out[out.length - 1] = `${previous}=${this.token(impl, whole[1] as string)}`;
        continue;
      }
      out.push(arg.replace(/\{token:([a-z0-9_]+)\}/gi, (_all, name: string) => this.token(impl, name)));
    }
    return out;
  }

  private async runOne(impl: Impl, args: string[], options: StepOptions): Promise<RunResult> {
    const resolved = this.resolve(impl, args);
    const input = options.input === undefined ? undefined : (this.resolve(impl, [options.input])[0] as string);
    const runOptions: RunOptions = { cwd: this.dirs[impl], ...(input === undefined ? {} : { input }) };
    const result = impl === 'seed' ? await runSeed(this.script, resolved, runOptions) : await runLeasehold(resolved, runOptions);
    if (options.stdoutTo) writeFileSync(path.join(this.dirs[impl], options.stdoutTo), result.stdout);
    if (options.capture) {
      const token = jsonLines(result.stdout)[0]?.claim_token;
      if (typeof token === 'string') this.tokens[impl].set(options.capture, token);
    }
    return result;
  }

  /** Starts `args` on both without waiting, e.g. to signal them while they run. */
  start(args: string[]): Record<Impl, { child: ChildProcess; done: Promise<RunResult> }> {
    return {
      seed: spawnProcess('python3', [this.script, ...this.resolve('seed', args)], { cwd: this.dirs.seed }),
      leasehold: spawnProcess(process.execPath, [BIN, ...this.resolve('leasehold', args)], { cwd: this.dirs.leasehold }),
    };
  }

  /** Runs `args` on both (at the same time) and expects the same observable result. */
  async step(args: string[], options: StepOptions = {}): Promise<StepResult> {
    const [seed, leasehold] = await Promise.all([this.runOne('seed', args, options), this.runOne('leasehold', args, options)]);
    const expected = observe(seed, options.help);
    const actual = observe(leasehold, options.help);
    this.transcript.push(`$ ${args.join(' ')}\n  seed A:    ${JSON.stringify(expected)}\n  leasehold: ${JSON.stringify(actual)}`);
    expect(actual, `leasehold ${args.join(' ')}\n(seed A said ${JSON.stringify(expected)}; seed stderr: ${seed.stderr})`).toEqual(expected);
    return { seed, leasehold, observed: actual };
  }

  /**
   * Runs several commands at once, first all of them on seed A, then all on ours, each burst started
   * at a set point of a second (just after it begins, unless told: so that, e.g., several adds share
   * their second), and compares them pairwise.
   */
  async burst(commands: string[][], options: { startAtMs?: Partial<Record<Impl, number>> } = {}): Promise<StepResult[]> {
    const runAll = async (impl: Impl) => {
      // Started when the wall clock is `startAtMs` into a second (5 ms unless given).
      const at = options.startAtMs?.[impl] ?? 5;
      await new Promise((resolve) => setTimeout(resolve, (at - (Date.now() % 1000) + 1000) % 1000 || 1000));
      return Promise.all(commands.map((args) => this.runOne(impl, args, {})));
    };
    const seed = await runAll('seed');
    const leasehold = await runAll('leasehold');
    return commands.map((args, index) => {
      const expected = observe(seed[index] as RunResult);
      const actual = observe(leasehold[index] as RunResult);
      expect(actual, `leasehold ${args.join(' ')}`).toEqual(expected);
      return { seed: seed[index] as RunResult, leasehold: leasehold[index] as RunResult, observed: actual };
    });
  }

  /** The distinct creation seconds of these items in each implementation's r.db. */
  creationSeconds(keys: [string, string][], file = 'r.db'): Record<Impl, number> {
    const count = (impl: Impl, sql: string, scale: number) => {
      const db = new Database(path.join(this.dirs[impl], file), { readonly: true });
      try {
        const statement = db.prepare(sql).pluck();
        return new Set(keys.map(([batch, record]) => Math.floor((statement.get(batch, record) as number) / scale))).size;
      } finally {
        db.close();
      }
    };
    return {
      seed: count('seed', 'SELECT created_at FROM review_item WHERE batch_id = ? AND record_id = ?', 1),
      leasehold: count('leasehold', 'SELECT "createdAt" FROM "Item" WHERE "batchId" = ? AND "recordId" = ?', 1000),
    };
  }

  /** A step that must succeed or fail with `code` on both sides. */
  async expect(args: string[], outcome: { exit: number; error?: string; json?: Record<string, unknown> }, options: StepOptions = {}) {
    const result = await this.step(args, options);
    expect(result.observed.code, args.join(' ')).toBe(outcome.exit);
    if (outcome.error !== undefined) {
      expect(jsonLines(result.leasehold.stderr)[0]?.error, args.join(' ')).toBe(outcome.error);
    }
    if (outcome.json !== undefined) expect(jsonLines(result.leasehold.stdout)[0]).toMatchObject(outcome.json);
    return result;
  }
}

export const CATEGORIES = ['--category', '配送', '--category', '請求', '--category', 'その他'];

/** `add r.db …` with seed A's tutorial values by default. */
export function addArgs(batch: string, record: string, category = '配送', reason = '提案カテゴリを元データと照合する'): string[] {
  return ['add', 'r.db', '--batch-id', batch, '--record-id', record, '--proposed-category', category, '--reason', reason];
}

/** review_leases.py written out once for a test file; the path is valid inside its tests. */
export function useSeedScript(): { readonly path: string } {
  const holder = { path: '' };
  let scratch: { dir: string; cleanup(): void } | null = null;
  beforeAll(() => {
    scratch = tempDir('leasehold-seed-');
    holder.path = path.join(scratch.dir, 'review_leases.py');
    writeFileSync(holder.path, seedScriptText());
  });
  afterAll(() => scratch?.cleanup());
  return holder;
}

/** A fresh pair of folders, with r.db initialised by both (unless `init` is false), removed afterwards. */
export async function scenario(script: string, body: (d: Differential) => Promise<void>, options: { init?: boolean } = {}): Promise<void> {
  const d = Differential.create(script);
  try {
    if (options.init !== false) {
      await d.expect(['init', 'r.db', ...CATEGORIES], { exit: 0, json: { database: 'r.db', category_count: 3 } });
    }
    await body(d);
  } finally {
    d.cleanup();
  }
}
