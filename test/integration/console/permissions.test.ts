import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';

describe('permissions API', () => {
  let app: TestApp;
  let token: string;
  beforeAll(async () => {
    app = await startTestApp();
    await app.createUser('perm-reader');
    token = (await app.login('perm-reader', USER_PASSWORD)).access;
  });
  afterAll(async () => {
    await app.close();
  });

  const codenames = (body: { results: Array<{ codename: string }> }) => body.results.map((permission) => permission.codename).sort();

  it('lists the 15 permission names of the spec to any signed-in user', async () => {
    const answer = await app.request('GET', '/api/cloud/permissions/', { token });

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ count: 15, next: null, previous: null });
    expect(codenames(answer.body)).toEqual(
      [
        'view_organization',
        'change_organization',
        'delete_organization',
        'manage_organization',
        'invite_members',
        'manage_sites',
        'view_site',
        'access_site',
        'manage_site',
        'manage_site_users',
        'admin_site',
        'view_user',
        'add_user',
        'change_user',
        'delete_user',
      ].sort(),
    );
    expect(answer.body.results[0]).toEqual({
      id: expect.any(Number),
      codename: expect.any(String),
      name: expect.any(String),
      model: expect.any(String),
    });
  });

  it('filters by model', async () => {
    const site = await app.request('GET', '/api/permissions/?model=site', { token });

    expect(codenames(site.body)).toEqual(['access_site', 'admin_site', 'manage_site', 'manage_site_users', 'view_site']);
    expect(site.body.results.every((permission: { model: string }) => permission.model === 'site')).toBe(true);
    const user = await app.request('GET', '/api/cloud/permissions/?model=user', { token });
    expect(user.body.count).toBe(4);
  });

  it('refuses an unknown model with a 400', async () => {
    const answer = await app.request('GET', '/api/cloud/permissions/?model=planet', { token });

    expect(answer.status).toBe(400);
    expect(answer.body.errors.model).toBeDefined();
  });

  it('pages the list', async () => {
    const answer = await app.request('GET', '/api/cloud/permissions/?page_size=10&page=2', { token });

    expect(answer.body.results).toHaveLength(5);
    expect(answer.body.next).toBeNull();
    expect(answer.body.previous).not.toBeNull();
  });

  it('shows one permission by id, and 404 for unknown or malformed ids', async () => {
    const list = await app.request('GET', '/api/cloud/permissions/?model=organization', { token });
    const first = list.body.results[0];

    const detail = await app.request('GET', `/api/cloud/permissions/${first.id}/`, { token });
    expect(detail.status).toBe(200);
    expect(detail.body).toEqual(first);
    expect((await app.request('GET', '/api/cloud/permissions/99999/', { token })).status).toBe(404);
    expect((await app.request('GET', '/api/cloud/permissions/view_user/', { token })).status).toBe(404);
  });

  it('needs a signed-in caller', async () => {
    expect((await app.request('GET', '/api/cloud/permissions/')).status).toBe(401);
  });
});
