// The rules of app roles: a tree per app. Slugs are `{app-slug}-{role-name-slug}` (unique across
// app and site roles), names are immutable, a parent is a role of the same app and never the role
// itself or one of its descendants, and a deleted role's children are removed with it or moved to
// its parent. An editor who is not unrestricted neither changes a role they hold (or places a role
// under one) nor makes a role grant a permission they do not hold themselves (role-access.ts).
import type { Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { NotFoundError, ValidationError } from '#shared/errors.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { slugFrom, uniqueSlug } from '#shared/text/slugs.ts';
import { assertDefinesRoles, assertEditWithinReach, editorReach, type EditorReach } from './role-access.ts';
import { heldRoleIds, permissionsGrantedBy } from './membership-repository.ts';
import {
  deleteAppRoles,
  descendantIds,
  findApp,
  findAppRole,
  insertAppRole,
  listAppRoles,
  lockAppRoles,
  reparentChildren,
  roleSlugsLike,
  updateAppRole,
  type AppRef,
  type AppRoleRow,
  type ListFilter,
  type Page,
} from './role-repository.ts';

export async function existingApp(db: Queryable, site: Tenant, appSlug: string): Promise<AppRef> {
  const app = await findApp(db, site, appSlug);
  if (app === undefined) throw new NotFoundError(`App "${appSlug}" not found.`);
  return app;
}

export async function existingAppRole(db: Queryable, site: Tenant, app: AppRef, slug: string): Promise<AppRoleRow> {
  const role = await findAppRole(db, site, app.id, slug);
  if (role === undefined) throw new NotFoundError(`Role "${slug}" not found in app "${app.slug}".`);
  return role;
}

export async function listRolesOfApp(db: Queryable, site: Tenant, appSlug: string, filter: ListFilter): Promise<Page<AppRoleRow>> {
  return listAppRoles(db, site, (await existingApp(db, site, appSlug)).id, filter);
}

async function parentIn(db: Queryable, site: Tenant, app: AppRef, parentSlug: string): Promise<AppRoleRow> {
  const parent = await findAppRole(db, site, app.id, parentSlug);
  if (parent === undefined) {
    throw ValidationError.forFields({ parent_role_slug: [`No role "${parentSlug}" in app "${app.slug}".`] });
  }
  return parent;
}

/** Whether the caller holds any of `roleIds` (read only for an editor who is not unrestricted). */
async function holdsAny(db: Queryable, site: Tenant, caller: Principal, reach: EditorReach, roleIds: readonly number[]): Promise<boolean> {
  if (reach.unrestricted) return false;
  const held = await heldRoleIds(db, site, caller.id);
  return roleIds.some((id) => held.appRoles.has(id));
}

export async function createAppRole(
  db: Queryable,
  site: Tenant,
  caller: Principal,
  appSlug: string,
  input: { name: string; description?: string; parent_role_slug?: string | null; permissions?: string[] },
): Promise<AppRoleRow> {
  await assertDefinesRoles(db, site, caller);
  const reach = await editorReach(db, site, caller);
  return db.transaction(async (tx) => {
    const app = await existingApp(tx, site, appSlug);
    await lockAppRoles(tx, site, app.id);
    const parentSlug = input.parent_role_slug ?? '';
    const parentId = parentSlug === '' ? null : (await parentIn(tx, site, app, parentSlug)).id;
    // A role under one the caller holds would be theirs at once.
    assertEditWithinReach(reach, parentId !== null && (await holdsAny(tx, site, caller, reach, [parentId])), input.permissions ?? []);
    const nameSlug = (await slugFrom(input.name, 100)) || 'role';
    const slug = await uniqueSlug(`${app.slug}-${nameSlug}`, (base) => roleSlugsLike(tx, site, base), { maxLength: 255 });
    await insertAppRole(tx, site, {
      appId: app.id,
      name: input.name,
      slug,
      description: input.description ?? '',
      parentId,
      permissions: input.permissions ?? [],
    });
    return (await findAppRole(tx, site, app.id, slug))!;
  });
}

export async function changeAppRole(
  db: Queryable,
  site: Tenant,
  caller: Principal,
  appSlug: string,
  slug: string,
  input: { description?: string; parent_role_slug?: string | null; permissions?: string[] },
): Promise<AppRoleRow> {
  await assertDefinesRoles(db, site, caller);
  const reach = await editorReach(db, site, caller);
  return db.transaction(async (tx) => {
    const app = await existingApp(tx, site, appSlug);
    await lockAppRoles(tx, site, app.id);
    const role = await existingAppRole(tx, site, app, slug);
    let parentId = role.parent_id;
    if (input.parent_role_slug === '') parentId = null;
    else if (typeof input.parent_role_slug === 'string') {
      const parent = await parentIn(tx, site, app, input.parent_role_slug);
      if (parent.id === role.id || (await descendantIds(tx, site, role.id)).includes(parent.id)) {
        throw ValidationError.forFields({ parent_role_slug: ['A role cannot be moved under itself or one of its descendants.'] });
      }
      parentId = parent.id;
    }
    const permissions = input.permissions ?? role.permissions;
    const moved = parentId !== role.parent_id;
    // New permissions reach every holder of the role; a move hands the whole subtree to the new parent's holders.
    const subtree = moved
      ? ((await permissionsGrantedBy(tx, site, [{ kind: 'app_role', id: role.id, slug: role.slug }])).get(role.slug) ?? [])
      : [];
    const granted = [...permissions.filter((permission) => moved || !role.permissions.includes(permission)), ...subtree];
    const touched = moved && parentId !== null ? [role.id, parentId] : [role.id];
    assertEditWithinReach(reach, await holdsAny(tx, site, caller, reach, touched), granted);
    await updateAppRole(tx, site, role.id, {
      description: input.description ?? role.description,
      parentId,
      permissions,
    });
    return (await findAppRole(tx, site, app.id, slug))!;
  });
}

/** Deletes a role with its descendants, or moves its children to its parent; answers how many roles went. */
export async function removeAppRole(
  db: Queryable,
  site: Tenant,
  caller: Principal,
  appSlug: string,
  slug: string,
  removeChildRoles: boolean,
): Promise<number> {
  await assertDefinesRoles(db, site, caller);
  return db.transaction(async (tx) => {
    const app = await existingApp(tx, site, appSlug);
    await lockAppRoles(tx, site, app.id);
    const role = await existingAppRole(tx, site, app, slug);
    if (removeChildRoles) return deleteAppRoles(tx, site, [role.id, ...(await descendantIds(tx, site, role.id))]);
    await reparentChildren(tx, site, role.id, role.parent_id);
    return deleteAppRoles(tx, site, [role.id]);
  });
}
