-- A reconciler's settlement of OUTCOME_UNKNOWN (reconcileProposal) and the review after execution of a
-- proposal a policy approved (reviewExecutedProposal) as write calls (issue 18). The TypeScript forms in
-- src/services/proposals/recovery.ts and after-review.ts are the specification and SQLite's path; where a
-- reconciliation takes a proposal comes from the instance (domain/proposal.ts, per combination of facts). A
-- refusal is answered as found, and nothing is written.

-- reconcileProposal: never by its proposer or one of its executors (when the caller is authenticated: every
-- principal that claimed its execution, ran an attempt or recorded it by hand); op.to by (valid|lapsed)/
-- (same|changed). STALE and EXPIRED are recorded as such too; a fingerprint given is remembered as the
-- target's state (source RECONCILIATION).
CREATE FUNCTION "leasehold_proposal_reconcile"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  reconciler TEXT := op->>'actor';
  reported TEXT := op->>'fingerprint';
  current "Proposal";
  executor BOOLEAN;
  valid BOOLEAN;
  to_state TEXT;
  settled "Proposal";
  voided INTEGER := 0;
BEGIN
  SELECT * INTO current FROM "Proposal" WHERE "id" = (op->>'id')::int FOR UPDATE;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', NULL);
  END IF;
  IF (op->>'authenticated')::boolean THEN
    IF current."proposedBy" = reconciler THEN
      RETURN jsonb_build_object('refused', TRUE, 'proposal', to_jsonb(current));
    END IF;
    executor := (current."leaseKind" = 'EXECUTION' AND current."claimedBy" = reconciler)
      OR EXISTS (SELECT 1 FROM "Event" e WHERE e."proposalId" = current."id" AND e."actor" = reconciler
        AND e."type" IN ('EXECUTION_CLAIMED', 'MANUAL_EXECUTION_RECORDED', 'EXECUTION_OUTCOME_UNKNOWN'))
      OR EXISTS (SELECT 1 FROM "ExecutionAttempt" a WHERE a."proposalId" = current."id" AND a."executor" = reconciler);
    IF executor THEN
      RETURN jsonb_build_object('refused', TRUE, 'proposal', to_jsonb(current), 'executor', TRUE);
    END IF;
  END IF;
  valid := COALESCE(current."approvalExpiresAt" > now_at AND (current."deadline" IS NULL OR current."deadline" > now_at), FALSE);
  to_state := op->'to'->(CASE WHEN valid THEN 'valid' ELSE 'lapsed' END || '/'
    || CASE WHEN reported IS NULL OR reported = current."fingerprint" THEN 'same' ELSE 'changed' END)->>(current."state"::text);
  IF to_state IS NULL THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', to_jsonb(current));
  END IF;
  UPDATE "Proposal" SET "state" = to_state::"ProposalState", "stateReason" = op->>'evidence',
    "leaseKind" = NULL, "manualLease" = NULL, "leaseTokenHash" = NULL, "claimedBy" = NULL, "claimedAt" = NULL, "leaseExpiresAt" = NULL,
    -- A proposal a policy approved (approvers: 0) waits for its review afterwards once carried out.
    "afterReview" = CASE WHEN to_state = 'EXECUTED' AND current."autoApprovedBy" IS NOT NULL THEN 'PENDING' ELSE "afterReview" END,
    "version" = "version" + 1
  WHERE "id" = current."id" AND "version" = current."version" AND "state" = current."state"
  RETURNING * INTO settled;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the proposal changed under the operation' USING ERRCODE = 'LH001';
  END IF;
  IF to_state IN ('STALE', 'EXPIRED') THEN
    voided := "leasehold_void_approvals"(current."id", now_at, to_state);
  END IF;
  PERFORM "leasehold_proposal_event"('PROPOSAL_RECONCILED', reconciler, now_at, settled, concat_ws(',',
    "leasehold_member"('from', to_json(current."state")),
    "leasehold_member"('executed', to_json((op->>'executed')::boolean)),
    "leasehold_member"('evidence', to_json(op->>'evidence'))));
  IF to_state = 'STALE' THEN
    PERFORM "leasehold_proposal_event"('PROPOSAL_STALE', reconciler, now_at, settled, concat_ws(',',
      "leasehold_member"('from', to_json(current."state")),
      "leasehold_member"('reportedFingerprint', to_json(reported)),
      "leasehold_member"('voidedApprovals', to_json(voided)),
      "leasehold_member"('via', '"RECONCILIATION"')));
  ELSIF to_state = 'EXPIRED' THEN
    PERFORM "leasehold_proposal_event"('PROPOSAL_EXPIRED', reconciler, now_at, settled, concat_ws(',',
      "leasehold_member"('from', to_json(current."state")),
      "leasehold_member"('why', to_json(CASE WHEN current."deadline" <= now_at THEN 'DEADLINE' ELSE 'APPROVAL_VALIDITY' END)),
      "leasehold_member"('via', '"RECONCILIATION"')));
  END IF;
  IF reported IS NOT NULL THEN
    PERFORM "leasehold_remember_target"(op, current."targetSystem", current."targetId", reported, now_at, 'RECONCILIATION');
  END IF;
  RETURN jsonb_build_object('proposal', to_jsonb(settled));
END
$$;

-- reviewExecutedProposal: once (its review after execution PENDING), never by its proposer.
CREATE FUNCTION "leasehold_proposal_review_after"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  actor TEXT := op->>'actor';
  current "Proposal";
  reviewed "Proposal";
BEGIN
  SELECT * INTO current FROM "Proposal" WHERE "id" = (op->>'id')::int FOR UPDATE;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', NULL);
  END IF;
  IF current."proposedBy" = actor OR current."afterReview" <> 'PENDING' THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', to_jsonb(current));
  END IF;
  UPDATE "Proposal" SET "afterReview" = (op->>'verdict')::"AfterReview", "afterReviewedBy" = actor, "afterReviewedAt" = now_at,
    "version" = "version" + 1
  WHERE "id" = current."id" AND "version" = current."version" AND "state" = current."state"
  RETURNING * INTO reviewed;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the proposal changed under the operation' USING ERRCODE = 'LH001';
  END IF;
  PERFORM "leasehold_proposal_event"('PROPOSAL_REVIEWED_AFTER', actor, now_at, reviewed, concat_ws(',',
    "leasehold_member"('reviewer', to_json(actor)),
    "leasehold_member"('verdict', to_json(op->>'verdict')),
    "leasehold_member"('comment', to_json(op->>'comment')),
    "leasehold_member"('from', to_json(current."afterReview")),
    "leasehold_member"('policy', to_json(current."autoApprovedBy")),
    "leasehold_member"('operationId', to_json(current."operationId"))));
  RETURN jsonb_build_object('proposal', to_jsonb(reviewed));
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
  END;
END
$$;
