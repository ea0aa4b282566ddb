// Relations with jsonb-storage tables, over the API. A jsonb table keeps its key columns as columns
// and every other field inside `data`: a foreign key on key columns (a junction table's) and a
// reference to a jsonb table's key are database constraints like a flat table's; a foreign key on a
// member of `data`, or to one, no constraint can enforce, so it is refused with a 400 when the schema
// is saved. Related filters, sorting, grouping and populate read `data` members as on the table itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';

type Rec = Record<string, any>; // `any`: answers are read field by field

const PEOPLE = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'name', type: 'string' },
    { name: 'team', type: 'string' },
    { name: 'email', type: 'string', constraints: { unique: true } },
    { name: 'is_deleted', type: 'boolean', default: false },
  ],
  primaryKey: ['id'],
};
const GROUPS = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'label', type: 'string' },
  ],
  primaryKey: ['id'],
};
const MEMBERSHIPS = {
  fields: [
    { name: 'person_id', type: 'integer', constraints: { required: true } },
    { name: 'group_id', type: 'integer', constraints: { required: true } },
    { name: 'role', type: 'string' },
  ],
  primaryKey: ['person_id', 'group_id'],
  foreignKeys: [
    { fields: ['person_id'], reference: { resource: 'people', fields: ['id'] }, 'x-actions': { onDelete: 'CASCADE' } },
    { fields: ['group_id'], reference: { resource: 'groups', fields: ['id'] }, 'x-actions': { onDelete: 'CASCADE' } },
  ],
};
const NOTES = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'person_id', type: 'integer' },
    { name: 'body', type: 'string' },
  ],
  primaryKey: ['id'],
  foreignKeys: [{ fields: ['person_id'], reference: { resource: 'people', fields: ['id'] } }],
};

