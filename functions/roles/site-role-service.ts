// The rules of site roles: flat, a globally unique name, a slug from it (unique across app and site
// roles), and a set of app roles given by slug. Deleting one removes its memberships. An editor who is
// not unrestricted neither changes a site role they hold nor links app roles granting a permission
// they do not hold themselves (role-access.ts).
import type { Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { NotFoundError, ValidationError } from '#shared/errors.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';
import { slugFrom, uniqueSlug } from '#shared/text/slugs.ts';
import { assertDefinesRoles, assertEditWithinReach, editorReach, type EditorReach } from './role-access.ts';
import { heldRoleIds, permissionsGrantedBy } from './membership-repository.ts';
import {
  appRolesBySlugs,
  appRolesOfSiteRoles,
  deleteSiteRole,
  findSiteRole,
  insertSiteRole,
  listSiteRoles,
  roleSlugsLike,
  setSiteRoleAppRoles,
  updateSiteRole,
  type AppRoleRow,
  type ListFilter,
  type Page,
  type SiteRoleRow,
} from './role-repository.ts';

export interface SiteRoleWithAppRoles {
  role: SiteRoleRow;
  appRoles: AppRoleRow[];
}

async function withAppRoles(db: Queryable, site: Tenant, roles: SiteRoleRow[]): Promise<SiteRoleWithAppRoles[]> {
  const linked = await appRolesOfSiteRoles(
    db,
    site,
    roles.map((role) => role.id),
  );
  return roles.map((role) => ({ role, appRoles: linked.filter((appRole) => appRole.site_role_id === role.id) }));
}

export async function listRolesOfSite(db: Queryable, site: Tenant, filter: ListFilter): Promise<Page<SiteRoleWithAppRoles>> {
  const page = await listSiteRoles(db, site, filter);
  return { rows: await withAppRoles(db, site, page.rows), total: page.total };
}

export async function existingSiteRole(db: Queryable, site: Tenant, slug: string): Promise<SiteRoleRow> {
  const role = await findSiteRole(db, site, slug);
  if (role === undefined) throw new NotFoundError(`Site role "${slug}" not found.`);
  return role;
}

export async function siteRoleDetail(db: Queryable, site: Tenant, slug: string): Promise<SiteRoleWithAppRoles> {
  const [detail] = await withAppRoles(db, site, [await existingSiteRole(db, site, slug)]);
  return detail!;
}

async function appRolesNamed(db: Queryable, site: Tenant, slugs: readonly string[]): Promise<AppRoleRow[]> {
  const unique = [...new Set(slugs)];
  const found = await appRolesBySlugs(db, site, unique);
  const missing = unique.filter((slug) => !found.some((role) => role.slug === slug));
  if (missing.length > 0) throw ValidationError.forFields({ role_slugs: missing.map((slug) => `No app role "${slug}".`) });
  return found;
}

/** The app roles' ids, after checking that linking `added` of them stays within the editor's reach. */
async function linkableIds(
  db: Queryable,
  site: Tenant,
  reach: EditorReach,
  roles: readonly AppRoleRow[],
  added: readonly AppRoleRow[],
  heldSiteRole: boolean,
): Promise<number[]> {
  const refs = added.map((role) => ({ kind: 'app_role' as const, id: role.id, slug: role.slug }));
  const granted = reach.unrestricted ? [] : [...(await permissionsGrantedBy(db, site, refs)).values()].flat();
  assertEditWithinReach(reach, heldSiteRole, granted);
  return roles.map((role) => role.id);
}

export async function createSiteRole(
  db: Queryable,
  site: Tenant,
  caller: Principal,
  input: { name: string; description?: string; role_slugs?: string[] },
): Promise<SiteRoleWithAppRoles> {
  await assertDefinesRoles(db, site, caller);
  const reach = await editorReach(db, site, caller);
  return db.transaction(async (tx) => {
    const roles = await appRolesNamed(tx, site, input.role_slugs ?? []);
    const ids = await linkableIds(tx, site, reach, roles, roles, false);
    const slug = await uniqueSlug((await slugFrom(input.name, 100)) || 'role', (base) => roleSlugsLike(tx, site, base), { maxLength: 255 });
    const id = await insertSiteRole(tx, site, { name: input.name, slug, description: input.description ?? '' });
    await setSiteRoleAppRoles(tx, site, id, ids);
    return siteRoleDetail(tx, site, slug);
  });
}

/** Changes name, description and app roles; the slug stays, so links to the role keep working. */
export async function changeSiteRole(
  db: Queryable,
  site: Tenant,
  caller: Principal,
  slug: string,
  input: { name?: string; description?: string; role_slugs?: string[] },
): Promise<SiteRoleWithAppRoles> {
  await assertDefinesRoles(db, site, caller);
  const reach = await editorReach(db, site, caller);
  return db.transaction(async (tx) => {
    const role = await existingSiteRole(tx, site, slug);
    const held = !reach.unrestricted && (await heldRoleIds(tx, site, caller.id)).siteRoles.has(role.id);
    const linked = input.role_slugs === undefined ? undefined : await appRolesNamed(tx, site, input.role_slugs);
    const before = linked === undefined ? [] : (await siteRoleDetail(tx, site, slug)).appRoles.map((appRole) => appRole.id);
    const ids = await linkableIds(
      tx,
      site,
      reach,
      linked ?? [],
      (linked ?? []).filter((appRole) => !before.includes(appRole.id)),
      held,
    );
    await updateSiteRole(tx, site, role.id, { name: input.name ?? role.name, description: input.description ?? role.description });
    if (linked !== undefined) await setSiteRoleAppRoles(tx, site, role.id, ids);
    return siteRoleDetail(tx, site, slug);
  });
}

export async function removeSiteRole(db: Queryable, site: Tenant, caller: Principal, slug: string): Promise<void> {
  await assertDefinesRoles(db, site, caller);
  const role = await existingSiteRole(db, site, slug);
  await deleteSiteRole(db, site, role.id);
}
