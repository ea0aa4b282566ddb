// The versioned template of a tenant schema. Every site's schema is built from these migrations in
// order and later versions are applied to every existing site schema on start and at deploy. Never
// edit a released version: add the next one.
import type { SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';

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
  {
    version: 4,
    name: 'storage buckets and objects',
    statements: (schema) => [
      // `storage_provider` picks the store of a bucket's bytes; objects copy only between buckets of
      // the same provider. Apps are only soft-deleted, and a bucket must be emptied through the API
      // (which removes its files), so nothing cascades here.
      sql`create table ${schema}.buckets (
        id serial primary key,
        uuid uuid not null unique default gen_random_uuid(),
        app_id integer not null references ${schema}.apps (id) on delete restrict,
        name varchar(255) not null,
        slug varchar(100) not null,
        visibility varchar(10) not null default 'private' check (visibility in ('private', 'public')),
        file_size_limit bigint not null default 52428800 check (file_size_limit > 0),
        allowed_mime_types text[] not null default '{}',
        app_category varchar(20) not null check (app_category in ('assets', 'attachments')),
        storage_provider varchar(30) not null default 'object_store'
          check (storage_provider in ('object_store', 'document_library')),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        created_by integer,
        modified_by integer,
        unique (app_id, slug)
      )`,
      sql`create index buckets_app_visibility on ${schema}.buckets (app_id, visibility)`,
      sql`create index buckets_app_category on ${schema}.buckets (app_id, app_category)`,
      // `storage_key` is the service's own opaque key of the bytes, never the client's path; a
      // replaced upload gets a new key. `pending` rows are uploads still on their way (presigned
      // flow): no list, search or download sees them.
      sql`create table ${schema}.objects (
        id serial primary key,
        uuid uuid not null unique default gen_random_uuid(),
        bucket_id integer not null references ${schema}.buckets (id) on delete restrict,
        filename varchar(255) not null,
        file_path varchar(1024) not null,
        storage_key varchar(512) not null unique,
        size bigint not null default 0 check (size >= 0),
        mimetype varchar(255) not null,
        etag varchar(200) not null default '',
        metadata jsonb not null default '{}'::jsonb,
        visibility varchar(10) check (visibility in ('private', 'public')),
        upload_status varchar(10) not null default 'complete' check (upload_status in ('complete', 'pending')),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        created_by integer,
        modified_by integer,
        unique (bucket_id, file_path)
      )`,
      // The list filters and orderings: prefix matches (text_pattern_ops serves LIKE 'p%' under any
      // collation), sizes, dates, types and owners, each within one bucket.
      sql`create index objects_bucket_path_prefix on ${schema}.objects (bucket_id, file_path text_pattern_ops)`,
      sql`create index objects_bucket_created on ${schema}.objects (bucket_id, created_at)`,
      sql`create index objects_bucket_updated on ${schema}.objects (bucket_id, updated_at)`,
      sql`create index objects_bucket_size on ${schema}.objects (bucket_id, size)`,
      sql`create index objects_bucket_filename on ${schema}.objects (bucket_id, filename)`,
      sql`create index objects_bucket_mimetype on ${schema}.objects (bucket_id, mimetype)`,
      sql`create index objects_bucket_owner on ${schema}.objects (bucket_id, created_by)`,
      // Stored bytes no record points at any more (a replaced upload, a deleted object): written in
      // the transaction that drops the reference, removed from storage after it commits. A row that
      // outlives a storage failure is retried by later deletes in its bucket and by bucket delete,
      // so bytes are never orphaned. No foreign key: the bucket may be gone before a retry.
      sql`create table ${schema}.object_discards (
        id bigserial primary key,
        bucket_id integer not null,
        storage_key varchar(512) not null,
        created_at timestamptz not null default now()
      )`,
      sql`create index object_discards_bucket on ${schema}.object_discards (bucket_id, id)`,
    ],
  },
  {
    version: 5,
    name: 'pending uploads beside the object at their path',
    statements: (schema) => [
      // A presigned upload is a `pending` row until its bytes are checked; it may target a path an
      // object already holds (a replacement), so only complete objects own their path.
      sql`alter table ${schema}.objects drop constraint objects_bucket_id_file_path_key`,
      sql`create unique index objects_bucket_path_complete on ${schema}.objects (bucket_id, file_path)
        where upload_status = 'complete'`,
      // Finding a bucket's pending uploads that were never completed, oldest first.
      sql`create index objects_bucket_pending on ${schema}.objects (bucket_id, created_at) where upload_status = 'pending'`,
    ],
  },
  {
    version: 6,
    name: 'no pattern CHECKs on materialized tables',
    statements: (schema) => [
      // Tables materialized before user patterns ran only on the linear-time engine (issue 12) carry
      // `CHECK (col ~ '^(?:<pattern>)$')`, which PostgreSQL's backtracking engine runs on every write.
      // The app checks those patterns on every write path now; the CHECKs go. The fixed yearmonth
      // CHECK (`'^\d{4}-...'`) is not a user pattern and stays. DDL takes no parameters, and the
      // schema is a quoted identifier from the site record, so it is written into the block's text.
      sql`do $migration$
        declare c record;
        begin
          for c in
            select con.conname, cl.relname
            from pg_constraint con join pg_class cl on cl.oid = con.conrelid
            where cl.relnamespace = '${schema}'::regnamespace and con.contype = 'c'
              and (pg_get_constraintdef(con.oid) like '%~ ''^(?:%' or pg_get_constraintdef(con.oid) like '%~ E''^(?:%')
          loop
            execute format('alter table %s.%I drop constraint %I', '${schema}'::regnamespace, c.relname, c.conname);
          end loop;
        end
      $migration$`,
    ],
  },
  {
    version: 7,
    name: 'schema migrations: their plan, base and target, and one running migration per table',
    statements: (schema) => [
      // What a migration's tasks (run by a state machine, possibly in another process) need to carry
      // it out and to roll it back: the schema before and after, the base hash the plan was made on,
      // and the plan's steps with their phases. `error_code` keeps the failure's kind for the answer;
      // `applied_at` is written in the transaction that changes the table, so a failure after it is
      // known to have come after the change committed.
      sql`alter table ${schema}.schema_operations
        add column base_schema_hash char(64),
        add column target_schema_hash char(64),
        add column previous_schema jsonb,
        add column target_schema jsonb,
        add column steps jsonb not null default '[]'::jsonb,
        add column error_code varchar(40),
        add column applied_at timestamptz,
        add column rolled_back_at timestamptz,
        add column tombstones_swept_at timestamptz`,
      // The migration lock between the state machine's steps: at most one running migration per table.
      sql`create unique index schema_operations_one_running on ${schema}.schema_operations (datatable_id)
        where status = 'IN_PROGRESS'`,
      // Whether a text value casts to a type, for the preflight of a type change on PostgreSQL 15
      // (16 has pg_input_is_valid). The type name comes only from the planner's closed list.
      sql`create function ${schema}.tessera_castable(value text, type_name text) returns boolean
        language plpgsql immutable as $$
        begin
          execute format('select %L::%s', value, type_name);
          return true;
        exception when others then
          return false;
        end $$`,
    ],
  },
  {
    version: 8,
    name: 'app roles, site roles and role memberships',
    statements: (schema) => [
      // A tree per app: a parent is a role of the same app (checked by the service, which also
      // refuses cycles); deleting a parent is the service's work (re-parent or remove children).
      sql`create table ${schema}.app_roles (
        id serial primary key,
        app_id integer not null references ${schema}.apps (id) on delete cascade,
        name varchar(100) not null,
        slug varchar(255) not null unique,
        description varchar(1000) not null default '',
        parent_id integer references ${schema}.app_roles (id),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (app_id, name)
      )`,
      sql`create index app_roles_parent on ${schema}.app_roles (parent_id)`,
      sql`create table ${schema}.site_roles (
        id serial primary key,
        name varchar(100) not null unique,
        slug varchar(255) not null unique,
        description varchar(1000) not null default '',
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`,
      sql`create table ${schema}.site_role_app_roles (
        site_role_id integer not null references ${schema}.site_roles (id) on delete cascade,
        app_role_id integer not null references ${schema}.app_roles (id) on delete cascade,
        primary key (site_role_id, app_role_id)
      )`,
      // A membership links a platform user to exactly one role; hard-deleted with its role.
      sql`create table ${schema}.role_memberships (
        id serial primary key,
        user_id integer not null,
        app_role_id integer references ${schema}.app_roles (id) on delete cascade,
        site_role_id integer references ${schema}.site_roles (id) on delete cascade,
        expires_at timestamptz,
        assigned_by integer,
        created_at timestamptz not null default now(),
        check ((app_role_id is null) <> (site_role_id is null))
      )`,
      sql`create unique index role_memberships_app_role on ${schema}.role_memberships (app_role_id, user_id) where app_role_id is not null`,
      sql`create unique index role_memberships_site_role on ${schema}.role_memberships (site_role_id, user_id) where site_role_id is not null`,
      sql`create index role_memberships_user on ${schema}.role_memberships (user_id)`,
    ],
  },
  {
    version: 9,
    name: "the site's own sign-in providers",
    statements: (schema) => [
      // The same columns as platform.social_apps: a tenant host's social apps are these.
      sql`create table ${schema}.social_apps (
        id serial primary key,
        provider varchar(50) not null,
        provider_id varchar(100) not null default '',
        name varchar(255) not null,
        client_id varchar(255) not null,
        secret text not null,
        key text not null default '',
        settings jsonb not null default '{}',
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`,
      sql`create unique index social_apps_login_name on ${schema}.social_apps ((coalesce(nullif(provider_id, ''), provider)))`,
      sql`create table ${schema}.social_accounts (
        id serial primary key,
        user_id integer not null,
        social_app_id integer not null references ${schema}.social_apps (id),
        uid varchar(255) not null,
        created_at timestamptz not null default now(),
        unique (social_app_id, uid)
      )`,
      sql`create index social_accounts_user on ${schema}.social_accounts (user_id)`,
    ],
  },
  {
    version: 11,
    name: 'references to tables of another app (import-reference)',
    statements: (schema) => [
      // A reference is a name in the target app for a materialized table of another app; its records
      // are the source's. A source with references cannot be deleted until they are.
      sql`create table ${schema}.datatable_references (
        id serial primary key,
        app_id integer not null references ${schema}.apps (id) on delete cascade,
        name varchar(63) not null,
        source_table_id integer not null references ${schema}.datatables (id) on delete restrict,
        created_at timestamptz not null default now(),
        created_by integer,
        unique (app_id, name)
      )`,
      sql`create index datatable_references_source on ${schema}.datatable_references (source_table_id)`,
    ],
  },
  {
    version: 12,
    name: 'app role permissions and sealed sign-in secrets',
    statements: (schema) => [
      // What holding an app role lets a user do in the role's app (functions/roles/role-grants.ts);
      // the service checks the names too, the CHECK keeps any other writer to the same list.
      sql`alter table ${schema}.app_roles add column permissions text[] not null default '{}'
        check (permissions <@ array['view_site', 'access_site', 'manage_site']::text[])`,
      // As platform.social_apps (migration 0006): the secret sealed with the secrets key; start-up
      // seals rows written before and empties their plaintext.
      sql`alter table ${schema}.social_apps add column secret_sealed jsonb`,
    ],
  },
  {
    version: 14,
    name: 'the dialect of the Table Schema patterns each table was saved with',
    statements: (schema) => [
      // Table Schema patterns are XML Schema regular expressions from now on (issue 13). Schemas saved
      // before were read as JavaScript's, and many such patterns mean something else in XML Schema's
      // dialect (\w takes no "_" there, \s no U+00A0) or nothing at all (`(?:`): those tables keep
      // JavaScript's reading, marked here, until their schema is saved again. Schemas with no
      // pattern have nothing to keep.
      sql`alter table ${schema}.datatables add column pattern_dialect varchar(10) not null default 'xsd'
        constraint datatables_pattern_dialect check (pattern_dialect in ('xsd', 'ecmascript'))`,
      sql`update ${schema}.datatables set pattern_dialect = 'ecmascript'
        where jsonb_path_exists(json_schema, '$.fields[*].constraints.pattern')`,
      // A rollback restores the schema before a migration together with the dialect it was read in.
      sql`alter table ${schema}.schema_operations add column previous_pattern_dialect varchar(10) not null default 'xsd'`,
      sql`update ${schema}.schema_operations set previous_pattern_dialect = 'ecmascript'
        where previous_schema is not null and jsonb_path_exists(previous_schema, '$.fields[*].constraints.pattern')`,
    ],
  },
  {
    version: 15,
    name: 'frontend workers and their builds; functions, invocations and event subscribers',
    statements: (schema) => [
      // full_domain is also claimed in platform.hosted_domains, which keeps it unique across sites.
      sql`create table ${schema}.frontend_workers (
        id serial primary key,
        slug varchar(100) not null unique,
        name varchar(255) not null,
        subdomain varchar(63) not null,
        is_internal boolean not null default true,
        domain varchar(253),
        full_domain varchar(253) not null unique,
        app_id integer references ${schema}.apps (id) on delete set null,
        active_build_uuid uuid,
        created_by integer,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`,
      // files lists the stored paths of the build, so a delete can name every key it owns.
      sql`create table ${schema}.frontend_worker_builds (
        id serial primary key,
        uuid uuid not null unique default gen_random_uuid(),
        worker_id integer not null references ${schema}.frontend_workers (id) on delete cascade,
        file_count integer not null,
        total_bytes bigint not null,
        files jsonb not null,
        created_by integer,
        created_at timestamptz not null default now()
      )`,
      sql`create index frontend_worker_builds_worker on ${schema}.frontend_worker_builds (worker_id, created_at)`,
      // signing_secret keys the HMAC of every webhook call; the function's owner reads it to verify them.
      sql`create table ${schema}.functions (
        id serial primary key,
        app_id integer not null references ${schema}.apps (id) on delete cascade,
        name varchar(255) not null,
        slug varchar(100) not null,
        execution_mode varchar(20) not null default 'webhook',
        webhook_url text not null,
        signing_secret varchar(100) not null,
        timeout_seconds integer not null default 300,
        is_active boolean not null default true,
        created_by integer,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (app_id, slug)
      )`,
      sql`create table ${schema}.function_invocations (
        id serial primary key,
        invocation_id uuid not null unique,
        task_id varchar(100) not null,
        function_id integer not null references ${schema}.functions (id) on delete cascade,
        event varchar(100) not null,
        status varchar(20) not null,
        attempts integer not null default 0,
        started_at timestamptz,
        completed_at timestamptz,
        error text,
        created_at timestamptz not null default now()
      )`,
      sql`create index function_invocations_function on ${schema}.function_invocations (function_id, created_at)`,
      sql`create table ${schema}.event_subscribers (
        id serial primary key,
        event varchar(100) not null,
        function_id integer not null references ${schema}.functions (id) on delete cascade,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (event, function_id)
      )`,
    ],
  },
  {
    version: 16,
    name: 'sealed function signing secrets',
    statements: (schema) => [
      // As social_apps.secret_sealed (migration 12): the signing secret sealed with the secrets key
      // (shared/events/signing-secrets.ts); start-up seals rows written before and empties their
      // plaintext, which new rows never hold.
      sql`alter table ${schema}.functions add column signing_secret_sealed jsonb`,
    ],
  },
];
