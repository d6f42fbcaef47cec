-- Submitting a proposal as a write call (issue 18): submitProposal, the agents' way in. The TypeScript form
-- in src/services/proposals/intake.ts is the specification and SQLite's path. What is the instance's to
-- decide comes with the call: the validated submission, whether its risk is below the action's floor, the
-- approvers it needs (with none: the policy, where AUTO_APPROVE takes it and the window), the states a
-- revision may follow and the risk levels' order. A stored submission of the same key is answered as
-- found (the instance compares content); a refusal answers the facts the instance's checks need, taken in
-- their order, and nothing is written.

CREATE FUNCTION "leasehold_proposal_submit"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  actor TEXT := op->>'actor';
  p JSONB := op->'proposal';
  deadline_at TIMESTAMP(3) := (p->>'deadline')::timestamptz AT TIME ZONE 'UTC';
  rev INTEGER := (p->>'revision')::int;
  found_row "Proposal";
  remembered "TargetState";
  previous "Proposal";
  submitted "Proposal";
  approved "Proposal";
BEGIN
  IF (op->>'skipLocked')::boolean THEN
    -- PG_WRITE_MODE=sharded takes no global lock for a batch; a submission still takes the one interactive
    -- writes take (target reports among them), so two of the same key, or one and a report of its target,
    -- never pass each other. A deadlock with another batch's rows is broken by PostgreSQL and sent again.
    PERFORM pg_advisory_xact_lock(7415620002);
  END IF;
  SELECT * INTO found_row FROM "Proposal"
  WHERE "batchId" = p->>'batchId' AND "recordId" = p->>'recordId' AND "revision" = rev;
  IF FOUND THEN
    RETURN jsonb_build_object('existing', TRUE, 'proposal', to_jsonb(found_row));
  END IF;
  IF deadline_at <= now_at THEN
    RETURN jsonb_build_object('refused', TRUE);
  END IF;
  SELECT * INTO remembered FROM "TargetState" WHERE "targetSystem" = p->>'targetSystem' AND "targetId" = p->>'targetId';
  IF FOUND AND remembered."fingerprint" <> p->>'fingerprint' THEN
    RETURN jsonb_build_object('refused', TRUE, 'remembered', to_jsonb(remembered));
  END IF;
  IF (op->>'belowFloor')::boolean THEN
    RETURN jsonb_build_object('refused', TRUE);
  END IF;
  IF rev > 1 THEN
    SELECT * INTO previous FROM "Proposal"
    WHERE "batchId" = p->>'batchId' AND "recordId" = p->>'recordId' AND "revision" = rev - 1;
    IF NOT FOUND THEN
      RETURN jsonb_build_object('refused', TRUE, 'previous', NULL);
    END IF;
    IF NOT (op->'revisable' ? previous."state"::text) OR previous."proposedBy" <> actor
       OR array_position(ARRAY(SELECT jsonb_array_elements_text(op->'risks')), p->>'riskLevel')
        < array_position(ARRAY(SELECT jsonb_array_elements_text(op->'risks')), previous."riskLevel"::text) THEN
      RETURN jsonb_build_object('refused', TRUE, 'previous', to_jsonb(previous));
    END IF;
  ELSIF EXISTS (SELECT 1 FROM "Proposal" WHERE "batchId" = p->>'batchId' AND "recordId" = p->>'recordId') THEN
    RETURN jsonb_build_object('refused', TRUE, 'revisions', TRUE);
  END IF;

  INSERT INTO "Proposal" ("batchId", "recordId", "revision", "action", "parameters", "reason", "targetSystem", "targetId",
    "currentValue", "proposedValue", "dataSource", "impact", "constraints", "rule", "riskLevel", "fingerprint",
    "approvalValiditySeconds", "deadline", "previousId", "proposedBy", "createdAt", "approvalsRequired", "autoApprovedBy")
  VALUES (p->>'batchId', p->>'recordId', rev, p->>'action', p->>'parameters', p->>'reason', p->>'targetSystem',
    p->>'targetId', p->>'currentValue', p->>'proposedValue', p->>'dataSource', p->>'impact', p->>'constraints', p->>'rule',
    (p->>'riskLevel')::"RiskLevel", p->>'fingerprint', (p->>'approvalValiditySeconds')::int, deadline_at, previous."id",
    actor, now_at, (op->>'approvers')::int, CASE WHEN (op->>'approvers')::int = 0 THEN op->>'policy' END)
  RETURNING * INTO submitted;
  PERFORM "leasehold_proposal_event"('PROPOSAL_SUBMITTED', actor, now_at, submitted, concat_ws(',',
    "leasehold_member"('batchId', to_json(submitted."batchId")),
    "leasehold_member"('recordId', to_json(submitted."recordId")),
    "leasehold_member"('action', to_json(submitted."action")),
    "leasehold_member"('riskLevel', to_json(submitted."riskLevel")),
    "leasehold_member"('target', to_json(submitted."targetSystem" || '/' || submitted."targetId")),
    "leasehold_member"('previousId', to_json(submitted."previousId"))));
  IF (op->>'approvers')::int > 0 THEN
    RETURN jsonb_build_object('proposal', to_jsonb(submitted));
  END IF;

  -- approvers: 0: the policy approves it now, to be reviewed after execution.
  UPDATE "Proposal" SET "state" = (op->>'autoApproved')::"ProposalState", "approvedAt" = now_at,
    "approvalExpiresAt" = "leasehold_approval_expiry"(now_at, (op->>'validity')::int, submitted."approvalValiditySeconds", submitted."deadline"),
    "operationId" = op->>'operationId', "version" = "version" + 1
  WHERE "id" = submitted."id"
  RETURNING * INTO approved;
  PERFORM "leasehold_proposal_event"('PROPOSAL_APPROVED', 'system', now_at, approved, concat_ws(',',
    "leasehold_member"('from', to_json(submitted."state")),
    "leasehold_member"('policy', to_json(op->>'policy')),
    "leasehold_member"('approvals', '0'),
    "leasehold_member"('approvalsRequired', '0'),
    "leasehold_member"('approvalExpiresAt', to_json("leasehold_iso"(approved."approvalExpiresAt"))),
    "leasehold_member"('operationId', to_json(approved."operationId")),
    "leasehold_member"('reviewedAfterExecution', 'true')));
  RETURN jsonb_build_object('proposal', to_jsonb(approved));
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
  END;
END
$$;
