CREATE TABLE "workspace_limits" (
	"workspace_id" varchar(24) PRIMARY KEY NOT NULL,
	"tokens" double precision NOT NULL,
	"refilled_at" timestamp(3) with time zone NOT NULL,
	"day" date NOT NULL,
	"used" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "workspace_limits" ADD CONSTRAINT "workspace_limits_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;