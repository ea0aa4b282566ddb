// The rules of invitations: managers and invite_members holders invite (mail through the email
// port), list, cancel and resend; the invitee reads the public details and accepts with the token,
// as an existing user with their own bearer token or as a new account from {username, password}.
// An invitation hands out nothing its inviter could not grant directly (access/grant-authority.ts),
// judged when it is made and again, with the inviter's authority of that moment, when accepted.
import { passwordWeaknesses } from '#shared/auth/password-strength.ts';
import { hashPassword } from '#shared/auth/passwords.ts';
import type { Principal } from '#shared/auth/principal.ts';
import { UniqueViolationError } from '#shared/db/database-errors.ts';
import type { Queryable } from '#shared/db/database.ts';
import type { UserRow } from '#shared/db/platform-schema.ts';
import type { EmailSender } from '#shared/email/email-port.ts';
import {
  AuthenticationFailedError,
  ConflictError,
  NotFoundError,
  PermissionDeniedError,
  ValidationError,
  type FieldErrors,
} from '#shared/errors.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import {
  assertMayGrant,
  assertMayGrantOnSites,
  currentAuthority,
  grantableOnSite,
  ungrantablePermissions,
  type GrantingAuthority,
} from '../access/grant-authority.ts';
import { managesOrganization, organizationForAction } from '../access/organization-access.ts';
import { findTakenIdentity, insertUser } from '../users/user-repository.ts';
import { looksLikeUuid } from '../users/user-schemas.ts';
import { addMemberGroups, addSiteGrants, organizationCodenamesOfGroups, type GroupRef } from './grants-repository.ts';
import { resolveGroups, resolveSiteGrants, sitePermissionsOrDefault } from './grants.ts';
import {
  findInvitation,
  findOpenInvitation,
  findUserByEmail,
  insertInvitation,
  isMemberByEmail,
  listInvitations,
  updateInvitation,
  type InvitationView,
} from './invitation-repository.ts';
import { acceptLink, invitationMail } from './invitation-mail.ts';
import { effectiveStatus } from './invitation-representation.ts';
import type { AcceptInvitationBody, CreateInvitationBody, InvitationConfig, ListInvitationsQuery } from './invitation-schemas.ts';
import { findMember, insertMember, updateMember } from './member-repository.ts';

export interface InvitationServicePorts {
  db: Queryable;
  email: EmailSender;
  now: () => Date;
  consoleUrl: string;
  ttlDays: number;
  passwordCost: number;
}

const DAY_MS = 24 * 3600 * 1000;

function expiryFrom(ports: InvitationServicePorts): Date {
  return new Date(ports.now().getTime() + ports.ttlDays * DAY_MS);
}

async function mailInvitation(ports: InvitationServicePorts, view: InvitationView): Promise<void> {
  await ports.email.send(
    invitationMail({
      to: view.invitation.inviteeIdentifier,
      organizationName: view.organization.name,
      inviter: view.invitedBy,
      link: acceptLink(ports.consoleUrl, view.invitation.uuid),
      expiresAt: view.invitation.expiresAt,
    }),
  );
}

/** Stored form of the config: group identifiers as given, sites with their permissions spelt out. */
function normalizedConfig(config: InvitationConfig | undefined): {
  group: Array<number | string>;
  site: Array<{ slug: string; permissions: string[] }>;
} {
  return {
    group: [...new Set(config?.group ?? [])],
    site: (config?.site ?? []).map((site) => ({ slug: site.slug, permissions: sitePermissionsOrDefault(site.permissions) })),
  };
}

function invitationLookup(token: string): string {
  // Not a UUID cannot be an invitation; say so as the same 404 as an unknown token.
  if (!looksLikeUuid(token)) throw new NotFoundError('Invitation not found.');
  return token;
}

export async function createInvitation(
  ports: InvitationServicePorts,
  caller: Principal,
  orgSlug: string,
  body: CreateInvitationBody,
): Promise<InvitationView> {
  const standing = await organizationForAction(ports.db, caller, orgSlug, 'invite_members');
  const { organization } = standing;
  const config = normalizedConfig(body.invitation_config);
  const permissions = [...new Set(body.permissions ?? [])];
  // Inviting is not a way to hand out more than one may grant directly.
  if (!managesOrganization(caller, standing) && config.group.length > 0) {
    throw new PermissionDeniedError('Only managers of the organization may grant groups.');
  }
  assertMayGrant(caller, standing, permissions);
  if (await isMemberByEmail(ports.db, organization.id, body.invitee_identifier)) {
    throw ValidationError.forFields({ invitee_identifier: ['This user is already a member of the organization.'] });
  }
  if ((await findOpenInvitation(ports.db, organization.id, body.invitee_identifier, ports.now())) !== undefined) {
    throw new ConflictError('A pending invitation for this email already exists; resend it instead.');
  }
  const groups = await resolveGroups(ports.db, config.group, 'invitation_config.group');
  await resolveSiteGrants(
    ports.db,
    organization.id,
    config.site.map((site) => ({ key: site.slug, permissions: site.permissions })),
    'slug',
    'invitation_config.site',
  );
  assertMayGrant(
    caller,
    standing,
    await organizationCodenamesOfGroups(
      ports.db,
      groups.map((group) => group.id),
    ),
  );
  await assertMayGrantOnSites(ports.db, caller, config.site);
  // The mail goes out inside the transaction: when it cannot be sent, no invitation is left behind.
  return ports.db.transaction(async (tx) => {
    const invitation = await insertInvitation(tx, {
      organizationId: organization.id,
      inviteeIdentifier: body.invitee_identifier,
      invitedById: caller.id,
      permissions,
      invitationConfig: config,
      status: 'pending',
      expiresAt: expiryFrom(ports),
      createdAt: ports.now(),
    });
    const view: InvitationView = {
      invitation,
      organization: { id: organization.id, slug: organization.slug, name: organization.name },
      invitedBy: caller.username,
    };
    await mailInvitation(ports, view);
    return view;
  });
}

