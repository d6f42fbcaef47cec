-- Review leases on action proposals (claim, renew, release) as write calls too (issue 18): one statement
-- each under the write lock, as the item leases of 20261203020000_write_functions. The TypeScript forms
-- in src/services/proposals/review-leases.ts are the specification and SQLite's path; a refusal answers the row
-- as found, and the instance derives the same refusal from it. `leasehold_write` now hands operations it
-- does not know itself to "leasehold_operation", so later operations replace that function alone.

-- A proposal's history row, as proposalEvent writes it: the lease number while it has a lease, and
-- details that begin with its state and revision (`details` holds the members after those).
CREATE FUNCTION "leasehold_proposal_event"(event_type "EventType", actor TEXT, at TIMESTAMP(3), proposal "Proposal", details TEXT)
RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "Event" ("occurredAt", "type", "actor", "proposalId", "leaseNumber", "details")
  VALUES (at, event_type, actor, proposal."id", CASE WHEN proposal."leaseKind" IS NOT NULL THEN proposal."leaseNumber" END,
    '{' || concat_ws(',',
      "leasehold_member"('state', to_json(proposal."state")),
      "leasehold_member"('revision', to_json(proposal."revision")),
      NULLIF(details, '')
    ) || '}');
END
$$;

-- heldBy's read: the proposal holding the token, and whether its lease is the caller's to use now
-- (`op.anyKind`: a review or an execution lease; otherwise a review lease only).
CREATE FUNCTION "leasehold_proposal_held"(op JSONB, now_at TIMESTAMP(3), OUT held "Proposal", OUT usable BOOLEAN)
LANGUAGE plpgsql AS $$
BEGIN
  SELECT * INTO held FROM "Proposal" WHERE "leaseTokenHash" = op->>'tokenHash';
  usable := FOUND AND held."leaseExpiresAt" IS NOT NULL
    AND (held."leaseKind" = 'REVIEW' OR ((op->>'anyKind')::boolean AND held."leaseKind" = 'EXECUTION'))
    AND NOT ((op->>'authenticated')::boolean AND held."claimedBy" IS DISTINCT FROM op->>'actor')
    AND held."leaseExpiresAt" > now_at;
END
$$;

-- claimProposal: the next PENDING proposal for review (earliest deadline first, then oldest), never one the
-- caller proposed or approved; or, with `op.id`, that one, answered as found when it may not be taken.
-- The pick takes the row (FOR UPDATE SKIP LOCKED): under the global lock nothing else holds one, and in
-- PG_WRITE_MODE=sharded concurrent claims pass each other by. The write compares the version read.
CREATE FUNCTION "leasehold_proposal_claim"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  actor TEXT := op->>'holder';
  chosen "Proposal";
  approved BOOLEAN;
  granted "Proposal";
BEGIN
  IF op->'id' IS NOT NULL AND op->'id' <> 'null' THEN
    SELECT * INTO chosen FROM "Proposal" WHERE "id" = (op->>'id')::int FOR UPDATE;
    IF NOT FOUND THEN
      RETURN jsonb_build_object('refused', TRUE, 'proposal', NULL);
    END IF;
    approved := EXISTS (SELECT 1 FROM "ProposalApproval" WHERE "proposalId" = chosen."id" AND "approver" = actor AND "voidedAt" IS NULL);
    IF chosen."state" <> 'PENDING' OR chosen."proposedBy" = actor OR chosen."deadline" <= now_at
       OR (chosen."leaseTokenHash" IS NOT NULL AND chosen."leaseExpiresAt" > now_at) OR approved THEN
      RETURN jsonb_build_object('refused', TRUE, 'proposal', to_jsonb(chosen), 'approved', approved);
    END IF;
  ELSE
    SELECT * INTO chosen FROM "Proposal" p
    WHERE p."state" = 'PENDING' AND (p."leaseTokenHash" IS NULL OR p."leaseExpiresAt" <= now_at)
      AND p."proposedBy" <> actor
      AND NOT EXISTS (SELECT 1 FROM "ProposalApproval" a WHERE a."proposalId" = p."id" AND a."approver" = actor AND a."voidedAt" IS NULL)
      AND (op->'riskLevels' IS NULL OR op->'riskLevels' = 'null'
        OR p."riskLevel"::text IN (SELECT jsonb_array_elements_text(op->'riskLevels')))
      AND (p."deadline" IS NULL OR p."deadline" > now_at)
    ORDER BY p."deadline" ASC NULLS LAST, p."createdAt", p."id"
    LIMIT 1 FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
      RETURN jsonb_build_object('none', TRUE);
    END IF;
  END IF;

  IF chosen."leaseTokenHash" IS NOT NULL AND NOT chosen."leaseExpiryRecorded" THEN
    PERFORM "leasehold_proposal_event"('PROPOSAL_LEASE_EXPIRED', 'system', now_at, chosen, concat_ws(',',
      "leasehold_member"('holder', to_json(chosen."claimedBy")),
      "leasehold_member"('kind', to_json(chosen."leaseKind"))));
  END IF;
  UPDATE "Proposal" SET "leaseKind" = 'REVIEW', "leaseTokenHash" = op->>'tokenHash', "claimedBy" = actor, "claimedAt" = now_at,
    "leaseExpiresAt" = now_at + "leasehold_ms"((op->>'leaseSeconds')::float8 * 1000),
    "leaseNumber" = "leaseNumber" + 1, "leaseExpiryRecorded" = FALSE, "version" = "version" + 1
  WHERE "id" = chosen."id" AND "version" = chosen."version" AND "state" = 'PENDING'
  RETURNING * INTO granted;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the proposal changed under the operation' USING ERRCODE = 'LH001';
  END IF;
  PERFORM "leasehold_proposal_event"('PROPOSAL_LEASE_CLAIMED', actor, now_at, granted, concat_ws(',',
    "leasehold_member"('holder', to_json(actor)),
    "leasehold_member"('leaseSeconds', (op->'leaseSeconds')::json),
    "leasehold_member"('kind', to_json('REVIEW'::text))));
  RETURN jsonb_build_object('proposal', to_jsonb(granted));
