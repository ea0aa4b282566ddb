ALTER TABLE "platform"."organization_members" ADD COLUMN "joined_via" varchar(20) DEFAULT 'unknown' NOT NULL;--> statement-breakpoint
-- A founding membership is the one row whose origin is known without a record: the owner's.
UPDATE "platform"."organization_members" SET "joined_via" = 'creator' WHERE "is_owner";
