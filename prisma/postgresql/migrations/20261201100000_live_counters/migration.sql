-- Live statistics in O(1): a small table of counts kept by triggers in the same transaction as every
-- change to "Item" and "Proposal", so every writer (every instance, the command line, a bulk import)
-- keeps it exact without knowing about it. The same rows and meaning as the SQLite migration of the
-- same name. Writers already follow one another under the write lock (client.ts), so the few hot rows
-- cost no extra waiting. Counts that depend on the clock are not stored: they are index range reads.
--
-- Rows: item:<status> for each ItemStatus; item:leased, pending items with a lease recorded (active or
-- lapsed); proposal:<state> for each ProposalState; proposal:approved, proposals ever fully approved.

-- CreateTable
CREATE TABLE "QueueCounter" (
    "name" TEXT COLLATE "C" NOT NULL,
    "value" INTEGER NOT NULL,

    CONSTRAINT "QueueCounter_pkey" PRIMARY KEY ("name")
);

-- CreateIndex: active leases (status = 'PENDING' AND leaseExpiresAt > now) are counted over it.
CREATE INDEX "Item_status_leaseExpiresAt_idx" ON "Item"("status", "leaseExpiresAt");

-- ---------------------------------------------------------------------------------------------------
-- Hand-written from here on (Prisma's diff does not see triggers).

-- What an existing database holds at upgrade; from here on the triggers keep the rows exact.
INSERT INTO "QueueCounter" ("name", "value")
SELECT 'item:' || s::text, (SELECT count(*) FROM "Item" WHERE "status" = s)::int FROM unnest(enum_range(NULL::"ItemStatus")) AS s;
INSERT INTO "QueueCounter" ("name", "value")
VALUES ('item:leased', (SELECT count(*) FROM "Item" WHERE "status" = 'PENDING' AND "leaseTokenHash" IS NOT NULL)::int);
INSERT INTO "QueueCounter" ("name", "value")
SELECT 'proposal:' || s::text, (SELECT count(*) FROM "Proposal" WHERE "state" = s)::int FROM unnest(enum_range(NULL::"ProposalState")) AS s;
INSERT INTO "QueueCounter" ("name", "value")
VALUES ('proposal:approved', (SELECT count(*) FROM "Proposal" WHERE "approvedAt" IS NOT NULL)::int);

-- Inserts are counted once per statement from its transition table, so a bulk insert of many rows
-- updates each counter once rather than once per row.
CREATE FUNCTION "Item_count_insert"() RETURNS TRIGGER
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE "QueueCounter" c SET "value" = c."value" + d.n
    FROM (
        SELECT 'item:' || "status"::text AS name, count(*)::int AS n FROM new_rows GROUP BY "status"
        UNION ALL
        SELECT 'item:leased', count(*)::int FROM new_rows WHERE "status" = 'PENDING' AND "leaseTokenHash" IS NOT NULL
    ) d
    WHERE c."name" = d.name AND d.n <> 0;
    RETURN NULL;
END;
$$;

-- An UPDATE is counted only when the status or the presence of a lease changes (the WHEN below).
CREATE FUNCTION "Item_count_change"() RETURNS TRIGGER
LANGUAGE plpgsql AS $$
DECLARE
    was_leased int := 0;
    is_leased int := 0;
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        IF OLD."status" = 'PENDING' AND OLD."leaseTokenHash" IS NOT NULL THEN was_leased := 1; END IF;
        IF TG_OP = 'DELETE' OR OLD."status" IS DISTINCT FROM NEW."status" THEN
            UPDATE "QueueCounter" SET "value" = "value" - 1 WHERE "name" = 'item:' || OLD."status"::text;
        END IF;
    END IF;
    IF TG_OP = 'UPDATE' THEN
        IF NEW."status" = 'PENDING' AND NEW."leaseTokenHash" IS NOT NULL THEN is_leased := 1; END IF;
        IF OLD."status" IS DISTINCT FROM NEW."status" THEN
            UPDATE "QueueCounter" SET "value" = "value" + 1 WHERE "name" = 'item:' || NEW."status"::text;
        END IF;
    END IF;
    IF is_leased <> was_leased THEN
        UPDATE "QueueCounter" SET "value" = "value" + is_leased - was_leased WHERE "name" = 'item:leased';
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER "Item_count_insert" AFTER INSERT ON "Item"
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "Item_count_insert"();
CREATE TRIGGER "Item_count_update" AFTER UPDATE OF "status", "leaseTokenHash" ON "Item" FOR EACH ROW
WHEN (OLD."status" IS DISTINCT FROM NEW."status" OR (OLD."leaseTokenHash" IS NULL) <> (NEW."leaseTokenHash" IS NULL))
EXECUTE FUNCTION "Item_count_change"();
CREATE TRIGGER "Item_count_delete" AFTER DELETE ON "Item" FOR EACH ROW EXECUTE FUNCTION "Item_count_change"();

CREATE FUNCTION "Proposal_count_insert"() RETURNS TRIGGER
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE "QueueCounter" c SET "value" = c."value" + d.n
    FROM (
        SELECT 'proposal:' || "state"::text AS name, count(*)::int AS n FROM new_rows GROUP BY "state"
        UNION ALL
        SELECT 'proposal:approved', count(*)::int FROM new_rows WHERE "approvedAt" IS NOT NULL
    ) d
    WHERE c."name" = d.name AND d.n <> 0;
    RETURN NULL;
END;
$$;

-- An UPDATE is counted only when the state changes or the proposal becomes (fully) approved.
CREATE FUNCTION "Proposal_count_change"() RETURNS TRIGGER
LANGUAGE plpgsql AS $$
DECLARE
    was_approved int := 0;
    is_approved int := 0;
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        IF OLD."approvedAt" IS NOT NULL THEN was_approved := 1; END IF;
        IF TG_OP = 'DELETE' OR OLD."state" IS DISTINCT FROM NEW."state" THEN
            UPDATE "QueueCounter" SET "value" = "value" - 1 WHERE "name" = 'proposal:' || OLD."state"::text;
        END IF;
    END IF;
    IF TG_OP = 'UPDATE' THEN
        IF NEW."approvedAt" IS NOT NULL THEN is_approved := 1; END IF;
        IF OLD."state" IS DISTINCT FROM NEW."state" THEN
            UPDATE "QueueCounter" SET "value" = "value" + 1 WHERE "name" = 'proposal:' || NEW."state"::text;
        END IF;
    END IF;
    IF is_approved <> was_approved THEN
        UPDATE "QueueCounter" SET "value" = "value" + is_approved - was_approved WHERE "name" = 'proposal:approved';
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER "Proposal_count_insert" AFTER INSERT ON "Proposal"
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "Proposal_count_insert"();
CREATE TRIGGER "Proposal_count_update" AFTER UPDATE OF "state", "approvedAt" ON "Proposal" FOR EACH ROW
WHEN (OLD."state" IS DISTINCT FROM NEW."state" OR (OLD."approvedAt" IS NULL) <> (NEW."approvedAt" IS NULL))
EXECUTE FUNCTION "Proposal_count_change"();
CREATE TRIGGER "Proposal_count_delete" AFTER DELETE ON "Proposal" FOR EACH ROW EXECUTE FUNCTION "Proposal_count_change"();
