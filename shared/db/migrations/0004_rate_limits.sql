CREATE TABLE "platform"."rate_limit_counters" (
	"key" text PRIMARY KEY NOT NULL,
	"window_start" integer NOT NULL,
	"hits" integer NOT NULL
);
