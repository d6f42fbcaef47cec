-- Action proposals (seed B): proposals with their own review/execution lease, the approvals of each
-- revision, and execution attempts. CHECKs are hand-added.
-- CreateTable
CREATE TABLE "Proposal" (
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
    CONSTRAINT "Proposal_state_check" CHECK ("state" IN ('PENDING', 'APPROVED', 'REJECTED', 'CHANGES_REQUESTED', 'CANCELLED', 'EXPIRED', 'STALE', 'EXECUTING', 'EXECUTED', 'FAILED', 'OUTCOME_UNKNOWN')),
    CONSTRAINT "Proposal_risk_check" CHECK ("riskLevel" IN ('LOW', 'MEDIUM', 'HIGH', 'CRITICAL')),
    CONSTRAINT "Proposal_revision_check" CHECK ("revision" >= 1 AND ("revision" = 1) = ("previousId" IS NULL)),
    CONSTRAINT "Proposal_json_check" CHECK (json_valid("parameters") AND json_type("parameters") = 'object' AND json_valid("currentValue") AND json_valid("proposedValue")),
    CONSTRAINT "Proposal_lengths_check" CHECK (
        length("batchId") BETWEEN 1 AND 100 AND length("recordId") BETWEEN 1 AND 100 AND length("action") BETWEEN 1 AND 100
        AND length("reason") BETWEEN 1 AND 1000 AND length("parameters") <= 16384 AND length("fingerprint") BETWEEN 1 AND 200
    ),
    CONSTRAINT "Proposal_approvals_check" CHECK ("approvalsRequired" >= 1),
    CONSTRAINT "Proposal_lease_check" CHECK (
        ("leaseTokenHash" IS NULL) = ("leaseExpiresAt" IS NULL) AND ("leaseTokenHash" IS NULL) = ("leaseKind" IS NULL)
        AND ("leaseKind" IS NULL OR "leaseKind" IN ('REVIEW', 'EXECUTION'))
    ),
    CONSTRAINT "Proposal_previousId_fkey" FOREIGN KEY ("previousId") REFERENCES "Proposal" ("id") ON DELETE RESTRICT ON UPDATE RESTRICT
);

-- CreateTable
CREATE TABLE "ProposalApproval" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "proposalId" INTEGER NOT NULL,
    "approver" TEXT NOT NULL,
    "approvedAt" DATETIME NOT NULL,
    "voidedAt" DATETIME,
    "voidReason" TEXT,
    CONSTRAINT "ProposalApproval_proposalId_fkey" FOREIGN KEY ("proposalId") REFERENCES "Proposal" ("id") ON DELETE RESTRICT ON UPDATE RESTRICT
);

-- CreateTable
CREATE TABLE "ExecutionAttempt" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "proposalId" INTEGER NOT NULL,
    "operationId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "executor" TEXT NOT NULL,
    "correlationId" TEXT,
    "startedAt" DATETIME NOT NULL,
    "finishedAt" DATETIME,
    "outcome" TEXT,
    "response" TEXT,
    CONSTRAINT "ExecutionAttempt_outcome_check" CHECK ("outcome" IS NULL OR "outcome" IN ('SUCCEEDED', 'FAILED_BEFORE_SEND', 'REJECTED_BY_REMOTE', 'UNKNOWN')),
    CONSTRAINT "ExecutionAttempt_proposalId_fkey" FOREIGN KEY ("proposalId") REFERENCES "Proposal" ("id") ON DELETE RESTRICT ON UPDATE RESTRICT
);

-- Written by hand as ALTER TABLE ADD COLUMN: Prisma's generated version redefines "Event", which
-- would drop the triggers that keep the history append-only.
ALTER TABLE "Event" ADD COLUMN "proposalId" INTEGER REFERENCES "Proposal" ("id") ON DELETE RESTRICT ON UPDATE RESTRICT;
CREATE INDEX "Event_proposalId_id_idx" ON "Event"("proposalId", "id");

-- CreateIndex
CREATE UNIQUE INDEX "Proposal_previousId_key" ON "Proposal"("previousId");

-- CreateIndex
CREATE UNIQUE INDEX "Proposal_operationId_key" ON "Proposal"("operationId");

-- CreateIndex
CREATE UNIQUE INDEX "Proposal_leaseTokenHash_key" ON "Proposal"("leaseTokenHash");

-- CreateIndex
CREATE INDEX "Proposal_state_createdAt_idx" ON "Proposal"("state", "createdAt");

-- CreateIndex
CREATE INDEX "Proposal_state_deadline_idx" ON "Proposal"("state", "deadline");

-- CreateIndex
CREATE INDEX "Proposal_state_approvalExpiresAt_idx" ON "Proposal"("state", "approvalExpiresAt");

-- CreateIndex
CREATE INDEX "Proposal_targetSystem_targetId_state_idx" ON "Proposal"("targetSystem", "targetId", "state");

-- CreateIndex
CREATE INDEX "Proposal_leaseExpiryRecorded_leaseExpiresAt_idx" ON "Proposal"("leaseExpiryRecorded", "leaseExpiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "Proposal_batchId_recordId_revision_key" ON "Proposal"("batchId", "recordId", "revision");

-- CreateIndex
CREATE UNIQUE INDEX "ProposalApproval_proposalId_approver_key" ON "ProposalApproval"("proposalId", "approver");

-- CreateIndex
CREATE UNIQUE INDEX "ExecutionAttempt_proposalId_number_key" ON "ExecutionAttempt"("proposalId", "number");
