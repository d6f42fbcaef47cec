// The connection settings every process gets: WAL, foreign keys, and the durability level chosen in
// decision 0007 (NORMAL unless SQLITE_SYNCHRONOUS=FULL).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/client.js';

describe('writer connection settings', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const fresh = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'leasehold-pragmas-'));
    dirs.push(dir);
    return path.join(dir, 'p.db');
  };
  const pragma = async (synchronous?: 'NORMAL' | 'FULL') => {
    const db = await openDatabase({ file: fresh(), synchronous });
    try {
      return await db.write(async (tx) => {
        const [sync] = await tx.$queryRawUnsafe<{ synchronous: bigint | number }[]>('PRAGMA synchronous');
        const [mode] = await tx.$queryRawUnsafe<{ journal_mode: string }[]>('PRAGMA journal_mode');
        const [keys] = await tx.$queryRawUnsafe<{ foreign_keys: bigint | number }[]>('PRAGMA foreign_keys');
        return { synchronous: Number(sync?.synchronous), journalMode: mode?.journal_mode, foreignKeys: Number(keys?.foreign_keys) };
      });
    } finally {
      await db.close();
    }
  };

  it('defaults to synchronous=NORMAL (1) in WAL mode with foreign keys on', async () => {
    expect(await pragma()).toEqual({ synchronous: 1, journalMode: 'wal', foreignKeys: 1 });
    expect(loadConfig({}).synchronous).toBe('NORMAL');
  });

  it('uses synchronous=FULL (2) when asked', async () => {
    expect((await pragma('FULL')).synchronous).toBe(2);
    expect(loadConfig({ SQLITE_SYNCHRONOUS: 'FULL' }).synchronous).toBe('FULL');
  });
});
