-- Lease identity and exactly-once expiry recording. Written by hand as ALTER TABLE ADD COLUMN so
-- the Item table keeps the CHECK constraints of the first migration (Prisma's generated version
-- redefines the table, which would drop them).
ALTER TABLE "Event" ADD COLUMN "leaseNumber" INTEGER;
ALTER TABLE "Item" ADD COLUMN "leaseNumber" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "Item" ADD COLUMN "leaseExpiryRecorded" BOOLEAN NOT NULL DEFAULT false;

CREATE INDEX "Item_leaseExpiryRecorded_leaseExpiresAt_idx" ON "Item"("leaseExpiryRecorded", "leaseExpiresAt");
