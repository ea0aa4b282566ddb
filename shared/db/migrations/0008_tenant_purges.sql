CREATE TABLE "platform"."tenant_purges" (
	"id" serial PRIMARY KEY NOT NULL,
	"site_uuid" uuid NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
