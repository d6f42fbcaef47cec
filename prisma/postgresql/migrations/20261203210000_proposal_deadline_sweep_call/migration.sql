-- The proposal deadline sweep as a write call (issue 18): what time passing does to action proposals, done by
-- whichever instance's announcer gets there first, in one statement instead of a transaction holding the lock
-- across a round trip per proposal (a batch of 200 expiring at once was ~600). The TypeScript form,
-- recordProposalDeadlines in src/services/proposals/recovery.ts (and escalateDue in oversight.ts), is the
-- specification and SQLite's path; where EXPIRE and OUTCOME_UNKNOWN take a state comes from the instance.

-- lapseApprovals in shared.ts: `current`'s approvals past their window voided (LAPSED), one
-- PROPOSAL_APPROVAL_LAPSED each with the approvals left; answers the proposal after it.
CREATE FUNCTION "leasehold_lapse_approvals"(current "Proposal", now_at TIMESTAMP(3)) RETURNS "Proposal"
LANGUAGE plpgsql AS $$
DECLARE
  due_rows "ProposalApproval"[];
  due "ProposalApproval";
  lapsed "Proposal";
  left_count INTEGER;
BEGIN
  SELECT array_agg(a ORDER BY a."id") INTO due_rows FROM "ProposalApproval" a
  WHERE a."proposalId" = current."id" AND a."voidedAt" IS NULL AND a."lapsesAt" <= now_at;
  IF due_rows IS NULL THEN
    RETURN current;
  END IF;
  UPDATE "ProposalApproval" SET "voidedAt" = now_at, "voidReason" = 'LAPSED', "lapsesAt" = NULL
  WHERE "id" IN (SELECT d."id" FROM unnest(due_rows) AS d);
  UPDATE "Proposal" SET "version" = "version" + 1
  WHERE "id" = current."id" AND "version" = current."version" AND "state" = current."state"
  RETURNING * INTO lapsed;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the proposal changed under the operation' USING ERRCODE = 'LH001';
  END IF;
  SELECT count(*) INTO left_count FROM "ProposalApproval" WHERE "proposalId" = current."id" AND "voidedAt" IS NULL;
  FOREACH due IN ARRAY due_rows LOOP
    PERFORM "leasehold_proposal_event"('PROPOSAL_APPROVAL_LAPSED', 'system', now_at, lapsed, concat_ws(',',
      "leasehold_member"('approver', to_json(due."approver")),
      "leasehold_member"('approvedAt', to_json("leasehold_iso"(due."approvedAt"))),
      "leasehold_member"('lapsedAt', to_json("leasehold_iso"(due."lapsesAt"))),
      "leasehold_member"('approvals', to_json(left_count)),
      "leasehold_member"('approvalsRequired', to_json(current."approvalsRequired"))));
  END LOOP;
  RETURN lapsed;
END
$$;

-- escalate in oversight.ts, automatic: escalated to op.escalation's target, by "system", with `reason`.
CREATE FUNCTION "leasehold_escalate_due"(op JSONB, current "Proposal", now_at TIMESTAMP(3), reason TEXT) RETURNS VOID
LANGUAGE plpgsql AS $$
DECLARE
  escalated "Proposal";
BEGIN
  UPDATE "Proposal" SET "escalatedAt" = now_at, "escalatedTo" = op->'escalation'->>'to', "version" = "version" + 1
  WHERE "id" = current."id" AND "version" = current."version" AND "state" = current."state"
  RETURNING * INTO escalated;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the proposal changed under the operation' USING ERRCODE = 'LH001';
  END IF;
  PERFORM "leasehold_proposal_event"('PROPOSAL_ESCALATED', 'system', now_at, escalated, concat_ws(',',
    "leasehold_member"('from', to_json(current."state")),
    "leasehold_member"('to', to_json(op->'escalation'->>'to')),
    "leasehold_member"('toKind', to_json(op->'escalation'->>'kind')),
    "leasehold_member"('reason', to_json(reason)),
    "leasehold_member"('automatic', 'true'),
    "leasehold_member"('previouslyEscalatedTo', to_json(current."escalatedTo"))));
