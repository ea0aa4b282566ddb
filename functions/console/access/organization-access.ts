// A caller's standing in an organization and what follows from it: who may see it, who manages it,
// and the effective organization permissions. The owner and superusers hold them all; admins and
// other managers hold all but `delete_organization`, which only the owner hands out; everyone also
// holds what the membership grants, directly or through its groups, plus their global permissions.
// The privileges endpoint, the delete check and the grant rules (grant-authority.ts) all read this.
import { and, eq, or } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import { hasPermission, type Principal } from '#shared/auth/principal.ts';
import type { Queryable } from '#shared/db/database.ts';
import { organizationMembers, organizations, type OrganizationRow } from '#shared/db/platform-schema.ts';
import { NotFoundError, PermissionDeniedError } from '#shared/errors.ts';

export const ORGANIZATION_PERMISSIONS = [
  'view_organization',
  'change_organization',
  'delete_organization',
  'manage_organization',
  'invite_members',
  'manage_sites',
] as const;

/** What an admin holds by being one (and what making someone admin hands out). */
export const ADMIN_PERMISSIONS: readonly string[] = ORGANIZATION_PERMISSIONS.filter((codename) => codename !== 'delete_organization');

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface OrganizationStanding {
  organization: OrganizationRow;
  membership?: { isAdmin: boolean; isOwner: boolean; permissions: string[] };
}

/** Finds an organization by slug or UUID with the caller's membership in it. */
export async function findOrganizationStanding(
  db: Queryable,
  slugOrUuid: string,
  userId: number,
): Promise<OrganizationStanding | undefined> {
  const match = UUID_PATTERN.test(slugOrUuid)
    ? or(eq(organizations.uuid, slugOrUuid.toLowerCase()), eq(organizations.slug, slugOrUuid))
    : eq(organizations.slug, slugOrUuid);
  const [row] = await db.query((orm) =>
    orm
      .select({
        organization: organizations,
        membership: organizationMembers,
        // What the membership's groups grant, inside this organization only.
        groupPermissions: sql<string[]>`array(
          select p.codename from platform.organization_member_groups mg
          join platform.group_permissions gp on gp.group_id = mg.group_id
          join platform.permissions p on p.id = gp.permission_id
          where mg.member_id = ${organizationMembers.id})`,
      })
      .from(organizations)
      .leftJoin(organizationMembers, and(eq(organizationMembers.organizationId, organizations.id), eq(organizationMembers.userId, userId)))
      .where(match)
      // The organization of that UUID before one whose slug reads the same (made before such slugs were refused).
      .orderBy(sql`${organizations.uuid}::text = ${slugOrUuid.toLowerCase()} desc`)
      .limit(1),
  );
  if (row === undefined) return undefined;
  const membership = row.membership;
  return {
    organization: row.organization,
    membership:
      membership === null
        ? undefined
        : {
            isAdmin: membership.isAdmin,
            isOwner: membership.isOwner,
            permissions: [...new Set([...membership.permissions, ...row.groupPermissions])],
          },
  };
}

/** Effective permissions of the caller in the organization, global ones included. */
export function organizationPermissions(principal: Principal, standing: OrganizationStanding): string[] {
  const effective = new Set(principal.permissions);
  const membership = standing.membership;
  if (principal.isSuperuser || membership?.isOwner) {
    for (const codename of ORGANIZATION_PERMISSIONS) effective.add(codename);
  } else if (managesOrganization(principal, standing)) {
    // Managers may do everything but delete (organizationForAction lets them), so they hold it.
    for (const codename of ADMIN_PERMISSIONS) effective.add(codename);
  }
  for (const codename of membership?.permissions ?? []) effective.add(codename);
  return [...effective].sort();
}

/**
 * Who may delete the organization: whoever holds `delete_organization` in it (superusers, the
 * owner, members given it by the owner, global holders). The same answer the privileges show.
 */
export function mayDeleteOrganization(principal: Principal, standing: OrganizationStanding): boolean {
  return organizationPermissions(principal, standing).includes('delete_organization');
}

export function managesOrganization(principal: Principal, standing: OrganizationStanding): boolean {
  const membership = standing.membership;
  if (principal.isSuperuser) return true;
  if (membership === undefined) return false;
  return (
    membership.isAdmin ||
    membership.isOwner ||
    hasPermission(principal, 'manage_organization') ||
    membership.permissions.includes('manage_organization')
  );
}

/**
 * The organization as the caller may see it: members and superusers see it; to anyone else it does
 * not exist (404, so slugs and UUIDs cannot be probed).
 */
export async function visibleOrganization(db: Queryable, principal: Principal, slugOrUuid: string): Promise<OrganizationStanding> {
  const standing = await findOrganizationStanding(db, slugOrUuid, principal.id);
  if (standing === undefined || (standing.membership === undefined && !principal.isSuperuser)) {
    throw new NotFoundError('Organization not found.');
  }
  return standing;
}

/** Like visibleOrganization, and the caller must manage it or hold `permission` in it. */
export async function organizationForAction(
  db: Queryable,
  principal: Principal,
  slugOrUuid: string,
  permission?: string,
): Promise<OrganizationStanding> {
  const standing = await visibleOrganization(db, principal, slugOrUuid);
  const allowed =
    managesOrganization(principal, standing) ||
    (permission !== undefined && organizationPermissions(principal, standing).includes(permission));
  if (!allowed) throw new PermissionDeniedError('You do not have permission to do this in this organization.');
  return standing;
}
