// SQL of programmatic sign-in: the one-time states, the accounts linked to a provider in a scope,
// and the platform users they lead to.
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
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
  [column: string]: unknown;
}

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

const userColumns = sql`u.id, u.uuid::text as uuid, u.username, u.email, u.is_active, u.is_deleted`;

export async function linkedUser(db: Queryable, scope: SocialScope, appId: number, uid: string): Promise<LoginUser | undefined> {
  const [row] = await db.rows<LoginUser>(sql`select ${userColumns} from ${socialAccountsTable(scope)} a
    join platform.users u on u.id = a.user_id where a.social_app_id = ${appId} and a.uid = ${uid}`);
  return row;
}

export async function userByEmail(db: Queryable, email: string): Promise<LoginUser | undefined> {
  const [row] = await db.rows<LoginUser>(sql`select ${userColumns} from platform.users u where lower(u.email) = lower(${email})
    order by u.is_deleted, u.id limit 1`);
  return row;
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

/** A user who signs in only through providers: the password hash is one no password matches. */
export async function insertSocialUser(
  db: Queryable,
  values: { username: string; email: string; firstName: string; lastName: string },
): Promise<LoginUser> {
  const [row] = await db.rows<LoginUser>(sql`
    with inserted as (
      insert into platform.users (username, email, password_hash, first_name, last_name)
      values (${values.username}, ${values.email}, '!social-sign-in', ${values.firstName}, ${values.lastName})
      returning *
    )
    select ${userColumns} from inserted u`);
  return row!;
}
