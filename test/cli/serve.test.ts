// `leasehold serve` is the real server, and its subscribers see what the command line does to the
// same file (another process: the feed notices through PRAGMA data_version). Also `stats` and the
// help of Leasehold's own commands.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createClient } from 'graphql-ws';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { BIN, jsonLines, runLeasehold, spawnProcess, tempDir } from './support.js';

let scratch: { dir: string; cleanup(): void };
beforeEach(() => {
  scratch = tempDir('leasehold-serve-');
});
afterEach(() => scratch.cleanup());

const leasehold = (args: string[]) => runLeasehold(args, { cwd: scratch.dir });

async function until<T>(probe: () => T | undefined | null | false, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface QueueEvent {
  sequence: number;
  type: string;
  actor: string;
  item: { batchId: string; recordId: string; claimState: string } | null;
}

describe('serve, and the server seeing the command line', () => {
  it('subscribers of `leasehold serve` receive the events of add, claim, renew and decide run from the command line', async () => {
    expect((await leasehold(['init', 'q.db', '--category', 'a', '--category', 'b'])).code).toBe(0);
    // The subscriber follows tanaka's lease, so it is tanaka, a reviewer (the holder's stream is the holder's).
    const made = await leasehold(['keys', 'create', '--db', 'q.db', '--name', 'tanaka', '--role', 'REVIEWER']);
    expect(made.code).toBe(0);
    const key = jsonLines(made.stdout)[0]?.key as string;
    const server = spawnProcess(process.execPath, [BIN, 'serve', 'q.db', '--port', '0', '--host', '127.0.0.1'], {
      cwd: scratch.dir,
      env: { LOG_LEVEL: 'info', SQLITE_SYNCHRONOUS: 'NORMAL' },
      timeoutMs: 60_000,
    });
    let output = '';
    server.child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const client = { current: null as ReturnType<typeof createClient> | null };
    try {
      const listening = await until(
        () => output.split('\n').find((line) => line.includes('Leasehold is listening')),
        'the server to listen',
        30_000,
      );
      const url = String((JSON.parse(listening) as { url: string }).url).replace(/^http/, 'ws');
      client.current = createClient({
        url,
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        connectionParams: { authorization: `Bearer ${key}` },
      });
      const events: QueueEvent[] = [];
      const notices: string[] = [];
      client.current.subscribe<{ queueEvents: QueueEvent }>(
        { query: 'subscription { queueEvents(after: 0) { sequence type actor item { batchId recordId claimState } } }' },
        { next: (result) => result.data && events.push(result.data.queueEvents), error: () => undefined, complete: () => undefined },
      );
      // Replayed from the start: the categories init wrote.
      await until(() => events.filter((event) => event.type === 'CATEGORY_ADDED').length === 2, 'the replayed categories');

      expect(
        (await leasehold(['add', 'q.db', '--batch-id', 'b', '--record-id', 'r1', '--proposed-category', 'a', '--reason', 'x'])).code,
      ).toBe(0);
      await until(() => events.find((event) => event.type === 'ITEM_ADDED'), 'ITEM_ADDED');
      const claim = await leasehold(['claim', 'q.db', '--reviewer', 'tanaka']);
      const token = jsonLines(claim.stdout)[0]?.claim_token as string;
      const claimed = await until(() => events.find((event) => event.type === 'LEASE_CLAIMED'), 'LEASE_CLAIMED');
      expect(claimed).toMatchObject({ actor: 'tanaka', item: { batchId: 'b', recordId: 'r1', claimState: 'ACTIVE' } });

      // The holder's own stream, for a lease taken on the command line.
      client.current.subscribe<{ leaseEvents: { kind: string } }>(
        { query: 'subscription($token: String!) { leaseEvents(token: $token) { kind } }', variables: { token } },
        { next: (result) => result.data && notices.push(result.data.leaseEvents.kind), error: () => undefined, complete: () => undefined },
      );
      // Renew until the notice arrives (the subscription starts asynchronously; every renew is legitimate).
      for (let attempt = 0; !notices.includes('RENEWED'); attempt++) {
        expect(attempt).toBeLessThan(20);
        expect((await leasehold(['renew', 'q.db', '--token', token, '--lease-seconds', '120'])).code).toBe(0);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect((await leasehold(['decide', 'q.db', '--token', token, '--decision', 'accepted'])).code).toBe(0);
      await until(() => notices.includes('DECIDED'), 'the DECIDED notice');
      const decided = await until(() => events.find((event) => event.type === 'ITEM_DECIDED'), 'ITEM_DECIDED');
      expect(decided).toMatchObject({ actor: 'tanaka', item: { claimState: 'NOT_APPLICABLE' } });
      const sequences = events.map((event) => event.sequence);
      expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
      expect(new Set(sequences).size).toBe(sequences.length);
    } finally {
      await client.current?.dispose();
      server.child.kill('SIGINT');
    }
    const stopped = await server.done;
    expect(stopped.code).toBe(0);
  });

  it('serve refuses an existing file that is not a Leasehold database', async () => {
    writeFileSync(path.join(scratch.dir, 'other.db'), '');
    const result = await leasehold(['serve', 'other.db', '--port', '0']);
    expect(result.code).toBe(2);
    expect(jsonLines(result.stderr)[0]).toMatchObject({ ok: false, error: 'unsupported_schema' });
    const badPort = await leasehold(['serve', '--port', '70000']);
    expect(badPort.code).toBe(2);
    expect(jsonLines(badPort.stderr)[0]).toMatchObject({ error: 'argument_error' });
  });

  it('stats: counts by status and claim state, and the oldest pending age', async () => {
    expect((await leasehold(['init', 'q.db', '--category', 'a'])).code).toBe(0);
    const empty = await leasehold(['stats', 'q.db']);
    expect(empty.code).toBe(0);
    expect(jsonLines(empty.stdout)[0]).toMatchObject({ ok: true, total: 0, pending: 0, oldest_pending_age_seconds: null });
    writeFileSync(
      path.join(scratch.dir, 'i.jsonl'),
      ['1', '2', '3'].map((record) => JSON.stringify({ batch_id: 'b', record_id: record, proposed_category: 'a', reason: 'x' })).join('\n'),
    );
    expect((await leasehold(['import', 'q.db', 'i.jsonl'])).code).toBe(0);
    const claim = await leasehold(['claim', 'q.db', '--reviewer', 'a']);
    const token = jsonLines(claim.stdout)[0]?.claim_token as string;
    expect((await leasehold(['decide', 'q.db', '--token', token, '--decision', 'rejected'])).code).toBe(0);
    expect((await leasehold(['claim', 'q.db', '--reviewer', 'b'])).code).toBe(0);
    const stats = await leasehold(['stats', 'q.db']);
    expect(stats.code).toBe(0);
    const line = jsonLines(stats.stdout)[0] as Record<string, unknown>;
    expect(line).toMatchObject({
      ok: true,
      database: 'q.db',
      total: 3,
      pending: 2,
      accepted: 0,
      corrected: 0,
      rejected: 1,
      unclaimed: 1,
      active: 1,
      expired: 0,
    });
    expect(line.oldest_pending_age_seconds).toBeGreaterThanOrEqual(0);
    expect(line.oldest_pending_age_seconds).toBeLessThan(60);
    const missing = await leasehold(['stats', 'none.db']);
    expect(missing.code).toBe(2);
    expect(jsonLines(missing.stderr)[0]).toMatchObject({ error: 'database_not_found' });
  });

  it('--help for every command prints help and exits 0', async () => {
    for (const command of [
      [],
      ['init'],
      ['add'],
      ['claim'],
      ['renew'],
      ['release'],
      ['decide'],
      ['show'],
      ['serve'],
      ['import'],
      ['stats'],
    ]) {
      const result = await leasehold([...command, '--help']);
      expect(result.code, command.join(' ')).toBe(0);
      expect(result.stdout).toMatch(/^usage: leasehold/);
      expect(result.stderr).toBe('');
    }
  });
});
