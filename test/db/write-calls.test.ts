// The review loop's writes on PostgreSQL run as one statement each batch (src/db/write-calls.ts and
// migration 20261203020000_write_functions), and write exactly what their TypeScript forms write on
// SQLite: the same answers, the same refusals, the same history rows byte for byte, the same items.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WRITE_MODES } from '../../src/config/database-location.js';
import { type ApiKey, type Database, type EventType, openDatabase } from '../../src/db/client.js';
import { DatabaseUnavailableError } from '../../src/db/unavailable.js';
import { type BatchAnswer, WRITE_BATCH, WRITE_BATCH_SHARDED } from '../../src/db/write-calls.js';
import { ManualClock } from '../../src/domain/clock.js';
import { DomainError } from '../../src/domain/errors.js';
import { createLogger } from '../../src/logger.js';
import { bootstrapAdminKey, createApiKey, revokeApiKey, touchApiKey } from '../../src/services/api-keys.js';
import { addCategories, retireCategory } from '../../src/services/categories.js';
import type { Actor, ServiceDeps } from '../../src/services/context.js';
import { decideItem } from '../../src/services/decisions.js';
import { addItem, addItems } from '../../src/services/items.js';
import { claimItem, recordLapsedLeases, releaseLease, renewLease } from '../../src/services/leases.js';
import { submitProposal } from '../../src/services/proposals/intake.js';
import { reportTargetState } from '../../src/services/proposals/target-state.js';
import { RefusalLog } from '../../src/services/refusals.js';
import {
  type ClaimedDelivery,
  claimDueDeliveries,
  enqueueWebhookDeliveries,
  recordDeliveryResult,
  releaseDeliveryClaims,
  type SendResult,
} from '../../src/services/webhook-deliveries.js';
import { createPostgresDatabase, type TestDatabase, tempDatabaseFile, withPostgres } from '../support/database.js';
import { proposalInput } from '../support/proposals.js';
import { recordWriterStatements, rows } from '../support/write-calls.js';

const START = Date.UTC(2026, 11, 3, 9, 0, 0);
const who = (name: string, authenticated = true): Actor => ({ name, authenticated });

/** What a step gave: the item it returned (its lease token aside, which is random) or the refusal's code. */
type Outcome = Record<string, unknown> | string | null;

function outcomeOf(value: unknown): Outcome {
  if (value === null) return null;
  const item = (value as { item?: unknown }).item ?? value;
  const { leaseTokenHash, ...rest } = item as Record<string, unknown>;
  return { ...rest, leased: leaseTokenHash !== null };
}

