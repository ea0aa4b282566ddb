// SQL of the groups and permissions endpoints: groups with their permission codenames and member
// usernames, the permission catalogue, and the atomic replacement of a group's two lists.
import { and, asc, eq, ilike, inArray, or, type SQL } from 'drizzle-orm';
import { sql } from '#shared/db/sql.ts';
import type { Queryable } from '#shared/db/database.ts';
import { groupPermissions, groups, permissions, userGroups, users } from '#shared/db/platform-schema.ts';
import type { PageRequest } from '#shared/http/pagination.ts';
import { countedPage, matchesOf, type CountedPage } from '#shared/db/counted-page.ts';
import { containsPattern } from '#shared/text/like-patterns.ts';

export interface GroupWithLists {
  id: number;
  name: string;
  permissions: string[];
  users: string[];
}

export interface PermissionRow {
  id: number;
  codename: string;
  name: string;
  model: string;
}

export type Page<T> = CountedPage<T>;

// Drizzle leaves columns of a one-table select unqualified, so the subqueries name the outer row
// explicitly as "groups"."id".
const groupColumns = {
  id: groups.id,
  name: groups.name,
  permissions: sql<string[]>`array(
    select p.codename from ${groupPermissions} gp join ${permissions} p on p.id = gp.permission_id
    where gp.group_id = "groups"."id" order by p.codename)`,
  users: sql<string[]>`array(
    select u.username from ${userGroups} ug join ${users} u on u.id = ug.user_id
    where ug.group_id = "groups"."id" order by u.username)`,
};

export async function listGroups(db: Queryable, filter: { search?: string; page: PageRequest }): Promise<Page<GroupWithLists>> {
  const where = filter.search ? ilike(groups.name, containsPattern(filter.search)) : undefined;
  return countedPage(
    db,
    filter.page,
    ({ limit, offset }) =>
      db.query((orm) =>
        orm.select(groupColumns).from(groups).where(where).orderBy(asc(groups.name), asc(groups.id)).limit(limit).offset(offset),
      ),
    matchesOf(groups, where),
  );
}

export async function findGroup(db: Queryable, id: number): Promise<GroupWithLists | undefined> {
  const [group] = await db.query((orm) => orm.select(groupColumns).from(groups).where(eq(groups.id, id)));
  return group;
}

export async function groupNameTaken(db: Queryable, name: string, exceptId?: number): Promise<boolean> {
  const rows = await db.query((orm) =>
    orm
      .select({ id: groups.id })
      .from(groups)
      .where(and(eq(groups.name, name), exceptId === undefined ? undefined : sql`${groups.id} <> ${exceptId}`)),
  );
  return rows.length > 0;
}

export async function permissionsByCodename(db: Queryable, codenames: string[]): Promise<PermissionRow[]> {
  if (codenames.length === 0) return [];
  return db.query((orm) => orm.select().from(permissions).where(inArray(permissions.codename, codenames)));
}

export async function usersByUsername(db: Queryable, usernames: string[]): Promise<Array<{ id: number; username: string }>> {
  if (usernames.length === 0) return [];
  return db.query((orm) => orm.select({ id: users.id, username: users.username }).from(users).where(inArray(users.username, usernames)));
}

export interface GroupContents {
  name: string;
  permissionIds: number[];
  userIds: number[];
}

async function setLists(tx: Queryable, groupId: number, contents: GroupContents): Promise<void> {
  await tx.query((orm) => orm.delete(groupPermissions).where(eq(groupPermissions.groupId, groupId)));
  await tx.query((orm) => orm.delete(userGroups).where(eq(userGroups.groupId, groupId)));
  if (contents.permissionIds.length > 0) {
    await tx.query((orm) => orm.insert(groupPermissions).values(contents.permissionIds.map((permissionId) => ({ groupId, permissionId }))));
  }
  if (contents.userIds.length > 0) {
    await tx.query((orm) => orm.insert(userGroups).values(contents.userIds.map((userId) => ({ groupId, userId }))));
  }
}

export async function insertGroup(db: Queryable, contents: GroupContents): Promise<number> {
  return db.transaction(async (tx) => {
    const [group] = await tx.query((orm) => orm.insert(groups).values({ name: contents.name }).returning({ id: groups.id }));
    await setLists(tx, group!.id, contents);
    return group!.id;
  });
}

/** Renames the group and replaces both lists in one transaction; false when the group is gone. */
export async function replaceGroup(db: Queryable, groupId: number, contents: GroupContents): Promise<boolean> {
  return db.transaction(async (tx) => {
    const updated = await tx.query((orm) =>
      orm.update(groups).set({ name: contents.name }).where(eq(groups.id, groupId)).returning({ id: groups.id }),
    );
    if (updated.length === 0) return false;
    await setLists(tx, groupId, contents);
    return true;
  });
}

export async function deleteGroup(db: Queryable, groupId: number): Promise<boolean> {
  const deleted = await db.query((orm) => orm.delete(groups).where(eq(groups.id, groupId)).returning({ id: groups.id }));
  return deleted.length > 0;
}

export async function listPermissions(
  db: Queryable,
  filter: { model?: string; search?: string; page: PageRequest },
): Promise<Page<PermissionRow>> {
  const conditions: Array<SQL | undefined> = [];
  if (filter.model !== undefined) conditions.push(eq(permissions.model, filter.model));
  if (filter.search) {
    const pattern = containsPattern(filter.search);
    conditions.push(or(ilike(permissions.codename, pattern), ilike(permissions.name, pattern)));
  }
  const where = and(...conditions);
  return countedPage(
    db,
    filter.page,
    ({ limit, offset }) =>
      db.query((orm) => orm.select().from(permissions).where(where).orderBy(asc(permissions.id)).limit(limit).offset(offset)),
    matchesOf(permissions, where),
  );
}

export async function findPermission(db: Queryable, id: number): Promise<PermissionRow | undefined> {
  const [row] = await db.query((orm) => orm.select().from(permissions).where(eq(permissions.id, id)));
  return row;
}
