-- A reviewer's approval as a write call (issue 18): reviewProposal with APPROVE, under the caller's review
-- lease. The TypeScript form in src/services/proposals/review.ts is the specification and SQLite's path. What
-- is the instance's to decide comes with the call: the approval windows per risk level (its policies),
-- where APPROVE takes a PENDING proposal with enough approvals and with too few (domain/proposal.ts), and
-- the operation id an approval gets. Every refusal is decided before anything is written, and answered
-- with what the instance needs to give the same refusal.

-- approvalExpiry: the policy's window or the proposal's own (shorter) one from `from_at`, never past the deadline.
CREATE FUNCTION "leasehold_approval_expiry"(from_at TIMESTAMP(3), validity INTEGER, requested INTEGER, deadline TIMESTAMP(3))
RETURNS TIMESTAMP(3)
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN deadline IS NULL THEN expiry ELSE least(expiry, deadline) END
  FROM (SELECT from_at + make_interval(secs => least(validity, COALESCE(requested, validity))) AS expiry) AS window_end
$$;

CREATE FUNCTION "leasehold_proposal_approve"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  actor TEXT := op->>'actor';
  found_lease RECORD;
  held "Proposal";
  current "Proposal";
  remembered "TargetState";
  mine "ProposalApproval";
  mine_found BOOLEAN;
  due_rows "ProposalApproval"[];
  due "ProposalApproval";
  left_count INTEGER;
  validity INTEGER;
  approvals INTEGER;
  oldest TIMESTAMP(3);
  to_state TEXT;
  decided "Proposal";
