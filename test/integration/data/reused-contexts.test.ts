// A caller's context, read for one record read, serves their next reads under a guard sent with the
// read (shared/tenancy/context-reuse.ts). The reuse window is set far longer than any test
// here takes, so every second read below goes the reused way. Every case runs on a list and on a
// record by its key: on PostgreSQL the guard of a list is a statement of its own, and the guard of
// a record read by key is inside the read's statement. Changes made straight in the database
// stand for changes made through another process (another Lambda instance): no write request passes
// through this one to forget the context, so only the guard can notice them. Rate limits are off so
// that no read has to be counted in the database (a counted read never reuses a context).
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '#shared/db/sql.ts';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';
import { statementsDuring } from '#test/support/statement-capture.ts';
import { defineNotes as defineNotesTable, NOTES_DATA } from '#test/support/notes-table.ts';

const DATA = NOTES_DATA;
const dialect = new PgDialect();

const SHAPES = [
  { shape: 'a list', path: DATA, guardInside: false },
  { shape: 'a record by its key', path: `${DATA}1/`, guardInside: true },
];

describe.each(SHAPES)('record reads under a reused caller context: $shape', ({ path: readPath, guardInside }) => {
  let app: TestApp;
  let admin: string;
  let site: { slug: string; organization: string; headers: Record<string, string> };

  const defineNotes = (headers: Record<string, string>) => defineNotesTable(app, admin, headers, ['first', 'second']);

  /** A member of the site's organization with `permissions` on the site; their access token. */
  async function member(username: string, permissions: string[], on = site): Promise<string> {
    await app.createUser(username);
    const added = await app.request('POST', `/api/cloud/organizations/${on.organization}/members/`, {
      token: admin,
      body: { user_slug: username, ...(permissions.length === 0 ? {} : { sites: [{ slug: on.slug, permissions }] }) },
    });
    expect(added.status, JSON.stringify(added.body)).toBeLessThan(300);
    return (await app.login(username, USER_PASSWORD)).access;
  }

  const read = (token: string, headers = site.headers, path = readPath) => app.request('GET', path, { token, headers });

  /**
   * Whether a request sent only the guarded read of a reused context, in one round trip: on
   * PostgreSQL the guard and a list as two statements sent together on one connection, and on
   * PGlite (one connection) or for a record by its key the read inside the guard's statement. Never
   * the caller-and-site statement (its lateral site lookup).
   */
  function reusedOnly({ statements, together }: { statements: SQL[]; together: SQL[][] }): boolean {
    const texts = statements.map((statement) => dialect.sqlToQuery(statement).sql);
    if (texts.some((text) => text.includes('left join lateral'))) return false;
    if (app.database.db.driver !== 'postgres' || guardInside) return texts.length === 1 && texts[0]!.includes('g.holds');
    return texts.length === 2 && together.length === 1 && together[0]!.length === 2 && texts[0]!.endsWith(' as holds');
  }

  /**
   * Reads until a read goes the reused way: the first read of a table through a host finds the table
   * the ordinary way, the next reads it fused with the caller's context, which is then remembered.
   */
  async function readsReused(token: string, headers = site.headers): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const { result, ...sent } = await statementsDuring(app.database.db, () => read(token, headers));
      expect(result.status).toBe(200);
      if (reusedOnly(sent)) return;
    }
    throw new Error('no read went the reused way');
  }

  async function change(statement: ReturnType<typeof sql>): Promise<void> {
    await app.database.db.run(statement);
  }

  beforeAll(async () => {
    app = await startTestApp({ CONTEXT_REUSE_MS: '10000', RATE_LIMIT_ENABLED: 'false' });
    admin = await app.adminToken();
    site = await createSite(app, admin, 'Reuse Site');
    await defineNotes(site.headers);
  });
  afterAll(async () => {
    await app.close();
  });

  it('sends only the guarded read for a read after the first, in one round trip, and answers the same', async () => {
    const token = await member('reuse-steady', ['view_site']);
    const first = await read(token);
    expect(first.status).toBe(200);
    await readsReused(token);
    const { result: again, ...sent } = await statementsDuring(app.database.db, () => read(token));
    expect(reusedOnly(sent)).toBe(true);
    expect(again.body).toEqual(first.body);
    if (app.database.db.driver === 'postgres' && !guardInside) {
      // The guard is built once per remembered context: the next read sends the very same statement.
      const { result: third, ...next } = await statementsDuring(app.database.db, () => read(token));
      expect(reusedOnly(next)).toBe(true);
      expect(third.body).toEqual(first.body);
      expect(next.statements[0]).toBe(sent.statements[0]);
    }
    const record = await read(token, site.headers, `${DATA}1/`);
    expect(record.status).toBe(200);
    expect(record.body.data).toMatchObject({ id: 1, title: 'first' });
    // A key no record has answers 404 the reused way too.
    const missing = await read(token, site.headers, `${DATA}999/`);
    expect(missing.status).toBe(404);
  });

  it('refuses a token revoked in the database after a read', async () => {
    const token = await member('reuse-revoked', ['view_site']);
    await readsReused(token);
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { jti: string; exp: number };
    await change(sql`insert into platform.revoked_tokens (jti, token_type, expires_at)
      values (${claims.jti}, 'access', to_timestamp(${claims.exp}))`);
    const after = await read(token);
    expect(after.status).toBe(401);
    expect(after.body.data).toBeUndefined();
  });

  it('refuses a user disabled, or whose tokens were cut off, in the database after a read', async () => {
    const disabled = await member('reuse-disabled', ['view_site']);
    const cut = await member('reuse-cut-off', ['view_site']);
    await readsReused(disabled);
    await readsReused(cut);
    await change(sql`update platform.users set is_active = false where username = 'reuse-disabled'`);
    await change(sql`update platform.users set tokens_valid_after = now() + interval '1 minute' where username = 'reuse-cut-off'`);
    expect((await read(disabled)).status).toBe(401);
    expect((await read(cut)).status).toBe(401);
  });

  it('refuses a caller whose site permissions or membership went in the database after a read', async () => {
    const withdrawn = await member('reuse-withdrawn', ['view_site']);
    const removed = await member('reuse-removed', ['view_site']);
    await readsReused(withdrawn);
    await readsReused(removed);
    await change(sql`delete from platform.site_user_permissions
      where user_id = (select id from platform.users where username = 'reuse-withdrawn')`);
    await change(sql`delete from platform.organization_members
      where user_id = (select id from platform.users where username = 'reuse-removed')`);
    const afterWithdrawn = await read(withdrawn);
    expect(afterWithdrawn.status).toBe(403);
    expect(afterWithdrawn.body.data).toBeUndefined();
    expect((await read(removed)).status).toBe(403);
  });

  it('answers 404 once the site is deactivated in the database after a read', async () => {
    const closing = await createSite(app, admin, 'Closing Site');
    await defineNotes(closing.headers);
    const token = await member('reuse-closing', ['view_site'], closing);
    await readsReused(token, closing.headers);
    await change(sql`update platform.sites set is_active = false where slug = ${closing.slug}`);
    const after = await read(token, closing.headers);
    expect(after.status).toBe(404);
    expect(after.body.data).toBeUndefined();
  });

  it('refuses at once a caller whose group, removed through the API, gave them the access', async () => {
    // A global group's permissions are not under the guard: a write request through this process
    // forgets every reused context instead.
    const token = await member('reuse-grouped', []);
    expect((await read(token)).status).toBe(403);
    const group = await app.request('POST', '/api/cloud/groups/', {
      token: admin,
      body: { name: 'Reuse site managers', permissions: ['manage_sites'], users: ['reuse-grouped'] },
    });
    expect(group.status, JSON.stringify(group.body)).toBe(201);
    await readsReused(token);
    expect((await app.request('DELETE', `/api/cloud/groups/${group.body.id}/`, { token: admin })).status).toBe(204);
    const after = await read(token);
    expect(after.status).toBe(403);
    expect(after.body.data).toBeUndefined();
  });

  it('does not answer one caller from the context of another, nor one site from another', async () => {
    const other = await createSite(app, admin, 'Reuse Other Site');
    await defineNotes(other.headers);
    const here = await member('reuse-here', ['view_site']);
    await readsReused(here);
    // The same caller on a site of another organization, which they are not a member of.
    const elsewhere = await read(here, other.headers);
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.data).toBeUndefined();
    // Another caller's token on the same site and table, right after.
    const stranger = await app.createUser('reuse-stranger').then(() => app.login('reuse-stranger', USER_PASSWORD));
    const refused = await read(stranger.access);
    expect(refused.status).toBe(403);
    expect(refused.body.data).toBeUndefined();
  });
});