/** The same script on either backend: every kind of claim, renewal, release and decision, and every refusal. */
async function script(db: Database): Promise<Outcome[]> {
  const clock = new ManualClock(START);
  const deps: ServiceDeps = { db, clock };
  const outcomes: Outcome[] = [];
  const step = async (work: () => Promise<unknown>) => {
    try {
      outcomes.push(outcomeOf(await work()));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      outcomes.push(error.code);
    }
  };
  const admin = who('admin');
  // API keys: the first start's key (made once), a name taken, the same principal said, revocations.
  const keyStep = async (work: () => Promise<{ record: ApiKey } | ApiKey | null>) => {
    try {
      const made = await work();
      const record = made === null ? null : 'record' in made ? made.record : made;
      outcomes.push({
        key: record && JSON.parse(JSON.stringify({ ...record, keyHash: record.keyHash.length, prefix: record.prefix.length })),
      });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      outcomes.push(`${error.code} ${error.field} ${error.message}`);
    }
  };
  await keyStep(() => bootstrapAdminKey(deps));
  await keyStep(() => bootstrapAdminKey(deps));
  await keyStep(() => createApiKey(deps, admin, { name: 'team-x', roles: ['REVIEWER', 'PROPOSER'] }));
  await keyStep(() => createApiKey(deps, admin, { name: 'team-x', roles: ['REVIEWER'] }));
  await keyStep(() => createApiKey(deps, admin, { name: 'team-x', roles: ['VIEWER'], samePrincipal: true }));
  await keyStep(() => createApiKey(deps, admin, { name: 'team-x', roles: ['VIEWER'] }));
  await keyStep(() => createApiKey(deps, admin, { name: 'team-x', roles: ['EXECUTOR'], samePrincipal: true }));
  await keyStep(() => createApiKey(deps, admin, { name: '"quoted" \\ 迷惑', roles: ['VIEWER'] }));
  await keyStep(() => revokeApiKey(deps, admin, 3));
  await keyStep(() => revokeApiKey(deps, admin, 3));
  await keyStep(() => revokeApiKey(deps, admin, 99));
  await addCategories(deps, admin, ['spam', 'ham', 'old', '迷惑']);
  await retireCategory(deps, admin, 'old');
  // A webhook's cursor, from here on (seen for the first time: it starts at the end of the history).
  const hook = { name: 'hook', events: ['ITEM_DECIDED', 'LEASE_EXPIRED', 'OPERATION_REFUSED'] as EventType[] };
  outcomes.push(`enqueued ${await enqueueWebhookDeliveries(deps, hook)}`);
  // Categories: all or nothing, the first name given that exists named; retiring twice, or what is not there.
  const categoryStep = async (work: () => Promise<unknown>) => {
    try {
      outcomes.push({ categories: JSON.parse(JSON.stringify(await work())) });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      outcomes.push(`${error.code} ${error.field} ${error.message}`);
    }
  };
  await categoryStep(() => addCategories(deps, admin, ['fresh', 'ham', 'spam']));
  await categoryStep(() => addCategories(deps, admin, ['tidy', 'new']));
  await categoryStep(() => retireCategory(deps, admin, 'tidy'));
  await categoryStep(() => retireCategory(deps, admin, 'tidy'));
  await categoryStep(() => retireCategory(deps, admin, 'absent'));
  // Refused operations recorded one row each (no window), their details as given.
  const refusals = new RefusalLog({ ...deps, logger: createLogger('silent') }, null);
  await refusals.record(who('mallory'), 'decideItem', new DomainError('NOT_LEASE_HOLDER', 'Not "yours" \\ 迷惑.', 'token'));
  await Promise.all([
    refusals.record(who('mallory'), 'claimItem', new DomainError('FORBIDDEN', 'No.', null)),
    refusals.record(who('oscar'), 'renewLease', new DomainError('CLAIM_EXPIRED', 'Lapsed.', 'token')),
  ]);
  for (const [batchId, recordId, by] of [
    ['b1', 'r1', 'agent'],
    ['b1', 'r2', 'alice'],
    ['b2', 'r1', 'agent'],
    ['b2', 'r2', 'agent'],
    ['b3', 'r1', 'agent'],
    ['b3', 'r2', 'agent'],
    ['b3', 'r3', 'agent'],
  ] as const) {
    await addItem(deps, who(by), { batchId, recordId, proposedCategory: 'spam', reason: `"quoted" \\ ${recordId}` });
    clock.advance(1_000);
  }
  // A bulk with every refusal: unknown and retired categories, an item already there, one given twice, a bad one.
  const bulk = await addItems(deps, who('agent'), [
    { batchId: 'bulk', recordId: 'r1', proposedCategory: 'ham', reason: 'first' },
    { batchId: 'bulk', recordId: 'r2', proposedCategory: 'nope', reason: 'unknown category' },
    { batchId: 'bulk', recordId: 'r2', proposedCategory: 'old', reason: 'retired category' },
    { batchId: 'bulk', recordId: 'r2', proposedCategory: '迷惑', reason: 'the first of r2 that can be added' },
    { batchId: 'bulk', recordId: 'r1', proposedCategory: 'spam', reason: 'given twice' },
    { batchId: 'b1', recordId: 'r1', proposedCategory: 'spam', reason: 'already there' },
    { batchId: '', recordId: 'r9', proposedCategory: 'spam', reason: 'invalid' },
    { batchId: 'bulk', recordId: 'r3', proposedCategory: 'spam', reason: 'last' },
  ]);
  for (const outcome of bulk)
    outcomes.push(outcome.ok ? outcomeOf(outcome.item) : `${outcome.error.code} ${outcome.error.field} ${outcome.error.message}`);
  await step(() => addItem(deps, who('agent'), { batchId: 'bulk', recordId: 'r3', proposedCategory: 'spam', reason: 'again' }));
  await step(() => addItem(deps, who('agent'), { batchId: 'bulk', recordId: 'r4', proposedCategory: 'old', reason: 'retired' }));
  clock.advance(1_500);
  const tokens: Record<string, string> = {};
  const claim = (name: string, options: { leaseSeconds?: number; batchId?: string; authenticated?: boolean } = {}) =>
    step(async () => {
      const claimed = await claimItem(deps, who(name, options.authenticated ?? true), options);
      if (claimed) tokens[name] = claimed.token;
      return claimed;
    });

  await claim('alice'); // b1/r1 (alice proposed b1/r2: never hers)
  await claim('bob', { batchId: 'b2' });
  await claim('carol', { leaseSeconds: 30 });
  await claim('alice', { batchId: 'b1' }); // only her own proposal is left there: nothing
  clock.advance(500);
  await step(() => renewLease(deps, who('alice'), { token: tokens.alice as string, leaseSeconds: 600 }));
  await step(() => releaseLease(deps, who('bob'), { token: tokens.bob as string, reason: 'CONNECTION_CLOSED' }));
  await step(() => releaseLease(deps, who('bob'), { token: tokens.bob as string })); // released already
  const carols = tokens.carol as string;
  clock.advance(31_000);
  await step(() => renewLease(deps, who('carol'), { token: carols })); // lapsed
  await claim('dave'); // bob's released item first, in seed A's order
  await claim('dave2', { batchId: 'b1' }); // carol's lapsed lease: recorded, then replaced
  await step(() => decideItem(deps, who('carol'), { token: carols, decision: 'ACCEPTED' })); // replaced
  await step(() => renewLease(deps, who('bob'), { token: tokens.alice as string })); // not the holder
  for (const [decision, category] of [
    ['CORRECTED', 'spam'],
    ['CORRECTED', 'old'],
    ['CORRECTED', 'nope'],
    ['CORRECTED', '迷惑'],
  ] as const) {
    await step(() => decideItem(deps, who('alice'), { token: tokens.alice as string, decision, category }));
  }
  clock.advance(250);
  await step(() => decideItem(deps, who('dave'), { token: tokens.dave as string, decision: 'REJECTED' }));
  await step(() => decideItem(deps, who('dave2'), { token: tokens.dave2 as string, decision: 'ACCEPTED' }));
  // Alice's own proposal, claimed by an unauthenticated reviewer of that name (the command line): allowed.
  await claim('alice', { batchId: 'b1', authenticated: false });
  await step(() => decideItem(deps, who('alice', false), { token: tokens.alice as string, decision: 'ACCEPTED' }));
  // A lease granted by a clock later set back two hours is overlong: the next claim records its lapse first.
  await claim('erin', { leaseSeconds: 3600 });
  clock.set(clock.now().getTime() - 2 * 3_600_000);
  await claim('frank');
  await step(() => decideItem(deps, who('erin'), { token: tokens.erin as string, decision: 'ACCEPTED' }));
  clock.set(START + 3 * 3_600_000);
  for (const name of ['g', 'h', 'i', 'j']) await claim(name);
  // The expiry sweep: an overlong lease first, then lapsed ones soonest first, at most `limit` a sweep.
  const sweep = async (limit: number) => outcomes.push(`swept ${await recordLapsedLeases(deps, limit)}`);
  await addItems(
    deps,
    who('agent'),
    ['k', 'l', 'm', 'n'].map((recordId) => ({ batchId: 'sweep', recordId, proposedCategory: 'ham', reason: 'sweep' })),
  );
  const swept = clock.now().getTime();
  for (const [name, leaseSeconds] of [
    ['k', 62],
    ['l', 60],
    ['m', 61],
    ['n', 3600],
  ] as const) {
    await claim(name, { batchId: 'sweep', leaseSeconds });
    clock.advance(1);
  }
  clock.set(swept - 1_000_000); // n's lease now runs past the longest one can: overlong
  await sweep(5);
  clock.set(swept + 100_000); // k, l and m have lapsed: l first, then m
  await sweep(2);
  await sweep(2);
  await sweep(2);
  // The webhook's deliveries: the cursor in steps of 3, claims soonest due first, a delivery, a retry after its
  // backoff, a last attempt failing, a claim given back, and a result recorded after its claim lapsed.
  for (let enqueued = 3; enqueued === 3; ) {
    enqueued = await enqueueWebhookDeliveries(deps, hook, 3);
    outcomes.push(`enqueued ${enqueued}`);
  }
  const claimed = async (limit: number) => {
    const deliveries = await claimDueDeliveries(deps, [hook.name], limit, 30_000);
    outcomes.push({ claimed: deliveries.map((delivery) => ({ ...delivery, event: delivery.event.type })) as unknown as Outcome });
    return deliveries;
  };
  const [first, second, third, fourth] = await claimed(4);
  const record = async (delivery: ClaimedDelivery | undefined, result: SendResult) =>
    outcomes.push(`recorded ${await recordDeliveryResult(deps, delivery as ClaimedDelivery, result, 0.5)}`);
  await record(first, { delivered: true, statusCode: 204, error: null });
  await record(second, { delivered: false, statusCode: 503, error: 'Service Unavailable' });
  await record({ ...(third as ClaimedDelivery), attempts: 11 }, { delivered: false, statusCode: null, error: 'timed out' });
  await releaseDeliveryClaims(deps, [fourth as ClaimedDelivery]);
  await claimed(10); // the released one and the rest: not the retry, not yet due
  clock.advance(31_000);
  const [again] = await claimed(1); // the claims lapsed: the retry is due by now, soonest first
  clock.advance(31_000);
  await claimed(10); // its claim lapsed and it was claimed again
  await record(again, { delivered: true, statusCode: 200, error: null }); // so the first claim's result is not recorded
  return outcomes;
}

