// PostgreSQL's write calls (write-calls.ts) sent as one statement per group-commit batch, and the lock
// holds both backends report (Database.onLockHeld). Apart from client.ts, which opens the connections.
import type pg from 'pg';
import type { Clock } from '../domain/clock.js';
import type { CallRunner, Outcome } from './group-commit.js';
import { DatabaseUnavailableError, isConnectionFailure } from './unavailable.js';
import { answered, type BatchAnswer, stampCall, WRITE_BATCH, WRITE_BATCH_SHARDED, type WriteCall } from './write-calls.js';

/** How a write transaction held the write lock: a batch of calls in one statement, or an interactive transaction. */
export type LockHoldForm = 'statement' | 'transaction';

/**
 * PostgreSQL: runs a batch of calls as one statement on the writer connection (taken from its pool, so
 * never while Prisma's transaction holds it), in a transaction of its own: the statement commits when
 * it ends. What a lost connection means for the batch:
 * - the statement was never sent (no connection could be had, or the one in the pool had died): nothing
 *   was written, and GroupCommit tries the batch again (see unavailable.ts);
 * - the server ended the statement itself (SQLSTATE 57P01–57P03: a shutdown, a restart, a terminated
 *   backend), answering with that error: it rolls the running transaction back, and it commits only after
 *   the statement has run, holding interrupts, so nothing was written; tried again too;
 * - the connection broke without the server's word: the batch may have committed, so it is answered
 *   DatabaseUnavailableError('unknown') and never sent again.
 */
export function postgresCalls(
  writerPool: pg.Pool,
  lockedListeners: ReadonlySet<(lastEventAt: Date | null) => void>,
  holds: LockHolds,
  sharded: boolean,
): CallRunner {
  const statement = sharded
    ? { name: 'leasehold_write_sharded', text: WRITE_BATCH_SHARDED }
    : { name: 'leasehold_write', text: WRITE_BATCH };
  return async (calls) => {
    const connection = await writerPool.connect();
    let failed: unknown = null;
    let sent = false;
    // A socket that breaks mid-statement fails the query and is also emitted on the connection, which the
    // pool listens to only while the connection is idle: unheard, it would end the process.
    const broken = (error: unknown) => {
      failed ??= error;
    };
    connection.on('error', broken);
    try {
      const text = JSON.stringify((calls as StampableCall[]).map(({ fields, clock }) => stampCall(fields, clock)));
      const sentAt = performance.now();
      sent = true;
      const result = await connection.query<{ answer: BatchAnswer }>({ ...statement, values: [text] });
      const batch = result.rows[0]?.answer;
      if (!batch || batch.answers.length !== calls.length) throw new Error('leasehold_write answered no outcome for some of its calls.');
      const heldMs = performance.now() - sentAt - batch.lockWaitMs;
      holds.record(Math.max(0, heldMs) / 1000, 'statement', calls.length);
      const lastEventAt = batch.lastEventAt === null ? null : new Date(batch.lastEventAt);
      for (const listener of lockedListeners) listener(lastEventAt);
      return batch.answers.map((answer): Outcome => {
        try {
          return { ok: true, value: answered(answer) };
        } catch (error) {
          return { ok: false, error };
        }
      });
    } catch (error) {
      failed = error;
      if (sent && isConnectionFailure(error) && !endedByServer(error) && !neverSent(error)) {
        throw new DatabaseUnavailableError('unknown', 0, { cause: error });
      }
      throw error;
    } finally {
      connection.off('error', broken);
      // A connection that failed is not handed out again.
      connection.release(failed !== null && isConnectionFailure(failed) ? (failed as Error) : undefined);
    }
  };
}

/** The server's own answer that it ended the session while the statement ran (pg's DatabaseError carries `severity`). */
function endedByServer(error: unknown): boolean {
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  return typeof severity === 'string' && typeof code === 'string' && /^57P0[123]$/.test(code);
}

/** pg refuses a query on a connection that had already failed without sending it. */
function neverSent(error: unknown): boolean {
  return error instanceof Error && /is not queryable/.test(error.message);
}

/** A call as the group-commit queue keeps it: stamped with its clock's time only as its batch is sent. */
export interface StampableCall {
  fields: WriteCall;
  clock: Clock;
}

/** Lock holds, told to onLockHeld's listeners. */
export class LockHolds {
  private readonly listeners = new Set<(seconds: number, form: LockHoldForm, writes: number) => void>();

  record(seconds: number, form: LockHoldForm, writes: number): void {
    for (const listener of this.listeners) listener(seconds, form, writes);
  }

  listen(listener: (seconds: number, form: LockHoldForm, writes: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
