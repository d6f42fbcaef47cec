// `leasehold import`: per-line validation with line numbers, chunked commits, skip-on-rerun, and
// imports cut off half-way (SIGKILL, SIGINT) that a rerun completes with every item exactly once.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, jsonLines, type RunResult, runLeasehold, spawnProcess, tempDir } from './support.js';

let scratch: { dir: string; cleanup(): void };
beforeEach(async () => {
  scratch = tempDir('leasehold-import-');
  const init = await runLeasehold(['init', 'q.db', '--category', 'a', '--category', 'b'], { cwd: scratch.dir });
  expect(init.code).toBe(0);
});
afterEach(() => scratch.cleanup());

const leasehold = (args: string[]) => runLeasehold(args, { cwd: scratch.dir });

function items(): { batchId: string; recordId: string; proposedCategory: string }[] {
  const db = new Database(path.join(scratch.dir, 'q.db'), { readonly: true });
  try {
    return db.prepare('SELECT "batchId", "recordId", "proposedCategory" FROM "Item" ORDER BY "id"').all() as never;
  } finally {
    db.close();
  }
}

function itemCount(): number {
  const db = new Database(path.join(scratch.dir, 'q.db'), { readonly: true, timeout: 5_000 });
  try {
    return db.prepare('SELECT count(*) FROM "Item"').pluck().get() as number;
  } finally {
    db.close();
  }
}

function summary(result: RunResult): Record<string, unknown> {
  const lines = jsonLines(result.stdout);
  expect(lines).toHaveLength(1);
  return lines[0] as Record<string, unknown>;
}

/** The per-line error reports on stderr (progress lines left out). */
function lineErrors(result: RunResult): { line: number; error: string; field: string | null }[] {
  return jsonLines(result.stderr)
    .filter((entry) => entry.ok === false && 'line' in entry && entry.error !== 'interrupted')
    .map((entry) => ({ line: entry.line as number, error: entry.error as string, field: entry.field as string | null }))
    .sort((a, b) => a.line - b.line);
}

const row = (batch: string, record: string, category = 'a', reason = `reason ${record}`) =>
  JSON.stringify({ batch_id: batch, record_id: record, proposed_category: category, reason });

