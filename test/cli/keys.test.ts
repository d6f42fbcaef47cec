// `leasehold keys create|list|revoke` as real processes on a real file, against a real server on the
// same file: a key made on the command line authenticates, `list` never shows a secret, a revoked key
// is refused (401), and the database holds only the key's SHA-256. Also `serve`'s first-run ADMIN key.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer } from '../support/server.js';
import { BIN, jsonLines, type RunResult, runLeasehold, spawnProcess, tempDir } from './support.js';

let scratch: { dir: string; cleanup(): void };
let file: string;
beforeEach(async () => {
  scratch = tempDir('leasehold-keys-');
  file = path.join(scratch.dir, 'q.db');
  const init = await runLeasehold(['init', 'q.db', '--category', 'a'], { cwd: scratch.dir });
  expect(init.code).toBe(0);
});
afterEach(() => scratch.cleanup());

const leasehold = (args: string[], env: Record<string, string> = {}) => runLeasehold(args, { cwd: scratch.dir, env });

/** The one JSON line of a successful command (and nothing on stderr). */
function success(result: RunResult): Record<string, unknown> {
  expect(result.stderr, result.stderr).toBe('');
  expect(result.code).toBe(0);
  const lines = jsonLines(result.stdout);
  expect(lines).toHaveLength(1);
  return lines[0] as Record<string, unknown>;
}

/** The one JSON line of a failed command (and nothing on stdout). */
function failure(result: RunResult, exit: number, error: string): Record<string, unknown> {
  expect(result.stdout).toBe('');
  expect(result.code, result.stderr).toBe(exit);
  const lines = jsonLines(result.stderr);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ ok: false, error });
  return lines[0] as Record<string, unknown>;
}

function viewer(url: string, key: string): Promise<Response> {
  return fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query: '{ viewer { name roles } }' }),
  });
}

interface ApiKeyRow {
  id: number;
  name: string;
  roles: string;
  keyHash: string;
  prefix: string;
  revokedAt: number | null;
  revokedBy: string | null;
}

function apiKeyRows(database = file): ApiKeyRow[] {
  const db = new Database(database, { readonly: true, timeout: 5_000 });
  try {
    return db
      .prepare('SELECT "id", "name", "roles", "keyHash", "prefix", "revokedAt", "revokedBy" FROM "ApiKey" ORDER BY "id"')
      .all() as never;
  } finally {
    db.close();
  }
}

/** Every byte SQLite keeps for the database: the file and, while a connection is open, its WAL and shared memory. */
function databaseBytes(database = file): Buffer {
  return Buffer.concat(
    ['', '-wal', '-shm'].filter((suffix) => existsSync(`${database}${suffix}`)).map((suffix) => readFileSync(`${database}${suffix}`)),
  );
}

