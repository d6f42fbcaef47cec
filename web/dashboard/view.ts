// What the parts of one signed-in view (counts, chart, items table, event feed) share: the API, the server's
// clock, the filters, the view's life, and one place to report what went wrong. Session provides it.
import type { Api } from '../shared/api.js';
import type { ServerClock } from '../shared/server-clock.js';
import type { Filters } from './filters.js';

export interface View {
  readonly api: Api;
  readonly clock: ServerClock;
  readonly filters: Filters;
  /** Bumped when the filters change: answers to older requests are dropped. */
  readonly generation: number;
  /** The view was stopped (signed out, key refused): late answers and timers show nothing. */
  readonly stopped: boolean;
  /** Reports a refused key (once, and stops); other failures are shown and left to the next reconnection. */
  guard(work: Promise<void>): Promise<void>;
  /** Shows a problem above the panels; null clears it. */
  problem(message: string | null): void;
  /** The newest event's sequence (0 when there is none): where live streams begin. */
  latestSequence(): Promise<number>;
}
