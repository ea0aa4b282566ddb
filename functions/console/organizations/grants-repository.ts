// SQL of what a membership or an accepted invitation hands out beside the membership itself:
// the membership's groups (organization_member_groups) and permissions on the organization's sites
// (site_user_permissions).
import { and, asc, eq, inArray, or } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { groupPermissions, groups, organizationMemberGroups, permissions, siteUserPermissions, sites } from '#shared/db/platform-schema.ts';

export interface GroupRef {
  id: number;
  name: string;
}

export interface SiteRef {
  id: number;
  uuid: string;
  slug: string;
  name: string;
  schemaName: string;
}

export interface SiteGrant {
  siteId: number;
  permissionIds: number[];
}

export async function findGroups(db: Queryable, ids: number[], names: string[]): Promise<GroupRef[]> {
  if (ids.length === 0 && names.length === 0) return [];
  return db.query((orm) =>
    orm
      .select({ id: groups.id, name: groups.name })
      .from(groups)
      .where(or(ids.length > 0 ? inArray(groups.id, ids) : undefined, names.length > 0 ? inArray(groups.name, names) : undefined)),
  );
}

/** Sites of the organization among the given slugs or UUIDs; others are simply not returned. */
export async function findOrganizationSites(
  db: Queryable,
  organizationId: number,
  by: { slugs?: string[]; uuids?: string[] },
): Promise<SiteRef[]> {
  const slugs = by.slugs ?? [];
  const uuids = by.uuids ?? [];
  if (slugs.length === 0 && uuids.length === 0) return [];
  return db.query((orm) =>
    orm
      .select({ id: sites.id, uuid: sites.uuid, slug: sites.slug, name: sites.name, schemaName: sites.schemaName })
      .from(sites)
      .where(
        and(
          eq(sites.organizationId, organizationId),
          or(slugs.length > 0 ? inArray(sites.slug, slugs) : undefined, uuids.length > 0 ? inArray(sites.uuid, uuids) : undefined),
        ),
      ),
  );
}

/** Permission ids by codename, restricted to one model (`site`, `organization`, `user`). */
export async function permissionIds(db: Queryable, codenames: string[], model: string): Promise<Map<string, number>> {
  if (codenames.length === 0) return new Map();
  const rows = await db.query((orm) =>
    orm
      .select({ id: permissions.id, codename: permissions.codename })
      .from(permissions)
      .where(and(inArray(permissions.codename, codenames), eq(permissions.model, model))),
  );
  return new Map(rows.map((row) => [row.codename, row.id]));
}

/** The organization permission codenames the given groups carry (what they grant inside a membership). */
export async function organizationCodenamesOfGroups(db: Queryable, groupIds: number[]): Promise<string[]> {
  if (groupIds.length === 0) return [];
  const rows = await db.query((orm) =>
    orm
      .selectDistinct({ codename: permissions.codename })
      .from(groupPermissions)
      .innerJoin(permissions, eq(permissions.id, groupPermissions.permissionId))
      .where(and(inArray(groupPermissions.groupId, groupIds), eq(permissions.model, 'organization'))),
  );
  return rows.map((row) => row.codename).sort();
}

export async function addMemberGroups(db: Queryable, memberId: number, groupIds: number[]): Promise<void> {
  if (groupIds.length === 0) return;
  await db.query((orm) =>
    orm
      .insert(organizationMemberGroups)
      .values(groupIds.map((groupId) => ({ memberId, groupId })))
      .onConflictDoNothing(),
  );
}

/** Replaces the groups of this membership only; the user's other memberships and global groups stay. */
export async function replaceMemberGroups(db: Queryable, memberId: number, groupIds: number[]): Promise<void> {
  await db.query((orm) => orm.delete(organizationMemberGroups).where(eq(organizationMemberGroups.memberId, memberId)));
  await addMemberGroups(db, memberId, groupIds);
}

export async function addSiteGrants(db: Queryable, userId: number, grants: SiteGrant[]): Promise<void> {
  const values = grants.flatMap((grant) => grant.permissionIds.map((permissionId) => ({ siteId: grant.siteId, userId, permissionId })));
  if (values.length === 0) return;
  await db.query((orm) => orm.insert(siteUserPermissions).values(values).onConflictDoNothing());
}

/** Removes every permission the user holds on the organization's sites (sites of others untouched). */
export async function removeSiteGrantsInOrganization(db: Queryable, organizationId: number, userId: number): Promise<void> {
  await db.query((orm) =>
    orm
      .delete(siteUserPermissions)
      .where(
        and(
          eq(siteUserPermissions.userId, userId),
          inArray(siteUserPermissions.siteId, sql`(select ${sites.id} from ${sites} where ${sites.organizationId} = ${organizationId})`),
        ),
      ),
  );
}

/** The groups of each membership, by membership id. */
export async function groupsOfMembers(db: Queryable, memberIds: number[]): Promise<Map<number, GroupRef[]>> {
  const result = new Map<number, GroupRef[]>();
  if (memberIds.length === 0) return result;
  const rows = await db.query((orm) =>
    orm
      .select({ memberId: organizationMemberGroups.memberId, id: groups.id, name: groups.name })
      .from(organizationMemberGroups)
      .innerJoin(groups, eq(groups.id, organizationMemberGroups.groupId))
      .where(inArray(organizationMemberGroups.memberId, memberIds))
      .orderBy(asc(groups.name)),
  );
  for (const row of rows) {
    const list = result.get(row.memberId) ?? [];
    list.push({ id: row.id, name: row.name });
    result.set(row.memberId, list);
  }
  return result;
}

export interface UserSitePermissions {
  uuid: string;
  name: string;
  schema_name: string;
  permissions: string[];
}

/** Per user, the organization's sites they hold permissions on, with those permissions. */
export async function sitesOfUsersInOrganization(
  db: Queryable,
  organizationId: number,
  userIds: number[],
): Promise<Map<number, UserSitePermissions[]>> {
  const result = new Map<number, UserSitePermissions[]>();
  if (userIds.length === 0) return result;
  const rows = await db.rows<{ user_id: number; uuid: string; name: string; schema_name: string; permissions: string[] }>(sql`
    select sup.user_id, s.uuid::text as uuid, s.name, s.schema_name, array_agg(p.codename order by p.codename) as permissions
    from platform.site_user_permissions sup
    join platform.sites s on s.id = sup.site_id
    join platform.permissions p on p.id = sup.permission_id
    where s.organization_id = ${organizationId} and sup.user_id = any(${sql.param(userIds)}::int[])
    group by sup.user_id, s.id, s.uuid, s.name, s.schema_name
    order by s.name, s.id`);
  for (const row of rows) {
    const userId = Number(row.user_id);
    const list = result.get(userId) ?? [];
    list.push({ uuid: row.uuid, name: row.name, schema_name: row.schema_name, permissions: row.permissions });
    result.set(userId, list);
  }
  return result;
}
