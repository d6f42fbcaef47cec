// Start-up refuses a DATABASE_URL it cannot serve, before it touches the disk.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/json-setting.js';
import { loadConfig } from '../../src/config.js';
import { jsonLines, runLeasehold } from '../cli/support.js';
import { spawnServer } from '../support/process.js';

describe('DATABASE_URL with a scheme Leasehold does not serve', () => {
  it('the server exits 1 with one clear message, creates nothing and does not print the password', async () => {
    const cwd = await mkdtemp(path.join(tmpdir(), 'leasehold-scheme-'));
    try {
      const child = spawnServer({ PORT: '0', DATABASE_URL: 'mysql://leasehold:hunter2@db.internal:3306/leasehold' }, { cwd });
      // Read as a file path, the URL opens a SQLite file and the server starts: that must not happen.
      const outcome = await Promise.race([
        child.exited,
        child.waitForLog((line) => String(line.msg).startsWith('Leasehold is listening')).then(() => 'listening'),
      ]);
      if (outcome === 'listening') await child.kill();
      expect(outcome).toBe(1);
      expect(child.stdout).toEqual([]);
      expect(child.stderr).toHaveLength(1);
      const message = JSON.parse(child.stderr[0] as string) as Record<string, unknown>;
      expect(message).toMatchObject({ level: 'fatal' });
      expect(String(message.msg)).toMatch(
        /^Invalid configuration: DATABASE_URL: unsupported scheme "mysql:"\. Use file:.* or postgresql:\/\//,
      );
      expect(child.stderr.join('\n')).not.toContain('hunter2');
      expect(await readdir(cwd)).toEqual([]);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });

  it('`leasehold keys --db` refuses it too, and creates nothing', async () => {
    const cwd = await mkdtemp(path.join(tmpdir(), 'leasehold-scheme-'));
    try {
      const result = await runLeasehold(['keys', 'list', '--db', 'mysql://leasehold:hunter2@db.internal:3306/leasehold'], { cwd });
      expect(result.code).toBe(2);
      expect(jsonLines(result.stderr)).toEqual([
        expect.objectContaining({ ok: false, error: 'config_error', message: expect.stringMatching(/unsupported scheme "mysql:"/) }),
      ]);
      expect(result.stdout + result.stderr).not.toContain('hunter2');
      expect(await readdir(cwd)).toEqual([]);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });

  it('loadConfig refuses other schemes and keeps SQLite paths and PostgreSQL URLs', () => {
    for (const url of ['mysql://u:p@h/db', 'sqlite://./x.db', 'mongodb+srv://h/db', 'http://h/db', 'postgres:db']) {
      expect(() => loadConfig({ DATABASE_URL: url }), url).toThrow(ConfigError);
      expect(() => loadConfig({ DATABASE_URL: url }), url).toThrow(/unsupported scheme/);
    }
    expect(loadConfig({ DATABASE_URL: 'file:./data/l.db' }).database.dialect).toBe('sqlite');
    expect(loadConfig({ DATABASE_URL: './data/l.db' }).database.dialect).toBe('sqlite');
    expect(loadConfig({ DATABASE_URL: 'FILE:/srv/l.db' }).database).toEqual({ dialect: 'sqlite', file: '/srv/l.db' });
    expect(loadConfig({ DATABASE_URL: 'postgresql://u:p@h:5432/db' }).database.dialect).toBe('postgresql');
    expect(loadConfig({ DATABASE_URL: 'postgres://h/db' }).database.dialect).toBe('postgresql');
  });
});
