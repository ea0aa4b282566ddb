// Record reads after the first go through one statement that also reads the caller and the site
// (functions/data/records/fused-reads.ts). These tests change what that statement must notice
// between two reads of the same table, and check the second read sees the change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';
import { defineNotes as defineNotesTable, NOTES_DATA } from '#test/support/notes-table.ts';

const DATA = NOTES_DATA;

describe('record reads through a remembered table', () => {
  let app: TestApp;
  let admin: string;
  let site: { slug: string; headers: Record<string, string> };
  let other: { slug: string; headers: Record<string, string> };

  const defineNotes = (headers: Record<string, string>, titles: string[]) => defineNotesTable(app, admin, headers, titles);

  async function member(username: string, permissions: string[]): Promise<string> {
    await app.createUser(username);
    const granted = await app.request('POST', '/api/cloud/organizations/remembered-site-org/members/', {
      token: admin,
      body: { user_slug: username, sites: [{ slug: site.slug, permissions }] },
    });
    expect(granted.status, JSON.stringify(granted.body)).toBeLessThan(300);
    return (await app.login(username, USER_PASSWORD)).access;
  }

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createSite(app, admin, 'Remembered Site');
    other = await createSite(app, admin, 'Other Site');
    await defineNotes(site.headers, ['first', 'second']);
    await defineNotes(other.headers, ['elsewhere']);
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers the same list and record the second time as the first', async () => {
    const reader = await member('steady-reader', ['view_site']);
    const first = await app.request('GET', `${DATA}?_sort=id`, { token: reader, headers: site.headers });
    const second = await app.request('GET', `${DATA}?_sort=id`, { token: reader, headers: site.headers });
    expect(first.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.body.data.map((note: { title: string }) => note.title)).toEqual(['first', 'second']);
    const one = await app.request('GET', `${DATA}1/`, { token: reader, headers: site.headers });
    const again = await app.request('GET', `${DATA}1/`, { token: reader, headers: site.headers });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(one.body);
    expect((await app.request('GET', `${DATA}999/`, { token: reader, headers: site.headers })).status).toBe(404);
  });

  it('answers later pages, filtered pages and a page past the end as the first read did', async () => {
    const reader = await member('paging-reader', ['view_site']);
    const answers: Record<string, unknown> = {};
    for (const query of ['?page=2&page_size=1&_sort=id', '?title=second', '?page=5&page_size=1', '?title=nobody']) {
      const first = await app.request('GET', `${DATA}${query}`, { token: reader, headers: site.headers });
      const second = await app.request('GET', `${DATA}${query}`, { token: reader, headers: site.headers });
      expect(first.status, query).toBe(200);
      expect(second.status, query).toBe(200);
      expect(second.body, query).toEqual(first.body);
      answers[query] = second.body;
    }
    expect(answers['?page=2&page_size=1&_sort=id']).toEqual({ data: [{ id: 2, title: 'second' }], total: 2, page: 2, page_size: 1 });
    expect(answers['?page=5&page_size=1']).toEqual({ data: [], total: 2, page: 5, page_size: 1 });
    expect(answers['?title=nobody']).toEqual({ data: [], total: 0, page: 1, page_size: 20 });
  });

  it("answers each site's own rows for the same app and table names", async () => {
    const mine = await app.request('GET', DATA, { token: admin, headers: site.headers });
    const theirs = await app.request('GET', DATA, { token: admin, headers: other.headers });
    expect(mine.body.total).toBe(2);
    expect(theirs.body.data.map((note: { title: string }) => note.title)).toEqual(['elsewhere']);
  });

  it('refuses a caller whose site access was taken away after a read', async () => {
    const reader = await member('dropped-reader', ['view_site']);
    expect((await app.request('GET', DATA, { token: reader, headers: site.headers })).status).toBe(200);
    const removed = await app.request('DELETE', `/api/cloud/sites/${site.slug}/users/`, {
      token: admin,
      body: { users: ['dropped-reader'] },
    });
    expect(removed.status).toBeLessThan(300);
    const after = await app.request('GET', DATA, { token: reader, headers: site.headers });
    expect(after.status).toBe(403);
    expect(after.body.data).toBeUndefined();
  });

  it('refuses a token revoked after a read', async () => {
    await member('leaving-reader', ['view_site']);
    const { access, refresh } = await app.login('leaving-reader', USER_PASSWORD);
    expect((await app.request('GET', DATA, { token: access, headers: site.headers })).status).toBe(200);
    expect((await app.request('POST', '/api/cloud/auth/jwt/token/blacklist/', { token: access, body: { refresh } })).status).toBe(200);
    const after = await app.request('GET', `${DATA}1/`, { token: access, headers: site.headers });
    expect(after.status).toBe(401);
    expect(after.body.data).toBeUndefined();
  });

  it('reports a bad filter to a caller with access, and only the missing access to one without', async () => {
    const reader = await member('filter-reader', ['view_site']);
    expect((await app.request('GET', DATA, { token: reader, headers: site.headers })).status).toBe(200);
    const bad = await app.request('GET', `${DATA}?nope=1`, { token: reader, headers: site.headers });
    expect(bad.status).toBe(400);
    const outsider = (await app.createUser('filter-outsider')) && (await app.login('filter-outsider', USER_PASSWORD)).access;
    const refused = await app.request('GET', `${DATA}?nope=1`, { token: outsider, headers: site.headers });
    expect(refused.status).toBe(403);
  });

  it('answers 404 once the app is deleted after a read', async () => {
    expect((await app.request('GET', DATA, { token: admin, headers: other.headers })).status).toBe(200);
    expect((await app.request('DELETE', '/api/apps/notes/', { token: admin, headers: other.headers })).status).toBeLessThan(300);
    const after = await app.request('GET', DATA, { token: admin, headers: other.headers });
    expect(after.status).toBe(404);
    expect(after.body.data).toBeUndefined();
  });
});
