import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantSchema } from '#shared/db/tenant-schemas.ts';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';

/** Sites are made with SQL here: the sites API is another part of the issue. */
async function makeSite(app: TestApp, organizationSlug: string, siteSlug: string): Promise<string> {
  const schemaName = `site_${siteSlug.replace(/-/g, '_')}`;
  await app.runtime.db.run(sql`
    insert into platform.organizations (name, slug) values (${organizationSlug}, ${organizationSlug}) on conflict do nothing`);
  await app.runtime.db.run(sql`
    insert into platform.sites (organization_id, slug, name, schema_name)
    select id, ${siteSlug}, ${siteSlug}, ${schemaName} from platform.organizations where slug = ${organizationSlug}`);
  await createTenantSchema(app.runtime.db, schemaName);
  return schemaName;
}

async function makeOrganizationAdmin(app: TestApp, organizationSlug: string, username: string): Promise<void> {
  await app.runtime.db.run(sql`
    insert into platform.organization_members (organization_id, user_id, is_admin)
    select o.id, u.id, true from platform.organizations o, platform.users u where o.slug = ${organizationSlug} and u.username = ${username}`);
}

/** Gives a member of the site's organization (made one here: a grant counts for members only) a site permission. */
async function grantOnSite(app: TestApp, siteSlug: string, username: string, codename: string): Promise<void> {
  await app.runtime.db.run(sql`
    insert into platform.organization_members (organization_id, user_id)
    select s.organization_id, u.id from platform.sites s, platform.users u where s.slug = ${siteSlug} and u.username = ${username}
    on conflict do nothing`);
  await app.runtime.db.run(sql`
    insert into platform.site_user_permissions (site_id, user_id, permission_id)
    select s.id, u.id, p.id from platform.sites s, platform.users u, platform.permissions p
    where s.slug = ${siteSlug} and u.username = ${username} and p.codename = ${codename}`);
}

const CREDENTIALS_SCHEMA = {
  type: 'object',
  required: ['username', 'password'],
  properties: { username: { type: 'string' }, password: { type: 'string', minLength: 8 } },
  additionalProperties: false,
};

