// Who may do what with a site's roles (the site permissions of the spec). Reaching the site lets a
// caller read roles and their own memberships; defining roles (app roles, site roles) needs
// manage_site; assigning them and reading who holds them needs manage_site_users. admin_site and
// the managers of the site's organization hold both (shared/tenancy/site-access.ts). An assigner
// who is not unrestricted (a superuser, a manager of the organization, an admin_site holder) assigns
// only to others and only roles granting nothing they do not hold themselves, so a
// manage_site_users holder cannot lift themselves or anyone else above their own standing.
// Defining roles counts only the caller's own site permissions, never what a role grants in an app
// (a role holder would otherwise raise the roles they hold), and an editor who is not unrestricted
// neither changes a role they hold nor makes a role grant a permission they do not hold themselves.
import type { Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { PermissionDeniedError } from '#shared/errors.ts';
import {
  effectiveSitePermissions,
  holdsSitePermission,
  managesSites,
  ownSitePermissions,
  siteStanding,
  type SiteStanding,
} from '#shared/tenancy/site-access.ts';
import type { Tenant } from '#shared/tenancy/tenant.ts';

export async function assertDefinesRoles(db: Queryable, site: Tenant, caller: Principal): Promise<void> {
  if (caller.isSuperuser) return;
  if (!ownSitePermissions(caller, await siteStanding(db, site, caller.id)).includes('manage_site')) {
    throw new PermissionDeniedError('Creating, changing and deleting roles needs manage_site or admin_site on this site itself.');
  }
}

export async function assertAssignsRoles(db: Queryable, site: Tenant, caller: Principal): Promise<void> {
  if (caller.isSuperuser) return;
  if (!holdsSitePermission(caller, await siteStanding(db, site, caller.id), 'manage_site_users')) {
    throw new PermissionDeniedError('Assigning roles and reading their users needs manage_site_users or admin_site on this site.');
  }
}

/** How far an assigner reaches: everything, or only what they hold, and never themselves. */
export interface AssignerReach {
  unrestricted: boolean;
  callerId: number;
  /** The site permissions the caller holds (any of them includes view_site: they can see the site). */
  holds: ReadonlySet<string>;
}

/**
 * The reach `held` (site permissions) gives: everything for superusers, the organization's site
 * managers and `admin_site` holders; else those permissions, any of which lets the caller see the site.
 */
function reachOf(
  caller: Principal,
  standing: SiteStanding,
  held: readonly string[],
): { unrestricted: boolean; holds: ReadonlySet<string> } {
  const unrestricted = caller.isSuperuser || managesSites(caller, standing) || held.includes('admin_site');
  return { unrestricted, holds: new Set(held.length > 0 ? [...held, 'view_site'] : held) };
}

export async function assignerReach(db: Queryable, site: Tenant, caller: Principal): Promise<AssignerReach> {
  const standing = await siteStanding(db, site, caller.id);
  return { ...reachOf(caller, standing, effectiveSitePermissions(caller, standing)), callerId: caller.id };
}

/** Why `reach` may not give a role granting `granted` to `userId`; undefined when it may. */
export function assignmentRefusal(reach: AssignerReach, userId: number, granted: readonly string[]): string | undefined {
  if (reach.unrestricted) return undefined;
  if (userId === reach.callerId) return 'You cannot assign roles to yourself.';
  const missing = granted.filter((permission) => !reach.holds.has(permission));
  return missing.length === 0 ? undefined : `This role grants ${missing.join(', ')}, which you do not hold on this site.`;
}

/** How far a role editor reaches: everything, or only roles they do not hold and permissions they hold themselves. */
export interface EditorReach {
  unrestricted: boolean;
  /** The caller's own site permissions (any of them includes view_site), never role-derived ones. */
  holds: ReadonlySet<string>;
}

export async function editorReach(db: Queryable, site: Tenant, caller: Principal): Promise<EditorReach> {
  const standing = await siteStanding(db, site, caller.id);
  return reachOf(caller, standing, ownSitePermissions(caller, standing));
}

/**
 * 403 unless `reach` may make an edit that changes a role the caller holds (`touchesHeld`) and makes
 * roles grant `granted`: an edit of a held role would raise the editor, one granting more than they
 * hold would raise every holder above the editor.
 */
export function assertEditWithinReach(reach: EditorReach, touchesHeld: boolean, granted: readonly string[]): void {
  if (reach.unrestricted) return;
  if (touchesHeld) throw new PermissionDeniedError('You cannot change a role you hold, or place a role under one you hold.');
  const missing = [...new Set(granted)].filter((permission) => !reach.holds.has(permission));
  if (missing.length > 0) throw new PermissionDeniedError(`This change grants ${missing.join(', ')}, which you do not hold on this site.`);
}
