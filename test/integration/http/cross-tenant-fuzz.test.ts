// Cross-tenant fuzz: every route of every group's route table (read from functions/groups.ts) that
// takes an id or a slug in its path is called by a tenant's own people with the ids of the same
// kind of thing in another site of the same organization and in another organization — both in
// their own tenant (X-Tenant: their site) and addressed to the other tenant (X-Tenant: its site).
// Each answer must be 403 or 404 — or, where a route refuses the request's body before it looks
// anything up (a 400 for the empty body sent), the very answer it gives when the ids name nothing
// at all — and carry none of the other tenant's data (its uuids, record text, object bytes, secret). Callers: the admin of organization A (victim: organization B's site)
// and a member of A who manages only site A1 (victims: site A2 of the same organization, and B's).
// Ids in bodies: copy and move name a bucket and a source path in the body; the second case names
// the other tenant's there (own object into its bucket, its object into one's own bucket).
// Routes whose only parameters are not tenant data (a social provider, an event type name, an
// invitation's secret token) are left out; they are listed in SKIPPED_PARAMETERS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointGroups } from '#functions/groups.ts';
import type { ApiHandler } from '#shared/http/http-handler.ts';
import type { AnyRoute } from '#shared/http/route.ts';
import { gatewayEvent, lambdaContext } from '#infra/local/gateway-event.ts';
import { sendBinary } from '#test/support/storage.ts';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';

/** Parameters that name no tenant's data: a route with only these is not a cross-tenant probe. */
const SKIPPED_PARAMETERS = new Set(['provider', 'event_name', 'token']);
/** The platform's permission catalog: the same for everyone, readable by every signed-in user. */
const CATALOG_ROUTES = new Set(['/api/cloud/permissions/{id}/']);
/**
 * Parameters a victim in the caller's own organization shares with the caller (the organization,
 * its members): routes named by these alone are the caller's own organization, not another tenant.
 */
const SHARED_WITHIN_ORGANIZATION = new Set(['org_slug', 'username']);

/** Values that name nothing anywhere, of the same kind as each parameter. */
const NOTHING: Record<string, string> = {
  id: '999999',
  revision_id: '999999',
  edge_id: '999999',
  uuid: '00000000-0000-4000-8000-000000000000',
  'key+': 'docs/nothing-here.txt',
};

/** What one tenant (a site and what it holds) is addressed by, and what of it must never leak. */
interface Tenant {
  org: string;
  site: string;
  params: Record<string, string>;
  /** Strings only this tenant's data contains: none may appear in an answer to another caller. */
  secrets: string[];
}

interface Probe {
  caller: string;
  victim: string;
  mode: 'own tenant' | 'victim tenant';
  route: string;
  url: string;
  status: number;
  /** The status of the same request naming nothing that exists. */
  statusForNothing: number;
  leaked: string[];
  answer: string;
}