describe('secret types and secrets API', () => {
  let app: TestApp;
  let admin: string;
  let alphaSchema: string;
  const tokens: Record<string, string> = {};
  const onAlpha = () => ({ 'x-tenant': 'alpha' });
  const onBeta = () => ({ 'x-tenant': 'beta' });

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    alphaSchema = await makeSite(app, 'org-a', 'alpha');
    await makeSite(app, 'org-b', 'beta');
    for (const name of ['sec-orgadmin', 'sec-manager', 'sec-viewer', 'sec-outsider']) {
      await app.createUser(name);
    }
    await makeOrganizationAdmin(app, 'org-a', 'sec-orgadmin');
    await grantOnSite(app, 'alpha', 'sec-manager', 'manage_site');
    await grantOnSite(app, 'alpha', 'sec-viewer', 'view_site');
    for (const name of ['sec-orgadmin', 'sec-manager', 'sec-viewer', 'sec-outsider']) {
      tokens[name] = (await app.login(name, USER_PASSWORD)).access;
    }
    await app.runtime.db.run(sql.raw(`insert into ${alphaSchema}.apps (name, slug) values ('CRM', 'crm'), ('Blog', 'blog')`));
  });
  afterAll(async () => {
    await app.close();
  });

  describe('tenant resolution', () => {
    it('answers 400 without a site, 404 for an unknown site and 403 for a caller without access', async () => {
      const none = await app.request('GET', '/api/secrets/', { token: admin });
      expect(none.status).toBe(400);
      expect(none.body.status).toBe('error');
      const unknown = await app.request('GET', '/api/secrets/', { token: admin, headers: { 'x-tenant': 'no-such-site' } });
      expect(unknown.status).toBe(404);
      const outsider = await app.request('GET', '/api/secrets/', { token: tokens['sec-outsider'], headers: onAlpha() });
      expect(outsider.status).toBe(403);
      const otherOrganization = await app.request('GET', '/api/secret-types/', { token: tokens['sec-orgadmin'], headers: onBeta() });
      expect(otherOrganization.status).toBe(403);
    });
  });

  describe('secret types', () => {
    it('creates, reads, lists, replaces and deletes a type', async () => {
      // Other tests make types too: count from what is there before.
      const before = (await app.request('GET', '/api/secret-types/?page_size=100', { token: admin, headers: onAlpha() })).body
        .count as number;
      const created = await app.request('POST', '/api/secret-types/', {
        token: tokens['sec-orgadmin'],
        headers: onAlpha(),
        body: { slug: 'api-key', name: 'API key', description: 'A bare token', schema: { type: 'string', minLength: 10 } },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        slug: 'api-key',
        name: 'API key',
        description: 'A bare token',
        schema: { type: 'string', minLength: 10 },
      });

      const detail = await app.request('GET', '/api/secret-types/api-key/', { token: tokens['sec-viewer'], headers: onAlpha() });
      expect(detail.status).toBe(200);
      expect(detail.body).toEqual(created.body);
      const list = await app.request('GET', '/api/secret-types/?page_size=100', { token: tokens['sec-viewer'], headers: onAlpha() });
      expect(list.body).toMatchObject({ count: before + 1, next: null, previous: null });
      expect(list.body.results).toContainEqual(expect.objectContaining({ slug: 'api-key' }));

      const replaced = await app.request('PUT', '/api/secret-types/api-key/', {
        token: tokens['sec-manager'],
        headers: onAlpha(),
        body: { name: 'API token', schema: { type: 'string', minLength: 20 } },
      });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toMatchObject({ slug: 'api-key', name: 'API token', description: '', schema: { minLength: 20 } });

      const deleted = await app.request('DELETE', '/api/secret-types/api-key/', { token: tokens['sec-manager'], headers: onAlpha() });
      expect(deleted.status).toBe(204);
      expect((await app.request('GET', '/api/secret-types/api-key/', { token: admin, headers: onAlpha() })).status).toBe(404);
    });

    it('refuses schema documents that are not valid JSON Schema', async () => {
      const cases = [{ type: 'strin' }, { proprties: {} }, { $ref: 'https://example.com/remote.json' }, { type: 'string', pattern: '(' }];
      for (const schema of cases) {
        const answer = await app.request('POST', '/api/secret-types/', {
          token: admin,
          headers: onAlpha(),
          body: { slug: 'broken', name: 'Broken', schema },
        });
        expect(answer.status).toBe(400);
        expect(answer.body.errors.schema).toBeDefined();
      }
      const notAnObject = await app.request('POST', '/api/secret-types/', {
        token: admin,
        headers: onAlpha(),
        body: { slug: 'broken', name: 'B', schema: 'x' },
      });
      expect(notAnObject.status).toBe(400);
    });

    it('refuses bad and taken slugs with field errors', async () => {
      const bad = await app.request('POST', '/api/secret-types/', {
        token: admin,
        headers: onAlpha(),
        body: { slug: 'Not A Slug', name: 'X' },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.errors.slug).toBeDefined();
      await app.request('POST', '/api/secret-types/', { token: admin, headers: onAlpha(), body: { slug: 'taken', name: 'Taken' } });
      const taken = await app.request('POST', '/api/secret-types/', {
        token: admin,
        headers: onAlpha(),
        body: { slug: 'taken', name: 'Again' },
      });
      expect(taken.status).toBe(400);
      expect(taken.body.errors).toEqual({ slug: ['A secret type with that slug already exists.'] });
    });

    it('lets only secret managers change types', async () => {
      const answer = await app.request('POST', '/api/secret-types/', {
        token: tokens['sec-viewer'],
        headers: onAlpha(),
        body: { slug: 'nope', name: 'Nope' },
      });
      expect(answer.status).toBe(403);
      expect(answer.body.code).toBe('PERMISSION_DENIED');
    });
  });

  describe('secrets', () => {
    // SMTP (of type credentials) and NOTE are read, and refused changes, by the tests of this block;
    // none changes them, and a test that writes secrets uses keys of its own.
    beforeAll(async () => {
      await app.request('POST', '/api/secret-types/', {
        token: admin,
        headers: onAlpha(),
        body: { slug: 'credentials', name: 'Credentials', schema: CREDENTIALS_SCHEMA },
      });
      for (const body of [
        { key: 'SMTP', value: { username: 'mailer', password: 'pa55word-smtp' }, secret_type: 'credentials', description: 'Mail relay' },
        { key: 'NOTE', value: 'a site-level note' },
      ]) {
        const created = await app.request('POST', '/api/secrets/', { token: admin, headers: onAlpha(), body });
        if (created.status !== 201) throw new Error(`creating ${body.key}: ${created.status} ${JSON.stringify(created.body)}`);
      }
    });

    it('creates a secret and returns it with its value, version 1', async () => {
      const answer = await app.request('POST', '/api/secrets/', {
        token: tokens['sec-manager'],
        headers: onAlpha(),
        // A password long enough for the stricter schema another test tries, so only SMTP fails it.
        body: {
          key: 'RELAY',
          value: { username: 'mailer', password: 'pa55word-relay-long-enough-for-30' },
          secret_type: 'credentials',
          description: 'Mail relay',
        },
      });

      expect(answer.status).toBe(201);
      expect(answer.body).toEqual({
        key: 'RELAY',
        value: { username: 'mailer', password: 'pa55word-relay-long-enough-for-30' },
        secret_type: 'credentials',
        description: 'Mail relay',
        app: null,
        version: 1,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
    });

    it('takes any JSON value', async () => {
      for (const [key, value] of [
        ['S_STRING', 'text'],
        ['S_NUMBER', 42],
        ['S_NULL', null],
        ['S_ARRAY', [1, 'two', { three: 3 }]],
        ['S_BOOL', false],
      ] as const) {
        const created = await app.request('POST', '/api/secrets/', { token: admin, headers: onAlpha(), body: { key, value } });
        expect(created.status).toBe(201);
        const read = await app.request('GET', `/api/secrets/${key}/`, { token: admin, headers: onAlpha() });
        expect(read.body.value).toEqual(value);
      }
    });

    it('stores only ciphertext: the plaintext is nowhere in the row, and each write gets a fresh IV', async () => {
      const plaintext = 'correct-horse-battery-staple-0451';
      await app.request('POST', '/api/secrets/', { token: admin, headers: onAlpha(), body: { key: 'AT_REST', value: plaintext } });

      const [row] = await app.runtime.db.rows(sql.raw(`select * from ${alphaSchema}.secrets where key = 'AT_REST'`));
      expect(JSON.stringify(row)).not.toContain(plaintext);
      expect(JSON.stringify(row)).not.toContain(Buffer.from(plaintext).toString('base64').slice(0, 16));
      expect(Buffer.from(String(row!.value_iv), 'base64')).toHaveLength(12);
      expect(Buffer.from(String(row!.value_tag), 'base64')).toHaveLength(16);

      await app.request('PUT', '/api/secrets/AT_REST/', { token: admin, headers: onAlpha(), body: { value: plaintext } });
      const [again] = await app.runtime.db.rows(sql.raw(`select * from ${alphaSchema}.secrets where key = 'AT_REST'`));
      expect(again!.value_iv).not.toEqual(row!.value_iv);
      expect(again!.value_ciphertext).not.toEqual(row!.value_ciphertext);
      const read = await app.request('GET', '/api/secrets/AT_REST/', { token: admin, headers: onAlpha() });
      expect(read.body.value).toBe(plaintext);
    });

    it('masks every value in lists, also for managers', async () => {
      const answer = await app.request('GET', '/api/secrets/?page_size=100', { token: admin, headers: onAlpha() });

      expect(answer.status).toBe(200);
      expect(answer.body.count).toBeGreaterThan(1);
      expect(answer.body.results.every((secret: { value: unknown }) => secret.value === '***HIDDEN***')).toBe(true);
      expect(JSON.stringify(answer.body)).not.toContain('pa55word-smtp');
      const searched = await app.request('GET', '/api/secrets/?search=smt&secret_type=credentials', {
        token: tokens['sec-viewer'],
        headers: onAlpha(),
      });
      expect(searched.body.results.map((secret: { key: string }) => secret.key)).toEqual(['SMTP']);
    });

    it('checks values against the schema of their type', async () => {
      const weak = await app.request('POST', '/api/secrets/', {
        token: admin,
        headers: onAlpha(),
        body: { key: 'WEAK', value: { username: 'x', password: 'short' }, secret_type: 'credentials' },
      });
      expect(weak.status).toBe(400);
      expect(weak.body.errors.value[0]).toContain('password');
      const update = await app.request('PUT', '/api/secrets/SMTP/', { token: admin, headers: onAlpha(), body: { value: 'just a string' } });
      expect(update.status).toBe(400);
      const unknownType = await app.request('POST', '/api/secrets/', {
        token: admin,
        headers: onAlpha(),
        body: { key: 'T', value: 1, secret_type: 'ghost' },
      });
      expect(unknownType.status).toBe(400);
      expect(unknownType.body.errors.secret_type).toBeDefined();
    });

    it('refuses a schema change that existing secrets fail, and deleting a type in use', async () => {
      const stricter = await app.request('PUT', '/api/secret-types/credentials/', {
        token: admin,
        headers: onAlpha(),
        body: {
          name: 'Credentials',
          schema: { ...CREDENTIALS_SCHEMA, properties: { ...CREDENTIALS_SCHEMA.properties, password: { type: 'string', minLength: 30 } } },
        },
      });
      expect(stricter.status).toBe(400);
      expect(stricter.body.errors.schema[0]).toContain('SMTP');
      const deleted = await app.request('DELETE', '/api/secret-types/credentials/', { token: admin, headers: onAlpha() });
      expect(deleted.status).toBe(409);
    });

    it('refuses bad keys, missing values, unknown apps and duplicates with field errors', async () => {
      const badKey = await app.request('POST', '/api/secrets/', { token: admin, headers: onAlpha(), body: { key: '1 bad/key', value: 1 } });
      expect(badKey.status).toBe(400);
      expect(badKey.body.errors.key).toBeDefined();
      const noValue = await app.request('POST', '/api/secrets/', { token: admin, headers: onAlpha(), body: { key: 'NO_VALUE' } });
      expect(noValue.body.errors).toEqual({ value: ['This field is required.'] });
      const unknownApp = await app.request('POST', '/api/secrets/', {
        token: admin,
        headers: onAlpha(),
        body: { key: 'K', value: 1, app: 'ghost' },
      });
      expect(unknownApp.status).toBe(400);
      expect(unknownApp.body.errors.app).toBeDefined();
      const duplicate = await app.request('POST', '/api/secrets/', {
        token: admin,
        headers: onAlpha(),
        body: { key: 'SMTP', value: { username: 'a', password: 'long-enough' }, secret_type: 'credentials' },
      });
      expect(duplicate.status).toBe(400);
      expect(duplicate.body.errors.key).toBeDefined();
      const badPathKey = await app.request('GET', '/api/secrets/..%2F..%2Fetc/', { token: admin, headers: onAlpha() });
      expect(badPathKey.status).toBeGreaterThanOrEqual(400);
      expect(badPathKey.status).toBeLessThan(500);
    });

    it('returns values only to secret managers; others get 403', async () => {
      for (const name of ['sec-orgadmin', 'sec-manager']) {
        const allowed = await app.request('GET', '/api/secrets/SMTP/', { token: tokens[name], headers: onAlpha() });
        expect(allowed.status).toBe(200);
        expect(allowed.body.value.password).toBe('pa55word-smtp');
      }
      const viewer = await app.request('GET', '/api/secrets/SMTP/', { token: tokens['sec-viewer'], headers: onAlpha() });
      expect(viewer.status).toBe(403);
      expect(JSON.stringify(viewer.body)).not.toContain('pa55word');
      const write = await app.request('POST', '/api/secrets/', {
        token: tokens['sec-viewer'],
        headers: onAlpha(),
        body: { key: 'MINE', value: 1 },
      });
      expect(write.status).toBe(403);
      const remove = await app.request('DELETE', '/api/secrets/SMTP/', { token: tokens['sec-viewer'], headers: onAlpha() });
      expect(remove.status).toBe(403);
      const anonymous = await app.request('GET', '/api/secrets/SMTP/', { headers: onAlpha() });
      expect(anonymous.status).toBe(401);
    });

    it("answers ?app= with the app's secret, else the site-level one", async () => {
      await app.request('POST', '/api/secrets/', { token: admin, headers: onAlpha(), body: { key: 'DB_URL', value: 'postgres://site' } });
      const appSecret = await app.request('POST', '/api/secrets/', {
        token: admin,
        headers: onAlpha(),
        body: { key: 'DB_URL', value: 'postgres://crm', app: 'crm' },
      });
      expect(appSecret.status).toBe(201);
      expect(appSecret.body.app).toBe('crm');

      const crm = await app.request('GET', '/api/secrets/DB_URL/?app=crm', { token: admin, headers: onAlpha() });
      expect(crm.body).toMatchObject({ value: 'postgres://crm', app: 'crm' });
      const blog = await app.request('GET', '/api/secrets/DB_URL/?app=blog', { token: admin, headers: onAlpha() });
      expect(blog.body).toMatchObject({ value: 'postgres://site', app: null });
      const site = await app.request('GET', '/api/secrets/DB_URL/', { token: admin, headers: onAlpha() });
      expect(site.body.value).toBe('postgres://site');
      const unknownApp = await app.request('GET', '/api/secrets/DB_URL/?app=ghost', { token: admin, headers: onAlpha() });
      expect(unknownApp.status).toBe(404);
      const onlyCrm = await app.request('GET', '/api/secrets/?app=crm', { token: admin, headers: onAlpha() });
      expect(onlyCrm.body.results.map((secret: { key: string; app: string }) => [secret.key, secret.app])).toEqual([['DB_URL', 'crm']]);

      const updated = await app.request('PUT', '/api/secrets/DB_URL/?app=crm', {
        token: admin,
        headers: onAlpha(),
        body: { value: 'postgres://crm-2' },
      });
      expect(updated.body).toMatchObject({ app: 'crm', value: 'postgres://crm-2', version: 2 });
      expect((await app.request('GET', '/api/secrets/DB_URL/', { token: admin, headers: onAlpha() })).body.version).toBe(1);
    });

    it('counts versions and keeps a history without values, also after delete', async () => {
      await app.request('POST', '/api/secrets/', {
        token: tokens['sec-manager'],
        headers: onAlpha(),
        body: { key: 'ROTATED', value: 'v1-secret-value' },
      });
      await app.request('PUT', '/api/secrets/ROTATED/', {
        token: tokens['sec-orgadmin'],
        headers: onAlpha(),
        body: { value: 'v2-secret-value' },
      });
      const third = await app.request('PUT', '/api/secrets/ROTATED/', {
        token: admin,
        headers: onAlpha(),
        body: { value: 'v3-secret-value', description: 'rotated twice' },
      });
      expect(third.body).toMatchObject({ version: 3, description: 'rotated twice', value: 'v3-secret-value' });

      const history = await app.request('GET', '/api/secrets/ROTATED/history/', { token: tokens['sec-viewer'], headers: onAlpha() });
      expect(history.status).toBe(200);
      expect(history.body.count).toBe(3);
      expect(
        history.body.results.map((entry: { version: number; action: string; changed_by: string }) => [
          entry.version,
          entry.action,
          entry.changed_by,
        ]),
      ).toEqual([
        [3, 'updated', 'admin'],
        [2, 'updated', 'sec-orgadmin'],
        [1, 'created', 'sec-manager'],
      ]);
      expect(Object.keys(history.body.results[0]).sort()).toEqual(['action', 'changed_at', 'changed_by', 'version']);
      expect(JSON.stringify(history.body)).not.toContain('secret-value');

      expect((await app.request('DELETE', '/api/secrets/ROTATED/', { token: admin, headers: onAlpha() })).status).toBe(204);
      expect((await app.request('GET', '/api/secrets/ROTATED/', { token: admin, headers: onAlpha() })).status).toBe(404);
      const afterDelete = await app.request('GET', '/api/secrets/ROTATED/history/', { token: admin, headers: onAlpha() });
      expect(afterDelete.body.results[0]).toMatchObject({ version: 4, action: 'deleted', changed_by: 'admin' });

      const recreated = await app.request('POST', '/api/secrets/', {
        token: admin,
        headers: onAlpha(),
        body: { key: 'ROTATED', value: 'again' },
      });
      expect(recreated.body.version).toBe(5);
      expect((await app.request('GET', '/api/secrets/NEVER_WAS/history/', { token: admin, headers: onAlpha() })).status).toBe(404);
    });

    it('keeps the secrets of one site invisible from another', async () => {
      await app.request('POST', '/api/secrets/', {
        token: admin,
        headers: onAlpha(),
        body: { key: 'ISOLATED', value: 'alpha-only-value' },
      });

      const list = await app.request('GET', '/api/secrets/', { token: admin, headers: onBeta() });
      expect(list.body).toMatchObject({ count: 0, results: [] });
      expect((await app.request('GET', '/api/secrets/ISOLATED/', { token: admin, headers: onBeta() })).status).toBe(404);
      expect((await app.request('GET', '/api/secrets/ISOLATED/history/', { token: admin, headers: onBeta() })).status).toBe(404);
      expect((await app.request('GET', '/api/secret-types/credentials/', { token: admin, headers: onBeta() })).status).toBe(404);
      expect(
        (await app.request('PUT', '/api/secrets/ISOLATED/', { token: admin, headers: onBeta(), body: { value: 'hijack' } })).status,
      ).toBe(404);
      expect((await app.request('DELETE', '/api/secrets/ISOLATED/', { token: admin, headers: onBeta() })).status).toBe(404);

      const sameKey = await app.request('POST', '/api/secrets/', {
        token: admin,
        headers: onBeta(),
        body: { key: 'ISOLATED', value: 'beta-value' },
      });
      expect(sameKey.status).toBe(201);
      expect(sameKey.body.version).toBe(1);
      expect((await app.request('GET', '/api/secrets/ISOLATED/', { token: admin, headers: onAlpha() })).body.value).toBe(
        'alpha-only-value',
      );
      const alphaManagerOnBeta = await app.request('GET', '/api/secrets/ISOLATED/', { token: tokens['sec-manager'], headers: onBeta() });
      expect(alphaManagerOnBeta.status).toBe(403);
    });
  });
});
