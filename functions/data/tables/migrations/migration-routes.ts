// The schema-evolution endpoints of a datatable, on both URL forms: preview-changes,
// validate-schema, operation-history (and one operation, to poll a running migration), rollback.
import { defineRoute, type AnyRoute } from '#shared/http/route.ts';
import { NotFoundError } from '#shared/errors.ts';
import { operationRecord, schemaOperationSchema } from '../table-representation.ts';
import {
  changePreviewSchema,
  historyEnvelope,
  operationHistorySchema,
  rollbackResultSchema,
  schemaValidationSchema,
} from './migration-representation.ts';
import { tableParams } from '../table-schemas.ts';
import { existingTable } from '../table-lookup.ts';
import { readableTableFor } from '../../relations/reference-service.ts';
import { previewChanges, validateSchema } from './migration-service.ts';
import { historyQuery, operationParams, previewBody, rollbackBody, validateBody } from './migration-schemas.ts';
import { findMigration, operationPage } from './operation-repository.ts';
import { rollbackMigration } from './rollback-service.ts';

const common = { host: 'tenant', errorStyle: 'generic', access: 'user', envelope: 'bare' } as const;

export function migrationRoutes(prefix: string): AnyRoute[] {
  const item = `${prefix}{name}/`;
  return [
    defineRoute({
      ...common,
      method: 'POST',
      path: `${item}preview-changes/`,
      summary: 'The operations a new schema would run, their safety and a live preflight of the rows',
      params: tableParams,
      body: previewBody,
      response: changePreviewSchema,
      handler: async (ctx, { params, body }) =>
        previewChanges(ctx.runtime.db, ctx.site, ctx.user, await existingTable(ctx.runtime.db, ctx.site, params), body.new_schema),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: `${item}validate-schema/`,
      summary: 'Check a Table Schema (and, for a materialized table, the change to it)',
      params: tableParams,
      body: validateBody,
      response: schemaValidationSchema,
      handler: async (ctx, { params, body }) =>
        validateSchema(ctx.runtime.db, ctx.site, ctx.user, await existingTable(ctx.runtime.db, ctx.site, params), body.schema),
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: `${item}operation-history/`,
      summary: "The table's schema operations, newest first",
      params: tableParams,
      query: historyQuery,
      response: operationHistorySchema,
      handler: async (ctx, { params, query }) => {
        // A reference's history is its source's (read through, as its schema is).
        const { table } = await readableTableFor(ctx, params);
        const window = { limit: query.limit, offset: query.offset, count: query._count ?? 'exact' };
        const page = await operationPage(ctx.runtime.db, ctx.site, table.id, window);
        return historyEnvelope(page, window, (changes) => ctx.urlWithQuery(changes));
      },
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: `${item}operation-history/{revision_id}/`,
      summary: 'One schema operation (poll a migration answered with 202)',
      params: operationParams,
      response: schemaOperationSchema,
      handler: async (ctx, { params }) => {
        const { table } = await readableTableFor(ctx, params);
        const op = await findMigration(ctx.runtime.db, ctx.site, params.revision_id);
        if (op === undefined || op.datatable_id !== table.id) throw new NotFoundError('Schema operation not found.');
        return operationRecord(op);
      },
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: `${item}rollback/`,
      summary: "Reverse the table's newest successful migration",
      params: tableParams,
      body: rollbackBody,
      response: rollbackResultSchema,
      handler: async (ctx, { params, body }) =>
        rollbackMigration(
          ctx.runtime.db,
          ctx.runtime.config.schemaMigrations,
          ctx.site,
          ctx.user,
          await existingTable(ctx.runtime.db, ctx.site, params),
          body.revision_id,
        ),
    }),
  ];
}
