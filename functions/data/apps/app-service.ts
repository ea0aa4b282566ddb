// The rules of apps: slugs generated from names, soft delete that deactivates the app's datasources
// and datatables, and restore that brings them back.
import type { Principal } from '#shared/auth/principal.ts';
import { UniqueViolationError } from '#shared/db/database-errors.ts';
import type { Queryable } from '#shared/db/database.ts';
import { ConflictError, NotFoundError, ValidationError } from '#shared/errors.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { slugFrom, uniqueSlug } from '#shared/text/slugs.ts';
import {
  findApp,
  insertApp,
  listActiveApps,
  listDatasources,
  setAppActive,
  slugsLike,
  updateApp,
  type AppRow,
  type DatasourceRow,
} from './app-repository.ts';
import type { CreateAppBody, PatchAppBody } from './app-schemas.ts';
import { assertManagesData } from './data-access.ts';

export const APP_NOT_FOUND = 'App not found.';

export function listApps(db: Queryable, site: Tenant): Promise<AppRow[]> {
  return listActiveApps(db, site);
}

/** An active app; a soft-deleted one is 404 like a missing one. */
export async function existingApp(db: Queryable, site: Tenant, slug: string): Promise<AppRow> {
  const app = await findApp(db, site, slug);
  if (app === undefined) throw new NotFoundError(APP_NOT_FOUND);
  return app;
}

export async function appWithDatasources(
  db: Queryable,
  site: Tenant,
  slug: string,
): Promise<{ app: AppRow; datasources: DatasourceRow[] }> {
  const app = await existingApp(db, site, slug);
  return { app, datasources: await listDatasources(db, site, app.id) };
}

export async function createApp(db: Queryable, site: Tenant, caller: Principal, body: CreateAppBody) {
  await assertManagesData(db, site, caller);
  const base = await slugFrom(body.name, 100);
  if (base === '') throw ValidationError.forFields({ name: ['The name must contain at least one letter or digit.'] });
  for (let attempt = 0; ; attempt += 1) {
    const slug = await uniqueSlug(base, (b) => slugsLike(db, site, 'apps', b), { maxLength: 100 });
    try {
      await insertApp(db, site, { name: body.name, slug, description: body.description ?? '', userId: caller.id });
      return appWithDatasources(db, site, slug);
    } catch (error) {
      // Two creators raced for the same slug: take the next one.
      if (!(error instanceof UniqueViolationError) || attempt >= 3) throw error;
    }
  }
}

export async function changeApp(db: Queryable, site: Tenant, caller: Principal, slug: string, body: PatchAppBody) {
  await assertManagesData(db, site, caller);
  const app = await existingApp(db, site, slug);
  await updateApp(db, site, app.id, {
    name: body.name ?? app.name,
    description: body.description ?? app.description,
    userId: caller.id,
  });
  return appWithDatasources(db, site, slug);
}

export async function softDeleteApp(db: Queryable, site: Tenant, caller: Principal, slug: string): Promise<void> {
  await assertManagesData(db, site, caller);
  const app = await existingApp(db, site, slug);
  await setAppActive(db, site, app.id, false, caller.id);
}

export async function restoreApp(db: Queryable, site: Tenant, caller: Principal, slug: string): Promise<{ message: string }> {
  await assertManagesData(db, site, caller);
  const app = await findApp(db, site, slug, { deleted: true });
  if (app === undefined) {
    if ((await findApp(db, site, slug)) !== undefined) throw new ConflictError('The app is not deleted.');
    throw new NotFoundError(APP_NOT_FOUND);
  }
  await setAppActive(db, site, app.id, true, caller.id);
  return { message: `App "${app.name}" restored.` };
}

export async function appStats(db: Queryable, site: Tenant, slug: string) {
  const { app, datasources } = await appWithDatasources(db, site, slug);
  const materialized = datasources.reduce((sum, d) => sum + d.materialized_count, 0);
  return {
    app_name: app.name,
    app_slug: app.slug,
    total_datasources: datasources.length,
    total_tables: app.table_count,
    materialized_tables: materialized,
    unmaterialized_tables: app.table_count - materialized,
    datasources: datasources.map((d) => ({
      name: d.name,
      slug: d.slug,
      provider_type: d.provider_type,
      total_tables: d.table_count,
      materialized_tables: d.materialized_count,
    })),
  };
}
