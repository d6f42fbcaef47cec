-- CreateTable
CREATE TABLE "Category" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "createdAt" DATETIME NOT NULL,
    "createdBy" TEXT NOT NULL,
    "retiredAt" DATETIME,
    "retiredBy" TEXT
);

-- CreateTable
CREATE TABLE "Item" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "batchId" TEXT NOT NULL,
    "recordId" TEXT NOT NULL,
    "proposedCategory" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'PENDING',
    "finalCategory" TEXT,
    "reviewedBy" TEXT,
    "decidedAt" DATETIME,
    "createdAt" DATETIME NOT NULL,
    "addedBy" TEXT NOT NULL,
    "leaseTokenHash" TEXT,
    "claimedBy" TEXT,
    "claimedAt" DATETIME,
    "leaseExpiresAt" DATETIME,
    "version" INTEGER NOT NULL DEFAULT 1,
    -- Seed A's invariants, kept by the database as well as by the code.
    CONSTRAINT "Item_status_check" CHECK ("status" IN ('PENDING', 'ACCEPTED', 'CORRECTED', 'REJECTED')),
    CONSTRAINT "Item_lengths_check" CHECK (length("batchId") BETWEEN 1 AND 100 AND length("recordId") BETWEEN 1 AND 100 AND length("reason") BETWEEN 1 AND 1000),
    CONSTRAINT "Item_decision_check" CHECK (
        ("status" = 'PENDING' AND "finalCategory" IS NULL AND "reviewedBy" IS NULL AND "decidedAt" IS NULL)
        OR ("status" IN ('ACCEPTED', 'CORRECTED') AND "finalCategory" IS NOT NULL AND "reviewedBy" IS NOT NULL AND "decidedAt" IS NOT NULL)
        OR ("status" = 'REJECTED' AND "finalCategory" IS NULL AND "reviewedBy" IS NOT NULL AND "decidedAt" IS NOT NULL)
    ),
    CONSTRAINT "Item_accepted_check" CHECK ("status" <> 'ACCEPTED' OR "finalCategory" = "proposedCategory"),
    CONSTRAINT "Item_corrected_check" CHECK ("status" <> 'CORRECTED' OR "finalCategory" <> "proposedCategory"),
    CONSTRAINT "Item_lease_check" CHECK (
        ("leaseTokenHash" IS NULL AND "claimedBy" IS NULL AND "claimedAt" IS NULL AND "leaseExpiresAt" IS NULL)
        OR ("status" = 'PENDING' AND "leaseTokenHash" IS NOT NULL AND "claimedBy" IS NOT NULL AND "claimedAt" IS NOT NULL AND "leaseExpiresAt" > "claimedAt")
    ),
    CONSTRAINT "Item_proposedCategory_fkey" FOREIGN KEY ("proposedCategory") REFERENCES "Category" ("name") ON DELETE RESTRICT ON UPDATE RESTRICT,
    CONSTRAINT "Item_finalCategory_fkey" FOREIGN KEY ("finalCategory") REFERENCES "Category" ("name") ON DELETE RESTRICT ON UPDATE RESTRICT
);

-- CreateTable
CREATE TABLE "Event" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "occurredAt" DATETIME NOT NULL,
    "type" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "itemId" INTEGER,
    "categoryName" TEXT,
    "fromStatus" TEXT,
    "toStatus" TEXT,
    "leaseExpiresAt" DATETIME,
    "itemVersion" INTEGER,
    "details" TEXT NOT NULL DEFAULT '{}',
    CONSTRAINT "Event_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "Item" ("id") ON DELETE RESTRICT ON UPDATE RESTRICT
);

-- CreateIndex
CREATE UNIQUE INDEX "Item_leaseTokenHash_key" ON "Item"("leaseTokenHash");

-- CreateIndex
CREATE INDEX "Item_status_createdAt_batchId_recordId_idx" ON "Item"("status", "createdAt", "batchId", "recordId");

-- CreateIndex
CREATE UNIQUE INDEX "Item_batchId_recordId_key" ON "Item"("batchId", "recordId");

-- CreateIndex
CREATE INDEX "Event_itemId_id_idx" ON "Event"("itemId", "id");

-- The history is append-only: the database itself refuses to change or remove an event.
CREATE TRIGGER "Event_no_update" BEFORE UPDATE ON "Event"
BEGIN
    SELECT RAISE(ABORT, 'events are append-only: UPDATE is not allowed');
END;

CREATE TRIGGER "Event_no_delete" BEFORE DELETE ON "Event"
BEGIN
    SELECT RAISE(ABORT, 'events are append-only: DELETE is not allowed');
END;
