// Test set-up for tenant routes: an organization with one site, made through the API.
import type { TestApp } from './test-app.ts';

/** Creates an organization and a site named `name`; answers the headers that address the site. */
export async function createSite(
  app: TestApp,
  token: string,
  name: string,
): Promise<{ slug: string; organization: string; headers: Record<string, string> }> {
  const org = await app.request('POST', '/api/cloud/organizations/', { token, body: { name: `${name} org` } });
  if (org.status !== 201) throw new Error(`organization: ${org.status} ${JSON.stringify(org.body)}`);
  const site = await app.request('POST', `/api/cloud/organizations/${org.body.data.slug}/sites/`, { token, body: { name } });
  if (site.status !== 201) throw new Error(`site: ${site.status} ${JSON.stringify(site.body)}`);
  return { slug: site.body.slug, organization: org.body.data.slug, headers: { 'x-tenant': site.body.slug } };
}
