// What every use case needs: the database, the clock, and who is acting.
import type { Database } from '../db/client.js';
import type { Clock } from '../domain/clock.js';

export interface ServiceDeps {
  db: Database;
  clock: Clock;
}

/**
 * Who performs an operation: the authenticated principal over GraphQL, or the `--reviewer` given to
 * the local command line (as in seed A) and 'system' for the server's own work.
 */
export interface Actor {
  name: string;
  /**
   * True for an authenticated principal. Identity rules that need proof of who is acting (only the
   * holder may use a lease; no review of one's own proposal) apply to authenticated actors only.
   */
  authenticated: boolean;
}
