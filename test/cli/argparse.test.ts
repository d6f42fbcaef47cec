// The parser against Python's argparse itself: thousands of generated command lines (options, their
// abbreviations, "=" forms, values that look like options or negative numbers, "--", stray words)
// parsed by seed A's own build_parser() in one Python process and by ours in this one, which must
// agree on every outcome: the same values, an argument error, or help. Plus the Python shims.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ArgumentError, HelpRequested, parseArgs } from '../../src/cli/argparse.js';
import { buildParser } from '../../src/cli/parser.js';
import { pythonInt, pythonJsonLoads, pythonPath } from '../../src/cli/python.js';
import { SEED_A_MISSING, SEED_A_TESTS_RUN, seedScriptText } from './support.js';

/** A small deterministic generator (mulberry32), so a failure names a reproducible vector. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Each seed A command's options: [name, required, may repeat]; a "|" pair is the required either-or group. */
const GRAMMAR: Record<string, [string, boolean][]> = {
  init: [['--category', true]],
  add: [
    ['--batch-id', true],
    ['--record-id', true],
    ['--proposed-category', true],
    ['--reason', true],
  ],
  claim: [
    ['--reviewer', true],
    ['--lease-seconds', false],
  ],
  renew: [
    ['--lease-seconds', false],
    ['--token|--claim-json', true],
  ],
  release: [['--token|--claim-json', true]],
  decide: [
    ['--decision', true],
    ['--category', false],
    ['--token|--claim-json', true],
  ],
  show: [
    ['--batch-id', true],
    ['--record-id', true],
  ],
};
const VALUES = [
  'r.db',
  'x',
  'a b',
  '',
  '-5',
  '-1.5',
  '-x',
  '-a b',
  '300',
  '29',
  ' 60 ',
  '6_0',
  'accepted',
  'corrected',
  'Rejected',
  '配送',
  '=',
  'a=b',
  'r.db/',
];
const NOISE = [
  '--',
  '-',
  '-h',
  '--h',
  '-hx',
  '--help=1',
  '--unknown',
  '-x',
  '--c',
  '--re',
  '--r',
  'extra',
  '-5',
  '--=x',
  '--lease-seconds',
];

/**
 * Mostly well-formed command lines — options in any order, spelt in full, abbreviated or with "=",
 * values that look like options — then zero to two random mutations (insert, drop or replace a word).
 */
function generate(next: () => number, count: number): string[][] {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T;
  const spell = (option: string): string => {
    const roll = next();
    if (roll < 0.6) return option;
    // A prefix of 3 or more characters: unique or ambiguous, argparse decides.
    return option.slice(0, 3 + Math.floor(next() * (option.length - 3)));
  };
  const value = (option: string): string => {
    if (option === '--decision') return next() < 0.8 ? pick(['accepted', 'corrected', 'rejected']) : pick(VALUES);
    if (option === '--lease-seconds') return next() < 0.7 ? pick(['30', '3600', '300', ' 60 ', '+45', '6_0']) : pick(VALUES);
    return next() < 0.6 ? pick(['x', 'tok_abcdefghijklmnopqrstuvwxyz', 'claim.json', '配送']) : pick(VALUES);
  };
  const vectors: string[][] = [];
  for (let index = 0; index < count; index++) {
    const command = pick(Object.keys(GRAMMAR));
    const words: string[][] = [[next() < 0.9 ? 'r.db' : pick(VALUES)]];
    for (const [spec, required] of GRAMMAR[command] as [string, boolean][]) {
      if (!required && next() < 0.5) continue;
      const choices = spec.split('|');
      const times = spec === '--category' && command === 'init' ? 1 + Math.floor(next() * 3) : next() < 0.1 ? 2 : 1;
      for (let time = 0; time < times; time++) {
        const option = spell(pick(choices));
        words.push(next() < 0.3 ? [`${option}=${value(pick(choices))}`] : [option, value(pick(choices))]);
      }
    }
    // Shuffle the words (the database positional included), keeping each option next to its value.
    for (let position = words.length - 1; position > 0; position--) {
      const other = Math.floor(next() * (position + 1));
      [words[position], words[other]] = [words[other] as string[], words[position] as string[]];
    }
    const args = [command, ...words.flat()];
    const mutations = Math.floor(next() * 3);
    for (let mutation = 0; mutation < mutations; mutation++) {
      const at = Math.floor(next() * (args.length + 1));
      const roll = next();
      if (roll < 0.5) args.splice(at, 0, pick(NOISE));
      else if (roll < 0.75 && args.length > 1) args.splice(Math.max(1, at - 1), 1);
      else if (at > 0 && at < args.length) args[at] = pick([...NOISE, ...VALUES]);
    }
    vectors.push(args);
  }
  return vectors;
}

