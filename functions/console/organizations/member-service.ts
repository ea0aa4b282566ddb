// The rules of the members endpoints: members see the member list, managers (superusers, admins,
// owners, manage_organization holders) change it, and an organization always keeps one admin.
// What a change hands out or takes away follows access/grant-authority.ts: nobody grants or takes
// what they do not hold, nobody but the owner and superusers changes their own membership, and the
// owner's membership is theirs (and a superuser's) alone to change.
// Adding an existing user directly needs authority over that user (access/user-authority.ts);
// to anyone else the user does not exist, and they invite instead.
import { hasPermission, type Principal } from '#shared/auth/principal.ts';
import { UniqueViolationError } from '#shared/db/database-errors.ts';
import type { Queryable } from '#shared/db/database.ts';
import type { UserRow } from '#shared/db/platform-schema.ts';
import { BusinessLogicError, ConflictError, NotFoundError, ValidationError } from '#shared/errors.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import { findUser } from '../users/user-repository.ts';
import { assertMayChangeMembership, assertMayGrant } from '../access/grant-authority.ts';
import { ADMIN_PERMISSIONS, organizationForAction, visibleOrganization, type OrganizationStanding } from '../access/organization-access.ts';
import { administersEveryone, administersUser, readableEmails } from '../access/user-authority.ts';
import {
  addSiteGrants,
  addMemberGroups,
  groupsOfMembers,
  organizationCodenamesOfGroups,
  removeSiteGrantsInOrganization,
  replaceMemberGroups,
  sitesOfUsersInOrganization,
  type GroupRef,
  type UserSitePermissions,
} from './grants-repository.ts';
import { resolveGroups, resolveSiteGrants } from './grants.ts';
import {
  deleteMember,
  findMember,
  findUserById,
  insertMember,
  listMembers,
  lockAdminMemberships,
  updateMember,
  type MemberWithUser,
} from './member-repository.ts';
import type { AddMemberBody, ChangeMemberBody, ListMembersQuery } from './member-schemas.ts';

export interface MemberServicePorts {
  db: Queryable;
}

export interface MemberDetail extends MemberWithUser {
  groups: GroupRef[];
  sites: UserSitePermissions[];
  /** Whether the caller may read this member's email; the answer shows null otherwise. */
  emailVisible: boolean;
}

const LAST_ADMIN = 'An organization must keep at least one admin.';
// One message for a user who does not exist and one the caller has no authority over, so the
// answer never tells them apart.
const NO_SUCH_USER = 'User not found.';

async function withDetails(db: Queryable, caller: Principal, organizationId: number, rows: MemberWithUser[]): Promise<MemberDetail[]> {
  const userIds = rows.map((row) => row.user.id);
  const memberIds = rows.map((row) => row.member.id);
  const [groups, sites, emails] = await Promise.all([
    groupsOfMembers(db, memberIds),
    sitesOfUsersInOrganization(db, organizationId, userIds),
    readableEmails(db, caller, userIds),
  ]);
  return rows.map((row) => ({
    ...row,
    groups: groups.get(row.member.id) ?? [],
    sites: sites.get(row.user.id) ?? [],
    emailVisible: emails.has(row.user.id),
  }));
}

async function detailOf(db: Queryable, caller: Principal, organizationId: number, row: MemberWithUser): Promise<MemberDetail> {
  const [detail] = await withDetails(db, caller, organizationId, [row]);
  return detail!;
}

/**
 * Whether the caller reads every member's email here, so `search` may look at emails: global
 * readers and the organization's admins and owner. Others search names only, or a search would
 * tell them what the hidden emails contain.
 */
function readsEveryEmail(caller: Principal, standing: OrganizationStanding): boolean {
  if (administersEveryone(caller) || hasPermission(caller, 'view_user')) return true;
  return standing.membership?.isAdmin === true || standing.membership?.isOwner === true;
}

async function existingMember(db: Queryable, organizationId: number, username: string): Promise<MemberWithUser> {
  const member = await findMember(db, organizationId, username);
  if (member === undefined) throw new NotFoundError('Member not found.');
  return member;
}

