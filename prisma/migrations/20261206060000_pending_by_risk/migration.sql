-- Pending proposals by risk level, maintained like the other live counters (live_counters): one QueueCounter row per
-- level, proposal-pending:<riskLevel>, kept by triggers in the same transaction as every change to "Proposal", so
-- the dashboard's "awaiting approval by risk" is four row reads whatever the number of proposals. Counted once here.
INSERT INTO "QueueCounter" ("name", "value")
SELECT 'proposal-pending:' || levels."riskLevel",
       (SELECT count(*) FROM "Proposal" WHERE "state" = 'PENDING' AND "Proposal"."riskLevel" = levels."riskLevel")
FROM (SELECT 'LOW' AS "riskLevel" UNION ALL SELECT 'MEDIUM' UNION ALL SELECT 'HIGH' UNION ALL SELECT 'CRITICAL') AS levels;

CREATE TRIGGER "Proposal_pending_risk_insert" AFTER INSERT ON "Proposal"
WHEN NEW."state" = 'PENDING'
BEGIN
    UPDATE "QueueCounter" SET "value" = "value" + 1 WHERE "name" = 'proposal-pending:' || NEW."riskLevel";
END;

CREATE TRIGGER "Proposal_pending_risk_update" AFTER UPDATE OF "state", "riskLevel" ON "Proposal"
WHEN (OLD."state" = 'PENDING') IS NOT (NEW."state" = 'PENDING')
  OR (NEW."state" = 'PENDING' AND OLD."riskLevel" IS NOT NEW."riskLevel")
BEGIN
    UPDATE "QueueCounter" SET "value" = "value" - 1 WHERE "name" = 'proposal-pending:' || OLD."riskLevel" AND OLD."state" = 'PENDING';
    UPDATE "QueueCounter" SET "value" = "value" + 1 WHERE "name" = 'proposal-pending:' || NEW."riskLevel" AND NEW."state" = 'PENDING';
END;

CREATE TRIGGER "Proposal_pending_risk_delete" AFTER DELETE ON "Proposal"
WHEN OLD."state" = 'PENDING'
BEGIN
    UPDATE "QueueCounter" SET "value" = "value" - 1 WHERE "name" = 'proposal-pending:' || OLD."riskLevel";
END;
