// Route table of the console's organizations endpoints: organizations, their members and their
// invitations, with the two public invitation calls.
import type { AnyRoute } from '#shared/http/route.ts';
import {
  acceptInvitationRoute,
  cancelInvitationRoute,
  createInvitationRoute,
  getInvitationRoute,
  invitationDetailsRoute,
  listInvitationsRoute,
  resendInvitationRoute,
} from './invitation-routes.ts';
import {
  addMemberRoute,
  changeMemberRoute,
  getMemberRoute,
  listMembersRoute,
  makeAdminRoute,
  removeAdminRoute,
  removeMemberRoute,
} from './member-routes.ts';
import {
  changeOrganizationRoute,
  createOrganizationRoute,
  deleteOrganizationRoute,
  getOrganizationRoute,
  listOrganizationsRoute,
  organizationPrivilegesRoute,
} from './organization-routes.ts';

export const organizationsRoutes: readonly AnyRoute[] = [
  listOrganizationsRoute,
  createOrganizationRoute,
  getOrganizationRoute,
  changeOrganizationRoute,
  deleteOrganizationRoute,
  organizationPrivilegesRoute,
  listMembersRoute,
  addMemberRoute,
  getMemberRoute,
  changeMemberRoute,
  removeMemberRoute,
  makeAdminRoute,
  removeAdminRoute,
  listInvitationsRoute,
  createInvitationRoute,
  getInvitationRoute,
  cancelInvitationRoute,
  resendInvitationRoute,
  invitationDetailsRoute,
  acceptInvitationRoute,
];
