-- An execution by hand as write calls (issue 18): claimManualExecution (an execution lease on the APPROVED
-- proposal named) and recordManualExecution (what was already done by hand, EXECUTED or OUTCOME_UNKNOWN).
-- The TypeScript forms in src/services/proposals/execution.ts are the specification and SQLite's path; where
-- each may take a proposal comes from the instance (domain/proposal.ts: CLAIM_EXECUTION's outcome, and
-- RECORD_MANUAL_EXECUTION's per combination of facts). A refusal is answered as found, with whether the
-- caller approved it, and nothing is written.

-- Separation of duties for an execution chosen by id: never its proposer (op.actor), nor, at the risk levels
-- whose policy separates them (op.separated), one of its approvers whose approval still counts.
CREATE FUNCTION "leasehold_executor_separated"(op JSONB, current "Proposal", OUT own BOOLEAN, OUT approved BOOLEAN)
LANGUAGE plpgsql AS $$
BEGIN
  own := current."proposedBy" = op->>'actor';
  approved := current."riskLevel"::text IN (SELECT jsonb_array_elements_text(op->'separated'))
    AND EXISTS (SELECT 1 FROM "ProposalApproval" a
      WHERE a."proposalId" = current."id" AND a."approver" = op->>'actor' AND a."voidedAt" IS NULL);
END
$$;

-- claimManualExecution: APPROVED, separated, its approval still valid (and its deadline not passed); then an
-- execution lease marked manual, EXECUTION_CLAIMED with the reason.
CREATE FUNCTION "leasehold_execution_claim_manual"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  actor TEXT := op->>'actor';
  current "Proposal";
  separation RECORD;
  granted "Proposal";
BEGIN
  SELECT * INTO current FROM "Proposal" WHERE "id" = (op->>'id')::int FOR UPDATE;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', NULL);
  END IF;
  SELECT * INTO separation FROM "leasehold_executor_separated"(op, current);
  IF current."state" <> 'APPROVED' OR separation.own OR separation.approved
    OR NOT COALESCE(current."approvalExpiresAt" > now_at AND (current."deadline" IS NULL OR current."deadline" > now_at), FALSE) THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', to_jsonb(current), 'approved', separation.approved);
  END IF;
  UPDATE "Proposal" SET "state" = (op->>'to')::"ProposalState", "leaseKind" = 'EXECUTION', "manualLease" = TRUE,
    "leaseTokenHash" = op->>'tokenHash', "claimedBy" = actor, "claimedAt" = now_at,
    "leaseExpiresAt" = now_at + "leasehold_ms"((op->>'leaseSeconds')::float8 * 1000),
    "leaseNumber" = "leaseNumber" + 1, "leaseExpiryRecorded" = FALSE, "version" = "version" + 1
  WHERE "id" = current."id" AND "version" = current."version" AND "state" = current."state"
  RETURNING * INTO granted;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the proposal changed under the operation' USING ERRCODE = 'LH001';
  END IF;
  PERFORM "leasehold_proposal_event"('EXECUTION_CLAIMED', actor, now_at, granted, concat_ws(',',
    "leasehold_member"('from', to_json(current."state")),
    "leasehold_member"('executor', to_json(actor)),
    "leasehold_member"('operationId', to_json(granted."operationId")),
    "leasehold_member"('leaseSeconds', (op->'leaseSeconds')::json),
    "leasehold_member"('manual', 'true'),
    "leasehold_member"('reason', to_json(op->>'reason'))));
  RETURN jsonb_build_object('proposal', to_jsonb(granted));
END
$$;

-- recordManualExecution: separated, not EXECUTING (its lease's holder reports); op.to by
-- (valid|lapsed)/(same|changed)/(approved|never). EXECUTED: MANUAL_EXECUTION_RECORDED, and the target as read
-- after acting (op.fingerprintAfter) remembered. OUTCOME_UNKNOWN: why, for a reconciler; from EXPIRED or STALE
-- the approval's time ends now.
CREATE FUNCTION "leasehold_execution_record_manual"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  actor TEXT := op->>'actor';
  presented TEXT := op->>'fingerprint';
  after_acting TEXT := op->>'fingerprintAfter';
  current "Proposal";
  separation RECORD;
  valid BOOLEAN;
  matches BOOLEAN;
  to_state TEXT;
  why TEXT;
  recorded "Proposal";
BEGIN
  SELECT * INTO current FROM "Proposal" WHERE "id" = (op->>'id')::int FOR UPDATE;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', NULL);
  END IF;
  SELECT * INTO separation FROM "leasehold_executor_separated"(op, current);
  valid := current."state" = 'APPROVED'
    AND COALESCE(current."approvalExpiresAt" > now_at AND (current."deadline" IS NULL OR current."deadline" > now_at), FALSE);
  matches := presented = current."fingerprint";
  to_state := op->'to'->(CASE WHEN valid THEN 'valid' ELSE 'lapsed' END || '/' || CASE WHEN matches THEN 'same' ELSE 'changed' END
    || '/' || CASE WHEN current."operationId" IS NOT NULL THEN 'approved' ELSE 'never' END)->>(current."state"::text);
  IF separation.own OR separation.approved OR current."state" = 'EXECUTING' OR to_state IS NULL THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', to_jsonb(current), 'approved', separation.approved);
  END IF;
  IF to_state = 'EXECUTED' THEN
    UPDATE "Proposal" SET "state" = 'EXECUTED', "stateReason" = op->>'evidence',
      "leaseKind" = NULL, "manualLease" = NULL, "leaseTokenHash" = NULL, "claimedBy" = NULL, "claimedAt" = NULL, "leaseExpiresAt" = NULL,
      -- A proposal a policy approved (approvers: 0) waits for its review afterwards once carried out.
      "afterReview" = CASE WHEN current."autoApprovedBy" IS NOT NULL THEN 'PENDING' ELSE "afterReview" END,
      "version" = "version" + 1
    WHERE "id" = current."id" AND "version" = current."version" AND "state" = current."state"
    RETURNING * INTO recorded;
  ELSE
    why := CASE WHEN current."state" <> 'APPROVED' THEN 'ALREADY_' || current."state"
      WHEN NOT matches THEN 'FINGERPRINT_CHANGED' ELSE 'APPROVAL_EXPIRED' END;
    UPDATE "Proposal" SET "state" = to_state::"ProposalState",
      "stateReason" = 'Recorded as done by hand by ' || actor || ', but ' || CASE why
        WHEN 'ALREADY_EXPIRED' THEN 'this revision had already EXPIRED'
        WHEN 'ALREADY_STALE' THEN 'this revision had already gone STALE'
        WHEN 'FINGERPRINT_CHANGED' THEN 'the fingerprint presented (' || left(presented, 60) || ') is not the approved '
          || left(current."fingerprint", 60)
        ELSE 'the approval was no longer valid' END || ': a reconciler must check whether it took effect.',
      "leaseKind" = NULL, "manualLease" = NULL, "leaseTokenHash" = NULL, "claimedBy" = NULL, "claimedAt" = NULL, "leaseExpiresAt" = NULL,
      -- From EXPIRED or STALE the approvals are void already: a reconciler's "not executed" never brings it back.
      "approvalExpiresAt" = CASE WHEN current."state" = 'APPROVED' THEN "approvalExpiresAt" ELSE now_at END,
      -- Each time it becomes OUTCOME_UNKNOWN it is escalated anew; the announcer dates it.
      "escalatedAt" = CASE WHEN to_state = 'OUTCOME_UNKNOWN' AND current."state" <> 'OUTCOME_UNKNOWN' THEN NULL ELSE "escalatedAt" END,
      "outcomeUnknownAt" = CASE WHEN to_state = 'OUTCOME_UNKNOWN' AND current."state" <> 'OUTCOME_UNKNOWN' THEN NULL ELSE "outcomeUnknownAt" END,
      "version" = "version" + 1
    WHERE "id" = current."id" AND "version" = current."version" AND "state" = current."state"
    RETURNING * INTO recorded;
  END IF;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the proposal changed under the operation' USING ERRCODE = 'LH001';
  END IF;
  IF to_state = 'EXECUTED' THEN
    PERFORM "leasehold_proposal_event"('MANUAL_EXECUTION_RECORDED', actor, now_at, recorded, concat_ws(',',
      "leasehold_member"('from', to_json(current."state")),
      "leasehold_member"('reason', to_json(op->>'reason')),
      "leasehold_member"('evidence', to_json(op->>'evidence')),
      "leasehold_member"('reportedFingerprint', to_json(presented)),
      CASE WHEN after_acting IS NOT NULL THEN "leasehold_member"('fingerprintAfter', to_json(after_acting)) END,
      "leasehold_member"('operationId', to_json(current."operationId"))));
    IF after_acting IS NOT NULL THEN
      PERFORM "leasehold_remember_target"(op, current."targetSystem", current."targetId", after_acting, now_at, 'EXECUTION');
    END IF;
  ELSE
    PERFORM "leasehold_proposal_event"('EXECUTION_OUTCOME_UNKNOWN', actor, now_at, recorded, concat_ws(',',
      "leasehold_member"('from', to_json(current."state")),
      "leasehold_member"('manual', 'true'),
      "leasehold_member"('why', to_json(why)),
      "leasehold_member"('executor', to_json(actor)),
      "leasehold_member"('reason', to_json(op->>'reason')),
      "leasehold_member"('evidence', to_json(op->>'evidence')),
      "leasehold_member"('reportedFingerprint', to_json(presented)),
      CASE WHEN after_acting IS NOT NULL THEN "leasehold_member"('fingerprintAfter', to_json(after_acting)) END,
      "leasehold_member"('operationId', to_json(current."operationId"))));
  END IF;
  RETURN jsonb_build_object('proposal', to_jsonb(recorded));
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
  END;
END
$$;
