// The rules of the user↔site relations, both directions:
// - superusers manage any assignment; site managers of an organization (admins, owners,
//   manage_organization and manage_sites holders) manage assignments on its sites, and so do holders
//   of manage_site_users or admin_site on that one site;
// - nobody grants or takes a site permission they do not hold on that site
//   (access/grant-authority.ts, the organization's rule): a manage_site_users holder hands out and
//   takes away only what they hold themselves;
// - users may view their own assignments but not change them;
// - a user can only be given a site of an organization they are a member of: anything else is a
//   cross-organization assignment and is denied;
// - a site the caller cannot access does not exist for them (404).
// Permissions default to `view_site`. PUT replaces atomically, within what the caller manages.
import type { Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { NotFoundError, PermissionDeniedError } from '#shared/errors.ts';
import type { PageRequest } from '#shared/http/pagination.ts';
import type { SitePermission } from '#shared/tenancy/site-access.ts';
import { assertMayGrantOnSite } from '../access/grant-authority.ts';
import { siteForAction, visibleSite, type VisibleSite } from './site-lookup.ts';
import type { SiteScope } from './site-scope-sql.ts';
import type { SiteUsersBody, UserSitesBody, UserSitesQuery, SiteUsersQuery } from './site-schemas.ts';
import {
  countingPermissionsOfUser,
  countingPermissionsOnSite,
  findRelationUsers,
  insertGrants,
  membersAmong,
  revokeSiteUsers,
  revokeUserSites,
  sharesManagedOrganization,
  sitesOfUser,
  usersOfSite,
  type Grant,
  type RelationUser,
} from './site-user-repository.ts';

export interface RelationPorts {
  db: Queryable;
}

const DEFAULT_PERMISSIONS: SitePermission[] = ['view_site'];
/** What the answer of a change shows: the resulting assignments, first page of a generous size. */
const RESULT_PAGE: PageRequest = { page: 1, pageSize: 500 };

function merged<T extends { permissions?: SitePermission[] }>(entries: T[], key: (entry: T) => string): Map<string, SitePermission[]> {
  const byKey = new Map<string, Set<SitePermission>>();
  for (const entry of entries) {
    const set = byKey.get(key(entry)) ?? new Set<SitePermission>();
    for (const codename of entry.permissions === undefined || entry.permissions.length === 0 ? DEFAULT_PERMISSIONS : entry.permissions) {
      set.add(codename);
    }
    byKey.set(key(entry), set);
  }
  return new Map([...byKey].map(([name, set]) => [name, [...set].sort()]));
}

/** What a change grants or takes: the permissions in one of `before` and `after` but not both. */
function changedPermissions(before: readonly string[], after: readonly string[]): string[] {
  return [...before.filter((codename) => !after.includes(codename)), ...after.filter((codename) => !before.includes(codename))];
}

/** The permissions after a change: `wanted` beside what was held (add), or in its place (replace). */
function afterChange(before: readonly string[], wanted: readonly string[], mode: 'add' | 'replace'): string[] {
  return mode === 'add' ? [...new Set([...before, ...wanted])] : [...wanted];
}

function assertNotSelf(caller: Principal, target: { id: number }): void {
  if (caller.id === target.id && !caller.isSuperuser) {
    throw new PermissionDeniedError('You may view your own site permissions but not change them.');
  }
}

function crossOrganization(username: string, siteSlug: string): PermissionDeniedError {
  return new PermissionDeniedError(
    `User "${username}" is not a member of the organization of site "${siteSlug}"; cross-organization assignment is denied.`,
  );
}

// ---- user → sites ----------------------------------------------------------------------------

/** The target user as the caller may see their site assignments; anyone else does not exist (404). */
async function relationTarget(ports: RelationPorts, caller: Principal, identifier: string): Promise<RelationUser> {
  const [target] = await findRelationUsers(ports.db, [identifier]);
  if (target === undefined) throw new NotFoundError('User not found.');
  if (caller.isSuperuser || caller.id === target.id) return target;
  const shares = await sharesManagedOrganization(ports.db, target.id, caller);
  if (!shares) throw new NotFoundError('User not found.');
  return target;
}

/** Self and superusers see every assignment; managers those on the sites whose users they manage. */
function viewScope(caller: Principal, target: RelationUser): SiteScope {
  if (caller.isSuperuser || caller.id === target.id) return { sites: 'every' };
  return { sites: 'users-managed', caller };
}

export async function listUserSites(ports: RelationPorts, caller: Principal, username: string, query: UserSitesQuery, page: PageRequest) {
  const target = await relationTarget(ports, caller, username);
  return sitesOfUser(ports.db, target.id, {
    scope: viewScope(caller, target),
    search: query.search,
    name: query.name,
    nameContains: query.name__contains,
    page,
  });
}

/** Each named site, visible to the caller, whose users the caller manages, in an organization of the target. */
async function sitesForAssignment(
  ports: RelationPorts,
  caller: Principal,
  target: RelationUser,
  slugs: string[],
  requireMembership: boolean,
): Promise<Map<string, VisibleSite>> {
  const found = new Map<string, VisibleSite>();
  for (const slug of new Set(slugs)) {
    let site: VisibleSite;
    try {
      site = await siteForAction(ports.db, caller, slug, ['manage_site_users']);
    } catch (error) {
      if (error instanceof NotFoundError) throw new NotFoundError(`Site "${slug}" not found.`);
      throw error;
    }
    if (requireMembership && (await membersAmong(ports.db, site.organization.id, [target.id])).size === 0) {
      throw crossOrganization(target.username, site.site.slug);
    }
    found.set(slug, site);
  }
  return found;
}

export async function assignUserSites(
  ports: RelationPorts,
  caller: Principal,
  username: string,
  body: UserSitesBody,
  mode: 'add' | 'replace',
) {
  const target = await relationTarget(ports, caller, username);
  assertNotSelf(caller, target);
  const wanted = merged(body.sites, (entry) => entry.slug);
  const sites = await sitesForAssignment(ports, caller, target, [...wanted.keys()], true);
  // A PUT takes what the target holds on every site whose users the caller manages, named or not.
  const before = await countingPermissionsOfUser(
    ports.db,
    target.id,
    mode === 'replace' ? { sites: 'users-managed', caller } : { siteIds: [...sites.values()].map((site) => site.site.id) },
  );
  for (const slug of new Set([...before.keys(), ...wanted.keys()])) {
    const held = before.get(slug) ?? [];
    const changed = changedPermissions(held, afterChange(held, wanted.get(slug) ?? [], mode));
    if (changed.length === 0) continue;
    const site = sites.get(slug) ?? (await siteForAction(ports.db, caller, slug, ['manage_site_users']));
    assertMayGrantOnSite(site, changed);
  }
  const grants: Grant[] = [...wanted].map(([slug, permissions]) => ({ siteId: sites.get(slug)!.site.id, userId: target.id, permissions }));
  await ports.db.transaction(async (tx) => {
    if (mode === 'replace') await revokeUserSites(tx, target.id, { sites: 'users-managed', caller });
    await insertGrants(tx, grants);
  });
  return sitesOfUser(ports.db, target.id, { scope: viewScope(caller, target), page: RESULT_PAGE });
}

export async function removeUserSites(ports: RelationPorts, caller: Principal, username: string, slugs: string[]) {
  const target = await relationTarget(ports, caller, username);
  assertNotSelf(caller, target);
  const sites = await sitesForAssignment(ports, caller, target, slugs, false);
  const siteIds = [...sites.values()].map((site) => site.site.id);
  const before = await countingPermissionsOfUser(ports.db, target.id, { siteIds });
  for (const site of sites.values()) assertMayGrantOnSite(site, before.get(site.site.slug) ?? []);
  await ports.db.transaction(async (tx) => {
    for (const siteId of siteIds) await revokeSiteUsers(tx, siteId, { userIds: [target.id] });
  });
  return sitesOfUser(ports.db, target.id, { scope: viewScope(caller, target), page: RESULT_PAGE });
}

// ---- site → users ----------------------------------------------------------------------------

/** Managers of the site's users see everyone on it; anyone else with access sees only themselves. */
export async function listSiteUsers(ports: RelationPorts, caller: Principal, siteSlug: string, query: SiteUsersQuery, page: PageRequest) {
  const site = await visibleSite(ports.db, caller, siteSlug);
  const managesUsers = site.permissions.includes('manage_site_users');
  return usersOfSite(ports.db, site.site.id, { onlyUserId: managesUsers ? undefined : caller.id, search: query.search, page });
}

async function usersForAssignment(
  ports: RelationPorts,
  caller: Principal,
  site: VisibleSite,
  usernames: string[],
): Promise<Map<string, RelationUser>> {
  const found = await findRelationUsers(ports.db, usernames);
  const members = await membersAmong(
    ports.db,
    site.organization.id,
    found.map((user) => user.id),
  );
  const byName = new Map<string, RelationUser>();
  for (const name of new Set(usernames)) {
    const user = found.find((candidate) => candidate.username === name || candidate.uuid === name.toLowerCase());
    // An unknown username gets the same answer as a non-member, so usernames cannot be probed.
    if (user === undefined || !members.has(user.id)) throw crossOrganization(name, site.site.slug);
    assertNotSelf(caller, user);
    byName.set(name, user);
  }
  return byName;
}

export async function assignSiteUsers(
  ports: RelationPorts,
  caller: Principal,
  siteSlug: string,
  body: SiteUsersBody,
  mode: 'add' | 'replace',
) {
  const site = await siteForAction(ports.db, caller, siteSlug, ['manage_site_users']);
  const wanted = merged(body.users, (entry) => entry.username);
  const users = await usersForAssignment(ports, caller, site, [...wanted.keys()]);
  // A user named twice (by username and by UUID) gets both entries' permissions.
  const wantedById = new Map<number, string[]>();
  for (const [name, permissions] of wanted) {
    const userId = users.get(name)!.id;
    wantedById.set(userId, [...new Set([...(wantedById.get(userId) ?? []), ...permissions])]);
  }
  // The caller's own assignment is theirs to keep: only a superuser's PUT takes it.
  const keptId = caller.isSuperuser ? undefined : caller.id;
  const before = await countingPermissionsOnSite(ports.db, site.site.id, mode === 'replace' ? undefined : [...wantedById.keys()]);
  const changed = [...new Set([...before.keys(), ...wantedById.keys()])]
    .filter((userId) => userId !== keptId)
    .flatMap((userId) => {
      const held = before.get(userId) ?? [];
      return changedPermissions(held, afterChange(held, wantedById.get(userId) ?? [], mode));
    });
  assertMayGrantOnSite(site, changed);
  const grants: Grant[] = [...wantedById].map(([userId, permissions]) => ({ siteId: site.site.id, userId, permissions }));
  await ports.db.transaction(async (tx) => {
    if (mode === 'replace') await revokeSiteUsers(tx, site.site.id, { allBut: keptId });
    await insertGrants(tx, grants);
  });
  return usersOfSite(ports.db, site.site.id, { page: RESULT_PAGE });
}

export async function removeSiteUsers(ports: RelationPorts, caller: Principal, siteSlug: string, usernames: string[]) {
  const site = await siteForAction(ports.db, caller, siteSlug, ['manage_site_users']);
  const found = await findRelationUsers(ports.db, usernames);
  for (const user of found) assertNotSelf(caller, user);
  const before = await countingPermissionsOnSite(
    ports.db,
    site.site.id,
    found.map((user) => user.id),
  );
  assertMayGrantOnSite(site, [...before.values()].flat());
  await revokeSiteUsers(ports.db, site.site.id, { userIds: found.map((user) => user.id) });
  return usersOfSite(ports.db, site.site.id, { page: RESULT_PAGE });
}
