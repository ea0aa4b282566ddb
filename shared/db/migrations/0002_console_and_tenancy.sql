CREATE TABLE "platform"."domains" (
	"id" serial PRIMARY KEY NOT NULL,
	"uuid" uuid DEFAULT gen_random_uuid() NOT NULL,
	"site_id" integer NOT NULL,
	"slug" varchar(255) NOT NULL,
	"domain" varchar(253) NOT NULL,
	"is_primary" boolean DEFAULT false NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "domains_uuid_unique" UNIQUE("uuid"),
	CONSTRAINT "domains_slug_unique" UNIQUE("slug"),
	CONSTRAINT "domains_domain_unique" UNIQUE("domain")
);
--> statement-breakpoint
CREATE TABLE "platform"."invitations" (
	"id" serial PRIMARY KEY NOT NULL,
	"uuid" uuid DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" integer NOT NULL,
	"invitee_identifier" varchar(254) NOT NULL,
	"invited_by_id" integer,
	"permissions" text[] DEFAULT '{}'::text[] NOT NULL,
	"invitation_config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" varchar(20) DEFAULT 'pending' NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"accepted_at" timestamp with time zone,
	CONSTRAINT "invitations_uuid_unique" UNIQUE("uuid")
);
--> statement-breakpoint
CREATE TABLE "platform"."site_user_permissions" (
	"site_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"permission_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "site_user_permissions_site_id_user_id_permission_id_pk" PRIMARY KEY("site_id","user_id","permission_id")
);
--> statement-breakpoint
ALTER TABLE "platform"."sites" ALTER COLUMN "slug" SET DATA TYPE varchar(50);--> statement-breakpoint
ALTER TABLE "platform"."organization_members" ADD COLUMN "permissions" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "platform"."sites" ADD COLUMN "organization_id" integer NOT NULL;--> statement-breakpoint
ALTER TABLE "platform"."domains" ADD CONSTRAINT "domains_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "platform"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform"."invitations" ADD CONSTRAINT "invitations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "platform"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform"."invitations" ADD CONSTRAINT "invitations_invited_by_id_users_id_fk" FOREIGN KEY ("invited_by_id") REFERENCES "platform"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform"."site_user_permissions" ADD CONSTRAINT "site_user_permissions_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "platform"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform"."site_user_permissions" ADD CONSTRAINT "site_user_permissions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "platform"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform"."site_user_permissions" ADD CONSTRAINT "site_user_permissions_permission_id_permissions_id_fk" FOREIGN KEY ("permission_id") REFERENCES "platform"."permissions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "domains_site_idx" ON "platform"."domains" USING btree ("site_id");--> statement-breakpoint
CREATE UNIQUE INDEX "domains_one_primary_per_site_key" ON "platform"."domains" USING btree ("site_id") WHERE "platform"."domains"."is_primary";--> statement-breakpoint
CREATE INDEX "invitations_organization_idx" ON "platform"."invitations" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "site_user_permissions_user_idx" ON "platform"."site_user_permissions" USING btree ("user_id");--> statement-breakpoint
ALTER TABLE "platform"."sites" ADD CONSTRAINT "sites_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "platform"."organizations"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sites_organization_idx" ON "platform"."sites" USING btree ("organization_id");