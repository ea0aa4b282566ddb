// Names a table inside the tenant's schema for SQL. The schema comes from the resolved site record
// and the table name from code; both are checked as plain identifiers and quoted.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import { tenantSchemaIdentifier } from '#shared/db/tenant-schemas.ts';
import type { Tenant } from './tenant.ts';

const TABLE_NAME_PATTERN = /^[a-z_][a-z0-9_]*$/;

export function tenantTable(tenant: Pick<Tenant, 'schemaName'>, table: string): SQL {
  if (!TABLE_NAME_PATTERN.test(table) || table.length > 63) throw new Error(`"${table}" is not a valid table name`);
  return sql`${tenantSchemaIdentifier(tenant.schemaName)}.${sql.identifier(table)}`;
}
