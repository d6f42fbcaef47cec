-- Issue 17, items 7 and 9: auto-approved proposals (autoApprovedBy) reviewed after execution (afterReview, listed
-- from its index, PROPOSAL_REVIEWED_AFTER), and the reviewer context a submission carries (impact, constraints, rule).

-- CreateEnum
CREATE TYPE "AfterReview" AS ENUM ('NOT_NEEDED', 'PENDING', 'CONFIRMED', 'PROBLEM');

-- AlterEnum
ALTER TYPE "EventType" ADD VALUE 'PROPOSAL_REVIEWED_AFTER';

-- AlterTable
ALTER TABLE "Proposal" ADD COLUMN     "afterReview" "AfterReview" NOT NULL DEFAULT 'NOT_NEEDED',
ADD COLUMN     "afterReviewedAt" TIMESTAMP(3),
ADD COLUMN     "afterReviewedBy" TEXT COLLATE "C",
ADD COLUMN     "autoApprovedBy" TEXT COLLATE "C",
ADD COLUMN     "constraints" TEXT COLLATE "C",
ADD COLUMN     "impact" TEXT COLLATE "C",
ADD COLUMN     "rule" TEXT COLLATE "C";

-- CreateIndex
CREATE INDEX "Proposal_afterReview_id_idx" ON "Proposal"("afterReview", "id");

-- approvalsRequired 0 only when a policy approved it at submission (approvers: 0); context lengths; afterReview
-- other than NOT_NEEDED only for auto-approved proposals (as on SQLite).
ALTER TABLE "Proposal" DROP CONSTRAINT "Proposal_approvals_check";
ALTER TABLE "Proposal" ADD CONSTRAINT "Proposal_approvals_check" CHECK (
    "approvalsRequired" >= 1 OR ("approvalsRequired" = 0 AND "autoApprovedBy" IS NOT NULL)
);
ALTER TABLE "Proposal" ADD CONSTRAINT "Proposal_context_check" CHECK (
    ("impact" IS NULL OR length("impact") BETWEEN 1 AND 2000) AND ("constraints" IS NULL OR length("constraints") BETWEEN 1 AND 2000)
    AND ("rule" IS NULL OR length("rule") BETWEEN 1 AND 2000)
);
ALTER TABLE "Proposal" ADD CONSTRAINT "Proposal_after_review_check" CHECK ("afterReview"::text = 'NOT_NEEDED' OR "autoApprovedBy" IS NOT NULL);