export async function listOrganizationInvitations(
  ports: InvitationServicePorts,
  caller: Principal,
  orgSlug: string,
  query: ListInvitationsQuery,
) {
  const { organization } = await organizationForAction(ports.db, caller, orgSlug, 'invite_members');
  return listInvitations(ports.db, {
    organizationId: organization.id,
    status: query.status,
    search: query.search,
    now: ports.now(),
    page: toPageRequest(query),
  });
}

async function invitationOf(ports: InvitationServicePorts, caller: Principal, orgSlug: string, token: string): Promise<InvitationView> {
  const { organization } = await organizationForAction(ports.db, caller, orgSlug, 'invite_members');
  const view = await findInvitation(ports.db, invitationLookup(token), { organizationId: organization.id });
  if (view === undefined) throw new NotFoundError('Invitation not found.');
  return view;
}

export const getInvitation = invitationOf;

export async function cancelInvitation(
  ports: InvitationServicePorts,
  caller: Principal,
  orgSlug: string,
  token: string,
): Promise<InvitationView> {
  const view = await invitationOf(ports, caller, orgSlug, token);
  if (view.invitation.status === 'accepted') throw new ConflictError('An accepted invitation cannot be cancelled.');
  await updateInvitation(ports.db, view.invitation.id, { status: 'cancelled' });
  return { ...view, invitation: { ...view.invitation, status: 'cancelled' } };
}

/** Mails the invitation again with a fresh expiry; accepted and cancelled ones stay closed. */
export async function resendInvitation(
  ports: InvitationServicePorts,
  caller: Principal,
  orgSlug: string,
  token: string,
): Promise<InvitationView> {
  const view = await invitationOf(ports, caller, orgSlug, token);
  if (view.invitation.status === 'accepted' || view.invitation.status === 'cancelled') {
    throw new ConflictError(`A ${view.invitation.status} invitation cannot be resent.`, {
      extras: { invitation_status: view.invitation.status },
    });
  }
  const expiresAt = expiryFrom(ports);
  const renewed: InvitationView = { ...view, invitation: { ...view.invitation, status: 'pending', expiresAt } };
  await ports.db.transaction(async (tx) => {
    await updateInvitation(tx, view.invitation.id, { status: 'pending', expiresAt });
    await mailInvitation(ports, renewed);
  });
  return renewed;
}

export interface PublicInvitation {
  view: InvitationView;
  inviteeHasAccount: boolean;
}

export async function publicInvitationDetails(ports: InvitationServicePorts, token: string): Promise<PublicInvitation> {
  const view = await findInvitation(ports.db, invitationLookup(token));
  if (view === undefined) throw new NotFoundError('Invitation not found.');
  const user = await findUserByEmail(ports.db, view.invitation.inviteeIdentifier);
  return { view, inviteeHasAccount: user !== undefined };
}

function assertAcceptable(view: InvitationView, now: Date): void {
  const status = effectiveStatus(view, now);
  if (status !== 'pending') {
    throw new ConflictError(`This invitation is ${status} and can no longer be accepted.`, { extras: { invitation_status: status } });
  }
}

/** The account that accepts: the signed-in invitee, or a new account made from the accept body. */
async function accepterOf(
  tx: Queryable,
  view: InvitationView,
  caller: Principal | undefined,
  body: AcceptInvitationBody,
  password: NewAccountPassword | undefined,
): Promise<UserRow> {
  const email = view.invitation.inviteeIdentifier;
  if (caller !== undefined) {
    if (caller.email.toLowerCase() !== email.toLowerCase()) {
      throw new PermissionDeniedError('This invitation was sent to another email address.');
    }
    return (await findUserByEmail(tx, email))!;
  }
  if ((await findUserByEmail(tx, email)) !== undefined) {
    throw new AuthenticationFailedError('An account with this email exists: sign in and accept with your bearer token.');
  }
  const errors: FieldErrors = {};
  if (body.username === undefined) errors.username = ['This field is required.'];
  if (body.password === undefined) errors.password = ['This field is required.'];
  if (password !== undefined && password.weaknesses.length > 0) errors.password = password.weaknesses;
  if (body.username !== undefined && (await findTakenIdentity(tx, { username: body.username })).usernameTaken) {
    errors.username = ['A user with that username already exists.'];
  }
  if (Object.keys(errors).length > 0) throw ValidationError.forFields(errors);
  try {
    // Past the field errors, the password was given and judged acceptable, so it was hashed.
    return await insertUser(tx, { username: body.username!, email, passwordHash: password!.hash! });
  } catch (error) {
    if (error instanceof UniqueViolationError) throw ValidationError.forFields({ username: ['A user with that username already exists.'] });
    throw error;
  }
}

