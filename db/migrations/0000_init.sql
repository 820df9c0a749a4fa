CREATE TYPE "public"."agent_status" AS ENUM('DRAFT', 'ARCHIVED', 'PUBLISHED', 'COMPLETED');--> statement-breakpoint
CREATE TYPE "public"."authentication_mode" AS ENUM('NONE', 'CODE');--> statement-breakpoint
CREATE TYPE "public"."currency_code" AS ENUM('USD');--> statement-breakpoint
CREATE TYPE "public"."incentive_type" AS ENUM('CASH', 'NONE');--> statement-breakpoint
CREATE TYPE "public"."input_mode" AS ENUM('SMS', 'PHONE', 'WEB_CHAT', 'WEB_VOICE');--> statement-breakpoint
CREATE TYPE "public"."language" AS ENUM('en', 'es', 'fr');--> statement-breakpoint
CREATE TYPE "public"."ledger_reason" AS ENUM('INITIAL_BALANCE', 'PURCHASE_REFILL', 'SUBSCRIPTION_REFILL', 'REDEMPTION_CODE', 'VOICE_USAGE', 'SMS_USAGE');--> statement-breakpoint
CREATE TYPE "public"."session_length" AS ENUM('FIVE_MINUTES', 'TEN_MINUTES', 'FIFTEEN_MINUTES', 'THIRTY_MINUTES', 'FORTY_FIVE_MINUTES');--> statement-breakpoint
CREATE TYPE "public"."session_status" AS ENUM('PENDING', 'IN_PROGRESS', 'COMPLETED');--> statement-breakpoint
CREATE TYPE "public"."session_type" AS ENUM('INBOUND_CALL', 'WEB_VOICE');--> statement-breakpoint
CREATE TABLE "agent_versions" (
	"id" varchar(24) PRIMARY KEY NOT NULL,
	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"created_by" varchar(24),
	"updated_by" varchar(24),
	"agent_id" varchar(24) NOT NULL,
	"version" integer NOT NULL,
	"workspace_id" varchar(24) NOT NULL,
	"source_agent_version_id" varchar(24),
	"theme_id" varchar(24) NOT NULL,
	"incentive_type" "incentive_type" DEFAULT 'NONE' NOT NULL,
	"incentive_amount" integer,
	"incentive_currency_code" "currency_code",
	"max_participants" integer,
	"length" "session_length" DEFAULT 'TEN_MINUTES' NOT NULL,
	"languages" "language"[] DEFAULT '{en}' NOT NULL,
	"input_mode" "input_mode"[] DEFAULT '{}' NOT NULL,
	"knowledge_base_id" varchar(24),
	"follow_up" boolean DEFAULT false NOT NULL,
	"limit_to_knowledge_base" boolean,
	"timezone" varchar(255),
	"authentication" "authentication_mode" DEFAULT 'NONE' NOT NULL,
	"system_prompt" text,
	"agent_flow_id" varchar(24),
	"config" jsonb,
	CONSTRAINT "agent_versions_workspace_id" UNIQUE("workspace_id","id"),
	CONSTRAINT "agent_versions_agent_id" UNIQUE("agent_id","id"),
	CONSTRAINT "agent_versions_incentive_amount_range" CHECK ("agent_versions"."incentive_amount" between 100 and 1000000),
	CONSTRAINT "agent_versions_config_is_object" CHECK ("agent_versions"."config" is null or jsonb_typeof("agent_versions"."config") in ('object', 'null'))
);
--> statement-breakpoint
CREATE TABLE "agents" (
	"id" varchar(24) PRIMARY KEY NOT NULL,
	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"created_by" varchar(24),
	"updated_by" varchar(24),
	"workspace_id" varchar(24) NOT NULL,
	"published_version_id" varchar(24),
	"name" varchar(255) NOT NULL,
	"description" varchar(500),
	"slug" varchar(255) NOT NULL,
	"status" "agent_status" DEFAULT 'DRAFT' NOT NULL,
	"source_template_id" varchar(24),
	"archived_at" timestamp(3) with time zone,
	"archived_by" varchar(24),
	"completed_at" timestamp(3) with time zone,
	"completed_by" varchar(24),
	"published_at" timestamp(3) with time zone,
	"published_by" varchar(24),
	CONSTRAINT "agents_workspace_slug" UNIQUE("workspace_id","slug"),
	CONSTRAINT "agents_workspace_id" UNIQUE("workspace_id","id")
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"workspace_id" varchar(24) NOT NULL,
	"key" varchar(255) NOT NULL,
	"request_hash" varchar(64) NOT NULL,
	"response_status" integer,
	"response_body" text,
	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_workspace_id_key_pk" PRIMARY KEY("workspace_id","key"),
	CONSTRAINT "idempotency_keys_response_complete" CHECK (("idempotency_keys"."response_status" is null) = ("idempotency_keys"."response_body" is null))
);
--> statement-breakpoint
CREATE TABLE "conversations" (
	"id" varchar(24) PRIMARY KEY NOT NULL,
	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"workspace_id" varchar(24) NOT NULL,
	"person_id" varchar(24) NOT NULL,
	"name" varchar(255) NOT NULL,
	"is_demo" boolean DEFAULT false NOT NULL,
	"last_viewed_at" timestamp(3) with time zone,
	"last_viewed_by" varchar(24),
	"last_session_ended_at" timestamp(3) with time zone,
	"archived_at" timestamp(3) with time zone,
	"archived_by" varchar(24),
	CONSTRAINT "conversations_workspace_id" UNIQUE("workspace_id","id")
);
--> statement-breakpoint
CREATE TABLE "persons" (
	"id" varchar(24) PRIMARY KEY NOT NULL,
	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"workspace_id" varchar(24) NOT NULL,
	"properties" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"first_seen_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"identified_at" timestamp(3) with time zone,
	"deleted_at" timestamp(3) with time zone,
	"email" varchar(255),
	"phone" varchar(17),
	"root_person_id" varchar(24) NOT NULL,
	"merged_by" varchar(24),
	"merged_at" timestamp(3) with time zone,
	"merge_meta" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "persons_workspace_id" UNIQUE("workspace_id","id"),
	CONSTRAINT "persons_phone_e164" CHECK ("persons"."phone" ~ '^\+[1-9][0-9]{1,15}$'),
	CONSTRAINT "persons_email_shape" CHECK ("persons"."email" ~ '^[^@\s]+@[^@\s]+\.[^@\s]+$'),
	CONSTRAINT "persons_properties_object" CHECK (jsonb_typeof("persons"."properties") = 'object'),
	CONSTRAINT "persons_merge_meta_object" CHECK (jsonb_typeof("persons"."merge_meta") = 'object')
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" varchar(24) PRIMARY KEY NOT NULL,
	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"created_by" varchar(24),
	"updated_by" varchar(24),
	"workspace_id" varchar(24) NOT NULL,
	"amount" integer NOT NULL,
	"reason" "ledger_reason" NOT NULL,
	"reason_details" varchar(255),
	"redemption_code_id" varchar(24),
	"agent_id" varchar(24),
	"session_id" varchar(24),
	"idempotency_key" varchar(255)
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" varchar(24) PRIMARY KEY NOT NULL,
	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"name" varchar(255) NOT NULL,
	"type" "session_type" NOT NULL,
	"status" "session_status" DEFAULT 'PENDING' NOT NULL,
	"completed_at" timestamp(3) with time zone,
	"last_heartbeat_at" timestamp(3) with time zone,
	"started_at" timestamp(3) with time zone,
	"ended_at" timestamp(3) with time zone,
	"record_audio" boolean DEFAULT false NOT NULL,
	"is_demo" boolean DEFAULT false NOT NULL,
	"agent_id" varchar(24) NOT NULL,
	"agent_version_id" varchar(24) NOT NULL,
	"workspace_id" varchar(24) NOT NULL,
	"person_id" varchar(24) NOT NULL,
	"conversation_id" varchar(24) NOT NULL,
	"completed_meta" jsonb,
	CONSTRAINT "sessions_workspace_id" UNIQUE("workspace_id","id")
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" varchar(24) PRIMARY KEY NOT NULL,
	"workspace_id" varchar(24) NOT NULL,
	"principal_id" varchar(24) NOT NULL,
	"name" varchar(255) NOT NULL,
	"token_hash" varchar(64) NOT NULL,
	"scopes" text[] NOT NULL,
	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp(3) with time zone,
	"revoked_at" timestamp(3) with time zone,
	"last_used_at" timestamp(3) with time zone,
	CONSTRAINT "api_keys_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "themes" (
	"id" varchar(24) PRIMARY KEY NOT NULL,
	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"workspace_id" varchar(24) NOT NULL,
	"name" varchar(255) NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	CONSTRAINT "themes_workspace_id" UNIQUE("workspace_id","id")
);
--> statement-breakpoint
CREATE TABLE "workspaces" (
	"id" varchar(24) PRIMARY KEY NOT NULL,
	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
	"name" varchar(255) NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agent_versions" ADD CONSTRAINT "agent_versions_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_versions" ADD CONSTRAINT "agent_versions_agent_fk" FOREIGN KEY ("workspace_id","agent_id") REFERENCES "public"."agents"("workspace_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_versions" ADD CONSTRAINT "agent_versions_theme_fk" FOREIGN KEY ("workspace_id","theme_id") REFERENCES "public"."themes"("workspace_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_person_fk" FOREIGN KEY ("workspace_id","person_id") REFERENCES "public"."persons"("workspace_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "persons" ADD CONSTRAINT "persons_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_session_fk" FOREIGN KEY ("workspace_id","session_id") REFERENCES "public"."sessions"("workspace_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_agent_fk" FOREIGN KEY ("workspace_id","agent_id") REFERENCES "public"."agents"("workspace_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_agent_fk" FOREIGN KEY ("workspace_id","agent_id") REFERENCES "public"."agents"("workspace_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_agent_version_fk" FOREIGN KEY ("agent_id","agent_version_id") REFERENCES "public"."agent_versions"("agent_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_person_fk" FOREIGN KEY ("workspace_id","person_id") REFERENCES "public"."persons"("workspace_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_conversation_fk" FOREIGN KEY ("workspace_id","conversation_id") REFERENCES "public"."conversations"("workspace_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "themes" ADD CONSTRAINT "themes_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "agent_versions_agent_version" ON "agent_versions" USING btree ("agent_id","version" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "agents_workspace_created" ON "agents" USING btree ("workspace_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_entries_session" ON "ledger_entries" USING btree ("session_id") WHERE "ledger_entries"."session_id" is not null;--> statement-breakpoint
CREATE INDEX "sessions_workspace_created" ON "sessions" USING btree ("workspace_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "api_keys_workspace" ON "api_keys" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "themes_one_default_per_workspace" ON "themes" USING btree ("workspace_id") WHERE "themes"."is_default";