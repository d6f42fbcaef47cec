-- API keys' creation (and the first start's administrator key) and revocation as operations of a
-- `leasehold_write` call (src/services/api-keys.ts is the TypeScript form): the last writes that held the write
-- lock across an interactive transaction on PostgreSQL. The secret is made and hashed by the instance; only its
-- hash and shown prefix come here. In PG_WRITE_MODE=sharded creation takes the global lock inside its batch, so
-- two keys of one new name, or two first-start keys, never pass each other.

-- keyCreate: refused (PRINCIPAL_NAME_TAKEN, with the keys sharing the name) when keys already act as the name and
-- the caller did not say the new one is the same principal; with `onlyIfNone`, made only on a database that has
-- never had a key (answers `none` otherwise). The key and its API_KEY_CREATED event, details as the instance
-- writes them.
CREATE FUNCTION "leasehold_key_create"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  sharing INTEGER[];
  made "ApiKey";
BEGIN
  IF COALESCE((op->>'skipLocked')::boolean, FALSE) THEN
    PERFORM pg_advisory_xact_lock(7415620002);
  END IF;
  IF COALESCE((op->>'onlyIfNone')::boolean, FALSE) AND EXISTS (SELECT 1 FROM "ApiKey") THEN
    RETURN jsonb_build_object('none', TRUE);
  END IF;
  SELECT COALESCE(array_agg("id" ORDER BY "id"), '{}') INTO sharing FROM "ApiKey" WHERE "name" = op->>'name';
  IF cardinality(sharing) > 0 AND NOT COALESCE((op->>'samePrincipal')::boolean, FALSE) THEN
    RETURN jsonb_build_object('refusal', 'PRINCIPAL_NAME_TAKEN', 'sharing', to_jsonb(sharing));
  END IF;
  INSERT INTO "ApiKey" ("name", "roles", "keyHash", "prefix", "createdAt", "createdBy")
  VALUES (op->>'name', op->>'roles', op->>'keyHash', op->>'prefix', now_at, op->>'actor')
  RETURNING * INTO made;
  INSERT INTO "Event" ("occurredAt", "type", "actor", "details")
  VALUES (now_at, 'API_KEY_CREATED', op->>'actor', '{' || concat_ws(',',
    "leasehold_member"('keyId', to_json(made."id")),
    "leasehold_member"('name', to_json(made."name")),
    "leasehold_member"('roles', to_json(made."roles")),
    CASE WHEN cardinality(sharing) > 0 THEN "leasehold_member"('samePrincipalAs', to_json(array_to_string(sharing, ','))) END
  ) || '}');
  RETURN jsonb_build_object('key', to_jsonb(made));
END
$$;

-- keyRevoke: API_KEY_NOT_FOUND, API_KEY_REVOKED (already), or revoked with its API_KEY_REVOKED event.
CREATE FUNCTION "leasehold_key_revoke"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  found_key "ApiKey";
BEGIN
  SELECT * INTO found_key FROM "ApiKey" WHERE "id" = (op->>'id')::int FOR UPDATE;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('refusal', 'API_KEY_NOT_FOUND');
  END IF;
  IF found_key."revokedAt" IS NOT NULL THEN
    RETURN jsonb_build_object('refusal', 'API_KEY_REVOKED');
  END IF;
  UPDATE "ApiKey" SET "revokedAt" = now_at, "revokedBy" = op->>'actor' WHERE "id" = found_key."id"
  RETURNING * INTO found_key;
  INSERT INTO "Event" ("occurredAt", "type", "actor", "details")
  VALUES (now_at, 'API_KEY_REVOKED', op->>'actor', '{' || concat_ws(',',
    "leasehold_member"('keyId', to_json(found_key."id")),
    "leasehold_member"('name', to_json(found_key."name"))
  ) || '}');
  RETURN jsonb_build_object('key', to_jsonb(found_key));
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
    WHEN 'recordRefusals' THEN "leasehold_record_refusals"(op, now_at)
    WHEN 'addCategories' THEN "leasehold_add_categories"(op, now_at)
    WHEN 'retireCategory' THEN "leasehold_retire_category"(op, now_at)
    WHEN 'webhookEnqueue' THEN "leasehold_webhook_enqueue"(op, now_at)
    WHEN 'webhookClaim' THEN "leasehold_webhook_claim"(op, now_at)
    WHEN 'webhookRecord' THEN "leasehold_webhook_record"(op, now_at)
    WHEN 'webhookRelease' THEN "leasehold_webhook_release"(op, now_at)
    WHEN 'keyCreate' THEN "leasehold_key_create"(op, now_at)
    WHEN 'keyRevoke' THEN "leasehold_key_revoke"(op, now_at)
  END;
END
$$;