/** Seed A's own parser on every vector, in one Python process. */
function pythonOutcomes(vectors: string[][]): unknown[] {
  const driver = `
import io, json, sys, contextlib, pathlib
source = sys.stdin.read()
vectors = json.loads(source[source.index('\\0') + 1:])
module = {'__name__': 'review_leases'}
exec(source[:source.index('\\0')], module)
out = []
for argv in vectors:
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            ns = module['build_parser']().parse_args(argv)
        values = {k: (str(v) if isinstance(v, pathlib.PurePath) else v) for k, v in vars(ns).items() if k != 'handler'}
        out.append({'values': values})
    except module['AppError'] as error:
        out.append({'error': error.code})
    except SystemExit as exit:
        out.append({'exit': exit.code})
print(json.dumps(out))
`;
  const output = execFileSync('python3', ['-c', driver], {
    input: `${seedScriptText()}\0${JSON.stringify(vectors)}`,
    env: { PATH: process.env.PATH ?? '', PYTHONUTF8: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(output.toString('utf8')) as unknown[];
}

function ourOutcome(argv: string[]): unknown {
  try {
    const namespace = parseArgs(buildParser(), argv);
    const values: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(namespace)) {
      values[key] = (key === 'db' || key === 'claim_json') && typeof value === 'string' ? pythonPath(value) : value;
    }
    return { values };
  } catch (error) {
    if (error instanceof ArgumentError) return { error: 'argument_error' };
    if (error instanceof HelpRequested) return { exit: 0 };
    throw error;
  }
}

describe.runIf(SEED_A_TESTS_RUN)(`the argument parser against Python argparse running seed A’s build_parser()${SEED_A_MISSING}`, () => {
  it('agrees on 4000 generated command lines', () => {
    const vectors = generate(random(20261130), 4000);
    const expected = pythonOutcomes(vectors);
    const mismatches = vectors
      .map((argv, index) => ({ argv, python: expected[index], ours: ourOutcome(argv) }))
      .filter((entry) => JSON.stringify(entry.python) !== JSON.stringify(entry.ours));
    expect(mismatches.slice(0, 5)).toEqual([]);
    // Not a vacuous agreement: a good share parses to values, and all three outcomes occur.
    const kinds = expected.map((outcome) => Object.keys(outcome as object)[0]);
    expect(kinds.filter((kind) => kind === 'values').length).toBeGreaterThan(1000);
    expect(new Set(kinds)).toEqual(new Set(['values', 'error', 'exit']));
  });
});

describe('Python behaviours the command line reproduces', () => {
  it('pathlib spelling of a path', () => {
    expect(pythonPath('')).toBe('.');
    expect(pythonPath('.')).toBe('.');
    expect(pythonPath('./a//b/./c/')).toBe('a/b/c');
    expect(pythonPath('//x')).toBe('//x');
    expect(pythonPath('///x/')).toBe('/x');
    expect(pythonPath('../x')).toBe('../x');
  });

  it('int() of a string', () => {
    expect(pythonInt('60')).toBe(60);
    expect(pythonInt(' +60\n')).toBe(60);
    expect(pythonInt('-0060')).toBe(-60);
    expect(pythonInt('1_000')).toBe(1000);
    expect(pythonInt('٣٠')).toBe(30);
    expect(pythonInt('𝟑𝟎')).toBe(30);
    for (const bad of ['', ' ', '1__0', '_1', '1_', '6.0', '1e3', '0x10', '٣ ٠', '- 5']) expect(pythonInt(bad), bad).toBeNull();
  });

  it('json.loads: strict JSON plus NaN and the infinities, BOM refused', () => {
    expect(pythonJsonLoads('{"a":[NaN,-Infinity,Infinity],"s":"NaN \\" Infinity"}')).toEqual({
      a: [null, null, null],
      s: 'NaN " Infinity',
    });
    for (const bad of ['\ufeff{}', '{"a":-NaN}', '{"a":NaNx}', '{NaN:1}', '[1,]', "{'a':1}"])
      expect(() => pythonJsonLoads(bad), bad).toThrow();
  });
});
