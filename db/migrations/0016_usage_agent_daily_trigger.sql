-- The usage by agent and UTC day (docs/decisions.md, the ledger): a report by agent reads a few rows
-- a day per agent for the window's whole UTC days instead of every quarter-hour's. The trigger of
-- migration 0014, which also keeps this rollup; then the rollup built from the quarter-hours. No
-- booking may land between the build's read and the new trigger: inserts wait for the commit.
LOCK TABLE "ledger_entries" IN SHARE MODE;--> statement-breakpoint
-- Whoever may keep the quarter-hours (the app role, booking as the release before this one) may keep
-- the days from this commit on: its trigger writes both. The role's run after the migrations grants
-- exactly this again (db/roles.ts).
DO $$
DECLARE grantee text;
BEGIN
  FOR grantee IN
    SELECT DISTINCT a.grantee::regrole::text FROM pg_class c, aclexplode(c.relacl) a
    WHERE c.oid = '"ledger_usage_quarter_hourly"'::regclass AND a.privilege_type = 'INSERT'
      AND a.grantee <> 0 AND a.grantee <> c.relowner
  LOOP
    EXECUTE format('GRANT SELECT, INSERT, UPDATE ON TABLE "ledger_usage_agent_daily" TO %s', grantee);
  END LOOP;
END
$$;--> statement-breakpoint
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
  INSERT INTO "ledger_usage_agent_daily" AS u
    ("workspace_id", "day", "agent_id", "reason", "amount", "entries", "sessions", "voice_seconds")
  SELECT e."workspace_id", (e."created_at" AT TIME ZONE 'UTC')::date, e."agent_id", e."reason", sum(e."amount"),
    count(*), count(e."session_id"), coalesce(sum("ledger_voice_seconds"(s."started_at", s."ended_at")), 0)
  FROM "booked" e
  LEFT JOIN "sessions" s ON e."reason" = 'VOICE_USAGE' AND s."id" = e."session_id"
  GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT ON CONSTRAINT "ledger_usage_agent_daily_key" DO UPDATE SET "amount" = u."amount" + excluded."amount",
    "entries" = u."entries" + excluded."entries", "sessions" = u."sessions" + excluded."sessions",
    "voice_seconds" = u."voice_seconds" + excluded."voice_seconds";
  RETURN NULL;
END
$$;--> statement-breakpoint
INSERT INTO "ledger_usage_agent_daily"
  ("workspace_id", "day", "agent_id", "reason", "amount", "entries", "sessions", "voice_seconds")
SELECT "workspace_id", ("bucket" AT TIME ZONE 'UTC')::date, "agent_id", "reason", sum("amount"), sum("entries"),
  sum("sessions"), sum("voice_seconds")
FROM "ledger_usage_quarter_hourly" GROUP BY 1, 2, 3, 4;
