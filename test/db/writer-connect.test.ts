// The server's writer connection waits for a lock another process holds while it opens (its pragmas
// read the schema), and only once open fails at once on a held lock, leaving the wait to GroupCommit
// (src/db/sqlite-adapter.ts, busyTimeoutAfterConnectMs). Opened with no wait at all, a server starting
// while another process held the file for a moment (a migration, a checkpoint) failed with "database is
// locked" (twice in CI, two servers starting on one new file). The lock here is held by a real child process.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { migrateDatabase } from '../../src/db/migrate.js';
import { sqliteAdapter } from '../../src/db/sqlite-adapter.js';

const betterSqlite = createRequire(import.meta.url).resolve('better-sqlite3');

/** A process that holds `file` exclusively (no other connection may even read it) for `ms`, then lets go. */
async function holdExclusively(file: string, ms: number): Promise<ChildProcess> {
  const script = `const Database = require(${JSON.stringify(betterSqlite)});
const db = new Database(${JSON.stringify(file)});
db.pragma('locking_mode = EXCLUSIVE');
db.exec('BEGIN EXCLUSIVE');
db.exec('CREATE TABLE IF NOT EXISTS held (n INTEGER)');
db.exec('COMMIT');
process.stdout.write('held\\n');
setTimeout(() => { db.close(); process.exit(0); }, ${ms});`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  expect(chunk.toString()).toBe('held\n');
  return child;
}

describe('the writer connection opening beside another process (SQLite)', () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const migrated = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'leasehold-writer-connect-'));
    dirs.push(dir);
    const file = path.join(dir, 'w.db');
    migrateDatabase(file);
    return file;
  };
  const writerSettings = (file: string, busyTimeoutMs: number) => ({
    file,
    busyTimeoutMs,
    busyTimeoutAfterConnectMs: 0,
    readonly: false,
    pragmas: ['PRAGMA foreign_keys = ON', 'PRAGMA synchronous = NORMAL'],
  });

  it('waits while it opens for a lock held elsewhere, then runs with no busy wait of its own', async () => {
    const file = migrated();
    children.push(await holdExclusively(file, 400));
    let opened: unknown;
    const adapter = await sqliteAdapter({
      ...writerSettings(file, 10_000),
      onConnect: (_prepare, connection) => {
        opened = connection;
      },
    }).connect();
    try {
      const connection = opened as { pragma: (sql: string, options: { simple: true }) => unknown };
      expect(Number(connection.pragma('busy_timeout', { simple: true }))).toBe(0);
    } finally {
      await adapter.dispose();
    }
  });

  it('opened with no wait (what the writer did before), the same lock fails it with database is locked', async () => {
    const file = migrated();
    children.push(await holdExclusively(file, 400));
    await expect(sqliteAdapter(writerSettings(file, 0)).connect()).rejects.toThrow(/database is locked/);
  });

  it("the server's writer fails at once on a held lock once open (busy_timeout 0): GroupCommit does the waiting", async () => {
    const db = await openDatabase({ file: migrated() });
    try {
      const [row] = await db.write((tx) => tx.$queryRawUnsafe<{ timeout: bigint | number }[]>('PRAGMA busy_timeout'));
      expect(Number(row?.timeout)).toBe(0);
    } finally {
      await db.close();
    }
  });
});
