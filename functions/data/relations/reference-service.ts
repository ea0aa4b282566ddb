// import-reference: a name in one app for a materialized table of another app of the same site. The
// reference reads (and writes) through to its source's records; it answers as the source's table
// with `is_reference` and `source_info`. Refused: a source that is missing (another site's tables are
// not even visible here), not materialized or itself a reference, and a name the app already uses.
// A reference opens nothing: importing one needs the right to read the source app, and every read
// (write) through one needs the right to read (write) the source app, as a direct request would;
// roles held in the importing app do not count there.
import type { Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { UniqueViolationError } from '#shared/db/database-errors.ts';
import { AppError, PermissionDeniedError, ValidationError } from '#shared/errors.ts';
import { isJsonObject } from '#shared/http/json-object.ts';
import { permissionsInApp } from '#shared/tenancy/site-access.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { existingApp } from '../apps/app-service.ts';
import { assertManagesData } from '../apps/data-access.ts';
import { referenceDetail } from '../tables/table-representation.ts';
import { findReferencedTable, findTable, type DatatableRow } from '../tables/table-repository.ts';
import { readableTable } from '../tables/table-lookup.ts';
import type { TableAddress } from '../tables/table-schemas.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import { isSafeIdentifier } from '#shared/db/sql-identifiers.ts';
import { insertReference } from './reference-sql.ts';

export interface ReferenceRequest {
  source_app_slug: string;
  source_table_name: string;
  reference_name?: string;
}

const REQUEST_MEMBERS: readonly string[] = ['source_app_slug', 'source_table_name', 'reference_name'];

/** How many entries one import-reference request may carry. */
export const MAX_REFERENCES_PER_REQUEST = 100;

function requestOf(input: unknown): ReferenceRequest {
  if (!isJsonObject(input))
    throw ValidationError.forFields({ non_field_errors: ['Expected {source_app_slug, source_table_name, reference_name?}.'] });
  // Keyed by the client's member names: `__proto__` must become a key, not this object's prototype.
  const problems: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const key of Object.keys(input)) if (!REQUEST_MEMBERS.includes(key)) problems[key] = ['Unknown member.'];
  for (const key of ['source_app_slug', 'source_table_name'] as const) {
    if (typeof input[key] !== 'string' || (input[key] as string).length === 0 || (input[key] as string).length > 100)
      problems[key] = ['Required: a non-empty string.'];
  }
  const name = input.reference_name;
  if (name !== undefined && (typeof name !== 'string' || !isSafeIdentifier(name)))
    problems.reference_name = ['A table name: lower-case letters, digits and "_", at most 63 characters.'];
  if (Object.keys(problems).length > 0) throw ValidationError.forFields(problems);
  return input as unknown as ReferenceRequest;
}

/** What a direct request to an app's records needs: any site permission to read, these to write. */
const WRITES_RECORDS = ['access_site', 'manage_site', 'admin_site'];

/**
 * 403 unless the caller may read (or write) the records of `sourceAppSlug` as a direct request to
 * that app would: their site permissions, or what their roles grant in that app. Asked before the
 * app is looked up, so a caller without the right learns nothing of which apps exist.
 */
export async function assertReachesReferenceSource(
  db: Queryable,
  site: Tenant,
  caller: Principal,
  sourceAppSlug: string,
  need: 'read' | 'write',
): Promise<void> {
  const held = await permissionsInApp(db, site, caller, sourceAppSlug);
  const allowed = need === 'read' ? held.length > 0 : held.some((permission) => WRITES_RECORDS.includes(permission));
  if (!allowed)
    throw new PermissionDeniedError(
      need === 'read'
        ? `Reading the tables of app "${sourceAppSlug}" needs access to that app.`
        : `Changing records of app "${sourceAppSlug}" needs access_site, manage_site or admin_site there.`,
    );
}

/**
 * A table's definition for the reads a reference answers through to its source (schema,
 * validate_data, operation history): through a reference only for a caller who reaches the
 * source's app, as a read of its records needs.
 */
export async function readableTableFor(ctx: RequestContext, address: TableAddress): Promise<{ table: DatatableRow; name: string }> {
  const found = await readableTable(ctx.runtime.db, ctx.site, address);
  if (found.table.app_slug !== address.app_slug) {
    await assertReachesReferenceSource(ctx.runtime.db, ctx.site, ctx.user, found.table.app_slug, 'read');
  }
  return found;
}

async function importOne(
  db: Queryable,
  site: Tenant,
  caller: Principal,
  target: { id: number; slug: string; name: string },
  input: unknown,
) {
  const request = requestOf(input);
  const name = request.reference_name ?? request.source_table_name;
  await assertReachesReferenceSource(db, site, caller, request.source_app_slug, 'read');
  const sourceApp = await existingApp(db, site, request.source_app_slug).catch(() => {
    throw ValidationError.forFields({ source_app_slug: [`No app "${request.source_app_slug}" in this site.`] });
  });
  if (sourceApp.id === target.id) throw ValidationError.forFields({ source_app_slug: ['The source must be a table of another app.'] });
  const source = await findTable(db, site, sourceApp.id, request.source_table_name);
  if (source === undefined) {
    const isReference = (await findReferencedTable(db, site, request.source_app_slug, request.source_table_name)) !== undefined;
    throw ValidationError.forFields({
      source_table_name: [
        isReference
          ? 'This table is itself a reference; reference its source instead.'
          : `No table "${request.source_table_name}" in app "${request.source_app_slug}".`,
      ],
    });
  }
  if (!source.is_materialized || !source.is_active)
    throw ValidationError.forFields({ source_table_name: [`The table "${source.name}" is not materialized.`] });
  const taken =
    (await findTable(db, site, target.id, name)) !== undefined || (await findReferencedTable(db, site, target.slug, name)) !== undefined;
  if (taken)
    throw ValidationError.forFields({ reference_name: [`The app "${target.slug}" already has a table or reference named "${name}".`] });
  try {
    await insertReference(db, site, { appId: target.id, name, sourceId: source.id, userId: caller.id });
  } catch (error) {
    if (error instanceof UniqueViolationError)
      throw ValidationError.forFields({ reference_name: [`The app "${target.slug}" already has a reference named "${name}".`] });
    throw error;
  }
  return referenceDetail(source, target, name);
}

/** One entry: 201 with the reference; an array: 207 with every entry's outcome, all tried. */
export async function importReferences(db: Queryable, site: Tenant, caller: Principal, targetSlug: string, body: unknown) {
  await assertManagesData(db, site, caller);
  const target = await existingApp(db, site, targetSlug);
  if (!Array.isArray(body)) return { single: true as const, reference: await importOne(db, site, caller, target, body) };
  const references: unknown[] = [];
  const errors: Array<{ index: number; reference: unknown; error: string }> = [];
  for (const [index, entry] of body.entries()) {
    try {
      references.push(await importOne(db, site, caller, target, entry));
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      const detail =
        error.fieldErrors === undefined
          ? error.message
          : Object.entries(error.fieldErrors)
              .map(([field, messages]) => `${field}: ${messages.join(' ')}`)
              .join('; ');
      errors.push({ index, reference: entry, error: detail });
    }
  }
  return { single: false as const, answer: { created: references.length, failed: errors.length, references, errors } };
}
