// validate_data judges rows as a write would, the database's constraints included: a foreign key
// naming no record and a unique value another record holds are per-row errors, one statement per
// constraint whatever the number of rows. A primary key already stored is not: the record may be
// written back over its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';

const AUTHORS = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'email', type: 'string', constraints: { unique: true } },
    { name: 'name', type: 'string' },
  ],
  primaryKey: ['id'],
};
const POSTS = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'title', type: 'string' },
  ],
  primaryKey: ['id'],
};
/** Keys on key columns: a database constraint on jsonb tables as on flat ones. */
const CREDITS = {
  fields: [
    { name: 'author_id', type: 'integer' },
    { name: 'post_id', type: 'integer' },
  ],
  primaryKey: ['author_id', 'post_id'],
  foreignKeys: [
    { fields: ['author_id'], reference: { resource: 'authors', fields: ['id'] } },
    { fields: ['post_id'], reference: { resource: 'posts', fields: ['id'] } },
  ],
};
/** Flat tables only: keys on ordinary fields, one of them to the table itself. */
const COMMENTS = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'author_id', type: 'integer' },
    { name: 'reply_to', type: 'integer' },
  ],
  primaryKey: ['id'],
  foreignKeys: [
    { fields: ['author_id'], reference: { resource: 'authors', fields: ['id'] } },
    { fields: ['reply_to'], reference: { resource: 'comments', fields: ['id'] } },
  ],
};

describe.each(['flat_table', 'jsonb'])('validate_data against stored records on %s tables', (provider) => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });
  const validate = (table: string, data: unknown[]) => call('POST', `/api/apps/blog/datatables/${table}/validate_data/`, { data });

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    tenant = (await createSite(app, admin, `Validate ${provider}`)).headers;
    await call('POST', '/api/apps/', { name: 'Blog' });
    await call('POST', '/api/apps/blog/datasources/', { name: 'Main', provider_type: provider });
    const tables: Array<[string, unknown]> = [
      ['authors', AUTHORS],
      ['posts', POSTS],
      ['credits', CREDITS],
    ];
    if (provider === 'flat_table') tables.push(['comments', COMMENTS]);
    for (const [name, jsonSchema] of tables) {
      expect((await call('POST', '/api/apps/blog/datasources/main/datatables/', { name, json_schema: jsonSchema })).status).toBe(201);
      expect((await call('POST', `/api/apps/blog/datatables/${name}/materialize/`)).status).toBe(200);
    }
    expect((await call('POST', '/api/apps/blog/datatables/authors/data/', { id: 1, email: 'ann@example.com', name: 'Ann' })).status).toBe(
      201,
    );
    expect((await call('POST', '/api/apps/blog/datatables/posts/data/', { id: 10, title: 'first' })).status).toBe(201);
  });
  afterAll(async () => {
    await app.close();
  });

  it('reports a foreign key naming no record, as the write refuses it', async () => {
    // Act
    const verdict = await validate('credits', [{ author_id: 999, post_id: 10 }]);
    const write = await call('POST', '/api/apps/blog/datatables/credits/data/', { author_id: 999, post_id: 10 });
    // Assess
    expect(verdict.body).toEqual({
      is_valid: false,
      errors: ["Row 1: field 'author_id': The referenced record does not exist."],
      validated_rows: 1,
    });
    expect(write.status).toBe(400);
  });

  it('reports a unique value another record holds, and accepts a stored record written back', async () => {
    // Act
    const verdict = await validate('authors', [
      { id: 1, email: 'new@example.com' },
      { id: 2, email: 'ann@example.com' },
      { id: 3, email: 'free@example.com' },
    ]);
    // Assess
    expect(verdict.body).toEqual({
      is_valid: false,
      errors: ["Row 2: field 'email': A record with this value already exists."],
      validated_rows: 3,
    });
    // The record as read back validates, and is written back as it is.
    const stored = await call('GET', '/api/apps/blog/datatables/authors/data/1/');
    expect((await validate('authors', [stored.body.data])).body).toMatchObject({ is_valid: true, errors: [] });
    expect((await call('PATCH', '/api/apps/blog/datatables/authors/data/', [stored.body.data])).status).toBe(200);
  });

  it('accepts a composite primary key already stored, as a write back', async () => {
    // Prepare
    expect((await call('POST', '/api/apps/blog/datatables/credits/data/', { author_id: 1, post_id: 10 })).status).toBe(201);
    // Act
    const verdict = await validate('credits', [{ author_id: 1, post_id: 10 }]);
    // Assess
    expect(verdict.body).toMatchObject({ is_valid: true, errors: [] });
  });

  it('checks a thousand rows in one request, each row under its own number', async () => {
    // Prepare
    const rows = Array.from({ length: 1000 }, (_, i) => ({ author_id: i % 2 === 0 ? 1 : 7, post_id: 10_000 + i }));
    // Act
    const verdict = await validate('credits', rows);
    // Assess
    expect(verdict.status).toBe(200);
    expect(verdict.body.errors).toHaveLength(1500);
    expect(verdict.body.errors.slice(0, 2)).toEqual([
      "Row 1: field 'post_id': The referenced record does not exist.",
      "Row 2: field 'author_id': The referenced record does not exist.",
    ]);
  });

  it.runIf(provider === 'flat_table')(
    'accepts keys naming stored records or rows of the same batch, and null keys, as the write does',
    async () => {
      // Prepare
      const rows = [{ id: 51, author_id: 1 }, { id: 52, author_id: null, reply_to: 51 }, { id: 53 }];
      // Act
      const verdict = await validate('comments', rows);
      const refused = await validate('comments', [{ id: 54, reply_to: 999 }]);
      const write = await call('POST', '/api/apps/blog/datatables/comments/data/', rows);
      // Assess
      expect(verdict.body).toEqual({ is_valid: true, errors: [], validated_rows: 3 });
      expect(refused.body.errors).toEqual(["Row 1: field 'reply_to': The referenced record does not exist."]);
      expect(write.status).toBe(201);
    },
  );
});
