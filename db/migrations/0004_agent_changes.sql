CREATE TYPE "public"."agent_change_operation" AS ENUM('create-agent', 'update-agent', 'create-version', 'publish-agent', 'archive-agent', 'unarchive-agent');--> statement-breakpoint
CREATE TABLE "agent_changes" (
	"id" varchar(24) PRIMARY KEY NOT NULL,
	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"workspace_id" varchar(24) NOT NULL,
	"agent_id" varchar(24) NOT NULL,
	"agent_version_id" varchar(24),
	"operation" "agent_change_operation" NOT NULL,
	"principal_id" varchar(24) NOT NULL,
	"key_id" varchar(24) NOT NULL,
	"etag_before" text,
	"etag_after" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "response_headers" jsonb;--> statement-breakpoint
ALTER TABLE "agent_changes" ADD CONSTRAINT "agent_changes_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_changes" ADD CONSTRAINT "agent_changes_agent_fk" FOREIGN KEY ("workspace_id","agent_id") REFERENCES "public"."agents"("workspace_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_changes_agent_created" ON "agent_changes" USING btree ("workspace_id","agent_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);