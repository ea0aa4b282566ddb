// The answers of the role endpoints: app roles and site roles as the spec lists their fields.
import type { AppRoleRow, SiteRoleRow } from './role-repository.ts';

export function isoOf(value: Date | string | null): string | null {
  if (value === null) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

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
