// Bulk intake, both backends side by side in one run (issue 18): items per second added with
// `addItems`, 500 items per call over HTTP as an agent sends them, each item with its ITEM_ADDED
// event, on a fresh database of each backend with one server; by one client (calls one after another)
// and by several at once; and `leasehold import` of a JSON Lines file (its own process, chunks of 500, as
// an operator runs it) into a fresh database of each. The stored items and events are counted afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DatabaseLocation } from '../src/config/database-location.js';
import { openDatabase } from '../src/db/client.js';
import type { Role } from '../src/domain/access.js';
import { systemClock } from '../src/domain/clock.js';
import { addCategories } from '../src/services/categories.js';
import { makeKeys, principals } from './keys.js';
import { runImport, writeImportFile } from './live-scale-import.js';
import { seedCategories, seedItems } from './load.js';
import { startServer } from './server.js';

type Backend = DatabaseLocation['dialect'];

/** A fresh database to add to (postgres.ts's Store is one). */
export interface IntakeStore {
  location: DatabaseLocation;
  server: { databaseFile: string } | { databaseUrl: string };
  /** A single number from a read-only SQL query written for both backends. */
  count(sql: string): Promise<number>;
}

export interface IntakeMeasurement {
  backend: Backend;
  clients: number;
  items: number;
  seconds: number;
  itemsPerSecond: number;
  /** Counted in the database afterwards (less the warm-up's): every item and its ITEM_ADDED event. */
  stored: { items: number; events: number };
  serverLogLines: string[];
}

const CATEGORY = 'bench-intake';
/**
 * Items each client adds before the measured part (ten calls): the first calls of a fresh process run 1.5–2
 * times slower, and with one call of warm-up the measured part still included some of them.
 */
const WARM_UP_ITEMS = 5_000;

/** Adds `items` items (500 per call) through one fresh server on `store`, shared by `clients` clients. */
export async function measureIntake(store: IntakeStore, backend: Backend, items: number, clients: number): Promise<IntakeMeasurement> {
  const [admin, ...proposers] = await makeKeys(store.location, [
    { name: 'intake-admin', roles: ['ADMIN'] as Role[] },
    ...principals('intake-proposer', clients, ['PROPOSER']),
  ]);
  if (!admin) throw new Error('no admin key was made');
  const server = await startServer({ ...store.server, synchronous: 'NORMAL' });
  try {
    await seedCategories(server.port, admin, [CATEGORY]);
    // Warm-up, as every other cell has: WARM_UP_ITEMS per client, so the timed part measures a server whose
    // code paths are compiled.
    await Promise.all(
      proposers.map((proposer, index) =>
        seedItems(server.port, proposer, { added: 0, category: CATEGORY }, WARM_UP_ITEMS, `warm-${index}`),
      ),
    );
    const share = Math.ceil(items / clients);
    const started = performance.now();
    await Promise.all(
      proposers.map((proposer, index) => seedItems(server.port, proposer, { added: 0, category: CATEGORY }, share, `intake-${index}`)),
    );
    const seconds = (performance.now() - started) / 1000;
    const added = share * clients;
    const warmedUp = WARM_UP_ITEMS * clients;
    return {
      backend,
      clients,
      items: added,
      seconds,
      itemsPerSecond: added / seconds,
      stored: {
        items: (await store.count('SELECT count(*) FROM "Item"')) - warmedUp,
        events: (await store.count(`SELECT count(*) FROM "Event" WHERE "type" = 'ITEM_ADDED'`)) - warmedUp,
      },
      serverLogLines: server.logs,
    };
  } finally {
    await server.stop();
  }
}

export interface ImportMeasurement {
  backend: Backend;
  items: number;
  /** From spawning `leasehold import` to its exit: the process's start and its migration check included. */
  seconds: number;
  itemsPerSecond: number;
  stored: { items: number; events: number };
  /** Its exit code and the end of what it printed (its summary, or its error). */
  code: number | null;
  output: string;
  /**
   * A second import of IMPORT_PROBE_ITEMS (one chunk) into the same database, timed the same way: almost all of it
   * is the process's start (Node, the modules, the migration check). `afterStartItemsPerSecond` is the rate past
   * that: (items − probe items) ÷ (seconds − probe seconds).
   */
  probeSeconds: number;
  afterStartItemsPerSecond: number;
}

const IMPORT_PROBE_ITEMS = 500;

/** `leasehold import` of `items` items (chunks of 500, the default) into `store`, a fresh database with the category. */
export async function measureImport(store: IntakeStore, backend: Backend, items: number): Promise<ImportMeasurement> {
  const db = await openDatabase({ location: store.location, synchronous: 'NORMAL' });
  try {
    await addCategories({ db, clock: systemClock }, { name: 'bench-setup', authenticated: false }, [CATEGORY]);
  } finally {
    await db.close();
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'leasehold-import-'));
  try {
    const file = path.join(dir, 'items.jsonl');
    await writeImportFile(file, items, CATEGORY, 'import');
    const target = 'databaseFile' in store.server ? store.server.databaseFile : store.server.databaseUrl;
    const run = await runImport(target, file, 'NORMAL');
    const stored = {
      items: await store.count('SELECT count(*) FROM "Item"'),
      events: await store.count(`SELECT count(*) FROM "Event" WHERE "type" = 'ITEM_ADDED'`),
    };
    const probeFile = path.join(dir, 'probe.jsonl');
    await writeImportFile(probeFile, IMPORT_PROBE_ITEMS, CATEGORY, 'probe');
    const probe = await runImport(target, probeFile, 'NORMAL');
    if (probe.code !== 0) throw new Error(`the start-up probe import failed: ${probe.output.slice(-300)}`);
    return {
      backend,
      items,
      seconds: run.seconds,
      itemsPerSecond: items / run.seconds,
      stored,
      code: run.code,
      output: run.output,
      probeSeconds: probe.seconds,
      afterStartItemsPerSecond: (items - IMPORT_PROBE_ITEMS) / (run.seconds - probe.seconds),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