async function until<T>(
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  what: string,
  timeoutMs = 10_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('leasehold keys', () => {
  it('create → the key authenticates; list never shows it; revoke → 401; only its SHA-256 is stored', async () => {
    const created = success(
      await leasehold(['keys', 'create', '--db', 'q.db', '--name', 'tanaka', '--role', 'REVIEWER,viewer', '--role', 'REVIEWER']),
    );
    const key = created.key as string;
    expect(key).toMatch(/^lhk_[A-Za-z0-9_-]{43}$/);
    expect(created).toEqual({
      ok: true,
      database: 'q.db',
      id: 1,
      name: 'tanaka',
      roles: ['REVIEWER', 'VIEWER'],
      prefix: key.slice(0, 12),
      created_at: expect.any(Number),
      key,
    });
    expect(Math.abs((created.created_at as number) - Date.now() / 1000)).toBeLessThan(60);
    // Repeated --role, any case.
    const other = success(await leasehold(['keys', 'create', '--db=q.db', '--name', 'app', '--role', 'proposer', '--role', 'Viewer']));
    expect(other).toMatchObject({ id: 2, name: 'app', roles: ['PROPOSER', 'VIEWER'] });

    const server = await startTestServer({ file });
    try {
      const before = await viewer(server.url, key);
      expect(before.status).toBe(200);
      expect(await before.json()).toEqual({ data: { viewer: { name: 'tanaka', roles: ['REVIEWER', 'VIEWER'] } } });

      const listed = await leasehold(['keys', 'list', '--db', 'q.db']);
      const keys = success(listed).keys as Record<string, unknown>[];
      expect(keys).toHaveLength(2);
      // Set once the server has recorded the use (asynchronously, so perhaps not yet).
      expect([null, 'number']).toContain(keys[0]?.last_used_at === null ? null : typeof keys[0]?.last_used_at);
      expect({ ...keys[0], last_used_at: null }).toEqual({
        id: 1,
        name: 'tanaka',
        roles: ['REVIEWER', 'VIEWER'],
        prefix: key.slice(0, 12),
        created_at: created.created_at,
        created_by: expect.stringMatching(/^cli/),
        last_used_at: null,
        revoked_at: null,
        revoked_by: null,
      });
      const hash = createHash('sha256').update(key).digest('hex');
      expect(listed.stdout).not.toContain(key);
      expect(listed.stdout).not.toContain(hash);

      // The row holds the hash; the file (and its WAL) never the key itself.
      const rows = apiKeyRows();
      expect(rows[0]).toMatchObject({
        id: 1,
        name: 'tanaka',
        roles: 'REVIEWER,VIEWER',
        keyHash: hash,
        prefix: key.slice(0, 12),
        revokedAt: null,
      });
      expect(databaseBytes().includes(key)).toBe(false);
      expect(databaseBytes().includes(other.key as string)).toBe(false);

      const revoked = success(await leasehold(['keys', 'revoke', '1', '--db', 'q.db'], { LEASEHOLD_ACTOR: 'ops' }));
      expect(revoked).toEqual({
        ok: true,
        database: 'q.db',
        revoked: true,
        id: 1,
        name: 'tanaka',
        roles: ['REVIEWER', 'VIEWER'],
        prefix: key.slice(0, 12),
        revoked_at: expect.any(Number),
        revoked_by: 'ops',
      });
      // The server notices the other process's revocation (its cache holds a key for at most a second).
      const refused = await until(async () => {
        const response = await viewer(server.url, key);
        return response.status === 401 ? response : null;
      }, 'the revoked key to be refused');
      expect(refused.status).toBe(401);
      expect((await viewer(server.url, other.key as string)).status).toBe(200);

      // Revoked keys only with --all.
      expect((success(await leasehold(['keys', 'list', '--db', 'q.db'])).keys as { id: number }[]).map((entry) => entry.id)).toEqual([2]);
      const all = success(await leasehold(['keys', 'list', '--db', 'q.db', '--all'])).keys as Record<string, unknown>[];
      expect(all.map((entry) => entry.id)).toEqual([1, 2]);
      expect(all[0]).toMatchObject({ id: 1, revoked_at: revoked.revoked_at, revoked_by: 'ops' });

      const again = failure(await leasehold(['keys', 'revoke', '1', '--db', 'q.db']), 2, 'api_key_revoked');
      expect(again.message).toContain('1');
      failure(await leasehold(['keys', 'revoke', '99', '--db', 'q.db']), 2, 'api_key_not_found');
      expect(databaseBytes().includes(key)).toBe(false);
    } finally {
      await server.stop();
    }
  });

  it('rejected input and database problems: coded errors, exit 2 or 3, nothing written', async () => {
    const badRole = failure(
      await leasehold(['keys', 'create', '--db', 'q.db', '--name', 'x', '--role', 'REVIEWER,REVIEWR']),
      2,
      'invalid_role',
    );
    expect(badRole.message).toContain('REVIEWR');
    for (const role of ['ADMIN', 'PROPOSER', 'REVIEWER', 'EXECUTOR', 'VIEWER']) expect(badRole.message).toContain(role);
    failure(await leasehold(['keys', 'create', '--db', 'q.db', '--name', 'x', '--role', 'VIEWER,']), 2, 'invalid_role');
    failure(await leasehold(['keys', 'create', '--db', 'q.db', '--name', ' x', '--role', 'VIEWER']), 2, 'invalid_text');
    // Text is checked before the database, as for seed A's commands.
    failure(await leasehold(['keys', 'create', '--db', 'none.db', '--name', 'x', '--role', 'NOPE']), 2, 'invalid_role');
    failure(await leasehold(['keys', 'create', '--db', 'none.db', '--name', 'x', '--role', 'VIEWER']), 2, 'database_not_found');
    failure(await leasehold(['keys', 'list'], { DATABASE_URL: 'file:none.db' }), 2, 'database_not_found');
    writeFileSync(path.join(scratch.dir, 'empty.db'), '');
    failure(await leasehold(['keys', 'list', '--db', 'empty.db']), 2, 'unsupported_schema');
    writeFileSync(path.join(scratch.dir, 'garbage.db'), 'not a database');
    failure(await leasehold(['keys', 'list', '--db', 'garbage.db']), 3, 'database_error');
    for (const args of [
      ['keys'],
      ['keys', 'make'],
      ['keys', 'create', '--db', 'q.db', '--name', 'x'],
      ['keys', 'create', '--db', 'q.db', '--role', 'VIEWER'],
      ['keys', 'list', '--db', 'q.db', '--all=yes'],
      ['keys', 'revoke', '--db', 'q.db'],
      ['keys', 'revoke', 'one', '--db', 'q.db'],
      ['keys', 'revoke', '0', '--db', 'q.db'],
      ['keys', 'revoke', '3000000000', '--db', 'q.db'],
    ]) {
      failure(await leasehold(args), 2, 'argument_error');
    }
    expect(apiKeyRows()).toEqual([]);

    // Another process holds the write lock: a database failure, exit 3.
    const holder = new Database(file);
    try {
      holder.exec('BEGIN EXCLUSIVE');
      failure(
        await leasehold(['keys', 'create', '--db', 'q.db', '--name', 'x', '--role', 'VIEWER'], { SQLITE_BUSY_TIMEOUT_MS: '0' }),
        3,
        'database_error',
      );
    } finally {
      holder.close();
    }
    expect(apiKeyRows()).toEqual([]);
  });

  it('without --db: DATABASE_URL, as the server reads it', async () => {
    const created = success(await leasehold(['keys', 'create', '--name', 'ci', '--role', 'PROPOSER'], { DATABASE_URL: 'file:./q.db' }));
    expect(created).toMatchObject({ database: file, name: 'ci', roles: ['PROPOSER'] });
    expect(apiKeyRows().map((row) => row.name)).toEqual(['ci']);
  });

  // `script` is util-linux, present on every Debian machine this runs on; a missing one fails the test.
  it('on a terminal, stderr says the key is shown once; stdout stays one JSON line', () => {
    // `script` gives the command a terminal; stdout goes to a file, stderr to the terminal (script's output).
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} keys create --db q.db --name tty --role VIEWER > out.json`;
    const run = spawnSync('script', ['-qec', command, '/dev/null'], { cwd: scratch.dir, encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('shown only this once');
    const lines = jsonLines(readFileSync(path.join(scratch.dir, 'out.json'), 'utf8'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ ok: true, name: 'tty', key: expect.stringMatching(/^lhk_/) });
    expect(run.stdout).not.toContain(lines[0]?.key as string);
  });

  it('--help for keys and each subcommand', async () => {
    for (const command of [['keys'], ['keys', 'create'], ['keys', 'list'], ['keys', 'revoke']]) {
      const result = await leasehold([...command, '--help']);
      expect(result.code, command.join(' ')).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^usage: leasehold ${command.join(' ')}`));
      expect(result.stderr).toBe('');
    }
  });
});

