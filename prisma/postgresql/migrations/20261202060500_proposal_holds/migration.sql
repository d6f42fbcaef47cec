-- Holds, escalation and assignees (issue 17, item 5; docs/proposals.md): the ON_HOLD state, heldFrom/heldBy,
-- assignee, escalatedAt/escalatedTo and outcomeUnknownAt with their indexes, and a proposal:ON_HOLD counter.

-- AlterEnum
ALTER TYPE "EventType" ADD VALUE 'PROPOSAL_HELD';
ALTER TYPE "EventType" ADD VALUE 'PROPOSAL_RESUMED';
ALTER TYPE "EventType" ADD VALUE 'PROPOSAL_ESCALATED';
ALTER TYPE "EventType" ADD VALUE 'PROPOSAL_ASSIGNED';

-- AlterEnum
ALTER TYPE "ProposalState" ADD VALUE 'ON_HOLD';

-- AlterTable
ALTER TABLE "Proposal" ADD COLUMN     "assignee" TEXT COLLATE "C",
ADD COLUMN     "escalatedAt" TIMESTAMP(3),
ADD COLUMN     "escalatedTo" TEXT COLLATE "C",
ADD COLUMN     "heldBy" TEXT COLLATE "C",
ADD COLUMN     "heldFrom" "ProposalState",
ADD COLUMN     "outcomeUnknownAt" TIMESTAMP(3);

-- The states' CHECK takes ON_HOLD, and a proposal is held from PENDING or APPROVED exactly while ON_HOLD (both compared
-- as text: the new enum value may not be used in the transaction that adds it).
ALTER TABLE "Proposal" DROP CONSTRAINT "Proposal_state_check";
ALTER TABLE "Proposal" ADD CONSTRAINT "Proposal_state_check" CHECK (
    "state"::text IN ('PENDING', 'APPROVED', 'REJECTED', 'CHANGES_REQUESTED', 'CANCELLED', 'EXPIRED', 'STALE', 'EXECUTING', 'EXECUTED', 'FAILED', 'OUTCOME_UNKNOWN', 'ON_HOLD')
);
ALTER TABLE "Proposal" ADD CONSTRAINT "Proposal_hold_check" CHECK (
    ("state"::text = 'ON_HOLD') = ("heldFrom" IS NOT NULL) AND ("heldFrom" IS NULL OR "heldFrom"::text IN ('PENDING', 'APPROVED'))
);

-- Proposals already OUTCOME_UNKNOWN count from the upgrade.
UPDATE "Proposal" SET "outcomeUnknownAt" = now() WHERE "state" = 'OUTCOME_UNKNOWN';

-- CreateIndex
CREATE INDEX "Proposal_assignee_id_idx" ON "Proposal"("assignee", "id");

-- CreateIndex
CREATE INDEX "Proposal_state_escalatedAt_createdAt_idx" ON "Proposal"("state", "escalatedAt", "createdAt");

-- CreateIndex
CREATE INDEX "Proposal_state_escalatedAt_outcomeUnknownAt_idx" ON "Proposal"("state", "escalatedAt", "outcomeUnknownAt");

INSERT INTO "QueueCounter" ("name", "value") VALUES ('proposal:ON_HOLD', 0);
