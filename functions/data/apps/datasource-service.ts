// The rules of datasources: slugs unique per app, the provider type, and the provider_config keys
// DECISIONS allows. `mongodb` is refused until its own issue.
import type { Principal } from '#shared/auth/principal.ts';
import { UniqueViolationError } from '#shared/db/database-errors.ts';
import type { Queryable } from '#shared/db/database.ts';
import { ConflictError, NotFoundError, ValidationError } from '#shared/errors.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { slugFrom, uniqueSlug } from '#shared/text/slugs.ts';
import {
  deleteDatasource,
  findDatasource,
  insertDatasource,
  listDatasources,
  slugsLike,
  updateDatasource,
  type DatasourceRow,
} from './app-repository.ts';
import type { CreateDatasourceBody, PatchDatasourceBody, ProviderType } from './app-schemas.ts';
import { existingApp } from './app-service.ts';
import { assertManagesData } from './data-access.ts';

const TAKEN_SLUG = 'A datasource with that slug already exists in this app.';

/** Checks provider type and config; answers the config to store. */
export function checkedProvider(providerType: ProviderType, config: Record<string, unknown> | undefined): Record<string, unknown> {
  if (providerType === 'mongodb') {
    throw ValidationError.forFields({ provider_type: ['The mongodb provider is not available yet; use flat_table or jsonb.'] });
  }
  const given = config ?? {};
  const problems: string[] = [];
  for (const [key, value] of Object.entries(given)) {
    if (key === 'allow_data_loss') {
      if (typeof value !== 'boolean') problems.push('allow_data_loss must be a boolean.');
    } else {
      problems.push(`Unknown key "${key}" for provider ${providerType}; allowed keys: allow_data_loss.`);
    }
  }
  if (problems.length > 0) throw ValidationError.forFields({ provider_config: problems });
  return given;
}

export function datasourcesOf(db: Queryable, site: Tenant, appSlug: string): Promise<DatasourceRow[]> {
  return existingApp(db, site, appSlug).then((app) => listDatasources(db, site, app.id));
}

export async function existingDatasource(db: Queryable, site: Tenant, appSlug: string, slug: string): Promise<DatasourceRow> {
  const app = await existingApp(db, site, appSlug);
  const datasource = await findDatasource(db, site, app.id, slug);
  if (datasource === undefined) throw new NotFoundError('Datasource not found.');
  return datasource;
}

export async function createDatasource(
  db: Queryable,
  site: Tenant,
  caller: Principal,
  appSlug: string,
  body: CreateDatasourceBody,
): Promise<DatasourceRow> {
  await assertManagesData(db, site, caller);
  const app = await existingApp(db, site, appSlug);
  const providerConfig = checkedProvider(body.provider_type, body.provider_config);
  let slug = body.slug;
  if (slug === undefined) {
    const base = await slugFrom(body.name, 100);
    if (base === '') throw ValidationError.forFields({ name: ['The name must contain at least one letter or digit.'] });
    slug = await uniqueSlug(base, (b) => slugsLike(db, site, 'datasources', b, app.id), { maxLength: 100 });
  } else if ((await findDatasource(db, site, app.id, slug)) !== undefined) {
    throw ValidationError.forFields({ slug: [TAKEN_SLUG] });
  }
  try {
    await insertDatasource(db, site, app.id, {
      name: body.name,
      slug,
      providerType: body.provider_type,
      providerConfig,
      description: body.description ?? '',
      userId: caller.id,
    });
  } catch (error) {
    if (error instanceof UniqueViolationError) throw ValidationError.forFields({ slug: [TAKEN_SLUG] });
    throw error;
  }
  return (await findDatasource(db, site, app.id, slug))!;
}

export async function changeDatasource(
  db: Queryable,
  site: Tenant,
  caller: Principal,
  appSlug: string,
  slug: string,
  body: PatchDatasourceBody,
): Promise<DatasourceRow> {
  await assertManagesData(db, site, caller);
  const current = await existingDatasource(db, site, appSlug, slug);
  const providerType = body.provider_type ?? (current.provider_type as ProviderType);
  if (providerType !== current.provider_type && current.table_count > 0) {
    throw new ConflictError('The provider type cannot change while the datasource has tables.');
  }
  const providerConfig = checkedProvider(providerType, body.provider_config ?? current.provider_config);
  const newSlug = body.slug ?? current.slug;
  if (newSlug !== current.slug && (await findDatasource(db, site, current.app_id, newSlug)) !== undefined) {
    throw ValidationError.forFields({ slug: [TAKEN_SLUG] });
  }
  await updateDatasource(db, site, current.id, {
    name: body.name ?? current.name,
    slug: newSlug,
    providerType,
    providerConfig,
    description: body.description ?? current.description,
    userId: caller.id,
  });
  return (await findDatasource(db, site, current.app_id, newSlug))!;
}

/** Deleting a datasource that still has tables would orphan physical tables: delete them first. */
export async function removeDatasource(db: Queryable, site: Tenant, caller: Principal, appSlug: string, slug: string): Promise<void> {
  await assertManagesData(db, site, caller);
  const current = await existingDatasource(db, site, appSlug, slug);
  if (current.table_count > 0) {
    throw new ConflictError(`The datasource has ${current.table_count} table(s); delete them first.`);
  }
  await deleteDatasource(db, site, current.id);
}

export async function datasourceStats(db: Queryable, site: Tenant, appSlug: string, slug: string) {
  const d = await existingDatasource(db, site, appSlug, slug);
  return {
    total_tables: d.table_count,
    materialized_tables: d.materialized_count,
    unmaterialized_tables: d.table_count - d.materialized_count,
    provider_type: d.provider_type,
    is_active: d.is_active,
  };
}
