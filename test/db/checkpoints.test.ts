// SQLite's WAL checkpoints off the event loop (src/db/checkpointer.ts): with `checkpoints: 'background'` (the
// server's setting) the writer connection never checkpoints inside a commit, a worker thread of its own does after
// commits, and when that worker is lost the writer checkpoints for itself again. Real files, a real worker.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckpointResult } from '../../src/db/checkpointer.js';
import { type Database as LeaseholdDatabase, openDatabase } from '../../src/db/client.js';
import { ManualClock } from '../../src/domain/clock.js';
import { addCategories } from '../../src/services/categories.js';
import { addItems } from '../../src/services/items.js';

const agent = { name: 'checkpoints', authenticated: false };
const clock = new ManualClock(Date.UTC(2026, 11, 4, 0));

describe('WAL checkpoints on a worker thread', () => {
  const dirs: string[] = [];
  const opened: LeaseholdDatabase[] = [];
  afterEach(async () => {
    for (const db of opened.splice(0)) await db.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const fresh = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'leasehold-checkpoints-'));
    dirs.push(dir);
    return path.join(dir, 'c.db');
  };
  const open = async (file: string, checkpoints?: 'inline' | 'background', warnings: string[] = []) => {
    const db = await openDatabase({ file, checkpoints, logger: { warn: (_details, message) => warnings.push(message) } });
    opened.push(db);
    await addCategories({ db, clock }, agent, ['alpha']);
    return db;
  };
  /** The writer connection's own setting, read inside a write transaction (the writer's connection). */
  const writerAutocheckpoint = (db: LeaseholdDatabase) =>
    db.write(async (_tx, sql) =>
      Number((await sql.all<{ wal_autocheckpoint: number }>('PRAGMA wal_autocheckpoint'))[0]?.wal_autocheckpoint),
    );
  /** 500 items per call, `calls` calls: a few thousand WAL pages. */
  const add = async (db: LeaseholdDatabase, calls: number, prefix: string) => {
    for (let call = 0; call < calls; call++) {
      const items = Array.from({ length: 500 }, (_, n) => ({
        batchId: `${prefix}${call}`,
        recordId: `r${n}`,
        proposedCategory: 'alpha',
        reason: 'why',
      }));
      await addItems({ db, clock }, agent, items);
    }
  };
  /** What the SQLite database object keeps for this file's tests (a non-enumerable property). */
  interface Internals {
    checkpointer: { kill(): Promise<void> };
    writer: { $disconnect(): Promise<void> };
  }

  it('the writer never checkpoints; the worker copies every commit into the database file soon after it', async () => {
    const file = fresh();
    const db = await open(file, 'background');
    expect(await writerAutocheckpoint(db)).toBe(0);
    const results: CheckpointResult[] = [];
    db.onCheckpoint((result) => results.push(result));
    // Eight commits of 500 items (thousands of WAL pages), faster than one checkpoint interval each.
    await add(db, 8, 'b');
    // The database file alone (copied without its WAL) holds what was checkpointed: every item, once the worker
    // has caught up with the last commit, though nothing has been written since.
    const inFileAlone = () => {
      const copy = `${file}.alone`;
      rmSync(copy, { force: true });
      copyFileSync(file, copy);
      const alone = new Database(copy, { readonly: true });
      try {
        return (alone.prepare('SELECT count(*) AS n FROM "Item"').get() as { n: number }).n;
      } finally {
        alone.close();
      }
    };
    await expect.poll(inFileAlone, { timeout: 10_000 }).toBe(4000);
    expect(results.length).toBeGreaterThan(0);
    expect(results.every((result) => result.busy === 0 && result.checkpointed === result.log)).toBe(true);
    await db.close();
    opened.length = 0;
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('when the worker is lost, the writer checkpoints for itself again and says so', async () => {
    const warnings: string[] = [];
    const db = await open(fresh(), 'background', warnings);
    await add(db, 1, 'before');
    // Reach the worker through the one thing the database exposes: a crash is a terminate() from outside.
    const internals = (db as unknown as { internalsForTests?: Internals }).internalsForTests;
    expect(internals).toBeDefined();
    await internals?.checkpointer.kill();
    await expect.poll(() => warnings).toEqual(['background WAL checkpoints stopped: the writer checkpoints for itself again']);
    expect(await writerAutocheckpoint(db)).toBe(1000);
    await add(db, 2, 'after');
    // A connection Prisma opens for the writer afterwards keeps checkpointing for itself.
    await internals?.writer.$disconnect();
    expect(await writerAutocheckpoint(db)).toBe(1000);
    await add(db, 1, 'reconnected');
  });

  it('a connection Prisma opens again for the writer still leaves the checkpoints to the worker', async () => {
    const db = await open(fresh(), 'background');
    const internals = (db as unknown as { internalsForTests?: Internals }).internalsForTests;
    await internals?.writer.$disconnect();
    expect(await writerAutocheckpoint(db)).toBe(0);
  });

  it('by default (commands, tests in one process) the writer checkpoints as SQLite does, with no worker', async () => {
    const db = await open(fresh());
    expect(await writerAutocheckpoint(db)).toBe(1000);
    let results = 0;
    db.onCheckpoint(() => results++);
    await add(db, 3, 'inline');
    expect(results).toBe(0);
  });
});
