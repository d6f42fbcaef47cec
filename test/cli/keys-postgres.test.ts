// `leasehold keys` on PostgreSQL, as real processes: --db takes a postgresql:// URL (or DATABASE_URL
// names one); a key made there authenticates against a real server on the same database, a revoked
// one is refused, the answer never shows the URL's password, and a wrong password is a clear error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, type TestDatabase } from '../support/database.js';
import { postGraphQL, startTestServer, type TestServer } from '../support/server.js';
import { jsonLines, runLeasehold, tempDir } from './support.js';

describe('leasehold keys on PostgreSQL', () => {
  let database: TestDatabase;
  let server: TestServer;
  let scratch: { dir: string; cleanup(): void };
  beforeAll(async () => {
    database = await createPostgresDatabase();
    server = await startTestServer({ database });
    scratch = tempDir('leasehold-keys-pg-');
  });
  afterAll(async () => {
    await server.stop();
    await database.cleanup();
    scratch.cleanup();
  });

  const leasehold = async (args: string[], env: Record<string, string> = {}) => {
    const result = await runLeasehold(args, { cwd: scratch.dir, env });
    return { ...result, lines: jsonLines(result.code === 0 ? result.stdout : result.stderr) };
  };
  const password = () => new URL(database.url).password;
  const viewerQuery = '{ categories { name } }';

  it('create with --db URL, list with DATABASE_URL, revoke: the server honours each, and no password is shown', async () => {
    const created = await leasehold(['keys', 'create', '--db', database.url, '--name', 'ops', '--role', 'viewer']);
    expect(created.code, created.stderr).toBe(0);
    const [key] = created.lines;
    expect(key).toMatchObject({ ok: true, name: 'ops', roles: ['VIEWER'] });
    expect(String(key?.database)).toContain('***');
    expect(created.stdout).not.toContain(`:${password()}@`);

    const auth = { authorization: `Bearer ${key?.key as string}` };
    const allowed = await postGraphQL(server.url, viewerQuery, undefined, auth);
    expect(allowed.status).toBe(200);
    expect(((await allowed.json()) as { data?: unknown }).data).toEqual({ categories: [] });

    const listed = await leasehold(['keys', 'list'], { DATABASE_URL: database.url });
    expect(listed.code, listed.stderr).toBe(0);
    const names = ((listed.lines[0]?.keys ?? []) as { id: number; name: string }[]).map((entry) => entry.name);
    expect(names).toContain('ops');
    expect(listed.stdout).not.toContain(key?.key as string);

    const revoked = await leasehold(['keys', 'revoke', String(key?.id), '--db', database.url]);
    expect(revoked.code, revoked.stderr).toBe(0);
    await expect.poll(async () => (await postGraphQL(server.url, viewerQuery, undefined, auth)).status, { timeout: 5_000 }).toBe(401);
  });

  it('a wrong password is database_error, naming the database without any password', async () => {
    const wrong = new URL(database.url);
    wrong.password = 'not-the-password';
    const result = await leasehold(['keys', 'list', '--db', wrong.toString()]);
    expect(result.code).toBe(3);
    expect(result.lines[0]).toMatchObject({ ok: false, error: 'database_error' });
    expect(result.stderr).not.toContain('not-the-password');
    expect(result.stderr).not.toContain(`:${password()}@`);
  });
});
