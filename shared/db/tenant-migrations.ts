// The versioned template of a tenant schema. Every site's schema is built from these migrations in
// order and later versions are applied to every existing site schema on start and at deploy. Never
// edit a released version: add the next one.
import { sql, type SQL } from 'drizzle-orm';

export interface TenantMigration {
  version: number;
  name: string;
  /** One statement per entry; `schema` is the quoted schema identifier. */
  statements(schema: SQL): SQL[];
}

export const tenantMigrations: readonly TenantMigration[] = [
  {
    version: 1,
    name: 'apps',
    statements: (schema) => [
      sql`create table ${schema}.apps (
        id serial primary key,
        name varchar(255) not null,
        slug varchar(100) not null unique,
        description text not null default '',
        is_active boolean not null default true,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        deleted_at timestamptz,
        created_by integer,
        modified_by integer
      )`,
    ],
  },
];
