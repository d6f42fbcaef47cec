// Another process holds the database's write lock (issue 15, item 6). A write waiting for it must not stop
// the server: reads, /health and /ready keep answering, the write goes through once the lock is let go,
// and on SQLite (whose driver is synchronous, so the writer retries off the event loop instead of sleeping
// in a busy timeout) a write that waits SQLITE_BUSY_TIMEOUT_MS in vain answers DATABASE_BUSY, HTTP 503 with
// Retry-After, having written nothing. The server is a real process (src/main.ts); so is the lock's holder.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import BetterSqlite from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { BIN, jsonLines, runLeasehold, spawnProcess, tempDir } from '../cli/support.js';
import { BACKEND, type TestDatabase, testDatabase } from '../support/database.js';
import { createKey, type KeyHolder, post, ROOT, type StartedServer, startServerProcess, TSX_LOADER } from '../support/process.js';

/** The server's SQLITE_BUSY_TIMEOUT_MS: long enough for the probes below, short enough to wait out once. */
const BUSY_TIMEOUT_MS = 4_000;
/** Generous for a loaded two-core machine; a server asleep in a busy timeout answers only after seconds. */
const ANSWER_WITHIN_MS = 1_000;
/** How long the probes keep asking while a write waits: it reaches the lock within this. */
const PROBING_MS = 1_000;

const HOLDER = path.join(ROOT, 'test', 'support', 'write-lock-holder.ts');

interface LockHolder {
  release(): Promise<void>;
  kill(): Promise<void>;
}

