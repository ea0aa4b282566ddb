// Who may hand out what in an organization, whether by changing a membership or by an invitation:
// - nobody grants or takes a permission they do not hold themselves (superusers and the owner
//   excepted), and only the owner or a superuser hands out `delete_organization`; the admin flag
//   hands out what admins hold (ADMIN_PERMISSIONS), a group what its organization permissions say;
// - site permissions need the authority of the user↔site endpoints over that site
//   (manage_site_users there, which the organization's site managers hold), and the same first
//   rule: nobody grants or takes a site permission they do not hold on that site (the
//   organization's site managers, admin_site holders and superusers hold them all); the user↔site
//   endpoints and invitations both judge grants here;
// - users may view their own membership but not change it (the spec's rule for site assignments),
//   the owner and superusers excepted; nobody but a superuser changes the owner's membership, and
//   the owner always stays an admin.
import { randomUUID } from 'node:crypto';
import { principalOfRow, principalStatement, type PrincipalRow } from '#shared/auth/authenticate.ts';
import type { Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { BusinessLogicError, NotFoundError, PermissionDeniedError } from '#shared/errors.ts';
import { siteForAction, type VisibleSite } from '../sites/site-lookup.ts';
import { findUserById } from '../organizations/member-repository.ts';
import { findOrganizationStanding, organizationPermissions, type OrganizationStanding } from './organization-access.ts';

const OWNER_STAYS_ADMIN = 'The owner of an organization always stays one of its admins.';

/** Of `codenames`, those the caller may not grant or take in this organization. */
export function ungrantablePermissions(caller: Principal, standing: OrganizationStanding, codenames: readonly string[]): string[] {
  if (caller.isSuperuser || standing.membership?.isOwner === true) return [];
  const held = organizationPermissions(caller, standing);
  return [...new Set(codenames)].filter((codename) => codename === 'delete_organization' || !held.includes(codename)).sort();
}

export function assertMayGrant(caller: Principal, standing: OrganizationStanding, codenames: readonly string[]): void {
  const lacking = ungrantablePermissions(caller, standing, codenames);
  if (lacking.includes('delete_organization')) {
    throw new PermissionDeniedError('Only the owner or a superuser may grant or take delete_organization.');
  }
  if (lacking.length > 0) {
    throw new PermissionDeniedError(`You may not grant or take permissions you do not hold: ${lacking.join(', ')}.`);
  }
}

/** What a change of a membership touches, for the owner and self rules. */
export interface MembershipChange {
  target: { userId: number; isOwner: boolean };
  /** The change takes the target's admin flag away or removes the membership. */
  demotes: boolean;
}

export function assertMayChangeMembership(caller: Principal, standing: OrganizationStanding, change: MembershipChange): void {
  const { target } = change;
  if (target.isOwner && change.demotes) throw new BusinessLogicError(OWNER_STAYS_ADMIN);
  if (caller.isSuperuser) return;
  if (target.isOwner && caller.id !== target.userId) {
    throw new PermissionDeniedError("Only the owner or a superuser may change the owner's membership.");
  }
  if (caller.id === target.userId && standing.membership?.isOwner !== true) {
    throw new PermissionDeniedError('You may view your own membership but not change it.');
  }
}

/** Of `codenames`, the site permissions the caller may not grant or take on `site`: those they do not hold there. */
export function ungrantableSitePermissions(site: VisibleSite, codenames: readonly string[]): string[] {
  const held: readonly string[] = site.permissions;
  return [...new Set(codenames)].filter((codename) => !held.includes(codename)).sort();
}

export function assertMayGrantOnSite(site: VisibleSite, codenames: readonly string[]): void {
  const lacking = ungrantableSitePermissions(site, codenames);
  if (lacking.length > 0) {
    throw new PermissionDeniedError(
      `You may not grant or take site permissions you do not hold on site "${site.site.slug}": ${lacking.join(', ')}.`,
    );
  }
}

/** The site as the caller may grant on it (the user↔site endpoints' authority), or undefined. */
async function siteToGrantOn(db: Queryable, caller: Principal, siteSlug: string): Promise<VisibleSite | undefined> {
  try {
    return await siteForAction(db, caller, siteSlug, ['manage_site_users']);
  } catch (error) {
    if (error instanceof NotFoundError || error instanceof PermissionDeniedError) return undefined;
    throw error;
  }
}

/** Of `codenames`, those the caller may grant on the site now: none without authority over its users. */
export async function grantableOnSite(db: Queryable, caller: Principal, siteSlug: string, codenames: readonly string[]): Promise<string[]> {
  const site = await siteToGrantOn(db, caller, siteSlug);
  if (site === undefined) return [];
  const lacking = ungrantableSitePermissions(site, codenames);
  return codenames.filter((codename) => !lacking.includes(codename));
}

/** 403 unless the caller may grant each site's permissions, naming the sites or the permissions refused. */
export async function assertMayGrantOnSites(
  db: Queryable,
  caller: Principal,
  grants: ReadonlyArray<{ slug: string; permissions: readonly string[] }>,
): Promise<void> {
  const refused: string[] = [];
  const sites = new Map<string, VisibleSite>();
  for (const slug of new Set(grants.map((grant) => grant.slug))) {
    const site = await siteToGrantOn(db, caller, slug);
    if (site === undefined) refused.push(slug);
    else sites.set(slug, site);
  }
  if (refused.length > 0) {
    throw new PermissionDeniedError(`You may not grant permissions on site(s): ${refused.sort().join(', ')}.`);
  }
  for (const grant of grants) assertMayGrantOnSite(sites.get(grant.slug)!, grant.permissions);
}

/** A user as a principal with their current global permissions, or undefined when they cannot act. */
async function principalOfUser(db: Queryable, userId: number): Promise<Principal | undefined> {
  const user = await findUserById(db, userId);
  if (user === undefined) return undefined;
  // No token is involved: a fresh id makes the statement's revocation test false.
  const [row] = await db.rows<PrincipalRow>(principalStatement(user.uuid, randomUUID()));
  if (row === undefined || !row.is_active || row.is_deleted) return undefined;
  return principalOfRow(row, { tokenId: '', expiresAt: new Date(0) });
}

export interface GrantingAuthority {
  principal: Principal;
  standing: OrganizationStanding;
}

/**
 * The authority someone holds now in the organization (an inviter, when their invitation is
 * accepted): undefined when they are gone, disabled, or neither a member nor a superuser.
 */
export async function currentAuthority(
  db: Queryable,
  userId: number | null,
  organizationSlug: string,
): Promise<GrantingAuthority | undefined> {
  if (userId === null) return undefined;
  const principal = await principalOfUser(db, userId);
  if (principal === undefined) return undefined;
  const standing = await findOrganizationStanding(db, organizationSlug, principal.id);
  if (standing === undefined || (standing.membership === undefined && !principal.isSuperuser)) return undefined;
  return { principal, standing };
}
