-- The server remembers each target's last reported fingerprint (issue 17, item 2; docs/proposals.md), and an execution lease taken by hand is marked (item 1).

-- AlterTable
ALTER TABLE "Proposal" ADD COLUMN     "manualLease" BOOLEAN;

-- CreateTable
CREATE TABLE "TargetState" (
    "targetSystem" TEXT COLLATE "C" NOT NULL,
    "targetId" TEXT COLLATE "C" NOT NULL,
    "fingerprint" TEXT COLLATE "C" NOT NULL,
    "reportedAt" TIMESTAMP(3) NOT NULL,
    "reportedBy" TEXT COLLATE "C" NOT NULL,
    "source" TEXT COLLATE "C" NOT NULL,

    CONSTRAINT "TargetState_pkey" PRIMARY KEY ("targetSystem","targetId")
);
