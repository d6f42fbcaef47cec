// API keys for the servers under benchmark: made in the database file through the real key service
// (as an administrator would) before the server starts, so no server prints a first-run key and every
// principal is known up front. Every request and WebSocket connection of the bench carries one.
import type { DatabaseLocation } from '../src/config/database-location.js';
import { openDatabase } from '../src/db/client.js';
import type { Role } from '../src/domain/access.js';
import { systemClock } from '../src/domain/clock.js';
import { createApiKey } from '../src/services/api-keys.js';

/** A principal of the bench with its own API key. */
export interface BenchKey {
  name: string;
  /** `Authorization: Bearer <key>`, also sent as graphql-ws connectionParams. */
  authorization: string;
}

/** Keys made at once; more would only wait for the one writer. */
const PARALLEL = 100;

/**
 * One key per principal, in `where` (a SQLite file, or a database location; created and migrated if
 * new); returned in the order asked for.
 */
export async function makeKeys(
  where: string | DatabaseLocation,
  principals: readonly { name: string; roles: Role[] }[],
): Promise<BenchKey[]> {
  const location: DatabaseLocation = typeof where === 'string' ? { dialect: 'sqlite', file: where } : where;
  const db = await openDatabase({ location, synchronous: 'NORMAL' });
  try {
    const keys: BenchKey[] = [];
    for (let first = 0; first < principals.length; first += PARALLEL) {
      const made = await Promise.all(
        principals.slice(first, first + PARALLEL).map(async ({ name, roles }) => {
          const { key } = await createApiKey(
            { db, clock: systemClock },
            { name: 'bench-setup', authenticated: false },
            { name, roles, samePrincipal: true },
          );
          return { name, authorization: `Bearer ${key}` };
        }),
      );
      keys.push(...made);
    }
    return keys;
  } finally {
    await db.close();
  }
}

/** `count` principals named `${prefix}-0`, `${prefix}-1`, … with `roles`. */
export function principals(prefix: string, count: number, roles: Role[]): { name: string; roles: Role[] }[] {
  return Array.from({ length: count }, (_, index) => ({ name: `${prefix}-${index}`, roles }));
}

/** Picks the keys named in `names` out of `keys` (a name must be there). */
export function keysNamed(keys: readonly BenchKey[], names: readonly string[]): BenchKey[] {
  const byName = new Map(keys.map((key) => [key.name, key]));
  return names.map((name) => {
    const key = byName.get(name);
    if (!key) throw new Error(`no bench key for ${name}`);
    return key;
  });
}
