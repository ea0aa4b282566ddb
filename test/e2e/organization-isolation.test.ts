// Two organizations, each with a site, an admin and a member, built through the API. Everything a
// member or an admin of one tries against the other — by slug, by UUID, through X-Tenant or the
// site's host — ends in 403 or 404 with none of the other's data, and the other stays unchanged.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, USER_PASSWORD, type ApiResponse, type TestApp } from '#test/support/test-app.ts';

interface Side {
  org: { slug: string; uuid: string };
  site: { slug: string; uuid: string };
  domain: { slug: string; uuid: string };
  invitation: string;
  adminToken: string;
  memberToken: string;
  secretValue: string;
}

describe('organization isolation', () => {
  let app: TestApp;
  let alpha: Side;
  let beta: Side;

  async function ok(answer: Promise<ApiResponse>, expected: number): Promise<ApiResponse> {
    const response = await answer;
    if (response.status !== expected) throw new Error(`expected ${expected}, got ${response.status}: ${JSON.stringify(response.body)}`);
    return response;
  }

  async function buildSide(name: string): Promise<Side> {
    await app.createUser(`${name}-admin`);
    await app.createUser(`${name}-member`);
    const adminToken = (await app.login(`${name}-admin`, USER_PASSWORD)).access;
    const memberToken = (await app.login(`${name}-member`, USER_PASSWORD)).access;
    const asAdmin = { token: adminToken };

    const created = await ok(app.request('POST', '/api/cloud/organizations/', { ...asAdmin, body: { name: `${name} Corp` } }), 201);
    const org = created.body.data as { slug: string; uuid: string };
    // Adding an existing user directly needs authority over them: the superuser's.
    await ok(
      app.request('POST', `/api/cloud/organizations/${org.slug}/members/`, {
        token: await app.adminToken(),
        body: { user_slug: `${name}-member` },
      }),
      201,
    );
    const site = (
      await ok(app.request('POST', `/api/cloud/organizations/${org.slug}/sites/`, { ...asAdmin, body: { name: `${name} Site` } }), 201)
    ).body as { slug: string; uuid: string };
    await ok(
      app.request('POST', `/api/cloud/sites/${site.slug}/users/`, {
        ...asAdmin,
        body: { users: [{ username: `${name}-member`, permissions: ['view_site'] }] },
      }),
      200,
    );
    const domain = (
      await ok(app.request('POST', `/api/cloud/sites/${site.slug}/domains/`, { ...asAdmin, body: { domain: `${name}.example.com` } }), 201)
    ).body as { slug: string; uuid: string };
    const invitation = (
      await ok(
        app.request('POST', `/api/cloud/organizations/${org.slug}/invitations/`, {
          ...asAdmin,
          body: { invitee_identifier: `${name}-invitee@example.com` },
        }),
        201,
      )
    ).body as { uuid?: string; data?: { uuid: string } };
    const secretValue = `${name}-top-secret-value`;
    await ok(
      app.request('POST', '/api/secrets/', {
        ...asAdmin,
        headers: { 'x-tenant': site.slug },
        body: { key: 'API_KEY', value: secretValue },
      }),
      201,
    );
    return {
      org,
      site,
      domain,
      invitation: invitation.uuid ?? invitation.data!.uuid,
      adminToken,
      memberToken,
      secretValue,
    };
  }

  /** Every row that belongs to an organization, as JSON, to compare before and after. */
  async function snapshot(side: Side): Promise<string> {
    const db = app.runtime.db;
    const [org] = await db.rows<{ id: number }>(sql`select id from platform.organizations where slug = ${side.org.slug}`);
    const [site] = await db.rows<{ schema_name: string; id: number }>(
      sql`select id, schema_name from platform.sites where slug = ${side.site.slug}`,
    );
    const parts = await Promise.all([
      db.rows(sql`select * from platform.organizations where id = ${org!.id}`),
      db.rows(sql`select * from platform.organization_members where organization_id = ${org!.id} order by id`),
      db.rows(sql`select * from platform.invitations where organization_id = ${org!.id} order by id`),
      db.rows(sql`select * from platform.sites where organization_id = ${org!.id} order by id`),
      db.rows(sql`select * from platform.domains where site_id = ${site!.id} order by id`),
      db.rows(sql`select site_id, user_id, permission_id from platform.site_user_permissions where site_id = ${site!.id} order by 1, 2, 3`),
      db.rows(
        sql`select * from platform.users where id in (select user_id from platform.organization_members where organization_id = ${org!.id}) order by id`,
      ),
      db.rows(sql`select table_name from information_schema.tables where table_schema = ${site!.schema_name} order by 1`),
    ]);
    return JSON.stringify(parts);
  }

  beforeAll(async () => {
    app = await startTestApp();
    alpha = await buildSide('alpha');
    beta = await buildSide('beta');
  }, 120_000);
  afterAll(async () => {
    await app.close();
  });

  /** The attempts of an outsider on beta, by slug and by UUID where the API accepts both. */
  function attemptsOnBeta(): Array<{ method: string; path: string; body?: unknown; headers?: Record<string, string> }> {
    const orgIds = [beta.org.slug, beta.org.uuid];
    const siteIds = [beta.site.slug, beta.site.uuid];
    const attempts: Array<{ method: string; path: string; body?: unknown; headers?: Record<string, string> }> = [];
    for (const org of orgIds) {
      attempts.push(
        { method: 'GET', path: `/api/cloud/organizations/${org}/` },
        { method: 'PUT', path: `/api/cloud/organizations/${org}/`, body: { name: 'Taken over' } },
        { method: 'DELETE', path: `/api/cloud/organizations/${org}/` },
        { method: 'GET', path: `/api/cloud/organizations/${org}/privileges/` },
        { method: 'GET', path: `/api/cloud/organizations/${org}/members/` },
        { method: 'POST', path: `/api/cloud/organizations/${org}/members/`, body: { user_slug: 'alpha-member' } },
        { method: 'GET', path: `/api/cloud/organizations/${org}/members/beta-member/` },
        { method: 'PUT', path: `/api/cloud/organizations/${org}/members/beta-member/`, body: { is_admin: true } },
        { method: 'DELETE', path: `/api/cloud/organizations/${org}/members/beta-member/` },
        { method: 'POST', path: `/api/cloud/organizations/${org}/members/beta-member/make_admin/` },
        { method: 'POST', path: `/api/cloud/organizations/${org}/members/beta-admin/remove_admin/` },
        { method: 'GET', path: `/api/cloud/organizations/${org}/invitations/` },
        { method: 'POST', path: `/api/cloud/organizations/${org}/invitations/`, body: { invitee_identifier: 'spy@example.com' } },
        { method: 'GET', path: `/api/cloud/organizations/${org}/invitations/${beta.invitation}/` },
        { method: 'DELETE', path: `/api/cloud/organizations/${org}/invitations/${beta.invitation}/` },
        { method: 'POST', path: `/api/cloud/organizations/${org}/invitations/${beta.invitation}/resend/` },
        { method: 'GET', path: `/api/cloud/organizations/${org}/sites/` },
        { method: 'POST', path: `/api/cloud/organizations/${org}/sites/`, body: { name: 'Planted' } },
      );
    }
    for (const site of siteIds) {
      attempts.push(
        { method: 'GET', path: `/api/cloud/sites/${site}/` },
        { method: 'PUT', path: `/api/cloud/sites/${site}/`, body: { name: 'Renamed' } },
        { method: 'DELETE', path: `/api/cloud/sites/${site}/` },
        { method: 'GET', path: `/api/cloud/sites/${site}/privileges/` },
        { method: 'GET', path: `/api/cloud/sites/${site}/domains/` },
        { method: 'POST', path: `/api/cloud/sites/${site}/domains/`, body: { domain: 'planted.example.com' } },
        { method: 'GET', path: `/api/cloud/sites/${site}/domains/${beta.domain.slug}/` },
        { method: 'PATCH', path: `/api/cloud/sites/${site}/domains/${beta.domain.slug}/`, body: { is_primary: true } },
        { method: 'DELETE', path: `/api/cloud/sites/${site}/domains/${beta.domain.uuid}/` },
        { method: 'GET', path: `/api/cloud/sites/${site}/users/` },
        { method: 'POST', path: `/api/cloud/sites/${site}/users/`, body: { users: [{ username: 'alpha-member' }] } },
        { method: 'PUT', path: `/api/cloud/sites/${site}/users/`, body: { users: [] } },
        { method: 'DELETE', path: `/api/cloud/sites/${site}/users/`, body: { users: ['beta-member'] } },
      );
    }
    attempts.push(
      { method: 'GET', path: '/api/cloud/users/beta-member/sites/' },
      { method: 'POST', path: '/api/cloud/users/beta-member/sites/', body: { sites: [{ slug: beta.site.slug }] } },
      { method: 'PUT', path: '/api/cloud/users/beta-member/sites/', body: { sites: [] } },
      { method: 'DELETE', path: '/api/cloud/users/beta-member/sites/', body: { sites: [beta.site.slug] } },
      { method: 'POST', path: '/api/cloud/users/alpha-member/sites/', body: { sites: [{ slug: beta.site.slug }] } },
      { method: 'GET', path: '/api/cloud/users/beta-member/' },
      { method: 'GET', path: '/api/sites/config/', headers: { 'x-tenant': beta.site.slug } },
      { method: 'GET', path: '/api/sites/config/', headers: { host: `${beta.site.slug}.localhost` } },
      { method: 'GET', path: '/api/sites/config/', headers: { host: 'beta.example.com' } },
      { method: 'GET', path: '/api/secrets/', headers: { 'x-tenant': beta.site.slug } },
      { method: 'GET', path: '/api/secrets/API_KEY/', headers: { 'x-tenant': beta.site.slug } },
      { method: 'PUT', path: '/api/secrets/API_KEY/', headers: { 'x-tenant': beta.site.slug }, body: { value: 'overwritten' } },
      { method: 'DELETE', path: '/api/secrets/API_KEY/', headers: { 'x-tenant': beta.site.slug } },
      { method: 'GET', path: '/api/secrets/API_KEY/history/', headers: { 'x-tenant': beta.site.slug } },
      { method: 'GET', path: '/api/secret-types/', headers: { 'x-tenant': beta.site.slug } },
      {
        method: 'POST',
        path: '/api/secret-types/',
        headers: { 'x-tenant': beta.site.slug },
        body: { slug: 'planted', name: 'Planted', schema: {} },
      },
    );
    return attempts;
  }

  it.each([
    ['a member', () => alpha.memberToken],
    ['an admin', () => alpha.adminToken],
  ])('refuses %s of the other organization everything with 403 or 404 and no data', async (_who, token) => {
    const before = await snapshot(beta);
    const leaks: string[] = [];
    for (const attempt of attemptsOnBeta()) {
      const answer = await app.request(attempt.method, attempt.path, { token: token(), body: attempt.body, headers: attempt.headers });
      const text = JSON.stringify(answer.body);
      if (![403, 404].includes(answer.status))
        leaks.push(`${attempt.method} ${attempt.path} ${JSON.stringify(attempt.headers ?? {})} → ${answer.status} ${text.slice(0, 200)}`);
      if (
        text.includes(beta.secretValue) ||
        text.includes('beta-member@example.com') ||
        text.includes(beta.site.uuid) ||
        text.includes(beta.org.uuid)
      ) {
        leaks.push(`${attempt.method} ${attempt.path} leaked data: ${text.slice(0, 200)}`);
      }
    }
    expect(leaks).toEqual([]);
    expect(await snapshot(beta)).toBe(before);
  });

  it('keeps the other organization out of every list', async () => {
    const token = alpha.adminToken;
    const organizations = await app.request('GET', '/api/cloud/organizations/?is_active=all', { token });
    expect(JSON.stringify(organizations.body)).not.toContain(beta.org.slug);
    const sites = await app.request('GET', '/api/cloud/sites/', { token });
    expect(JSON.stringify(sites.body)).not.toContain(beta.site.slug);
    const users = await app.request('GET', `/api/cloud/users/?organization_slug=${beta.org.slug}`, { token });
    expect(users.body).toMatchObject({ count: 0, results: [] });
    const ownSites = await app.request('GET', '/api/cloud/users/alpha-member/sites/', { token });
    expect(JSON.stringify(ownSites.body)).not.toContain(beta.site.slug);
  });

  it('still lets each side work on its own organization', async () => {
    const own = await app.request('GET', `/api/cloud/organizations/${alpha.org.slug}/members/`, { token: alpha.adminToken });
    expect(own.status).toBe(200);
    const config = await app.request('GET', '/api/sites/config/', { token: alpha.memberToken, headers: { 'x-tenant': alpha.site.slug } });
    expect(config.status).toBe(200);
    const secret = await app.request('GET', '/api/secrets/API_KEY/', { token: beta.adminToken, headers: { 'x-tenant': beta.site.slug } });
    expect(secret.status).toBe(200);
    expect(JSON.stringify(secret.body)).toContain(beta.secretValue);
  });
});