export async function listOrganizationMembers(ports: MemberServicePorts, caller: Principal, orgSlug: string, query: ListMembersQuery) {
  const standing = await visibleOrganization(ports.db, caller, orgSlug);
  const readsEmails = readsEveryEmail(caller, standing);
  // An order by a hidden value tells it, a comparison at a time, as a search on it would.
  if (!readsEmails && query.ordering?.some((term) => term.field === 'email')) {
    throw ValidationError.forFields({ ordering: ["Ordering by email needs the right to read the members' emails."] });
  }
  const page = await listMembers(ports.db, {
    organizationId: standing.organization.id,
    userIsActive: query.user__is_active,
    userIsDeleted: query.user__is_deleted,
    isAdmin: query.is_admin,
    search: query.search,
    searchEmails: readsEmails,
    ordering: query.ordering ?? [],
    page: toPageRequest(query),
  });
  return { rows: await withDetails(ports.db, caller, standing.organization.id, page.rows), total: page.total };
}

export async function getMember(ports: MemberServicePorts, caller: Principal, orgSlug: string, username: string): Promise<MemberDetail> {
  const standing = await visibleOrganization(ports.db, caller, orgSlug);
  return detailOf(ports.db, caller, standing.organization.id, await existingMember(ports.db, standing.organization.id, username));
}

/**
 * The user named by the body, when the caller may add them directly. A user who does not exist,
 * is soft-deleted, or is beyond the caller's authority is the same 404; a member of this
 * organization (whom its managers see in the member list anyway) is a 409.
 */
async function userToAdd(db: Queryable, caller: Principal, organizationId: number, body: AddMemberBody): Promise<UserRow> {
  const identifier = body.user_slug ?? body.user_id!;
  const user = typeof identifier === 'number' ? await findUserById(db, identifier) : await findUser(db, identifier);
  if (user === undefined || user.isDeleted) throw new NotFoundError(NO_SUCH_USER);
  if ((await findMember(db, organizationId, user.username)) !== undefined) {
    throw new ConflictError('This user is already a member of the organization.');
  }
  if (!(await administersUser(db, caller, user.id))) throw new NotFoundError(NO_SUCH_USER);
  return user;
}

/** Codenames in one list and not the other: what a change grants or takes. */
function changed(before: readonly string[], after: readonly string[]): string[] {
  return [...before.filter((codename) => !after.includes(codename)), ...after.filter((codename) => !before.includes(codename))];
}

function changedIds(before: readonly number[], after: readonly number[]): number[] {
  return [...before.filter((id) => !after.includes(id)), ...after.filter((id) => !before.includes(id))];
}

/** Everything the membership holds in the organization: admin flag, its own permissions, its groups'. */
async function heldThroughMembership(db: Queryable, target: MemberWithUser): Promise<string[]> {
  const groups = (await groupsOfMembers(db, [target.member.id])).get(target.member.id) ?? [];
  return [
    ...(target.member.isAdmin ? ADMIN_PERMISSIONS : []),
    ...target.member.permissions,
    ...(await organizationCodenamesOfGroups(
      db,
      groups.map((group) => group.id),
    )),
  ];
}

export async function addMember(ports: MemberServicePorts, caller: Principal, orgSlug: string, body: AddMemberBody): Promise<MemberDetail> {
  const standing = await organizationForAction(ports.db, caller, orgSlug);
  const { organization } = standing;
  const user = await userToAdd(ports.db, caller, organization.id, body);
  const groups = await resolveGroups(ports.db, body.group_ids ?? [], 'group_ids');
  const siteGrants = await resolveSiteGrants(
    ports.db,
    organization.id,
    (body.sites ?? []).map((site) => ({ key: site.slug, permissions: site.permissions })),
    'slug',
    'sites',
  );
  assertMayGrant(caller, standing, [
    ...(body.is_admin === true ? ADMIN_PERMISSIONS : []),
    ...(body.permissions ?? []),
    ...(await organizationCodenamesOfGroups(
      ports.db,
      groups.map((group) => group.id),
    )),
  ]);
  try {
    await ports.db.transaction(async (tx) => {
      const member = await insertMember(tx, {
        organizationId: organization.id,
        userId: user.id,
        isAdmin: body.is_admin ?? false,
        permissions: [...new Set(body.permissions ?? [])],
        joinedVia: 'authorised',
      });
      await addMemberGroups(
        tx,
        member.id,
        groups.map((group) => group.id),
      );
      await addSiteGrants(tx, user.id, siteGrants);
    });
  } catch (error) {
    if (error instanceof UniqueViolationError) throw new ConflictError('This user is already a member of the organization.');
    throw error;
  }
  return detailOf(ports.db, caller, organization.id, await existingMember(ports.db, organization.id, user.username));
}

