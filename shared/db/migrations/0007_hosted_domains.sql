CREATE TABLE "platform"."hosted_domains" (
	"full_domain" varchar(253) PRIMARY KEY NOT NULL,
	"site_id" integer NOT NULL,
	"worker_slug" varchar(100) NOT NULL,
	"worker_name" varchar(255) NOT NULL,
	"build_prefix" varchar(100),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "platform"."hosted_domains" ADD CONSTRAINT "hosted_domains_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "platform"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "hosted_domains_site_worker_key" ON "platform"."hosted_domains" USING btree ("site_id","worker_slug");