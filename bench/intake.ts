// Bulk intake, both backends side by side in one run (issue 18): items per second added with
// `addItems`, 500 items per call over HTTP as an agent sends them, each item with its ITEM_ADDED
// event, on a fresh database of each backend with one server; by one client (calls one after another)
// and by several at once. The stored items and events are counted afterwards.
import type { DatabaseLocation } from '../src/config/database-location.js';
import type { Role } from '../src/domain/access.js';
import { makeKeys, principals } from './keys.js';
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
