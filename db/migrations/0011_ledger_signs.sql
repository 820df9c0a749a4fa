-- The sign convention (docs/decisions.md, the ledger) held by the database as well as the API: usage
-- (VOICE_USAGE, SMS_USAGE) is never positive, a refill never negative.
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_amount_sign" CHECK (case when "ledger_entries"."reason" in ('VOICE_USAGE', 'SMS_USAGE') then "ledger_entries"."amount" <= 0 else "ledger_entries"."amount" >= 0 end);
