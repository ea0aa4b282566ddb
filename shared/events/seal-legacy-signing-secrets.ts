// Start-up step (local boot and the deploy migration): seals the function signing secrets stored in
// plain text before they were sealed (tenant migration 16) in every site's schema, and empties
// their plaintext. Rows already sealed are left alone, so it is safe to run on every start; each
// row is sealed and cleared in one statement.
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { tenantTable } from '#shared/db/sql-identifiers.ts';
import { sealSigningSecret } from './signing-secrets.ts';

/** Seals every plaintext signing secret; answers how many were sealed. The key is loaded only when one is found. */
export async function sealLegacySigningSecrets(db: Queryable, key: () => Promise<Buffer>): Promise<number> {
  const sites = await db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites`);
  let sealed = 0;
  for (const { schema_name: schemaName } of sites) {
    const table = tenantTable({ schemaName }, 'functions');
    // A site whose schema is not migrated to 16 yet has no functions table or no sealed column.
    const [ready] = await db.rows<{ n: number }>(sql`select count(*)::int as n from information_schema.columns
      where table_schema = ${schemaName} and table_name = 'functions' and column_name = 'signing_secret_sealed'`);
    if (Number(ready?.n ?? 0) === 0) continue;
    const rows = await db.rows<{ id: number; signing_secret: string }>(
      sql`select id, signing_secret from ${table} where signing_secret_sealed is null`,
    );
    for (const row of rows) {
      const value = sealSigningSecret(await key(), schemaName, Number(row.id), row.signing_secret);
      await db.run(sql`update ${table} set signing_secret_sealed = ${JSON.stringify(value)}::jsonb, signing_secret = ''
        where id = ${row.id} and signing_secret_sealed is null`);
      sealed += 1;
    }
  }
  return sealed;
}
