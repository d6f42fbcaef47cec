// Group commit: write jobs that arrive while a transaction is running are queued and then run
// together in the next interactive transaction, each inside its own SAVEPOINT, and committed with
// one COMMIT (one fsync). A job is acknowledged only after that COMMIT succeeds; a job that throws
// is rolled back to its savepoint alone and the others still commit.
import type { TxSql } from './tx-sql.js';

export interface Job<Tx, T> {
  work: (tx: Tx, sql: TxSql) => Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Runs one batch: `transaction` opens the interactive transaction and gives the batch its
 * statement handle; every job runs in turn between SAVEPOINT and RELEASE.
 */
export type BatchRunner<Tx> = (runJobs: (tx: Tx, sql: TxSql) => Promise<Outcome[]>) => Promise<Outcome[]>;

export class GroupCommit<Tx> {
  private queue: Job<Tx, unknown>[] = [];
  private running = false;

  constructor(
    private readonly runBatch: BatchRunner<Tx>,
    private readonly maxBatch = 64,
    /** Called after every successful COMMIT, before the batch's writes are acknowledged. */
    private readonly afterCommit: () => void = () => {},
  ) {}

  submit<T>(work: (tx: Tx, sql: TxSql) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve, reject } as Job<Tx, unknown>);
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      // Let writes that arrive in this turn of the event loop (requests already read) join the batch.
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        let outcomes: Outcome[];
        try {
          outcomes = await this.runBatch((tx, sql) => runJobs(batch, tx, sql));
        } catch (error) {
          // BEGIN or COMMIT failed: nothing of this batch was committed.
          for (const job of batch) job.reject(error);
          continue;
        }
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
}

async function runJobs<Tx>(batch: Job<Tx, unknown>[], tx: Tx, sql: TxSql): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const job of batch) {
    await sql.run('SAVEPOINT write_job');
    try {
      const value = await job.work(tx, sql);
      await sql.run('RELEASE write_job');
      outcomes.push({ ok: true, value });
    } catch (error) {
      await sql.run('ROLLBACK TO write_job');
      await sql.run('RELEASE write_job');
      outcomes.push({ ok: false, error });
    }
  }
  return outcomes;
}
