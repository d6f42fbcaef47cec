// Ill-formed text on the command line (issue 15, item 5), through real processes. An argument whose bytes are not
// UTF-8 (a lone surrogate written as WTF-8 / CESU-8, Latin-1) reaches Node as U+FFFD, silently; it is refused as
// invalid_text naming the field, in seed A's error format (one JSON line on stderr, exit 2), and nothing is written.
// `import` refuses a JSON line whose text holds a lone surrogate ("\ud800") with its line number.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, jsonLines, type RunResult, runLeasehold, spawnProcess, tempDir } from './support.js';

let scratch: { dir: string; cleanup(): void };
beforeEach(async () => {
  scratch = tempDir('leasehold-ill-formed-');
  expect((await runLeasehold(['init', 'q.db', '--category', 'a'], { cwd: scratch.dir })).code).toBe(0);
});
afterEach(() => scratch.cleanup());

/**
 * Runs `leasehold` with a shell command line's arguments, so that printf can put raw bytes in them (Node's spawn
 * passes only UTF-8): `$(printf 'r\355\240\200')` is "r" and U+D800 as WTF-8.
 */
function leaseholdSh(args: string): Promise<RunResult> {
  return spawnProcess('sh', ['-c', `exec "$NODE" "$LEASEHOLD" ${args}`], {
    cwd: scratch.dir,
    env: { NODE: process.execPath, LEASEHOLD: BIN },
  }).done;
}

function rows(): { batchId: string; recordId: string; reason: string; claimedBy: string | null }[] {
  const db = new Database(path.join(scratch.dir, 'q.db'), { readonly: true });
  try {
    return db.prepare('SELECT "batchId", "recordId", "reason", "claimedBy" FROM "Item" ORDER BY "id"').all() as never;
  } finally {
    db.close();
  }
}

function eventCount(): number {
  const db = new Database(path.join(scratch.dir, 'q.db'), { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM "Event"').pluck().get() as number;
  } finally {
    db.close();
  }
}

/** Seed A's failure: nothing on stdout, one JSON line on stderr, exit 2. */
function expectInvalidText(result: RunResult, field: string): void {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stdout).toBe('');
  const [line, ...rest] = jsonLines(result.stderr);
  expect(rest).toEqual([]);
  expect(line).toEqual({ ok: false, error: 'invalid_text', message: expect.stringContaining(field) });
}

const ADD = (recordId: string) => `add q.db --batch-id b --record-id ${recordId} --proposed-category a --reason why`;

describe('command-line arguments that are not UTF-8', () => {
  it.each([
    ['a lone high surrogate as WTF-8 (ED A0 80)', String.raw`"$(printf 'r\355\240\200')"`],
    ['a lone low surrogate as WTF-8 (ED BF BF)', String.raw`"$(printf 'r\355\277\277')"`],
    ['a Latin-1 byte (FF)', String.raw`"$(printf 'r\377')"`],
  ])('add refuses %s in --record-id, and adds nothing', async (_what, recordId) => {
    const events = eventCount();
    expectInvalidText(await leaseholdSh(ADD(recordId)), 'record_id');
    expect(rows()).toEqual([]);
    expect(eventCount()).toBe(events);
  });

  it('add refuses one in --batch-id=VALUE form too', async () => {
    expectInvalidText(
      await leaseholdSh(String.raw`add q.db "--batch-id=$(printf 'b\355\240\200')" --record-id r --proposed-category a --reason why`),
      'batch_id',
    );
    expect(rows()).toEqual([]);
  });

  it('claim refuses one in --reviewer, and leases nothing', async () => {
    expect((await leaseholdSh(ADD('r'))).code).toBe(0);
    const events = eventCount();
    expectInvalidText(await leaseholdSh(String.raw`claim q.db --reviewer "$(printf 'rev\355\240\200')"`), 'reviewer');
    expect(rows()).toEqual([expect.objectContaining({ recordId: 'r', claimedBy: null })]);
    expect(eventCount()).toBe(events);
  });

  it('init refuses one in --category, and creates no database', async () => {
    expectInvalidText(await leaseholdSh(String.raw`init new.db --category ok --category "$(printf 'c\355\240\200')"`), 'category');
    expect(existsSync(path.join(scratch.dir, 'new.db'))).toBe(false);
  });

  it('takes U+FFFD itself when it was given as UTF-8 (EF BF BD): only bytes that are not UTF-8 are refused', async () => {
    const added = await leaseholdSh(ADD(String.raw`"$(printf 'r\357\277\275')"`));
    expect(added.code, added.stderr).toBe(0);
    expect(rows()).toEqual([expect.objectContaining({ recordId: 'r\uFFFD' })]);
  });
});

describe('import', () => {
  it('reports each line with a lone surrogate as invalid_text with its number and field, and imports only the good lines', async () => {
    const line = (recordId: string, reason = 'why') =>
      JSON.stringify({ batch_id: 'b', record_id: recordId, proposed_category: 'a', reason });
    const lines = [line('good-1'), line('bad\uD800'), line('bad-2', 'why\uDFFF'), line('good-2'), line('\uDC00\uD800')];
    const text = `${lines.join('\n')}\n`;
    // What is on disk is ASCII JSON with \u escapes (JSON.stringify writes lone surrogates so).
    expect(text).toContain(String.raw`"bad\ud800"`);
    writeFileSync(path.join(scratch.dir, 'items.jsonl'), text);
    const result = await runLeasehold(['import', 'q.db', 'items.jsonl'], { cwd: scratch.dir });
    expect(result.code).toBe(2);
    expect(jsonLines(result.stdout)).toEqual([expect.objectContaining({ ok: false, lines: 5, imported: 2, failed: 3 })]);
    const errors = jsonLines(result.stderr)
      .filter((entry) => entry.ok === false && 'line' in entry)
      .map(({ line: number, error, field }) => ({ line: number, error, field }));
    expect(errors).toEqual([
      { line: 2, error: 'invalid_text', field: 'record_id' },
      { line: 3, error: 'invalid_text', field: 'reason' },
      { line: 5, error: 'invalid_text', field: 'record_id' },
    ]);
    expect(rows().map((row) => row.recordId)).toEqual(['good-1', 'good-2']);
  });
});
