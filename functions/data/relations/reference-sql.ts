// SQL of import-reference: a reference row names a source table inside the target app.
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { tenantTable } from '#shared/db/sql-identifiers.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';

export async function insertReference(
  db: Queryable,
  site: Pick<Tenant, 'schemaName'>,
  row: { appId: number; name: string; sourceId: number; userId: number },
): Promise<void> {
  await db.run(sql`insert into ${tenantTable(site, 'datatable_references')} (app_id, name, source_table_id, created_by)
    values (${row.appId}, ${row.name}, ${row.sourceId}, ${row.userId})`);
}
