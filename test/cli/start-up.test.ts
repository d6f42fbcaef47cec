// What the command line loads before it answers (issue 16, item 8: "the command line feels instant"):
// seed A's seven commands open the database on better-sqlite3 alone (db/lite.ts) and load neither
// Prisma's client (nor its WebAssembly query compiler), nor GraphQL, nor the server's logger or
// configuration. And which build `npx leasehold` runs: dist/ whenever it was compiled from the sources
// as they are, even after `npm install` rewrote src/generated.
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, jsonLines, ROOT, spawnProcess, tempDir } from './support.js';

const RECORDER = path.join(ROOT, 'test', 'cli', 'record-modules.mjs');

/** Modules none of seed A's commands may load. */
const FORBIDDEN = [
  /\/@prisma\//,
  /\/generated\/prisma/,
  /\/node_modules\/graphql/,
  /\/node_modules\/pino/,
  /\/node_modules\/zod\//,
  /\/src\/config\./,
  /\/dist\/config\./,
  /\/(src|dist)\/graphql\//,
  /\/(src|dist)\/http\//,
  /\/(src|dist)\/db\/client\./,
];

describe('the seed commands start without Prisma, GraphQL or the server', () => {
  const temp = tempDir('leasehold-start-up-');
  let run = 0;

  /** Runs `leasehold …` with every ES module it resolves recorded; returns the result and those URLs. */
  async function recorded(args: string[], env: Record<string, string> = {}) {
    const file = path.join(temp.dir, `modules-${++run}.txt`);
    writeFileSync(file, '');
    const result = await spawnProcess(process.execPath, ['--import', RECORDER, BIN, ...args], {
      cwd: temp.dir,
      env: { LEASEHOLD_RECORD_MODULES: file, ...env },
    }).done;
    const modules = [...new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean))];
    return { result, modules };
  }

  function expectNoneForbidden(modules: string[]): void {
    expect(modules.filter((url) => FORBIDDEN.some((pattern) => pattern.test(url)))).toEqual([]);
    // The recorder did see the command's own database layer (so an empty list above means something).
    expect(modules.some((url) => /\/db\/lite\.(js|ts)$/.test(url))).toBe(true);
    expect(modules.some((url) => url.includes('/node_modules/better-sqlite3/'))).toBe(true);
  }

  afterAll(() => temp.cleanup());

  it('init, add, claim, renew, release, decide and show (each loading only better-sqlite3 and its own modules)', async () => {
    const steps: string[][] = [
      ['init', 'r.db', '--category', 'a', '--category', 'b'],
      ['add', 'r.db', '--batch-id', 'b', '--record-id', 'r1', '--proposed-category', 'a', '--reason', 'x'],
      ['add', 'r.db', '--batch-id', 'b', '--record-id', 'r2', '--proposed-category', 'a', '--reason', 'x'],
      ['claim', 'r.db', '--reviewer', 'tanaka'],
    ];
    const outputs: Record<string, unknown>[] = [];
    for (const step of steps) {
      const { result, modules } = await recorded(step);
      expect(result.code, result.stderr).toBe(0);
      expectNoneForbidden(modules);
      outputs.push(...jsonLines(result.stdout));
    }
    const token = outputs.at(-1)?.claim_token as string;
    expect(token).toMatch(/^lh_/);
    for (const step of [
      ['renew', 'r.db', '--token', token],
      ['show', 'r.db', '--batch-id', 'b', '--record-id', 'r1'],
      ['decide', 'r.db', '--token', token, '--decision', 'corrected', '--category', 'b'],
      ['claim', 'r.db', '--reviewer', 'suzuki'],
    ]) {
      const { result, modules } = await recorded(step);
      expect(result.code, result.stderr).toBe(0);
      expectNoneForbidden(modules);
      outputs.push(...jsonLines(result.stdout));
    }
    const second = outputs.at(-1)?.claim_token as string;
    const { result, modules } = await recorded(['release', 'r.db', '--token', second]);
    expect(result.code, result.stderr).toBe(0);
    expectNoneForbidden(modules);
    expect(outputs[5]).toMatchObject({ ok: true, status: 'pending', claim_state: 'active', claimed_by: 'tanaka' });
    expect(outputs[6]).toMatchObject({ ok: true, status: 'corrected', final_category: 'b', reviewed_by: 'tanaka' });
  });

  it('from the TypeScript sources too (LEASEHOLD_CLI_SOURCE=1)', async () => {
    const { result, modules } = await recorded(['show', 'r.db', '--batch-id', 'b', '--record-id', 'r2'], { LEASEHOLD_CLI_SOURCE: '1' });
    expect(result.code, result.stderr).toBe(0);
    expect(modules.some((url) => url.endsWith('/src/cli/main.ts'))).toBe(true);
    expectNoneForbidden(modules);
  });

  it('while the other commands still load Prisma (the recorder would see it)', async () => {
    const { result, modules } = await recorded(['keys', 'list', '--db', 'r.db']);
    expect(result.code, result.stderr).toBe(0);
    expect(modules.some((url) => /\/generated\/prisma\/client\.(js|ts)$/.test(url))).toBe(true);
  });
});

