import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createStorageSite, siteUser, type StorageSite } from '#test/support/storage.ts';

describe('storage buckets API', () => {
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  const call = (method: string, path: string, body?: unknown, token = admin) =>
    app.request(method, path, { token, body, headers: site.tenant });

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Bucket Site');
  });
  afterAll(async () => {
    await app.close();
  });

  it('creates a bucket with the spec defaults and object_count 0', async () => {
    const created = await call('POST', site.buckets, { name: 'Team Photos!', app_category: 'assets' });

    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Team Photos!',
      slug: 'team-photos',
      visibility: 'private',
      file_size_limit: 52428800,
      allowed_mime_types: [],
      app_category: 'assets',
      storage_provider: 'object_store',
      object_count: 0,
      modified_by: null,
    });
    expect(created.body.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof created.body.app).toBe('number');
  });

  it('numbers the slug -2, -3 when the name is taken in the same app', async () => {
    const first = await call('POST', site.buckets, { name: 'Docs', app_category: 'attachments' });
    const second = await call('POST', site.buckets, { name: 'docs', app_category: 'attachments' });
    const third = await call('POST', site.buckets, { name: 'DOCS', app_category: 'attachments' });

    expect([first.body.slug, second.body.slug, third.body.slug]).toEqual(['docs', 'docs-2', 'docs-3']);
  });

  it('requires name and app_category and checks each field', async () => {
    const missing = await call('POST', site.buckets, {});
    const wrong = await call('POST', site.buckets, { name: 'X', app_category: 'other', visibility: 'open', file_size_limit: 0 });
    const symbols = await call('POST', site.buckets, { name: '!!!', app_category: 'assets' });

    expect(missing.status).toBe(400);
    expect(missing.body.errors).toMatchObject({ name: ['This field is required.'], app_category: ['This field is required.'] });
    expect(Object.keys(wrong.body.errors).sort()).toEqual(['app_category', 'file_size_limit', 'visibility']);
    expect(symbols.body.errors).toHaveProperty('name');
  });

  it('accepts the three MIME pattern forms and refuses anything else, naming the entry', async () => {
    const good = await call('POST', site.buckets, {
      name: 'Typed',
      app_category: 'assets',
      allowed_mime_types: ['image/*', 'application/vnd.ms-excel', '*/*', 'Text/Plain', 'image/*'],
    });
    const bad = await Promise.all(
      ['image', '*/png', 'image/', '/png', '-x/y', 'image/*+', 'ima ge/png', 'image/png;q=1', ''].map((pattern) =>
        call('POST', site.buckets, { name: 'Bad', app_category: 'assets', allowed_mime_types: [pattern] }),
      ),
    );

    expect(good.status).toBe(201);
    expect(good.body.allowed_mime_types).toEqual(['image/*', 'application/vnd.ms-excel', '*/*', 'text/plain']);
    for (const answer of bad) {
      expect(answer.status).toBe(400);
      expect(answer.body.errors['allowed_mime_types.0'][0]).toMatch(/is not a MIME pattern/);
    }
  });

  it('lists only the app buckets with search, filters, ordering and pages (Envelope C)', async () => {
    // An app of its own: the other tests add buckets to the site's app and make some of them public.
    const listing = await call('POST', '/api/apps/', { name: 'Listing App' });
    const buckets = `/api/apps/${listing.body.slug}/storage/buckets/`;
    for (const name of ['Team Photos', 'Docs', 'Typed']) await call('POST', buckets, { name, app_category: 'assets' });
    const other = await call('POST', '/api/apps/', { name: 'Other App' });
    await call('POST', `/api/apps/${other.body.slug}/storage/buckets/`, { name: 'Elsewhere', app_category: 'assets' });
    await call('POST', buckets, { name: 'Public Media', app_category: 'assets', visibility: 'public' });

    const all = await call('GET', `${buckets}?page_size=100`);
    const searched = await call('GET', `${buckets}?search=MEDIA`);
    const bySlug = await call('GET', `${buckets}?search=team-ph`);
    const publicAssets = await call('GET', `${buckets}?visibility=public&app_category=assets`);
    const ordered = await call('GET', `${buckets}?ordering=-name&page_size=2`);
    const secondPage = await call('GET', `${buckets}?ordering=-name&page_size=2&page=2`);
    const badOrdering = await call('GET', `${buckets}?ordering=color`);
    const unknown = await call('GET', `${buckets}?colour=red`);

    expect(Object.keys(all.body).sort()).toEqual(['count', 'next', 'previous', 'results']);
    expect(all.body.results.map((b: { name: string }) => b.name)).not.toContain('Elsewhere');
    expect(searched.body.results.map((b: { slug: string }) => b.slug)).toEqual(['public-media']);
    expect(bySlug.body.results.map((b: { slug: string }) => b.slug)).toEqual(['team-photos']);
    expect(publicAssets.body.results.map((b: { slug: string }) => b.slug)).toEqual(['public-media']);
    const names = all.body.results
      .map((b: { name: string }) => b.name)
      .sort()
      .reverse();
    expect(ordered.body.results.map((b: { name: string }) => b.name)).toEqual(names.slice(0, 2));
    expect(ordered.body.next).toContain('page=2');
    expect(secondPage.body.results.map((b: { name: string }) => b.name)).toEqual(names.slice(2, 4));
    expect(badOrdering.status).toBe(400);
    expect(unknown.status).toBe(400);
  });

  it('reads, patches and refuses changes of slug, app and uuid; PUT is 405', async () => {
    await call('POST', site.buckets, { name: 'Mutable', app_category: 'assets' });

    const detail = await call('GET', `${site.buckets}mutable/`);
    const patched = await call('PATCH', `${site.buckets}mutable/`, {
      name: 'Renamed',
      visibility: 'public',
      file_size_limit: 1024,
      allowed_mime_types: ['text/*'],
      app_category: 'attachments',
    });
    const slug = await call('PATCH', `${site.buckets}mutable/`, { slug: 'other' });
    const appChange = await call('PATCH', `${site.buckets}mutable/`, { app: 9 });
    const uuid = await call('PATCH', `${site.buckets}mutable/`, { uuid: '00000000-0000-0000-0000-000000000000' });
    const put = await call('PUT', `${site.buckets}mutable/`, { name: 'X' });

    expect(detail.status).toBe(200);
    expect(detail.body.slug).toBe('mutable');
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'Renamed',
      slug: 'mutable',
      visibility: 'public',
      file_size_limit: 1024,
      allowed_mime_types: ['text/*'],
      app_category: 'attachments',
    });
    expect(patched.body.modified_by).toBe(detail.body.created_by);
    expect(slug.status).toBe(400);
    expect(slug.body.errors).toEqual({ slug: ['This field cannot be changed.'] });
    expect(appChange.body.errors).toHaveProperty('app');
    expect(uuid.body.errors).toHaveProperty('uuid');
    expect(put.status).toBe(405);
    expect(put.body.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('answers 404 for an unknown app or bucket', async () => {
    expect((await call('GET', '/api/apps/nope/storage/buckets/')).status).toBe(404);
    expect((await call('GET', `${site.buckets}nope/`)).status).toBe(404);
  });

  it('lets site members read buckets and only content managers change them', async () => {
    const reader = await siteUser(app, admin, site, 'bucket-reader', ['view_site']);
    const manager = await siteUser(app, admin, site, 'bucket-manager', ['manage_site']);
    const outsider = await siteUser(app, admin, site, 'bucket-outsider', []);

    const readerList = await call('GET', site.buckets, undefined, reader);
    const readerCreate = await call('POST', site.buckets, { name: 'Nope', app_category: 'assets' }, reader);
    const managerCreate = await call('POST', site.buckets, { name: 'Managed', app_category: 'assets' }, manager);
    const managerPatch = await call('PATCH', `${site.buckets}managed/`, { visibility: 'public' }, manager);
    const outsiderList = await call('GET', site.buckets, undefined, outsider);
    const anonymous = await app.request('GET', site.buckets, { headers: site.tenant });

    expect(readerList.status).toBe(200);
    expect(readerCreate.status).toBe(403);
    expect(readerCreate.body.code).toBe('PERMISSION_DENIED');
    expect(managerCreate.status).toBe(201);
    expect(managerPatch.status).toBe(200);
    expect(outsiderList.status).toBe(403);
    expect(anonymous.status).toBe(401);
  });

  it('deletes an empty bucket with 204 and no body', async () => {
    await call('POST', site.buckets, { name: 'Short Lived', app_category: 'assets' });

    const deleted = await call('DELETE', `${site.buckets}short-lived/`);
    const after = await call('GET', `${site.buckets}short-lived/`);

    expect(deleted.status).toBe(204);
    expect(deleted.body).toBe('');
    expect(after.status).toBe(404);
  });
});
