// SQL of social apps in one scope (the platform's tables or a site's): tables are named from code and
// the scope's resolved site record only; values are bound parameters.
import type { SQL } from 'drizzle-orm';
import { countedPage, type CountedPage } from '#shared/db/counted-page.ts';
import { sql } from '#shared/db/sql.ts';
import { tenantTable } from '#shared/db/sql-identifiers.ts';
import type { SealedValue } from '#shared/crypto/secret-box.ts';
import type { Queryable } from '#shared/db/database.ts';
import type { PageRequest } from '#shared/http/pagination.ts';
import { containsPattern } from '#shared/text/like-patterns.ts';
import type { SocialScope } from './social-scope.ts';

/** The scope's social apps: the platform's own on the platform host, else the site's. */
export function socialAppsTable(scope: Pick<SocialScope, 'site'>): SQL {
  return scope.site === undefined ? sql`platform.social_apps` : tenantTable(scope.site, 'social_apps');
}

/** The scope's links between users and provider accounts. */
export function socialAccountsTable(scope: Pick<SocialScope, 'site'>): SQL {
  return scope.site === undefined ? sql`platform.social_accounts` : tenantTable(scope.site, 'social_accounts');
}

export interface SocialAppRow {
  id: number;
  provider: string;
  provider_id: string;
  name: string;
  client_id: string;
  /** Plaintext of a row not sealed yet (start-up seals them), else ''. */
  secret: string;
  secret_sealed: SealedValue | string | null;
  key: string;
  settings: Record<string, unknown>;
  [column: string]: unknown;
}

/** An app's columns but its secret, which is written sealed (`setSealedSecret`). */
export interface SocialAppValues {
  provider: string;
  provider_id: string;
  name: string;
  client_id: string;
  key: string;
  settings: Record<string, unknown>;
}

export interface SocialAppFilter {
  search?: string;
  provider?: string;
  ordering: { column: 'id' | 'name' | 'provider'; descending: boolean };
  page: PageRequest;
}

export const socialAppColumns = sql`id, provider, provider_id, name, client_id, secret, secret_sealed, key, settings`;
const columns = socialAppColumns;

export async function listSocialApps(db: Queryable, scope: SocialScope, filter: SocialAppFilter): Promise<CountedPage<SocialAppRow>> {
  const conditions = [sql`true`];
  if (filter.provider !== undefined) conditions.push(sql`provider = ${filter.provider}`);
  if (filter.search !== undefined) {
    const pattern = containsPattern(filter.search);
    conditions.push(
      sql`(name ilike ${pattern} or provider ilike ${pattern} or client_id ilike ${pattern} or provider_id ilike ${pattern})`,
    );
  }
  const where = sql.join(conditions, sql` and `);
  const order = sql.raw(`${filter.ordering.column} ${filter.ordering.descending ? 'desc' : 'asc'}, id asc`);
  return countedPage(
    db,
    filter.page,
    ({ window }) => db.rows<SocialAppRow>(sql`select ${columns} from ${socialAppsTable(scope)} where ${where} order by ${order} ${window}`),
    sql`select 1 from ${socialAppsTable(scope)} where ${where}`,
  );
}

export async function findSocialApp(db: Queryable, scope: SocialScope, id: number): Promise<SocialAppRow | undefined> {
  const [row] = await db.rows<SocialAppRow>(sql`select ${columns} from ${socialAppsTable(scope)} where id = ${id}`);
  return row;
}

/** Inserts the app without its secret (the seal needs the id); answers the new id. */
export async function insertSocialApp(db: Queryable, scope: SocialScope, values: SocialAppValues): Promise<number> {
  const [row] = await db.rows<{ id: number }>(sql`
    insert into ${socialAppsTable(scope)} (provider, provider_id, name, client_id, secret, key, settings)
    values (${values.provider}, ${values.provider_id}, ${values.name}, ${values.client_id}, '', ${values.key},
      ${JSON.stringify(values.settings)}::jsonb)
    returning id`);
  return row!.id;
}

export async function updateSocialApp(db: Queryable, scope: SocialScope, id: number, values: SocialAppValues): Promise<void> {
  await db.run(sql`
    update ${socialAppsTable(scope)} set provider = ${values.provider}, provider_id = ${values.provider_id}, name = ${values.name},
      client_id = ${values.client_id}, key = ${values.key}, settings = ${JSON.stringify(values.settings)}::jsonb,
      updated_at = now()
    where id = ${id}`);
}

/** Stores the sealed secret and drops any plaintext left from before sealing. */
export async function setSealedSecret(db: Queryable, scope: SocialScope, id: number, sealed: SealedValue): Promise<void> {
  await db.run(sql`update ${socialAppsTable(scope)} set secret_sealed = ${JSON.stringify(sealed)}::jsonb, secret = '' where id = ${id}`);
}

export async function linkedUserCount(db: Queryable, scope: SocialScope, id: number): Promise<number> {
  const [row] = await db.rows<{ n: number }>(
    sql`select count(distinct user_id)::int as n from ${socialAccountsTable(scope)} where social_app_id = ${id}`,
  );
  return row?.n ?? 0;
}

export async function deleteSocialApp(db: Queryable, scope: SocialScope, id: number): Promise<void> {
  await db.run(sql`delete from ${socialAppsTable(scope)} where id = ${id}`);
}
