-- Approvals age one by one (docs/proposals.md, "Review"): while a proposal waits for more approvals, each
-- counts until lapsesAt, read by the deadline announcer from this index; PROPOSAL_APPROVAL_LAPSED records a lapse.

-- AlterTable
ALTER TABLE "ProposalApproval" ADD COLUMN "lapsesAt" DATETIME;

-- CreateIndex
CREATE INDEX "ProposalApproval_lapsesAt_idx" ON "ProposalApproval"("lapsesAt");
