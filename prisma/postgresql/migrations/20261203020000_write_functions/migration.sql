-- The review loop's writes as one statement each (issue 18, src/db/write-calls.ts): claim, renew,
-- release, decide and adding items run here, under the write lock, instead of as an interactive transaction whose
-- every statement is a round trip to the instance. `leasehold_write` takes the lock, runs a batch of
-- such operations, each in a subtransaction of its own (one that fails is rolled back alone, as a
-- savepoint does in group commit), and commits when the statement ends: nothing but the operations'
-- own statements runs while the lock is held. The TypeScript forms in src/services/leases.ts and
-- decisions.ts are the specification; both backends run the same tests.

-- A time as JSON.stringify writes a Date (ISO 8601, milliseconds, UTC).
CREATE FUNCTION "leasehold_iso"(at TIMESTAMP(3)) RETURNS TEXT
LANGUAGE sql STABLE AS $$
  SELECT to_char(at, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

-- One member of a JSON object as JSON.stringify writes it ("key":value); NULL leaves it out (concat_ws).
CREATE FUNCTION "leasehold_member"(key TEXT, value JSON) RETURNS TEXT
LANGUAGE sql STABLE AS $$
  SELECT to_json(key)::text || ':' || COALESCE(value::text, 'null')
$$;

CREATE FUNCTION "leasehold_ms"(ms DOUBLE PRECISION) RETURNS INTERVAL
LANGUAGE sql IMMUTABLE AS $$
  SELECT make_interval(secs => ms / 1000.0)
$$;

-- The time an operation stamps: its instance's clock, lifted to the last recorded change when that is
-- ahead by no more than `op.maxLiftMs` (absent: without limit), as flooredClock does (decision 0008).
CREATE FUNCTION "leasehold_now"(op JSONB, floor_at TIMESTAMP(3)) RETURNS TIMESTAMP(3)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  clock_at TIMESTAMP(3) := ((op->>'now')::timestamptz AT TIME ZONE 'UTC');
BEGIN
  IF (op->>'lift')::boolean AND floor_at IS NOT NULL AND floor_at > clock_at
     AND (op->'maxLiftMs' IS NULL OR floor_at - clock_at <= "leasehold_ms"((op->>'maxLiftMs')::float8)) THEN
    RETURN floor_at;
  END IF;
  RETURN clock_at;
END
$$;

CREATE FUNCTION "leasehold_item_event"(
  event_type "EventType", actor TEXT, at TIMESTAMP(3), item "Item", lease_number INTEGER, details TEXT,
  from_status "ItemStatus" DEFAULT NULL, to_status "ItemStatus" DEFAULT NULL
) RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "Event" ("occurredAt", "type", "actor", "itemId", "itemVersion", "leaseExpiresAt", "fromStatus", "toStatus", "details", "leaseNumber")
  VALUES (at, event_type, actor, item."id", item."version", item."leaseExpiresAt", from_status, to_status, details, lease_number);
END
$$;

-- recordLapse: records the lapse of the item's current lease once (the conditional write only one
-- writer wins), with its LEASE_EXPIRED event. Returns the item after it (unchanged when already recorded).
CREATE FUNCTION "leasehold_record_lapse"(item "Item", now_at TIMESTAMP(3), longest TIMESTAMP(3)) RETURNS "Item"
LANGUAGE plpgsql AS $$
DECLARE
  recorded "Item";
BEGIN
  UPDATE "Item" SET "leaseExpiryRecorded" = TRUE, "version" = "version" + 1
  WHERE "id" = item."id" AND "leaseNumber" = item."leaseNumber" AND "leaseExpiryRecorded" = FALSE AND "status" = 'PENDING'
    AND "leaseTokenHash" IS NOT NULL AND ("leaseExpiresAt" <= now_at OR "leaseExpiresAt" > longest)
  RETURNING * INTO recorded;
  IF NOT FOUND THEN
    RETURN item;
  END IF;
  PERFORM "leasehold_item_event"('LEASE_EXPIRED', 'system', now_at, recorded, item."leaseNumber",
    '{' || concat_ws(',',
      "leasehold_member"('holder', to_json(item."claimedBy")),
      "leasehold_member"('expiredAt', to_json("leasehold_iso"(item."leaseExpiresAt"))),
      CASE WHEN item."leaseExpiresAt" > longest THEN "leasehold_member"('overlong', 'true') END
    ) || '}');
  RETURN recorded;
END
$$;

