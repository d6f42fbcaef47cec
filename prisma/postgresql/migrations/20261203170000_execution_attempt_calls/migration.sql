-- An executor's attempt and its reported result as write calls (issue 18): startExecutionAttempt and
-- reportExecutionResult under the caller's execution lease, and a report of a target's state
-- (reportTargetState). The TypeScript forms in src/services/proposals/attempts.ts and target-state.ts are the
-- specification and SQLite's path. Where each may take a proposal comes from the instance
-- (domain/proposal.ts's TRANSITIONS: the fixed outcomes, and for the outcomes that depend on facts, one map
-- per combination of them); a proposal in any other state, a lease the caller may not use, an attempt already
-- open or none started are answered as found, and nothing is written.

-- describeRemembered in target-state.ts: the remembered fingerprint, when and by whom.
CREATE FUNCTION "leasehold_describe_remembered"(remembered "TargetState") RETURNS TEXT
LANGUAGE sql IMMUTABLE AS $$
  SELECT left(remembered."fingerprint", 60) || ' (reported ' || "leasehold_iso"(remembered."reportedAt")
    || ' by ' || remembered."reportedBy" || ')'
$$;

-- markStale in shared.ts: `current` (to `to_state`, MARK_STALE's outcome) without a lease, its approvals void,
-- PROPOSAL_STALE recorded with the fingerprint that made it so.
CREATE FUNCTION "leasehold_mark_stale"(current "Proposal", to_state TEXT, reason TEXT, now_at TIMESTAMP(3), actor TEXT, reported TEXT)
RETURNS "Proposal"
LANGUAGE plpgsql AS $$
DECLARE
  stale "Proposal";
  voided INTEGER;
BEGIN
  stale := "leasehold_proposal_end"(current, to_state, reason);
  voided := "leasehold_void_approvals"(current."id", now_at, 'STALE');
  PERFORM "leasehold_proposal_event"('PROPOSAL_STALE', actor, now_at, stale, concat_ws(',',
    "leasehold_member"('from', to_json(current."state")),
    "leasehold_member"('reportedFingerprint', to_json(reported)),
    "leasehold_member"('voidedApprovals', to_json(voided))));
  RETURN stale;
END
$$;

-- rememberTargetState in target-state.ts: the target's fingerprint remembered, and every proposal of it not yet
-- executing (op.before) made against another one made STALE (op.staleTo), in id order; answers those, as rows.
-- In PG_WRITE_MODE=sharded it takes the global lock first, as submissions do: a submission reading the old
-- fingerprint could otherwise pass it, and a new row has no version to lose a compare-and-set on.
CREATE FUNCTION "leasehold_remember_target"(op JSONB, target_system TEXT, target_id TEXT, reported TEXT, now_at TIMESTAMP(3), reported_how TEXT)
RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  current "Proposal";
  to_state TEXT;
  stale JSONB := '[]';
BEGIN
  IF (op->>'skipLocked')::boolean THEN
    PERFORM pg_advisory_xact_lock(7415620002);
  END IF;
  INSERT INTO "TargetState" ("targetSystem", "targetId", "fingerprint", "reportedAt", "reportedBy", "source")
  VALUES (target_system, target_id, reported, now_at, op->>'actor', reported_how)
  ON CONFLICT ("targetSystem", "targetId") DO UPDATE
  SET "fingerprint" = EXCLUDED."fingerprint", "reportedAt" = EXCLUDED."reportedAt", "reportedBy" = EXCLUDED."reportedBy",
    "source" = EXCLUDED."source";
  FOR current IN
    SELECT * FROM "Proposal" p WHERE p."targetSystem" = target_system AND p."targetId" = target_id
      AND p."state"::text IN (SELECT jsonb_array_elements_text(op->'before')) AND p."fingerprint" <> reported
    ORDER BY p."id"
  LOOP
    to_state := op->'staleTo'->>(current."state"::text);
    IF to_state IS NULL THEN
      RAISE EXCEPTION 'a proposal % cannot become STALE', current."state";
    END IF;
    stale := stale || jsonb_build_array(to_jsonb("leasehold_mark_stale"(current, to_state,
      'The target''s fingerprint is now ' || left(reported, 60) || '; this revision was made against '
        || left(current."fingerprint", 60) || '.',
      now_at, op->>'actor', reported)));
  END LOOP;
  RETURN stale;
END
$$;

-- reportTargetState: TARGET_STATE_REPORTED, then the fingerprint remembered (source REPORT); answers the
-- proposals it made STALE. Who may report is the instance's check (TARGET_STATE_REPORTERS), before the call.
CREATE FUNCTION "leasehold_target_report"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "Event" ("occurredAt", "type", "actor", "details")
  VALUES (now_at, 'TARGET_STATE_REPORTED', op->>'actor', '{' || concat_ws(',',
    "leasehold_member"('target', to_json((op->>'targetSystem') || '/' || (op->>'targetId'))),
    "leasehold_member"('fingerprint', to_json(op->>'fingerprint'))) || '}');
  RETURN jsonb_build_object('stale',
    "leasehold_remember_target"(op, op->>'targetSystem', op->>'targetId', op->>'fingerprint', now_at, 'REPORT'));
END
$$;

-- startExecutionAttempt: the fingerprint presented against the approved one and the remembered one (either
-- differing: STALE, no attempt), the approval still valid (else op.expireTo, no attempt), no attempt open;
-- then the next attempt, numbered, with EXECUTION_ATTEMPT_STARTED.
CREATE FUNCTION "leasehold_execution_start"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  actor TEXT := op->>'actor';
  presented TEXT := op->>'fingerprint';
  found_lease RECORD;
  held "Proposal";
  remembered "TargetState";
  stale_to TEXT;
  expire_to TEXT;
  open_number INTEGER;
  attempt "ExecutionAttempt";
  ended "Proposal";
BEGIN
  -- heldBy(…, 'EXECUTION'): a lease of either kind the caller may use now, and an execution lease.
  SELECT * INTO found_lease FROM "leasehold_proposal_held"(op || '{"anyKind": true}', now_at);
  held := found_lease.held;
  IF NOT (found_lease.usable AND held."leaseKind" = 'EXECUTION') THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', CASE WHEN held."id" IS NULL THEN NULL ELSE to_jsonb(held) END);
  END IF;
  stale_to := op->'staleTo'->>(held."state"::text);
  IF presented <> held."fingerprint" THEN
    IF stale_to IS NULL THEN
      RETURN jsonb_build_object('refused', TRUE, 'proposal', to_jsonb(held));
    END IF;
    ended := "leasehold_mark_stale"(held, stale_to,
      'At execution the target''s fingerprint was ' || left(presented, 60) || ', not the approved '
        || left(held."fingerprint", 60) || '.',
      now_at, actor, presented);
    RETURN jsonb_build_object('proposal', to_jsonb(ended));
  END IF;
  -- The target was reported changed since (a report while it was EXECUTING): the fingerprint presented is an old read.
  SELECT * INTO remembered FROM "TargetState" WHERE "targetSystem" = held."targetSystem" AND "targetId" = held."targetId";
  IF FOUND AND remembered."fingerprint" <> presented THEN
    IF stale_to IS NULL THEN
      RETURN jsonb_build_object('refused', TRUE, 'proposal', to_jsonb(held));
    END IF;
    ended := "leasehold_mark_stale"(held, stale_to,
      'At execution the fingerprint presented was ' || left(presented, 60)
        || ', but the target was reported since as ' || "leasehold_describe_remembered"(remembered)
        || ': nothing may run against an old read.',
      now_at, actor, remembered."fingerprint");
    RETURN jsonb_build_object('proposal', to_jsonb(ended));
  END IF;
  IF NOT COALESCE(held."approvalExpiresAt" > now_at AND (held."deadline" IS NULL OR held."deadline" > now_at), FALSE) THEN
    expire_to := op->'expireTo'->>(held."state"::text);
    IF expire_to IS NULL THEN
      RETURN jsonb_build_object('refused', TRUE, 'proposal', to_jsonb(held));
    END IF;
    ended := "leasehold_proposal_end"(held, expire_to, 'The approval expired before the attempt started.');
    PERFORM "leasehold_void_approvals"(held."id", now_at, 'EXPIRED');
    PERFORM "leasehold_proposal_event"('PROPOSAL_EXPIRED', actor, now_at, ended, concat_ws(',',
      "leasehold_member"('from', to_json(held."state")),
      "leasehold_member"('why', '"APPROVAL_VALIDITY"')));
    RETURN jsonb_build_object('proposal', to_jsonb(ended));
  END IF;
  SELECT "number" INTO open_number FROM "ExecutionAttempt" WHERE "proposalId" = held."id" AND "outcome" IS NULL LIMIT 1;
  IF FOUND THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', to_jsonb(held), 'open', open_number);
  END IF;
  INSERT INTO "ExecutionAttempt" ("proposalId", "operationId", "number", "executor", "correlationId", "startedAt")
  VALUES (held."id", held."operationId",
    (SELECT count(*) + 1 FROM "ExecutionAttempt" WHERE "proposalId" = held."id"), actor, op->>'correlationId', now_at)
  RETURNING * INTO attempt;
  PERFORM "leasehold_proposal_event"('EXECUTION_ATTEMPT_STARTED', actor, now_at, held, concat_ws(',',
    "leasehold_member"('attempt', to_json(attempt."number")),
    "leasehold_member"('operationId', to_json(held."operationId")),
    "leasehold_member"('correlationId', to_json(attempt."correlationId"))));
  RETURN jsonb_build_object('proposal', to_jsonb(held), 'attempt', to_jsonb(attempt));
END
$$;

-- reportExecutionResult: the open attempt ended with op.outcome (only FAILED_BEFORE_SEND may come with none
-- started), the lease ended, the proposal where op.to says for the facts found (approval still valid;
-- fingerprint reported matches), its event with the answer and the remote's id, and a fingerprint reported
-- remembered as the target's state (source EXECUTION).
CREATE FUNCTION "leasehold_execution_report"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  actor TEXT := op->>'actor';
  result TEXT := op->>'outcome';
  reported TEXT := op->>'fingerprint';
  found_lease RECORD;
  held "Proposal";
  attempt "ExecutionAttempt";
  has_attempt BOOLEAN;
  valid BOOLEAN;
  matches BOOLEAN;
  to_state TEXT;
  ended "Proposal";
  event_type "EventType";
BEGIN
  -- heldBy(…, 'EXECUTION'): a lease of either kind the caller may use now, and an execution lease.
  SELECT * INTO found_lease FROM "leasehold_proposal_held"(op || '{"anyKind": true}', now_at);
  held := found_lease.held;
  IF NOT (found_lease.usable AND held."leaseKind" = 'EXECUTION') THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', CASE WHEN held."id" IS NULL THEN NULL ELSE to_jsonb(held) END);
  END IF;
  SELECT * INTO attempt FROM "ExecutionAttempt" WHERE "proposalId" = held."id" AND "outcome" IS NULL ORDER BY "number" DESC LIMIT 1;
  has_attempt := FOUND;
  IF NOT has_attempt AND result <> 'FAILED_BEFORE_SEND' THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', to_jsonb(held), 'notStarted', TRUE);
  END IF;
  valid := COALESCE(held."approvalExpiresAt" > now_at AND (held."deadline" IS NULL OR held."deadline" > now_at), FALSE);
  matches := reported IS NULL OR reported = held."fingerprint";
  to_state := op->'to'->(CASE WHEN valid THEN 'valid' ELSE 'lapsed' END || '/' || CASE WHEN matches THEN 'same' ELSE 'changed' END)
    ->>(held."state"::text);
  IF to_state IS NULL THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', to_jsonb(held));
  END IF;
  IF has_attempt THEN
    UPDATE "ExecutionAttempt" SET "outcome" = result, "response" = op->>'response', "finishedAt" = now_at,
      "correlationId" = COALESCE(op->>'correlationId', attempt."correlationId")
    WHERE "id" = attempt."id";
  END IF;
  UPDATE "Proposal" SET "state" = to_state::"ProposalState",
    "stateReason" = CASE WHEN result = 'SUCCEEDED' THEN NULL
      WHEN has_attempt THEN 'Attempt ' || attempt."number" || ' ended ' || result || '.'
      ELSE 'Failed before sending, before any attempt was started.' END,
    "leaseKind" = NULL, "manualLease" = NULL, "leaseTokenHash" = NULL, "claimedBy" = NULL, "claimedAt" = NULL, "leaseExpiresAt" = NULL,
    -- A proposal a policy approved (approvers: 0) waits for its review afterwards once carried out.
    "afterReview" = CASE WHEN to_state = 'EXECUTED' AND held."state" <> 'EXECUTED' AND held."autoApprovedBy" IS NOT NULL
      THEN 'PENDING' ELSE "afterReview" END,
    "heldFrom" = CASE WHEN held."state" = 'ON_HOLD' AND to_state <> 'ON_HOLD' THEN NULL ELSE "heldFrom" END,
    "heldBy" = CASE WHEN held."state" = 'ON_HOLD' AND to_state <> 'ON_HOLD' THEN NULL ELSE "heldBy" END,
    -- Each time it becomes OUTCOME_UNKNOWN it is escalated anew; the announcer dates it.
    "escalatedAt" = CASE WHEN to_state = 'OUTCOME_UNKNOWN' AND held."state" <> 'OUTCOME_UNKNOWN' THEN NULL ELSE "escalatedAt" END,
    "outcomeUnknownAt" = CASE WHEN to_state = 'OUTCOME_UNKNOWN' AND held."state" <> 'OUTCOME_UNKNOWN' THEN NULL ELSE "outcomeUnknownAt" END,
    "version" = "version" + 1
  WHERE "id" = held."id" AND "version" = held."version" AND "state" = held."state"
  RETURNING * INTO ended;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the proposal changed under the operation' USING ERRCODE = 'LH001';
  END IF;
  IF to_state IN ('EXPIRED', 'STALE') THEN
    PERFORM "leasehold_void_approvals"(held."id", now_at, to_state);
  END IF;
  event_type := CASE to_state WHEN 'EXECUTED' THEN 'EXECUTION_SUCCEEDED' WHEN 'FAILED' THEN 'EXECUTION_FAILED'
    WHEN 'OUTCOME_UNKNOWN' THEN 'EXECUTION_OUTCOME_UNKNOWN' WHEN 'APPROVED' THEN 'EXECUTION_RETURNED'
    WHEN 'STALE' THEN 'PROPOSAL_STALE' ELSE 'PROPOSAL_EXPIRED' END;
  PERFORM "leasehold_proposal_event"(event_type, actor, now_at, ended, concat_ws(',',
    "leasehold_member"('from', to_json(held."state")),
    "leasehold_member"('attempt', CASE WHEN has_attempt THEN to_json(attempt."number") END),
    "leasehold_member"('outcome', to_json(result)),
    "leasehold_member"('operationId', to_json(held."operationId")),
    "leasehold_member"('correlationId', to_json(COALESCE(op->>'correlationId', CASE WHEN has_attempt THEN attempt."correlationId" END))),
    "leasehold_member"('response', to_json(op->>'response')),
    CASE WHEN reported IS NOT NULL THEN "leasehold_member"('reportedFingerprint', to_json(reported)) END));
  IF reported IS NOT NULL THEN
    PERFORM "leasehold_remember_target"(op, held."targetSystem", held."targetId", reported, now_at, 'EXECUTION');
  END IF;
  RETURN jsonb_build_object('proposal', to_jsonb(ended));
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
  END;
END
$$;
