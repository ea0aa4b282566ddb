// Start-up step (local boot and the deploy migration): seals the social app secrets stored in plain
// text before secrets were sealed (platform migration 0006, tenant migration 12), in the platform's
// table and every site's, and empties their plaintext. Rows already sealed are left alone, so it is
// safe to run on every start; each row is sealed and cleared in one statement.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { tenantTable } from '#shared/db/sql-identifiers.ts';
import { sealSocialSecret, type SocialSecretScope } from './social-app-secret.ts';

async function sealTable(db: Queryable, key: () => Promise<Buffer>, table: SQL, scope: SocialSecretScope): Promise<number> {
  const rows = await db.rows<{ id: number; secret: string }>(sql`select id, secret from ${table} where secret_sealed is null`);
  for (const row of rows) {
    const sealed = sealSocialSecret(await key(), scope, row.id, row.secret);
    await db.run(
      sql`update ${table} set secret_sealed = ${JSON.stringify(sealed)}::jsonb, secret = '' where id = ${row.id} and secret_sealed is null`,
    );
  }
  return rows.length;
}

/** Seals every plaintext social app secret; answers how many were sealed. The key is loaded only when one is found. */
export async function sealLegacySocialSecrets(db: Queryable, key: () => Promise<Buffer>): Promise<number> {
  let sealed = await sealTable(db, key, sql`platform.social_apps`, 'platform');
  const sites = await db.rows<{ id: number; schema_name: string }>(sql`select id, schema_name from platform.sites`);
  for (const site of sites) {
    sealed += await sealTable(db, key, tenantTable({ schemaName: site.schema_name }, 'social_apps'), { siteId: Number(site.id) });
  }
  return sealed;
}
