// Foreign keys between tables of one app, end to end: references resolve by table name, targets are
// materialized first, every onDelete action is enforced by the database, and every integrity error
// comes back as a 4xx naming the field or the constraint (never a 500).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';

const POSTS = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'title', type: 'string', constraints: { required: true, maxLength: 20 } },
    { name: 'slug', type: 'string', constraints: { unique: true } },
  ],
  primaryKey: ['id'],
};

function child(onDelete: string | undefined, extra: Record<string, unknown> = {}) {
  return {
    fields: [
      { name: 'id', type: 'integer' },
      { name: 'post_id', type: 'integer', ...extra },
      { name: 'body', type: 'string' },
    ],
    primaryKey: ['id'],
    foreignKeys: [
      {
        fields: ['post_id'],
        reference: { resource: 'posts', fields: ['id'] },
        ...(onDelete === undefined ? {} : { 'x-actions': { onDelete } }),
      },
    ],
  };
}

describe('foreign keys between tables of one app', () => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });
  const DS = '/api/apps/blog/datasources/main/datatables/';
  const data = (table: string) => `/api/apps/blog/datatables/${table}/data/`;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    tenant = (await createSite(app, admin, 'Relations FK Site')).headers;
    expect((await call('POST', '/api/apps/', { name: 'Blog' })).status).toBe(201);
    expect((await call('POST', '/api/apps/blog/datasources/', { name: 'Main', provider_type: 'flat_table' })).status).toBe(201);
    expect((await call('POST', DS, { name: 'posts', json_schema: POSTS })).status).toBe(201);
  });
  afterAll(async () => {
    await app.close();
  });

  it('warns while the target is not materialized, refuses to materialize before it, then accepts the sibling by name', async () => {
    const created = await call('POST', DS, { name: 'comments', json_schema: child(undefined) });
    expect(created.status).toBe(201);
    const early = await call('POST', `${DS}comments/materialize/`);
    expect(early.status).toBe(400);
    expect(early.body.message).toContain('"posts"');
    const check = await call('POST', '/api/apps/blog/datatables/comments/validate-schema/', { schema: child(undefined) });
    expect(check.status).toBe(200);
    expect(check.body.warnings.join(' ')).toContain('"posts"');
    expect((await call('POST', `${DS}posts/materialize/`)).status).toBe(200);
    expect((await call('POST', `${DS}comments/materialize/`)).status).toBe(200);
    // A table created after its target was materialized resolves it by name just the same.
    expect((await call('POST', DS, { name: 'late_comments', json_schema: child('CASCADE') })).status).toBe(201);
    expect((await call('POST', `${DS}late_comments/materialize/`)).status).toBe(200);
  });

  it('answers RESTRICT (the default) with 409 naming the constraint, and keeps both rows', async () => {
    // Post 99 is the SET DEFAULT target below.
    expect(
      (
        await call('POST', data('posts'), [
          { id: 1, title: 'First' },
          { id: 99, title: 'Fallback' },
        ])
      ).status,
    ).toBe(201);
    expect((await call('POST', data('comments'), { id: 1, post_id: 1, body: 'hi' })).status).toBe(201);
    const refused = await call('DELETE', `${data('posts')}1/`);
    expect(refused.status).toBe(409);
    expect(JSON.stringify(refused.body)).toContain('comments');
    expect((await call('GET', `${data('posts')}1/`)).status).toBe(200);
    expect((await call('GET', `${data('comments')}1/`)).status).toBe(200);
  });

  it.each([
    ['CASCADE', undefined, (row: unknown) => expect(row).toBeUndefined()],
    ['SET NULL', undefined, (row: { post_id: unknown } | undefined) => expect(row?.post_id).toBeNull()],
    ['SET DEFAULT', { default: 99 }, (row: { post_id: unknown } | undefined) => expect(row?.post_id).toBe(99)],
    ['NO ACTION', undefined, undefined],
    ['RESTRICT', undefined, undefined],
  ] as const)('enforces onDelete %s in the database', async (action, extra, after) => {
    const name = `kids_${action.toLowerCase().replace(' ', '_')}`;
    expect((await call('POST', DS, { name, json_schema: child(action, extra ?? {}) })).status).toBe(201);
    expect((await call('POST', `${DS}${name}/materialize/`)).status).toBe(200);
    const postId = 100 + action.length;
    expect((await call('POST', data('posts'), { id: postId, title: action })).status).toBe(201);
    expect((await call('POST', data(name), { id: 1, post_id: postId, body: 'x' })).status).toBe(201);
    const deleted = await call('DELETE', `${data('posts')}${postId}/`);
    if (after === undefined) {
      expect(deleted.status).toBe(409);
      expect(deleted.body.code).toBe('CONFLICT');
      expect((await call('GET', `${data(name)}1/`)).body.data.post_id).toBe(postId);
      return;
    }
    expect(deleted.status).toBe(204);
    const row = await call('GET', `${data(name)}1/`);
    after((row.status === 200 ? row.body.data : undefined) as never);
    await call('DELETE', `${data(name)}1/`);
  });

  it('refuses SET NULL on a required field and SET DEFAULT without a default, naming the field', async () => {
    const setNull = await call('POST', DS, { name: 'bad_null', json_schema: child('SET NULL', { constraints: { required: true } }) });
    expect(setNull.status).toBe(400);
    expect(setNull.body.json_schema.join(' ')).toContain('"post_id"');
    const setDefault = await call('POST', DS, { name: 'bad_default', json_schema: child('SET DEFAULT') });
    expect(setDefault.status).toBe(400);
    expect(setDefault.body.json_schema.join(' ')).toContain('"post_id"');
  });

  it('answers every integrity error as a 4xx naming the field', async () => {
    const missingParent = await call('POST', data('comments'), { id: 2, post_id: 424242, body: 'orphan' });
    expect(missingParent.status).toBe(400);
    expect(missingParent.body).toMatchObject({ error: 'Validation failed', details: { post_id: [expect.any(String)] } });
    expect((await call('POST', data('posts'), { id: 5, title: 'Five', slug: 'five' })).status).toBe(201);
    const duplicate = await call('POST', data('posts'), { id: 6, title: 'Six', slug: 'five' });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.details).toHaveProperty('slug');
    const missing = await call('POST', data('posts'), { id: 7 });
    expect(missing.status).toBe(400);
    expect(missing.body.details).toHaveProperty('title');
    const tooLong = await call('PATCH', `${data('posts')}5/`, { title: 'x'.repeat(21) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.details).toHaveProperty('title');
    const nulled = await call('PATCH', `${data('posts')}5/`, { title: null });
    expect(nulled.status).toBe(400);
    expect(nulled.body.details).toHaveProperty('title');
    const moved = await call('PATCH', `${data('comments')}1/`, { post_id: 777 });
    expect(moved.status).toBe(400);
    expect(moved.body.details).toHaveProperty('post_id');
  });

  it('refuses deletes by ids and by filter that a RESTRICT key blocks, and deletes nothing', async () => {
    const byIds = await call('DELETE', `${data('posts')}?ids=1,5`);
    expect(byIds.status).toBe(409);
    expect((await call('GET', `${data('posts')}5/`)).status).toBe(200);
    const byFilter = await call('DELETE', `${data('posts')}?filter=${encodeURIComponent(JSON.stringify({ id__in: [1, 5] }))}`);
    expect(byFilter.status).toBe(409);
    expect((await call('GET', `${data('posts')}5/`)).status).toBe(200);
  });

  it('refuses to drop a table that others reference', async () => {
    const drop = await call('DELETE', `${DS}posts/`);
    expect(drop.status).toBe(409);
  });
});
