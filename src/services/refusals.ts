// Refused attempts at changes, recorded in the history with the principal who made them, in a bounded
// number of rows: past a principal's allowance in a window, refusals are counted and written as summaries.
import { appendEvent } from '../db/event-store.js';
import type { Timer } from '../domain/clock.js';
import type { DomainError } from '../domain/errors.js';
import type { EventDetails } from '../domain/events.js';
import type { Logger } from '../logger.js';
import type { Actor, ServiceDeps } from './context.js';

export interface RefusalWindowSettings {
  /** How long a principal's window lasts, from its first refusal. */
  windowMs: number;
  /** Refusals a window records one row each, at once. */
  individual: number;
  /** (operation, code) pairs past those that get a summary of their own; the rest share one. */
  pairs: number;
}

/**
 * At most 20 + 5 + 1 = 26 rows per principal per window of a minute, in each process; windows never overlap,
 * so never more than 46 (a window's last 20, its 6 summaries, the next one's first 20) in any 60 seconds.
 */
export const REFUSAL_WINDOW: RefusalWindowSettings = { windowMs: 60_000, individual: 20, pairs: 5 };

interface Tally {
  operation: string;
  code: string;
  /** The first counted refusal's, standing for them all. */
  field: string | null;
  message: string;
  count: number;
}

interface Window {
  start: Date;
  end: Date;
  /** Rows written one per refusal so far. */
  individual: number;
  tallies: Map<string, Tally>;
  /** Refusals of pairs past the first `pairs`, with their operations and codes. */
  others: { count: number; operations: Set<string>; codes: Set<string> };
  timer: Timer;
}

/**
 * Each principal's refusals in this process, in windows. A window's first `individual` refusals are
 * written at once, one row each, as every refusal used to be. Later ones are counted per (operation, code)
 * and written when the window closes (or the server stops), one row per pair with `count`, `windowStart`
 * and `windowEnd` in its details. Summing `count` (1 when absent) over OPERATION_REFUSED rows gives the
 * number of refusals. Without settings, every refusal is its own row.
 */
export class RefusalLog {
  private readonly windows = new Map<string, Window>();
  private readonly summaries = new Set<Promise<void>>();

  constructor(
    private readonly deps: ServiceDeps & { logger: Logger },
    private readonly settings: RefusalWindowSettings | null = REFUSAL_WINDOW,
  ) {}

  /**
   * Records that `actor` attempted `operation` and was refused with `error`. Resolves once its row is
   * committed, or at once when it is only counted. Its own transaction: the attempt's was rolled back.
   */
  record(actor: Actor, operation: string, error: DomainError): Promise<void> {
    const refusal = { operation, code: error.code, field: error.field, message: error.message };
    if (!this.settings) return this.write(actor.name, [refusal]);
    const window = this.windowOf(actor.name, this.settings);
    if (window.individual < this.settings.individual) {
      window.individual++;
      return this.write(actor.name, [refusal]);
    }
    const pair = `${operation}\u0000${error.code}`;
    const tally = window.tallies.get(pair);
    if (tally) tally.count++;
    else if (window.tallies.size < this.settings.pairs) window.tallies.set(pair, { ...refusal, count: 1 });
    else {
      window.others.count++;
      window.others.operations.add(operation);
      window.others.codes.add(error.code);
    }
    return Promise.resolve();
  }

  /** Writes every open window's counts now, and waits for the summaries being written; for a graceful stop. */
  async flush(): Promise<void> {
    for (const [principal, window] of this.windows) this.close(principal, window);
    await Promise.all(this.summaries);
  }

  private windowOf(principal: string, settings: RefusalWindowSettings): Window {
    const now = this.deps.clock.now();
    const open = this.windows.get(principal);
    // A timer may fire late; a refusal after the end belongs to the next window either way.
    if (open && now < open.end) return open;
    if (open) this.close(principal, open);
    const end = new Date(now.getTime() + settings.windowMs);
    const window: Window = {
      start: now,
      end,
      individual: 0,
      tallies: new Map(),
      others: { count: 0, operations: new Set(), codes: new Set() },
      timer: this.deps.clock.setTimer(end, () => this.close(principal, window)),
    };
    this.windows.set(principal, window);
    return window;
  }

  private close(principal: string, window: Window): void {
    if (this.windows.get(principal) !== window) return;
    this.windows.delete(principal);
    window.timer.cancel();
    const end = Math.min(this.deps.clock.now().getTime(), window.end.getTime());
    const span = { windowStart: window.start.toISOString(), windowEnd: new Date(end).toISOString() };
    const rows: EventDetails[] = [...window.tallies.values()].map((tally) => ({ ...tally, ...span }));
    const { count, operations, codes } = window.others;
    if (count > 0) {
      rows.push({
        operation: null,
        code: null,
        field: null,
        message: 'Refusals of further operations or codes in this window, counted together.',
        operations: [...operations].sort().join(', '),
        codes: [...codes].sort().join(', '),
        count,
        ...span,
      });
    }
    if (rows.length === 0) return;
    const written = this.write(principal, rows)
      .catch((failure: unknown) => this.deps.logger.error({ err: failure, principal }, 'could not record counted refusals'))
      .finally(() => this.summaries.delete(written));
    this.summaries.add(written);
  }

  private write(principal: string, refusals: EventDetails[]): Promise<void> {
    return this.deps.db.perform({
      work: async (_tx, sql) => {
        for (const details of refusals) {
          await appendEvent(sql, { type: 'OPERATION_REFUSED', actor: principal, at: this.deps.clock.now(), details });
        }
      },
      // PostgreSQL: one statement under the write lock (leasehold_record_refusals), not an interactive transaction.
      call: {
        fields: { op: 'recordRefusals', actor: principal, details: refusals.map((details) => JSON.stringify(details)) },
        clock: this.deps.clock,
        answer: () => undefined,
      },
    });
  }
}
