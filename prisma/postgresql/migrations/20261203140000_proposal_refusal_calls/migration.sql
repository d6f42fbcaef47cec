-- A reviewer's rejection or request for changes, and a proposal's cancellation, as write calls (issue 18).
-- The TypeScript forms in src/services/proposals/review.ts are the specification and SQLite's path. The
-- states an operation may leave, and where to, come from the instance (op.to: the fixed outcomes of
-- domain/proposal.ts's TRANSITIONS for it), so the state machine stays in one place; a proposal in any
-- other state is answered as found, and the instance refuses it as `transition` does.

-- Voids the proposal's approvals still counting, for `void_reason`; answers how many.
CREATE FUNCTION "leasehold_void_approvals"(proposal_id INTEGER, now_at TIMESTAMP(3), void_reason TEXT) RETURNS INTEGER
LANGUAGE plpgsql AS $$
DECLARE
  voided INTEGER;
BEGIN
  UPDATE "ProposalApproval" SET "voidedAt" = now_at, "voidReason" = void_reason, "lapsesAt" = NULL
  WHERE "proposalId" = proposal_id AND "voidedAt" IS NULL;
  GET DIAGNOSTICS voided = ROW_COUNT;
  RETURN voided;
END
$$;

-- `current` moved to `to_state` without a lease, for `state_reason` (move and NO_LEASE in shared.ts; leaving a hold
-- forgets where it was held from). Raises LH001 when it changed since it was read.
CREATE FUNCTION "leasehold_proposal_end"(current "Proposal", to_state TEXT, state_reason TEXT) RETURNS "Proposal"
LANGUAGE plpgsql AS $$
DECLARE
  moved "Proposal";
BEGIN
  UPDATE "Proposal" SET "state" = to_state::"ProposalState", "stateReason" = state_reason,
    "leaseKind" = NULL, "manualLease" = NULL, "leaseTokenHash" = NULL, "claimedBy" = NULL, "claimedAt" = NULL, "leaseExpiresAt" = NULL,
    "heldFrom" = CASE WHEN current."state" = 'ON_HOLD' AND to_state <> 'ON_HOLD' THEN NULL ELSE "heldFrom" END,
    "heldBy" = CASE WHEN current."state" = 'ON_HOLD' AND to_state <> 'ON_HOLD' THEN NULL ELSE "heldBy" END,
    "version" = "version" + 1
  WHERE "id" = current."id" AND "version" = current."version" AND "state" = current."state"
  RETURNING * INTO moved;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the proposal changed under the operation' USING ERRCODE = 'LH001';
  END IF;
  RETURN moved;
END
$$;

-- reviewProposal with REJECT or REQUEST_CHANGES (op.operation) under the caller's review lease: never on its
-- own proposal, never past the deadline. Answered as found when any of that fails.
CREATE FUNCTION "leasehold_proposal_turn_down"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  found_lease RECORD;
  held "Proposal";
  to_state TEXT;
  decided "Proposal";
BEGIN
  SELECT * INTO found_lease FROM "leasehold_proposal_held"(op || '{"anyKind": false}', now_at);
  held := found_lease.held;
  to_state := op->'to'->>(held."state"::text);
  IF NOT found_lease.usable OR held."proposedBy" = op->>'actor' OR held."deadline" <= now_at OR to_state IS NULL THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', CASE WHEN held."id" IS NULL THEN NULL ELSE to_jsonb(held) END);
  END IF;
  decided := "leasehold_proposal_end"(held, to_state, op->>'reason');
  PERFORM "leasehold_void_approvals"(held."id", now_at, op->>'operation');
  PERFORM "leasehold_proposal_event"(
    CASE WHEN op->>'operation' = 'REJECT' THEN 'PROPOSAL_REJECTED' ELSE 'PROPOSAL_CHANGES_REQUESTED' END::"EventType",
    op->>'actor', now_at, decided, concat_ws(',',
      "leasehold_member"('from', to_json(held."state")),
      "leasehold_member"('reason', to_json(op->>'reason')),
      "leasehold_member"('comment', to_json(op->>'comment'))));
  RETURN jsonb_build_object('proposal', to_jsonb(decided));
END
$$;

-- cancelProposal: by its proposer, or an admin (op.isAdmin).
CREATE FUNCTION "leasehold_proposal_cancel"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  current "Proposal";
  to_state TEXT;
  cancelled "Proposal";
  voided INTEGER;
BEGIN
  SELECT * INTO current FROM "Proposal" WHERE "id" = (op->>'id')::int FOR UPDATE;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', NULL);
  END IF;
  to_state := op->'to'->>(current."state"::text);
  IF (NOT (op->>'isAdmin')::boolean AND current."proposedBy" <> op->>'actor') OR to_state IS NULL THEN
    RETURN jsonb_build_object('refused', TRUE, 'proposal', to_jsonb(current));
  END IF;
  cancelled := "leasehold_proposal_end"(current, to_state, op->>'reason');
  voided := "leasehold_void_approvals"(current."id", now_at, 'CANCELLED');
  PERFORM "leasehold_proposal_event"('PROPOSAL_CANCELLED', op->>'actor', now_at, cancelled, concat_ws(',',
    "leasehold_member"('from', to_json(current."state")),
    "leasehold_member"('reason', to_json(op->>'reason')),
    "leasehold_member"('voidedApprovals', to_json(voided))));
  RETURN jsonb_build_object('proposal', to_jsonb(cancelled));
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
  END;
END
$$;