describe('import', () => {
  it('JSON Lines: good lines imported, every bad line reported with its number, a rerun skips what is there', async () => {
    const lines = [
      row('b1', 'r1'),
      JSON.stringify({ batchId: 'b1', recordId: 'r2', proposedCategory: 'b', reason: 'camelCase keys' }),
      '',
      row('b1', 'r3', 'unknown'),
      'not json',
      row('b1', 'r4', 'a', ' padded'),
      row('b1', 'r1', 'a', 'same key as line 1'),
      JSON.stringify({ batch_id: 'b1', record_id: 'r5', proposed_category: 'a' }),
      JSON.stringify({ batch_id: 'b1', record_id: 6, proposed_category: 'a', reason: 'a number' }),
      '[1, 2]',
      `${row('b1', 'r7')}\r`,
      row('b1', 'r8', 'a', 'x'.repeat(1001)),
      row('b1', 'r9'),
    ];
    writeFileSync(path.join(scratch.dir, 'items.jsonl'), `\ufeff${lines.join('\n')}`);
    const first = await leasehold(['import', 'q.db', 'items.jsonl', '--chunk-size', '2']);
    expect(first.code).toBe(2);
    expect(summary(first)).toEqual({ ok: false, database: 'q.db', file: 'items.jsonl', lines: 12, imported: 4, skipped: 0, failed: 8 });
    expect(lineErrors(first)).toEqual([
      { line: 4, error: 'unknown_category', field: 'proposed_category' },
      { line: 5, error: 'invalid_line', field: null },
      { line: 6, error: 'invalid_text', field: 'reason' },
      { line: 7, error: 'duplicate_item', field: 'record_id' },
      { line: 8, error: 'missing_field', field: 'reason' },
      { line: 9, error: 'invalid_field', field: 'record_id' },
      { line: 10, error: 'invalid_line', field: null },
      { line: 12, error: 'invalid_text', field: 'reason' },
    ]);
    expect(items().map((item) => item.recordId)).toEqual(['r1', 'r2', 'r7', 'r9']);

    const again = await leasehold(['import', 'q.db', 'items.jsonl']);
    expect(again.code).toBe(2);
    expect(summary(again)).toMatchObject({ imported: 0, skipped: 4, failed: 8 });
    expect(lineErrors(again)).toEqual(lineErrors(first));
    expect(items()).toHaveLength(4);
  });

  it('CSV with a header row (any column order, quoting, a field over two lines), and exit 0 when every line is good', async () => {
    writeFileSync(
      path.join(scratch.dir, 'items.csv'),
      [
        'reason,record_id,extra,batchId,proposed_category',
        '"say ""hi"", twice",c1,x,B,a',
        '"two',
        'lines",c2,x,B,a',
        'plain,c3,x,B',
        '"bad"x,c4,x,B,a',
        'ok,c5,,B,b',
        '',
      ].join('\r\n'),
    );
    const result = await leasehold(['import', 'q.db', 'items.csv']);
    expect(result.code).toBe(2);
    expect(summary(result)).toMatchObject({ ok: false, lines: 5, imported: 2, skipped: 0, failed: 3 });
    expect(lineErrors(result)).toEqual([
      { line: 3, error: 'invalid_text', field: 'reason' },
      { line: 5, error: 'invalid_line', field: null },
      { line: 6, error: 'invalid_line', field: null },
    ]);

    writeFileSync(path.join(scratch.dir, 'good.data'), 'batch_id,record_id,proposed_category,reason\nG,1,a,first\nG,2,b,second\n');
    const good = await leasehold(['import', 'q.db', 'good.data']);
    expect(good.code).toBe(0);
    expect(summary(good)).toEqual({ ok: true, database: 'q.db', file: 'good.data', lines: 2, imported: 2, skipped: 0, failed: 0 });
    expect(items().map((item) => `${item.batchId}/${item.recordId}`)).toEqual(['B/c1', 'B/c5', 'G/1', 'G/2']);

    writeFileSync(path.join(scratch.dir, 'noheader.csv'), 'G,3,a,x\n');
    const noHeader = await leasehold(['import', 'q.db', 'noheader.csv']);
    expect(noHeader.code).toBe(2);
    expect(jsonLines(noHeader.stderr).at(-1)).toMatchObject({ ok: false, error: 'invalid_header' });
  });

  it('refuses what it cannot start on: a missing input file, a missing database, a bad option', async () => {
    const missingFile = await leasehold(['import', 'q.db', 'nope.jsonl']);
    expect(missingFile.code).toBe(2);
    expect(jsonLines(missingFile.stderr)[0]).toMatchObject({ ok: false, error: 'import_file_error' });
    writeFileSync(path.join(scratch.dir, 'one.jsonl'), `${row('b', '1')}\n`);
    const missingDb = await leasehold(['import', 'none.db', 'one.jsonl']);
    expect(missingDb.code).toBe(2);
    expect(jsonLines(missingDb.stderr)[0]).toMatchObject({ error: 'database_not_found' });
    for (const bad of [
      ['--chunk-size', '501'],
      ['--chunk-size', '0'],
      ['--format', 'xml'],
      ['--progress', 'loud'],
    ]) {
      const result = await leasehold(['import', 'q.db', 'one.jsonl', ...bad]);
      expect(result.code, bad.join(' ')).toBe(2);
      expect(jsonLines(result.stderr)[0]).toMatchObject({ error: 'argument_error' });
    }
    expect(itemCount()).toBe(0);
  });

  it('progress: JSON lines at each tenth when not on a terminal, a redrawn bar when asked for', async () => {
    writeFileSync(
      path.join(scratch.dir, 'many.jsonl'),
      `${Array.from({ length: 400 }, (_, index) => row('p', String(index))).join('\n')}\n`,
    );
    const lines = await leasehold(['import', 'q.db', 'many.jsonl', '--chunk-size', '20']);
    expect(lines.code).toBe(0);
    const progress = jsonLines(lines.stderr).map((entry) => entry.progress as { percent: number; imported: number });
    expect(progress.length).toBeGreaterThanOrEqual(10);
    expect(progress.length).toBeLessThanOrEqual(11);
    expect(progress.at(-1)).toMatchObject({ percent: 100, imported: 400 });

    const bar = await leasehold(['import', 'q.db', 'many.jsonl', '--chunk-size', '50', '--progress', 'bar']);
    expect(bar.code).toBe(0);
    expect(bar.stderr).toContain('\r');
    expect(bar.stderr).toMatch(/\[█+░*\] +100% {2}400 lines {2}0 imported {2}400 skipped {2}0 failed/);
    expect(bar.stderr.endsWith('\n')).toBe(true);
    expect(summary(bar)).toMatchObject({ ok: true, imported: 0, skipped: 400 });

    const quiet = await leasehold(['import', 'q.db', 'many.jsonl', '--progress', 'none']);
    expect(quiet.stderr).toBe('');
  });

  it('killed half-way (SIGKILL, then SIGINT), a rerun adds the rest: every item exactly once', async () => {
    const total = 30_000;
    writeFileSync(
      path.join(scratch.dir, 'big.jsonl'),
      `${Array.from({ length: total }, (_, index) => row(`k${Math.floor(index / 1000)}`, String(index).padStart(6, '0'))).join('\n')}\n`,
    );
    const start = () =>
      spawnProcess(process.execPath, [BIN, 'import', 'q.db', 'big.jsonl', '--chunk-size', '25'], {
        cwd: scratch.dir,
      });
    const waitForCount = async (atLeast: number) => {
      for (;;) {
        const count = itemCount();
        if (count >= atLeast) return count;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };

    const killed = start();
    await waitForCount(500);
    killed.child.kill('SIGKILL');
    const afterKill = await killed.done;
    expect(afterKill.signal).toBe('SIGKILL');
    const keptAfterKill = itemCount();
    expect(keptAfterKill % 25).toBe(0); // whole chunks only
    expect(keptAfterKill).toBeLessThan(total);

    const interrupted = start();
    await waitForCount(keptAfterKill + 500);
    interrupted.child.kill('SIGINT');
    const afterInterrupt = await interrupted.done;
    expect(afterInterrupt.code).toBe(130);
    const report = jsonLines(afterInterrupt.stderr).at(-1) as Record<string, number | string>;
    expect(report).toMatchObject({ ok: false, error: 'interrupted' });
    const keptAfterInterrupt = itemCount();
    expect(report.imported).toBe(keptAfterInterrupt - keptAfterKill);
    expect(report.skipped).toBe(keptAfterKill);
    expect(keptAfterInterrupt).toBeLessThan(total);

    const resumed = await leasehold(['import', 'q.db', 'big.jsonl', '--progress', 'none']);
    expect(resumed.code).toBe(0);
    expect(summary(resumed)).toMatchObject({
      ok: true,
      lines: total,
      imported: total - keptAfterInterrupt,
      skipped: keptAfterInterrupt,
      failed: 0,
    });
    const stored = items();
    expect(stored).toHaveLength(total);
    expect(new Set(stored.map((item) => `${item.batchId}/${item.recordId}`)).size).toBe(total);
  });
});
