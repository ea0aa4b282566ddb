import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';
import { createBucket, createStorageSite, sendBinary, siteUser, type StorageSite } from '#test/support/storage.ts';

describe('object permissions', () => {
  let app: TestApp;
  let admin: string;
  let owner: string;
  let other: string;
  let staff: string;
  let outsider: string;
  let site: StorageSite;
  let vault: string;
  let gallery: string;
  const send = (method: string, route: string, token: string | undefined, options: Parameters<typeof sendBinary>[3] = {}) =>
    sendBinary(app.url, method, route, { ...options, token, headers: { ...site.tenant, ...options.headers } });
  const json = (method: string, route: string, token: string | undefined, body: unknown) =>
    send(method, route, token, { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const listed = async (objects: string, token: string | undefined): Promise<string[]> => {
    const answer = await send('GET', `${objects}?page_size=100`, token);
    expect(answer.status).toBe(200);
    return answer.json.data.map((o: { file_path: string }) => o.file_path).sort();
  };

  // Vault (secret.txt) and Gallery (open.txt) are only read or refused by the tests, so the lists hold in
  // any order (--sequence.shuffle); a test that writes objects does so in buckets of its own.
  /** A new bucket of the site (private unless told); answers its objects route. */
  const bucketOf = (name: string, visibility?: 'public') => createBucket(app, admin, site, { name, ...(visibility && { visibility }) });
  const putText = (route: string, token: string, body: string) =>
    send('PUT', route, token, { body, headers: { 'content-type': 'text/plain' } });

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Permission Site');
    vault = await createBucket(app, admin, site, { name: 'Vault' });
    gallery = await createBucket(app, admin, site, { name: 'Gallery', visibility: 'public' });
    owner = await siteUser(app, admin, site, 'object-owner', ['access_site']);
    other = await siteUser(app, admin, site, 'object-other', ['access_site']);
    outsider = await siteUser(app, admin, site, 'object-outsider', []);
    await app.createUser('object-staff', { is_staff: true });
    staff = (await app.login('object-staff', USER_PASSWORD)).access;
    await send('PUT', `${vault}secret.txt`, owner, { body: 'private bytes', headers: { 'content-type': 'text/plain' } });
    await send('PUT', `${gallery}open.txt`, owner, { body: 'public bytes', headers: { 'content-type': 'text/plain' } });
  });
  afterAll(async () => {
    await app.close();
  });

  it('hides a private object from other users and anonymous callers (404), not from its owner or staff', async () => {
    const byOwner = await send('GET', `${vault}secret.txt`, owner);
    const byStaff = await send('GET', `${vault}secret.txt`, staff);
    const byOther = await send('GET', `${vault}secret.txt`, other);
    const byOutsider = await send('GET', `${vault}secret.txt`, outsider);
    const anonymous = await send('GET', `${vault}secret.txt`, undefined);
    const metadata = await send('GET', `${vault}secret.txt?metadata=true`, other);

    expect(byOwner.status).toBe(200);
    expect(byOwner.bytes.toString()).toBe('private bytes');
    expect(byStaff.status).toBe(200);
    expect(byOther.status).toBe(404);
    expect(byOutsider.status).toBe(404);
    expect(anonymous.status).toBe(404);
    expect(anonymous.bytes.toString()).not.toContain('private bytes');
    expect(metadata.status).toBe(404);
  });

  it('leaves private objects out of lists and search for everyone but their owner and staff', async () => {
    expect(await listed(vault, owner)).toEqual(['secret.txt']);
    expect(await listed(vault, staff)).toEqual(['secret.txt']);
    expect(await listed(vault, other)).toEqual([]);
    const search = await json('POST', `${vault}search/`, other, { search: 'secret' });
    expect(search.json.data).toMatchObject({ objects: [], count: 0 });
  });

  it('reads a public object anonymously and as a user without access to the site', async () => {
    const anonymous = await send('GET', `${gallery}open.txt`, undefined);
    const byOutsider = await send('GET', `${gallery}open.txt`, outsider);

    expect(anonymous.status).toBe(200);
    expect(anonymous.bytes.toString()).toBe('public bytes');
    expect(anonymous.headers.get('cache-control')).toBe('public, no-cache');
    expect(byOutsider.status).toBe(200);
    expect(await listed(gallery, undefined)).toEqual(['open.txt']);
  });

  it('lets any member write a public object, never an anonymous caller or an outsider', async () => {
    const gallery = await bucketOf('Wall', 'public');
    await putText(`${gallery}open.txt`, owner, 'public bytes');
    const replaced = await send('PUT', `${gallery}open.txt`, other, { body: 'rewritten', headers: { 'content-type': 'text/plain' } });
    const anonymous = await send('PUT', `${gallery}open.txt`, undefined, { body: 'vandal' });
    const byOutsider = await send('PUT', `${gallery}open.txt`, outsider, { body: 'vandal' });
    const anonymousDelete = await send('DELETE', `${gallery}open.txt`, undefined);
    const patched = await json('PATCH', `${gallery}open.txt`, other, { metadata: { by: 'other' } });

    expect(replaced.status).toBe(200);
    expect(anonymous.status).toBe(401);
    expect(anonymous.json).toMatchObject({ success: false, status_code: 401 });
    expect(byOutsider.status).toBe(403);
    expect(anonymousDelete.status).toBe(401);
    expect(patched.status).toBe(200);
    expect((await send('GET', `${gallery}open.txt`, undefined)).bytes.toString()).toBe('rewritten');
  });

  it("refuses another member's changes to a private object: write 403, patch, delete and copy 404", async () => {
    const overwrite = await send('PUT', `${vault}secret.txt`, other, { body: 'mine now', headers: { 'content-type': 'text/plain' } });
    const patch = await json('PATCH', `${vault}secret.txt`, other, { visibility: 'public' });
    const remove = await send('DELETE', `${vault}secret.txt`, other);
    const batch = await json('POST', `${vault}batch-delete/`, other, { paths: ['secret.txt'] });
    const copy = await json('POST', `${vault}copy/`, other, { source_path: 'secret.txt', destination_path: 'stolen.txt' });
    const move = await json('POST', `${vault}move/`, other, { source_path: 'secret.txt', destination_path: 'stolen.txt' });

    expect(overwrite.status).toBe(403);
    expect(patch.status).toBe(404);
    expect(remove.status).toBe(404);
    expect(batch.json.data).toEqual({ deleted: [], not_found: ['secret.txt'] });
    expect(copy.status).toBe(404);
    expect(move.status).toBe(404);
    expect((await send('GET', `${vault}secret.txt`, owner)).bytes.toString()).toBe('private bytes');
  });

  it("lets an object's own visibility override its bucket's", async () => {
    const vault = await bucketOf('Strongroom');
    const gallery = await bucketOf('Showroom', 'public');
    await putText(`${gallery}open.txt`, owner, 'public bytes');
    await send('PUT', `${vault}shared.txt`, owner, { body: 'shared', headers: { 'content-type': 'text/plain' } });
    await send('PUT', `${gallery}hidden.txt`, owner, { body: 'hidden', headers: { 'content-type': 'text/plain' } });
    await json('PATCH', `${vault}shared.txt`, owner, { visibility: 'public' });
    await json('PATCH', `${gallery}hidden.txt`, owner, { visibility: 'private' });

    expect((await send('GET', `${vault}shared.txt`, undefined)).status).toBe(200);
    expect((await send('GET', `${gallery}hidden.txt`, undefined)).status).toBe(404);
    expect((await send('GET', `${gallery}hidden.txt`, other)).status).toBe(404);
    expect((await send('GET', `${gallery}hidden.txt`, owner)).headers.get('cache-control')).toBe('private, no-cache');
    expect(await listed(gallery, undefined)).toEqual(['open.txt']);
  });

  it('refuses to list or search a private bucket for callers without access to the site: 403, anonymous 401', async () => {
    const byOutsider = await send('GET', vault, outsider);
    const searchByOutsider = await json('POST', `${vault}search/`, outsider, { search: '' });
    const anonymous = await send('GET', vault, undefined);
    const anonymousSearch = await json('POST', `${vault}search/`, undefined, { search: '' });
    const missingBucket = await send('GET', vault.replace('/vault/', '/no-such-bucket/'), outsider);
    const publicBucket = await send('GET', gallery, outsider);

    for (const answer of [byOutsider, searchByOutsider, missingBucket]) {
      expect(answer.status).toBe(403);
      expect(answer.json).toMatchObject({ success: false, status_code: 403 });
    }
    for (const answer of [anonymous, anonymousSearch]) expect(answer.status).toBe(401);
    expect(JSON.stringify([byOutsider.json, searchByOutsider.json])).not.toContain('secret.txt');
    expect(publicBucket.status).toBe(200);
  });

  it('lets a member upload new objects into a private bucket, which they then own', async () => {
    const vault = await bucketOf('Lockers');
    const created = await send('PUT', `${vault}mine.txt`, other, { body: 'mine', headers: { 'content-type': 'text/plain' } });

    expect(created.status).toBe(201);
    expect((await send('GET', `${vault}mine.txt`, other)).status).toBe(200);
    expect((await send('GET', `${vault}mine.txt`, owner)).status).toBe(404);
  });
});
