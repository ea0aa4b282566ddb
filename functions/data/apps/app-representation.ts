// The app and datasource bodies of the spec, built from repository rows.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { isoTime } from '#shared/db/row-values.ts';
import type { AppRow, DatasourceRow } from './app-repository.ts';

// The wire shapes below, for the OpenAPI document and the test-time response check.
const timestamps = () => ({ created_at: z.string().nullable(), updated_at: z.string().nullable() });
const authors = () => ({ created_by: z.number().int().nullable(), modified_by: z.number().int().nullable() });

export const appListItemSchema = lazySchema(() =>
  z
    .strictObject({
      id: z.number().int(),
      name: z.string(),
      slug: z.string(),
      description: z.string(),
      datasource_count: z.number().int(),
      ...timestamps(),
    })
    .meta({ id: 'AppListItem' }),
);

export const appDetailSchema = lazySchema(() =>
  z
    .strictObject({
      id: z.number().int(),
      name: z.string(),
      slug: z.string(),
      description: z.string(),
      datasource_count: z.number().int(),
      table_count: z.number().int(),
      datasources: z.array(
        z.strictObject({
          id: z.number().int(),
          name: z.string(),
          slug: z.string(),
          provider_type: z.string(),
          table_count: z.number().int(),
        }),
      ),
      ...timestamps(),
      ...authors(),
    })
    .meta({ id: 'App' }),
);

export const datasourceSchema = lazySchema(() =>
  z
    .strictObject({
      id: z.number().int(),
      app: z.number().int(),
      app_name: z.string(),
      app_slug: z.string(),
      name: z.string(),
      slug: z.string(),
      provider_type: z.string(),
      provider_config: z.record(z.string(), z.unknown()),
      description: z.string(),
      is_active: z.boolean(),
      table_count: z.number().int(),
      materialized_count: z.number().int(),
      ...timestamps(),
      ...authors(),
    })
    .meta({ id: 'Datasource' }),
);

/** The wire shape of appStats (app-service.ts). */
export const appStatsSchema = lazySchema(() =>
  z
    .strictObject({
      app_name: z.string(),
      app_slug: z.string(),
      total_datasources: z.number().int(),
      total_tables: z.number().int(),
      materialized_tables: z.number().int(),
      unmaterialized_tables: z.number().int(),
      datasources: z.array(
        z.strictObject({
          name: z.string(),
          slug: z.string(),
          provider_type: z.string(),
          total_tables: z.number().int(),
          materialized_tables: z.number().int(),
        }),
      ),
    })
    .meta({ id: 'AppStats' }),
);

/** The wire shape of datasourceStats (datasource-service.ts). */
export const datasourceStatsSchema = lazySchema(() =>
  z
    .strictObject({
      total_tables: z.number().int(),
      materialized_tables: z.number().int(),
      unmaterialized_tables: z.number().int(),
      provider_type: z.string(),
      is_active: z.boolean(),
    })
    .meta({ id: 'DatasourceStats' }),
);

export function appListItem(app: AppRow) {
  return {
    id: app.id,
    name: app.name,
    slug: app.slug,
    description: app.description,
    datasource_count: app.datasource_count,
    created_at: isoTime(app.created_at),
    updated_at: isoTime(app.updated_at),
  };
}

export function appDetail(app: AppRow, datasources: DatasourceRow[]) {
  return {
    id: app.id,
    name: app.name,
    slug: app.slug,
    description: app.description,
    datasource_count: app.datasource_count,
    table_count: app.table_count,
    datasources: datasources.map((d) => ({
      id: d.id,
      name: d.name,
      slug: d.slug,
      provider_type: d.provider_type,
      table_count: d.table_count,
    })),
    created_at: isoTime(app.created_at),
    updated_at: isoTime(app.updated_at),
    created_by: app.created_by,
    modified_by: app.modified_by,
  };
}

export function datasourceRecord(d: DatasourceRow) {
  return {
    id: d.id,
    app: d.app_id,
    app_name: d.app_name,
    app_slug: d.app_slug,
    name: d.name,
    slug: d.slug,
    provider_type: d.provider_type,
    provider_config: d.provider_config,
    description: d.description,
    is_active: d.is_active,
    table_count: d.table_count,
    materialized_count: d.materialized_count,
    created_at: isoTime(d.created_at),
    updated_at: isoTime(d.updated_at),
    created_by: d.created_by,
    modified_by: d.modified_by,
  };
}
