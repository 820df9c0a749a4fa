CREATE INDEX "persons_workspace_email" ON "persons" USING btree ("workspace_id","email");--> statement-breakpoint
CREATE INDEX "persons_workspace_phone" ON "persons" USING btree ("workspace_id","phone");--> statement-breakpoint
CREATE INDEX "sessions_open_last_seen" ON "sessions" USING btree (coalesce("last_heartbeat_at", "created_at")) WHERE "sessions"."status" <> 'COMPLETED';