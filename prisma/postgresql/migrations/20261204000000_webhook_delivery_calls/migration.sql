-- Webhook deliveries (src/services/webhook-deliveries.ts) as operations of a `leasehold_write` call: the
-- cursor's step through the history, claims of due deliveries, results and claims given back. As interactive
-- transactions they held the write lock across a round trip per statement whenever webhooks were configured,
-- and every reviewer's write waited behind them. In PG_WRITE_MODE=sharded each takes the global lock inside
-- its batch, as the interactive transactions did, so two processes never enqueue or claim alike.

-- A time `op` names (ISO 8601, UTC) as the columns hold it.
CREATE FUNCTION "leasehold_op_time"(op JSONB, field TEXT) RETURNS TIMESTAMP(3)
LANGUAGE sql IMMUTABLE AS $$
  SELECT ((op->>field)::timestamptz AT TIME ZONE 'UTC')::timestamp(3)
$$;

-- One step of a webhook's cursor: the next `batch` events of the types it wants (up to the horizon in sharded
-- mode) get their delivery rows (an existing one left alone), and the cursor moves past them, or to the end of
-- the history when fewer were found. A webhook seen for the first time starts at the end. Answers how many
-- events it considered (a full batch: call again).
CREATE FUNCTION "leasehold_webhook_enqueue"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  sharded BOOLEAN := COALESCE((op->>'skipLocked')::boolean, FALSE);
  settled INTEGER;
  cursor_at INTEGER;
  newest INTEGER;
  found_ids INTEGER[];
  moved_to INTEGER;
BEGIN
  IF sharded THEN
    PERFORM pg_advisory_xact_lock(7415620002);
    -- Read in a statement of its own, before the events, so their snapshot sees every commit below it.
    settled := "leasehold_feed_horizon"();
  END IF;
  SELECT "lastEventId" INTO cursor_at FROM "WebhookCursor" WHERE "webhook" = op->>'webhook' FOR UPDATE;
  SELECT COALESCE(max("id"), 0) INTO newest FROM "Event";
  IF settled IS NOT NULL THEN
    newest := LEAST(newest, settled);
  END IF;
  IF cursor_at IS NULL THEN
    INSERT INTO "WebhookCursor" ("webhook", "lastEventId") VALUES (op->>'webhook', newest);
    RETURN jsonb_build_object('enqueued', 0);
  END IF;
  SELECT COALESCE(array_agg(e."id" ORDER BY e."id"), '{}') INTO found_ids FROM (
    SELECT "id" FROM "Event"
    WHERE "id" > cursor_at AND (settled IS NULL OR "id" <= settled)
      AND "type"::text IN (SELECT jsonb_array_elements_text(op->'events'))
    ORDER BY "id" LIMIT (op->>'batch')::int
  ) e;
  INSERT INTO "WebhookDelivery" ("webhook", "eventId", "status", "attempts", "nextAttemptAt", "createdAt")
  SELECT op->>'webhook', id, 'PENDING', 0, now_at, now_at FROM unnest(found_ids) WITH ORDINALITY AS f(id, ord) ORDER BY ord
  ON CONFLICT ("webhook", "eventId") DO NOTHING;
  moved_to := CASE WHEN cardinality(found_ids) = (op->>'batch')::int THEN found_ids[cardinality(found_ids)] ELSE newest END;
  IF moved_to > cursor_at THEN
    UPDATE "WebhookCursor" SET "lastEventId" = moved_to WHERE "webhook" = op->>'webhook';
  END IF;
  RETURN jsonb_build_object('enqueued', cardinality(found_ids));
END
$$;

-- Claims up to `limit` due deliveries of these webhooks until now + claimMs, soonest due first; a lapsed claim
-- counts as none. Answers the deliveries claimed, as rows, in that order.
CREATE FUNCTION "leasehold_webhook_claim"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  until_at TIMESTAMP(3) := now_at + ((op->>'claimMs')::bigint * INTERVAL '1 millisecond');
  claimed JSONB;
BEGIN
  IF COALESCE((op->>'skipLocked')::boolean, FALSE) THEN
    PERFORM pg_advisory_xact_lock(7415620002);
  END IF;
  WITH due AS (
    SELECT d."id", row_number() OVER (ORDER BY d."nextAttemptAt", d."id") AS ord
    FROM "WebhookDelivery" d
    WHERE d."status" = 'PENDING' AND d."webhook" IN (SELECT jsonb_array_elements_text(op->'webhooks'))
      AND d."nextAttemptAt" <= now_at AND (d."claimedUntil" IS NULL OR d."claimedUntil" <= now_at)
    ORDER BY d."nextAttemptAt", d."id" LIMIT (op->>'limit')::int
  ), updated AS (
    UPDATE "WebhookDelivery" w SET "claimedUntil" = until_at FROM due WHERE w."id" = due."id"
    RETURNING w.*, due.ord
  )
  SELECT COALESCE(jsonb_agg(to_jsonb(u) - 'ord' ORDER BY u.ord), '[]') INTO claimed FROM updated u;
  RETURN jsonb_build_object('deliveries', claimed);
END
$$;

-- What the receiver answered, while this claim (`claimedUntil`) still holds the delivery: DELIVERED, FAILED, or
-- another attempt `delayMs` from now (the instance draws the backoff). Answers whether it was recorded.
CREATE FUNCTION "leasehold_webhook_record"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  outcome TEXT := op->>'outcome';
BEGIN
  UPDATE "WebhookDelivery" SET
    "attempts" = (op->>'attempts')::int,
    "claimedUntil" = NULL,
    "lastStatusCode" = (op->>'statusCode')::int,
    "lastError" = op->>'error',
    "status" = CASE outcome WHEN 'DELIVERED' THEN 'DELIVERED'::"WebhookDeliveryStatus" WHEN 'FAILED' THEN 'FAILED'::"WebhookDeliveryStatus" ELSE "status" END,
    "deliveredAt" = CASE WHEN outcome = 'DELIVERED' THEN now_at ELSE "deliveredAt" END,
    "nextAttemptAt" = CASE WHEN outcome = 'RETRY' THEN now_at + ((op->>'delayMs')::bigint * INTERVAL '1 millisecond') ELSE "nextAttemptAt" END
  WHERE "id" = (op->>'id')::int AND "status" = 'PENDING' AND "claimedUntil" = "leasehold_op_time"(op, 'claimedUntil');
  RETURN jsonb_build_object('claimHeld', FOUND);
END
$$;

-- Claims given back (a stopping process that will not send them): each while its claim still holds it.
CREATE FUNCTION "leasehold_webhook_release"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "WebhookDelivery" w SET "claimedUntil" = NULL
  FROM jsonb_array_elements(op->'claims') AS c(value)
  WHERE w."id" = (c.value->>'id')::int AND w."status" = 'PENDING'
    AND w."claimedUntil" = "leasehold_op_time"(c.value, 'claimedUntil');
  RETURN jsonb_build_object('released', TRUE);
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
    WHEN 'webhookEnqueue' THEN "leasehold_webhook_enqueue"(op, now_at)
    WHEN 'webhookClaim' THEN "leasehold_webhook_claim"(op, now_at)
    WHEN 'webhookRecord' THEN "leasehold_webhook_record"(op, now_at)
    WHEN 'webhookRelease' THEN "leasehold_webhook_release"(op, now_at)
  END;
END
$$;
