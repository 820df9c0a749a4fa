CREATE TYPE "public"."workspace_tier" AS ENUM('free', 'standard', 'pro');--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "tier" "workspace_tier" DEFAULT 'standard' NOT NULL;