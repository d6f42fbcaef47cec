// The Database every backend opens to: the group-commit queue in front of the backend's batches (and write calls,
// on PostgreSQL), the reads, the listeners. client.ts and sqlite-database.ts open the connections and hand them here.
import type { DatabaseLocation, WriteMode } from '../config/database-location.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Database, WriteTx } from './database.js';
import type { EventTail } from './event-tail.js';
import { type BatchRunner, type CallRunner, GroupCommit, type LockWait } from './group-commit.js';
import type { LockHolds, StampableCall } from './postgres-calls.js';
import { DEADLOCK_DETECTED } from './sharded.js';
import { numberPlaceholders, sqliteValue } from './tx-sql.js';
import { type CallAnswer, WriteCallError } from './write-calls.js';

/** How often a call that lost a deadlock (PG_WRITE_MODE=sharded) is sent, in all. */
const MAX_CALL_ATTEMPTS = 5;

export function assemble(
  location: DatabaseLocation,
  writer: PrismaClient,
  reader: PrismaClient,
  holds: LockHolds,
  backend: {
    runBatch: BatchRunner<WriteTx>;
    runCalls?: CallRunner;
    openTail: () => Promise<EventTail>;
    writeMode?: WriteMode;
    close?: () => Promise<void>;
    onWriteLocked?: Database['onWriteLocked'];
    lockWait?: LockWait;
    othersCommitted?: () => boolean;
    onCheckpoint?: Database['onCheckpoint'];
  },
): Database {
  const commitListeners = new Set<() => void>();
  const commits = new GroupCommit<WriteTx>(
    backend.runBatch,
    64,
    () => {
      for (const listener of commitListeners) listener();
    },
    backend.lockWait,
    backend.runCalls ?? null,
  );
  const runCalls = backend.runCalls !== undefined;
  return {
    dialect: location.dialect,
    location,
    writeMode: backend.writeMode ?? 'serialized',
    read: reader,
    query: (sql, ...params) =>
      location.dialect === 'postgresql'
        ? reader.$queryRawUnsafe(numberPlaceholders(sql), ...params)
        : reader.$queryRawUnsafe(sql, ...params.map(sqliteValue)),
    write: (work) => commits.submit(work),
    perform: async (operation) => {
      if (!runCalls) return commits.submit(operation.work);
      const { fields, clock, answer } = operation.call;
      // Its time is read as its batch is sent (stampCall), as late as the instance can.
      const call: StampableCall = { fields, clock };
      for (let attempt = 1; ; attempt++) {
        try {
          return answer((await commits.submitCall(call)) as CallAnswer);
        } catch (error) {
          // PG_WRITE_MODE=sharded: batches on different instances lock rows in different orders, and
          // PostgreSQL breaks a deadlock by failing one operation (its subtransaction: nothing of it was
          // written). Sent again in a later batch, after the other has committed, it goes through.
          if (attempt < MAX_CALL_ATTEMPTS && error instanceof WriteCallError && error.code === DEADLOCK_DETECTED) continue;
          throw error;
        }
      }
    },
    onLockHeld: (listener) => holds.listen(listener),
    onCommit(listener) {
      commitListeners.add(listener);
      return () => commitListeners.delete(listener);
    },
    openTail: backend.openTail,
    // SQLite processes on one machine read one clock: nothing to align.
    onWriteLocked: backend.onWriteLocked ?? (() => () => {}),
    othersCommitted: backend.othersCommitted ?? (() => false),
    onCheckpoint: backend.onCheckpoint ?? (() => () => {}),
    async close() {
      await Promise.all([writer.$disconnect(), reader.$disconnect()]);
      await backend.close?.();
    },
  };
}
