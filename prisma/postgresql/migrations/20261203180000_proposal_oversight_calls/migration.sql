-- Oversight of action proposals as write calls (issue 18): holdProposal, resumeProposal, escalateProposal and
-- assignProposal. The TypeScript forms in src/services/proposals/oversight.ts are the specification and
-- SQLite's path. Where each may take a proposal comes from the instance (domain/proposal.ts: HOLD's fixed
-- outcomes, RESUME's per combination of facts, the states that are not final); a proposal in any other state,
-- or none, is answered as found and nothing is written.

-- holdProposal: ON_HOLD, remembering where it was held from and by whom; an active lease ends with the hold
-- (PROPOSAL_HELD names its holder), a lapsed one not yet recorded is recorded first.
CREATE FUNCTION "leasehold_proposal_hold"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  current "Proposal";
  to_state TEXT;
  lease_active BOOLEAN;
  held "Proposal";
BEGIN
  SELECT * INTO current FROM "Proposal" WHERE "id" = (op->>'id')::int FOR UPDATE;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', NULL);
  END IF;
  to_state := op->'to'->>(current."state"::text);
  IF to_state IS NULL THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', to_jsonb(current));
  END IF;
  lease_active := current."leaseExpiresAt" IS NOT NULL AND current."leaseExpiresAt" > now_at;
  IF current."leaseTokenHash" IS NOT NULL AND NOT lease_active AND NOT current."leaseExpiryRecorded" THEN
    PERFORM "leasehold_proposal_event"('PROPOSAL_LEASE_EXPIRED', 'system', now_at, current, concat_ws(',',
      "leasehold_member"('holder', to_json(current."claimedBy")),
      "leasehold_member"('kind', to_json(current."leaseKind"))));
  END IF;
  UPDATE "Proposal" SET "state" = to_state::"ProposalState", "stateReason" = op->>'reason',
    "leaseKind" = NULL, "manualLease" = NULL, "leaseTokenHash" = NULL, "claimedBy" = NULL, "claimedAt" = NULL, "leaseExpiresAt" = NULL,
    "heldFrom" = current."state", "heldBy" = op->>'actor', "version" = "version" + 1
  WHERE "id" = current."id" AND "version" = current."version" AND "state" = current."state"
  RETURNING * INTO held;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the proposal changed under the operation' USING ERRCODE = 'LH001';
  END IF;
  PERFORM "leasehold_proposal_event"('PROPOSAL_HELD', op->>'actor', now_at, held, concat_ws(',',
    "leasehold_member"('from', to_json(current."state")),
    "leasehold_member"('reason', to_json(op->>'reason')),
    "leasehold_member"('endedLease', to_json(lease_active)),
    "leasehold_member"('leaseHolder', CASE WHEN lease_active THEN to_json(current."claimedBy") END),
    "leasehold_member"('leaseKind', CASE WHEN lease_active THEN to_json(current."leaseKind") END)));
  RETURN jsonb_build_object('proposal', to_jsonb(held));
END
$$;

-- resumeProposal: back to where it was held from while that still holds (its deadline not passed; from
-- APPROVED, its approval still valid), else EXPIRED with its approvals void. op.to holds RESUME's outcomes per
-- (held from)/(valid|lapsed).
CREATE FUNCTION "leasehold_proposal_resume"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  current "Proposal";
  deadline_open BOOLEAN;
  still_valid BOOLEAN;
  to_state TEXT;
  why TEXT;
  resumed "Proposal";
  voided INTEGER;
