// Outbound webhooks across real server processes: two servers on one database send each delivery once; a
// server process killed with deliveries pending, events committed while none follows the webhook, and a
// restart deliver every expiry exactly once; and a bad WEBHOOKS value ends the start with one line that
// never repeats the secret.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { type TestDatabase, testDatabase } from '../support/database.js';
import {
  CLOCK_START,
  createKey,
  createKeys,
  databaseUrlOf,
  type FakeClockServer,
  post,
  type StartedServer,
  spawnServer,
  startFakeClockServer,
  startServerProcess,
} from '../support/process.js';

const SECRET = 'a-webhook-secret-of-at-least-32-characters';
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function database(): Promise<TestDatabase> {
  const made = await testDatabase();
  cleanups.push(() => made.cleanup());
  return made;
}

/** Polls `condition` (real time: these are real processes on the system clock). */
async function eventually(condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(25);
  }
}

describe('webhooks across server processes', () => {
  it('two servers on one database send each delivery once', async () => {
    const received: { delivery: string; name: string }[] = [];
    const server: Server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event: { categoryName: string } };
        received.push({ delivery: String(request.headers['leasehold-delivery']), name: body.event.categoryName });
        // A few milliseconds per answer, so the two servers' passes overlap.
        setTimeout(() => response.writeHead(204).end(), 5);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

    const db = await database();
    const WEBHOOKS = JSON.stringify([{ name: 'ops', url, events: ['CATEGORY_ADDED'], secret: SECRET }]);
    const servers: StartedServer[] = [];
    for (let n = 0; n < 2; n++) {
      const started = await startServerProcess({ WEBHOOKS, BOOTSTRAP_ADMIN_KEY: 'false' }, { database: db });
      cleanups.push(() => started.kill());
      servers.push(started);
    }
    // This process's own connection, to watch the delivery rows.
    const watch = await openDatabase({ location: db.location });
    cleanups.push(() => watch.close());
    // The webhook's cursor exists (a server has read the history once) before anything is added.
    await eventually(async () => (await watch.read.webhookCursor.count()) === 1);
    const admin = await createKey(db, 'admin', ['ADMIN']);
    const names = Array.from({ length: 20 }, (_, index) => `c${index}`);
    await Promise.all(
      names.map(async (name, index) => {
        const { body } = await post(
          (servers[index % 2] as StartedServer).url,
          'mutation($name: String!) { addCategories(input: { names: [$name] }) { __typename } }',
          { name },
          admin.headers,
        );
        expect(body.errors).toBeUndefined();
      }),
    );
    await eventually(async () => (await watch.read.webhookDelivery.count({ where: { status: 'DELIVERED' } })) === names.length);
    // A graceful stop waits for sends under way: whatever either server sent has arrived by now.
    for (const started of servers) {
      started.child.kill('SIGTERM');
      expect(await started.exited).toBe(0);
    }
    expect(received.map((entry) => entry.name).sort()).toEqual([...names].sort());
    expect(new Set(received.map((entry) => entry.delivery)).size).toBe(names.length);
    const rows = await watch.read.webhookDelivery.findMany();
    expect(rows.map((row) => row.attempts)).toEqual(Array(names.length).fill(1));
  });

  it('survives a killed server process: pending retries and expiries committed while no server followed it are each delivered once after a restart', async () => {
    // A real receiver that refuses (500) until it is "up", recording every request.
    let up = false;
    const received: { delivery: string; sequence: number; type: string; status: number }[] = [];
    const server: Server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event: { sequence: number; type: string } };
        const status = up ? 200 : 500;
        received.push({ delivery: String(request.headers['leasehold-delivery']), ...body.event, status });
        response.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const WEBHOOKS = JSON.stringify([{ name: 'ops', url, events: ['PROPOSAL_EXPIRED'], secret: SECRET }]);

    const db = await database();
    const [agent] = await createKeys(db, [{ name: 'expiring-agent', roles: ['PROPOSER'] }]);
    const watch = await openDatabase({ location: db.location });
    cleanups.push(() => watch.close());
    const started: FakeClockServer[] = [];
    const serve = async (clockStart: number, env: Record<string, string>) => {
      const made = await startFakeClockServer(db, { clockStart, env });
      cleanups.push(() => made.kill());
      started.push(made);
      return made;
    };
    /** Proposals due at `clockStart` + 60 s; the server's clock then moved past it: one PROPOSAL_EXPIRED each. */
    const expire = async (on: FakeClockServer, clockStart: number, names: string[]) => {
      for (const name of names) {
        const { body } = await post(
          on.url,
          `mutation($recordId: String!, $deadline: DateTime!) { submitProposal(input: { batchId: "webhook-restart", recordId: $recordId,
            action: "refund", parameters: { amount: 5 }, reason: "Duplicate charge", target: { system: "billing", recordId: $recordId },
            dataSource: "ledger", riskLevel: LOW, fingerprint: "fp", deadline: $deadline }) { __typename } }`,
          { recordId: name, deadline: new Date(clockStart + 60_000).toISOString() },
          agent?.headers,
        );
        expect(body).toEqual({ data: { submitProposal: { __typename: 'SubmitProposalPayload' } } });
      }
      await on.advance(61_000);
    };
    const expiries = () => watch.read.event.findMany({ where: { type: 'PROPOSAL_EXPIRED' }, orderBy: { id: 'asc' } });

    // 1. A server following the webhook: three expiries, each sent once and refused, so each waits for its retry.
    const first = await serve(CLOCK_START, { WEBHOOKS });
    await eventually(async () => (await watch.read.webhookCursor.count()) === 1);
    await expire(first, CLOCK_START, ['a1', 'a2', 'a3']);
    await eventually(async () => (await watch.read.webhookDelivery.count({ where: { attempts: 1, claimedUntil: null } })) === 3);
    // 2. Killed (SIGKILL: no graceful stop) with the three retries pending.
    await first.kill();
    // 3. Two more expiries committed by a server that does not follow the webhook.
    const blind = await serve(CLOCK_START + 61_000, {});
    await expire(blind, CLOCK_START + 61_000, ['b1', 'b2']);
    await blind.kill();
    expect(await expiries()).toHaveLength(5);
    expect(await watch.read.webhookDelivery.count()).toBe(3);

    // 4. The receiver is up; a server following the webhook again starts, and its clock passes the retry times.
    up = true;
    const second = await serve(CLOCK_START + 122_000, { WEBHOOKS });
    await second.advance(15_000);
    await eventually(async () => (await watch.read.webhookDelivery.count({ where: { status: 'DELIVERED' } })) === 5);
    await second.stop();

    // Nothing lost: every expiry in the history was accepted. Nothing doubled: each once, under one delivery id.
    const accepted = received.filter((entry) => entry.status === 200);
    expect(accepted.map((entry) => entry.sequence).sort((a, b) => a - b)).toEqual((await expiries()).map((event) => event.id));
    expect(new Set(accepted.map((entry) => entry.delivery)).size).toBe(5);
    // The three refused before the kill came again under the ids they were first sent with.
    const refused = received.filter((entry) => entry.status === 500);
    expect(refused).toHaveLength(3);
    expect(refused.every((entry) => accepted.some((again) => again.delivery === entry.delivery))).toBe(true);
    const rows = await watch.read.webhookDelivery.findMany({ orderBy: { eventId: 'asc' } });
    expect(rows.map((row) => [row.status, row.attempts])).toEqual([...Array(3).fill(['DELIVERED', 2]), ...Array(2).fill(['DELIVERED', 1])]);
  });

  it('refuses a bad WEBHOOKS value at start, in one line without the secret', async () => {
    const db = await database();
    const child = spawnServer({
      PORT: '0',
      DATABASE_URL: databaseUrlOf(db),
      WEBHOOKS: JSON.stringify([{ name: 'ops', url: 'ftp://example.com/x', events: ['PROPOSAL_EXPIRED'], secret: SECRET }]),
    });
    cleanups.push(() => child.kill());
    expect(await child.exited).toBe(1);
    expect(child.stderr).toHaveLength(1);
    expect(JSON.parse(child.stderr[0] as string).msg).toBe(
      'Invalid configuration: WEBHOOKS: 0.url: must be an http:// or https:// URL without a user name or password',
    );
    expect(child.stderr.join('')).not.toContain(SECRET);
    expect(child.stdout.join('')).not.toContain(SECRET);
  });
});
