CREATE TABLE "ledger_balances" (
	"workspace_id" varchar(24) PRIMARY KEY NOT NULL,
	"balance" bigint DEFAULT 0 NOT NULL,
	"last_entry_id" varchar(24),
	"last_entry_at" timestamp(3) with time zone,
	"low_balance_threshold" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_usage_hourly" (
	"workspace_id" varchar(24) NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"agent_id" varchar(24),
	"reason" "ledger_reason" NOT NULL,
	"amount" bigint NOT NULL,
	"entries" bigint NOT NULL,
	"sessions" bigint NOT NULL,
	"voice_seconds" bigint NOT NULL,
	CONSTRAINT "ledger_usage_hourly_key" UNIQUE NULLS NOT DISTINCT("workspace_id","hour","agent_id","reason")
);
--> statement-breakpoint
CREATE TABLE "ledger_usage_reason_hourly" (
	"workspace_id" varchar(24) NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"reason" "ledger_reason" NOT NULL,
	"amount" bigint NOT NULL,
	"entries" bigint NOT NULL,
	"sessions" bigint NOT NULL,
	"voice_seconds" bigint NOT NULL,
	CONSTRAINT "ledger_usage_reason_hourly_workspace_id_hour_reason_pk" PRIMARY KEY("workspace_id","hour","reason")
);
--> statement-breakpoint
ALTER TABLE "ledger_balances" ADD CONSTRAINT "ledger_balances_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_usage_hourly" ADD CONSTRAINT "ledger_usage_hourly_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_usage_reason_hourly" ADD CONSTRAINT "ledger_usage_reason_hourly_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_entries_idempotency" ON "ledger_entries" USING btree ("workspace_id","idempotency_key") WHERE "ledger_entries"."idempotency_key" is not null;--> statement-breakpoint
CREATE INDEX "ledger_entries_workspace_created" ON "ledger_entries" USING btree ("workspace_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);