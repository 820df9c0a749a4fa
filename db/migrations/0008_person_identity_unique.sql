-- A live person sharing its email with an older one of its workspace is merged into the oldest (with
-- whatever was merged into it), so the unique index below holds on data written before it.
WITH ranked AS (
  SELECT id, first_value(id) OVER (PARTITION BY workspace_id, email ORDER BY created_at, id) AS keep
  FROM persons WHERE deleted_at IS NULL AND id = root_person_id AND email IS NOT NULL
)
UPDATE persons p SET root_person_id = r.keep, merged_at = coalesce(p.merged_at, now()),
  merge_meta = CASE WHEN p.id = r.id THEN p.merge_meta || '{"reason": "duplicate email"}'::jsonb ELSE p.merge_meta END
FROM ranked r WHERE p.root_person_id = r.id AND r.id <> r.keep;--> statement-breakpoint
-- A live person sharing its phone with an older one of its workspace is merged into the oldest (with
-- whatever was merged into it), so the unique index below holds on data written before it.
WITH ranked AS (
  SELECT id, first_value(id) OVER (PARTITION BY workspace_id, phone ORDER BY created_at, id) AS keep
  FROM persons WHERE deleted_at IS NULL AND id = root_person_id AND phone IS NOT NULL
)
UPDATE persons p SET root_person_id = r.keep, merged_at = coalesce(p.merged_at, now()),
  merge_meta = CASE WHEN p.id = r.id THEN p.merge_meta || '{"reason": "duplicate phone"}'::jsonb ELSE p.merge_meta END
FROM ranked r WHERE p.root_person_id = r.id AND r.id <> r.keep;--> statement-breakpoint
DROP INDEX "persons_workspace_email";--> statement-breakpoint
DROP INDEX "persons_workspace_phone";--> statement-breakpoint
CREATE UNIQUE INDEX "persons_workspace_email" ON "persons" USING btree ("workspace_id","email") WHERE "persons"."deleted_at" is null and "persons"."id" = "persons"."root_person_id";--> statement-breakpoint
CREATE UNIQUE INDEX "persons_workspace_phone" ON "persons" USING btree ("workspace_id","phone") WHERE "persons"."deleted_at" is null and "persons"."id" = "persons"."root_person_id";