END
$$;

-- renewProposalLease: a review or execution lease, from now.
CREATE FUNCTION "leasehold_proposal_renew"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  found_lease RECORD;
  held "Proposal";
  renewed "Proposal";
BEGIN
  SELECT * INTO found_lease FROM "leasehold_proposal_held"(op || '{"anyKind": true}', now_at);
  held := found_lease.held;
  IF NOT found_lease.usable THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', CASE WHEN held."id" IS NULL THEN NULL ELSE to_jsonb(held) END);
  END IF;
  UPDATE "Proposal" SET "leaseExpiresAt" = now_at + "leasehold_ms"((op->>'leaseSeconds')::float8 * 1000), "version" = "version" + 1
  WHERE "id" = held."id" AND "version" = held."version" AND "state" = held."state"
  RETURNING * INTO renewed;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the proposal changed under the operation' USING ERRCODE = 'LH001';
  END IF;
  PERFORM "leasehold_proposal_event"('PROPOSAL_LEASE_RENEWED', op->>'actor', now_at, renewed, concat_ws(',',
    "leasehold_member"('holder', to_json(held."claimedBy")),
    "leasehold_member"('leaseSeconds', (op->'leaseSeconds')::json),
    "leasehold_member"('kind', to_json(held."leaseKind"))));
  RETURN jsonb_build_object('proposal', to_jsonb(renewed));
END
$$;

-- releaseProposalLease: a review lease only (an execution must report its outcome).
CREATE FUNCTION "leasehold_proposal_release"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  found_lease RECORD;
  held "Proposal";
  released "Proposal";
BEGIN
  SELECT * INTO found_lease FROM "leasehold_proposal_held"(op || '{"anyKind": false}', now_at);
  held := found_lease.held;
  IF NOT found_lease.usable THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', CASE WHEN held."id" IS NULL THEN NULL ELSE to_jsonb(held) END);
  END IF;
  UPDATE "Proposal" SET "leaseKind" = NULL, "manualLease" = NULL, "leaseTokenHash" = NULL, "claimedBy" = NULL,
    "claimedAt" = NULL, "leaseExpiresAt" = NULL, "version" = "version" + 1
  WHERE "id" = held."id" AND "version" = held."version" AND "state" = held."state"
  RETURNING * INTO released;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the proposal changed under the operation' USING ERRCODE = 'LH001';
  END IF;
  PERFORM "leasehold_proposal_event"('PROPOSAL_LEASE_RELEASED', op->>'actor', now_at, released,
    "leasehold_member"('holder', to_json(held."claimedBy")));
  RETURN jsonb_build_object('proposal', to_jsonb(released));
END
$$;

-- The operations `leasehold_write` does not name itself; NULL for one nobody knows.
CREATE FUNCTION "leasehold_operation"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
BEGIN
  RETURN CASE op->>'op'
    WHEN 'proposalClaim' THEN "leasehold_proposal_claim"(op, now_at)
    WHEN 'proposalRenew' THEN "leasehold_proposal_renew"(op, now_at)
    WHEN 'proposalRelease' THEN "leasehold_proposal_release"(op, now_at)
  END;
END
$$;

CREATE OR REPLACE FUNCTION "leasehold_write"(ops JSONB, sharded BOOLEAN DEFAULT FALSE) RETURNS JSONB
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
        ELSE "leasehold_operation"(op, now_at)
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