END
$$;

-- recordProposalDeadlines: at most op.limit changes, in the TypeScript form's order — deadlines and approval
-- validity (op.expireTo), lapsed leases (an execution's: op.unknownTo, its open attempt UNKNOWN), approvals past
-- their window, then, with op.escalation, OUTCOME_UNKNOWN dated and escalated when unreconciled too long and
-- PENDING escalated when too old. Answers how many proposals it changed.
CREATE FUNCTION "leasehold_proposal_deadlines"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  budget INTEGER := (op->>'limit')::int;
  changed INTEGER := 0;
  undated INTEGER;
  current "Proposal";
  why TEXT;
  ended "Proposal";
  lapsing INTEGER;
  unknown_after INTEGER := (op->'escalation'->>'outcomeUnknownAfterSeconds')::int;
  pending_after INTEGER := (op->'escalation'->>'pendingAfterSeconds')::int;
BEGIN
  FOR current IN
    SELECT * FROM "Proposal" p
    WHERE (p."state" = 'PENDING' AND p."deadline" <= now_at)
      OR (p."state" = 'APPROVED' AND (p."approvalExpiresAt" <= now_at OR p."deadline" <= now_at))
    ORDER BY p."id" LIMIT budget FOR UPDATE
  LOOP
    why := CASE WHEN current."state" = 'PENDING' OR current."deadline" <= now_at THEN 'DEADLINE' ELSE 'APPROVAL_VALIDITY' END;
    ended := "leasehold_proposal_end"(current, op->'expireTo'->>(current."state"::text),
      CASE why WHEN 'DEADLINE' THEN 'The deadline passed.' ELSE 'The approval expired before execution.' END);
    PERFORM "leasehold_void_approvals"(current."id", now_at, 'EXPIRED');
    PERFORM "leasehold_proposal_event"('PROPOSAL_EXPIRED', 'system', now_at, ended, concat_ws(',',
      "leasehold_member"('from', to_json(current."state")),
      "leasehold_member"('why', to_json(why))));
    changed := changed + 1;
  END LOOP;
  IF changed >= budget THEN
    RETURN jsonb_build_object('changed', changed);
  END IF;
  FOR current IN
    SELECT * FROM "Proposal" p
    WHERE p."leaseExpiryRecorded" = FALSE AND p."leaseExpiresAt" <= now_at AND p."state" IN ('PENDING', 'EXECUTING')
    ORDER BY p."id" LIMIT budget - changed FOR UPDATE
  LOOP
    IF current."state" = 'EXECUTING' THEN
      UPDATE "ExecutionAttempt" SET "outcome" = 'UNKNOWN', "finishedAt" = now_at WHERE "proposalId" = current."id" AND "outcome" IS NULL;
      UPDATE "Proposal" SET "state" = (op->>'unknownTo')::"ProposalState",
        "stateReason" = 'The execution lease of ' || current."claimedBy" || ' lapsed without a reported result.',
        "leaseKind" = NULL, "manualLease" = NULL, "leaseTokenHash" = NULL, "claimedBy" = NULL, "claimedAt" = NULL, "leaseExpiresAt" = NULL,
        "leaseExpiryRecorded" = TRUE, "outcomeUnknownAt" = now_at, "escalatedAt" = NULL, "version" = "version" + 1
      WHERE "id" = current."id" AND "version" = current."version" AND "state" = current."state"
      RETURNING * INTO ended;
    ELSE
      UPDATE "Proposal" SET "leaseExpiryRecorded" = TRUE, "version" = "version" + 1
      WHERE "id" = current."id" AND "version" = current."version" AND "state" = current."state"
      RETURNING * INTO ended;
    END IF;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'the proposal changed under the operation' USING ERRCODE = 'LH001';
    END IF;
    IF current."state" = 'EXECUTING' THEN
      PERFORM "leasehold_proposal_event"('EXECUTION_OUTCOME_UNKNOWN', 'system', now_at, ended, concat_ws(',',
        "leasehold_member"('from', '"EXECUTING"'),
        "leasehold_member"('why', '"EXECUTION_LEASE_LAPSED"'),
        "leasehold_member"('executor', to_json(current."claimedBy"))));
    ELSE
      PERFORM "leasehold_proposal_event"('PROPOSAL_LEASE_EXPIRED', 'system', now_at, ended, concat_ws(',',
        "leasehold_member"('holder', to_json(current."claimedBy")),
        "leasehold_member"('kind', to_json(current."leaseKind"))));
    END IF;
    changed := changed + 1;
  END LOOP;
  IF changed >= budget THEN
    RETURN jsonb_build_object('changed', changed);
  END IF;
  -- Read from the lapsesAt index, oldest first; a proposal with several due is handled once.
  FOR lapsing IN
    SELECT due."proposalId" FROM (
      SELECT a."proposalId", row_number() OVER (ORDER BY a."lapsesAt", a."id") AS seen FROM "ProposalApproval" a
      WHERE a."lapsesAt" <= now_at ORDER BY a."lapsesAt", a."id" LIMIT budget - changed
    ) due GROUP BY due."proposalId" ORDER BY min(due.seen)
  LOOP
    SELECT * INTO current FROM "Proposal" WHERE "id" = lapsing FOR UPDATE;
    PERFORM "leasehold_lapse_approvals"(current, now_at);
    changed := changed + 1;
  END LOOP;
  IF changed >= budget OR op->'escalation' IS NULL OR op->'escalation' = 'null' THEN
    RETURN jsonb_build_object('changed', changed);
  END IF;
  IF unknown_after IS NOT NULL THEN
    UPDATE "Proposal" SET "outcomeUnknownAt" = now_at
    WHERE "state" = 'OUTCOME_UNKNOWN' AND "escalatedAt" IS NULL AND "outcomeUnknownAt" IS NULL;
    GET DIAGNOSTICS undated = ROW_COUNT;
    changed := changed + undated;
    IF changed >= budget THEN
      RETURN jsonb_build_object('changed', changed);
    END IF;
    FOR current IN
      SELECT * FROM "Proposal" p
      WHERE p."state" = 'OUTCOME_UNKNOWN' AND p."escalatedAt" IS NULL
        AND p."outcomeUnknownAt" <= now_at - "leasehold_ms"(unknown_after * 1000.0)
      ORDER BY p."outcomeUnknownAt", p."id" LIMIT budget - changed FOR UPDATE
    LOOP
      PERFORM "leasehold_escalate_due"(op, current, now_at,
        'Its outcome has been unknown since ' || "leasehold_iso"(current."outcomeUnknownAt") || ' (more than '
          || unknown_after || ' s) without a reconciliation.');
      changed := changed + 1;
    END LOOP;
  END IF;
  IF changed >= budget OR pending_after IS NULL THEN
    RETURN jsonb_build_object('changed', changed);
  END IF;
  FOR current IN
    SELECT * FROM "Proposal" p
    WHERE p."state" = 'PENDING' AND p."escalatedAt" IS NULL AND p."createdAt" <= now_at - "leasehold_ms"(pending_after * 1000.0)
    ORDER BY p."createdAt", p."id" LIMIT budget - changed FOR UPDATE
  LOOP
    PERFORM "leasehold_escalate_due"(op, current, now_at,
      'Pending since ' || "leasehold_iso"(current."createdAt") || ' (more than ' || pending_after || ' s) without a decision.');
    changed := changed + 1;
  END LOOP;
  RETURN jsonb_build_object('changed', changed);
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
  END;
END
$$;
