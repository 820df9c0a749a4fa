-- The live-key guard of every route's statement (db/queries/api-keys.ts `keyIsLive`): true while the
-- key is neither revoked nor expired; otherwise the calling statement fails with SQLSTATE VA403,
-- which the API answers as the authorizer's own 403. STABLE, so a call naming no column is a
-- one-time filter; PL/pgSQL, because a SQL function cannot raise.
CREATE FUNCTION "api_key_live"("key_id" varchar) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
BEGIN
  PERFORM 1 FROM "api_keys"
  WHERE "id" = "key_id" AND "revoked_at" IS NULL AND ("expires_at" IS NULL OR "expires_at" > now());
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the API key is revoked, expired or unknown' USING ERRCODE = 'VA403';
  END IF;
  RETURN true;
END
$$;--> statement-breakpoint
-- Only the app role may call it (db/roles.ts APP_FUNCTIONS grants it on every deploy).
REVOKE EXECUTE ON FUNCTION "api_key_live"(varchar) FROM PUBLIC;