/** Refuses to leave the organization without an admin; call inside the changing transaction. */
async function assertKeepsAnAdmin(tx: Queryable, organizationId: number, memberId: number): Promise<void> {
  const admins = await lockAdminMemberships(tx, organizationId);
  if (admins.includes(memberId) && admins.length <= 1) throw new BusinessLogicError(LAST_ADMIN);
}

export async function changeMember(
  ports: MemberServicePorts,
  caller: Principal,
  orgSlug: string,
  username: string,
  changes: ChangeMemberBody,
): Promise<MemberDetail> {
  const standing = await organizationForAction(ports.db, caller, orgSlug);
  const { organization } = standing;
  const target = await existingMember(ports.db, organization.id, username);
  assertMayChangeMembership(caller, standing, {
    target: { userId: target.user.id, isOwner: target.member.isOwner },
    demotes: changes.is_admin === false,
  });
  const groups = changes.groups === undefined ? undefined : await resolveGroups(ports.db, changes.groups, 'groups');
  const siteGrants =
    changes.site === undefined
      ? undefined
      : await resolveSiteGrants(
          ports.db,
          organization.id,
          changes.site.map((site) => ({ key: site.uuid, permissions: site.permissions })),
          'uuid',
          'site',
        );
  const groupsBefore = (await groupsOfMembers(ports.db, [target.member.id])).get(target.member.id) ?? [];
  assertMayGrant(caller, standing, [
    ...(changes.is_admin !== undefined && changes.is_admin !== target.member.isAdmin ? ADMIN_PERMISSIONS : []),
    ...(changes.permissions === undefined ? [] : changed(target.member.permissions, changes.permissions)),
    ...(groups === undefined
      ? []
      : await organizationCodenamesOfGroups(
          ports.db,
          changedIds(
            groupsBefore.map((group) => group.id),
            groups.map((group) => group.id),
          ),
        )),
  ]);
  await ports.db.transaction(async (tx) => {
    if (changes.is_admin === false) await assertKeepsAnAdmin(tx, organization.id, target.member.id);
    if (changes.is_admin !== undefined || changes.permissions !== undefined) {
      await updateMember(tx, target.member.id, {
        isAdmin: changes.is_admin,
        permissions: changes.permissions === undefined ? undefined : [...new Set(changes.permissions)],
      });
    }
    if (groups !== undefined)
      await replaceMemberGroups(
        tx,
        target.member.id,
        groups.map((group) => group.id),
      );
    if (siteGrants !== undefined) {
      // PUT replaces the member's permissions on this organization's sites, all at once.
      await removeSiteGrantsInOrganization(tx, organization.id, target.user.id);
      await addSiteGrants(tx, target.user.id, siteGrants);
    }
  });
  return detailOf(ports.db, caller, organization.id, await existingMember(ports.db, organization.id, username));
}

export async function removeMember(ports: MemberServicePorts, caller: Principal, orgSlug: string, username: string): Promise<void> {
  const standing = await organizationForAction(ports.db, caller, orgSlug);
  const { organization } = standing;
  const target = await existingMember(ports.db, organization.id, username);
  if (target.member.isOwner)
    assertMayChangeMembership(caller, standing, { target: { userId: target.user.id, isOwner: true }, demotes: true });
  // Leaving only lowers one's own standing; removing someone else takes what they hold.
  if (target.user.id !== caller.id) assertMayGrant(caller, standing, await heldThroughMembership(ports.db, target));
  await ports.db.transaction(async (tx) => {
    await assertKeepsAnAdmin(tx, organization.id, target.member.id);
    // The member's permissions on this organization's sites go with the membership.
    await removeSiteGrantsInOrganization(tx, organization.id, target.user.id);
    await deleteMember(tx, target.member.id);
  });
}

export async function setAdmin(
  ports: MemberServicePorts,
  caller: Principal,
  orgSlug: string,
  username: string,
  isAdmin: boolean,
): Promise<MemberDetail> {
  const standing = await organizationForAction(ports.db, caller, orgSlug);
  const { organization } = standing;
  const target = await existingMember(ports.db, organization.id, username);
  assertMayChangeMembership(caller, standing, { target: { userId: target.user.id, isOwner: target.member.isOwner }, demotes: !isAdmin });
  if (isAdmin !== target.member.isAdmin) assertMayGrant(caller, standing, ADMIN_PERMISSIONS);
  await ports.db.transaction(async (tx) => {
    if (!isAdmin) await assertKeepsAnAdmin(tx, organization.id, target.member.id);
    await updateMember(tx, target.member.id, { isAdmin });
  });
  return detailOf(ports.db, caller, organization.id, await existingMember(ports.db, organization.id, username));
}
