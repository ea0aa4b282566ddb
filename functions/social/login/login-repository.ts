// SQL of programmatic sign-in: the one-time states, the accounts linked to a provider in a scope,
// and the platform users they lead to.
import { eq } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { users } from '#shared/db/platform-schema.ts';
import { tenantSchemaIdentifier } from '#shared/db/sql-identifiers.ts';
import { socialAccountsTable, socialAppColumns, socialAppsTable, type SocialAppRow } from '../social-app-repository.ts';
import type { SocialScope } from '../social-scope.ts';

export interface LoginStateRow {
  state: string;
  social_app_id: number;
  site_id: number | null;
  redirect_uri: string;
  code_verifier: string;
  nonce: string;
  [column: string]: unknown;
}

export interface LoginUser {
  id: number;
  uuid: string;
  username: string;
  email: string;
  is_active: boolean;
  is_deleted: boolean;
  /** Whether a platform provider vouched for `email` (never sent to clients). */
  email_verified: boolean;
  [column: string]: unknown;
}

/** The password hash of an account without a password: no password matches it (not a scrypt hash). */
const NO_PASSWORD_HASH = '!social-sign-in';

/** The app a sign-in URL names: by provider_id when it has one, else by provider. */
export async function socialAppByLoginName(db: Queryable, scope: SocialScope, name: string): Promise<SocialAppRow | undefined> {
  const [row] = await db.rows<SocialAppRow>(sql`select ${socialAppColumns}
    from ${socialAppsTable(scope)} where coalesce(nullif(provider_id, ''), provider) = ${name}`);
  return row;
}

export async function insertLoginState(db: Queryable, row: LoginStateRow, ttlSeconds: number): Promise<void> {
  await db.run(sql`delete from platform.social_login_states where expires_at < now()`);
  await db.run(sql`insert into platform.social_login_states (state, social_app_id, site_id, redirect_uri, code_verifier, nonce, expires_at)
    values (${row.state}, ${row.social_app_id}, ${row.site_id}, ${row.redirect_uri}, ${row.code_verifier}, ${row.nonce},
      now() + make_interval(secs => ${ttlSeconds}))`);
}

export async function findLoginState(db: Queryable, state: string): Promise<LoginStateRow | undefined> {
  const [row] = await db.rows<LoginStateRow>(sql`select state, social_app_id, site_id, redirect_uri, code_verifier, nonce
    from platform.social_login_states where state = ${state} and expires_at > now()`);
  return row;
}

/** Redeems a state: true for the one request that deletes it. */
export async function consumeLoginState(db: Queryable, state: string): Promise<boolean> {
  return (await db.run(sql`delete from platform.social_login_states where state = ${state} and expires_at > now()`)) === 1;
}

const userColumns = sql`u.id, u.uuid::text as uuid, u.username, u.email, u.is_active, u.is_deleted, u.email_verified`;

export async function linkedUser(db: Queryable, scope: SocialScope, appId: number, uid: string): Promise<LoginUser | undefined> {
  const [row] = await db.rows<LoginUser>(sql`select ${userColumns} from ${socialAccountsTable(scope)} a
    join platform.users u on u.id = a.user_id where a.social_app_id = ${appId} and a.uid = ${uid}`);
  return row;
}

/**
 * The user with this email, locked until the transaction ends: an email or password change racing a
 * sign-in that links the account waits for it, and so sees what the sign-in did.
 */
export async function userByEmail(db: Queryable, email: string): Promise<LoginUser | undefined> {
  const [row] = await db.rows<LoginUser>(sql`select ${userColumns} from platform.users u where lower(u.email) = lower(${email})
    order by u.is_deleted, u.id limit 1 for update`);
  return row;
}

/** Marks the user's email verified, if it still is `email` (an email changed meanwhile stays as it is). */
export async function markEmailVerified(db: Queryable, userId: number, email: string): Promise<void> {
  await db.run(sql`update platform.users set email_verified = true
    where id = ${userId} and lower(email) = lower(${email}) and not email_verified`);
}

/** Sites whose schema has a links table, per statement of `forgetLinks` (one CTE each). */
const SCHEMAS_PER_STATEMENT = 100;

/**
 * Hands an account to whoever a platform provider says owns its email: every credential held before
 * is cut. The password goes (no password matches the hash), every token issued up to `cutOff` is
 * refused (`tokens_valid_after`), and the account's links to provider accounts are removed, the
 * platform's and every site's (a site owner's provider could otherwise still sign it in); then the
 * email counts as verified.
 */
export async function claimAccount(db: Queryable, userId: number, cutOff: Date): Promise<void> {
  await db.query((orm) =>
    orm.update(users).set({ passwordHash: NO_PASSWORD_HASH, tokensValidAfter: cutOff, emailVerified: true }).where(eq(users.id, userId)),
  );
  await forgetLinks(db, userId);
}

async function forgetLinks(db: Queryable, userId: number): Promise<void> {
  await db.run(sql`delete from platform.social_accounts where user_id = ${userId}`);
  // A site made before its schema had sign-in providers, or whose schema is gone, has no links table.
  const sites = await db.rows<{ schema_name: string }>(sql`select s.schema_name from platform.sites s
    where to_regclass(format('%I.social_accounts', s.schema_name)) is not null order by s.id`);
  for (let first = 0; first < sites.length; first += SCHEMAS_PER_STATEMENT) {
    const deletes = sites
      .slice(first, first + SCHEMAS_PER_STATEMENT)
      .map(
        (site, index) =>
          sql`${sql.raw(`d${index}`)} as (delete from ${tenantSchemaIdentifier(site.schema_name)}.social_accounts where user_id = ${userId})`,
      );
    await db.run(sql`with ${sql.join(deletes, sql`, `)} select 1`);
  }
}

export async function linkAccount(db: Queryable, scope: SocialScope, userId: number, appId: number, uid: string): Promise<void> {
  await db.run(sql`insert into ${socialAccountsTable(scope)} (user_id, social_app_id, uid) values (${userId}, ${appId}, ${uid})`);
}

/** The usernames taken near `base` (a lower-case slug), in lower case: usernames are unique in any case. */
export async function usernamesLike(db: Queryable, base: string): Promise<string[]> {
  const rows = await db.rows<{ username: string }>(
    sql`select lower(username) as username from platform.users where lower(username) = ${base} or lower(username) like ${`${base}-%`}`,
  );
  return rows.map((row) => row.username);
}

/**
 * A user who signs in only through providers: the password hash is one no password matches. The
 * email is verified when the provider that vouched for it is a platform one.
 */
export async function insertSocialUser(
  db: Queryable,
  values: { username: string; email: string; firstName: string; lastName: string; emailVerified: boolean },
): Promise<LoginUser> {
  const [row] = await db.rows<LoginUser>(sql`
    with inserted as (
      insert into platform.users (username, email, password_hash, first_name, last_name, email_verified)
      values (${values.username}, ${values.email}, ${NO_PASSWORD_HASH}, ${values.firstName}, ${values.lastName}, ${values.emailVerified})
      returning *
    )
    select ${userColumns} from inserted u`);
  return row!;
}
