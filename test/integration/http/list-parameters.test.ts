// The list parameters a hostile client bends, through the API on both databases: `ordering` names
// that Object.prototype holds (each once a 500), a parameter given twice (the last one won), an
// order by a value the caller may not read (a member's hidden email, told a comparison at a time),
// and Envelope B's `has_next` where `_count` leaves no total to tell a further page by.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSite } from '#test/support/sites.ts';
import { createBucket, createStorageSite, type StorageSite } from '#test/support/storage.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

describe('list parameters under attack', () => {
  let app: TestApp;
  let admin: string;
  let member: string;
  let orgSlug: string;
  let siteSlug: string;
  let storage: StorageSite;
  let objects: string;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    const site = await createSite(app, admin, 'Listparam site');
    orgSlug = site.organization;
    siteSlug = site.slug;
    for (const name of ['lp-plain', 'lp-alice', 'lp-bob']) {
      await app.createUser(name);
      const added = await app.request('POST', `/api/cloud/organizations/${orgSlug}/members/`, { token: admin, body: { user_slug: name } });
      expect(added.status).toBe(201);
    }
    const granted = await app.request('POST', `/api/cloud/sites/${siteSlug}/users/`, {
      token: admin,
      body: { users: ['lp-plain', 'lp-alice', 'lp-bob'].map((username) => ({ username, permissions: ['access_site'] })) },
    });
    expect(granted.status).toBeLessThan(300);
    member = await app.tokenOf('lp-plain');
    storage = await createStorageSite(app, admin, 'Listparam storage');
    objects = await createBucket(app, admin, storage, { name: 'Lp bucket' });
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers ordering by a name Object.prototype holds as 400 naming ordering, never a 500', async () => {
    const lists: Array<[string, Record<string, string>, string]> = [
      ['/api/cloud/organizations/', {}, 'name'],
      [`/api/cloud/organizations/${orgSlug}/members/`, {}, 'username'],
      [storage.buckets, storage.tenant, 'name'],
      [objects, storage.tenant, 'path'],
    ];
    for (const [path, headers, field] of lists) {
      for (const name of ['__proto__', 'constructor', '-constructor', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__']) {
        const answer = await app.request('GET', `${path}?ordering=${encodeURIComponent(name)}`, { token: admin, headers });
        expect(answer.status, `${path} ${name}`).toBe(400);
        expect(JSON.stringify(answer.body), `${path} ${name}`).toContain('ordering');
      }
      // The list itself still answers, ordered by a real field.
      const plain = await app.request('GET', `${path}?ordering=-${field}`, { token: admin, headers });
      expect(plain.status, path).toBe(200);
    }
    // As an ordinary member too: the 500 was anyone's to cause.
    const asMember = await app.request('GET', '/api/cloud/organizations/?ordering=__proto__', { token: member });
    expect(asMember.status).toBe(400);
  });

  it('refuses a parameter given twice with a 400 naming it, where the last one used to win', async () => {
    for (const path of [
      '/api/cloud/users/?_count=exact&_count=none',
      '/api/cloud/organizations/?page=1&page=2',
      `/api/cloud/organizations/${orgSlug}/members/?ordering=username&ordering=-username`,
      '/api/cloud/groups/?search=a&search=b',
    ]) {
      const answer = await app.request('GET', path, { token: admin });
      expect(answer.status, path).toBe(400);
      const name = new URL(`http://x${path}`).searchParams.keys().next().value!;
      expect(JSON.stringify(answer.body), path).toContain(name);
      expect(JSON.stringify(answer.body), path).toContain('more than once');
    }
    // A prototype name given twice is refused the same way, and pollutes nothing.
    const proto = await app.request('GET', '/api/cloud/users/?__proto__=a&__proto__=b', { token: admin });
    expect(proto.status).toBe(400);
    expect(({} as Record<string, unknown>).a).toBeUndefined();
    // Once each, every parameter still works.
    const single = await app.request('GET', '/api/cloud/users/?_count=none&page=1', { token: admin });
    expect(single.status).toBe(200);
  });

  it('refuses ordering members by email to a caller who may not read the emails, and keeps it for those who may', async () => {
    const members = `/api/cloud/organizations/${orgSlug}/members/`;
    const shown = await app.request('GET', members, { token: member });
    expect(shown.status).toBe(200);
    const others = shown.body.results.filter((entry: { username: string }) => entry.username !== 'lp-plain');
    expect(others.length).toBeGreaterThan(0);
    for (const entry of others) expect(entry.email).toBeNull();
    for (const ordering of ['email', '-email', 'user__email', '-user__email', 'username,email']) {
      const answer = await app.request('GET', `${members}?ordering=${ordering}`, { token: member });
      expect(answer.status, ordering).toBe(400);
      expect(JSON.stringify(answer.body), ordering).toContain('ordering');
    }
    const asAdmin = await app.request('GET', `${members}?ordering=-email`, { token: admin });
    expect(asAdmin.status).toBe(200);
    const emails = asAdmin.body.results.map((entry: { email: string }) => entry.email);
    expect(emails).toEqual([...emails].sort().reverse());
  });

  it('answers has_next in Envelope B pages under _count=none and planned, from the look-ahead row', async () => {
    const path = `/api/cloud/sites/${siteSlug}/users/?search=lp-&page_size=2`;
    const exact = await app.request('GET', path, { token: admin });
    expect(exact.body).toMatchObject({ total: 3, total_pages: 2 });
    expect(exact.body).not.toHaveProperty('has_next');
    const first = await app.request('GET', `${path}&_count=none`, { token: admin });
    expect(first.body).toMatchObject({ total: null, total_pages: null, has_next: true });
    const last = await app.request('GET', `${path}&_count=none&page=2`, { token: admin });
    expect(last.body).toMatchObject({ total: null, has_next: false });
    expect(last.body.data).toHaveLength(1);
    const planned = await app.request('GET', `${path}&_count=planned&page=2`, { token: admin });
    expect(planned.body).toMatchObject({ total: 3, total_is_estimate: false, has_next: false });
  });
});
