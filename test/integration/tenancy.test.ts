// Tenant resolution end to end through `/api/sites/config/`: the site comes from the Host header
// (a registered, active domain) or from X-Tenant; unknown sites are 404, callers without access 403,
// and the schema the request runs against is the one recorded for the site.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';
import { testDriver } from '#test/support/test-database.ts';

describe(`tenant resolution on ${testDriver}`, () => {
  let app: TestApp;
  const token: Record<string, string> = {};
  const config = (who: string, headers: Record<string, string>) => app.request('GET', '/api/sites/config/', { token: token[who], headers });

  beforeAll(async () => {
    app = await startTestApp();
    const names = ['tn-admin', 'tn-viewer', 'tn-plain', 'tn-stranger'];
    for (const name of names) await app.createUser(name);
    const db = app.runtime.db;
    await db.run(
      sql`insert into platform.organizations (name, slug) values ('Tenant Org', 'tenant-org'), ('Stranger Org', 'stranger-org')`,
    );
    await db.run(sql`
      insert into platform.organization_members (organization_id, user_id, is_admin)
      select o.id, u.id, u.username in ('tn-admin', 'tn-stranger') from platform.organizations o, platform.users u
      where (o.slug = 'tenant-org' and u.username in ('tn-admin', 'tn-viewer', 'tn-plain'))
         or (o.slug = 'stranger-org' and u.username = 'tn-stranger')`);
    for (const name of names) token[name] = (await app.login(name, USER_PASSWORD)).access;
    const created = await app.request('POST', '/api/cloud/organizations/tenant-org/sites/', {
      token: token['tn-admin'],
      body: { name: 'Portal', environment: 'development' },
    });
    if (created.status !== 201) throw new Error(JSON.stringify(created.body));
    await app.request('POST', '/api/cloud/organizations/stranger-org/sites/', { token: token['tn-stranger'], body: { name: 'Remote' } });
    const assigned = await app.request('POST', '/api/cloud/sites/portal/users/', {
      token: token['tn-admin'],
      body: { users: [{ username: 'tn-viewer' }] },
    });
    if (assigned.status !== 200) throw new Error(JSON.stringify(assigned.body));
    await app.request('POST', '/api/cloud/sites/portal/domains/', { token: token['tn-admin'], body: { domain: 'portal.example.org' } });
  });
  afterAll(async () => {
    await app.close();
  });

  it('resolves the site from X-Tenant and answers its configuration', async () => {
    const answer = await config('tn-viewer', { 'x-tenant': 'portal' });

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      slug: 'portal',
      name: 'Portal',
      environment: 'development',
      schema_name: 'site_portal',
      organization: { slug: 'tenant-org' },
      primary_domain: 'portal.localhost',
      permissions: ['view_site'],
    });
    expect(answer.body.domains).toEqual([
      { domain: 'portal.localhost', is_primary: true },
      { domain: 'portal.example.org', is_primary: false },
    ]);
  });

  it('resolves the site from the Host header of its primary domain, port and case ignored', async () => {
    const answer = await config('tn-viewer', { host: 'Portal.LOCALHOST:8000' });

    expect(answer.status).toBe(200);
    expect(answer.body.slug).toBe('portal');
  });

  it('resolves a custom domain, and the Host header wins over X-Tenant', async () => {
    const answer = await config('tn-admin', { host: 'portal.example.org', 'x-tenant': 'remote' });

    expect(answer.status).toBe(200);
    expect(answer.body.slug).toBe('portal');
    expect(answer.body.permissions).toContain('admin_site');
  });

  it('answers 404 for an unknown tenant, a slug-shaped schema name or a malformed header', async () => {
    for (const tenant of ['no-such-site', 'site_portal', '../portal', 'portal; drop schema site_portal']) {
      const answer = await config('tn-admin', { 'x-tenant': tenant });

      expect(answer.status).toBe(404);
      expect(answer.body).toMatchObject({ status: 'error', code: 'NOT_FOUND' });
    }
    const unknownHost = await config('tn-admin', { host: 'nobody.localhost' });
    expect(unknownHost.status).toBe(400);
  });

  it('answers 400 when the request names no site', async () => {
    const answer = await config('tn-admin', {});

    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('BAD_REQUEST');
  });

  it('answers 403 to a caller without access: another organization, or a member without a site permission', async () => {
    const stranger = await config('tn-stranger', { 'x-tenant': 'portal' });
    const strangerByHost = await config('tn-stranger', { host: 'portal.example.org' });
    const plain = await config('tn-plain', { 'x-tenant': 'portal' });

    for (const answer of [stranger, strangerByHost, plain]) {
      expect(answer.status).toBe(403);
      expect(answer.body.code).toBe('FORBIDDEN');
      expect(JSON.stringify(answer.body)).not.toContain('site_portal');
    }
  });

  it('answers 401 without a token', async () => {
    const answer = await app.request('GET', '/api/sites/config/', { headers: { 'x-tenant': 'portal' } });

    expect(answer.status).toBe(401);
  });

  it('stops resolving a deactivated site or domain', async () => {
    await app.request('PATCH', '/api/cloud/sites/portal/domains/portal-example-org/', {
      token: token['tn-admin'],
      body: { is_active: false },
    });
    const byInactiveDomain = await config('tn-admin', { host: 'portal.example.org' });
    await app.request('PUT', '/api/cloud/sites/portal/', { token: token['tn-admin'], body: { is_active: false } });
    const byInactiveSite = await config('tn-admin', { 'x-tenant': 'portal' });
    await app.request('PUT', '/api/cloud/sites/portal/', { token: token['tn-admin'], body: { is_active: true } });

    expect(byInactiveDomain.status).toBe(400);
    expect(byInactiveSite.status).toBe(404);
  });

  it('runs against the schema recorded on the site row, whatever the slug looks like', async () => {
    // A record whose schema name differs from the slug-derived one: resolution must follow the record.
    await app.runtime.db.run(sql`update platform.sites set schema_name = 'site_portal_moved' where slug = 'portal'`);
    try {
      const answer = await config('tn-viewer', { 'x-tenant': 'portal' });

      expect(answer.body.schema_name).toBe('site_portal_moved');
    } finally {
      await app.runtime.db.run(sql`update platform.sites set schema_name = 'site_portal' where slug = 'portal'`);
    }
  });
});
