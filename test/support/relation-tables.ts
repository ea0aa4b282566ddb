// Test set-up for relations: a blog app whose tables relate in every way the data service names
// (forward, reverse, many-to-many, a chain of three to-one hops), defined, materialized and filled
// through the API. Author 3 (Zed) is soft-deleted: relations must never show him.
import { expect } from 'vitest';
import type { TestApp } from './test-app.ts';

export const BLOG_SCHEMAS = {
  companies: {
    fields: [
      { name: 'id', type: 'integer' },
      { name: 'name', type: 'string' },
    ],
    primaryKey: ['id'],
  },
  authors: {
    fields: [
      { name: 'id', type: 'integer' },
      { name: 'name', type: 'string' },
      { name: 'email', type: 'string' },
      { name: 'company_id', type: 'integer' },
      { name: 'is_deleted', type: 'boolean', default: false },
      { name: 'search_vector', type: 'string', 'x-source-fields': ['name', 'email'] },
    ],
    primaryKey: ['id'],
    foreignKeys: [{ fields: ['company_id'], reference: { resource: 'companies', fields: ['id'] } }],
  },
  posts: {
    fields: [
      { name: 'id', type: 'integer' },
      { name: 'title', type: 'string' },
      { name: 'author_id', type: 'integer' },
    ],
    primaryKey: ['id'],
    foreignKeys: [{ fields: ['author_id'], reference: { resource: 'authors', fields: ['id'] }, 'x-actions': { onDelete: 'SET NULL' } }],
  },
  comments: {
    fields: [
      { name: 'id', type: 'integer' },
      { name: 'post_id', type: 'integer' },
      { name: 'body', type: 'string' },
      { name: 'rating', type: 'integer' },
    ],
    primaryKey: ['id'],
    foreignKeys: [{ fields: ['post_id'], reference: { resource: 'posts', fields: ['id'] }, 'x-actions': { onDelete: 'CASCADE' } }],
  },
  tags: {
    fields: [
      { name: 'id', type: 'integer' },
      { name: 'label', type: 'string' },
    ],
    primaryKey: ['id'],
  },
  post_tags: {
    fields: [
      { name: 'post_id', type: 'integer', constraints: { required: true } },
      { name: 'tag_id', type: 'integer', constraints: { required: true } },
    ],
    primaryKey: ['post_id', 'tag_id'],
    foreignKeys: [
      { fields: ['post_id'], reference: { resource: 'posts', fields: ['id'] }, 'x-actions': { onDelete: 'CASCADE' } },
      { fields: ['tag_id'], reference: { resource: 'tags', fields: ['id'] }, 'x-actions': { onDelete: 'CASCADE' } },
    ],
  },
};

type Call = (method: string, path: string, body?: unknown) => ReturnType<TestApp['request']>;

/** Creates app `blog` with the tables above and their records, through the API. */
export async function seedBlog(call: Call): Promise<void> {
  expect((await call('POST', '/api/apps/', { name: 'Blog' })).status).toBe(201);
  expect((await call('POST', '/api/apps/blog/datasources/', { name: 'Main', provider_type: 'flat_table' })).status).toBe(201);
  for (const [name, schema] of Object.entries(BLOG_SCHEMAS)) {
    const made = await call('POST', '/api/apps/blog/datasources/main/datatables/', { name, json_schema: schema });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect((await call('POST', `/api/apps/blog/datatables/${name}/materialize/`)).status).toBe(200);
  }
  const post = async (table: string, rows: Record<string, unknown>[]) =>
    expect((await call('POST', `/api/apps/blog/datatables/${table}/data/`, rows)).status).toBe(201);
  await post('companies', [
    { id: 1, name: 'Acme' },
    { id: 2, name: 'Globex' },
  ]);
  await post('authors', [
    { id: 1, name: 'Ann', email: 'ann@acme.test', company_id: 1 },
    { id: 2, name: 'Bob', email: 'bob@globex.test', company_id: 2 },
    { id: 3, name: 'Zed', email: 'zed-secret@acme.test', company_id: 1 },
  ]);
  await post('posts', [
    { id: 10, title: 'Intro', author_id: 1 },
    { id: 11, title: 'Deep dive', author_id: 2 },
    { id: 12, title: 'Ghost post', author_id: 3 },
    { id: 13, title: 'Orphan', author_id: null },
  ]);
  await post('comments', [
    { id: 100, post_id: 10, body: 'great', rating: 5 },
    { id: 101, post_id: 10, body: 'meh', rating: 2 },
    { id: 102, post_id: 11, body: 'good', rating: 4 },
  ]);
  await post('tags', [
    { id: 1, label: 'red' },
    { id: 2, label: 'blue' },
  ]);
  await post('post_tags', [
    { post_id: 10, tag_id: 1 },
    { post_id: 10, tag_id: 2 },
    { post_id: 11, tag_id: 2 },
  ]);
  expect((await call('DELETE', '/api/apps/blog/datatables/authors/data/3/')).status).toBe(204);
}
