// Route table of the console's sites endpoints: sites, the tenant's configuration, domains and the
// user↔site relations.
import type { AnyRoute } from '#shared/http/route.ts';
import {
  createDomainRoute,
  deleteDomainRoute,
  getDomainRoute,
  listDomainsRoute,
  patchDomainRoute,
  replaceDomainRoute,
} from './domain-routes.ts';
import {
  createSiteRoute,
  deleteSiteRoute,
  getSiteRoute,
  listOrganizationSitesRoute,
  listSitesRoute,
  siteConfigRoute,
  sitePrivilegesRoute,
  updateSiteRoute,
} from './site-routes.ts';
import {
  addSiteUsersRoute,
  addUserSitesRoute,
  listSiteUsersRoute,
  listUserSitesRoute,
  removeSiteUsersRoute,
  removeUserSitesRoute,
  replaceSiteUsersRoute,
  replaceUserSitesRoute,
} from './site-user-routes.ts';

export const sitesRoutes: readonly AnyRoute[] = [
  listSitesRoute,
  listOrganizationSitesRoute,
  createSiteRoute,
  getSiteRoute,
  updateSiteRoute,
  deleteSiteRoute,
  sitePrivilegesRoute,
  siteConfigRoute,
  listDomainsRoute,
  createDomainRoute,
  getDomainRoute,
  replaceDomainRoute,
  patchDomainRoute,
  deleteDomainRoute,
  listUserSitesRoute,
  addUserSitesRoute,
  replaceUserSitesRoute,
  removeUserSitesRoute,
  listSiteUsersRoute,
  addSiteUsersRoute,
  replaceSiteUsersRoute,
  removeSiteUsersRoute,
];
