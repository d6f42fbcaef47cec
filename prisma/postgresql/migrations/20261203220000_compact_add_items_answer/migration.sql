-- addItems answers compactly: one entry per input in order (the new item's id, or the refusal's code)
-- and one inserted row as stored (the first); the others differ from it only in the columns the input
-- gives (id, batchId, recordId, proposedCategory, reason), which the instance fills in from the input.
-- Writing every row with to_jsonb took a quarter of the call's time inside PostgreSQL (500 items:
-- 37–62 ms against 66–94 ms, BENCHMARKS.md), and the instance then parsed 200 kB per call.
-- `judged` is materialized: its duplicate check was planned once per use of `refusal` (four probes of
-- the queue's unique index per input, or four hashed scans of the Item table while it is small).
CREATE OR REPLACE FUNCTION "leasehold_add_items"(op JSONB, now_at TIMESTAMP(3)) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  answer JSONB;
BEGIN
  WITH input AS (
    SELECT e.ord, e.value->>'batchId' AS batch_id, e.value->>'recordId' AS record_id,
      e.value->>'proposedCategory' AS category, e.value->>'reason' AS reason
    FROM jsonb_array_elements(op->'items') WITH ORDINALITY AS e(value, ord)
  ), judged AS MATERIALIZED (
    SELECT i.*, CASE
        WHEN c."name" IS NULL THEN 'UNKNOWN_CATEGORY'
        WHEN c."retiredAt" IS NOT NULL THEN 'CATEGORY_RETIRED'
        WHEN EXISTS (SELECT 1 FROM "Item" t WHERE t."batchId" = i.batch_id AND t."recordId" = i.record_id) THEN 'DUPLICATE_ITEM'
      END AS refusal
    FROM input i LEFT JOIN "Category" c ON c."name" = i.category
  ), decided AS (
    -- Of the same item given twice, the first that could be added is; the later ones are duplicates.
    SELECT j.*, CASE
        WHEN j.refusal IS NULL AND j.ord <> min(j.ord) FILTER (WHERE j.refusal IS NULL) OVER (PARTITION BY j.batch_id, j.record_id)
        THEN 'DUPLICATE_ITEM' ELSE j.refusal
      END AS outcome
    FROM judged j
  ), inserted AS (
    INSERT INTO "Item" ("batchId", "recordId", "proposedCategory", "reason", "createdAt", "addedBy")
    SELECT batch_id, record_id, category, reason, date_trunc('second', now_at), op->>'actor'
    FROM decided WHERE outcome IS NULL ORDER BY ord
    RETURNING *
  ), events AS (
    INSERT INTO "Event" ("occurredAt", "type", "actor", "itemId", "itemVersion", "toStatus", "details")
    SELECT now_at, 'ITEM_ADDED', op->>'actor', n."id", n."version", 'PENDING',
      '{' || concat_ws(',',
        "leasehold_member"('batchId', to_json(n."batchId")),
        "leasehold_member"('recordId', to_json(n."recordId")),
        "leasehold_member"('proposedCategory', to_json(n."proposedCategory"))
      ) || '}'
    FROM inserted n ORDER BY n."id"
  )
  SELECT jsonb_build_object(
      'addedIds', COALESCE(jsonb_agg(CASE WHEN n."id" IS NULL THEN to_jsonb(d.outcome) ELSE to_jsonb(n."id") END ORDER BY d.ord), '[]'),
      'addedRow', (SELECT to_jsonb(f) FROM inserted f ORDER BY f."id" LIMIT 1))
  INTO answer
  FROM decided d LEFT JOIN inserted n ON d.outcome IS NULL AND n."batchId" = d.batch_id AND n."recordId" = d.record_id;
  RETURN answer;
END
$$;