/** What is wrong with a new account's password for that account, and its hash when nothing is. */
interface NewAccountPassword {
  weaknesses: string[];
  hash: string | undefined;
}

async function newAccountPassword(
  ports: InvitationServicePorts,
  token: string,
  password: string,
  username: string | undefined,
): Promise<NewAccountPassword> {
  const view = await findInvitation(ports.db, token);
  if (view === undefined) throw new NotFoundError('Invitation not found.');
  const weaknesses = await passwordWeaknesses(ports.db, password, { username, email: view.invitation.inviteeIdentifier });
  return { weaknesses, hash: weaknesses.length > 0 ? undefined : await hashPassword(password, ports.passwordCost) };
}

/** What of the invitation its inviter may still grant: the rest is skipped, like a deleted site. */
async function stillGrantable(
  db: Queryable,
  inviter: GrantingAuthority | undefined,
  invited: { permissions: string[]; groups: GroupRef[]; sites: Array<{ slug: string; permissions: string[] }> },
) {
  if (inviter === undefined) return { permissions: [], groups: [], sites: [] };
  const { principal, standing } = inviter;
  const refused = ungrantablePermissions(principal, standing, invited.permissions);
  const groups: GroupRef[] = [];
  if (managesOrganization(principal, standing)) {
    for (const group of invited.groups) {
      const codenames = await organizationCodenamesOfGroups(db, [group.id]);
      if (ungrantablePermissions(principal, standing, codenames).length === 0) groups.push(group);
    }
  }
  const sites: typeof invited.sites = [];
  for (const site of invited.sites) {
    const permissions = await grantableOnSite(db, principal, site.slug, site.permissions);
    if (permissions.length > 0) sites.push({ slug: site.slug, permissions });
  }
  return { permissions: invited.permissions.filter((codename) => !refused.includes(codename)), groups, sites };
}

export interface Acceptance {
  view: InvitationView;
  user: UserRow;
}

export async function acceptInvitation(
  ports: InvitationServicePorts,
  caller: Principal | undefined,
  token: string,
  body: AcceptInvitationBody,
): Promise<Acceptance> {
  invitationLookup(token);
  // Judging and hashing a new account's password are slow on purpose: both happen before the
  // transaction holds the invitation's row lock. The invitee's address does not change, so it is
  // read here for the strength check without a lock.
  const password =
    caller === undefined && body.password !== undefined ? await newAccountPassword(ports, token, body.password, body.username) : undefined;
  return ports.db.transaction(async (tx) => {
    const view = await findInvitation(tx, token, { lock: true });
    if (view === undefined) throw new NotFoundError('Invitation not found.');
    const now = ports.now();
    assertAcceptable(view, now);
    const user = await accepterOf(tx, view, caller, body, password);
    const organizationId = view.organization.id;
    const config = normalizedConfig(view.invitation.invitationConfig as InvitationConfig);
    // Groups or sites removed since the invitation was sent are skipped, not an error for the invitee;
    // so is whatever the inviter may no longer grant.
    const granted = await stillGrantable(tx, await currentAuthority(tx, view.invitation.invitedById, view.organization.slug), {
      permissions: view.invitation.permissions,
      groups: await resolveGroups(tx, config.group, 'invitation_config.group', false),
      sites: config.site,
    });
    const existing = await findMember(tx, organizationId, user.username);
    const member =
      existing === undefined
        ? await insertMember(tx, {
            organizationId,
            userId: user.id,
            isAdmin: false,
            permissions: granted.permissions,
            joinedVia: 'invitation',
          })
        : await updateMember(tx, existing.member.id, {
            permissions: [...new Set([...existing.member.permissions, ...granted.permissions])],
          });
    await addMemberGroups(
      tx,
      member.id,
      granted.groups.map((group) => group.id),
    );
    const grants = await resolveSiteGrants(
      tx,
      organizationId,
      granted.sites.map((site) => ({ key: site.slug, permissions: site.permissions })),
      'slug',
      'invitation_config.site',
      false,
    );
    await addSiteGrants(tx, user.id, grants);
    await updateInvitation(tx, view.invitation.id, { status: 'accepted', acceptedAt: now });
    return { view: { ...view, invitation: { ...view.invitation, status: 'accepted', acceptedAt: now } }, user };
  });
}
