-- The ledger's derived rows, kept in the transaction that books the entries (docs/decisions.md, the
-- ledger): after each INSERT statement on ledger_entries, its rows (a transition table, so a bulk
-- load costs one aggregate, not a trigger per row) move the workspace's balance and last entry,
-- add to the hourly usage rollup, and write `balance.low` to the outbox when the balance went from
-- above the workspace's threshold to at or below it; the hourly rollups are two: with the agent
-- (GET /usage by agent) and without it (by day or reason: far fewer rows). The balance row is locked first, so bookings of
-- one workspace are serialised on it and cannot deadlock on the rollup's rows. Entries are never
-- updated nor deleted (the app role may only insert them).
CREATE FUNCTION "ledger_entries_booked"() RETURNS trigger
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

  INSERT INTO "ledger_usage_hourly" AS u
    ("workspace_id", "hour", "agent_id", "reason", "amount", "entries", "sessions", "voice_seconds")
  SELECT e."workspace_id", date_trunc('hour', e."created_at", 'UTC'), e."agent_id", e."reason", sum(e."amount"),
    count(*), count(e."session_id"), coalesce(sum("ledger_voice_seconds"(s."started_at", s."ended_at")), 0)
  FROM "booked" e
  LEFT JOIN "sessions" s ON e."reason" = 'VOICE_USAGE' AND s."id" = e."session_id"
  GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT ON CONSTRAINT "ledger_usage_hourly_key" DO UPDATE SET "amount" = u."amount" + excluded."amount",
    "entries" = u."entries" + excluded."entries", "sessions" = u."sessions" + excluded."sessions",
    "voice_seconds" = u."voice_seconds" + excluded."voice_seconds";

  INSERT INTO "ledger_usage_reason_hourly" AS u
    ("workspace_id", "hour", "reason", "amount", "entries", "sessions", "voice_seconds")
  SELECT e."workspace_id", date_trunc('hour', e."created_at", 'UTC'), e."reason", sum(e."amount"),
    count(*), count(e."session_id"), coalesce(sum("ledger_voice_seconds"(s."started_at", s."ended_at")), 0)
  FROM "booked" e
  LEFT JOIN "sessions" s ON e."reason" = 'VOICE_USAGE' AND s."id" = e."session_id"
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT ("workspace_id", "hour", "reason") DO UPDATE SET "amount" = u."amount" + excluded."amount",
    "entries" = u."entries" + excluded."entries", "sessions" = u."sessions" + excluded."sessions",
    "voice_seconds" = u."voice_seconds" + excluded."voice_seconds";
  RETURN NULL;
END
$$;--> statement-breakpoint
-- A VOICE_USAGE entry's seconds of voice: its session's start to end, whole seconds rounded up; 0
-- for a session never started.
CREATE FUNCTION "ledger_voice_seconds"("started_at" timestamptz, "ended_at" timestamptz) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(greatest(0, ceil(extract(epoch FROM "ended_at" - "started_at")))::bigint, 0)
$$;--> statement-breakpoint
-- Only the app role may call them (db/roles.ts APP_FUNCTIONS grants it on every deploy).
REVOKE EXECUTE ON FUNCTION "ledger_entries_booked"() FROM PUBLIC;--> statement-breakpoint
REVOKE EXECUTE ON FUNCTION "ledger_voice_seconds"(timestamptz, timestamptz) FROM PUBLIC;--> statement-breakpoint
CREATE TRIGGER "ledger_entries_booked" AFTER INSERT ON "ledger_entries"
REFERENCING NEW TABLE AS "booked" FOR EACH STATEMENT EXECUTE FUNCTION "ledger_entries_booked"();--> statement-breakpoint
-- The entries booked before the trigger, counted once.
INSERT INTO "ledger_balances" ("workspace_id", "balance", "last_entry_id", "last_entry_at")
SELECT "workspace_id", sum("amount"),
  (array_agg("id" ORDER BY "created_at" DESC, "id" DESC))[1],
  (array_agg("created_at" ORDER BY "created_at" DESC, "id" DESC))[1]
FROM "ledger_entries" GROUP BY "workspace_id";--> statement-breakpoint
INSERT INTO "ledger_usage_hourly"
  ("workspace_id", "hour", "agent_id", "reason", "amount", "entries", "sessions", "voice_seconds")
SELECT e."workspace_id", date_trunc('hour', e."created_at", 'UTC'), e."agent_id", e."reason", sum(e."amount"),
  count(*), count(e."session_id"), coalesce(sum("ledger_voice_seconds"(s."started_at", s."ended_at")), 0)
FROM "ledger_entries" e
LEFT JOIN "sessions" s ON e."reason" = 'VOICE_USAGE' AND s."id" = e."session_id"
GROUP BY 1, 2, 3, 4;--> statement-breakpoint
INSERT INTO "ledger_usage_reason_hourly"
  ("workspace_id", "hour", "reason", "amount", "entries", "sessions", "voice_seconds")
SELECT "workspace_id", "hour", "reason", sum("amount"), sum("entries"), sum("sessions"), sum("voice_seconds")
FROM "ledger_usage_hourly" GROUP BY 1, 2, 3;
