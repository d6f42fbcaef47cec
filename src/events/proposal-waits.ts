// How long decided proposals waited for their review decision, kept sorted in memory so the wait
// quantiles of proposalStats cost O(1) per call: loaded once at start, then folded from the event feed
// (a decision by any process or instance arrives there), never recomputed from the history per call.

import type { Event } from '../db/client.js';
import type { Logger } from '../logger.js';
import type { ServiceDeps } from '../services/context.js';
import { DECISION_EVENTS, decidedWaits, type ProposalWaitTimes, type WaitTimesSource, waitQuantiles } from '../services/proposal-stats.js';

const DECISIONS: ReadonlySet<string> = new Set(DECISION_EVENTS);

export class ProposalWaits implements WaitTimesSource {
  /** Waits in milliseconds, ascending. */
  private sorted: number[] = [];
  /** The loading and the batches not yet folded in, in feed order; reads wait for it. */
  private work: Promise<void> = Promise.resolve();
  /** Set when a batch could not be folded in: the next read or batch recounts instead (exact again from there). */
  private broken = false;
  /** The last event delivered to `onEvents` (or the start position). */
  private delivered = 0;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly logger: Logger,
  ) {}

  /**
   * Loads every decision up to `sequence`, the feed's position when it starts: later ones are
   * delivered to `onEvents`, so each decision is counted once.
   */
  start(sequence: number): void {
    this.delivered = sequence;
    this.enqueue(sequence, () => this.reload(sequence));
  }

  /** Feed observer: `through` is the page's last sequence number, whatever the page held. */
  onEvents = (events: readonly Event[], through: number): void => {
    const decided = events.filter((event) => DECISIONS.has(event.type) && event.proposalId !== null);
    this.delivered = through;
    if (decided.length === 0 && !this.broken) return;
    this.enqueue(through, async () => {
      if (this.broken) return this.reload(through);
      const ids = [...new Set(decided.map((event) => event.proposalId as number))];
      const rows = await this.deps.db.query<{ id: number | bigint; createdAt: number | bigint | Date }>(
        `SELECT "id" AS id, "createdAt" AS "createdAt" FROM "Proposal" WHERE "id" IN (${ids.map(() => '?').join(', ')})`,
        ...ids,
      );
      // Times come back as Dates (PostgreSQL) or epoch milliseconds (SQLite).
      const createdAt = new Map(
        rows.map((row) => [Number(row.id), row.createdAt instanceof Date ? row.createdAt.getTime() : Number(row.createdAt)]),
      );
      for (const event of decided) {
        const submitted = createdAt.get(event.proposalId as number);
        if (submitted === undefined) throw new Error(`Proposal ${event.proposalId} of event ${event.id} was not found.`);
        this.insert(event.occurredAt.getTime() - submitted);
      }
    });
  };

  /** The quantiles as of every batch the feed has delivered so far. */
  async waitTimes(): Promise<ProposalWaitTimes> {
    await this.work;
    if (this.broken) {
      const through = this.delivered;
      this.enqueue(through, () => this.reload(through));
      await this.work;
      if (this.broken) throw new Error('The proposal wait times could not be recounted.');
    }
    return waitQuantiles(this.sorted);
  }

  /** Resolves once everything delivered so far is folded in (before the database closes). */
  settled(): Promise<void> {
    return this.work;
  }

  private async reload(through: number): Promise<void> {
    this.sorted = await decidedWaits(this.deps, through);
    this.broken = false;
  }

  private enqueue(through: number, task: () => Promise<void>): void {
    this.work = this.work.then(task).catch((error: unknown) => {
      this.broken = true;
      this.logger.error({ err: error, sequence: through }, 'proposal wait times could not be updated; recounting with the next batch');
    });
  }

  /** Binary search for the first greater wait, then insert there (a memmove of the tail). */
  private insert(wait: number): void {
    let low = 0;
    let high = this.sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.sorted[middle] as number) <= wait) low = middle + 1;
      else high = middle;
    }
    this.sorted.splice(low, 0, wait);
  }
}
