// The answers of the role endpoints: app roles and site roles as the spec lists their fields.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';
import type { AppRoleRow, SiteRoleRow } from './role-repository.ts';

export function isoOf(value: Date | string | null): string | null {
  if (value === null) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

// The wire shapes of the records below, for the OpenAPI document and the test-time response check.
export const appRoleSchema = lazySchema(() =>
  z
    .strictObject({
      id: z.number().int(),
      name: z.string(),
      slug: z.string(),
      description: z.string(),
      is_parent: z.boolean(),
      app_id: z.number().int(),
      app_name: z.string(),
      app_slug: z.string(),
      parent_id: z.number().int().nullable(),
      parent_role_slug: z.string().nullable(),
      permissions: z.array(z.string()),
      created_at: z.string().nullable(),
      updated_at: z.string().nullable(),
    })
    .meta({ id: 'AppRole' }),
);

export const siteRoleSchema = lazySchema(() =>
  z
    .strictObject({
      id: z.number().int(),
      name: z.string(),
      slug: z.string(),
      description: z.string(),
      created_at: z.string().nullable(),
      updated_at: z.string().nullable(),
      app_roles: z.array(appRoleSchema()),
    })
    .meta({ id: 'SiteRole' }),
);

/** The `{message, detail}` answer of a delete or a membership change. */
export const roleMessageSchema = lazySchema(() => z.strictObject({ message: z.string(), detail: z.string() }));

/** A bulk assign or revoke: `{message}` when every pair was done, else the failures (membership-routes.ts). */
export const bulkRolesAnswerSchema = lazySchema(() =>
  z
    .union([
      z.strictObject({ message: z.string() }),
      z.strictObject({
        status: z.enum(['partial_success', 'error']),
        message: z.string(),
        data: z.strictObject({ failures: z.array(z.strictObject({ username: z.string(), role: z.string(), error: z.string() })) }),
      }),
    ])
    .meta({ id: 'BulkRolesAnswer' }),
);

/** A holder of a role, as listRoleUsersRoute lists them. */
export const roleUserSchema = lazySchema(() =>
  z
    .strictObject({
      username: z.string(),
      // Null where the caller may not read it (the members list's rule).
      email: z.string().nullable(),
      first_name: z.string(),
      last_name: z.string(),
      expires_at: z.string().nullable(),
    })
    .meta({ id: 'RoleUser' }),
);

/** One of a user's role memberships, as listUserRolesRoute lists them. */
export const userRoleSchema = lazySchema(() =>
  z
    .strictObject({
      membership_type: z.enum(['app_role', 'site_role']),
      role: z.strictObject({ id: z.number().int(), name: z.string(), slug: z.string() }),
      app_slug: z.string().nullable(),
      expires_at: z.string().nullable(),
      is_expired: z.boolean(),
      assigned_by: z.string().nullable().meta({ description: 'Username of who assigned it' }),
      created_at: z.string().nullable(),
    })
    .meta({ id: 'UserRole' }),
);

export function appRoleRecord(row: AppRoleRow) {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    is_parent: row.is_parent,
    app_id: row.app_id,
    app_name: row.app_name,
    app_slug: row.app_slug,
    parent_id: row.parent_id,
    parent_role_slug: row.parent_role_slug,
    permissions: row.permissions,
    created_at: isoOf(row.created_at),
    updated_at: isoOf(row.updated_at),
  };
}

export function siteRoleRecord(row: SiteRoleRow, appRoles: readonly AppRoleRow[]) {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    created_at: isoOf(row.created_at),
    updated_at: isoOf(row.updated_at),
    app_roles: appRoles.map(appRoleRecord),
  };
}
