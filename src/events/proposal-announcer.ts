// Announces proposal deadlines when they pass: one timer, armed for the next moment
// recordProposalDeadlines has work (a deadline, an approval's validity, a review or execution lease),
// re-armed whenever proposal events arrive. Recording is exactly once across processes (the service
// moves each proposal with a compare-and-set inside the write lock), so several servers on one file
// may all run this.

import type { Event } from '../db/client.js';
import type { Timer } from '../domain/clock.js';
import type { Logger } from '../logger.js';
import { nextProposalDeadline, type ProposalDeps, recordProposalDeadlines } from '../services/proposals/index.js';

/**
 * Proposals changed per write transaction. Each batch holds the write lock: on PostgreSQL (one statement) 200
 * expiries held it 70–127 ms and 50 held it 28–43 ms (bench/proposal-sweep.ts, BENCHMARKS.md), time every other
 * write waits; going round costs a transaction per 50.
 */
const BATCH = 50;
/** After a failure, or when the database says something is due that the service will not record. */
const RETRY_MS = 1_000;

/** Events that can move the next proposal deadline (submissions, claims, approvals, executions …). */
export function isProposalEvent(event: Pick<Event, 'type' | 'proposalId'>): boolean {
  return event.proposalId !== null || event.type.startsWith('PROPOSAL_') || event.type.startsWith('EXECUTION_');
}

export class ProposalAnnouncer {
  private timer: Timer | null = null;
  private armedFor: number | null = null;
  /** The running pass (look up the next deadline, record what is due, arm the timer), if any. */
  private pass: Promise<void> | null = null;
  /** Set when something asked for a pass while one was running: the next deadline may have moved. */
  private again = false;
  private stopped = true;

  constructor(
    private readonly deps: ProposalDeps,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    // Deadlines that passed while no server was running are recorded now.
    this.request();
  }

  stop(): void {
    this.stopped = true;
    this.disarm();
  }

  /** Feed listener: any proposal change may move the next deadline. */
  onEvents = (events: readonly Event[]): void => {
    if (events.some(isProposalEvent)) this.request();
  };

  /** Resolves once no pass is running: everything the clock has passed is recorded and the timer armed (for tests and shutdown). */
  async settled(): Promise<void> {
    while (this.pass) await this.pass;
  }

  /**
   * Passes never overlap: the next deadline is read from the database (asynchronously), and two
   * passes racing could arm the timer from an older reading after a newer one.
   */
  private request(): void {
    if (this.stopped) return;
    if (this.pass) {
      this.again = true;
      return;
    }
    this.pass = this.run().finally(() => {
      this.pass = null;
    });
  }

  private async run(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.recordAndArm();
      } catch (error) {
        if (this.stopped) return;
        this.logger.error({ err: error }, 'could not record proposal deadlines; retrying at the next change or in 1 s');
        this.armAt(this.deps.clock.now().getTime() + RETRY_MS);
      }
    } while (this.again && !this.stopped);
  }

  /** Records everything already due, then arms the timer for the next deadline (or none). */
  private async recordAndArm(): Promise<void> {
    while (!this.stopped) {
      const next = await nextProposalDeadline(this.deps);
      if (this.stopped) return;
      if (next === null) {
        this.disarm();
        return;
      }
      const now = this.deps.clock.now().getTime();
      if (next.getTime() > now) {
        this.armAt(next.getTime());
        return;
      }
      // One batch at a time; many may fall due at once, and going round reads what a batch left behind.
      if ((await recordProposalDeadlines(this.deps, BATCH)) === 0) {
        // Due by the database yet nothing to record (another process got there between our read and
        // our write, in which case its commit re-arms us, or the two queries disagree): never spin.
        this.armAt(now + RETRY_MS);
        return;
      }
    }
  }

  private armAt(at: number): void {
    if (this.stopped || (this.timer && this.armedFor === at)) return;
    this.timer?.cancel();
    this.armedFor = at;
    this.timer = this.deps.clock.setTimer(new Date(at), () => {
      this.timer = null;
      this.armedFor = null;
      this.request();
    });
  }

  private disarm(): void {
    this.timer?.cancel();
    this.timer = null;
    this.armedFor = null;
  }
}
