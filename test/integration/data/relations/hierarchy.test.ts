// Hierarchy tables over the API: the edges companion table and its endpoints, edge types with
// inverse labels and max_outgoing, include=descendants|ancestors|both with depth and graph_types,
// format=tree and format=graph, and cycles that never loop nor answer a record twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';

type Rec = Record<string, any>; // `any`: answers are read field by field

const EMPLOYEES = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'name', type: 'string' },
    { name: 'is_deleted', type: 'boolean', default: false },
  ],
  primaryKey: ['id'],
  hierarchy: true,
  graph: {
    enabled: true,
    types: [
      { name: 'manager', inverse: 'reports', description: 'A reports to B', constraints: { max_outgoing: 1 } },
      { name: 'mentor', inverse: 'mentees' },
    ],
  },
};

describe('hierarchy tables', () => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });
  const TABLE = '/api/apps/hr/datatables/employees/';
  const ids = (list: Rec[]) => list.map((record) => record.id);

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    tenant = (await createSite(app, admin, 'Hierarchy Site')).headers;
    await call('POST', '/api/apps/', { name: 'HR' });
    await call('POST', '/api/apps/hr/datasources/', { name: 'Main', provider_type: 'flat_table' });
    expect((await call('POST', '/api/apps/hr/datasources/main/datatables/', { name: 'employees', json_schema: EMPLOYEES })).status).toBe(
      201,
    );
    expect((await call('POST', `${TABLE}materialize/`)).status).toBe(200);
    expect(
      (
        await call(
          'POST',
          `${TABLE}data/`,
          [1, 2, 3, 4, 5, 6].map((id) => ({ id, name: `E${id}` })),
        )
      ).status,
    ).toBe(201);
    await call('POST', '/api/apps/hr/datasources/main/datatables/', {
      name: 'flat',
      json_schema: { fields: [{ name: 'id', type: 'integer' }], primaryKey: ['id'] },
    });
    await call('POST', '/api/apps/hr/datatables/flat/materialize/');
    await call('POST', '/api/apps/hr/datatables/flat/data/', { id: 1 });
  });
  afterAll(async () => {
    await app.close();
  });

  it('creates edges in bulk and refuses what the types and the records do not allow', async () => {
    const created = await call('POST', `${TABLE}edges/`, [
      { from_id: 2, to_id: 1, type: 'manager' },
      { from_id: 3, to_id: 1, type: 'manager', metadata: { since: 2020 } },
      { from_id: 4, to_id: 2, type: 'manager' },
      { from_id: 5, to_id: 4, type: 'manager' },
      // A mentoring cycle: 1 → 2 → 3 → 1.
      { from_id: 1, to_id: 2, type: 'mentor' },
      { from_id: 2, to_id: 3, type: 'mentor' },
      { from_id: 3, to_id: 1, type: 'mentor' },
    ]);
    expect(created.status).toBe(201);
    expect(created.body.total).toBe(7);
    expect(created.body.results[1]).toMatchObject({ from_id: 3, to_id: 1, type: 'manager', metadata: { since: 2020 } });
    const refused = async (body: unknown, field: string) => {
      const answer = await call('POST', `${TABLE}edges/`, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.details, JSON.stringify(body)).toHaveProperty([field]);
    };
    await refused([{ from_id: 2, to_id: 3, type: 'manager' }], '0.type'); // max_outgoing 1
    await refused(
      [
        { from_id: 6, to_id: 1, type: 'manager' },
        { from_id: 6, to_id: 2, type: 'manager' },
      ],
      '1.type',
    );
    await refused([{ from_id: 6, to_id: 1, type: 'friend' }], '0.type');
    await refused([{ from_id: 6, to_id: 6, type: 'mentor' }], '0.to_id');
    await refused([{ from_id: 6, to_id: 999, type: 'mentor' }], '0.to_id');
    await refused([{ from_id: 'x', to_id: 1, type: 'mentor' }], '0.from_id');
    await refused([{ from_id: 6, to_id: 1, type: 'mentor', metadata: [] }], '0.metadata');
    await refused([{ from_id: 6, to_id: 1, type: 'mentor', __proto__x: 1 }], '0.__proto__x');
    await refused([{ from_id: 1, to_id: 2, type: 'mentor' }], '0.to_id'); // the same edge twice
    // Nothing of a refused batch was stored.
    expect((await call('GET', `${TABLE}edges/?from_id=6`)).body.total).toBe(0);
  });

  it('lists edges with filters and pages, patches metadata and deletes by ids', async () => {
    const managers = await call('GET', `${TABLE}edges/?types=manager&page_size=2&page=2`);
    expect(managers.status).toBe(200);
    expect(managers.body).toMatchObject({ total: 4, page: 2, page_size: 2 });
    expect(managers.body.results).toHaveLength(2);
    const intoOne = await call('GET', `${TABLE}edges/?to_id=1`);
    expect(intoOne.body.results.map((e: Rec) => e.from_id).sort()).toEqual([2, 3, 3]);
    expect((await call('GET', `${TABLE}edges/?types=friend`)).status).toBe(400);
    const edge = intoOne.body.results[0];
    const patched = await call('PATCH', `${TABLE}edges/${edge.id}/`, { metadata: { note: 'ok' } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ id: edge.id, metadata: { note: 'ok' } });
    expect((await call('PATCH', `${TABLE}edges/99999/`, { metadata: {} })).status).toBe(404);
    const extra = await call('POST', `${TABLE}edges/`, [{ from_id: 6, to_id: 5, type: 'mentor' }]);
    const removed = await call('DELETE', `${TABLE}edges/`, { ids: [extra.body.results[0].id] });
    expect(removed.body).toEqual({ deleted: 1 });
  });

  it("serves the edges on the long URL form too, inside the table's own datasource only", async () => {
    const LONG = '/api/apps/hr/datasources/main/datatables/employees/edges/';
    const listed = await call('GET', `${LONG}?types=manager`);
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBe(4);
    const created = await call('POST', LONG, [{ from_id: 6, to_id: 5, type: 'mentor', metadata: { via: 'long' } }]);
    expect(created.status).toBe(201);
    const id = created.body.results[0].id;
    const patched = await call('PATCH', `${LONG}${id}/`, { metadata: { via: 'long form' } });
    expect(patched.body.data).toMatchObject({ id, metadata: { via: 'long form' } });
    expect((await call('GET', `${TABLE}edges/?from_id=6`)).body.results[0].metadata).toEqual({ via: 'long form' });
    // Another datasource of the app, a datasource that does not exist, another app: 404, nothing touched.
    await call('POST', '/api/apps/hr/datasources/', { name: 'Other', provider_type: 'flat_table' });
    for (const path of [
      '/api/apps/hr/datasources/other/datatables/employees/edges/',
      '/api/apps/hr/datasources/nowhere/datatables/employees/edges/',
      '/api/apps/nope/datasources/main/datatables/employees/edges/',
    ]) {
      expect((await call('GET', path)).status, path).toBe(404);
      expect((await call('DELETE', path, { ids: [id] })).status, path).toBe(404);
      expect((await call('PATCH', `${path}${id}/`, { metadata: {} })).status, path).toBe(404);
    }
    expect((await call('DELETE', LONG, { ids: [id] })).body).toEqual({ deleted: 1 });
  });

  it('answers descendants under the inverse label, by depth, each once, even around a cycle', async () => {
    const answer = await call('GET', `${TABLE}data/1/?include=descendants`);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ id: 1, name: 'E1' });
    expect(ids(answer.body.reports)).toEqual([2, 3, 4, 5]);
    expect(answer.body.reports.map((r: Rec) => r._depth)).toEqual([1, 1, 2, 3]);
    expect(answer.body.reports[0]._relationship_type).toBe('manager');
    // Around the mentoring cycle: 3 mentors 1, 2 mentors 3; 1 itself is never answered.
    expect(ids(answer.body.mentees)).toEqual([3, 2]);
    const shallow = await call('GET', `${TABLE}data/1/?include=descendants&depth=1&graph_types=manager`);
    expect(ids(shallow.body.reports)).toEqual([2, 3]);
    expect(shallow.body.mentees).toBeUndefined();
    const none = await call('GET', `${TABLE}data/1/?include=descendants&depth=0`);
    expect(none.body).toEqual({ data: { id: 1, name: 'E1', is_deleted: false }, reports: [], mentees: [] });
  });

  it('answers ancestors closest first, and both directions together', async () => {
    const up = await call('GET', `${TABLE}data/5/?include=ancestors&graph_types=manager`);
    expect(ids(up.body.manager)).toEqual([4, 2, 1]);
    const both = await call('GET', `${TABLE}data/2/?include=both&depth=50`);
    expect(ids(both.body.reports)).toEqual([4, 5]);
    expect(ids(both.body.manager)).toEqual([1]);
    expect(ids(both.body.mentor)).toEqual([3, 1]);
    expect(ids(both.body.mentees)).toEqual([1, 3]);
  });

  it('answers a tree with nested children and a page as a graph', async () => {
    const tree = await call('GET', `${TABLE}data/1/?format=tree&graph_types=manager`);
    expect(tree.status).toBe(200);
    expect(tree.body.total).toBe(5);
    const [root] = tree.body.data;
    expect(root).toMatchObject({ id: 1, _depth: 0 });
    expect(ids(root.children)).toEqual([2, 3]);
    expect(ids(root.children[0].children)).toEqual([4]);
    expect(ids(root.children[0].children[0].children)).toEqual([5]);
    const cyclic = await call('GET', `${TABLE}data/1/?format=tree&graph_types=mentor&depth=100`);
    expect(cyclic.body.total).toBe(3);
    // On a list, the page holds the roots (no parent by the selected types), each with its tree.
    const forest = await call('GET', `${TABLE}data/?format=tree&graph_types=manager&_sort=id`);
    expect(forest.status).toBe(200);
    expect(forest.body).toMatchObject({ total: 2, page: 1, page_size: 20 });
    expect(ids(forest.body.data)).toEqual([1, 6]);
    expect(forest.body.data[0]).toMatchObject({ id: 1, name: 'E1', _depth: 0 });
    expect(ids(forest.body.data[0].children)).toEqual([2, 3]);
    expect(forest.body.data[0].children[0]).toMatchObject({ _depth: 1, _relationship_type: 'manager' });
    expect(ids(forest.body.data[0].children[0].children[0].children)).toEqual([5]);
    expect(forest.body.data[1]).toEqual({ id: 6, name: 'E6', is_deleted: false, _depth: 0, children: [] });
    const shallow = await call('GET', `${TABLE}data/?format=tree&graph_types=manager&depth=1&name=E1`);
    expect(ids(shallow.body.data)).toEqual([1]);
    expect(shallow.body.data[0].children.map((child: Rec) => child.children)).toEqual([[], []]);
    const second = await call('GET', `${TABLE}data/?format=tree&graph_types=manager&_sort=id&page_size=1&page=2`);
    expect(second.body.total).toBe(2);
    expect(ids(second.body.data)).toEqual([6]);
    // Over every type the mentoring cycle gives 1, 2 and 3 parents: only 6 is a root; a cycle has no top.
    expect(ids((await call('GET', `${TABLE}data/?format=tree`)).body.data)).toEqual([6]);
    expect(ids((await call('GET', `${TABLE}data/?format=tree&graph_types=mentor&_sort=id`)).body.data)).toEqual([4, 5, 6]);
    const graph = await call('GET', `${TABLE}data/?format=graph&graph_types=manager&id__in=1,2,4`);
    expect(graph.status).toBe(200);
    expect(graph.body.total).toBe(3);
    expect(ids(graph.body.data.nodes)).toEqual([1, 2, 4]);
    expect(graph.body.data.edges.map((e: Rec) => [e.from, e.to, e.type])).toEqual([
      [2, 1, 'manager'],
      [4, 2, 'manager'],
    ]);
  });

  it('never walks through a soft-deleted record', async () => {
    expect((await call('DELETE', `${TABLE}data/4/`)).status).toBe(204);
    const answer = await call('GET', `${TABLE}data/1/?include=descendants&graph_types=manager`);
    expect(ids(answer.body.reports)).toEqual([2, 3]);
    expect((await call('POST', `${TABLE}edges/`, [{ from_id: 6, to_id: 4, type: 'mentor' }])).status).toBe(400);
    // 5's manager is soft-deleted: 5 heads a tree of its own, and 4 is nowhere.
    const forest = await call('GET', `${TABLE}data/?format=tree&graph_types=manager&_sort=id`);
    expect(ids(forest.body.data)).toEqual([1, 5, 6]);
    expect(ids(forest.body.data[0].children[0].children)).toEqual([]);
  });

  it('refuses hierarchy forms on a table without hierarchy and bad values with 400', async () => {
    for (const query of ['include=descendants', 'format=tree', 'graph_types=manager']) {
      const answer = await call('GET', `/api/apps/hr/datatables/flat/data/1/?${query}`);
      expect(answer.status, query).toBe(400);
    }
    for (const query of ['format=graph', 'format=tree', 'format=tree&depth=2']) {
      expect((await call('GET', `/api/apps/hr/datatables/flat/data/?${query}`)).status, query).toBe(400);
    }
    for (const query of [
      'format=tree&_aggregate=count(*)',
      'format=tree&depth=x',
      'format=tree&graph_types=friend',
      'format=tree&depth=101',
    ]) {
      expect((await call('GET', `${TABLE}data/?${query}`)).status, query).toBe(400);
    }
    expect((await call('GET', '/api/apps/hr/datatables/flat/edges/')).status).toBe(400);
    for (const query of [
      'include=sideways',
      'depth=-1',
      'depth=1000',
      'format=cube',
      'graph_types=friend',
      'include=descendants&depth=1e3',
    ]) {
      expect((await call('GET', `${TABLE}data/1/?${query}`)).status, query).toBe(400);
    }
    expect((await call('GET', `${TABLE}data/?include=descendants`)).status).toBe(400);
    const badSchema = await call('POST', '/api/apps/hr/datasources/main/datatables/', {
      name: 'bad_graph',
      json_schema: {
        ...EMPLOYEES,
        graph: {
          enabled: true,
          types: [
            { name: 'Bad Name', inverse: 'x' },
            { name: 'a', inverse: 'b', constraints: { max_outgoing: 0 } },
          ],
        },
      },
    });
    expect(badSchema.status).toBe(400);
    const toggled = await call('PATCH', TABLE, { json_schema: { ...EMPLOYEES, hierarchy: false, graph: undefined } });
    expect(toggled.status).toBe(400);
  });

  it('answers included records as a plain read does, each once at its smallest depth over diamonds and cycles', async () => {
    // Included lists write their records by concatenation (flat tables) or by splicing (jsonb tables):
    // every value must read as the record's own GET answers it, hostile text included.
    const PARTS = {
      fields: [
        { name: 'id', type: 'integer' },
        { name: 'label', type: 'string' },
        { name: 'weight', type: 'number' },
        { name: 'big', type: 'integer' },
        { name: 'ok', type: 'boolean' },
        { name: 'made_at', type: 'datetime' },
        { name: 'lasts', type: 'duration' },
        { name: 'made_on', type: 'date' },
        { name: 'spec', type: 'object' },
        { name: 'tags', type: 'array' },
      ],
      primaryKey: ['id'],
      hierarchy: true,
      graph: { enabled: true, types: [{ name: 'part_of', inverse: 'parts' }] },
    };
    const hostile = 'quote " backslash \\ newline \n tab \t nul-ish \u0001 emoji 🧩 and {"json":[1]}';
    const rows = [
      { id: 1, label: 'root', weight: 1.5, big: 9007199254740991, ok: true },
      { id: 2, label: hostile, weight: 0.1, big: -1, ok: false, made_at: '2026-11-26T18:00:00.5Z', lasts: 'P1Y2M3DT4H5M6.5S' },
      { id: 3, label: null, weight: 1e21, made_on: '2026-02-28', spec: { a: [1, { b: null }], 'k"ey': 'v' }, tags: ['x', 2, null] },
      { id: 4, label: 'ÿ €', weight: -0.000001, spec: {}, tags: [] },
      { id: 5, label: 'far' },
    ];
    // 2 and 3 are part of 1; 4 is part of both 2 and 3 (a diamond) and of 1 directly; 5 is part of 4;
    // 1 is part of 5 (a cycle back to the root).
    const edges = [
      [2, 1],
      [3, 1],
      [4, 2],
      [4, 3],
      [4, 1],
      [5, 4],
      [1, 5],
    ].map(([from_id, to_id]) => ({ from_id, to_id, type: 'part_of' }));
    await call('POST', '/api/apps/hr/datasources/', { name: 'Docs', provider_type: 'jsonb' });
    for (const [datasource, name] of [
      ['main', 'parts'],
      ['docs', 'parts_doc'],
    ] as const) {
      const table = `/api/apps/hr/datatables/${name}/`;
      expect((await call('POST', `/api/apps/hr/datasources/${datasource}/datatables/`, { name, json_schema: PARTS })).status, name).toBe(
        201,
      );
      expect((await call('POST', `${table}materialize/`)).status, name).toBe(200);
      expect((await call('POST', `${table}data/`, rows)).status, name).toBe(201);
      expect((await call('POST', `${table}edges/`, edges)).status, name).toBe(201);
      const answer = await call('GET', `${table}data/1/?include=descendants`);
      expect(answer.status, name).toBe(200);
      expect(
        answer.body.parts.map((record: Rec) => [record.id, record._depth]),
        name,
      ).toEqual([
        [2, 1],
        [3, 1],
        [4, 1],
        [5, 2],
      ]);
      for (const record of answer.body.parts as Rec[]) {
        const { _depth, _relationship_type, ...own } = record;
        expect(_relationship_type, name).toBe('part_of');
        expect(own, `${name} ${record.id}`).toEqual((await call('GET', `${table}data/${record.id}/`)).body.data);
      }
      const up = await call('GET', `${table}data/4/?include=ancestors&depth=2`);
      expect(
        up.body.part_of.map((record: Rec) => [record.id, record._depth]),
        name,
      ).toEqual([
        [1, 1],
        [2, 1],
        [3, 1],
        [5, 2],
      ]);
      expect(up.body.part_of[1].label, name).toBe(hostile);
    }
  });

  it('drops the edges with the table', async () => {
    expect((await call('DELETE', TABLE)).status).toBe(204);
  });
});
