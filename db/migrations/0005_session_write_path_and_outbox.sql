CREATE TABLE "events" (
	"seq" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "events_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"type" varchar(64) NOT NULL,
	"occurred_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"workspace_id" varchar(24) NOT NULL,
	"txid" bigint DEFAULT (pg_current_xact_id()::text::bigint) NOT NULL,
	"data" jsonb NOT NULL,
	"published_at" timestamp(3) with time zone,
	CONSTRAINT "events_id_unique" UNIQUE("id")
);
--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "events_workspace_position" ON "events" USING btree ("workspace_id","txid","seq");--> statement-breakpoint
CREATE INDEX "events_unpublished" ON "events" USING btree ("txid","seq") WHERE "events"."published_at" is null;--> statement-breakpoint
CREATE INDEX "persons_workspace_email" ON "persons" USING btree ("workspace_id","email");--> statement-breakpoint
CREATE INDEX "persons_workspace_phone" ON "persons" USING btree ("workspace_id","phone");--> statement-breakpoint
CREATE INDEX "sessions_open_last_seen" ON "sessions" USING btree (coalesce("last_heartbeat_at", "created_at")) WHERE "sessions"."status" <> 'COMPLETED';