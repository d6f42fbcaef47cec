// The same review cycle on raw better-sqlite3, in this process: the ceiling for one writer.
// Claim: BEGIN IMMEDIATE; first claimable by (createdAt, batchId, recordId) not proposed by the claimant;
//        conditional UPDATE; event; COMMIT.
// Decide: BEGIN IMMEDIATE; item by token hash, held by the decider; conditional UPDATE; event; COMMIT.
// (The server's rules since principals: a reviewer never gets its own proposal, only the holder decides.)
import { createHash, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { migrateDatabase } from '../src/db/migrate.js';

interface ItemRow {
  id: number;
  status: string;
  addedBy: string;
  proposedCategory: string;
  leaseTokenHash: string | null;
  claimedBy: string | null;
  leaseExpiresAt: number | null;
  version: number;
}

const LEASE_MS = 300_000;
const CATEGORY = 'bench-accept';
const PROPOSER = 'bench-seeder';
const REVIEWER = 'bench-raw';

const issueToken = () => `lh_${randomBytes(24).toString('base64url')}`;
const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export interface RawBench {
  /** Runs cycles for warm-up + duration; returns cycles per second over the measured window. */
  run(warmupMs: number, durationMs: number): { rate: number; completed: number; measuredSeconds: number; errors: number };
  /** Cycles completed in total and what the file says about them. */
  verify(): { cyclesRun: number; accepted: number; claimEvents: number; decideEvents: number; leased: number };
  sqliteVersion: string;
  close(): void;
}

export function openRawBench(file: string, synchronous: 'NORMAL' | 'FULL', busyTimeoutMs = 10_000): RawBench {
  migrateDatabase(file, { busyTimeoutMs });
  const db = new Database(file, { timeout: busyTimeoutMs });
  // The same per-connection settings the server's writer uses (WAL is set in the file by the migration).
  db.pragma('foreign_keys = ON');
  db.pragma(`synchronous = ${synchronous}`);
  const sqliteVersion = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;

  const now0 = Date.now();
  db.prepare('INSERT INTO "Category" ("name", "createdAt", "createdBy") VALUES (?, ?, ?)').run(CATEGORY, now0, 'bench-admin');

  const insertItem = db.prepare(
    `INSERT INTO "Item" ("batchId", "recordId", "proposedCategory", "reason", "createdAt", "addedBy") VALUES (?, ?, ?, ?, ?, ?)`,
  );
  let seeded = 0;
  const seed = db.transaction((count: number) => {
    const createdAt = Math.floor(Date.now() / 1000) * 1000;
    for (let index = 0; index < count; index++, seeded++) {
      insertItem.run(
        `raw-${String(Math.floor(seeded / 500)).padStart(6, '0')}`,
        `r${String(seeded % 500).padStart(4, '0')}`,
        CATEGORY,
        'Bench item: the proposal a reviewer would check.',
        createdAt,
        PROPOSER,
      );
    }
  });

  const firstClaimable = db.prepare(
    `SELECT * FROM "Item" WHERE "status" = 'PENDING' AND ("leaseTokenHash" IS NULL OR "leaseExpiresAt" <= ?) AND "addedBy" <> ?
     ORDER BY "createdAt" ASC, "batchId" ASC, "recordId" ASC LIMIT 1`,
  );
  const claimUpdate = db.prepare(
    `UPDATE "Item" SET "leaseTokenHash" = ?, "claimedBy" = ?, "claimedAt" = ?, "leaseExpiresAt" = ?, "version" = "version" + 1
     WHERE "id" = ? AND "status" = 'PENDING' AND ("leaseTokenHash" IS NULL OR "leaseExpiresAt" <= ?)`,
  );
  const insertEvent = db.prepare(
    `INSERT INTO "Event" ("occurredAt", "type", "actor", "itemId", "categoryName", "fromStatus", "toStatus", "leaseExpiresAt", "itemVersion", "details")
     VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, ?)`,
  );
  const byTokenHash = db.prepare(`SELECT * FROM "Item" WHERE "leaseTokenHash" = ?`);
  const decideUpdate = db.prepare(
    `UPDATE "Item" SET "status" = 'ACCEPTED', "finalCategory" = ?, "reviewedBy" = ?, "decidedAt" = ?,
       "leaseTokenHash" = NULL, "claimedBy" = NULL, "claimedAt" = NULL, "leaseExpiresAt" = NULL, "version" = "version" + 1
     WHERE "id" = ? AND "status" = 'PENDING' AND "leaseTokenHash" = ? AND "leaseExpiresAt" > ?`,
  );

  const claim = db.transaction((reviewer: string, token: string): boolean => {
    const now = Date.now();
    const candidate = firstClaimable.get(now, reviewer) as ItemRow | undefined;
    if (!candidate) return false;
    const expiresAt = now + LEASE_MS;
    const { changes } = claimUpdate.run(hashToken(token), reviewer, now, expiresAt, candidate.id, now);
    if (changes !== 1) throw new Error('raw claim conflict');
    insertEvent.run(
      now,
      'LEASE_CLAIMED',
      reviewer,
      candidate.id,
      null,
      null,
      expiresAt,
      candidate.version + 1,
      JSON.stringify({ holder: reviewer, leaseSeconds: LEASE_MS / 1000 }),
    );
    return true;
  });

  const decide = db.transaction((reviewer: string, token: string): void => {
    const now = Date.now();
    const held = byTokenHash.get(hashToken(token)) as ItemRow | undefined;
    if (held?.status !== 'PENDING' || held.leaseExpiresAt === null || held.leaseExpiresAt <= now) throw new Error('raw lease not found');
    if (held.claimedBy !== reviewer) throw new Error('raw lease held by another reviewer');
    if (held.addedBy === reviewer) throw new Error('raw self-review');
    const { changes } = decideUpdate.run(held.proposedCategory, reviewer, now, held.id, held.leaseTokenHash, now);
    if (changes !== 1) throw new Error('raw decision conflict');
    insertEvent.run(
      now,
      'ITEM_DECIDED',
      reviewer,
      held.id,
      'PENDING',
      'ACCEPTED',
      null,
      held.version + 1,
      JSON.stringify({ decision: 'ACCEPTED', finalCategory: held.proposedCategory, reviewedBy: reviewer }),
    );
  });

  const TOP_UP = 20_000;
  seed(TOP_UP);
  let cyclesRun = 0;

  return {
    sqliteVersion,
    run(warmupMs, durationMs) {
      let errors = 0;
      let completed = 0;
      let measureFrom = performance.now() + warmupMs;
      let measureTo = measureFrom + durationMs;
      for (let now = performance.now(); now < measureTo; ) {
        const token = issueToken();
        try {
          if (!claim.immediate(REVIEWER, token)) {
            // Out of items: top up, and leave the time that took out of the window.
            const paused = performance.now();
            seed(TOP_UP);
            const pause = performance.now() - paused;
            if (paused < measureFrom) measureFrom += pause;
            measureTo += pause;
            now = performance.now();
            continue;
          }
          decide.immediate(REVIEWER, token);
        } catch {
          errors++;
          if (errors > 100) break;
          now = performance.now();
          continue;
        }
        cyclesRun++;
        now = performance.now();
        if (now >= measureFrom && now < measureTo) completed++;
      }
      const measuredSeconds = (measureTo - measureFrom) / 1000;
      return { rate: completed / measuredSeconds, completed, measuredSeconds, errors };
    },
    verify() {
      const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
      return {
        cyclesRun,
        accepted: count(`SELECT count(*) AS n FROM "Item" WHERE "status" = 'ACCEPTED'`),
        claimEvents: count(`SELECT count(*) AS n FROM "Event" WHERE "type" = 'LEASE_CLAIMED'`),
        decideEvents: count(`SELECT count(*) AS n FROM "Event" WHERE "type" = 'ITEM_DECIDED'`),
        leased: count(`SELECT count(*) AS n FROM "Item" WHERE "leaseTokenHash" IS NOT NULL`),
      };
    },
    close() {
      db.close();
    },
  };
}
