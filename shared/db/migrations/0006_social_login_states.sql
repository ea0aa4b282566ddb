CREATE TABLE "platform"."social_login_states" (
	"state" varchar(128) PRIMARY KEY NOT NULL,
	"social_app_id" integer NOT NULL,
	"site_id" integer,
	"redirect_uri" text NOT NULL,
	"code_verifier" varchar(128) NOT NULL,
	"nonce" varchar(128) NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
