// The proposal_after_review_and_context migration on SQLite (issue 17, items 7 and 9): it rebuilds Proposal for
// the approvals CHECK, keeping every proposal, the columns earlier migrations added (holds, manual leases), the
// references to them and the live counters; afterwards the new CHECKs hold (approvalsRequired 0 and an after-review
// only for a proposal a policy approved; context at most 2,000 characters).
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, migrateDatabase, readMigrations } from '../../src/db/migrate.js';

const THIS = '20261202061800_proposal_after_review_and_context';
const scratch = mkdtempSync(path.join(tmpdir(), 'leasehold-after-review-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe(`migration ${THIS}`, () => {
  it('keeps every proposal, earlier columns, references and counters, and adds its CHECKs', () => {
    const dir = path.join(scratch, 'migrations');
    for (const migration of readMigrations().filter((candidate) => candidate.name < THIS)) {
      mkdirSync(path.join(dir, migration.name), { recursive: true });
      copyFileSync(path.join(MIGRATIONS_DIR, migration.name, 'migration.sql'), path.join(dir, migration.name, 'migration.sql'));
    }
    const file = path.join(scratch, 'test.db');
    migrateDatabase(file, { dir });
    const before = new Database(file);
    const proposal = before.prepare(
      `INSERT INTO "Proposal" ("batchId", "recordId", "revision", "previousId", "action", "parameters", "reason", "targetSystem", "targetId",
         "currentValue", "proposedValue", "dataSource", "riskLevel", "fingerprint", "proposedBy", "createdAt", "approvalsRequired", "state",
         "heldFrom", "heldBy", "assignee", "manualLease")
       VALUES ('b', ?, ?, ?, 'set', '{}', 'why', 'shop', 't', '1', '2', 'crawler', 'LOW', 'f', 'bot', 1, 1, ?, ?, ?, ?, ?)`,
    );
    proposal.run('r', 1, null, 'STALE', null, null, null, null);
    proposal.run('r', 2, 1, 'ON_HOLD', 'PENDING', 'ops', 'dana', null);
    proposal.run('u', 1, null, 'EXECUTED', null, null, null, 1);
    before.exec(`
      INSERT INTO "Event" ("occurredAt", "type", "actor", "proposalId", "details") VALUES (1, 'PROPOSAL_SUBMITTED', 'bot', 1, '{}');
      INSERT INTO "ProposalApproval" ("proposalId", "approver", "approvedAt") VALUES (2, 'rei', 2);
    `);
    const columns = '"id", "previousId", "state", "version", "heldFrom", "heldBy", "assignee", "manualLease"';
    const rows = before.prepare(`SELECT ${columns} FROM "Proposal" ORDER BY "id"`).all();
    const counters = (db: Database.Database) =>
      Object.fromEntries(
        (
          db.prepare(`SELECT "name", "value" FROM "QueueCounter" WHERE "name" LIKE 'proposal:%'`).all() as { name: string; value: number }[]
        ).map((row) => [row.name, row.value]),
      );
    const countersBefore = counters(before);
    before.close();

    expect(migrateDatabase(file)).toContain(THIS);
    const after = new Database(file);
    after.pragma('foreign_keys = ON');
    expect(after.prepare(`SELECT ${columns} FROM "Proposal" ORDER BY "id"`).all()).toEqual(rows);
    expect(after.prepare(`SELECT DISTINCT "afterReview", "autoApprovedBy", "impact" FROM "Proposal"`).all()).toEqual([
      { afterReview: 'NOT_NEEDED', autoApprovedBy: null, impact: null },
    ]);
    expect(after.pragma('foreign_key_check')).toEqual([]);
    expect(counters(after)).toEqual(countersBefore);
    // The counter triggers are back: a change of state still moves the counts.
    after.prepare(`UPDATE "Proposal" SET "state" = 'PENDING', "heldFrom" = NULL, "heldBy" = NULL WHERE "id" = 2`).run();
    expect(counters(after)).toMatchObject({ 'proposal:ON_HOLD': (countersBefore['proposal:ON_HOLD'] ?? 0) - 1, 'proposal:PENDING': 1 });
    expect(() => after.prepare(`DELETE FROM "Proposal" WHERE "id" = 1`).run()).toThrow(/FOREIGN KEY constraint failed/);

    // approvalsRequired 0 and a review after execution only with the policy that approved it; context bounded.
    const refused = [
      `UPDATE "Proposal" SET "approvalsRequired" = 0 WHERE "id" = 3`,
      `UPDATE "Proposal" SET "afterReview" = 'PENDING' WHERE "id" = 3`,
      `UPDATE "Proposal" SET "afterReview" = 'MAYBE', "autoApprovedBy" = 'APPROVAL_POLICIES.LOW' WHERE "id" = 3`,
      `UPDATE "Proposal" SET "impact" = '${'x'.repeat(2001)}' WHERE "id" = 3`,
      `UPDATE "Proposal" SET "rule" = '' WHERE "id" = 3`,
    ];
    for (const statement of refused) expect(() => after.prepare(statement).run(), statement).toThrow(/CHECK constraint failed/);
    after
      .prepare(
        `UPDATE "Proposal" SET "approvalsRequired" = 0, "autoApprovedBy" = 'APPROVAL_POLICIES.LOW', "afterReview" = 'PENDING', "constraints" = ? WHERE "id" = 3`,
      )
      .run('y'.repeat(2000));
    expect(after.prepare(`SELECT count(*) AS n FROM "Proposal" WHERE "afterReview" = 'PENDING'`).get()).toEqual({ n: 1 });
    after.close();
  });
});