// In both write modes (decision 0009): `sharded` runs the same functions without the global lock, its claims
// picking with FOR UPDATE SKIP LOCKED; one writer at a time, they must write exactly the same.
describe.each(WRITE_MODES)('write calls (PostgreSQL, PG_WRITE_MODE=%s) against their TypeScript forms', (writeMode) => {
  let database: TestDatabase;
  let postgres: Database;
  beforeAll(async () => {
    database = await createPostgresDatabase();
    postgres = await openDatabase({ location: database.location, writeMode });
  });
  afterAll(async () => {
    await postgres.close();
    await database.cleanup();
  });

  it('claims, renewals, releases and decisions answer, refuse and write exactly as their TypeScript forms do on SQLite', async () => {
    const file = tempDatabaseFile();
    const sqlite = await openDatabase({ file: file.file });
    try {
      const expected = await script(sqlite);
      const actual = await script(postgres);
      expect(actual).toEqual(expected);
      // The sweeps recorded an overlong lease, then two lapsed ones, one and none (limit 2).
      expect(expected.filter((outcome) => typeof outcome === 'string' && outcome.startsWith('swept'))).toEqual([
        'swept 1',
        'swept 2',
        'swept 1',
        'swept 0',
      ]);
      // Every refusal of the script was met, so the comparison covers them.
      for (const code of [
        'CLAIM_EXPIRED',
        'CLAIM_NOT_FOUND',
        'NOT_LEASE_HOLDER',
        'CATEGORY_UNCHANGED',
        'CATEGORY_RETIRED',
        'UNKNOWN_CATEGORY',
      ])
        expect(expected).toContain(code);
      const sqliteEvents = await rows(sqlite, 'Event');
      expect(sqliteEvents.map((event) => event.type)).toEqual(
        expect.arrayContaining(['LEASE_CLAIMED', 'LEASE_RENEWED', 'LEASE_RELEASED', 'LEASE_EXPIRED', 'ITEM_DECIDED']),
      );
      expect(sqliteEvents.some((event) => String(event.details).includes('"overlong":true'))).toBe(true);
      expect(sqliteEvents.some((event) => String(event.details).includes('"replacedHolder":"carol"'))).toBe(true);
      expect(await rows(postgres, 'Event')).toEqual(sqliteEvents);
      expect(await rows(postgres, 'Item')).toEqual(await rows(sqlite, 'Item'));
      expect(await rows(postgres, 'Category')).toEqual(await rows(sqlite, 'Category'));
      expect(await rows(postgres, 'ApiKey')).toEqual(await rows(sqlite, 'ApiKey'));
      expect(expected).toContainEqual(expect.stringMatching(/^PRINCIPAL_NAME_TAKEN name API keys 2, 3 already act as "team-x"/));
      expect(expected).toContainEqual('API_KEY_REVOKED id API key 3 is already revoked.');
      expect(expected).toContainEqual('API_KEY_NOT_FOUND id No API key has id 99.');
      expect(expected.slice(0, 2)).toEqual([expect.objectContaining({ key: expect.objectContaining({ name: 'admin' }) }), { key: null }]);
      expect(sqliteEvents.some((event) => String(event.details).includes('"samePrincipalAs":"2"'))).toBe(true);
      expect(sqliteEvents.some((event) => String(event.details).includes('"samePrincipalAs":"2,3"'))).toBe(true);
      expect(await rows(postgres, 'WebhookDelivery')).toEqual(await rows(sqlite, 'WebhookDelivery'));
      expect(await rows(postgres, 'WebhookCursor')).toEqual(await rows(sqlite, 'WebhookCursor'));
      // Every webhook outcome was met: deliveries enqueued over more than one step, delivered, retried, failed.
      const deliveries = await rows(sqlite, 'WebhookDelivery');
      expect(expected.filter((outcome) => typeof outcome === 'string' && outcome.startsWith('enqueued'))).toHaveLength(
        2 + Math.floor(deliveries.length / 3),
      );
      expect(deliveries.map((delivery) => delivery.status).sort()).toEqual(expect.arrayContaining(['DELIVERED', 'FAILED', 'PENDING']));
      expect(expected).toContainEqual('recorded false');
      // Categories' refusals and refused operations were met and recorded.
      expect(expected).toContainEqual('DUPLICATE_CATEGORY names Category "ham" already exists.');
      expect(expected).toContainEqual('CATEGORY_RETIRED name Category "tidy" is already retired.');
      expect(expected).toContainEqual('CATEGORY_NOT_FOUND name No category is named "absent".');
      expect(sqliteEvents.filter((event) => event.type === 'OPERATION_REFUSED')).toHaveLength(3);
      expect(sqliteEvents.filter((event) => event.type === 'CATEGORY_RETIRED')).toHaveLength(2);
    } finally {
      await sqlite.close();
      file.cleanup();
    }
  });
});

