-- The usage rollups by UTC quarter-hour instead of hour (docs/decisions.md, the ledger): every zone's
-- offset is a whole number of quarter-hours, so GET /usage answers a local day of any zone from the
-- rollup alone. The buckets cannot be split from the hourly rows: they are rebuilt from the entries.
-- No booking may land between the rebuild's read and the new trigger: inserts wait for the commit
-- (reads go on), then fire the new trigger.
LOCK TABLE "ledger_entries" IN SHARE MODE;--> statement-breakpoint
ALTER TABLE "ledger_usage_hourly" RENAME TO "ledger_usage_quarter_hourly";--> statement-breakpoint
ALTER TABLE "ledger_usage_quarter_hourly" RENAME COLUMN "hour" TO "bucket";--> statement-breakpoint
ALTER TABLE "ledger_usage_quarter_hourly" RENAME CONSTRAINT "ledger_usage_hourly_key" TO "ledger_usage_quarter_hourly_key";--> statement-breakpoint
ALTER TABLE "ledger_usage_quarter_hourly" RENAME CONSTRAINT "ledger_usage_hourly_workspace_id_workspaces_id_fk" TO "ledger_usage_quarter_hourly_workspace_id_workspaces_id_fk";--> statement-breakpoint
ALTER TABLE "ledger_usage_reason_hourly" RENAME TO "ledger_usage_reason_quarter_hourly";--> statement-breakpoint
ALTER TABLE "ledger_usage_reason_quarter_hourly" RENAME COLUMN "hour" TO "bucket";--> statement-breakpoint
ALTER TABLE "ledger_usage_reason_quarter_hourly" RENAME CONSTRAINT "ledger_usage_reason_hourly_workspace_id_hour_reason_pk" TO "ledger_usage_reason_quarter_hourly_workspace_id_bucket_reason_pk";--> statement-breakpoint
ALTER TABLE "ledger_usage_reason_quarter_hourly" RENAME CONSTRAINT "ledger_usage_reason_hourly_workspace_id_workspaces_id_fk" TO "ledger_usage_reason_quarter_hourly_workspace_id_workspaces_id_fk";--> statement-breakpoint
-- The trigger of migration 0010 with quarter-hour buckets (date_bin from a UTC origin).
CREATE OR REPLACE FUNCTION "ledger_entries_booked"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  WITH sums AS (
    SELECT "workspace_id", sum("amount") AS "amount",
      (array_agg("id" ORDER BY "created_at" DESC, "id" DESC))[1] AS "last_id",
      (array_agg("created_at" ORDER BY "created_at" DESC, "id" DESC))[1] AS "last_at"
    FROM "booked" GROUP BY "workspace_id" ORDER BY "workspace_id"
  ), moved AS (
    INSERT INTO "ledger_balances" AS b ("workspace_id", "balance", "last_entry_id", "last_entry_at")
    SELECT "workspace_id", "amount", "last_id", "last_at" FROM sums
    ON CONFLICT ("workspace_id") DO UPDATE SET "balance" = b."balance" + excluded."balance",
      "last_entry_id" = excluded."last_entry_id", "last_entry_at" = excluded."last_entry_at"
    RETURNING b."workspace_id", b."balance", b."low_balance_threshold", b."last_entry_id", b."last_entry_at"
  )
  INSERT INTO "events" ("type", "workspace_id", "data", "occurred_at")
  SELECT 'balance.low', m."workspace_id",
    jsonb_build_object('balance', m."balance", 'threshold', m."low_balance_threshold", 'lastEntryId', m."last_entry_id"),
    m."last_entry_at"
  FROM moved m JOIN sums s ON s."workspace_id" = m."workspace_id"
  WHERE m."balance" - s."amount" > m."low_balance_threshold" AND m."balance" <= m."low_balance_threshold";

  INSERT INTO "ledger_usage_quarter_hourly" AS u
    ("workspace_id", "bucket", "agent_id", "reason", "amount", "entries", "sessions", "voice_seconds")
  SELECT e."workspace_id", date_bin('15 minutes', e."created_at", '2000-01-01T00:00:00Z'), e."agent_id", e."reason",
    sum(e."amount"), count(*), count(e."session_id"),
    coalesce(sum("ledger_voice_seconds"(s."started_at", s."ended_at")), 0)
  FROM "booked" e
  LEFT JOIN "sessions" s ON e."reason" = 'VOICE_USAGE' AND s."id" = e."session_id"
  GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT ON CONSTRAINT "ledger_usage_quarter_hourly_key" DO UPDATE SET "amount" = u."amount" + excluded."amount",
    "entries" = u."entries" + excluded."entries", "sessions" = u."sessions" + excluded."sessions",
    "voice_seconds" = u."voice_seconds" + excluded."voice_seconds";

  INSERT INTO "ledger_usage_reason_quarter_hourly" AS u
    ("workspace_id", "bucket", "reason", "amount", "entries", "sessions", "voice_seconds")
  SELECT e."workspace_id", date_bin('15 minutes', e."created_at", '2000-01-01T00:00:00Z'), e."reason", sum(e."amount"),
    count(*), count(e."session_id"), coalesce(sum("ledger_voice_seconds"(s."started_at", s."ended_at")), 0)
  FROM "booked" e
  LEFT JOIN "sessions" s ON e."reason" = 'VOICE_USAGE' AND s."id" = e."session_id"
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT ("workspace_id", "bucket", "reason") DO UPDATE SET "amount" = u."amount" + excluded."amount",
    "entries" = u."entries" + excluded."entries", "sessions" = u."sessions" + excluded."sessions",
    "voice_seconds" = u."voice_seconds" + excluded."voice_seconds";
  RETURN NULL;
