// Group commit: write jobs that arrive while a transaction is running are queued and then run
// together in the next interactive transaction, each inside its own SAVEPOINT, and committed with
// one COMMIT (one fsync). A job is acknowledged only after that COMMIT succeeds; a job that throws
// is rolled back to its savepoint alone and the others still commit. A backend that can run some
// jobs as calls of its own (PostgreSQL: write-calls.ts) gets runs of such jobs as one batch of calls,
// in the same queue order.

import { isDeadlock } from './sharded.js';
import type { TxSql } from './tx-sql.js';

export interface Job<Tx, T> {
  work: (tx: Tx, sql: TxSql) => Promise<T>;
  /** Set for a job the backend runs as a call (see CallRunner): `work` is then not run. */
  call?: unknown;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
  /** performance.now() when the job was submitted: its wait for the write lock counts from here. */
  submittedAt: number;
}

export type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Runs a batch of calls as one transaction of the backend's own (one statement: see write-calls.ts)
 * and answers each call's outcome, in order. Throws when nothing of the batch was committed, or when
 * that is unknown (as BatchRunner).
 */
export type CallRunner = (calls: unknown[]) => Promise<Outcome[]>;

/**
 * Runs one batch: `transaction` opens the interactive transaction and gives the batch its
 * statement handle; every job runs in turn between SAVEPOINT and RELEASE.
 */
export type BatchRunner<Tx> = (runJobs: (tx: Tx, sql: TxSql) => Promise<Outcome[]>) => Promise<Outcome[]>;

/**
 * How a batch waits for a write lock held by another process, when the backend reports that at once
 * instead of waiting itself (SQLite: see write-lock.ts).
 */
export interface LockWait {
  /** True for an error meaning the lock was held: the batch is rolled back whole and tried again. */
  isBusy(error: unknown): boolean;
  /** The longest a job waits for the lock, counted from its submission. */
  totalMs: number;
  /** The pause after the `attempt`-th failed attempt in a row (1, 2, …). */
  delayMs(attempt: number): number;
  /** What a job that waited `totalMs` in vain is rejected with. */
  gaveUp(waitedMs: number): Error;
}

export class GroupCommit<Tx> {
  private queue: Job<Tx, unknown>[] = [];
  private running = false;

  constructor(
    private readonly runBatch: BatchRunner<Tx>,
    private readonly maxBatch = 64,
    /** Called after every successful COMMIT, before the batch's writes are acknowledged. */
    private readonly afterCommit: () => void = () => {},
    private readonly lockWait: LockWait | null = null,
    private readonly runCalls: CallRunner | null = null,
  ) {}

  submit<T>(work: (tx: Tx, sql: TxSql) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve, reject, submittedAt: performance.now() } as Job<Tx, unknown>);
      if (!this.running) void this.drain();
    });
  }

  /** Queues a call for the backend's CallRunner (which must be set); resolves with its answer once committed. */
  submitCall(call: unknown): Promise<unknown> {
    if (!this.runCalls) throw new Error('This backend runs no calls.');
    return new Promise<unknown>((resolve, reject) => {
      const work = () => Promise.reject(new Error('A call is not run as a transaction job.'));
      this.queue.push({ work, call, resolve, reject, submittedAt: performance.now() });
      if (!this.running) void this.drain();
    });
  }

  /** The next batch: up to maxBatch jobs from the head of the queue, all calls or all transaction jobs. */
  private takeBatch(): Job<Tx, unknown>[] {
    const calls = this.queue[0]?.call !== undefined;
    let size = 0;
    while (size < this.queue.length && size < this.maxBatch && ((this.queue[size] as Job<Tx, unknown>).call !== undefined) === calls)
      size++;
    return this.queue.splice(0, size);
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      // Let writes that arrive in this turn of the event loop (requests already read) join the batch.
      await new Promise<void>((resolve) => setImmediate(resolve));
      let busyAttempts = 0;
      while (this.queue.length > 0) {
        const batch = this.takeBatch();
        let outcomes: Outcome[];
        try {
          outcomes =
            batch[0]?.call !== undefined && this.runCalls
              ? await this.runCalls(batch.map((job) => job.call))
              : await this.runBatch((tx, sql) => runJobs(batch, tx, sql, this.lockWait));
        } catch (error) {
          if (this.lockWait?.isBusy(error)) {
            busyAttempts += 1;
            await this.waitForLock(batch, this.lockWait, busyAttempts);
            continue;
          }
          // BEGIN or COMMIT failed: nothing of this batch was committed.
          for (const job of batch) job.reject(error);
          continue;
        }
        busyAttempts = 0;
        this.afterCommit();
        batch.forEach((job, index) => {
          const outcome = outcomes[index];
          if (outcome?.ok) job.resolve(outcome.value);
          else job.reject(outcome ? outcome.error : new Error('write job produced no outcome'));
        });
      }
    } finally {
      this.running = false;
    }
  }

  /**
   * Another process held the write lock, so nothing of `batch` was kept. Its jobs go back to the head
   * of the queue (jobs that have waited `totalMs` are refused) and the next attempt comes after a pause
   * spent off the event loop, never later than the oldest job's last chance.
   */
  private async waitForLock(batch: Job<Tx, unknown>[], lockWait: LockWait, attempt: number): Promise<void> {
    this.queue.unshift(...batch);
    const now = performance.now();
    // The queue is in submission order, so the jobs out of time are at its head.
    let outOfTime = 0;
    while (outOfTime < this.queue.length && now - (this.queue[outOfTime] as Job<Tx, unknown>).submittedAt >= lockWait.totalMs) outOfTime++;
    for (const job of this.queue.splice(0, outOfTime)) job.reject(lockWait.gaveUp(now - job.submittedAt));
    const oldest = this.queue[0];
    if (!oldest) return;
    const lastChance = oldest.submittedAt + lockWait.totalMs - now;
    const pause = Math.min(lockWait.delayMs(attempt), lastChance);
    await new Promise<void>((resolve) => setTimeout(resolve, pause));
  }
}

/**
 * How often a job that lost a deadlock is run, in all. On PostgreSQL in PG_WRITE_MODE=sharded the write
 * calls take row locks without the global lock, so an interactive transaction can meet one in the other
 * order; PostgreSQL then fails a statement of one of them (40P01). Rolled back to its savepoint, the job
 * has left nothing, and run again it finds the rows free.
 */
export const DEADLOCK_ATTEMPTS = 3;

async function runJobs<Tx>(batch: Job<Tx, unknown>[], tx: Tx, sql: TxSql, lockWait: LockWait | null): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const job of batch) {
    for (let attempt = 1; ; attempt++) {
      await sql.run('SAVEPOINT write_job');
      try {
        const value = await job.work(tx, sql);
        await sql.run('RELEASE write_job');
        outcomes.push({ ok: true, value });
        break;
      } catch (error) {
        // The lock lost midway is no fault of this job: the whole batch is rolled back and tried again.
        if (lockWait?.isBusy(error)) throw error;
        await sql.run('ROLLBACK TO write_job');
        await sql.run('RELEASE write_job');
        if (attempt < DEADLOCK_ATTEMPTS && isDeadlock(error)) continue;
        outcomes.push({ ok: false, error });
        break;
      }
    }
  }
  return outcomes;
}
