// A small materialized table for tests of record reads: app `notes`, datasource `main`, table
// `notes` (integer id, required title), filled with the given titles.
import { expect } from 'vitest';
import type { TestApp } from './test-app.ts';

export const NOTES_SCHEMA = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'title', type: 'string', constraints: { required: true } },
  ],
  primaryKey: ['id'],
};

/** Where the notes table's records are. */
export const NOTES_DATA = '/api/apps/notes/datatables/notes/data/';

/** Defines, materializes and fills the notes table on the site `headers` name, as `token`. */
export async function defineNotes(app: TestApp, token: string, headers: Record<string, string>, titles: string[]): Promise<void> {
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token, body, headers });
  expect((await call('POST', '/api/apps/', { name: 'Notes' })).status).toBe(201);
  expect((await call('POST', '/api/apps/notes/datasources/', { name: 'Main', provider_type: 'flat_table' })).status).toBe(201);
  expect((await call('POST', '/api/apps/notes/datasources/main/datatables/', { name: 'notes', json_schema: NOTES_SCHEMA })).status).toBe(
    201,
  );
  expect((await call('POST', '/api/apps/notes/datatables/notes/materialize/')).status).toBe(200);
  expect(
    (
      await call(
        'POST',
        NOTES_DATA,
        titles.map((title) => ({ title })),
      )
    ).status,
  ).toBe(201);
}
