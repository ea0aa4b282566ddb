// The domains endpoints of a site: parse, call the service, answer.
import { paged } from '#shared/http/answers.ts';
import { toPageRequest } from '#shared/http/pagination.ts';
import { noContent } from '#shared/http/reply.ts';
import { defineRoute } from '#shared/http/route.ts';
import type { RequestContext } from '#shared/http/request-context.ts';
import { addDomain, changeDomain, getDomain, listSiteDomains, removeDomain, type DomainServicePorts } from './domain-service.ts';
import { domainRecord, domainSchema } from './site-representation.ts';
import {
  createDomainBody,
  domainParams,
  listDomainsQuery,
  patchDomainBody,
  replaceDomainBody,
  siteParams,
  type DomainChanges,
} from './site-schemas.ts';

function ports(ctx: RequestContext): DomainServicePorts {
  return { db: ctx.runtime.db, platformDomain: ctx.runtime.config.platformDomain };
}

const common = { consoleAlias: true, host: 'platform', errorStyle: 'generic', access: 'user' } as const;

async function changeDomainHandler(
  ctx: RequestContext,
  input: { params: { site_slug: string; domain_slug: string }; body: DomainChanges },
) {
  const { site, domain } = await changeDomain(ports(ctx), ctx.user, input.params.site_slug, input.params.domain_slug, input.body);
  return domainRecord(domain, site.site);
}

export const listDomainsRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/cloud/sites/{site_slug}/domains/',
  summary: "List a site's domains (primary first)",
  params: siteParams,
  query: listDomainsQuery,
  envelope: 'C',
  response: domainSchema,
  handler: async (ctx, { params, query }) => {
    const { site, page } = await listSiteDomains(ports(ctx), ctx.user, params.site_slug, toPageRequest(query));
    return paged(
      page.rows.map((domain) => domainRecord(domain, site.site)),
      page.total,
      toPageRequest(query),
    );
  },
});

export const createDomainRoute = defineRoute({
  ...common,
  method: 'POST',
  path: '/api/cloud/sites/{site_slug}/domains/',
  summary: 'Register a domain for a site; a new primary demotes the old one',
  params: siteParams,
  body: createDomainBody,
  envelope: 'bare',
  response: domainSchema,
  status: 201,
  handler: async (ctx, { params, body }) => {
    const { site, domain } = await addDomain(ports(ctx), ctx.user, params.site_slug, body);
    return domainRecord(domain, site.site);
  },
});

export const getDomainRoute = defineRoute({
  ...common,
  method: 'GET',
  path: '/api/cloud/sites/{site_slug}/domains/{domain_slug}/',
  summary: 'Domain detail (by slug or UUID)',
  params: domainParams,
  envelope: 'bare',
  response: domainSchema,
  handler: async (ctx, { params }) => {
    const { site, domain } = await getDomain(ports(ctx), ctx.user, params.site_slug, params.domain_slug);
    return domainRecord(domain, site.site);
  },
});

export const replaceDomainRoute = defineRoute({
  ...common,
  method: 'PUT',
  path: '/api/cloud/sites/{site_slug}/domains/{domain_slug}/',
  summary: 'Update a domain (domain required)',
  params: domainParams,
  body: replaceDomainBody,
  envelope: 'bare',
  response: domainSchema,
  handler: changeDomainHandler,
});

export const patchDomainRoute = defineRoute({
  ...common,
  method: 'PATCH',
  path: '/api/cloud/sites/{site_slug}/domains/{domain_slug}/',
  summary: 'Partially update a domain (for example make it primary)',
  params: domainParams,
  body: patchDomainBody,
  envelope: 'bare',
  response: domainSchema,
  handler: changeDomainHandler,
});

export const deleteDomainRoute = defineRoute({
  ...common,
  method: 'DELETE',
  path: '/api/cloud/sites/{site_slug}/domains/{domain_slug}/',
  summary: 'Remove a domain (not the primary one)',
  params: domainParams,
  envelope: 'none',
  handler: async (ctx, { params }) => {
    await removeDomain(ports(ctx), ctx.user, params.site_slug, params.domain_slug);
    return noContent();
  },
});
