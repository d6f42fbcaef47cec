-- Issue 17, items 7 and 9: auto-approved proposals (autoApprovedBy; approvalsRequired 0 allowed for them only)
-- reviewed after execution (afterReview, listed from its index), and the reviewer context a submission carries
-- (impact, constraints, rule; 1–2000 characters). The approvals CHECK changes, so the table is rebuilt as in
-- 20261202060500_proposal_holds (foreign keys off, checked before commit), with its indexes and counter triggers.
-- leasehold: foreign_keys off
CREATE TABLE "new_Proposal" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "batchId" TEXT NOT NULL,
    "recordId" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "previousId" INTEGER,
    "action" TEXT NOT NULL,
    "parameters" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "targetSystem" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "currentValue" TEXT NOT NULL,
    "proposedValue" TEXT NOT NULL,
    "dataSource" TEXT NOT NULL,
    "riskLevel" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "approvalValiditySeconds" INTEGER,
    "deadline" DATETIME,
    "state" TEXT NOT NULL DEFAULT 'PENDING',
    "stateReason" TEXT,
    "proposedBy" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "approvalsRequired" INTEGER NOT NULL,
    "approvedAt" DATETIME,
    "approvalExpiresAt" DATETIME,
    "operationId" TEXT,
    "leaseKind" TEXT,
    "leaseTokenHash" TEXT,
    "claimedBy" TEXT,
    "claimedAt" DATETIME,
    "leaseExpiresAt" DATETIME,
    "leaseNumber" INTEGER NOT NULL DEFAULT 0,
    "leaseExpiryRecorded" BOOLEAN NOT NULL DEFAULT false,
    "version" INTEGER NOT NULL DEFAULT 1,
    "heldFrom" TEXT,
    "heldBy" TEXT,
    "assignee" TEXT,
    "escalatedAt" DATETIME,
    "escalatedTo" TEXT,
    "outcomeUnknownAt" DATETIME,
    "manualLease" BOOLEAN,
    "impact" TEXT,
    "constraints" TEXT,
    "rule" TEXT,
    "autoApprovedBy" TEXT,
    "afterReview" TEXT NOT NULL DEFAULT 'NOT_NEEDED',
    "afterReviewedBy" TEXT,
    "afterReviewedAt" DATETIME,
    CONSTRAINT "Proposal_state_check" CHECK ("state" IN ('PENDING', 'APPROVED', 'REJECTED', 'CHANGES_REQUESTED', 'CANCELLED', 'EXPIRED', 'STALE', 'EXECUTING', 'EXECUTED', 'FAILED', 'OUTCOME_UNKNOWN', 'ON_HOLD')),
    CONSTRAINT "Proposal_risk_check" CHECK ("riskLevel" IN ('LOW', 'MEDIUM', 'HIGH', 'CRITICAL')),
    CONSTRAINT "Proposal_revision_check" CHECK ("revision" >= 1 AND ("revision" = 1) = ("previousId" IS NULL)),
    CONSTRAINT "Proposal_json_check" CHECK (json_valid("parameters") AND json_type("parameters") = 'object' AND json_valid("currentValue") AND json_valid("proposedValue")),
    CONSTRAINT "Proposal_lengths_check" CHECK (
        length("batchId") BETWEEN 1 AND 100 AND length("recordId") BETWEEN 1 AND 100 AND length("action") BETWEEN 1 AND 100
        AND length("reason") BETWEEN 1 AND 1000 AND length("parameters") <= 16384 AND length("fingerprint") BETWEEN 1 AND 200
    ),
    -- 0 only when a policy approved it at submission (approvers: 0).
    CONSTRAINT "Proposal_approvals_check" CHECK ("approvalsRequired" >= 1 OR ("approvalsRequired" = 0 AND "autoApprovedBy" IS NOT NULL)),
    CONSTRAINT "Proposal_context_check" CHECK (
        ("impact" IS NULL OR length("impact") BETWEEN 1 AND 2000) AND ("constraints" IS NULL OR length("constraints") BETWEEN 1 AND 2000)
        AND ("rule" IS NULL OR length("rule") BETWEEN 1 AND 2000)
    ),
    CONSTRAINT "Proposal_after_review_check" CHECK (
        "afterReview" IN ('NOT_NEEDED', 'PENDING', 'CONFIRMED', 'PROBLEM') AND ("afterReview" = 'NOT_NEEDED' OR "autoApprovedBy" IS NOT NULL)
    ),
    CONSTRAINT "Proposal_lease_check" CHECK (
        ("leaseTokenHash" IS NULL) = ("leaseExpiresAt" IS NULL) AND ("leaseTokenHash" IS NULL) = ("leaseKind" IS NULL)
        AND ("leaseKind" IS NULL OR "leaseKind" IN ('REVIEW', 'EXECUTION'))
    ),
    CONSTRAINT "Proposal_hold_check" CHECK (
        ("state" = 'ON_HOLD') = ("heldFrom" IS NOT NULL) AND ("heldFrom" IS NULL OR "heldFrom" IN ('PENDING', 'APPROVED'))
    ),
    CONSTRAINT "Proposal_previousId_fkey" FOREIGN KEY ("previousId") REFERENCES "Proposal" ("id") ON DELETE RESTRICT ON UPDATE RESTRICT
);
INSERT INTO "new_Proposal" (
    "id", "batchId", "recordId", "revision", "previousId", "action", "parameters", "reason", "targetSystem", "targetId",
    "currentValue", "proposedValue", "dataSource", "riskLevel", "fingerprint", "approvalValiditySeconds", "deadline", "state",
    "stateReason", "proposedBy", "createdAt", "approvalsRequired", "approvedAt", "approvalExpiresAt", "operationId", "leaseKind",
    "leaseTokenHash", "claimedBy", "claimedAt", "leaseExpiresAt", "leaseNumber", "leaseExpiryRecorded", "version",
    "heldFrom", "heldBy", "assignee", "escalatedAt", "escalatedTo", "outcomeUnknownAt", "manualLease"
)
SELECT
    "id", "batchId", "recordId", "revision", "previousId", "action", "parameters", "reason", "targetSystem", "targetId",
    "currentValue", "proposedValue", "dataSource", "riskLevel", "fingerprint", "approvalValiditySeconds", "deadline", "state",
    "stateReason", "proposedBy", "createdAt", "approvalsRequired", "approvedAt", "approvalExpiresAt", "operationId", "leaseKind",
    "leaseTokenHash", "claimedBy", "claimedAt", "leaseExpiresAt", "leaseNumber", "leaseExpiryRecorded", "version",
    "heldFrom", "heldBy", "assignee", "escalatedAt", "escalatedTo", "outcomeUnknownAt", "manualLease"
