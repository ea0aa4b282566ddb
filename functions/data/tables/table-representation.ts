// The datatable bodies of the spec, with the derived fields computed from the compiled schema.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import { isoTime } from '#shared/db/row-values.ts';
import type { DatatableRow, OperationRow, ReferenceRow } from './table-repository.ts';
import { analyzeTableSchema } from './table-schema.ts';
import type { StorageProvider } from './table-descriptor.ts';

function derived(table: DatatableRow) {
  const result = analyzeTableSchema(table.json_schema, {
    schemaName: 'x',
    tableName: table.physical_table_name,
    provider: table.provider_type as StorageProvider,
    storedSchema: true,
  });
  // A stored schema always compiled once; foreign-key targets are not needed for the derived fields.
  const descriptor = 'compiled' in result ? result.compiled.descriptor : undefined;
  const fieldNames = descriptor?.fields.map((f) => f.name) ?? [];
  return { field_count: fieldNames.length, field_names: fieldNames, primary_key: descriptor?.primaryKey ?? [] };
}

// The wire shapes of tableListItem and tableDetail (and of references, which share them), for the
// OpenAPI document and the test-time response check.
const sourceInfoSchema = lazySchema(() =>
  z
    .strictObject({ id: z.number().int(), app: z.string(), table: z.string(), physical_table_name: z.string() })
    .meta({ description: 'Where a reference reads through to; null for a table of its own' }),
);

export const tableListItemSchema = lazySchema(() =>
  z
    .strictObject({
      id: z.number().int(),
      name: z.string(),
      datasource_name: z.string(),
      datasource_slug: z.string(),
      app_name: z.string(),
      app_slug: z.string(),
      physical_table_name: z.string(),
      is_materialized: z.boolean(),
      is_active: z.boolean(),
      field_count: z.number().int(),
      is_reference: z.boolean(),
      source_info: sourceInfoSchema().nullable(),
      created_at: z.string().nullable(),
      updated_at: z.string().nullable(),
    })
    .meta({ id: 'DatatableListItem' }),
);

export const tableDetailSchema = lazySchema(() =>
  z
    .strictObject({
      id: z.number().int(),
      data_source: z.number().int(),
      datasource_name: z.string(),
      datasource_slug: z.string(),
      app_name: z.string(),
      app_slug: z.string(),
      name: z.string(),
      description: z.string(),
      json_schema: z.unknown().meta({ description: 'The Frictionless Table Schema' }),
      physical_table_name: z.string(),
      is_materialized: z.boolean(),
      is_active: z.boolean(),
      schema_hash: z.string(),
      field_count: z.number().int(),
      field_names: z.array(z.string()),
      primary_key: z.array(z.string()),
      provider_type: z.string(),
      schema_format: z.literal('frictionless'),
      is_reference: z.boolean(),
      source_info: sourceInfoSchema().nullable(),
      created_at: z.string().nullable(),
      updated_at: z.string().nullable(),
      created_by: z.number().int().nullable(),
      modified_by: z.number().int().nullable(),
    })
    .meta({ id: 'Datatable' }),
);

/** The wire shape of tableSchemaBody. */
export const tableSchemaBodySchema = lazySchema(() =>
  z
    .strictObject({
      name: z.string(),
      schema: z.unknown().meta({ description: 'The Frictionless Table Schema' }),
      schema_hash: z.string(),
      field_count: z.number().int(),
    })
    .meta({ id: 'DatatableSchema' }),
);

/** The wire shape of operationRecord: a schema operation's audit record (data-service spec). */
export const schemaOperationSchema = lazySchema(() =>
  z
    .strictObject({
      revision_id: z.string(),
      operation_type: z.enum(['CREATE_TABLE', 'ALTER_TABLE', 'DROP_TABLE']),
      status: z.enum(['PENDING', 'IN_PROGRESS', 'SUCCESS', 'FAILED', 'ROLLED_BACK']),
      table_name: z.string(),
      alembic_operations: z.unknown().meta({ description: 'The structured list of the operation steps' }),
      executed_sql: z.string(),
      rollback_sql: z.string(),
      started_at: z.string().nullable(),
      completed_at: z.string().nullable(),
      duration_ms: z.number().int().nullable(),
      parent_operation: z.string().nullable(),
      error_message: z.string().nullable(),
    })
    .meta({ id: 'SchemaOperation' }),
);

/** A schema change still running past the request budget: 202 with the operation to poll (DECISIONS). */
export const runningOperationSchema = lazySchema(() =>
  z.strictObject({ operation: schemaOperationSchema() }).meta({ id: 'SchemaOperationRunning' }),
);

export function tableListItem(table: DatatableRow) {
  return {
    id: table.id,
    name: table.name,
    datasource_name: table.datasource_name,
    datasource_slug: table.datasource_slug,
    app_name: table.app_name,
    app_slug: table.app_slug,
    physical_table_name: table.physical_table_name,
    is_materialized: table.is_materialized,
    is_active: table.is_active,
    field_count: derived(table).field_count,
    is_reference: false,
    source_info: null,
    created_at: isoTime(table.created_at),
    updated_at: isoTime(table.updated_at),
  };
}

/** Where a reference reads through to: the spec's `source_info`. */
function sourceInfo(source: DatatableRow) {
  return { id: source.id, app: source.app_slug, table: source.name, physical_table_name: source.physical_table_name };
}

/** A reference in its app's table list: the source table under the reference's name and app. */
export function referenceListItem(reference: ReferenceRow) {
  return {
    ...tableListItem(reference),
    name: reference.reference_name,
    app_slug: reference.target_app_slug,
    app_name: reference.target_app_name,
    is_reference: true,
    source_info: sourceInfo(reference),
  };
}

/** A reference's detail: the source table as seen from the app that references it. */
export function referenceDetail(source: DatatableRow, target: { slug: string; name: string }, name: string) {
  return {
    ...tableDetail(source),
    name,
    app_slug: target.slug,
    app_name: target.name,
    is_reference: true,
    source_info: sourceInfo(source),
  };
}

export function tableDetail(table: DatatableRow) {
  return {
    id: table.id,
    data_source: table.data_source_id,
    datasource_name: table.datasource_name,
    datasource_slug: table.datasource_slug,
    app_name: table.app_name,
    app_slug: table.app_slug,
    name: table.name,
    description: table.description,
    json_schema: table.json_schema,
    physical_table_name: table.physical_table_name,
    is_materialized: table.is_materialized,
    is_active: table.is_active,
    schema_hash: table.schema_hash,
    ...derived(table),
    provider_type: table.provider_type,
    schema_format: 'frictionless',
    is_reference: false,
    source_info: null,
    created_at: isoTime(table.created_at),
    updated_at: isoTime(table.updated_at),
    created_by: table.created_by,
    modified_by: table.modified_by,
  };
}

export function tableSchemaBody(table: DatatableRow) {
  return { name: table.name, schema: table.json_schema, schema_hash: table.schema_hash, field_count: derived(table).field_count };
}

export function operationRecord(op: OperationRow) {
  return {
    revision_id: op.revision_id,
    operation_type: op.operation_type,
    status: op.status,
    table_name: op.table_name,
    alembic_operations: op.alembic_operations,
    executed_sql: op.executed_sql,
    rollback_sql: op.rollback_sql,
    started_at: isoTime(op.started_at),
    completed_at: isoTime(op.completed_at),
    duration_ms: op.duration_ms,
    parent_operation: op.parent_operation,
    error_message: op.error_message,
  };
}