-- findActiveLease's read: the item holding the token, if it is still the holder's to use. A refusal
-- answers the row as found (or none), and the instance derives the same refusal as on SQLite from it.
CREATE FUNCTION "leasehold_held"(op JSONB, now_at TIMESTAMP(3), OUT held "Item", OUT usable BOOLEAN)
LANGUAGE plpgsql AS $$
BEGIN
  SELECT * INTO held FROM "Item" WHERE "leaseTokenHash" = op->>'tokenHash';
  usable := FOUND AND held."status" = 'PENDING' AND held."leaseExpiresAt" IS NOT NULL
    AND NOT ((op->>'authenticated')::boolean AND held."claimedBy" IS DISTINCT FROM op->>'actor')
    AND NOT held."leaseExpiryRecorded" AND held."leaseExpiresAt" > now_at
    AND held."leaseExpiresAt" - now_at <= "leasehold_ms"((op->>'longestMs')::float8);
END
$$;

-- claimItem.
CREATE FUNCTION "leasehold_claim"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  longest TIMESTAMP(3) := now_at + "leasehold_ms"((op->>'longestMs')::float8);
  batch_id TEXT := op->>'batchId';
  not_added_by TEXT := op->>'notAddedBy';
  overlong "Item";
  found_item "Item";
  candidate "Item";
  granted "Item";
BEGIN
  FOR overlong IN
    SELECT * FROM "Item"
    WHERE "leaseExpiryRecorded" = FALSE AND "leaseExpiresAt" > longest AND "status" = 'PENDING' AND "leaseTokenHash" IS NOT NULL
    ORDER BY "leaseExpiresAt" DESC LIMIT (op->>'overlongLimit')::int
  LOOP
    PERFORM "leasehold_record_lapse"(overlong, now_at, longest);
  END LOOP;

  IF batch_id IS NULL AND not_added_by IS NULL THEN
    SELECT * INTO found_item FROM "Item"
    WHERE "status" = 'PENDING' AND ("leaseTokenHash" IS NULL OR "leaseExpiresAt" <= now_at OR "leaseExpiryRecorded")
    ORDER BY "createdAt", "batchId", "recordId" LIMIT 1;
  ELSIF batch_id IS NULL THEN
    SELECT * INTO found_item FROM "Item"
    WHERE "status" = 'PENDING' AND ("leaseTokenHash" IS NULL OR "leaseExpiresAt" <= now_at OR "leaseExpiryRecorded") AND "addedBy" <> not_added_by
    ORDER BY "createdAt", "batchId", "recordId" LIMIT 1;
  ELSIF not_added_by IS NULL THEN
    SELECT * INTO found_item FROM "Item"
    WHERE "status" = 'PENDING' AND ("leaseTokenHash" IS NULL OR "leaseExpiresAt" <= now_at OR "leaseExpiryRecorded") AND "batchId" = batch_id
    ORDER BY "createdAt", "batchId", "recordId" LIMIT 1;
  ELSE
    SELECT * INTO found_item FROM "Item"
    WHERE "status" = 'PENDING' AND ("leaseTokenHash" IS NULL OR "leaseExpiresAt" <= now_at OR "leaseExpiryRecorded")
      AND "batchId" = batch_id AND "addedBy" <> not_added_by
    ORDER BY "createdAt", "batchId", "recordId" LIMIT 1;
  END IF;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('none', TRUE);
  END IF;

  candidate := found_item;
  IF found_item."leaseTokenHash" IS NOT NULL AND NOT found_item."leaseExpiryRecorded" THEN
    candidate := "leasehold_record_lapse"(found_item, now_at, longest);
  END IF;

  UPDATE "Item" SET "leaseTokenHash" = op->>'tokenHash', "claimedBy" = op->>'holder', "claimedAt" = now_at,
    "leaseExpiresAt" = now_at + "leasehold_ms"((op->>'leaseSeconds')::float8 * 1000),
    "leaseNumber" = "leaseNumber" + 1, "leaseExpiryRecorded" = FALSE, "version" = "version" + 1
  WHERE "id" = candidate."id" AND "status" = 'PENDING' AND ("leaseTokenHash" IS NULL OR "leaseExpiresAt" <= now_at OR "leaseExpiryRecorded")
  RETURNING * INTO granted;
  IF NOT FOUND THEN
    -- Undoes what the operation wrote before (a lapse recorded by a claim), as a failed job's savepoint does.
    RAISE EXCEPTION 'the item changed under the operation' USING ERRCODE = 'LH001';
  END IF;

  PERFORM "leasehold_item_event"('LEASE_CLAIMED', op->>'holder', now_at, granted, granted."leaseNumber",
    '{' || concat_ws(',',
      "leasehold_member"('holder', to_json(op->>'holder')),
      "leasehold_member"('leaseSeconds', (op->'leaseSeconds')::json),
      CASE WHEN candidate."leaseTokenHash" IS NOT NULL THEN concat_ws(',',
        "leasehold_member"('replacedHolder', to_json(candidate."claimedBy")),
        "leasehold_member"('replacedLeaseNumber', to_json(candidate."leaseNumber")),
        "leasehold_member"('replacedLeaseExpiredAt', to_json("leasehold_iso"(candidate."leaseExpiresAt"))))
      END
    ) || '}');
  RETURN jsonb_build_object('item', to_jsonb(granted));
