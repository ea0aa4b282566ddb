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
  {
    version: 2,
    name: 'secrets',
    statements: (schema) => [
      sql`create table ${schema}.secret_types (
        id serial primary key,
        slug varchar(100) not null unique,
        name varchar(255) not null,
        description text not null default '',
        schema jsonb not null default '{}'::jsonb,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`,
      // The value is stored only sealed (AES-256-GCM): IV, authentication tag and ciphertext, base64.
      sql`create table ${schema}.secrets (
        id serial primary key,
        key varchar(128) not null,
        app_id integer references ${schema}.apps (id) on delete cascade,
        secret_type_id integer references ${schema}.secret_types (id) on delete restrict,
        description text not null default '',
        value_iv text not null,
        value_tag text not null,
        value_ciphertext text not null,
        version integer not null default 1,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        created_by integer,
        modified_by integer
      )`,
      // One secret per key at site level, and one per key and app.
      sql`create unique index secrets_site_key on ${schema}.secrets (key) where app_id is null`,
      sql`create unique index secrets_app_key on ${schema}.secrets (key, app_id) where app_id is not null`,
      // The audit trail outlives the secret (and its app): no foreign keys, never a value.
      sql`create table ${schema}.secret_history (
        id serial primary key,
        key varchar(128) not null,
        app_id integer,
        version integer not null,
        action varchar(10) not null check (action in ('created', 'updated', 'deleted')),
        changed_by_id integer,
        changed_by varchar(150),
        changed_at timestamptz not null default now()
      )`,
      sql`create index secret_history_key on ${schema}.secret_history (key, app_id, version)`,
    ],
  },
  {
    version: 3,
    name: 'datasources, datatables and schema operations',
    statements: (schema) => [
      sql`create table ${schema}.datasources (
        id serial primary key,
        app_id integer not null references ${schema}.apps (id) on delete cascade,
        name varchar(255) not null,
        slug varchar(100) not null,
        provider_type varchar(20) not null check (provider_type in ('flat_table', 'jsonb', 'mongodb')),
        provider_config jsonb not null default '{}'::jsonb,
        description text not null default '',
        is_active boolean not null default true,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        created_by integer,
        modified_by integer,
        unique (app_id, slug)
      )`,
      // Table names are unique per app, so the short URL form (without the datasource) is unambiguous.
      sql`create table ${schema}.datatables (
        id serial primary key,
        app_id integer not null references ${schema}.apps (id) on delete cascade,
        data_source_id integer not null references ${schema}.datasources (id) on delete cascade,
        name varchar(63) not null,
        description text not null default '',
        json_schema jsonb not null,
        physical_table_name varchar(63) not null,
        schema_hash char(64) not null,
        is_materialized boolean not null default false,
        is_active boolean not null default true,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        created_by integer,
        modified_by integer,
        unique (app_id, name)
      )`,
      sql`create table ${schema}.schema_operations (
        id serial primary key,
        datatable_id integer references ${schema}.datatables (id) on delete set null,
        table_name varchar(63) not null,
        revision_id char(12) not null unique,
        operation_type varchar(20) not null check (operation_type in ('CREATE_TABLE', 'ALTER_TABLE', 'DROP_TABLE')),
        status varchar(20) not null default 'PENDING'
          check (status in ('PENDING', 'IN_PROGRESS', 'SUCCESS', 'FAILED', 'ROLLED_BACK')),
        alembic_operations jsonb not null default '[]'::jsonb,
        executed_sql text not null default '',
        rollback_sql text not null default '',
        started_at timestamptz,
        completed_at timestamptz,
        duration_ms integer,
        parent_operation char(12),
        error_message text,
        created_at timestamptz not null default now(),
        created_by integer
      )`,
      sql`create index schema_operations_datatable on ${schema}.schema_operations (datatable_id, created_at)`,
    ],
  },
];
