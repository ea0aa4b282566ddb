// The index every foreign key of a flat table gets (PostgreSQL indexes only the referenced side): made
// at materialize unless an index of the table already leads with the key's columns, made and dropped
// with the key by a migration and restored by its rollback, and used by the statements it is for (a
// reverse populate and the check a parent's delete runs), read from EXPLAIN over a few thousand rows.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statementsDuring } from '#test/support/statement-capture.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';

const POSTS = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'title', type: 'string' },
  ],
  primaryKey: ['id'],
};

/** A child of posts; `extra` is merged into the schema (indexes, a different key). */
function child(extra: Record<string, unknown> = {}, withKey = true) {
  return {
    fields: [
      { name: 'id', type: 'integer' },
      { name: 'post_id', type: 'integer' },
      { name: 'body', type: 'string' },
    ],
    primaryKey: ['id'],
    ...(withKey ? { foreignKeys: [{ fields: ['post_id'], reference: { resource: 'posts', fields: ['id'] } }] } : {}),
    ...extra,
  };
}

describe('the index of every foreign key', () => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  let schema: string;
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });
  const DS = '/api/apps/blog/datasources/main/datatables/';
  const T = '/api/apps/blog/datatables/';
  /** The table's indexes as `name (columns)`, from pg_indexes. */
  const indexes = async (table: string) =>
    (
      await app.runtime.db.rows<{ indexname: string; indexdef: string }>(
        sql`select indexname, indexdef from pg_indexes where schemaname = ${schema} and tablename = ${table} order by indexname`,
      )
    ).map((r) => `${r.indexname} ${r.indexdef.replace(/^.* USING \w+ /, '')}`);
  const make = async (name: string, json_schema: unknown) => {
    expect((await call('POST', DS, { name, json_schema })).status).toBe(201);
    const materialized = await call('POST', `${DS}${name}/materialize/`);
    expect(materialized.status).toBe(200);
  };
  const migrate = async (name: string, json_schema: unknown) => {
    const changed = await call('PATCH', `${T}${name}/`, { json_schema });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
  };
  const rollbackLast = async (name: string) => {
    const [op] = (await call('GET', `${T}${name}/operation-history/?limit=1`)).body.results;
    expect((await call('POST', `${T}${name}/rollback/`, { revision_id: op.revision_id })).status).toBe(200);
  };

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    const site = await createSite(app, admin, 'FK Index Site');
    tenant = site.headers;
    schema = (await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${site.slug}`))[0]!
      .schema_name;
    expect((await call('POST', '/api/apps/', { name: 'Blog' })).status).toBe(201);
    expect((await call('POST', '/api/apps/blog/datasources/', { name: 'Main', provider_type: 'flat_table' })).status).toBe(201);
    await make('posts', POSTS);
  });
  afterAll(async () => {
    await app.close();
  });

  it('indexes a foreign key at materialize, and keeps it out of the stored schema', async () => {
    await make('comments', child());
    expect(await indexes('blog_comments')).toEqual(['blog_comments_pkey (id)', 'blog_comments_post_id_fkey_idx (post_id)']);
    const table = await call('GET', `${T}comments/`);
    expect(table.body.json_schema).toEqual(child());
  });

  it('makes no second index where one of the table already leads with the key columns', async () => {
    await make('led', child({ indexes: [{ name: 'by_post', fields: ['post_id', 'body'] }] }));
    expect(await indexes('blog_led')).toEqual(['blog_led_by_post (post_id, body)', 'blog_led_pkey (id)']);
    const unique = child();
    unique.fields[1] = { name: 'post_id', type: 'integer', constraints: { unique: true } } as (typeof unique.fields)[1];
    await make('one_each', unique);
    expect(await indexes('blog_one_each')).toEqual(['blog_one_each_pkey (id)', 'blog_one_each_post_id_key (post_id)']);
    await make('keyed', child({ primaryKey: ['post_id', 'id'] }));
    expect(await indexes('blog_keyed')).toEqual(['blog_keyed_pkey (post_id, id)']);
    // An index that does not lead with the key, or leaves rows out, does not serve it.
    await make('trailing', child({ indexes: [{ name: 'by_body', fields: ['body', 'post_id'] }] }));
    expect(await indexes('blog_trailing')).toContain('blog_trailing_post_id_fkey_idx (post_id)');
    await make('partial', child({ indexes: [{ name: 'some', fields: ['post_id'], where: "body = 'x'" }] }));
    expect(await indexes('blog_partial')).toContain('blog_partial_post_id_fkey_idx (post_id)');
  });

  it('refuses a declared index that takes the name of a foreign key index', async () => {
    const taken = await call('POST', DS, {
      name: 'squatter',
      json_schema: child({ indexes: [{ name: 'post_id_fkey_idx', fields: ['body'] }] }),
    });
    expect(taken.status).toBe(400);
    expect(taken.body.message).toContain('"post_id_fkey_idx" is reserved');
  });

  it('creates the index with a key a migration adds, drops it with the key, and rollback undoes both', async () => {
    await make('evolving', child({}, false));
    expect(await indexes('blog_evolving')).toEqual(['blog_evolving_pkey (id)']);
    const preview = await call('POST', `${T}evolving/preview-changes/`, { new_schema: child() });
    expect(preview.status).toBe(200);
    expect(preview.body.operations.map((o: { type: string; class: string }) => [o.type, o.class])).toEqual([
      ['add_foreign_key', 'online'],
      ['create_index', 'online'],
    ]);
    await migrate('evolving', child());
    expect(await indexes('blog_evolving')).toEqual(['blog_evolving_pkey (id)', 'blog_evolving_post_id_fkey_idx (post_id)']);
    await migrate('evolving', child({}, false));
    expect(await indexes('blog_evolving')).toEqual(['blog_evolving_pkey (id)']);
    await rollbackLast('evolving');
    expect(await indexes('blog_evolving')).toEqual(['blog_evolving_pkey (id)', 'blog_evolving_post_id_fkey_idx (post_id)']);
    // The rollback of the migration that added the key takes its index away with it.
    const history = (await call('GET', `${T}evolving/operation-history/?limit=3`)).body.results;
    const adding = history.find(
      (op: { operation_type: string; status: string }) => op.operation_type === 'ALTER_TABLE' && op.status === 'SUCCESS',
    );
    expect((await call('POST', `${T}evolving/rollback/`, { revision_id: adding.revision_id })).status).toBe(200);
    expect(await indexes('blog_evolving')).toEqual(['blog_evolving_pkey (id)']);
  });

  it('gives way to a declared index that comes to cover the key, and never drops that one', async () => {
    await make('covered', child());
    const declared = child({ indexes: [{ name: 'by_post', fields: ['post_id'] }] });
    await migrate('covered', declared);
    expect(await indexes('blog_covered')).toEqual(['blog_covered_by_post (post_id)', 'blog_covered_pkey (id)']);
    // Dropping the key leaves the declared index alone.
    await migrate('covered', { ...declared, foreignKeys: [] });
    expect(await indexes('blog_covered')).toEqual(['blog_covered_by_post (post_id)', 'blog_covered_pkey (id)']);
    await migrate('covered', child());
    expect(await indexes('blog_covered')).toEqual(['blog_covered_pkey (id)', 'blog_covered_post_id_fkey_idx (post_id)']);
  });

  it('renames the index with its column, so a later migration finds it', async () => {
    await make('renamed', child());
    const renamed = {
      ...child(),
      fields: [
        { name: 'id', type: 'integer' },
        { name: 'article_id', type: 'integer', 'x-rename-from': 'post_id' },
        { name: 'body', type: 'string' },
      ],
      foreignKeys: [{ fields: ['article_id'], reference: { resource: 'posts', fields: ['id'] } }],
    };
    await migrate('renamed', renamed);
    expect(await indexes('blog_renamed')).toEqual(['blog_renamed_article_id_fkey_idx (article_id)', 'blog_renamed_pkey (id)']);
    await rollbackLast('renamed');
    expect(await indexes('blog_renamed')).toEqual(['blog_renamed_pkey (id)', 'blog_renamed_post_id_fkey_idx (post_id)']);
    await migrate('renamed', renamed);
    await migrate('renamed', { ...renamed, fields: renamed.fields.map(({ 'x-rename-from': _, ...f }) => f), foreignKeys: [] });
    expect(await indexes('blog_renamed')).toEqual(['blog_renamed_pkey (id)']);
  });

  describe('over a few thousand rows', () => {
    beforeAll(async () => {
      await make('notes', child());
      const posts = Array.from({ length: 300 }, (_, i) => ({ id: 1000 + i, title: `p${i}` }));
      expect((await call('POST', `${T}posts/data/`, posts)).status).toBe(201);
      for (let batch = 0; batch < 3; batch++) {
        const rows = Array.from({ length: 1000 }, (_, i) => ({
          id: batch * 1000 + i,
          post_id: 1000 + ((batch * 1000 + i) % 300),
          body: 'b',
        }));
        expect((await call('POST', `${T}notes/data/`, rows)).status).toBe(201);
      }
      // Statistics as autovacuum would leave them; the plan is then the one production gets.
      await app.runtime.db.rows(sql`analyze ${sql.identifier(schema)}.${sql.identifier('blog_notes')}`);
    });

    it('serves a reverse populate from the index', async () => {
      const db = app.runtime.db;
      const { result: answer, statements: seen } = await statementsDuring(db, () => call('GET', `${T}posts/data/?id=1007&populate=notes`));
      expect(answer.status).toBe(200);
      expect(answer.body.data[0].notes).toHaveLength(10);
      const populate = seen.filter((s) => JSON.stringify(s).includes('blog_notes') && !JSON.stringify(s).includes('blog_posts'));
      expect(populate.length).toBeGreaterThan(0);
      const plan = (await db.rows<{ 'QUERY PLAN': string }>(sql`explain ${populate.at(-1)!}`)).map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toMatch(/Index (Only )?Scan using blog_notes_post_id_fkey_idx|Bitmap Index Scan on blog_notes_post_id_fkey_idx/);
    });

    it('serves the check of a parent delete from the index', async () => {
      // The statement PostgreSQL's RESTRICT / NO ACTION trigger runs for each deleted parent row.
      const plan = (
        await app.runtime.db.rows<{ 'QUERY PLAN': string }>(
          sql`explain select 1 from only ${sql.identifier(schema)}.${sql.identifier('blog_notes')} x where post_id = 1007 for key share of x`,
        )
      )
        .map((r) => r['QUERY PLAN'])
        .join('\n');
      expect(plan).toMatch(/Index (Only )?Scan using blog_notes_post_id_fkey_idx|Bitmap Index Scan on blog_notes_post_id_fkey_idx/);
      // And the delete itself is refused as before, naming the constraint.
      const refused = await call('DELETE', `${T}posts/data/1007/`);
      expect(refused.status).toBe(409);
    });
  });
});
