// Console paths take a UUID where a slug goes, so no organization or site may get a slug of that
// form, and a UUID-shaped path segment finds the row of that UUID before any slug that reads the same.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

describe('UUID-shaped slugs of organizations and sites', () => {
  let app: TestApp;
  let admin: string;
  let alice: string;
  let aliceOrg: { slug: string; uuid: string };
  let aliceSite: { slug: string; uuid: string };
  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    await app.createUser('uu-alice');
    await app.createUser('uu-mallory');
    alice = await app.tokenOf('uu-alice');
    const org = await app.request('POST', '/api/cloud/organizations/', { token: alice, body: { name: 'Alice Org' } });
    aliceOrg = { slug: org.body.data.slug, uuid: org.body.data.uuid };
    const site = await app.request('POST', `/api/cloud/organizations/${aliceOrg.slug}/sites/`, {
      token: alice,
      body: { name: 'Alice Shop' },
    });
    aliceSite = { slug: site.body.slug, uuid: site.body.uuid };
  });
  afterAll(async () => {
    await app.close();
  });

  async function count(statement: ReturnType<typeof sql>): Promise<number> {
    const [row] = await app.runtime.db.rows<{ n: number }>(statement);
    return Number(row!.n);
  }

  it("returns 400 naming slug when an organization's slug is another organization's UUID", async () => {
    // Act
    const answer = await app.request('POST', '/api/cloud/organizations/', {
      token: await app.tokenOf('uu-mallory'),
      body: { name: 'Shadow', slug: aliceOrg.uuid },
    });

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ status: 'error', code: 'VALIDATION_ERROR', errors: { slug: [expect.stringContaining('UUID')] } });
    expect(await count(sql`select count(*)::int as n from platform.organizations where name = 'Shadow'`)).toBe(0);
  });

  it('returns 400 naming name when an organization name would give a UUID-shaped slug', async () => {
    // Act
    const answer = await app.request('POST', '/api/cloud/organizations/', {
      token: await app.tokenOf('uu-mallory'),
      body: { name: aliceOrg.uuid.toUpperCase() },
    });

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ status: 'error', code: 'VALIDATION_ERROR', errors: { name: [expect.stringContaining('UUID')] } });
    expect(await count(sql`select count(*)::int as n from platform.organizations where slug = ${aliceOrg.uuid}`)).toBe(0);
  });

  it('returns 400 naming name when a site name would give a UUID-shaped slug', async () => {
    // Act
    const answer = await app.request('POST', `/api/cloud/organizations/${aliceOrg.slug}/sites/`, {
      token: alice,
      body: { name: ` ${aliceSite.uuid} ` },
    });

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ status: 'error', code: 'VALIDATION_ERROR', errors: { name: [expect.stringContaining('UUID')] } });
    expect(await count(sql`select count(*)::int as n from platform.sites where slug = ${aliceSite.uuid}`)).toBe(0);
    const schema = `site_${aliceSite.uuid.replace(/-/g, '_')}`;
    expect(await count(sql`select count(*)::int as n from information_schema.schemata where schema_name = ${schema}`)).toBe(0);
  });

  it('still takes a name that merely contains a UUID', async () => {
    const answer = await app.request('POST', '/api/cloud/organizations/', { token: alice, body: { name: `Team ${aliceOrg.uuid}` } });
    expect(answer.status).toBe(201);
    expect(answer.body.data.slug).toBe(`team-${aliceOrg.uuid}`);
  });

  it('finds the site of a UUID before a site whose older slug reads the same', async () => {
    // Prepare: a site of another organization whose slug is alice's site UUID (made before such
    // slugs were refused), then a change to alice's site, which moves its row behind that one
    await app.runtime.db.run(sql`
      with o as (insert into platform.organizations (name, slug) values ('Old Shadow', 'old-shadow') returning id)
      insert into platform.sites (organization_id, slug, name, schema_name)
      select o.id, ${aliceSite.uuid}, 'Old Shadow Site', 'site_old_shadow' from o`);
    const renamed = await app.request('PUT', `/api/cloud/sites/${aliceSite.slug}/`, { token: alice, body: { name: 'Alice Shop Renamed' } });
    expect(renamed.status).toBe(200);

    // Act
    const byUuid = await app.request('GET', `/api/cloud/sites/${aliceSite.uuid}/`, { token: admin });
    const byUpperUuid = await app.request('GET', `/api/cloud/sites/${aliceSite.uuid.toUpperCase()}/`, { token: alice });

    // Assess
    expect(byUuid.status).toBe(200);
    expect(byUuid.body).toMatchObject({ uuid: aliceSite.uuid, slug: aliceSite.slug, name: 'Alice Shop Renamed' });
    expect(byUpperUuid.body).toMatchObject({ uuid: aliceSite.uuid, slug: aliceSite.slug });
  });
});