BEGIN
  SELECT * INTO current FROM "Proposal" WHERE "id" = (op->>'id')::int FOR UPDATE;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', NULL);
  END IF;
  deadline_open := current."deadline" IS NULL OR current."deadline" > now_at;
  still_valid := CASE WHEN current."heldFrom" = 'APPROVED'
    THEN COALESCE(current."approvalExpiresAt" > now_at AND deadline_open, FALSE) ELSE deadline_open END;
  to_state := op->'to'->(COALESCE(current."heldFrom"::text, '') || '/' || CASE WHEN still_valid THEN 'valid' ELSE 'lapsed' END)
    ->>(current."state"::text);
  IF to_state IS NULL THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', to_jsonb(current));
  END IF;
  why := CASE WHEN to_state <> 'EXPIRED' THEN NULL WHEN NOT deadline_open THEN 'DEADLINE' ELSE 'APPROVAL_VALIDITY' END;
  UPDATE "Proposal" SET "state" = to_state::"ProposalState",
    "stateReason" = CASE why WHEN 'DEADLINE' THEN 'The deadline passed while it was on hold.'
      WHEN 'APPROVAL_VALIDITY' THEN 'The approval expired while it was on hold.' ELSE op->>'reason' END,
    "heldFrom" = CASE WHEN to_state <> 'ON_HOLD' THEN NULL ELSE "heldFrom" END,
    "heldBy" = CASE WHEN to_state <> 'ON_HOLD' THEN NULL ELSE "heldBy" END,
    "version" = "version" + 1
  WHERE "id" = current."id" AND "version" = current."version" AND "state" = current."state"
  RETURNING * INTO resumed;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the proposal changed under the operation' USING ERRCODE = 'LH001';
  END IF;
  PERFORM "leasehold_proposal_event"('PROPOSAL_RESUMED', op->>'actor', now_at, resumed, concat_ws(',',
    "leasehold_member"('from', to_json(current."state")),
    "leasehold_member"('heldFrom', to_json(current."heldFrom")),
    "leasehold_member"('heldBy', to_json(current."heldBy")),
    "leasehold_member"('reason', to_json(op->>'reason'))));
  IF why IS NOT NULL THEN
    voided := "leasehold_void_approvals"(current."id", now_at, 'EXPIRED');
    PERFORM "leasehold_proposal_event"('PROPOSAL_EXPIRED', op->>'actor', now_at, resumed, concat_ws(',',
      "leasehold_member"('from', to_json(current."state")),
      "leasehold_member"('why', to_json(why)),
      "leasehold_member"('voidedApprovals', to_json(voided))));
  END IF;
  RETURN jsonb_build_object('proposal', to_jsonb(resumed));
END
$$;

-- escalateProposal (op.escalatedTo, op.toKind) and assignProposal (op.assignee): a change of attention to a
-- proposal in a state that is not final (op.live); its state and lease stay as they are.
CREATE FUNCTION "leasehold_proposal_attention"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  current "Proposal";
  changed "Proposal";
  escalating BOOLEAN := op->>'op' = 'proposalEscalate';
BEGIN
  SELECT * INTO current FROM "Proposal" WHERE "id" = (op->>'id')::int FOR UPDATE;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', NULL);
  END IF;
  IF NOT (op->'live') ? current."state"::text THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', to_jsonb(current));
  END IF;
  UPDATE "Proposal" SET
    "escalatedAt" = CASE WHEN escalating THEN now_at ELSE "escalatedAt" END,
    "escalatedTo" = CASE WHEN escalating THEN op->>'escalatedTo' ELSE "escalatedTo" END,
    "assignee" = CASE WHEN escalating THEN "assignee" ELSE op->>'assignee' END,
    "version" = "version" + 1
  WHERE "id" = current."id" AND "version" = current."version" AND "state" = current."state"
  RETURNING * INTO changed;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the proposal changed under the operation' USING ERRCODE = 'LH001';
  END IF;
  IF escalating THEN
    PERFORM "leasehold_proposal_event"('PROPOSAL_ESCALATED', op->>'actor', now_at, changed, concat_ws(',',
      "leasehold_member"('from', to_json(current."state")),
      "leasehold_member"('to', to_json(op->>'escalatedTo')),
      "leasehold_member"('toKind', to_json(op->>'toKind')),
      "leasehold_member"('reason', to_json(op->>'reason')),
      "leasehold_member"('automatic', 'false'),
      "leasehold_member"('previouslyEscalatedTo', to_json(current."escalatedTo"))));
  ELSE
    PERFORM "leasehold_proposal_event"('PROPOSAL_ASSIGNED', op->>'actor', now_at, changed, concat_ws(',',
      "leasehold_member"('assignee', to_json(op->>'assignee')),
      "leasehold_member"('previousAssignee', to_json(current."assignee"))));
  END IF;
  RETURN jsonb_build_object('proposal', to_jsonb(changed));
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
  END;
END
$$;