describe('write calls (PostgreSQL)', () => {
  let database: TestDatabase;
  let postgres: Database;
  beforeAll(async () => {
    database = await createPostgresDatabase();
    postgres = await openDatabase({ location: database.location });
  });
  afterAll(async () => {
    await postgres.close();
    await database.cleanup();
  });

  it('a batch of them, items added, a key used, the expiry sweep, categories, recorded refusals, webhook deliveries and keys made and revoked are one statement on the writer connection: nothing else runs while it holds the write lock', async () => {
    const clock = new ManualClock(START + 10 * 3_600_000);
    const deps: ServiceDeps = { db: postgres, clock };
    await addCategories(deps, who('admin'), ['lock']);
    const { record: key } = await createApiKey(deps, who('admin'), { name: 'touched', roles: ['VIEWER'] });
    // Every statement the writer connection is sent, from here on.
    const { sent, stop: stopRecording } = recordWriterStatements();
    const held: { form: string; writes: number }[] = [];
    const stop = postgres.onLockHeld((_seconds, form, writes) => held.push({ form, writes }));
    try {
      // Items added one by one at once, and a bulk.
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          addItem(deps, who('agent'), { batchId: 'lock', recordId: `r${i}`, proposedCategory: 'lock', reason: 'r' }),
        ),
      );
      await addItems(
        deps,
        who('agent'),
        Array.from({ length: 4 }, (_, i) => ({ batchId: 'lock', recordId: `bulk${i}`, proposedCategory: 'lock', reason: 'r' })),
      );
      // A key's last use, recorded three times at once (only ever forward).
      const usedAt = (seconds: number) => new Date(START + 10 * 3_600_000 + seconds * 1000);
      await Promise.all([touchApiKey(deps, key.id, usedAt(2)), touchApiKey(deps, key.id, usedAt(3)), touchApiKey(deps, key.id, usedAt(1))]);
      const [touched] = await postgres.query<{ lastUsedAt: Date }>('SELECT "lastUsedAt" FROM "ApiKey" WHERE "id" = ?', key.id);
      expect(new Date(touched?.lastUsedAt as Date).getTime()).toBe(usedAt(3).getTime());
      // Many reviewers at once: their claims share batches, then their renewals, releases and decisions.
      const reviewers = Array.from({ length: 8 }, (_, i) => who(`reviewer${i}`));
      const claims = await Promise.all(reviewers.map((actor) => claimItem(deps, actor, { batchId: 'lock' })));
      expect(new Set(claims.map((claim) => claim?.item.id)).size).toBe(8);
      await Promise.all(claims.map((claim, i) => renewLease(deps, reviewers[i] as Actor, { token: claim?.token as string })));
      await Promise.all(
        claims.map((claim, i) =>
          i % 2 === 0
            ? decideItem(deps, reviewers[i] as Actor, { token: claim?.token as string, decision: 'ACCEPTED' })
            : releaseLease(deps, reviewers[i] as Actor, { token: claim?.token as string }),
        ),
      );
      // The expiry sweep, once a lease has lapsed (a new claim's, 60 s on).
      const lapsing = await claimItem(deps, who('late'), { batchId: 'lock', leaseSeconds: 60 });
      expect(lapsing).not.toBeNull();
      clock.advance(61_000);
      expect(await recordLapsedLeases(deps)).toBe(1);
      // A category added and retired, and two refused operations recorded at once.
      await addCategories(deps, who('admin'), ['lock2']);
      await retireCategory(deps, who('admin'), 'lock2');
      const refusals = new RefusalLog({ ...deps, logger: createLogger('silent') }, null);
      await Promise.all([
        refusals.record(who('reviewer0'), 'decideItem', new DomainError('NOT_LEASE_HOLDER', 'Not yours.', 'token')),
        refusals.record(who('reviewer1'), 'renewLease', new DomainError('CLAIM_EXPIRED', 'Lapsed.', 'token')),
      ]);
      // A webhook's cursor (made, then a step), a claim of its deliveries, a result and a claim given back.
      const hook = { name: 'lock-hook', events: ['OPERATION_REFUSED'] as EventType[] };
      expect(await enqueueWebhookDeliveries(deps, hook)).toBe(0);
      await new RefusalLog({ ...deps, logger: createLogger('silent') }, null).record(
        who('reviewer2'),
        'decideItem',
        new DomainError('NOT_LEASE_HOLDER', 'Not yours.', 'token'),
      );
      expect(await enqueueWebhookDeliveries(deps, hook)).toBe(1);
      const [delivery] = await claimDueDeliveries(deps, [hook.name], 5, 30_000);
      expect(await recordDeliveryResult(deps, delivery as ClaimedDelivery, { delivered: false, statusCode: 500, error: 'no' }, 0)).toBe(
        true,
      );
      clock.advance(3_600_000);
      await releaseDeliveryClaims(deps, await claimDueDeliveries(deps, [hook.name], 5, 30_000));
      // A key made and revoked.
      const { record: made } = await createApiKey(deps, who('admin'), { name: 'made-under-recording', roles: ['VIEWER'] });
      expect((await revokeApiKey(deps, who('admin'), made.id)).revokedBy).toBe('admin');
    } finally {
      stopRecording();
      stop();
    }
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.filter((text) => text !== WRITE_BATCH)).toEqual([]);
    // Fewer statements than operations: concurrent operations share one.
    expect(sent.length).toBeLessThan(40);
    expect(held.every((hold) => hold.form === 'statement')).toBe(true);
    expect(held.reduce((sum, hold) => sum + hold.writes, 0)).toBe(12 + 1 + 3 + 24 + 2 + 4 + 7 + 2);
  });

  /** A trigger that makes the first insert into "Item" from now on take `seconds`, and says how often it ran. */
  async function slowFirstInsert(seconds: number): Promise<{ runs(): Promise<number>; drop(): Promise<void> }> {
    await withPostgres(database.url, async (client) => {
      await client.query('DROP TRIGGER IF EXISTS slow_first ON "Item"');
      await client.query('DROP SEQUENCE IF EXISTS slow_first');
      await client.query('CREATE SEQUENCE slow_first');
      await client.query(`CREATE OR REPLACE FUNCTION slow_first() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF nextval('slow_first') = 1 THEN
            PERFORM set_config('application_name', 'slow-batch', true);
            PERFORM pg_sleep(${seconds});
          END IF;
          RETURN NULL;
        END $$`);
      await client.query('CREATE TRIGGER slow_first AFTER INSERT ON "Item" FOR EACH STATEMENT EXECUTE FUNCTION slow_first()');
    });
    return {
      runs: () =>
        withPostgres(database.url, async (client) =>
          Number((await client.query('SELECT last_value, is_called FROM slow_first')).rows[0]?.last_value),
        ),
      drop: () => withPostgres(database.url, async (client) => void (await client.query('DROP TRIGGER slow_first ON "Item"'))),
    };
  }

  async function waitForSession(name: string): Promise<void> {
    for (let tries = 0; tries < 200; tries++) {
      const found = await withPostgres(database.url, (client) =>
        client.query('SELECT 1 FROM pg_stat_activity WHERE application_name = $1', [name]),
      );
      if (found.rowCount) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`no session named ${name}`);
  }

  const countOf = (recordId: string) =>
    withPostgres(database.url, async (client) =>
      Number((await client.query('SELECT count(*) AS n FROM "Item" WHERE "recordId" = $1', [recordId])).rows[0]?.n),
    );

  it('a batch the server ends while it runs (a restart, a terminated backend) wrote nothing, and is sent again', async () => {
    const deps: ServiceDeps = { db: postgres, clock: new ManualClock(START + 20 * 3_600_000) };
    await addCategories(deps, who('admin'), ['ended']);
    const slow = await slowFirstInsert(60);
    try {
      const adding = addItem(deps, who('agent'), { batchId: 'ended', recordId: 'ended-1', proposedCategory: 'ended', reason: 'r' });
      await waitForSession('slow-batch');
      await withPostgres(database.url, (client) =>
        client.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'slow-batch'`),
      );
      // The server rolled the first one back (57P01): the second, on a new connection, wrote it once.
      expect((await adding).recordId).toBe('ended-1');
      expect(await slow.runs()).toBe(2);
      expect(await countOf('ended-1')).toBe(1);
    } finally {
      await slow.drop();
    }
  });

  it('a batch whose connection breaks without the server’s word is not sent again: DATABASE_UNAVAILABLE, its outcome unknown', async () => {
    const deps: ServiceDeps = { db: postgres, clock: new ManualClock(START + 21 * 3_600_000) };
    await addCategories(deps, who('admin'), ['broken']);
    const slow = await slowFirstInsert(1);
    const query = pg.Client.prototype.query;
    // The writer's socket is cut (as a network would) while the batch runs on the server.
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const config = args[0] as { text?: string };
      const result = (query as (...rest: unknown[]) => unknown).apply(this, args);
      if (config?.text === WRITE_BATCH)
        setTimeout(() => (this as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy(), 300);
      return result;
    } as typeof query;
    try {
      const error = await addItem(deps, who('agent'), {
        batchId: 'broken',
        recordId: 'broken-1',
        proposedCategory: 'broken',
        reason: 'r',
      }).then(
        () => null,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(DatabaseUnavailableError);
      expect((error as DatabaseUnavailableError).outcome).toBe('unknown');
    } finally {
      pg.Client.prototype.query = query;
    }
    try {
      // Sent once only: the server may well have committed it (it did not know the client was gone).
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(await slow.runs()).toBe(1);
      expect(await countOf('broken-1')).toBeLessThanOrEqual(1);
      // The next write goes through on a new connection.
      await addItem(deps, who('agent'), { batchId: 'broken', recordId: 'broken-2', proposedCategory: 'broken', reason: 'r' });
      expect(await countOf('broken-2')).toBe(1);
    } finally {
      await slow.drop();
    }
  });
});

describe('write calls (PostgreSQL, PG_WRITE_MODE=sharded) across instances', () => {
  let database: TestDatabase;
  let instances: Database[];
  beforeAll(async () => {
    database = await createPostgresDatabase();
    instances = await Promise.all([1, 2].map(() => openDatabase({ location: database.location, writeMode: 'sharded' })));
  });
  afterAll(async () => {
    await Promise.all(instances.map((db) => db.close()));
    await database.cleanup();
  });

  it('two batches that lock the same items in opposite orders deadlock; the operation PostgreSQL fails is sent again and goes through', async () => {
    const [one, two] = instances as [Database, Database];
    const clock = new ManualClock(START);
    const on = (db: Database): ServiceDeps => ({ db, clock });
    await addCategories(on(one), who('admin'), ['locks']);
    for (const recordId of ['a', 'b'])
      await addItem(on(one), who('agent'), { batchId: 'locks', recordId, proposedCategory: 'locks', reason: 'r' });
    const a = await claimItem(on(one), who('alice'), { batchId: 'locks' });
    const b = await claimItem(on(one), who('alice'), { batchId: 'locks' });
    // A renewal holds its item's row for 300 ms (a BEFORE UPDATE trigger takes the row lock, then sleeps), so
    // each instance's batch holds its first item while it asks for its second: the other instance's first.
    await withPostgres(database.url, async (client) => {
      await client.query(`CREATE FUNCTION slow_renewal() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW."leaseExpiresAt" > OLD."leaseExpiresAt" THEN PERFORM pg_sleep(0.3); END IF;
          RETURN NEW;
        END $$`);
      await client.query('CREATE TRIGGER slow_renewal BEFORE UPDATE ON "Item" FOR EACH ROW EXECUTE FUNCTION slow_renewal()');
    });
    // What each batch statement answered: the operation PostgreSQL chose to fail, and its second sending.
    const answers: BatchAnswer[] = [];
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const result = (query as (...rest: unknown[]) => unknown).apply(this, args);
      if ((args[0] as { text?: string })?.text === WRITE_BATCH_SHARDED)
        void (result as Promise<pg.QueryResult>).then(
          (answer) => answers.push(answer.rows[0]?.answer),
          () => {},
        );
      return result;
    } as typeof query;
    clock.advance(1_000);
    const renew = (db: Database, token: string) => renewLease(on(db), who('alice'), { token, leaseSeconds: 600 });
    try {
      // Each pair is one batch (group commit gathers what is submitted in the same turn).
      const renewed = await Promise.all([
        renew(one, a?.token as string),
        renew(one, b?.token as string),
        renew(two, b?.token as string),
        renew(two, a?.token as string),
      ]);
      expect(renewed.map((item) => item.recordId)).toEqual(['a', 'b', 'b', 'a']);
    } finally {
      pg.Client.prototype.query = query;
    }
    const failed = answers.flatMap((batch) => batch.answers.filter((answer) => answer.error));
    expect(failed.map((answer) => answer.error?.sqlstate)).toEqual(['40P01']);
    // The four renewals, and the one that failed sent again.
    expect(answers.reduce((sent, batch) => sent + batch.answers.length, 0)).toBe(5);
    const events = await one.query<{ n: bigint }>(`SELECT count(*) AS n FROM "Event" WHERE "type" = 'LEASE_RENEWED'`);
    expect(Number(events[0]?.n)).toBe(4);
  });

  it('a submission and a report of its target sent at once by two instances do not pass each other: the report waits for the submission, then makes its proposal STALE', async () => {
    const [one, two] = instances as [Database, Database];
    const clock = new ManualClock(START);
    // The submission's insert sleeps 500 ms once it has read the target's remembered state (none): a report
    // of the target sent meanwhile from the other instance must wait for it, then find the proposal and make
    // it STALE. Passing it, the report would find nothing to make STALE and the proposal commit PENDING
    // against a fingerprint the target no longer has.
    await withPostgres(database.url, async (client) => {
      await client.query(`CREATE FUNCTION slow_submission() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM set_config('application_name', 'slow-submission', true);
          PERFORM pg_sleep(0.5);
          RETURN NULL;
        END $$`);
      await client.query('CREATE TRIGGER slow_submission AFTER INSERT ON "Proposal" FOR EACH STATEMENT EXECUTE FUNCTION slow_submission()');
    });
    try {
      const submitted = submitProposal(
        { db: one, clock },
        who('agent'),
        proposalInput('race', { targetSystem: 'race', fingerprint: 'v1' }),
      );
      // The report goes out once the submission is inside its insert.
      for (let tries = 0; ; tries++) {
        const found = await withPostgres(database.url, (client) =>
          client.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = 'slow-submission'`),
        );
        if (found.rowCount) break;
        if (tries > 200) throw new Error('the submission never reached its insert');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const reported = await reportTargetState(
        { db: two, clock },
        { ...who('sync'), roles: new Set(['EXECUTOR'] as const) },
        { targetSystem: 'race', targetId: 'race', fingerprint: 'v2' },
      );
      const { proposal } = await submitted;
      // The report waited for the submission (the global lock both take in this mode) and made it STALE.
      expect(reported.map(({ id, state }) => ({ id, state }))).toEqual([{ id: proposal.id, state: 'STALE' }]);
      const [stored] = await one.query<{ state: string }>('SELECT "state" FROM "Proposal" WHERE "id" = ?', proposal.id);
      expect(stored?.state).toBe('STALE');
    } finally {
      await withPostgres(database.url, async (client) => {
        await client.query('DROP TRIGGER slow_submission ON "Proposal"');
        await client.query('DROP FUNCTION slow_submission()');
      });
    }
  });
});
