// The database itself keeps auto-approval and the review after execution honest, on both backends (issue 17,
// items 7 and 9): approvalsRequired 0 and an afterReview other than NOT_NEEDED only with the policy that approved
// it (autoApprovedBy); impact, constraints and rule 1–2000 characters.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateDatabase } from '../../src/db/migrate.js';
import { BACKEND, type TestDatabase, testDatabase, withPostgres } from '../support/database.js';

const checkFailed = (name: string) =>
  BACKEND === 'sqlite' ? new RegExp(`CHECK constraint failed: ${name}`) : new RegExp(`violates check constraint "${name}"`);

describe(`auto-approval and review-after constraints (${BACKEND})`, () => {
  let database: TestDatabase;
  let run: (sql: string) => Promise<void>;
  let close = async () => {};

  beforeAll(async () => {
    database = await testDatabase();
    const location = database.location;
    if (location.dialect === 'sqlite') {
      migrateDatabase(location.file);
      const db = new Database(location.file);
      run = async (sql) => void db.prepare(sql).run();
      close = async () => void db.close();
    } else {
      run = (sql) => withPostgres(location.url, async (client) => void (await client.query(sql)));
    }
    const now = BACKEND === 'sqlite' ? String(Date.UTC(2026, 11, 2)) : `'2026-12-02 00:00:00'`;
    await run(
      `INSERT INTO "Proposal" ("batchId", "recordId", "revision", "action", "parameters", "reason", "targetSystem", "targetId",
         "currentValue", "proposedValue", "dataSource", "riskLevel", "fingerprint", "proposedBy", "createdAt", "approvalsRequired")
       VALUES ('b', 'r', 1, 'restock', '{}', 'why', 'shop', 't', '1', '2', 'feed', 'LOW', 'f', 'bot', ${now}, 1)`,
    );
  });
  afterAll(async () => {
    await close();
    await database.cleanup();
  });

  it('refuses approvalsRequired 0 or a review after execution without the policy that approved it', async () => {
    await expect(run(`UPDATE "Proposal" SET "approvalsRequired" = 0`)).rejects.toThrow(checkFailed('Proposal_approvals_check'));
    await expect(run(`UPDATE "Proposal" SET "afterReview" = 'PENDING'`)).rejects.toThrow(checkFailed('Proposal_after_review_check'));
    await run(`UPDATE "Proposal" SET "approvalsRequired" = 0, "autoApprovedBy" = 'APPROVAL_POLICIES.LOW', "afterReview" = 'PENDING'`);
  });

  it('bounds impact, constraints and rule to 1–2000 characters', async () => {
    for (const column of ['impact', 'constraints', 'rule']) {
      await expect(run(`UPDATE "Proposal" SET "${column}" = '${'x'.repeat(2001)}'`)).rejects.toThrow(checkFailed('Proposal_context_check'));
      await expect(run(`UPDATE "Proposal" SET "${column}" = ''`)).rejects.toThrow(checkFailed('Proposal_context_check'));
      await run(`UPDATE "Proposal" SET "${column}" = '${'y'.repeat(2000)}'`);
    }
  });
});
