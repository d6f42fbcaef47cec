-- The whole data model for PostgreSQL, as one migration: Prisma's SQL for prisma/postgresql/schema.prisma
-- (a diff from an empty database) with two kinds of hand edits, both invisible to Prisma's drift check.
--
-- 1. Every TEXT column is COLLATE "C", so comparisons and ORDER BY are byte-wise like SQLite's BINARY
--    collation whatever the database's default locale is: claims are ordered by createdAt, batchId,
--    recordId and must come out in the same order on both backends. Prisma's schema language has no
--    column collation for PostgreSQL and its diff ignores collations, so this is not reported as drift;
--    but a generated migration that adds or retypes a TEXT column leaves it out (ALTER COLUMN ... TYPE
--    resets it), so add it by hand: scripts/check-drift.ts fails on a TEXT column without it.
-- 2. At the end, what the SQLite migrations add by hand: the CHECK constraints (same names), the
--    append-only protection of "Event", and the notification the event tail LISTENs for.
--
-- Enum-typed columns (status, state, type, riskLevel) sort in declaration order here, not by name as
-- the TEXT they are on SQLite.

-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "ItemStatus" AS ENUM ('PENDING', 'ACCEPTED', 'CORRECTED', 'REJECTED');

-- CreateEnum
CREATE TYPE "EventType" AS ENUM ('CATEGORY_ADDED', 'CATEGORY_RETIRED', 'ITEM_ADDED', 'LEASE_CLAIMED', 'LEASE_RENEWED', 'LEASE_RELEASED', 'LEASE_EXPIRED', 'ITEM_DECIDED', 'API_KEY_CREATED', 'API_KEY_REVOKED', 'OPERATION_REFUSED', 'PROPOSAL_SUBMITTED', 'PROPOSAL_LEASE_CLAIMED', 'PROPOSAL_LEASE_RENEWED', 'PROPOSAL_LEASE_RELEASED', 'PROPOSAL_LEASE_EXPIRED', 'PROPOSAL_APPROVAL_RECORDED', 'PROPOSAL_APPROVED', 'PROPOSAL_REJECTED', 'PROPOSAL_CHANGES_REQUESTED', 'PROPOSAL_CANCELLED', 'PROPOSAL_EXPIRED', 'PROPOSAL_STALE', 'TARGET_STATE_REPORTED', 'EXECUTION_CLAIMED', 'EXECUTION_ATTEMPT_STARTED', 'EXECUTION_SUCCEEDED', 'EXECUTION_RETURNED', 'EXECUTION_FAILED', 'EXECUTION_OUTCOME_UNKNOWN', 'PROPOSAL_RECONCILED', 'MANUAL_EXECUTION_RECORDED');

-- CreateEnum
CREATE TYPE "ProposalState" AS ENUM ('PENDING', 'APPROVED', 'REJECTED', 'CHANGES_REQUESTED', 'CANCELLED', 'EXPIRED', 'STALE', 'EXECUTING', 'EXECUTED', 'FAILED', 'OUTCOME_UNKNOWN');

-- CreateEnum
CREATE TYPE "RiskLevel" AS ENUM ('LOW', 'MEDIUM', 'HIGH', 'CRITICAL');