END
$$;--> statement-breakpoint
TRUNCATE "ledger_usage_quarter_hourly", "ledger_usage_reason_quarter_hourly";--> statement-breakpoint
INSERT INTO "ledger_usage_quarter_hourly"
  ("workspace_id", "bucket", "agent_id", "reason", "amount", "entries", "sessions", "voice_seconds")
SELECT e."workspace_id", date_bin('15 minutes', e."created_at", '2000-01-01T00:00:00Z'), e."agent_id", e."reason",
  sum(e."amount"), count(*), count(e."session_id"),
  coalesce(sum("ledger_voice_seconds"(s."started_at", s."ended_at")), 0)
FROM "ledger_entries" e
LEFT JOIN "sessions" s ON e."reason" = 'VOICE_USAGE' AND s."id" = e."session_id"
GROUP BY 1, 2, 3, 4;--> statement-breakpoint
INSERT INTO "ledger_usage_reason_quarter_hourly"
  ("workspace_id", "bucket", "reason", "amount", "entries", "sessions", "voice_seconds")
SELECT "workspace_id", "bucket", "reason", sum("amount"), sum("entries"), sum("sessions"), sum("voice_seconds")
FROM "ledger_usage_quarter_hourly" GROUP BY 1, 2, 3;
--> statement-breakpoint
-- The release before this one reads the hourly rollups until its functions are replaced, and again
-- after a rollback: views by their names, the quarter-hours added up by UTC hour. A later migration
-- drops them (db/roles.ts, APP_VIEWS).
CREATE VIEW "ledger_usage_hourly" AS
SELECT "workspace_id", date_bin('1 hour', "bucket", '2000-01-01T00:00:00Z') AS "hour", "agent_id", "reason",
  sum("amount")::bigint AS "amount", sum("entries")::bigint AS "entries",
  sum("sessions")::bigint AS "sessions", sum("voice_seconds")::bigint AS "voice_seconds"
FROM "ledger_usage_quarter_hourly" GROUP BY 1, 2, 3, 4;--> statement-breakpoint
CREATE VIEW "ledger_usage_reason_hourly" AS
SELECT "workspace_id", date_bin('1 hour', "bucket", '2000-01-01T00:00:00Z') AS "hour", "reason",
  sum("amount")::bigint AS "amount", sum("entries")::bigint AS "entries",
  sum("sessions")::bigint AS "sessions", sum("voice_seconds")::bigint AS "voice_seconds"
FROM "ledger_usage_reason_quarter_hourly" GROUP BY 1, 2, 3;
