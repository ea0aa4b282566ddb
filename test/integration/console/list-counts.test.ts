// `_count=exact|planned|none` on the console lists (DECISIONS), through the API on both databases:
// Envelope C (users, groups), A (organizations) and B (a site's users) answer the total each mode
// asks for, `next` from the look-ahead row when there is no exact total, and a 400 naming `_count`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSite } from '#test/support/sites.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

describe('_count on console lists', () => {
  let app: TestApp;
  let admin: string;
  let siteSlug: string;
  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    for (let n = 1; n <= 5; n += 1) await app.createUser(`lcount-${n}`);
    for (const name of ['Lcorg one', 'Lcorg two', 'Lcorg three']) {
      const created = await app.request('POST', '/api/cloud/organizations/', { token: admin, body: { name } });
      expect(created.status).toBe(201);
    }
    const site = await createSite(app, admin, 'Lcount site');
    siteSlug = site.slug;
    for (const n of [1, 2, 3]) {
      const path = `/api/cloud/organizations/${site.organization}/members/`;
      expect((await app.request('POST', path, { token: admin, body: { user_slug: `lcount-${n}` } })).status).toBe(201);
    }
    const granted = await app.request('POST', `/api/cloud/sites/${siteSlug}/users/`, {
      token: admin,
      body: { users: [1, 2, 3].map((n) => ({ username: `lcount-${n}`, permissions: ['access_site'] })) },
    });
    expect(granted.status).toBeLessThan(300);
  });
  afterAll(async () => {
    await app.close();
  });

  const users = (query: string) => app.request('GET', `/api/cloud/users/?search=lcount&page_size=2&${query}`, { token: admin });

  it('answers the exact count by default and with _count=exact, as the spec has it', async () => {
    for (const query of ['', '_count=exact']) {
      const answer = await users(query);
      expect(answer.status).toBe(200);
      expect(answer.body.count).toBe(5);
      expect(answer.body).not.toHaveProperty('total_is_estimate');
      expect(answer.body.results).toHaveLength(2);
      expect(answer.body.next).toContain('page=2');
    }
  });

  it('answers no count under _count=none, with next from the look-ahead row', async () => {
    const first = await users('_count=none');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ count: null, previous: null });
    expect(first.body).not.toHaveProperty('total_is_estimate');
    expect(first.body.results.map((user: { username: string }) => user.username)).toEqual(['lcount-1', 'lcount-2']);
    expect(first.body.next).toContain('page=2');
    expect(first.body.next).toContain('_count=none');
    const last = await users('_count=none&page=3');
    expect(last.body).toMatchObject({ count: null, next: null });
    expect(last.body.results.map((user: { username: string }) => user.username)).toEqual(['lcount-5']);
    // A page that ends exactly where the matches end has no next page either.
    const even = await app.request('GET', '/api/cloud/users/?search=lcount&page_size=5&_count=none', { token: admin });
    expect(even.body).toMatchObject({ count: null, next: null });
    expect(even.body.results).toHaveLength(5);
  });

  it("answers the planner's estimate under _count=planned, exact where the page shows the end", async () => {
    const first = await users('_count=planned');
    expect(first.status).toBe(200);
    expect(first.body.total_is_estimate).toBe(true);
    // Never below what the page has seen: two rows and the look-ahead one.
    expect(first.body.count).toBeGreaterThanOrEqual(3);
    expect(first.body.next).toContain('page=2');
    const last = await users('_count=planned&page=3');
    expect(last.body).toMatchObject({ count: 5, total_is_estimate: false, next: null });
  });

  it('refuses an unknown or repeated _count with a 400 naming it', async () => {
    for (const query of ['_count=estimated', '_count=', '_count=__proto__', '_count=none%00']) {
      const answer = await users(query);
      expect(answer.status, query).toBe(400);
      expect(JSON.stringify(answer.body), query).toContain('_count');
    }
    const groups = await app.request('GET', '/api/cloud/groups/?_count=EXACT', { token: admin });
    expect(groups.status).toBe(400);
    expect(JSON.stringify(groups.body)).toContain('_count');
  });

  it('answers Envelope A (organizations) with a null total and has_next from the look-ahead row', async () => {
    const path = '/api/cloud/organizations/?search=lcorg&page_size=2';
    const exact = await app.request('GET', path, { token: admin });
    expect(exact.body).toMatchObject({ total: 3, pagination: { has_next: true } });
    const none = await app.request('GET', `${path}&_count=none`, { token: admin });
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ total: null, pagination: { page: 1, page_size: 2, has_next: true, has_previous: false } });
    expect(none.body.data).toHaveLength(2);
    const second = await app.request('GET', `${path}&_count=none&page=2`, { token: admin });
    expect(second.body).toMatchObject({ total: null, pagination: { has_next: false, has_previous: true } });
    const planned = await app.request('GET', `${path}&_count=planned&page=2`, { token: admin });
    expect(planned.body).toMatchObject({ total: 3, total_is_estimate: false, pagination: { has_next: false } });
  });

  it("answers Envelope B (a site's users) with null total and total_pages under _count=none", async () => {
    const path = `/api/cloud/sites/${siteSlug}/users/?search=lcount&page_size=2`;
    const exact = await app.request('GET', path, { token: admin });
    expect(exact.body).toMatchObject({ total: 3, total_pages: 2 });
    const none = await app.request('GET', `${path}&_count=none`, { token: admin });
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ success: true, total: null, total_pages: null, page: 1, page_size: 2 });
    expect(none.body.data).toHaveLength(2);
    const planned = await app.request('GET', `${path}&_count=planned`, { token: admin });
    expect(planned.body.total_is_estimate).toBe(true);
    expect(planned.body.total).toBeGreaterThanOrEqual(3);
  });

  it('counts groups planned and not at all (Envelope C over a drizzle-built list)', async () => {
    for (const name of ['lc-group-a', 'lc-group-b', 'lc-group-c']) {
      expect((await app.request('POST', '/api/cloud/groups/', { token: admin, body: { name } })).status).toBe(201);
    }
    const none = await app.request('GET', '/api/cloud/groups/?search=lc-group&page_size=2&_count=none', { token: admin });
    expect(none.body).toMatchObject({ count: null });
    expect(none.body.next).toContain('page=2');
    const planned = await app.request('GET', '/api/cloud/groups/?search=lc-group&page_size=2&page=2&_count=planned', { token: admin });
    expect(planned.body).toMatchObject({ count: 3, total_is_estimate: false, next: null });
  });

  it('answers a page number past the end of every table as 400 naming page, never a 500', async () => {
    // (page - 1) × page_size must stay an exact integer for the statement's OFFSET.
    for (const path of [
      '/api/cloud/users/?page=99999999999999999999',
      '/api/cloud/users/?page=9007199254740991&page_size=100',
      '/api/cloud/groups/?page=1000000000',
      '/api/cloud/organizations/?page=1e3',
      `/api/cloud/sites/${siteSlug}/users/?page=99999999999999999999`,
    ]) {
      const answer = await app.request('GET', path, { token: admin });
      expect(answer.status, path).toBe(400);
      expect(JSON.stringify(answer.body), path).toContain('page');
    }
    const last = await app.request('GET', '/api/cloud/users/?search=lcount&page=999999999&page_size=100', { token: admin });
    expect(last.status).toBe(200);
    expect(last.body.results).toEqual([]);
  });
});
