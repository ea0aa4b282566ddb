CREATE TABLE "platform"."rate_limit_counters" (
	"key" text PRIMARY KEY NOT NULL,
	"window_start" integer NOT NULL,
	"hits" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "platform"."social_accounts" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"social_app_id" integer NOT NULL,
	"uid" varchar(255) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "platform"."social_apps" (
	"id" serial PRIMARY KEY NOT NULL,
	"provider" varchar(50) NOT NULL,
	"provider_id" varchar(100) DEFAULT '' NOT NULL,
	"name" varchar(255) NOT NULL,
	"client_id" varchar(255) NOT NULL,
	"secret" text NOT NULL,
	"key" text DEFAULT '' NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "platform"."social_login_states" (
	"state" varchar(128) PRIMARY KEY NOT NULL,
	"social_app_id" integer NOT NULL,
	"site_id" integer,
	"redirect_uri" text NOT NULL,
	"code_verifier" varchar(128) NOT NULL,
	"nonce" varchar(128) NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "platform"."social_accounts" ADD CONSTRAINT "social_accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "platform"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform"."social_accounts" ADD CONSTRAINT "social_accounts_social_app_id_social_apps_id_fk" FOREIGN KEY ("social_app_id") REFERENCES "platform"."social_apps"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "social_accounts_app_uid" ON "platform"."social_accounts" USING btree ("social_app_id","uid");--> statement-breakpoint
CREATE INDEX "social_accounts_user" ON "platform"."social_accounts" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "social_apps_login_name" ON "platform"."social_apps" USING btree ((coalesce(nullif("provider_id", ''), "provider")));