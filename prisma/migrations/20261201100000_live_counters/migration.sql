-- Live statistics in O(1): a small table of counts kept by triggers in the same transaction as every
-- change to "Item" and "Proposal", so every writer (the server, the command line, `leasehold import`,
-- another process) keeps it exact without knowing about it. Read by the event tail's queueStats and by
-- services/proposal-stats.ts instead of aggregating the tables. Counts that depend on the clock (active
-- leases, age buckets) are not stored: they are index range reads bounded by their answer.
--
-- Rows: item:<status> for each ItemStatus; item:leased, pending items with a lease recorded (active or
-- lapsed); proposal:<state> for each ProposalState; proposal:approved, proposals ever fully approved.
CREATE TABLE "QueueCounter" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "value" INTEGER NOT NULL
);

-- Active leases (status = 'PENDING' AND leaseExpiresAt > now) are counted over this index: a range
-- read as long as the answer, whatever the size of the queue.
CREATE INDEX "Item_status_leaseExpiresAt_idx" ON "Item"("status", "leaseExpiresAt");

-- What an existing file holds at upgrade; from here on the triggers keep the rows exact.
INSERT INTO "QueueCounter" ("name", "value")
SELECT 'item:' || "status", (SELECT count(*) FROM "Item" WHERE "Item"."status" = statuses."status")
FROM (SELECT 'PENDING' AS "status" UNION ALL SELECT 'ACCEPTED' UNION ALL SELECT 'CORRECTED' UNION ALL SELECT 'REJECTED') AS statuses;
INSERT INTO "QueueCounter" ("name", "value")
VALUES ('item:leased', (SELECT count(*) FROM "Item" WHERE "status" = 'PENDING' AND "leaseTokenHash" IS NOT NULL));
INSERT INTO "QueueCounter" ("name", "value")
SELECT 'proposal:' || "state", (SELECT count(*) FROM "Proposal" WHERE "Proposal"."state" = states."state")
FROM (
    SELECT 'PENDING' AS "state" UNION ALL SELECT 'APPROVED' UNION ALL SELECT 'REJECTED' UNION ALL SELECT 'CHANGES_REQUESTED'
    UNION ALL SELECT 'CANCELLED' UNION ALL SELECT 'EXPIRED' UNION ALL SELECT 'STALE' UNION ALL SELECT 'EXECUTING'
    UNION ALL SELECT 'EXECUTED' UNION ALL SELECT 'FAILED' UNION ALL SELECT 'OUTCOME_UNKNOWN'
) AS states;
INSERT INTO "QueueCounter" ("name", "value")
VALUES ('proposal:approved', (SELECT count(*) FROM "Proposal" WHERE "approvedAt" IS NOT NULL));

-- Items. An UPDATE fires only when the status or the presence of a lease changes (not on renewals).
CREATE TRIGGER "Item_count_insert" AFTER INSERT ON "Item"
BEGIN
    UPDATE "QueueCounter" SET "value" = "value" + 1 WHERE "name" = 'item:' || NEW."status";
    UPDATE "QueueCounter" SET "value" = "value" + 1
    WHERE "name" = 'item:leased' AND NEW."status" = 'PENDING' AND NEW."leaseTokenHash" IS NOT NULL;
END;

CREATE TRIGGER "Item_count_update" AFTER UPDATE OF "status", "leaseTokenHash" ON "Item"
WHEN OLD."status" IS NOT NEW."status" OR (OLD."leaseTokenHash" IS NULL) IS NOT (NEW."leaseTokenHash" IS NULL)
BEGIN
    UPDATE "QueueCounter" SET "value" = "value" - 1 WHERE "name" = 'item:' || OLD."status" AND OLD."status" IS NOT NEW."status";
    UPDATE "QueueCounter" SET "value" = "value" + 1 WHERE "name" = 'item:' || NEW."status" AND OLD."status" IS NOT NEW."status";
    UPDATE "QueueCounter"
    SET "value" = "value" + (NEW."status" = 'PENDING' AND NEW."leaseTokenHash" IS NOT NULL) - (OLD."status" = 'PENDING' AND OLD."leaseTokenHash" IS NOT NULL)
    WHERE "name" = 'item:leased';
END;

CREATE TRIGGER "Item_count_delete" AFTER DELETE ON "Item"
BEGIN
    UPDATE "QueueCounter" SET "value" = "value" - 1 WHERE "name" = 'item:' || OLD."status";
    UPDATE "QueueCounter" SET "value" = "value" - 1
    WHERE "name" = 'item:leased' AND OLD."status" = 'PENDING' AND OLD."leaseTokenHash" IS NOT NULL;
END;

-- Proposals. An UPDATE fires only when the state changes or the proposal becomes (fully) approved.
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