describe('cross-tenant fuzz', () => {
  let app: TestApp;
  const handlers = new Map<string, ApiHandler>();
  const tenants: Record<'a1' | 'a2' | 'b1', Tenant> = {} as never;
  const tokens: Record<'orgAdmin' | 'siteManager', string> = {} as never;

  const routes = endpointGroups.flatMap((group) =>
    group.routes
      .map((route) => ({ group: group.name, route, params: [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!) }))
      .filter(({ route, params }) => !CATALOG_ROUTES.has(route.path) && params.some((name) => !SKIPPED_PARAMETERS.has(name))),
  );

  async function call(token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const answer = await app.request(method, path, { token, body, headers });
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  }

  /** A site in `org` with an app, a table with a record, a bucket with an object, a secret, a domain. */
  async function buildTenant(token: string, org: string, name: string): Promise<Tenant> {
    const site = await call(token, 'POST', `/api/cloud/organizations/${org}/sites/`, { name: `${name} site` });
    const tenant = { 'x-tenant': site.slug as string };
    const app_ = await call(token, 'POST', '/api/apps/', { name: `${name} app` }, tenant);
    const appPath = `/api/apps/${app_.slug}`;
    await call(token, 'POST', `${appPath}/datasources/`, { name: 'Main', provider_type: 'flat_table' }, tenant);
    await call(
      token,
      'POST',
      `${appPath}/datasources/main/datatables/`,
      {
        name: `${name}_notes`,
        json_schema: {
          fields: [
            { name: 'id', type: 'integer' },
            { name: 'text', type: 'string' },
          ],
          primaryKey: ['id'],
        },
      },
      tenant,
    );
    await call(token, 'POST', `${appPath}/datatables/${name}_notes/materialize/`, undefined, tenant);
    const recordText = `${name}-record-text-${site.uuid}`;
    await call(token, 'POST', `${appPath}/datatables/${name}_notes/data/`, { id: 1, text: recordText }, tenant);
    const bucket = await call(token, 'POST', `${appPath}/storage/buckets/`, { name: `${name} files`, app_category: 'attachments' }, tenant);
    const objectText = `${name}-object-bytes-${site.uuid}`;
    const upload = await sendBinary(app.url, 'PUT', `${appPath}/storage/buckets/${bucket.slug}/objects/docs/${name}.txt`, {
      token,
      body: objectText,
      headers: { ...tenant, 'content-type': 'text/plain' },
    });
    if (upload.status !== 201) throw new Error(`upload: ${upload.status} ${upload.bytes.toString()}`);
    const secretValue = `${name}-secret-value-${site.uuid}`;
    await call(token, 'POST', '/api/secrets/', { key: `${name.toUpperCase()}_KEY`, value: secretValue }, tenant);
    const domain = await call(token, 'POST', `/api/cloud/sites/${site.slug}/domains/`, { domain: `${name}.example.com` });
    return {
      org,
      site: site.slug,
      params: {
        org_slug: org,
        site_slug: site.slug,
        domain_slug: String(domain.slug ?? domain.uuid),
        app_slug: app_.slug,
        datasource_slug: 'main',
        name: `${name}_notes`,
        id: '1',
        revision_id: '1',
        edge_id: '1',
        bucket_slug: bucket.slug,
        'key+': `docs/${name}.txt`,
        key: `${name.toUpperCase()}_KEY`,
        slug: `${name}-type`,
        uuid: String(upload.json?.uuid ?? site.uuid),
        function_slug: `${name}-function`,
        role_slug: `${name}-role`,
        event_name: 'x',
        username: `${name}-owner`,
      },
      secrets: [site.uuid, app_.uuid, bucket.uuid, recordText, objectText, secretValue].filter((value) => typeof value === 'string'),
    };
  }

  beforeAll(async () => {
    app = await startTestApp();
    const superuser = await app.adminToken();
    for (const username of ['xa-owner', 'xa-manager', 'xb-owner']) await app.createUser(username);
    const ownerA = (await app.login('xa-owner', USER_PASSWORD)).access;
    const ownerB = (await app.login('xb-owner', USER_PASSWORD)).access;
    const orgA = (await call(ownerA, 'POST', '/api/cloud/organizations/', { name: 'Cross A' })).data.slug as string;
    const orgB = (await call(ownerB, 'POST', '/api/cloud/organizations/', { name: 'Cross B' })).data.slug as string;
    tenants.a1 = await buildTenant(ownerA, orgA, 'xa1');
    tenants.a2 = await buildTenant(ownerA, orgA, 'xa2');
    tenants.b1 = await buildTenant(ownerB, orgB, 'xb1');
    tenants.a1.params.username = 'xa-owner';
    tenants.a2.params.username = 'xa-owner';
    tenants.b1.params.username = 'xb-owner';
    // A member of organization A who manages site A1 only.
    await call(superuser, 'POST', `/api/cloud/organizations/${orgA}/members/`, { user_slug: 'xa-manager' });
    await call(ownerA, 'POST', `/api/cloud/sites/${tenants.a1.site}/users/`, {
      users: [{ username: 'xa-manager', permissions: ['access_site', 'view_site', 'manage_site'] }],
    });
    tokens.orgAdmin = ownerA;
    tokens.siteManager = (await app.login('xa-manager', USER_PASSWORD)).access;
    for (const group of endpointGroups) handlers.set(group.name, await group.loadHandler());
  }, 180_000);
  afterAll(async () => {
    await app?.close();
  });

  const fill = (route: AnyRoute, params: Record<string, string>) =>
    route.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = params[name] ?? 'x';
      return name.endsWith('+') ? value.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(value);
    });

  /** One request through the group's handler: its status, its error code and its body as text. */
  async function probe(group: string, route: AnyRoute, url: string, token: string, tenant: string) {
    const headers: Record<string, string> = { host: 'localhost', authorization: `Bearer ${token}`, 'x-tenant': tenant };
    const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : '{}';
    if (body !== undefined) headers['content-type'] = 'application/json';
    const result = await handlers.get(group)!(gatewayEvent({ method: route.method, url, headers, body }), lambdaContext(group));
    const text = result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64').toString('utf8') : (result.body ?? '');
    return { status: result.statusCode ?? 200, text };
  }

  it('answers 403 or 404, or what it answers for a made-up id, and never the other tenant’s data', { timeout: 600_000 }, async () => {
    const cases: Array<{ caller: keyof typeof tokens; own: Tenant; victim: 'a2' | 'b1'; sameOrganization: boolean }> = [
      { caller: 'orgAdmin', own: tenants.a1, victim: 'b1', sameOrganization: false },
      { caller: 'siteManager', own: tenants.a1, victim: 'a2', sameOrganization: true },
      { caller: 'siteManager', own: tenants.a1, victim: 'b1', sameOrganization: false },
    ];
    const failures: Probe[] = [];
    let probes = 0;
    const refusedFirst = new Set<string>();
    const sameAsForNothing = new Set<string>();
    for (const { caller, own, victim, sameOrganization } of cases) {
      const other = tenants[victim];
      for (const { group, route, params } of routes) {
        if (sameOrganization && params.every((name) => SHARED_WITHIN_ORGANIZATION.has(name) || SKIPPED_PARAMETERS.has(name))) continue;
        for (const mode of ['own tenant', 'victim tenant'] as const) {
          const tenant = mode === 'own tenant' ? own.site : other.site;
          const url = fill(route, other.params);
          const answer = await probe(group, route, url, tokens[caller], tenant);
          probes += 1;
          const leaked = other.secrets.filter((secret) => answer.text.includes(secret));
          const name = `${route.method} ${route.path}`;
          if (leaked.length === 0 && (answer.status === 403 || answer.status === 404)) {
            refusedFirst.add(name);
            continue;
          }
          // Anything else must be what the route answers when the ids name nothing at all (a body
          // refused before any lookup): then the answer says nothing about the other tenant.
          const nothing = await probe(group, route, fill(route, { ...NOTHING }), tokens[caller], tenant);
          if (leaked.length === 0 && answer.status === nothing.status && answer.status < 500) {
            sameAsForNothing.add(name);
            continue;
          }
          failures.push({
            caller,
            victim,
            mode,
            route: name,
            url,
            status: answer.status,
            statusForNothing: nothing.status,
            leaked,
            answer: answer.text.slice(0, 160),
          });
        }
      }
    }
    if (failures.length > 0)
      console.error(`cross-tenant fuzz: ${failures.length} of ${probes} answers\n${JSON.stringify(failures, null, 2)}`);
    // Every route was tried against another organization at least (each route twice per case).
    expect(probes).toBeGreaterThanOrEqual(routes.length * 2 * 2);
    expect(failures).toEqual([]);
    expect(refusedFirst.size).toBeGreaterThan(routes.length / 2);
  });

  it('refuses another tenant’s bucket or object named in a copy or move body', { timeout: 120_000 }, async () => {
    const own = tenants.a1;
    for (const victim of [tenants.a2, tenants.b1]) {
      const ownObjects = `/api/apps/${own.params.app_slug}/storage/buckets/${own.params.bucket_slug}/objects/`;
      const bodies = [
        // Own object into the other tenant's bucket, and the other tenant's object into one's own.
        { source_path: own.params['key+'], destination_path: 'taken.txt', destination_bucket: victim.params.bucket_slug },
        { source_path: victim.params['key+'], destination_path: 'taken.txt' },
        { source_path: victim.params['key+'], destination_path: 'taken.txt', destination_bucket: victim.params.bucket_slug },
      ];
      for (const action of ['copy', 'move']) {
        for (const body of bodies) {
          for (const tenant of [own.site, victim.site]) {
            const answer = await app.request('POST', `${ownObjects}${action}/`, {
              token: tokens.siteManager,
              headers: { 'x-tenant': tenant },
              body,
            });
            const text = JSON.stringify(answer.body);
            expect({ action, body, tenant, status: answer.status }).toMatchObject({
              status: expect.toSatisfy((status: number) => status === 403 || status === 404),
            });
            expect(victim.secrets.filter((secret) => text.includes(secret))).toEqual([]);
          }
        }
      }
    }
    // Nothing was taken: no object named taken.txt anywhere.
    const superuser = await app.adminToken();
    for (const tenant of [tenants.a1, tenants.a2, tenants.b1]) {
      const listing = await app.request(
        'GET',
        `/api/apps/${tenant.params.app_slug}/storage/buckets/${tenant.params.bucket_slug}/objects/?search=taken`,
        { token: superuser, headers: { 'x-tenant': tenant.site } },
      );
      expect(listing.status).toBe(200);
      expect(JSON.stringify(listing.body)).not.toContain('taken.txt');
    }
  });
});
