// The names generated for a table's constraints, indexes and companion tables: `<table>_<suffix>`,
// kept within PostgreSQL's 63-byte limit. A leaf module, so the DDL builder and the schema modules
// that name tables (hierarchy-schema.ts) both use it without importing each other.
import { createHash } from 'node:crypto';

/** `<base>` when short enough, else a prefix and a hash, so generated names stay unique and ≤ 63. */
export function constraintName(table: string, suffix: string): string {
  const full = `${table}_${suffix}`;
  if (full.length <= 63) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, 8);
  return `${full.slice(0, 54).replace(/_+$/, '')}_${hash}`;
}

/** The suffix of the index made for a foreign key's columns: reserved, a declared index may not take it. */
export function foreignKeyIndexSuffix(fields: readonly string[]): string {
  return `${fields.join('_')}_fkey_idx`;
}