-- CreateTable
CREATE TABLE "Category" (
    "name" TEXT COLLATE "C" NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "createdBy" TEXT COLLATE "C" NOT NULL,
    "retiredAt" TIMESTAMP(3),
    "retiredBy" TEXT COLLATE "C",

    CONSTRAINT "Category_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "Item" (
    "id" SERIAL NOT NULL,
    "batchId" TEXT COLLATE "C" NOT NULL,
    "recordId" TEXT COLLATE "C" NOT NULL,
    "proposedCategory" TEXT COLLATE "C" NOT NULL,
    "reason" TEXT COLLATE "C" NOT NULL,
    "status" "ItemStatus" NOT NULL DEFAULT 'PENDING',
    "finalCategory" TEXT COLLATE "C",
    "reviewedBy" TEXT COLLATE "C",
    "decidedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL,
    "addedBy" TEXT COLLATE "C" NOT NULL,
    "leaseTokenHash" TEXT COLLATE "C",
    "claimedBy" TEXT COLLATE "C",
    "claimedAt" TIMESTAMP(3),
    "leaseExpiresAt" TIMESTAMP(3),
    "leaseNumber" INTEGER NOT NULL DEFAULT 0,
    "leaseExpiryRecorded" BOOLEAN NOT NULL DEFAULT false,
    "version" INTEGER NOT NULL DEFAULT 1,

    CONSTRAINT "Item_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Event" (
    "id" SERIAL NOT NULL,
    "occurredAt" TIMESTAMP(3) NOT NULL,
    "type" "EventType" NOT NULL,
    "actor" TEXT COLLATE "C" NOT NULL,
    "itemId" INTEGER,
    "categoryName" TEXT COLLATE "C",
    "fromStatus" "ItemStatus",
    "toStatus" "ItemStatus",
    "leaseExpiresAt" TIMESTAMP(3),
    "leaseNumber" INTEGER,
    "itemVersion" INTEGER,
    "details" TEXT COLLATE "C" NOT NULL DEFAULT '{}',
    "proposalId" INTEGER,

    CONSTRAINT "Event_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" SERIAL NOT NULL,
    "name" TEXT COLLATE "C" NOT NULL,
    "roles" TEXT COLLATE "C" NOT NULL,
    "keyHash" TEXT COLLATE "C" NOT NULL,
    "prefix" TEXT COLLATE "C" NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "createdBy" TEXT COLLATE "C" NOT NULL,
    "lastUsedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),
    "revokedBy" TEXT COLLATE "C",

    CONSTRAINT "ApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Proposal" (
    "id" SERIAL NOT NULL,
    "batchId" TEXT COLLATE "C" NOT NULL,
    "recordId" TEXT COLLATE "C" NOT NULL,
    "revision" INTEGER NOT NULL,
    "previousId" INTEGER,
    "action" TEXT COLLATE "C" NOT NULL,
    "parameters" TEXT COLLATE "C" NOT NULL,
    "reason" TEXT COLLATE "C" NOT NULL,
    "targetSystem" TEXT COLLATE "C" NOT NULL,
    "targetId" TEXT COLLATE "C" NOT NULL,
    "currentValue" TEXT COLLATE "C" NOT NULL,
    "proposedValue" TEXT COLLATE "C" NOT NULL,
    "dataSource" TEXT COLLATE "C" NOT NULL,
    "riskLevel" "RiskLevel" NOT NULL,
    "fingerprint" TEXT COLLATE "C" NOT NULL,
    "approvalValiditySeconds" INTEGER,
    "deadline" TIMESTAMP(3),
    "state" "ProposalState" NOT NULL DEFAULT 'PENDING',
    "stateReason" TEXT COLLATE "C",
    "proposedBy" TEXT COLLATE "C" NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "approvalsRequired" INTEGER NOT NULL,
    "approvedAt" TIMESTAMP(3),
    "approvalExpiresAt" TIMESTAMP(3),
    "operationId" TEXT COLLATE "C",
    "leaseKind" TEXT COLLATE "C",
    "leaseTokenHash" TEXT COLLATE "C",
    "claimedBy" TEXT COLLATE "C",
    "claimedAt" TIMESTAMP(3),
    "leaseExpiresAt" TIMESTAMP(3),
    "leaseNumber" INTEGER NOT NULL DEFAULT 0,
    "leaseExpiryRecorded" BOOLEAN NOT NULL DEFAULT false,
    "version" INTEGER NOT NULL DEFAULT 1,

    CONSTRAINT "Proposal_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ProposalApproval" (
    "id" SERIAL NOT NULL,
    "proposalId" INTEGER NOT NULL,
    "approver" TEXT COLLATE "C" NOT NULL,
    "approvedAt" TIMESTAMP(3) NOT NULL,
    "voidedAt" TIMESTAMP(3),
    "voidReason" TEXT COLLATE "C",

    CONSTRAINT "ProposalApproval_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ExecutionAttempt" (
    "id" SERIAL NOT NULL,
    "proposalId" INTEGER NOT NULL,
    "operationId" TEXT COLLATE "C" NOT NULL,
    "number" INTEGER NOT NULL,
    "executor" TEXT COLLATE "C" NOT NULL,
    "correlationId" TEXT COLLATE "C",
    "startedAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3),
    "outcome" TEXT COLLATE "C",
    "response" TEXT COLLATE "C",

    CONSTRAINT "ExecutionAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Item_leaseTokenHash_key" ON "Item"("leaseTokenHash");

-- CreateIndex
CREATE INDEX "Item_status_createdAt_batchId_recordId_idx" ON "Item"("status", "createdAt", "batchId", "recordId");

-- CreateIndex
CREATE INDEX "Item_leaseExpiryRecorded_leaseExpiresAt_idx" ON "Item"("leaseExpiryRecorded", "leaseExpiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "Item_batchId_recordId_key" ON "Item"("batchId", "recordId");

-- CreateIndex
CREATE INDEX "Event_itemId_id_idx" ON "Event"("itemId", "id");

-- CreateIndex
CREATE INDEX "Event_proposalId_id_idx" ON "Event"("proposalId", "id");

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_keyHash_key" ON "ApiKey"("keyHash");

-- CreateIndex
CREATE INDEX "ApiKey_name_idx" ON "ApiKey"("name");

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

-- AddForeignKey
ALTER TABLE "Item" ADD CONSTRAINT "Item_proposedCategory_fkey" FOREIGN KEY ("proposedCategory") REFERENCES "Category"("name") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "Item" ADD CONSTRAINT "Item_finalCategory_fkey" FOREIGN KEY ("finalCategory") REFERENCES "Category"("name") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "Event" ADD CONSTRAINT "Event_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "Item"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "Event" ADD CONSTRAINT "Event_proposalId_fkey" FOREIGN KEY ("proposalId") REFERENCES "Proposal"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "Proposal" ADD CONSTRAINT "Proposal_previousId_fkey" FOREIGN KEY ("previousId") REFERENCES "Proposal"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "ProposalApproval" ADD CONSTRAINT "ProposalApproval_proposalId_fkey" FOREIGN KEY ("proposalId") REFERENCES "Proposal"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "ExecutionAttempt" ADD CONSTRAINT "ExecutionAttempt_proposalId_fkey" FOREIGN KEY ("proposalId") REFERENCES "Proposal"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- ---------------------------------------------------------------------------------------------------
-- Hand-written from here on.

-- CHECK constraints of the SQLite migrations, same names and meaning. char_length counts characters
-- as SQLite's length() does on TEXT. The ones on enum columns repeat what the type already enforces
-- so both backends have the same constraints.
ALTER TABLE "Item" ADD CONSTRAINT "Item_status_check" CHECK ("status" IN ('PENDING', 'ACCEPTED', 'CORRECTED', 'REJECTED'));
ALTER TABLE "Item" ADD CONSTRAINT "Item_lengths_check" CHECK (
    char_length("batchId") BETWEEN 1 AND 100 AND char_length("recordId") BETWEEN 1 AND 100 AND char_length("reason") BETWEEN 1 AND 1000
);
ALTER TABLE "Item" ADD CONSTRAINT "Item_decision_check" CHECK (
    ("status" = 'PENDING' AND "finalCategory" IS NULL AND "reviewedBy" IS NULL AND "decidedAt" IS NULL)
    OR ("status" IN ('ACCEPTED', 'CORRECTED') AND "finalCategory" IS NOT NULL AND "reviewedBy" IS NOT NULL AND "decidedAt" IS NOT NULL)
    OR ("status" = 'REJECTED' AND "finalCategory" IS NULL AND "reviewedBy" IS NOT NULL AND "decidedAt" IS NOT NULL)
);
ALTER TABLE "Item" ADD CONSTRAINT "Item_accepted_check" CHECK ("status" <> 'ACCEPTED' OR "finalCategory" = "proposedCategory");
ALTER TABLE "Item" ADD CONSTRAINT "Item_corrected_check" CHECK ("status" <> 'CORRECTED' OR "finalCategory" <> "proposedCategory");
ALTER TABLE "Item" ADD CONSTRAINT "Item_lease_check" CHECK (
    ("leaseTokenHash" IS NULL AND "claimedBy" IS NULL AND "claimedAt" IS NULL AND "leaseExpiresAt" IS NULL)
    OR ("status" = 'PENDING' AND "leaseTokenHash" IS NOT NULL AND "claimedBy" IS NOT NULL AND "claimedAt" IS NOT NULL AND "leaseExpiresAt" > "claimedAt")
);

-- SQLite's GLOB ',*', '*,' and '*,,*' become the equivalent LIKE patterns (no wildcard in between);
-- the replace() chain is kept as it is so both backends accept exactly the same role lists.
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_name_check" CHECK (char_length("name") BETWEEN 1 AND 100);
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_roles_check" CHECK (
    "roles" NOT LIKE ',%' AND "roles" NOT LIKE '%,' AND "roles" NOT LIKE '%,,%' AND char_length("roles") > 0
    AND replace(replace(replace(replace(replace(replace("roles", 'ADMIN', ''), 'PROPOSER', ''), 'REVIEWER', ''), 'EXECUTOR', ''), 'VIEWER', ''), ',', '') = ''
);
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_hash_check" CHECK (char_length("keyHash") = 64);
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_revoked_check" CHECK (("revokedAt" IS NULL) = ("revokedBy" IS NULL));

-- SQLite's json_type(): the JSON type of the text, or NULL when it is not JSON. A bare "x"::jsonb in the
-- CHECK would fail with a cast error (22P02) naming no constraint; this way invalid JSON violates
-- "Proposal_json_check", as on SQLite. (jsonb is a little stricter: it refuses \u0000 in strings.)
CREATE FUNCTION "leasehold_json_type"(value TEXT) RETURNS TEXT
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
    RETURN jsonb_typeof(value::jsonb);
EXCEPTION WHEN OTHERS THEN
    RETURN NULL;
END;
$$;

ALTER TABLE "Proposal" ADD CONSTRAINT "Proposal_state_check" CHECK (
    "state" IN ('PENDING', 'APPROVED', 'REJECTED', 'CHANGES_REQUESTED', 'CANCELLED', 'EXPIRED', 'STALE', 'EXECUTING', 'EXECUTED', 'FAILED', 'OUTCOME_UNKNOWN')
);
ALTER TABLE "Proposal" ADD CONSTRAINT "Proposal_risk_check" CHECK ("riskLevel" IN ('LOW', 'MEDIUM', 'HIGH', 'CRITICAL'));
ALTER TABLE "Proposal" ADD CONSTRAINT "Proposal_revision_check" CHECK ("revision" >= 1 AND ("revision" = 1) = ("previousId" IS NULL));
-- coalesce: a NULL comparison would pass the CHECK.
ALTER TABLE "Proposal" ADD CONSTRAINT "Proposal_json_check" CHECK (
    coalesce("leasehold_json_type"("parameters") = 'object', FALSE)
    AND "leasehold_json_type"("currentValue") IS NOT NULL AND "leasehold_json_type"("proposedValue") IS NOT NULL
);
ALTER TABLE "Proposal" ADD CONSTRAINT "Proposal_lengths_check" CHECK (
    char_length("batchId") BETWEEN 1 AND 100 AND char_length("recordId") BETWEEN 1 AND 100 AND char_length("action") BETWEEN 1 AND 100
    AND char_length("reason") BETWEEN 1 AND 1000 AND char_length("parameters") <= 16384 AND char_length("fingerprint") BETWEEN 1 AND 200
);
ALTER TABLE "Proposal" ADD CONSTRAINT "Proposal_approvals_check" CHECK ("approvalsRequired" >= 1);
ALTER TABLE "Proposal" ADD CONSTRAINT "Proposal_lease_check" CHECK (
    ("leaseTokenHash" IS NULL) = ("leaseExpiresAt" IS NULL) AND ("leaseTokenHash" IS NULL) = ("leaseKind" IS NULL)
    AND ("leaseKind" IS NULL OR "leaseKind" IN ('REVIEW', 'EXECUTION'))
);

ALTER TABLE "ExecutionAttempt" ADD CONSTRAINT "ExecutionAttempt_outcome_check" CHECK (
    "outcome" IS NULL OR "outcome" IN ('SUCCEEDED', 'FAILED_BEFORE_SEND', 'REJECTED_BY_REMOTE', 'UNKNOWN')
);

-- The history is append-only: the database itself refuses to change or remove an event, including
-- TRUNCATE, which skips row triggers.
CREATE FUNCTION "Event_append_only"() RETURNS TRIGGER
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are append-only: % is not allowed', TG_OP;
END;
$$;

CREATE TRIGGER "Event_no_update" BEFORE UPDATE ON "Event" FOR EACH ROW EXECUTE FUNCTION "Event_append_only"();
CREATE TRIGGER "Event_no_delete" BEFORE DELETE ON "Event" FOR EACH ROW EXECUTE FUNCTION "Event_append_only"();
CREATE TRIGGER "Event_no_truncate" BEFORE TRUNCATE ON "Event" FOR EACH STATEMENT EXECUTE FUNCTION "Event_append_only"();

-- Wakes the event tail (LISTEN leasehold_events) once per inserting statement. NOTIFY is delivered at
-- commit and not at all on rollback, and equal notifications of one transaction are folded into one,
-- so listeners only ever see committed events. The payload is empty: the tail reads from its last id.
CREATE FUNCTION "Event_notify"() RETURNS TRIGGER
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('leasehold_events', '');
    RETURN NULL;
END;
$$;

CREATE TRIGGER "Event_notify" AFTER INSERT ON "Event" FOR EACH STATEMENT EXECUTE FUNCTION "Event_notify"();
