-- claimExecution as a write call (issue 18): executors poll for work, and each poll used to be an
-- interactive transaction holding the write lock across its round trips even when nothing was ready.
-- The TypeScript form in src/services/proposals/execution.ts is the specification and SQLite's path; the
-- state it moves to comes from the instance (op.to: domain/proposal.ts's transition), so the state
-- machine stays in one place.

-- claimExecution: the APPROVED proposal whose approval runs out first (then the oldest), still valid, never
-- the executor's own, never one it approved where the policy separates them (op.separated: those risk
-- levels), of the actions and target systems it asked for (null: any). Picked FOR UPDATE SKIP LOCKED, as
-- review claims are; the write compares the version read.
CREATE FUNCTION "leasehold_execution_claim"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  actor TEXT := op->>'holder';
  chosen "Proposal";
  granted "Proposal";
BEGIN
  SELECT * INTO chosen FROM "Proposal" p
  WHERE p."state" = 'APPROVED' AND p."approvalExpiresAt" > now_at AND p."proposedBy" <> actor
    AND (op->'actions' IS NULL OR op->'actions' = 'null' OR p."action" IN (SELECT jsonb_array_elements_text(op->'actions')))
    AND (op->'targetSystems' IS NULL OR op->'targetSystems' = 'null'
      OR p."targetSystem" IN (SELECT jsonb_array_elements_text(op->'targetSystems')))
    AND (p."riskLevel"::text NOT IN (SELECT jsonb_array_elements_text(op->'separated'))
      OR NOT EXISTS (SELECT 1 FROM "ProposalApproval" a WHERE a."proposalId" = p."id" AND a."approver" = actor AND a."voidedAt" IS NULL))
  ORDER BY p."approvalExpiresAt", p."id"
  LIMIT 1 FOR UPDATE SKIP LOCKED;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('none', TRUE);
  END IF;
  UPDATE "Proposal" SET "state" = (op->>'to')::"ProposalState", "leaseKind" = 'EXECUTION', "leaseTokenHash" = op->>'tokenHash',
    "claimedBy" = actor, "claimedAt" = now_at, "leaseExpiresAt" = now_at + "leasehold_ms"((op->>'leaseSeconds')::float8 * 1000),
    "leaseNumber" = "leaseNumber" + 1, "leaseExpiryRecorded" = FALSE, "version" = "version" + 1
  WHERE "id" = chosen."id" AND "version" = chosen."version" AND "state" = chosen."state"
  RETURNING * INTO granted;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the proposal changed under the operation' USING ERRCODE = 'LH001';
  END IF;
  PERFORM "leasehold_proposal_event"('EXECUTION_CLAIMED', actor, now_at, granted, concat_ws(',',
    "leasehold_member"('from', to_json(chosen."state")),
    "leasehold_member"('executor', to_json(actor)),
    "leasehold_member"('operationId', to_json(granted."operationId")),
    "leasehold_member"('leaseSeconds', (op->'leaseSeconds')::json)));
  RETURN jsonb_build_object('proposal', to_jsonb(granted));
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
  END;
END
$$;
