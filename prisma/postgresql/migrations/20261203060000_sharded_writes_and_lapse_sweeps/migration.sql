-- Two things. The expiry sweep becomes a write call too ("leasehold_record_lapses", below). And
-- PG_WRITE_MODE=sharded (decision 0009): a prototype of writes without the global lock, kept behind
-- a flag; `serialized` (decision 0008) stays the default. In it, `leasehold_write(ops, TRUE)` takes no
-- global lock: claims pick with FOR UPDATE SKIP LOCKED, renew/release/decide are conditional writes of
-- one row (READ COMMITTED re-checks them against the newest version after waiting for its writer), and
-- every writing transaction first takes a shared advisory lock (a "marker") keyed by the last event id
-- handed out. Event ids then commit out of order, and the feed delivers only up to the horizon below
-- which every id is settled (committed or rolled back): no subscriber skips a late commit.

-- The last event id handed out (0 before the first): any id taken later is greater.
CREATE FUNCTION "leasehold_allocated_event_id"() RETURNS INTEGER
LANGUAGE sql VOLATILE AS $$
  SELECT (CASE WHEN is_called THEN last_value ELSE 0 END)::int FROM "Event_id_seq"
$$;

-- The highest event id the feed may deliver: every id at or below it belongs to a transaction that has
-- ended. Read in this order: the last id handed out, then the markers of the writers still running (a
-- writer takes its marker before its first id, and PostgreSQL releases it only after its commit is
-- visible). A writer with a marker k takes only ids above k; one with no marker yet takes ids above
-- the first read. The feed reads events after this statement, in a snapshot that sees every commit
-- whose marker was gone.
CREATE FUNCTION "leasehold_feed_horizon"() RETURNS INTEGER
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  allocated INTEGER := "leasehold_allocated_event_id"();
  oldest_marker BIGINT;
BEGIN
  SELECT min(objid::bigint) INTO oldest_marker FROM pg_locks
  WHERE locktype = 'advisory' AND classid = 741562 AND objsubid = 2
    AND database = (SELECT oid FROM pg_database WHERE datname = current_database());
  RETURN least(allocated, oldest_marker);
END
$$;

CREATE OR REPLACE FUNCTION "leasehold_claim"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
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
    -- (Sharded: another writer may be recording the same lapse; the conditional write lets one win.)
    PERFORM "leasehold_record_lapse"(overlong, now_at, longest);
  END LOOP;

  IF (op->>'skipLocked')::boolean THEN
    -- Writers run at once (PG_WRITE_MODE=sharded): each claim takes the first claimable item no other
    -- claim holds, and holds it until it commits. Planned for this call's filters (EXECUTE), so the
    -- filters that do not apply cost nothing.
    EXECUTE 'SELECT * FROM "Item"
      WHERE "status" = ''PENDING'' AND ("leaseTokenHash" IS NULL OR "leaseExpiresAt" <= $1 OR "leaseExpiryRecorded")
        AND ($2::text IS NULL OR "batchId" = $2) AND ($3::text IS NULL OR "addedBy" <> $3)
      ORDER BY "createdAt", "batchId", "recordId" LIMIT 1 FOR UPDATE SKIP LOCKED'
    INTO found_item USING now_at, batch_id, not_added_by;
  ELSIF batch_id IS NULL AND not_added_by IS NULL THEN
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
  -- (EXECUTE leaves FOUND alone; a SELECT INTO that finds no row leaves the row's fields NULL.)
  IF found_item."id" IS NULL THEN
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

-- recordLapsedLeases (the expiry announcer's sweep), one operation too: overlong leases first (furthest
-- first), then lapsed ones (soonest first), at most `limit` in all, each recorded once by the conditional
-- write of "leasehold_record_lapse". Answers how many it recorded. The same as services/leases.ts.
CREATE FUNCTION "leasehold_record_lapses"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  longest TIMESTAMP(3) := now_at + "leasehold_ms"((op->>'longestMs')::float8);
  most INTEGER := (op->>'limit')::int;
  candidate "Item";
  recorded INTEGER := 0;
BEGIN
  FOR candidate IN
    SELECT * FROM "Item"
    WHERE "leaseExpiryRecorded" = FALSE AND "leaseExpiresAt" > longest AND "status" = 'PENDING' AND "leaseTokenHash" IS NOT NULL
    ORDER BY "leaseExpiresAt" DESC LIMIT most
  LOOP
    IF ("leasehold_record_lapse"(candidate, now_at, longest))."leaseExpiryRecorded" THEN
      recorded := recorded + 1;
    END IF;
  END LOOP;
  FOR candidate IN
    SELECT * FROM "Item"
    WHERE "leaseExpiryRecorded" = FALSE AND "leaseExpiresAt" IS NOT NULL AND "leaseExpiresAt" <= now_at
    ORDER BY "leaseExpiresAt" LIMIT most - recorded
  LOOP
    IF ("leasehold_record_lapse"(candidate, now_at, longest))."leaseExpiryRecorded" THEN
      recorded := recorded + 1;
    END IF;
  END LOOP;
  RETURN jsonb_build_object('recorded', recorded);
END
$$;

DROP FUNCTION "leasehold_write"(JSONB);

CREATE FUNCTION "leasehold_write"(ops JSONB, sharded BOOLEAN DEFAULT FALSE) RETURNS JSONB
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
  IF sharded THEN
    -- No global lock: the feed's marker first (see "leasehold_feed_horizon"), before any event id is taken.
    PERFORM pg_advisory_xact_lock_shared(741562, "leasehold_allocated_event_id"());
  ELSE
    PERFORM pg_advisory_xact_lock(7415620002);
  END IF;
  locked_at := clock_timestamp();
  SELECT "occurredAt" INTO floor_at FROM "Event" ORDER BY "id" DESC LIMIT 1;
  FOR op IN SELECT value FROM jsonb_array_elements(ops) LOOP
    now_at := "leasehold_now"(op, floor_at);
    IF sharded THEN
      op := op || '{"skipLocked": true}';
    END IF;
    BEGIN
      answer := CASE op->>'op'
        WHEN 'claim' THEN "leasehold_claim"(op, now_at)
        WHEN 'renew' THEN "leasehold_renew"(op, now_at)
        WHEN 'release' THEN "leasehold_release"(op, now_at)
        WHEN 'decide' THEN "leasehold_decide"(op, now_at)
        WHEN 'addItems' THEN "leasehold_add_items"(op, now_at)
        WHEN 'touchKey' THEN "leasehold_touch_key"(op)
        WHEN 'recordLapses' THEN "leasehold_record_lapses"(op, now_at)
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