describe('serve on a database that never had a key', () => {
  /** Starts `leasehold serve FILE` and waits until it listens; resolves with its URL and output so far. */
  async function serve(database: string) {
    const server = spawnProcess(process.execPath, [BIN, 'serve', database, '--port', '0', '--host', '127.0.0.1'], {
      cwd: scratch.dir,
      env: { LOG_LEVEL: 'info', SQLITE_SYNCHRONOUS: 'NORMAL' },
      timeoutMs: 60_000,
    });
    const output = { stdout: '', stderr: '' };
    server.child.stdout?.on('data', (chunk: Buffer) => {
      output.stdout += chunk.toString();
    });
    server.child.stderr?.on('data', (chunk: Buffer) => {
      output.stderr += chunk.toString();
    });
    const listening = await until(
      () => output.stdout.split('\n').find((line) => line.includes('Leasehold is listening')),
      'the server to listen',
      30_000,
    );
    const url = String((JSON.parse(listening) as { url: string }).url).replace(/\/graphql$/, '');
    return { server, output, url };
  }

  it('makes one ADMIN key, prints the banner with it on stderr, and not on the next start', async () => {
    const first = await serve('new.db');
    let key: string;
    try {
      const banner = await until(() => /^ {4}(lhk_[A-Za-z0-9_-]{43})$/m.exec(first.output.stderr), 'the first-run banner');
      key = banner[1] as string;
      expect(first.output.stderr).toContain('an ADMIN key was made');
      expect(first.output.stderr).toContain(`Open ${first.url}/graphql`);
      expect(first.output.stderr).toContain(`{ "Authorization": "Bearer ${key}" }`);
      // The logs name the key, never the secret.
      expect(first.output.stdout).not.toContain(key);
      const response = await viewer(first.url, key);
      expect(await response.json()).toEqual({ data: { viewer: { name: 'admin', roles: ['ADMIN'] } } });
    } finally {
      first.server.child.kill('SIGINT');
    }
    expect((await first.server.done).code).toBe(0);

    const keys = success(await leasehold(['keys', 'list', '--db', 'new.db'])).keys as Record<string, unknown>[];
    expect(keys).toEqual([
      expect.objectContaining({ id: 1, name: 'admin', roles: ['ADMIN'], created_by: 'system', prefix: key.slice(0, 12) }),
    ]);
    expect(databaseBytes(path.join(scratch.dir, 'new.db')).includes(key)).toBe(false);

    const second = await serve('new.db');
    try {
      expect((await viewer(second.url, key)).status).toBe(200);
    } finally {
      second.server.child.kill('SIGINT');
    }
    expect((await second.server.done).code).toBe(0);
    expect(second.output.stderr).not.toContain('lhk_');
    expect(apiKeyRows(path.join(scratch.dir, 'new.db'))).toHaveLength(1);
  });
});
