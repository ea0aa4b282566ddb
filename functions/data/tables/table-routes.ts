// The datatables endpoints, each item route served on both URL forms (with and without the
// datasource segment): parse, call the service, answer.
import { noContent, reply } from '#shared/http/reply.ts';
import { defineRoute, type AnyRoute } from '#shared/http/route.ts';
import { materialize } from './materialize-service.ts';
import * as z from 'zod';
import {
  operationRecord,
  runningOperationSchema,
  schemaOperationSchema,
  referenceDetail,
  referenceListItem,
  tableDetail,
  tableDetailSchema,
  tableListItem,
  tableListItemSchema,
  tableSchemaBody,
  tableSchemaBodySchema,
} from './table-representation.ts';
import {
  createTableBody,
  appTablesParams,
  datasourceTablesParams,
  patchTableBody,
  replaceTableBody,
  tableParams,
  validateDataBody,
} from './table-schemas.ts';
import { tableOrReference } from './table-lookup.ts';
import { readableTableFor } from '../relations/reference-service.ts';
import { validateData } from './data-validation.ts';
import { changeTable, createTable, removeTable, tablesAndReferencesOf, tablesOf } from './table-service.ts';

const common = { host: 'tenant', errorStyle: 'generic', access: 'user' } as const;
const DATASOURCE = '/api/apps/{app_slug}/datasources/{datasource_slug}/';
const LONG = `${DATASOURCE}datatables/`;
const SHORT = '/api/apps/{app_slug}/datatables/';

export const datasourceTablesRoute = defineRoute({
  ...common,
  method: 'GET',
  path: `${DATASOURCE}tables/`,
  summary: 'The tables of a datasource',
  params: datasourceTablesParams,
  envelope: 'bare',
  response: () => z.array(tableListItemSchema()),
  handler: async (ctx, { params }) =>
    (await tablesOf(ctx.runtime.db, ctx.site, params.app_slug, params.datasource_slug)).map(tableListItem),
});

export const listTablesRoute = defineRoute({
  ...common,
  method: 'GET',
  path: LONG,
  summary: 'List the datatables of a datasource',
  params: datasourceTablesParams,
  envelope: 'bare',
  response: () => z.array(tableListItemSchema()),
  handler: async (ctx, { params }) =>
    (await tablesOf(ctx.runtime.db, ctx.site, params.app_slug, params.datasource_slug)).map(tableListItem),
});

export const appTablesRoute = defineRoute({
  ...common,
  method: 'GET',
  path: SHORT,
  summary: 'Every datatable of an app (all its datasources), then the references it imported (is_reference, source_info)',
  params: appTablesParams,
  envelope: 'bare',
  response: () => z.array(tableListItemSchema()),
  handler: async (ctx, { params }) => {
    const { tables, references } = await tablesAndReferencesOf(ctx.runtime.db, ctx.site, params.app_slug);
    return [...tables.map(tableListItem), ...references.map(referenceListItem)];
  },
});

export const createTableRoute = defineRoute({
  ...common,
  method: 'POST',
  path: LONG,
  summary: 'Define a datatable by its Table Schema (not materialized yet)',
  params: datasourceTablesParams,
  body: createTableBody,
  envelope: 'bare',
  response: tableDetailSchema,
  status: 201,
  handler: async (ctx, { params, body }) =>
    tableDetail(await createTable(ctx.runtime.db, ctx.site, ctx.user, params.app_slug, params.datasource_slug, body)),
});

function itemRoutes(prefix: string): AnyRoute[] {
  const item = `${prefix}{name}/`;
  const change = (method: 'PUT' | 'PATCH') =>
    defineRoute({
      ...common,
      method,
      path: item,
      summary: method === 'PUT' ? "Replace a datatable's description and schema" : "Change a datatable's description or schema",
      params: tableParams,
      body: () => (method === 'PUT' ? replaceTableBody() : patchTableBody()),
      response: () => z.union([tableDetailSchema(), runningOperationSchema()]),
      envelope: 'bare',
      handler: async (ctx, { params, body }) => {
        const changed = await changeTable(ctx.runtime.db, ctx.site, ctx.user, params, body, ctx.runtime.config.schemaMigrations);
        // A migration still running past the request budget: 202 with the operation to poll (DECISIONS).
        return 'running' in changed ? reply(202, { operation: operationRecord(changed.running) }) : tableDetail(changed);
      },
    });
  return [
    defineRoute({
      ...common,
      method: 'GET',
      path: item,
      summary: 'Datatable detail; on the short form also a reference (is_reference, source_info)',
      params: tableParams,
      response: tableDetailSchema,
      envelope: 'bare',
      handler: async (ctx, { params }) => {
        const found = await tableOrReference(ctx.runtime.db, ctx.site, params);
        if ('table' in found) return tableDetail(found.table);
        const { reference } = found;
        return referenceDetail(reference, { slug: reference.target_app_slug, name: reference.target_app_name }, reference.reference_name);
      },
    }),
    change('PUT'),
    change('PATCH'),
    defineRoute({
      ...common,
      method: 'DELETE',
      path: item,
      summary: 'Delete a datatable (a materialized one with its physical table); on the short form also a reference',
      params: tableParams,
      envelope: 'none',
      handler: async (ctx, { params }) => {
        await removeTable(ctx.runtime.db, ctx.site, ctx.user, params);
        return noContent();
      },
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: `${item}schema/`,
      summary: "A datatable's schema and hash (a reference's are its source's)",
      params: tableParams,
      response: tableSchemaBodySchema,
      envelope: 'bare',
      handler: async (ctx, { params }) => {
        const { table, name } = await readableTableFor(ctx, params);
        return { ...tableSchemaBody(table), name };
      },
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: `${item}validate_data/`,
      summary: 'Check records as a write would, without storing them (a reference checks against its source)',
      params: tableParams,
      body: validateDataBody,
      exactIntegers: true,
      response: () => z.strictObject({ is_valid: z.boolean(), errors: z.array(z.string()), validated_rows: z.number().int() }),
      envelope: 'bare',
      handler: async (ctx, { params, body }) =>
        validateData(ctx.runtime.db, ctx.site, (await readableTableFor(ctx, params)).table, body.data),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: `${item}materialize/`,
      summary: 'Create the physical table and record the CREATE_TABLE operation',
      params: tableParams,
      response: () => z.strictObject({ message: z.string(), datatable: tableDetailSchema(), operation: schemaOperationSchema() }),
      envelope: 'bare',
      handler: async (ctx, { params }) => {
        const { table, operation } = await materialize(ctx.runtime.db, ctx.site, ctx.user, params);
        return {
          message: `Table "${table.name}" materialized as "${table.physical_table_name}".`,
          datatable: tableDetail(table),
          operation: operationRecord(operation),
        };
      },
    }),
  ];
}

export const longItemRoutes = itemRoutes(LONG);
export const shortItemRoutes = itemRoutes(SHORT);
