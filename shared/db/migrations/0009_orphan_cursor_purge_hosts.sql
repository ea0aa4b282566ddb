CREATE TABLE "platform"."maintenance_cursors" (
	"name" varchar(100) PRIMARY KEY NOT NULL,
	"position" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "platform"."tenant_purges" ADD COLUMN "hosts" text[] DEFAULT '{}'::text[] NOT NULL;