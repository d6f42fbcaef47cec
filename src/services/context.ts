// What every use case needs: the database, the clock, and who is acting.
import type { Database } from '../db/client.js';
import type { Clock } from '../domain/clock.js';

export interface ServiceDeps {
  db: Database;
  clock: Clock;
}

/** Who performs an operation. For now the name a caller gives (as in seed A); see docs/architecture.md. */
export interface Actor {
  name: string;
}
