-- The last writes that still held the write lock across an interactive transaction on the review path:
-- refused operations recorded in the history (OPERATION_REFUSED, src/services/refusals.ts), and the
-- categories a reviewer's decision depends on (added, retired). Each is now one operation of a
-- `leasehold_write` call; the TypeScript forms stay SQLite's path and the specification.

-- recordRefusals: OPERATION_REFUSED rows for one principal, their details as the instance wrote them.
CREATE FUNCTION "leasehold_record_refusals"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "Event" ("occurredAt", "type", "actor", "details")
  SELECT now_at, 'OPERATION_REFUSED', op->>'actor', d.value
  FROM jsonb_array_elements_text(op->'details') WITH ORDINALITY AS d(value, ord)
  ORDER BY d.ord;
  RETURN jsonb_build_object('recorded', jsonb_array_length(op->'details'));
END
$$;

-- The first of `names`, in their order, that is a category already (null: none).
CREATE FUNCTION "leasehold_category_taken"(names JSONB) RETURNS TEXT
LANGUAGE sql STABLE AS $$
  SELECT n.value FROM jsonb_array_elements_text(names) WITH ORDINALITY AS n(value, ord)
  JOIN "Category" c ON c."name" = n.value
  ORDER BY n.ord LIMIT 1
$$;

-- addCategories: all or nothing; the first name that exists refuses the call (DUPLICATE_CATEGORY). Each new
-- category with its CATEGORY_ADDED event, in the order given.
CREATE FUNCTION "leasehold_add_categories"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  taken TEXT := "leasehold_category_taken"(op->'names');
  added JSONB;
BEGIN
  IF taken IS NOT NULL THEN
    RETURN jsonb_build_object('refusal', 'DUPLICATE_CATEGORY', 'taken', taken);
  END IF;
  BEGIN
    WITH names AS (
      SELECT n.value AS name, n.ord FROM jsonb_array_elements_text(op->'names') WITH ORDINALITY AS n(value, ord)
    ), inserted AS (
      INSERT INTO "Category" ("name", "createdAt", "createdBy")
      SELECT name, now_at, op->>'actor' FROM names ORDER BY ord
      RETURNING *
    ), events AS (
      INSERT INTO "Event" ("occurredAt", "type", "actor", "categoryName", "details")
      SELECT now_at, 'CATEGORY_ADDED', op->>'actor', i."name", '{}'
      FROM inserted i JOIN names n ON n.name = i."name" ORDER BY n.ord
    )
    SELECT jsonb_agg(to_jsonb(i) ORDER BY n.ord) INTO added FROM inserted i JOIN names n ON n.name = i."name";
  EXCEPTION WHEN unique_violation THEN
    -- Added meanwhile by a writer that does not wait for this one (PG_WRITE_MODE=sharded): refused as if
    -- seen first; this statement's snapshot is newer than the check's.
    RETURN jsonb_build_object('refusal', 'DUPLICATE_CATEGORY', 'taken', "leasehold_category_taken"(op->'names'));
  END;
  RETURN jsonb_build_object('categories', added);
END
$$;

-- retireCategory: CATEGORY_NOT_FOUND, CATEGORY_RETIRED (already), or retired with its CATEGORY_RETIRED event.
CREATE FUNCTION "leasehold_retire_category"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  category "Category";
BEGIN
  SELECT * INTO category FROM "Category" WHERE "name" = op->>'name' FOR UPDATE;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('refusal', 'CATEGORY_NOT_FOUND');
  END IF;
  IF category."retiredAt" IS NOT NULL THEN
    RETURN jsonb_build_object('refusal', 'CATEGORY_RETIRED');
  END IF;
  UPDATE "Category" SET "retiredAt" = now_at, "retiredBy" = op->>'actor' WHERE "name" = category."name"
  RETURNING * INTO category;
  INSERT INTO "Event" ("occurredAt", "type", "actor", "categoryName", "details")
  VALUES (now_at, 'CATEGORY_RETIRED', op->>'actor', category."name", '{}');
  RETURN jsonb_build_object('retiredCategory', to_jsonb(category));
END
$$;

CREATE OR REPLACE FUNCTION "leasehold_operation"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
BEGIN
  RETURN CASE op->>'op'
    WHEN 'proposalClaim' THEN "leasehold_proposal_claim"(op, now_at)
    WHEN 'proposalRenew' THEN "leasehold_proposal_renew"(op, now_at)
    WHEN 'proposalRelease' THEN "leasehold_proposal_release"(op, now_at)
    WHEN 'executionClaim' THEN "leasehold_execution_claim"(op, now_at)
    WHEN 'proposalTurnDown' THEN "leasehold_proposal_turn_down"(op, now_at)
    WHEN 'proposalCancel' THEN "leasehold_proposal_cancel"(op, now_at)
    WHEN 'proposalApprove' THEN "leasehold_proposal_approve"(op, now_at)
    WHEN 'proposalSubmit' THEN "leasehold_proposal_submit"(op, now_at)
    WHEN 'executionStart' THEN "leasehold_execution_start"(op, now_at)
    WHEN 'executionReport' THEN "leasehold_execution_report"(op, now_at)
    WHEN 'targetReport' THEN "leasehold_target_report"(op, now_at)
    WHEN 'proposalHold' THEN "leasehold_proposal_hold"(op, now_at)
    WHEN 'proposalResume' THEN "leasehold_proposal_resume"(op, now_at)
    WHEN 'proposalEscalate' THEN "leasehold_proposal_attention"(op, now_at)
    WHEN 'proposalAssign' THEN "leasehold_proposal_attention"(op, now_at)
    WHEN 'executionClaimManual' THEN "leasehold_execution_claim_manual"(op, now_at)
    WHEN 'executionRecordManual' THEN "leasehold_execution_record_manual"(op, now_at)
    WHEN 'proposalReconcile' THEN "leasehold_proposal_reconcile"(op, now_at)
    WHEN 'proposalReviewAfter' THEN "leasehold_proposal_review_after"(op, now_at)
    WHEN 'proposalDeadlines' THEN "leasehold_proposal_deadlines"(op, now_at)
    WHEN 'recordRefusals' THEN "leasehold_record_refusals"(op, now_at)
    WHEN 'addCategories' THEN "leasehold_add_categories"(op, now_at)
    WHEN 'retireCategory' THEN "leasehold_retire_category"(op, now_at)
  END;
END
$$;
