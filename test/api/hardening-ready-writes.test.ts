// /ready answers 503 while this instance's writes fail (a full disk, a read-only or failing file) and 200
// again once they work. The failure is real: the server's file size limit (RLIMIT_FSIZE, set from
// outside with prlimit) makes SQLite's writes fail as a full disk does.
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { storageFailure, WriteHealth } from '../../src/db/write-health.js';
import { BACKEND, tempDatabaseFile } from '../support/database.js';
import { createKey, type KeyHolder, post, type StartedServer, startServerProcess } from '../support/process.js';

async function ready(url: string): Promise<number> {
  return (await fetch(`${url}/ready`)).status;
}

async function eventually(probe: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > until) throw new Error('the condition was not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function limitFileSize(pid: number, bytes: number | 'unlimited'): void {
  execFileSync('prlimit', ['--pid', String(pid), `--fsize=${bytes}:unlimited`]);
}

if (BACKEND === 'sqlite') {
  describe('/ready while writes fail (real server process, real SQLite file)', () => {
    let temp: { file: string; cleanup(): void };
    let server: StartedServer;
    let admin: KeyHolder;
    beforeEach(async () => {
      temp = tempDatabaseFile();
      admin = await createKey(temp.file, 'ready-admin', ['ADMIN']);
      server = await startServerProcess({}, { database: temp.file });
    });
    afterEach(async () => {
      await server?.kill();
      temp?.cleanup();
    });

    const addCategory = (name: string) =>
      post(
        server.url,
        'mutation($names: [String!]!) { addCategories(input: { names: $names }) { __typename } }',
        { names: [name] },
        admin.headers,
      );

    it('503 once a write fails for want of space, /health still 200; 200 again once writes work, before any client writes', async () => {
      expect(await ready(server.url)).toBe(200);
      expect((await addCategory('before')).body.errors).toBeUndefined();

      const pid = server.child.pid as number;
      limitFileSize(pid, 1);
      const refused = await addCategory('while-full');
      expect(refused.body.errors).toBeDefined();
      expect(await ready(server.url)).toBe(503);
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
      // Reads go on.
      expect((await post(server.url, '{ categories { name } }', {}, admin.headers)).body.errors).toBeUndefined();
      // Still failing: the probe (one small write a second at most) keeps finding it so.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      expect(await ready(server.url)).toBe(503);
      expect(server.stdout.some((line) => line.includes('not ready: writes fail'))).toBe(true);

      limitFileSize(pid, 'unlimited');
      await eventually(async () => (await ready(server.url)) === 200);
      expect((await addCategory('after')).body.errors).toBeUndefined();
      expect(await ready(server.url)).toBe(200);
    });
  });
}

describe('WriteHealth', () => {
  function failingDatabase(): { db: Database; writes: () => number; heal(): void } {
    let writes = 0;
    let healed = false;
    const db = {
      dialect: 'sqlite',
      write: async () => {
        writes += 1;
        if (!healed) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
        return undefined;
      },
    } as unknown as Database;
    return { db, writes: () => writes, heal: () => (healed = true) };
  }

  it('asks nothing while writes succeed; while they fail, probes at most once per interval however often it is asked', async () => {
    const inner = failingDatabase();
    let now = 0;
    const health = new WriteHealth(inner.db, { probeIntervalMs: 1_000, now: () => now });
    expect(await health.writable()).toBe(true);
    expect(inner.writes()).toBe(0);

    await expect(health.database.write(async () => undefined)).rejects.toThrow('full');
    expect(health.failing).toBe('SQLITE_FULL');
    const answers = await Promise.all(Array.from({ length: 50 }, () => health.writable()));
    expect(answers.every((answer) => answer === false)).toBe(true);
    expect(inner.writes()).toBe(2);
    now += 999;
    expect(await health.writable()).toBe(false);
    expect(inner.writes()).toBe(2);
    inner.heal();
    now += 1;
    expect(await health.writable()).toBe(true);
    expect(inner.writes()).toBe(3);
  });

  it('only storage failures count: a constraint or a busy lock says nothing about whether the disk can be written', () => {
    expect(storageFailure({ code: 'SQLITE_CONSTRAINT_UNIQUE' })).toBeNull();
    expect(storageFailure({ code: 'SQLITE_BUSY' })).toBeNull();
    expect(storageFailure(new Error('Unique constraint failed'))).toBeNull();
    expect(storageFailure({ meta: { driverAdapterError: { cause: { originalCode: 'SQLITE_IOERR_WRITE' } } } })).toBe('SQLITE_IOERR_WRITE');
    expect(storageFailure({ code: 'SQLITE_READONLY' })).toBe('SQLITE_READONLY');
    expect(storageFailure({ code: '53100' })).toBe('53100');
    expect(storageFailure(new Error('SQLite operation failed: database or disk is full'))).toBe('database or disk is full');
  });
});