END
$$;

-- renewLease.
CREATE FUNCTION "leasehold_renew"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  found_lease RECORD;
  renewed "Item";
BEGIN
  SELECT * INTO found_lease FROM "leasehold_held"(op, now_at);
  IF NOT found_lease.usable THEN
    RETURN jsonb_build_object('refused', TRUE, 'held', CASE WHEN (found_lease.held)."id" IS NULL THEN NULL ELSE to_jsonb(found_lease.held) END);
  END IF;
  UPDATE "Item" SET "leaseExpiresAt" = now_at + "leasehold_ms"((op->>'leaseSeconds')::float8 * 1000), "version" = "version" + 1
  WHERE "id" = (found_lease.held)."id" AND "status" = 'PENDING' AND "leaseTokenHash" = op->>'tokenHash'
    AND "leaseExpiresAt" > now_at AND NOT "leaseExpiryRecorded"
  RETURNING * INTO renewed;
  IF NOT FOUND THEN
    -- Undoes what the operation wrote before (a lapse recorded by a claim), as a failed job's savepoint does.
    RAISE EXCEPTION 'the item changed under the operation' USING ERRCODE = 'LH001';
  END IF;
  PERFORM "leasehold_item_event"('LEASE_RENEWED', COALESCE((found_lease.held)."claimedBy", op->>'actor'), now_at, renewed,
    (found_lease.held)."leaseNumber",
    '{' || concat_ws(',',
      "leasehold_member"('holder', to_json((found_lease.held)."claimedBy")),
      "leasehold_member"('leaseSeconds', (op->'leaseSeconds')::json),
      "leasehold_member"('previousExpiresAt', to_json("leasehold_iso"((found_lease.held)."leaseExpiresAt")))
    ) || '}');
  RETURN jsonb_build_object('item', to_jsonb(renewed));
END
$$;

-- releaseLease.
CREATE FUNCTION "leasehold_release"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  found_lease RECORD;
  released "Item";
BEGIN
  SELECT * INTO found_lease FROM "leasehold_held"(op, now_at);
  IF NOT found_lease.usable THEN
    RETURN jsonb_build_object('refused', TRUE, 'held', CASE WHEN (found_lease.held)."id" IS NULL THEN NULL ELSE to_jsonb(found_lease.held) END);
  END IF;
  UPDATE "Item" SET "leaseTokenHash" = NULL, "claimedBy" = NULL, "claimedAt" = NULL, "leaseExpiresAt" = NULL, "version" = "version" + 1
  WHERE "id" = (found_lease.held)."id" AND "status" = 'PENDING' AND "leaseTokenHash" = op->>'tokenHash'
    AND "leaseExpiresAt" > now_at AND NOT "leaseExpiryRecorded"
  RETURNING * INTO released;
  IF NOT FOUND THEN
    -- Undoes what the operation wrote before (a lapse recorded by a claim), as a failed job's savepoint does.
    RAISE EXCEPTION 'the item changed under the operation' USING ERRCODE = 'LH001';
  END IF;
  PERFORM "leasehold_item_event"('LEASE_RELEASED', COALESCE((found_lease.held)."claimedBy", op->>'actor'), now_at, released,
    (found_lease.held)."leaseNumber",
    '{' || concat_ws(',',
      "leasehold_member"('holder', to_json((found_lease.held)."claimedBy")),
      CASE WHEN COALESCE(op->>'reason', '') <> '' THEN "leasehold_member"('reason', to_json(op->>'reason')) END
    ) || '}');
  RETURN jsonb_build_object('item', to_jsonb(released));
END
$$;

-- decideItem. A refusal of the category answers what the instance needs to derive it (finalCategory).
CREATE FUNCTION "leasehold_decide"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  found_lease RECORD;
  held "Item";
  decision "ItemStatus" := (op->>'decision')::"ItemStatus";
  correction TEXT := op->>'correction';
  retired_at TIMESTAMP(3);
  category_found BOOLEAN := FALSE;
  final_category TEXT;
  reviewed_by TEXT;
  decided "Item";