describe('bin/leasehold.js runs dist/ when it was built from the sources as they are', () => {
  // A checkout of its own: the real bin/leasehold.js, a dist/ and src/ whose main() say which they are.
  const temp = tempDir('leasehold-bin-');
  const root = temp.dir;
  const file = (relative: string) => path.join(root, relative);
  const sources = [
    'src/cli/main.ts',
    'src/domain/lease.ts',
    'src/generated/prisma/client.ts',
    'prisma/schema.prisma',
    'prisma/postgresql/schema.prisma',
  ];
  const OLD = new Date('2025-01-01T00:00:00Z');
  const BUILT = new Date('2025-01-02T00:00:00Z');
  const LATER = new Date('2025-01-03T00:00:00Z');

  function write(relative: string, text: string, time: Date): void {
    mkdirSync(path.dirname(file(relative)), { recursive: true });
    writeFileSync(file(relative), text);
    utimesSync(file(relative), time, time);
  }

  /** Every source older than the build, as right after `npm run build`. */
  function built(): void {
    for (const relative of sources) utimesSync(file(relative), OLD, OLD);
    utimesSync(file('dist/cli/main.js'), BUILT, BUILT);
  }

  beforeAll(() => {
    mkdirSync(file('bin'));
    copyFileSync(BIN, file('bin/leasehold.js'));
    writeFileSync(file('package.json'), '{ "type": "module" }\n');
    symlinkSync(path.join(ROOT, 'node_modules'), file('node_modules'), 'dir');
    write('dist/cli/main.js', "export async function main() { process.stdout.write('dist\\n'); return 0; }\n", BUILT);
    write('src/cli/main.ts', "export async function main(): Promise<number> { process.stdout.write('sources\\n'); return 0; }\n", OLD);
    write('src/domain/lease.ts', 'export {};\n', OLD);
    write('src/generated/prisma/client.ts', 'export {};\n', OLD);
    write('prisma/schema.prisma', '// schema\n', OLD);
    write('prisma/postgresql/schema.prisma', '// schema\n', OLD);
  });
  afterAll(() => temp.cleanup());

  async function which(env: Record<string, string> = {}): Promise<string> {
    const own = await spawnProcess(process.execPath, [file('bin/leasehold.js')], { cwd: root, env }).done;
    expect(own.code, own.stderr).toBe(0);
    return own.stdout.trim();
  }

  it('dist/ right after a build', async () => {
    built();
    expect(await which()).toBe('dist');
  });

  it('dist/ after `npm install` rewrote src/generated (prisma generate)', async () => {
    built();
    utimesSync(file('src/generated/prisma/client.ts'), LATER, LATER);
    expect(await which()).toBe('dist');
  });

  it('the sources when a source file is newer than the build', async () => {
    built();
    utimesSync(file('src/domain/lease.ts'), LATER, LATER);
    expect(await which()).toBe('sources');
  });

  it('the sources when a Prisma schema is newer than the build (the generated client would be stale)', async () => {
    built();
    utimesSync(file('prisma/schema.prisma'), LATER, LATER);
    expect(await which()).toBe('sources');
  });

  it('the sources with LEASEHOLD_CLI_SOURCE=1', async () => {
    built();
    expect(await which({ LEASEHOLD_CLI_SOURCE: '1' })).toBe('sources');
  });
});
