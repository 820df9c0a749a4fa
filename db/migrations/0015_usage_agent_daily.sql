CREATE TABLE "ledger_usage_agent_daily" (
	"workspace_id" varchar(24) NOT NULL,
	"day" date NOT NULL,
	"agent_id" varchar(24),
	"reason" "ledger_reason" NOT NULL,
	"amount" bigint NOT NULL,
	"entries" bigint NOT NULL,
	"sessions" bigint NOT NULL,
	"voice_seconds" bigint NOT NULL,
	CONSTRAINT "ledger_usage_agent_daily_key" UNIQUE NULLS NOT DISTINCT("workspace_id","day","agent_id","reason")
);
--> statement-breakpoint
ALTER TABLE "ledger_usage_agent_daily" ADD CONSTRAINT "ledger_usage_agent_daily_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;