/** Starts test/support/write-lock-holder.ts on `url` and resolves once it holds the write lock. */
async function holdWriteLock(url: string): Promise<LockHolder> {
  const child: ChildProcess = spawn(process.execPath, ['--import', TSX_LOADER, HOLDER, url], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let output = '';
  const printed = (line: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (output.split('\n').includes(line)) resolve();
      };
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        check();
      });
      void exited.then(() => reject(new Error(`the lock holder exited before printing "${line}"`)));
      check();
    });
  await printed('locked');
  return {
    async release() {
      child.stdin?.write('release\n');
      await printed('released');
      await exited;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

async function timed<T>(request: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await request();
  return { ms: performance.now() - started, value };
}

const ADD_CATEGORIES = `mutation ($names: [String!]!) {
  addCategories(input: { names: $names }) { __typename ... on AddCategoriesPayload { categories { name } } ... on UserError { code } }
}`;
const ADD_ITEMS = `mutation ($items: [AddItemInput!]!) {
  addItems(input: { items: $items }) { __typename ... on AddItemsPayload { entries { item { recordId } error { code } } } }
}`;
const CATEGORIES = '{ categories { name } }';
const ITEMS_AND_HISTORY = '{ items(first: 100) { edges { node { recordId } } } events(first: 100) { edges { node { type } } } }';

describe(`a write waiting for another process's write lock (${BACKEND})`, () => {
  let database: TestDatabase;
  let admin: KeyHolder;
  let server: StartedServer;

  beforeAll(async () => {
    database = await testDatabase();
    admin = await createKey(database, 'admin', ['ADMIN', 'PROPOSER']);
    server = await startServerProcess({ SQLITE_BUSY_TIMEOUT_MS: String(BUSY_TIMEOUT_MS), BOOTSTRAP_ADMIN_KEY: 'false' }, { database });
  });

  afterAll(async () => {
    await server?.kill();
    await database?.cleanup();
  });

  it('stops nothing else: reads, /health and /ready answer meanwhile, and the write goes through once the lock is let go', async () => {
    const holder = await holdWriteLock(database.url);
    const probes: { what: string; ms: number; status: number }[] = [];
    let settled = 0;
    const write = (name: string) => {
      const answer = post(server.url, ADD_CATEGORIES, { names: [name] }, admin.headers);
      answer.then(
        () => settled++,
        () => settled++,
      );
      return answer;
    };
    let first: ReturnType<typeof post>;
    let second: ReturnType<typeof post>;
    try {
      first = write('first-waiting');
      const started = performance.now();
      while (performance.now() - started < PROBING_MS) {
        for (const endpoint of ['/health', '/ready']) {
          const { ms, value } = await timed(() => fetch(`${server.url}${endpoint}`));
          probes.push({ what: endpoint, ms, status: value.status });
        }
        const { ms, value } = await timed(() => post(server.url, CATEGORIES, {}, admin.headers));
        probes.push({ what: 'categories', ms, status: value.body.errors ? 0 : value.status });
      }
      // A write that arrives while another waits waits with it.
      second = write('second-waiting');
      const { ms, value } = await timed(() => fetch(`${server.url}/health`));
      probes.push({ what: '/health', ms, status: value.status });
      expect(probes.filter((probe) => probe.status !== 200 || probe.ms > ANSWER_WITHIN_MS)).toEqual([]);
      expect(settled, 'both writes still wait for the lock').toBe(0);
      await holder.release();
    } finally {
      await holder.kill();
    }
    for (const [write, name] of [
      [first, 'first-waiting'],
      [second, 'second-waiting'],
    ] as const) {
      const { status, body } = await write;
      expect(status).toBe(200);
      expect(body).toEqual({ data: { addCategories: { __typename: 'AddCategoriesPayload', categories: [{ name }] } } });
    }
  });
});

// PostgreSQL's writers wait for the lock inside the database server, off the event loop, with no busy timeout
// of SQLite's to give up at: what follows is about SQLite alone, and is run on the SQLite project only.
if (BACKEND === 'sqlite') {
  describe('SQLite only: a write that waits SQLITE_BUSY_TIMEOUT_MS for the lock in vain', () => {
    let database: TestDatabase;
    let admin: KeyHolder;
    let server: StartedServer;

    beforeAll(async () => {
      database = await testDatabase();
      admin = await createKey(database, 'admin', ['ADMIN', 'PROPOSER']);
      server = await startServerProcess({ SQLITE_BUSY_TIMEOUT_MS: String(BUSY_TIMEOUT_MS), BOOTSTRAP_ADMIN_KEY: 'false' }, { database });
      expect((await post(server.url, ADD_CATEGORIES, { names: ['general'] }, admin.headers)).status).toBe(200);
    });

    afterAll(async () => {
      await server?.kill();
      await database?.cleanup();
    });

    it('answers DATABASE_BUSY, retryable, HTTP 503 with Retry-After and no stack, having written nothing', async () => {
      const holder = await holdWriteLock(database.url);
      let answer: Response;
      let waitedMs: number;
      try {
        const items = ['a', 'b', 'c'].map((recordId) => ({ batchId: 'busy', recordId, proposedCategory: 'general', reason: 'why' }));
        ({ ms: waitedMs, value: answer } = await timed(() =>
          fetch(`${server.url}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json', ...admin.headers },
            body: JSON.stringify({ query: ADD_ITEMS, variables: { items } }),
          }),
        ));
        // The server answers meanwhile: the write is still waiting as it gives up.
        expect((await timed(() => fetch(`${server.url}/health`))).ms).toBeLessThan(ANSWER_WITHIN_MS);
      } finally {
        await holder.release();
      }
      expect(waitedMs).toBeGreaterThanOrEqual(BUSY_TIMEOUT_MS - 50);
      expect(waitedMs).toBeLessThan(BUSY_TIMEOUT_MS + 2_000);
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('1');
      const text = await answer.text();
      expect(text).not.toMatch(/stack|\.ts:\d+|SqliteError|INTERNAL_SERVER_ERROR/);
      const body = JSON.parse(text) as {
        data: unknown;
        errors: { message: string; path: string[]; extensions: Record<string, unknown> }[];
      };
      expect(body.data).toBeNull();
      expect(body.errors).toEqual([
        {
          message: expect.stringMatching(/^The database is busy: .*Nothing was written; retry in 1 s\.$/),
          locations: expect.any(Array),
          path: ['addItems'],
          extensions: { code: 'DATABASE_BUSY', retryable: true, retryAfterSeconds: 1, requestId: expect.any(String) },
        },
      ]);

      // Nothing half-written: no item and no ITEM_ADDED event, now that the lock is free again.
      const after = await post(server.url, ITEMS_AND_HISTORY, {}, admin.headers);
      const data = after.body.data as { items: { edges: unknown[] }; events: { edges: { node: { type: string } }[] } };
      expect(data.items.edges).toEqual([]);
      expect(data.events.edges.map((edge) => edge.node.type)).not.toContain('ITEM_ADDED');
      // And the same request succeeds when sent again.
      const again = await post(
        server.url,
        ADD_ITEMS,
        { items: [{ batchId: 'busy', recordId: 'a', proposedCategory: 'general', reason: 'why' }] },
        admin.headers,
      );
      expect(again.body).toEqual({
        data: { addItems: { __typename: 'AddItemsPayload', entries: [{ item: { recordId: 'a' }, error: null }] } },
      });
    });
  });

  describe('SQLite only: a batch that fails midway is rolled back whole', () => {
    let database: TestDatabase;
    let db: Database;

    beforeEach(async () => {
      database = await testDatabase();
      db = await openDatabase({ location: database.location, synchronous: 'NORMAL' });
    });

    afterEach(async () => {
      await db?.close();
      await database?.cleanup();
    });

    const names = async () => (await db.read.category.findMany({ orderBy: { name: 'asc' } })).map((category) => category.name);
    const category = (name: string) => ({ data: { name, createdAt: new Date(), createdBy: 'test' } });

    // The lock is taken before any job runs, so SQLite cannot report it busy later on; the error is
    // raised by hand, as better-sqlite3 would raise it, to show what would become of the batch.
    it('a job that meets SQLITE_BUSY after writing is not failed alone: its whole batch is rolled back and run again', async () => {
      const runs = { first: 0, second: 0 };
      const results = await Promise.all([
        db.write(async (tx) => {
          runs.first += 1;
          return (await tx.category.create(category('first'))).name;
        }),
        db.write(async (tx) => {
          runs.second += 1;
          await tx.category.create(category('second'));
          if (runs.second === 1) throw new BetterSqlite.SqliteError('database is locked', 'SQLITE_BUSY');
          return 'second';
        }),
      ]);
      expect(results).toEqual(['first', 'second']);
      expect(runs).toEqual({ first: 2, second: 2 });
      expect(await names()).toEqual(['first', 'second']);
    });

    // SQLite keeps a transaction, and its lock, open when COMMIT fails; a deferred foreign key makes it fail for real.
    it('a transaction whose COMMIT fails keeps neither its changes nor the lock, and the next write goes through', async () => {
      await db.write(async (tx) => tx.category.create(category('kept')));
      const failed = db.write(async (tx, sql) => {
        await sql.run('PRAGMA defer_foreign_keys = ON');
        await tx.category.create(category('lost'));
        await sql.run(`INSERT INTO "ProposalApproval" ("proposalId", "approver", "approvedAt") VALUES (999999, 'x', 0)`);
      });
      await expect(failed).rejects.toThrow(/Foreign/i);
      const other = new BetterSqlite(database.location.dialect === 'sqlite' ? database.location.file : '', { timeout: 0 });
      try {
        other.exec('BEGIN IMMEDIATE');
        other.exec('ROLLBACK');
      } finally {
        other.close();
      }
      await db.write(async (tx) => tx.category.create(category('next')));
      expect(await names()).toEqual(['kept', 'next']);
    });
  });

  describe('SQLite only: a command waiting for the lock hears Ctrl+C', () => {
    let scratch: { dir: string; cleanup(): void };
    beforeEach(async () => {
      scratch = tempDir('leasehold-lock-interrupt-');
      for (const args of [
        ['init', 'q.db', '--category', 'a'],
        ['add', 'q.db', '--batch-id', 'b', '--record-id', 'r1', '--proposed-category', 'a', '--reason', 'r'],
      ]) {
        expect((await runLeasehold(args, { cwd: scratch.dir })).code).toBe(0);
      }
    });
    afterEach(() => scratch.cleanup());

    it('exits 130 with interrupted at once, not after its busy timeout, and writes nothing', async () => {
      const file = path.join(scratch.dir, 'q.db');
      const holder = await holdWriteLock(`file:${file}`);
      try {
        // A busy timeout far longer than the test: only the signal can end the wait in time.
        const claim = spawnProcess(process.execPath, [BIN, 'claim', 'q.db', '--reviewer', 'x'], {
          cwd: scratch.dir,
          env: { SQLITE_BUSY_TIMEOUT_MS: '120000' },
        });
        // Long enough to be waiting for the lock (the command's start-up takes under a second here).
        await new Promise((resolve) => setTimeout(resolve, 2_500));
        const signalled = performance.now();
        claim.child.kill('SIGINT');
        const result = await claim.done;
        expect(performance.now() - signalled).toBeLessThan(10_000);
        expect(result.code).toBe(130);
        expect(jsonLines(result.stderr).at(-1)).toMatchObject({ ok: false, error: 'interrupted' });
        expect(result.stdout).toBe('');
      } finally {
        await holder.release();
      }
      const db = new BetterSqlite(file, { readonly: true });
      try {
        expect(db.prepare('SELECT count(*) FROM "Item" WHERE "claimedBy" IS NOT NULL').pluck().get()).toBe(0);
      } finally {
        db.close();
      }
    });
  });
}
