// `leasehold import` and `leasehold stats` on PostgreSQL (issue 18), as real processes: DB takes a
// postgresql:// URL in place of a file. Every good line lands with its ITEM_ADDED event, in the file's
// order; a bad line is reported with its number; running the import again adds nothing; stats counts
// what is there; no output shows the URL's password, and a wrong one is a clear error.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { systemClock } from '../../src/domain/clock.js';
import { addCategories } from '../../src/services/categories.js';
import { createPostgresDatabase, type TestDatabase, withPostgres } from '../support/database.js';
import { jsonLines, runLeasehold, spawnProcess, tempDir } from './support.js';

/** Debian's libfaketime (package faketime): shifts a process's clock, so a command can run on a machine whose clock is off. */
const FAKETIME = ['x86_64', 'aarch64']
  .map((arch) => `/usr/lib/${arch}-linux-gnu/faketime/libfaketime.so.1`)
  .find((file) => existsSync(file));
/** CI installs faketime (.ci/run); elsewhere the test says how to run it. */
const SKEWED_CLOCK_RUNS = FAKETIME !== undefined || process.env.CI === 'true';
const FAKETIME_MISSING = SKEWED_CLOCK_RUNS ? '' : " [skipped: needs Debian's faketime: apt-get install faketime]";

describe('leasehold import and stats on PostgreSQL', () => {
  let database: TestDatabase;
  let scratch: { dir: string; cleanup(): void };
  beforeAll(async () => {
    database = await createPostgresDatabase();
    scratch = tempDir('leasehold-import-pg-');
    const db = await openDatabase({ location: database.location });
    try {
      await addCategories({ db, clock: systemClock }, { name: 'admin', authenticated: false }, ['spam', 'ham']);
    } finally {
      await db.close();
    }
  });
  afterAll(async () => {
    await database.cleanup();
    scratch.cleanup();
  });

  const leasehold = async (args: string[]) => {
    const result = await runLeasehold(args, { cwd: scratch.dir });
    return { ...result, lines: jsonLines(result.code === 0 ? result.stdout : result.stderr) };
  };
  const password = () => new URL(database.url).password;

  it('imports every good line with its event in file order, reports the bad one, and adds nothing when run again', async () => {
    const file = path.join(scratch.dir, 'items.jsonl');
    const lines = Array.from({ length: 1_200 }, (_, index) =>
      JSON.stringify({
        batch_id: `pg-${Math.floor(index / 100)}`,
        record_id: `r${index}`,
        proposed_category: index % 2 ? 'spam' : 'ham',
        reason: `line ${index + 1}`,
      }),
    );
    lines[700] = JSON.stringify({ batch_id: 'pg-7', record_id: 'r700', proposed_category: 'nope', reason: 'unknown category' });
    writeFileSync(file, `${lines.join('\n')}\n`);

    const first = await leasehold(['import', database.url, file, '--progress', 'none']);
    expect(first.code, first.stderr).toBe(2);
    const summary = jsonLines(first.stdout).at(-1);
    expect(summary).toMatchObject({ ok: false, lines: 1_200, imported: 1_199, skipped: 0, failed: 1 });
    expect(String(summary?.database)).toContain('***');
    expect(first.stdout + first.stderr).not.toContain(`:${password()}@`);
    expect(first.stderr).toContain('"line":701');

    const stored = await withPostgres(database.url, async (client) => {
      const items = await client.query<{ recordId: string; id: number }>('SELECT "recordId", "id" FROM "Item" ORDER BY "id"');
      const events = await client.query<{ itemId: number }>(`SELECT "itemId" FROM "Event" WHERE "type" = 'ITEM_ADDED' ORDER BY "id"`);
      return { items: items.rows, events: events.rows.map((row) => row.itemId) };
    });
    const expectedOrder = Array.from({ length: 1_200 }, (_, index) => `r${index}`).filter((recordId) => recordId !== 'r700');
    expect(stored.items.map((item) => item.recordId)).toEqual(expectedOrder);
    expect(stored.events).toEqual(stored.items.map((item) => item.id));

    const again = await leasehold(['import', database.url, file, '--progress', 'none']);
    expect(jsonLines(again.stdout).at(-1)).toMatchObject({ lines: 1_200, imported: 0, skipped: 1_199, failed: 1 });

    const stats = await leasehold(['stats', database.url]);
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.lines[0]).toMatchObject({ total: 1_199, pending: 1_199, unclaimed: 1_199, active: 0 });
    expect(stats.stdout).not.toContain(`:${password()}@`);
  });

  it.runIf(SKEWED_CLOCK_RUNS)(
    `stamps by the database server's clock on a machine whose clock is an hour behind${FAKETIME_MISSING}`,
    async () => {
      const hourBehind = { LD_PRELOAD: FAKETIME ?? 'libfaketime.so.1', FAKETIME: '-1h' };
      // The shift takes effect for the command's process (else this test would prove nothing).
      const probe = await spawnProcess(process.execPath, ['-e', 'console.log(Date.now())'], { cwd: scratch.dir, env: hourBehind }).done;
      expect(Date.now() - Number(probe.stdout)).toBeGreaterThan(3_500_000);

      const file = path.join(scratch.dir, 'skewed.jsonl');
      writeFileSync(file, `${JSON.stringify({ batch_id: 'skewed', record_id: 'r1', proposed_category: 'spam', reason: 'clock' })}\n`);
      const imported = await runLeasehold(['import', database.url, file, '--progress', 'none'], { cwd: scratch.dir, env: hourBehind });
      expect(imported.code, imported.stderr).toBe(0);
      const stored = await withPostgres(database.url, async (client) => {
        const { rows } = await client.query<{ createdAt: Date; occurredAt: Date; now: Date }>(
          `SELECT i."createdAt", e."occurredAt", clock_timestamp() AS "now"
         FROM "Item" i JOIN "Event" e ON e."itemId" = i."id" AND e."type" = 'ITEM_ADDED' WHERE i."batchId" = 'skewed'`,
        );
        return rows[0];
      });
      if (!stored) throw new Error('the skewed import stored nothing');
      // Within a minute of the database's own clock, not an hour behind it.
      for (const at of [stored.createdAt, stored.occurredAt]) {
        expect(Math.abs(stored.now.getTime() - at.getTime())).toBeLessThan(60_000);
      }

      const stats = await runLeasehold(['stats', database.url], { cwd: scratch.dir, env: hourBehind });
      expect(stats.code, stats.stderr).toBe(0);
      const at = Number(jsonLines(stats.stdout)[0]?.at) * 1000;
      expect(Math.abs(stored.now.getTime() - at)).toBeLessThan(60_000);
    },
  );

  it('a wrong password is database_error for both, naming the database without any password', async () => {
    const wrong = new URL(database.url);
    wrong.password = 'not-the-password';
    const file = path.join(scratch.dir, 'one.jsonl');
    writeFileSync(file, `${JSON.stringify({ batch_id: 'x', record_id: 'y', proposed_category: 'spam', reason: 'z' })}\n`);
    for (const args of [
      ['import', wrong.toString(), file],
      ['stats', wrong.toString()],
    ]) {
      const result = await leasehold(args);
      expect(result.code).toBe(3);
      expect(result.lines[0]).toMatchObject({ ok: false, error: 'database_error' });
      expect(result.stderr).not.toContain('not-the-password');
    }
  });
});