FROM "Proposal";
DROP TABLE "Proposal";
ALTER TABLE "new_Proposal" RENAME TO "Proposal";

CREATE UNIQUE INDEX "Proposal_previousId_key" ON "Proposal"("previousId");
CREATE UNIQUE INDEX "Proposal_operationId_key" ON "Proposal"("operationId");
CREATE UNIQUE INDEX "Proposal_leaseTokenHash_key" ON "Proposal"("leaseTokenHash");
CREATE UNIQUE INDEX "Proposal_batchId_recordId_revision_key" ON "Proposal"("batchId", "recordId", "revision");
CREATE INDEX "Proposal_state_createdAt_idx" ON "Proposal"("state", "createdAt");
CREATE INDEX "Proposal_state_deadline_idx" ON "Proposal"("state", "deadline");
CREATE INDEX "Proposal_state_approvalExpiresAt_idx" ON "Proposal"("state", "approvalExpiresAt");
CREATE INDEX "Proposal_targetSystem_targetId_state_idx" ON "Proposal"("targetSystem", "targetId", "state");
CREATE INDEX "Proposal_leaseExpiryRecorded_leaseExpiresAt_idx" ON "Proposal"("leaseExpiryRecorded", "leaseExpiresAt");
CREATE INDEX "Proposal_state_id_idx" ON "Proposal"("state", "id");
CREATE INDEX "Proposal_riskLevel_id_idx" ON "Proposal"("riskLevel", "id");
CREATE INDEX "Proposal_proposedBy_id_idx" ON "Proposal"("proposedBy", "id");
CREATE INDEX "Proposal_claimedBy_id_idx" ON "Proposal"("claimedBy", "id");
CREATE INDEX "Proposal_targetSystem_id_idx" ON "Proposal"("targetSystem", "id");
CREATE INDEX "Proposal_targetId_id_idx" ON "Proposal"("targetId", "id");
CREATE INDEX "Proposal_batchId_id_idx" ON "Proposal"("batchId", "id");
CREATE INDEX "Proposal_afterReview_id_idx" ON "Proposal"("afterReview", "id");
CREATE INDEX "Proposal_assignee_id_idx" ON "Proposal"("assignee", "id");
CREATE INDEX "Proposal_state_escalatedAt_createdAt_idx" ON "Proposal"("state", "escalatedAt", "createdAt");
CREATE INDEX "Proposal_state_escalatedAt_outcomeUnknownAt_idx" ON "Proposal"("state", "escalatedAt", "outcomeUnknownAt");

CREATE TRIGGER "Proposal_count_insert" AFTER INSERT ON "Proposal"
BEGIN
    UPDATE "QueueCounter" SET "value" = "value" + 1 WHERE "name" = 'proposal:' || NEW."state";
    UPDATE "QueueCounter" SET "value" = "value" + 1 WHERE "name" = 'proposal:approved' AND NEW."approvedAt" IS NOT NULL;
END;
CREATE TRIGGER "Proposal_count_update" AFTER UPDATE OF "state", "approvedAt" ON "Proposal"
WHEN OLD."state" IS NOT NEW."state" OR (OLD."approvedAt" IS NULL) IS NOT (NEW."approvedAt" IS NULL)
BEGIN
    UPDATE "QueueCounter" SET "value" = "value" - 1 WHERE "name" = 'proposal:' || OLD."state" AND OLD."state" IS NOT NEW."state";
    UPDATE "QueueCounter" SET "value" = "value" + 1 WHERE "name" = 'proposal:' || NEW."state" AND OLD."state" IS NOT NEW."state";
    UPDATE "QueueCounter" SET "value" = "value" + (NEW."approvedAt" IS NOT NULL) - (OLD."approvedAt" IS NOT NULL)
    WHERE "name" = 'proposal:approved';
END;
CREATE TRIGGER "Proposal_count_delete" AFTER DELETE ON "Proposal"
BEGIN
    UPDATE "QueueCounter" SET "value" = "value" - 1 WHERE "name" = 'proposal:' || OLD."state";
    UPDATE "QueueCounter" SET "value" = "value" - 1 WHERE "name" = 'proposal:approved' AND OLD."approvedAt" IS NOT NULL;
END;
