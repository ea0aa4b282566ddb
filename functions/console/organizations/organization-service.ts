// The rules of the organizations endpoints: who sees which organizations, creation with a unique
// slug and the creator as owner, changes by managers, and the hard delete of the States table.
import type { Principal } from '#shared/auth/principal.ts';
import { UniqueViolationError } from '#shared/db/database-errors.ts';
import type { Queryable } from '#shared/db/database.ts';
import type { OrganizationRow } from '#shared/db/platform-schema.ts';
import { PermissionDeniedError, ValidationError } from '#shared/errors.ts';
import { forgetHostedDomains } from '#shared/hosting/hosted-domains.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import { looksLikeUuid, slugFrom, uniqueSlug, UUID_SHAPED_SLUG } from '#shared/text/slugs.ts';
import {
  mayDeleteOrganization,
  organizationForAction,
  organizationPermissions,
  visibleOrganization,
  type OrganizationStanding,
} from '../access/organization-access.ts';
import {
  deleteOrganizationCascade,
  insertOrganization,
  listOrganizations,
  organizationSlugsLike,
  updateOrganization,
  type OrganizationDeletion,
} from './organization-repository.ts';
import type { ChangeOrganizationBody, CreateOrganizationBody, ListOrganizationsQuery } from './organization-schemas.ts';

export interface OrganizationServicePorts {
  db: Queryable;
  now: () => Date;
}

const SLUG_MAX_LENGTH = 100;
const TAKEN_SLUG = 'An organization with this slug already exists.';

export function listVisibleOrganizations(ports: OrganizationServicePorts, caller: Principal, query: ListOrganizationsQuery) {
  return listOrganizations(ports.db, {
    memberUserId: caller.isSuperuser ? undefined : caller.id,
    search: query.search,
    isActive: query.is_active,
    ordering: query.ordering ?? [],
    page: toPageRequest(query),
  });
}

async function freeSlugFor(ports: OrganizationServicePorts, body: CreateOrganizationBody): Promise<string> {
  if (body.slug !== undefined) {
    const taken = await organizationSlugsLike(ports.db, body.slug);
    if (taken.includes(body.slug)) throw ValidationError.forFields({ slug: [TAKEN_SLUG] });
    return body.slug;
  }
  // A name of only symbols still needs a slug.
  const base = (await slugFrom(body.name, SLUG_MAX_LENGTH)) || 'organization';
  // Lookups take a UUID where a slug goes; a suffix would dodge the form, but the name is the caller's to fix.
  if (looksLikeUuid(base)) throw ValidationError.forFields({ name: [UUID_SHAPED_SLUG.name] });
  return uniqueSlug(base, (candidate) => organizationSlugsLike(ports.db, candidate), { maxLength: SLUG_MAX_LENGTH });
}

/** Any signed-in user may found an organization; they become its owner and an admin. */
export async function createOrganization(
  ports: OrganizationServicePorts,
  caller: Principal,
  body: CreateOrganizationBody,
): Promise<OrganizationRow> {
  // Two creators racing for the same generated slug: the loser picks the next suffix.
  for (let attempt = 0; ; attempt += 1) {
    const slug = await freeSlugFor(ports, body);
    try {
      return await insertOrganization(ports.db, { name: body.name, slug }, caller.id);
    } catch (error) {
      if (!(error instanceof UniqueViolationError)) throw error;
      if (body.slug !== undefined || attempt >= 3) throw ValidationError.forFields({ slug: [TAKEN_SLUG] });
    }
  }
}

export async function findVisibleOrganization(
  ports: OrganizationServicePorts,
  caller: Principal,
  slugOrUuid: string,
): Promise<OrganizationStanding> {
  return visibleOrganization(ports.db, caller, slugOrUuid);
}

export async function changeOrganization(
  ports: OrganizationServicePorts,
  caller: Principal,
  slugOrUuid: string,
  changes: ChangeOrganizationBody,
): Promise<OrganizationRow> {
  const standing = await organizationForAction(ports.db, caller, slugOrUuid, 'change_organization');
  if (changes.name === undefined && changes.is_active === undefined) return standing.organization;
  return updateOrganization(ports.db, standing.organization.id, {
    name: changes.name,
    isActive: changes.is_active,
    modified: ports.now(),
  });
}

export async function organizationPrivileges(ports: OrganizationServicePorts, caller: Principal, slugOrUuid: string): Promise<string[]> {
  return organizationPermissions(caller, await visibleOrganization(ports.db, caller, slugOrUuid));
}

export async function deleteOrganization(
  ports: OrganizationServicePorts,
  caller: Principal,
  slugOrUuid: string,
): Promise<OrganizationDeletion> {
  const standing = await visibleOrganization(ports.db, caller, slugOrUuid);
  if (!mayDeleteOrganization(caller, standing)) {
    throw new PermissionDeniedError('Only the owner or a superuser may delete this organization.');
  }
  const deletion = await deleteOrganizationCascade(ports.db, standing.organization.id, ports.now());
  // This process's build server stops serving the sites' hosts at once, as a site delete does.
  forgetHostedDomains(deletion.hostedDomains);
  return deletion;
}
