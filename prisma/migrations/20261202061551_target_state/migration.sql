-- The server remembers each target's last reported fingerprint (issue 17, item 2; docs/proposals.md), and an execution lease taken by hand is marked (item 1).

-- AlterTable
ALTER TABLE "Proposal" ADD COLUMN "manualLease" BOOLEAN;

-- CreateTable
CREATE TABLE "TargetState" (
    "targetSystem" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "reportedAt" DATETIME NOT NULL,
    "reportedBy" TEXT NOT NULL,
    "source" TEXT NOT NULL,

    PRIMARY KEY ("targetSystem", "targetId")
);