BEGIN
  SELECT * INTO found_lease FROM "leasehold_proposal_held"(op || '{"anyKind": false}', now_at);
  held := found_lease.held;
  IF NOT found_lease.usable OR held."proposedBy" = actor OR held."deadline" <= now_at OR held."state" <> 'PENDING'
     OR held."revision" <> (op->>'revision')::int
     OR (op->>'fingerprint' IS NOT NULL AND op->>'fingerprint' <> held."fingerprint") THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', CASE WHEN held."id" IS NULL THEN NULL ELSE to_jsonb(held) END);
  END IF;
  -- Never an approval of data the server knows changed (a remembered fingerprint other than the proposal's).
  SELECT * INTO remembered FROM "TargetState" WHERE "targetSystem" = held."targetSystem" AND "targetId" = held."targetId";
  IF FOUND AND remembered."fingerprint" <> held."fingerprint" THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', to_jsonb(held), 'remembered', to_jsonb(remembered));
  END IF;
  -- The caller's approval stands, unless it lapsed or lapses now (then this one replaces it).
  SELECT * INTO mine FROM "ProposalApproval" WHERE "proposalId" = held."id" AND "approver" = actor;
  mine_found := FOUND;
  IF mine_found AND mine."voidReason" IS DISTINCT FROM 'LAPSED' AND NOT (mine."voidedAt" IS NULL AND COALESCE(mine."lapsesAt" <= now_at, FALSE)) THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', to_jsonb(held), 'approved', TRUE);
  END IF;

  -- Approvals past their window no longer count (lapseApprovals): voided, the version moves on, one event each.
  current := held;
  SELECT array_agg(a ORDER BY a."id") INTO due_rows FROM "ProposalApproval" a
  WHERE a."proposalId" = held."id" AND a."voidedAt" IS NULL AND a."lapsesAt" <= now_at;
  IF due_rows IS NOT NULL THEN
    UPDATE "ProposalApproval" SET "voidedAt" = now_at, "voidReason" = 'LAPSED', "lapsesAt" = NULL
    WHERE "id" IN (SELECT d."id" FROM unnest(due_rows) AS d);
    UPDATE "Proposal" SET "version" = "version" + 1
    WHERE "id" = held."id" AND "version" = held."version" AND "state" = held."state"
    RETURNING * INTO current;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'the proposal changed under the operation' USING ERRCODE = 'LH001';
    END IF;
    SELECT count(*) INTO left_count FROM "ProposalApproval" WHERE "proposalId" = held."id" AND "voidedAt" IS NULL;
    FOREACH due IN ARRAY due_rows LOOP
      PERFORM "leasehold_proposal_event"('PROPOSAL_APPROVAL_LAPSED', 'system', now_at, current, concat_ws(',',
        "leasehold_member"('approver', to_json(due."approver")),
        "leasehold_member"('approvedAt', to_json("leasehold_iso"(due."approvedAt"))),
        "leasehold_member"('lapsedAt', to_json("leasehold_iso"(due."lapsesAt"))),
        "leasehold_member"('approvals', to_json(left_count)),
        "leasehold_member"('approvalsRequired', to_json(held."approvalsRequired"))));
    END LOOP;
  END IF;

  -- Counts for the approval window from now (a lapsed one of the caller's is replaced by this one).
  validity := (op->'validity'->>(current."riskLevel"::text))::int;
  IF mine_found THEN
    UPDATE "ProposalApproval" SET "approvedAt" = now_at, "voidedAt" = NULL, "voidReason" = NULL,
      "lapsesAt" = "leasehold_approval_expiry"(now_at, validity, current."approvalValiditySeconds", current."deadline")
    WHERE "id" = mine."id";
  ELSE
    INSERT INTO "ProposalApproval" ("proposalId", "approver", "approvedAt", "voidedAt", "voidReason", "lapsesAt")
    VALUES (current."id", actor, now_at, NULL, NULL,
      "leasehold_approval_expiry"(now_at, validity, current."approvalValiditySeconds", current."deadline"));
  END IF;
  SELECT count(*), min("approvedAt") INTO approvals, oldest FROM "ProposalApproval" WHERE "proposalId" = current."id" AND "voidedAt" IS NULL;
  to_state := CASE WHEN approvals >= current."approvalsRequired" THEN op->>'reached' ELSE op->>'short' END;
  IF to_state = 'APPROVED' THEN
    -- From here approvalExpiresAt governs; the approvals no longer lapse one by one.
    UPDATE "ProposalApproval" SET "lapsesAt" = NULL WHERE "proposalId" = current."id" AND "voidedAt" IS NULL;
  END IF;
  UPDATE "Proposal" SET "state" = to_state::"ProposalState",
    "leaseKind" = NULL, "manualLease" = NULL, "leaseTokenHash" = NULL, "claimedBy" = NULL, "claimedAt" = NULL, "leaseExpiresAt" = NULL,
    "approvedAt" = CASE WHEN to_state = 'APPROVED' THEN now_at ELSE "approvedAt" END,
    -- Valid for the window from the oldest approval counted: after that the quorum no longer holds.
    "approvalExpiresAt" = CASE WHEN to_state = 'APPROVED'
      THEN "leasehold_approval_expiry"(oldest, validity, current."approvalValiditySeconds", current."deadline") ELSE "approvalExpiresAt" END,
    "operationId" = CASE WHEN to_state = 'APPROVED' THEN op->>'operationId' ELSE "operationId" END,
    "version" = "version" + 1
  WHERE "id" = current."id" AND "version" = current."version" AND "state" = current."state"
  RETURNING * INTO decided;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the proposal changed under the operation' USING ERRCODE = 'LH001';
  END IF;
  PERFORM "leasehold_proposal_event"('PROPOSAL_APPROVAL_RECORDED', actor, now_at, decided, concat_ws(',',
    "leasehold_member"('from', to_json(current."state")),
    "leasehold_member"('approver', to_json(actor)),
    "leasehold_member"('approvals', to_json(approvals)),
    "leasehold_member"('approvalsRequired', to_json(current."approvalsRequired")),
    "leasehold_member"('comment', to_json(op->>'comment'))));
  IF to_state = 'APPROVED' THEN
    PERFORM "leasehold_proposal_event"('PROPOSAL_APPROVED', actor, now_at, decided, concat_ws(',',
      "leasehold_member"('from', to_json(current."state")),
      "leasehold_member"('approvals', to_json(approvals)),
      "leasehold_member"('approvalExpiresAt', to_json("leasehold_iso"(decided."approvalExpiresAt"))),
      "leasehold_member"('operationId', to_json(decided."operationId"))));
  END IF;
  RETURN jsonb_build_object('proposal', to_jsonb(decided));
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
  END;
END
$$;