describe('relations with jsonb-storage tables', () => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });
  const list = (table: string, query: string) => call('GET', `/api/apps/docs/datatables/${table}/data/?${query}`);
  const ids = (answer: { body: { data: Rec[] } }) => answer.body.data.map((record) => record.id);
  const define = async (datasource: string, name: string, schema: unknown) => {
    const made = await call('POST', `/api/apps/docs/datasources/${datasource}/datatables/`, { name, json_schema: schema });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect((await call('POST', `/api/apps/docs/datatables/${name}/materialize/`)).status).toBe(200);
  };

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    tenant = (await createSite(app, admin, 'Jsonb Relations Site')).headers;
    await call('POST', '/api/apps/', { name: 'Docs' });
    await call('POST', '/api/apps/docs/datasources/', { name: 'Store', provider_type: 'jsonb' });
    await call('POST', '/api/apps/docs/datasources/', { name: 'Flat', provider_type: 'flat_table' });
    await define('store', 'people', PEOPLE);
    await define('store', 'groups', GROUPS);
    await define('store', 'memberships', MEMBERSHIPS);
    await define('flat', 'notes', NOTES);
    const post = async (table: string, rows: unknown[]) =>
      expect((await call('POST', `/api/apps/docs/datatables/${table}/data/`, rows)).status).toBe(201);
    await post('people', [
      { id: 1, name: 'Ann', team: 'core', email: 'ann@x.test' },
      { id: 2, name: 'Bob', team: 'ops', email: 'bob@x.test' },
      { id: 3, name: 'Zed', team: 'core', email: 'zed-secret@x.test' },
    ]);
    await post('groups', [
      { id: 1, label: 'red' },
      { id: 2, label: 'blue' },
    ]);
    await post('memberships', [
      { person_id: 1, group_id: 1, role: 'lead' },
      { person_id: 2, group_id: 2 },
      { person_id: 3, group_id: 1 },
    ]);
    await post('notes', [
      { id: 10, person_id: 1, body: 'first' },
      { id: 11, person_id: 2, body: 'second' },
      { id: 12, person_id: 3, body: 'ghost' },
      { id: 13, person_id: 1, body: 'third' },
    ]);
    expect((await call('DELETE', '/api/apps/docs/datatables/people/data/3/')).status).toBe(204);
  });
  afterAll(async () => {
    await app.close();
  });

  it('refuses a foreign key on a member of data, or to one, with a 400 naming the reason', async () => {
    const onData = await call('POST', '/api/apps/docs/datasources/store/datatables/', {
      name: 'tasks',
      json_schema: { ...NOTES, foreignKeys: NOTES.foreignKeys },
    });
    expect(onData.status).toBe(400);
    expect(JSON.stringify(onData.body)).toContain('stored inside \\"data\\"');
    const toData = await call('POST', '/api/apps/docs/datasources/flat/datatables/', {
      name: 'mentions',
      json_schema: {
        fields: [
          { name: 'id', type: 'integer' },
          { name: 'email', type: 'string' },
        ],
        primaryKey: ['id'],
        foreignKeys: [{ fields: ['email'], reference: { resource: 'people', fields: ['email'] } }],
      },
    });
    expect(toData.status).toBe(400);
    expect(JSON.stringify(toData.body)).toContain('jsonb table');
  });

  it('enforces foreign keys on jsonb key columns and to a jsonb table in the database', async () => {
    const unknown = await call('POST', '/api/apps/docs/datatables/notes/data/', { id: 20, person_id: 999 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toHaveProperty('person_id');
    const junction = await call('POST', '/api/apps/docs/datatables/memberships/data/', { person_id: 1, group_id: 999 });
    expect(junction.status).toBe(400);
    expect(junction.body.details).toHaveProperty('group_id');
    // RESTRICT from the flat notes: Ann still has notes.
    expect((await call('GET', '/api/apps/docs/datatables/people/data/1/')).status).toBe(200);
  });

  it('filters, sorts and groups on related members of data', async () => {
    expect(ids(await list('notes', 'person.name=Ann&_sort=id'))).toEqual([10, 13]);
    expect(ids(await list('notes', 'person.team=core&_sort=id'))).toEqual([10, 13]);
    expect(ids(await list('people', 'notes.body__icontains=SECOND'))).toEqual([2]);
    expect(ids(await list('people', 'groups.label=red'))).toEqual([1]);
    expect(ids(await list('groups', 'people.name=Bob'))).toEqual([2]);
    expect(ids(await list('notes', 'person.email__startswith=zed'))).toEqual([]);
    expect(ids(await list('notes', '_sort=-person.name,id'))).toEqual([12, 11, 10, 13]);
    const grouped = await list('notes', '_aggregate=count(*)&_group_by=person.team');
    expect(grouped.body.data).toEqual([
      { 'person.team': 'core', count: 2 },
      { 'person.team': 'ops', count: 1 },
      { 'person.team': null, count: 1 },
    ]);
  });

  it('populates forward, reverse and many-to-many relations through jsonb tables', async () => {
    const notes = await list('notes', '_sort=id&populate=person');
    expect(notes.body.data[0].person_id).toEqual({ id: 1, name: 'Ann', team: 'core', email: 'ann@x.test', is_deleted: false });
    expect(notes.body.data[2].person_id).toBeNull();
    const people = await list('people', '_sort=id&populate=notes,groups,memberships&notes_sort=id');
    expect(people.body.data.map((person: Rec) => person.notes.map((note: Rec) => note.id))).toEqual([[10, 13], [11]]);
    expect(people.body.data.map((person: Rec) => person.groups.map((group: Rec) => group.label))).toEqual([['red'], ['blue']]);
    expect(people.body.data[0].memberships).toEqual([{ person_id: 1, group_id: 1, role: 'lead' }]);
    const one = await call('GET', '/api/apps/docs/datatables/memberships/data/?person_id=2&populate=person_id,group_id');
    expect(one.body.data[0]).toMatchObject({ person_id: { name: 'Bob' }, group_id: { label: 'blue' } });
    expect(JSON.stringify((await list('groups', 'populate=people')).body)).not.toContain('zed');
  });

  it('cascades deletes along jsonb key columns', async () => {
    expect((await call('DELETE', '/api/apps/docs/datatables/groups/data/2/')).status).toBe(204);
    expect((await list('memberships', 'group_id=2')).body.total).toBe(0);
  });
});