BEGIN
  SELECT * INTO found_lease FROM "leasehold_held"(op, now_at);
  held := found_lease.held;
  IF NOT found_lease.usable THEN
    RETURN jsonb_build_object('refused', TRUE, 'held', CASE WHEN held."id" IS NULL THEN NULL ELSE to_jsonb(held) END);
  END IF;
  IF (op->>'authenticated')::boolean AND held."addedBy" = op->>'actor' THEN
    RETURN jsonb_build_object('selfReview', TRUE);
  END IF;
  IF decision = 'ACCEPTED' THEN
    final_category := held."proposedCategory";
  ELSIF decision = 'CORRECTED' THEN
    SELECT "retiredAt", TRUE INTO retired_at, category_found FROM "Category" WHERE "name" = correction;
    IF NOT FOUND OR correction = held."proposedCategory" OR retired_at IS NOT NULL THEN
      RETURN jsonb_build_object('category', jsonb_build_object(
        'proposedCategory', held."proposedCategory", 'exists', COALESCE(category_found, FALSE), 'retired', retired_at IS NOT NULL));
    END IF;
    final_category := correction;
  END IF;
  reviewed_by := COALESCE(held."claimedBy", op->>'actor');

  UPDATE "Item" SET "status" = decision, "finalCategory" = final_category, "reviewedBy" = reviewed_by, "decidedAt" = now_at,
    "leaseTokenHash" = NULL, "claimedBy" = NULL, "claimedAt" = NULL, "leaseExpiresAt" = NULL, "version" = "version" + 1
  WHERE "id" = held."id" AND "status" = 'PENDING' AND "leaseTokenHash" = op->>'tokenHash'
    AND "leaseExpiresAt" > now_at AND NOT "leaseExpiryRecorded"
  RETURNING * INTO decided;
  IF NOT FOUND THEN
    -- Undoes what the operation wrote before (a lapse recorded by a claim), as a failed job's savepoint does.
    RAISE EXCEPTION 'the item changed under the operation' USING ERRCODE = 'LH001';
  END IF;
  PERFORM "leasehold_item_event"('ITEM_DECIDED', reviewed_by, now_at, decided, held."leaseNumber",
    '{' || concat_ws(',',
      "leasehold_member"('decision', to_json(decision::text)),
      "leasehold_member"('finalCategory', to_json(final_category)),
      "leasehold_member"('reviewedBy', to_json(reviewed_by)),
      "leasehold_member"('heldMs', CASE WHEN held."claimedAt" IS NULL THEN NULL
        ELSE to_json(round(extract(epoch FROM (now_at - held."claimedAt")) * 1000)::bigint) END)
    ) || '}',
    'PENDING', decision);
  RETURN jsonb_build_object('item', to_jsonb(decided));
END
$$;

-- addItems (and addItem: one item): every item checked (category known and not retired, not already
-- in the queue, nor earlier in the same call) and the good ones inserted with their ITEM_ADDED events,
-- set-based, in input order: item and event ids follow it, as they do one by one. Answers one outcome
-- per input in order, the item or the refusal's code.
CREATE FUNCTION "leasehold_add_items"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  outcomes JSONB;
BEGIN
  WITH input AS (
    SELECT e.ord, e.value->>'batchId' AS batch_id, e.value->>'recordId' AS record_id,
      e.value->>'proposedCategory' AS category, e.value->>'reason' AS reason
    FROM jsonb_array_elements(op->'items') WITH ORDINALITY AS e(value, ord)
  ), judged AS (
    SELECT i.*, CASE
        WHEN c."name" IS NULL THEN 'UNKNOWN_CATEGORY'
        WHEN c."retiredAt" IS NOT NULL THEN 'CATEGORY_RETIRED'
        WHEN EXISTS (SELECT 1 FROM "Item" t WHERE t."batchId" = i.batch_id AND t."recordId" = i.record_id) THEN 'DUPLICATE_ITEM'
      END AS refusal
    FROM input i LEFT JOIN "Category" c ON c."name" = i.category
  ), decided AS (
    -- Of the same item given twice, the first that could be added is; the later ones are duplicates.
    SELECT j.*, CASE
        WHEN j.refusal IS NULL AND j.ord <> min(j.ord) FILTER (WHERE j.refusal IS NULL) OVER (PARTITION BY j.batch_id, j.record_id)
        THEN 'DUPLICATE_ITEM' ELSE j.refusal
      END AS outcome
    FROM judged j
  ), inserted AS (
    INSERT INTO "Item" ("batchId", "recordId", "proposedCategory", "reason", "createdAt", "addedBy")
    SELECT batch_id, record_id, category, reason, date_trunc('second', now_at), op->>'actor'
    FROM decided WHERE outcome IS NULL ORDER BY ord
    RETURNING *
  ), events AS (
    INSERT INTO "Event" ("occurredAt", "type", "actor", "itemId", "itemVersion", "toStatus", "details")
    SELECT now_at, 'ITEM_ADDED', op->>'actor', n."id", n."version", 'PENDING',
      '{' || concat_ws(',',
        "leasehold_member"('batchId', to_json(n."batchId")),
        "leasehold_member"('recordId', to_json(n."recordId")),
        "leasehold_member"('proposedCategory', to_json(n."proposedCategory"))
      ) || '}'
    FROM inserted n ORDER BY n."id"
  )
  SELECT jsonb_agg(CASE WHEN n."id" IS NULL THEN jsonb_build_object('refusal', d.outcome) ELSE jsonb_build_object('item', to_jsonb(n)) END ORDER BY d.ord)
  INTO outcomes
  FROM decided d LEFT JOIN inserted n ON d.outcome IS NULL AND n."batchId" = d.batch_id AND n."recordId" = d.record_id;
  RETURN jsonb_build_object('added', COALESCE(outcomes, '[]'));
