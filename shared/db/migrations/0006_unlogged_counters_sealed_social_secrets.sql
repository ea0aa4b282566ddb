-- Social app secrets are sealed with the secrets key (AES-256-GCM); start-up seals the rows written
-- before this column existed and empties their plaintext "secret".
ALTER TABLE "platform"."social_apps" ADD COLUMN "secret_sealed" jsonb;--> statement-breakpoint
-- Rate-limit counters skip the WAL: every counted request writes a counter, and a write that makes
-- no WAL commits without waiting for a WAL flush. After a crash PostgreSQL empties an unlogged table
-- (Aurora keeps it): every caller's windows then start over, which lets a caller through at most one
-- window's worth of extra requests, bounded by the API stage's throttling. Nothing else is lost.
ALTER TABLE "platform"."rate_limit_counters" SET UNLOGGED;
