// SQL of the secret types and secrets of one site. Every table is named through `tenantTable`, so
// the schema comes from the resolved site record only; every value is a bound parameter.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import type { SealedValue } from '#shared/crypto/secret-box.ts';
import type { PageRequest } from '#shared/http/pagination.ts';
import { countedPage, type CountedPage, type PageRead } from '#shared/db/counted-page.ts';
import { tenantTable, type SchemaScopedSite as Site } from '#shared/db/sql-identifiers.ts';
import { containsPattern } from '#shared/text/like-patterns.ts';

export type Page<T> = CountedPage<T>;

export interface SecretTypeRow {
  id: number;
  slug: string;
  name: string;
  description: string;
  schema: unknown;
  createdAt: Date;
  updatedAt: Date;
}

export interface SecretRow {
  id: number;
  key: string;
  appId: number | null;
  appSlug: string | null;
  secretTypeId: number | null;
  secretTypeSlug: string | null;
  description: string;
  sealed: SealedValue;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface HistoryRow {
  version: number;
  action: 'created' | 'updated' | 'deleted';
  changedBy: string | null;
  changedAt: Date;
}

export interface AppRef {
  id: number;
  slug: string;
}

/** Both drivers answer timestamps as Date, text as a fallback is accepted too. */
function toDate(value: unknown): Date {
  return value instanceof Date ? value : new Date(String(value));
}

function secretTypeOf(row: Record<string, unknown>): SecretTypeRow {
  return {
    id: Number(row.id),
    slug: String(row.slug),
    name: String(row.name),
    description: String(row.description),
    schema: typeof row.schema === 'string' ? JSON.parse(row.schema) : row.schema,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

// ---- apps (read only here; apps have their own endpoints) ----

export async function findApp(db: Queryable, site: Site, slug: string): Promise<AppRef | undefined> {
  const [row] = await db.rows<{ id: number; slug: string }>(
    sql`select id, slug from ${tenantTable(site, 'apps')} where slug = ${slug} and deleted_at is null`,
  );
  return row === undefined ? undefined : { id: Number(row.id), slug: row.slug };
}

// ---- secret types ----

export async function listSecretTypes(
  db: Queryable,
  site: Site,
  filter: { search?: string; page: PageRequest },
): Promise<Page<SecretTypeRow>> {
  const where = filter.search
    ? sql`where slug ilike ${containsPattern(filter.search)} or name ilike ${containsPattern(filter.search)}`
    : sql``;
  const table = tenantTable(site, 'secret_types');
  return countedPage(
    db,
    filter.page,
    async ({ window }) => (await db.rows(sql`select * from ${table} ${where} order by slug ${window}`)).map(secretTypeOf),
    sql`select 1 from ${table} ${where}`,
  );
}

export async function findSecretType(db: Queryable, site: Site, slug: string): Promise<SecretTypeRow | undefined> {
  const [row] = await db.rows(sql`select * from ${tenantTable(site, 'secret_types')} where slug = ${slug}`);
  return row === undefined ? undefined : secretTypeOf(row);
}

export interface SecretTypeValues {
  slug: string;
  name: string;
  description: string;
  schema: unknown;
}

export async function insertSecretType(db: Queryable, site: Site, values: SecretTypeValues): Promise<SecretTypeRow> {
  const [row] = await db.rows(sql`
    insert into ${tenantTable(site, 'secret_types')} (slug, name, description, schema)
    values (${values.slug}, ${values.name}, ${values.description}, ${JSON.stringify(values.schema)}::jsonb)
    returning *`);
  return secretTypeOf(row!);
}

export async function updateSecretType(
  db: Queryable,
  site: Site,
  id: number,
  values: Omit<SecretTypeValues, 'slug'>,
): Promise<SecretTypeRow> {
  const [row] = await db.rows(sql`
    update ${tenantTable(site, 'secret_types')}
    set name = ${values.name}, description = ${values.description}, schema = ${JSON.stringify(values.schema)}::jsonb, updated_at = now()
    where id = ${id}
    returning *`);
  return secretTypeOf(row!);
}

export async function deleteSecretType(db: Queryable, site: Site, id: number): Promise<void> {
  await db.run(sql`delete from ${tenantTable(site, 'secret_types')} where id = ${id}`);
}

/** Keys of the secrets using a type (`app/key` for app secrets), for error messages. */
export async function secretsOfType(db: Queryable, site: Site, typeId: number): Promise<SecretRow[]> {
  return selectSecrets(db, site, sql`where s.secret_type_id = ${typeId}`, sql`order by s.key, a.slug nulls first`);
}

// ---- secrets ----

function secretOf(row: Record<string, unknown>): SecretRow {
  return {
    id: Number(row.id),
    key: String(row.key),
    appId: row.app_id === null ? null : Number(row.app_id),
    appSlug: row.app_slug === null ? null : String(row.app_slug),
    secretTypeId: row.secret_type_id === null ? null : Number(row.secret_type_id),
    secretTypeSlug: row.secret_type_slug === null ? null : String(row.secret_type_slug),
    description: String(row.description),
    sealed: { iv: String(row.value_iv), tag: String(row.value_tag), ciphertext: String(row.value_ciphertext) },
    version: Number(row.version),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

async function selectSecrets(db: Queryable, site: Site, where: SQL, tail: SQL): Promise<SecretRow[]> {
  const rows = await db.rows(sql`
    select s.*, a.slug as app_slug, t.slug as secret_type_slug
    from ${tenantTable(site, 'secrets')} s
    left join ${tenantTable(site, 'apps')} a on a.id = s.app_id
    left join ${tenantTable(site, 'secret_types')} t on t.id = s.secret_type_id
    ${where} ${tail}`);
  return rows.map(secretOf);
}

export interface SecretListFilter {
  /** undefined: every secret; null: site-level only; a number: that app's only. */
  appId?: number | null;
  secretTypeId?: number;
  search?: string;
  page: PageRequest;
}

export async function listSecrets(db: Queryable, site: Site, filter: SecretListFilter): Promise<Page<SecretRow>> {
  const conditions: SQL[] = [];
  if (filter.appId === null) conditions.push(sql`s.app_id is null`);
  else if (filter.appId !== undefined) conditions.push(sql`s.app_id = ${filter.appId}`);
  if (filter.secretTypeId !== undefined) conditions.push(sql`s.secret_type_id = ${filter.secretTypeId}`);
  if (filter.search) conditions.push(sql`s.key ilike ${containsPattern(filter.search)}`);
  const where = conditions.length === 0 ? sql`` : sql`where ${sql.join(conditions, sql` and `)}`;
  return countedPage(
    db,
    filter.page,
    ({ window }) => selectSecrets(db, site, where, sql`order by s.key, a.slug nulls first ${window}`),
    sql`select 1 from ${tenantTable(site, 'secrets')} s ${where}`,
  );
}

function scope(appId: number | null): SQL {
  return appId === null ? sql`app_id is null` : sql`app_id = ${appId}`;
}

/** The secret of `key` at one scope: an app's (appId) or the site's (null). */
export async function findSecret(db: Queryable, site: Site, key: string, appId: number | null): Promise<SecretRow | undefined> {
  const scoped = appId === null ? sql`s.app_id is null` : sql`s.app_id = ${appId}`;
  const [row] = await selectSecrets(db, site, sql`where s.key = ${key} and ${scoped}`, sql``);
  return row;
}

export interface Change {
  userId: number;
  username: string;
}

async function recordHistory(
  tx: Queryable,
  site: Site,
  key: string,
  appId: number | null,
  version: number,
  action: HistoryRow['action'],
  by: Change,
) {
  await tx.run(sql`
    insert into ${tenantTable(site, 'secret_history')} (key, app_id, version, action, changed_by_id, changed_by)
    values (${key}, ${appId}, ${version}, ${action}, ${by.userId}, ${by.username})`);
}

export interface NewSecret {
  key: string;
  appId: number | null;
  secretTypeId: number | null;
  description: string;
  sealed: SealedValue;
}

/**
 * Inserts the secret and its `created` entry together. A key deleted earlier and created again
 * continues its version numbers, so the history never shows the same version twice.
 */
export async function insertSecret(db: Queryable, site: Site, secret: NewSecret, by: Change): Promise<void> {
  await db.transaction(async (tx) => {
    const [previous] = await tx.rows<{ version: number | null }>(sql`
      select max(version)::int as version from ${tenantTable(site, 'secret_history')} where key = ${secret.key} and ${scope(secret.appId)}`);
    const version = Number(previous?.version ?? 0) + 1;
    await tx.run(sql`
      insert into ${tenantTable(site, 'secrets')}
        (key, app_id, secret_type_id, description, value_iv, value_tag, value_ciphertext, version, created_by, modified_by)
      values (${secret.key}, ${secret.appId}, ${secret.secretTypeId}, ${secret.description},
        ${secret.sealed.iv}, ${secret.sealed.tag}, ${secret.sealed.ciphertext}, ${version}, ${by.userId}, ${by.userId})`);
    await recordHistory(tx, site, secret.key, secret.appId, version, 'created', by);
  });
}

export interface SecretChanges {
  secretTypeId: number | null;
  description: string;
  sealed: SealedValue;
}

/** Replaces value, type and description, one version up, with its `updated` entry. */
export async function updateSecret(db: Queryable, site: Site, existing: SecretRow, changes: SecretChanges, by: Change): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx.rows<{ version: number }>(sql`
      update ${tenantTable(site, 'secrets')}
      set secret_type_id = ${changes.secretTypeId}, description = ${changes.description},
        value_iv = ${changes.sealed.iv}, value_tag = ${changes.sealed.tag}, value_ciphertext = ${changes.sealed.ciphertext},
        version = version + 1, updated_at = now(), modified_by = ${by.userId}
      where id = ${existing.id}
      returning version`);
    await recordHistory(tx, site, existing.key, existing.appId, Number(row!.version), 'updated', by);
  });
}

export async function deleteSecret(db: Queryable, site: Site, existing: SecretRow, by: Change): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [row] = await tx.rows<{ version: number }>(
      sql`delete from ${tenantTable(site, 'secrets')} where id = ${existing.id} returning version`,
    );
    if (row === undefined) return false;
    await recordHistory(tx, site, existing.key, existing.appId, Number(row.version) + 1, 'deleted', by);
    return true;
  });
}

export async function secretHistory(
  db: Queryable,
  site: Site,
  key: string,
  appId: number | null,
  page: PageRequest,
): Promise<Page<HistoryRow>> {
  const table = tenantTable(site, 'secret_history');
  const where = sql`where key = ${key} and ${scope(appId)}`;
  const readPage = async ({ window }: PageRead) => {
    const rows = await db.rows(sql`
      select version, action, changed_by, changed_at from ${table} ${where}
      order by version desc, id desc ${window}`);
    return rows.map(
      (row): HistoryRow => ({
        version: Number(row.version),
        action: row.action as HistoryRow['action'],
        changedBy: row.changed_by === null ? null : String(row.changed_by),
        changedAt: toDate(row.changed_at),
      }),
    );
  };
  return countedPage(db, page, readPage, sql`select 1 from ${table} ${where}`);
}
