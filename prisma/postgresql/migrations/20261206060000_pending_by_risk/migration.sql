-- Pending proposals by risk level, maintained like the other live counters (live_counters): one QueueCounter row per
-- level, proposal-pending:<riskLevel>, kept by triggers in the same transaction as every change to "Proposal", so
-- the dashboard's "awaiting approval by risk" is four row reads whatever the number of proposals. Counted once here.
INSERT INTO "QueueCounter" ("name", "value")
SELECT 'proposal-pending:' || r::text, (SELECT count(*) FROM "Proposal" WHERE "state" = 'PENDING' AND "riskLevel" = r)::int
FROM unnest(enum_range(NULL::"RiskLevel")) AS r;

CREATE FUNCTION "Proposal_pending_risk_insert"() RETURNS TRIGGER
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE "QueueCounter" c SET "value" = c."value" + d.n
    FROM (SELECT 'proposal-pending:' || "riskLevel"::text AS name, count(*)::int AS n FROM new_rows WHERE "state" = 'PENDING' GROUP BY "riskLevel") d
    WHERE c."name" = d.name;
    RETURN NULL;
END;
$$;

CREATE FUNCTION "Proposal_pending_risk_change"() RETURNS TRIGGER
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD."state" = 'PENDING' THEN
        UPDATE "QueueCounter" SET "value" = "value" - 1 WHERE "name" = 'proposal-pending:' || OLD."riskLevel"::text;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW."state" = 'PENDING' THEN
        UPDATE "QueueCounter" SET "value" = "value" + 1 WHERE "name" = 'proposal-pending:' || NEW."riskLevel"::text;
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER "Proposal_pending_risk_insert" AFTER INSERT ON "Proposal"
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "Proposal_pending_risk_insert"();
CREATE TRIGGER "Proposal_pending_risk_update" AFTER UPDATE OF "state", "riskLevel" ON "Proposal" FOR EACH ROW
WHEN ((OLD."state" = 'PENDING') IS DISTINCT FROM (NEW."state" = 'PENDING')
  OR (NEW."state" = 'PENDING' AND OLD."riskLevel" IS DISTINCT FROM NEW."riskLevel"))
EXECUTE FUNCTION "Proposal_pending_risk_change"();
CREATE TRIGGER "Proposal_pending_risk_delete" AFTER DELETE ON "Proposal" FOR EACH ROW
WHEN (OLD."state" = 'PENDING')
EXECUTE FUNCTION "Proposal_pending_risk_change"();
