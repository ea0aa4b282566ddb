-- Whether a platform sign-in provider vouched for the user's email. Every existing row starts
-- unverified: nothing recorded which email a provider vouched for when it linked an account, and an
-- email may have changed since. An already-linked user's next sign-in through that provider marks it
-- verified again; until then a first sign-in through another provider claims the account (see
-- functions/social/login/login-service.ts).
ALTER TABLE "platform"."users" ADD COLUMN "email_verified" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Usernames were unique whatever their case only by a check in code, which two racing requests can
-- both pass. Before the index, every case-duplicate but the oldest (by date_joined, then id) gets a
-- free derived name, `<name>~<n>` starting at 2 (`~` is outside the API's username characters, so
-- it can only meet another derived name): nothing is deleted, and each renamed user keeps its id,
-- uuid, password and tokens (tokens name the user by uuid). Soft-deleted users count too: they keep
-- their username for a restore, and the check in code spans them.
DO $$
DECLARE
  duplicate record;
  n integer;
  candidate text;
BEGIN
  FOR duplicate IN
    SELECT u.id, u.username,
      row_number() OVER (PARTITION BY lower(u.username) ORDER BY u.date_joined, u.id) AS rank_in_group
    FROM "platform"."users" u
    WHERE lower(u.username) IN (
      SELECT lower(d.username) FROM "platform"."users" d GROUP BY lower(d.username) HAVING count(*) > 1
    )
    ORDER BY lower(u.username), rank_in_group
  LOOP
    CONTINUE WHEN duplicate.rank_in_group = 1;
    n := duplicate.rank_in_group;
    LOOP
      candidate := left(duplicate.username, 150 - length('~' || n)) || '~' || n;
      EXIT WHEN NOT EXISTS (SELECT 1 FROM "platform"."users" t WHERE lower(t.username) = lower(candidate));
      n := n + 1;
    END LOOP;
    UPDATE "platform"."users" SET "username" = candidate WHERE "id" = duplicate.id;
    RAISE NOTICE 'user % renamed from % to % (case duplicate)', duplicate.id, duplicate.username, candidate;
  END LOOP;
END $$;--> statement-breakpoint
CREATE UNIQUE INDEX "users_username_lower_key" ON "platform"."users" USING btree (lower("username"));
