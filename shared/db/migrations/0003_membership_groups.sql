CREATE TABLE "platform"."organization_member_groups" (
	"member_id" integer NOT NULL,
	"group_id" integer NOT NULL,
	CONSTRAINT "organization_member_groups_member_id_group_id_pk" PRIMARY KEY("member_id","group_id")
);
--> statement-breakpoint
ALTER TABLE "platform"."organization_member_groups" ADD CONSTRAINT "organization_member_groups_member_id_organization_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "platform"."organization_members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform"."organization_member_groups" ADD CONSTRAINT "organization_member_groups_group_id_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "platform"."groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "organization_member_groups_group_idx" ON "platform"."organization_member_groups" USING btree ("group_id");