END
$$;

-- touchApiKey: when a key was last used (never moved back). Frequent and tiny: an interactive transaction
-- for it held the lock across its round trips, 0.5–2.5 s per batch on a busy instance (BENCHMARKS.md).
CREATE FUNCTION "leasehold_touch_key"(op JSONB) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  used_at TIMESTAMP(3) := ((op->>'at')::timestamptz AT TIME ZONE 'UTC');
BEGIN
  UPDATE "ApiKey" SET "lastUsedAt" = used_at
  WHERE "id" = (op->>'id')::int AND ("lastUsedAt" IS NULL OR "lastUsedAt" < used_at);
  RETURN jsonb_build_object('touched', FOUND);
END
$$;

-- A batch of operations in one statement: the write lock, then each operation in its own
-- subtransaction, stamped no earlier than the last recorded change. Answers each operation's outcome
-- (an error's SQLSTATE and message when it failed) and the last recorded change's time afterwards,
-- and how long the lock took to get (the instance measures the rest of its hold).
CREATE FUNCTION "leasehold_write"(ops JSONB) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  asked_at TIMESTAMPTZ := clock_timestamp();
  locked_at TIMESTAMPTZ;
  floor_at TIMESTAMP(3);
  op JSONB;
  now_at TIMESTAMP(3);
  answer JSONB;
  answers JSONB := '[]';
BEGIN
  PERFORM pg_advisory_xact_lock(7415620002);
  locked_at := clock_timestamp();
  SELECT "occurredAt" INTO floor_at FROM "Event" ORDER BY "id" DESC LIMIT 1;
  FOR op IN SELECT value FROM jsonb_array_elements(ops) LOOP
    now_at := "leasehold_now"(op, floor_at);
    BEGIN
      answer := CASE op->>'op'
        WHEN 'claim' THEN "leasehold_claim"(op, now_at)
        WHEN 'renew' THEN "leasehold_renew"(op, now_at)
        WHEN 'release' THEN "leasehold_release"(op, now_at)
        WHEN 'decide' THEN "leasehold_decide"(op, now_at)
        WHEN 'addItems' THEN "leasehold_add_items"(op, now_at)
        WHEN 'touchKey' THEN "leasehold_touch_key"(op)
      END;
      IF answer IS NULL THEN
        RAISE EXCEPTION 'unknown write operation: %', op->>'op' USING ERRCODE = '22023';
      END IF;
    EXCEPTION
      WHEN SQLSTATE 'LH001' THEN
        answer := jsonb_build_object('conflict', TRUE);
      WHEN OTHERS THEN
        answer := jsonb_build_object('error', jsonb_build_object('sqlstate', SQLSTATE, 'message', SQLERRM));
    END;
    SELECT "occurredAt" INTO floor_at FROM "Event" ORDER BY "id" DESC LIMIT 1;
    answers := answers || jsonb_build_array(answer || jsonb_build_object('at', "leasehold_iso"(now_at)));
  END LOOP;
  RETURN jsonb_build_object(
    'answers', answers,
    'lastEventAt', CASE WHEN floor_at IS NULL THEN NULL ELSE "leasehold_iso"(floor_at) END,
    'lockWaitMs', extract(epoch FROM (locked_at - asked_at)) * 1000);
END
$$;
