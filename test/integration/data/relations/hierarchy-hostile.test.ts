// Hierarchy tables against a hostile caller, over the API: a dense graph whose tree walk must stay
// bounded (rows the walk statement produces, from EXPLAIN ANALYZE), edge bodies with Object.prototype
// names, keys compared exactly as the database compares them (case, datetime offsets), labels that
// collide with the answers' own members, errors that name the edge's index, and the edges list's
// `_count` modes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type AnyBody, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';
import { explainedWalk, rowsProduced } from '#test/support/query-plans.ts';

const APP = '/api/apps/probe/';
const SOFT_DELETE = { name: 'is_deleted', type: 'boolean', default: false };

function hierarchySchema(key: AnyBody, types: AnyBody[]): AnyBody {
  return {
    fields: [key, { name: 'name', type: 'string' }, SOFT_DELETE],
    primaryKey: [key.name],
    hierarchy: true,
    graph: { enabled: true, types },
  };
}

describe('hierarchy tables against a hostile caller', () => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });
  const ids = (list: AnyBody[]) => list.map((record) => record.id);

  async function hierarchyTable(name: string, schema: AnyBody, records: AnyBody[]): Promise<string> {
    const created = await call('POST', `${APP}datasources/main/datatables/`, { name, json_schema: schema });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const table = `${APP}datatables/${name}/`;
    expect((await call('POST', `${table}materialize/`)).status).toBe(200);
    expect((await call('POST', `${table}data/`, records)).status).toBe(201);
    return table;
  }

  /** The answer to `path` and the rows its walk statement (the one recursive statement it sends) produced. */
  async function walkRows(path: string): Promise<{ body: AnyBody; rows: number }> {
    const { answer, plan } = await explainedWalk(app.runtime.db, () => call('GET', path));
    return { body: answer.body, rows: rowsProduced(plan) };
  }

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    tenant = (await createSite(app, admin, 'Hierarchy Probe Site')).headers;
    await call('POST', '/api/apps/', { name: 'Probe' });
    await call('POST', `${APP}datasources/`, { name: 'Main', provider_type: 'flat_table' });
  });
  afterAll(async () => {
    await app.close();
  });

  it('walks a dense graph as a tree with work bounded by its edges, whatever the depth', async () => {
    // Prepare: record 0 and N others; each of the N links to 0 and to every other of the N.
    const N = 30;
    const others = Array.from({ length: N }, (_, index) => index + 1);
    const table = await hierarchyTable(
      'mesh',
      hierarchySchema({ name: 'id', type: 'integer' }, [{ name: 'link', inverse: 'linked' }]),
      [0, ...others].map((id) => ({ id, name: `N${id}` })),
    );
    const edges = others.flatMap((from_id) =>
      [0, ...others].filter((to_id) => to_id !== from_id).map((to_id) => ({ from_id, to_id, type: 'link' })),
    );
    expect((await call('POST', `${table}edges/`, edges)).status).toBe(201);
    const bound = 10 * (edges.length + N + 1);

    // Act
    const shallow = await walkRows(`${table}data/0/?format=tree&depth=10`);
    const deep = await walkRows(`${table}data/0/?format=tree&depth=100`);
    const forest = await walkRows(`${table}data/?format=tree&depth=100`);

    // Assess: every record once, under its closest parent (0 at depth 1); the walk's rows do not
    // grow with the depth and stay within a few times the edges (one row per parent and depth made
    // them about edges × records × depth).
    for (const { body } of [shallow, deep]) {
      expect(body.total).toBe(N + 1);
      expect(ids(body.data[0].children)).toEqual(others);
      expect(body.data[0].children.every((child: AnyBody) => child._depth === 1 && child.children.length === 0)).toBe(true);
    }
    expect(ids(forest.body.data)).toEqual([0]);
    expect(ids(forest.body.data[0].children)).toEqual(others);
    expect(deep.rows).toBe(shallow.rows);
    expect(deep.rows).toBeLessThan(bound);
    expect(forest.rows).toBeLessThan(bound);
  });

  it('answers 400 naming the member for edge members named after Object.prototype', async () => {
    // Prepare
    const table = await hierarchyTable(
      'protos',
      hierarchySchema({ name: 'id', type: 'integer' }, [{ name: 'next', inverse: 'previous' }]),
      [{ id: 1 }, { id: 2 }],
    );
    const created = await call('POST', `${table}edges/`, [{ from_id: 1, to_id: 2, type: 'next' }]);
    const edge = `${table}edges/${created.body.results[0].id}/`;

    for (const [body, member] of [
      ['{"constructor":1}', 'constructor'],
      ['{"toString":1}', 'toString'],
      ['{"hasOwnProperty":"x"}', 'hasOwnProperty'],
      ['{"valueOf":"x","metadata":{}}', 'valueOf'],
      ['{"__proto__":{"metadata":{"x":1}}}', '__proto__'],
    ] as const) {
      // Act
      const answer = await call('PATCH', edge, body);

      // Assess
      expect(answer.status, body).toBe(400);
      expect(Object.hasOwn(answer.body.details, member), body).toBe(true);
      expect(answer.body.details[member], body).toEqual(['Unknown member of an edge.']);
    }
    expect((await call('GET', `${table}edges/`)).body.results[0].metadata).toEqual({});
  });

  it('compares string keys exactly: case makes another record for edges, max_outgoing and trees', async () => {
    // Prepare: 'x' is soft-deleted while 'X' is visible; 'a' exists, 'A' does not.
    const table = await hierarchyTable(
      'tags',
      hierarchySchema({ name: 'code', type: 'string' }, [
        { name: 'owner', inverse: 'owned', constraints: { max_outgoing: 1 } },
        { name: 'part', inverse: 'parts' },
      ]),
      ['X', 'x', 'P', 'p', 'z', 'a'].map((code) => ({ code, name: code })),
    );
    expect((await call('DELETE', `${table}data/x/`)).status).toBe(204);

    // Act + Assess: an edge to the soft-deleted 'x' is refused although 'X' is visible.
    const toDeleted = await call('POST', `${table}edges/`, [{ from_id: 'P', to_id: 'x', type: 'part' }]);
    expect(toDeleted.status).toBe(400);
    expect(toDeleted.body.details).toHaveProperty(['0.to_id']);
    // 'P' and 'p' each take their one owner.
    const owners = await call('POST', `${table}edges/`, [
      { from_id: 'P', to_id: 'z', type: 'owner' },
      { from_id: 'p', to_id: 'z', type: 'owner' },
    ]);
    expect(owners.status, JSON.stringify(owners.body)).toBe(201);
    // 'A' is not 'a': the error keeps its row.
    const missing = await call('POST', `${table}edges/`, [
      { from_id: 'z', to_id: 'a', type: 'part' },
      { from_id: 'A', to_id: 'z', type: 'part' },
    ]);
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body.details)).toEqual(['1.from_id']);
  });

  it('builds trees by exact keys: records differing in case sit under their own parents', async () => {
    // Prepare: R has children X and x2 ('X' and its lower-case twin are two records); y is X's child.
    const table = await hierarchyTable(
      'cased',
      hierarchySchema({ name: 'code', type: 'string' }, [{ name: 'part', inverse: 'parts' }]),
      ['R', 'X', 'x', 'y'].map((code) => ({ code, name: code })),
    );
    const edges = [
      ['X', 'R'],
      ['x', 'R'],
      ['y', 'X'],
    ].map(([from_id, to_id]) => ({ from_id, to_id, type: 'part' }));
    expect((await call('POST', `${table}edges/`, edges)).status).toBe(201);
    const codes = (list: AnyBody[]) => list.map((record) => record.code).sort();

    // Act
    const tree = await call('GET', `${table}data/R/?format=tree`);
    const forest = await call('GET', `${table}data/?format=tree`);

    // Assess
    for (const [answer, total] of [
      [tree, 4],
      [forest, 1],
    ] as const) {
      expect(answer.status).toBe(200);
      expect(answer.body.total).toBe(total);
      const [root] = answer.body.data;
      expect(root.code).toBe('R');
      expect(codes(root.children)).toEqual(['X', 'x']);
      const byCode = Object.fromEntries(root.children.map((child: AnyBody) => [child.code, child]));
      expect(codes(byCode.X.children)).toEqual(['y']);
      expect(byCode.x.children).toEqual([]);
    }
  });

  it('compares datetime keys as the database does, in any offset', async () => {
    // Prepare
    const table = await hierarchyTable(
      'dh',
      hierarchySchema({ name: 'at', type: 'datetime' }, [{ name: 'after', inverse: 'before', constraints: { max_outgoing: 1 } }]),
      [{ at: '2020-01-01T00:00:00Z' }, { at: '2020-01-02T00:00:00Z' }, { at: '2020-01-03T00:00:00Z' }],
    );

    // Act
    const created = await call('POST', `${table}edges/`, [
      { from_id: '2020-01-02T00:00:00Z', to_id: '2020-01-01T00:00:00Z', type: 'after' },
    ]);
    const sameRecord = await call('POST', `${table}edges/`, [
      { from_id: '2020-01-03T00:00:00Z', to_id: '2020-01-03T01:00:00+01:00', type: 'after' },
    ]);
    const secondOwner = await call('POST', `${table}edges/`, [
      { from_id: '2020-01-02T01:00:00+01:00', to_id: '2020-01-03T00:00:00Z', type: 'after' },
    ]);
    const tree = await call('GET', `${table}data/${encodeURIComponent('2020-01-01T00:00:00Z')}/?format=tree`);

    // Assess
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(sameRecord.status).toBe(400);
    expect(sameRecord.body.details).toHaveProperty(['0.to_id']);
    expect(secondOwner.status).toBe(400);
    expect(secondOwner.body.details).toHaveProperty(['0.type']);
    expect(tree.status).toBe(200);
    expect(tree.body.total).toBe(2);
    expect(tree.body.data[0].children.map((child: AnyBody) => child.at)).toEqual(['2020-01-02T00:00:00Z']);
  });

  it('refuses labels that collide with a type of their own or with the answers members', async () => {
    for (const [types, named] of [
      [[{ name: 'peer', inverse: 'peer' }], 'peer'],
      [[{ name: 'manager', inverse: 'data' }], 'manager'],
      [[{ name: 'data', inverse: 'reports' }], 'data'],
      [[{ name: 'boss', inverse: 'total' }], 'boss'],
    ] as const) {
      // Act
      const answer = await call('POST', `${APP}datasources/main/datatables/`, {
        name: 'labels',
        json_schema: hierarchySchema({ name: 'id', type: 'integer' }, types as unknown as AnyBody[]),
      });

      // Assess
      expect(answer.status, JSON.stringify(types)).toBe(400);
      expect(JSON.stringify(answer.body), JSON.stringify(types)).toContain(`graph.types[0] (\\"${named}\\")`);
    }
  });

  it('names the index of a duplicate edge in a batch and of one already stored', async () => {
    // Prepare
    const table = await hierarchyTable('dups', hierarchySchema({ name: 'id', type: 'integer' }, [{ name: 'mentor', inverse: 'mentees' }]), [
      { id: 1 },
      { id: 6 },
      { id: 7 },
    ]);
    expect((await call('POST', `${table}edges/`, [{ from_id: 7, to_id: 1, type: 'mentor' }])).status).toBe(201);
    const edge = { from_id: 6, to_id: 1, type: 'mentor' };

    // Act
    const twice = await call('POST', `${table}edges/`, [edge, edge]);
    const stored = await call('POST', `${table}edges/`, [edge, { from_id: 7, to_id: 1, type: 'mentor' }]);

    // Assess
    expect(twice.status).toBe(400);
    expect(Object.keys(twice.body.details)).toEqual(['1.to_id']);
    expect(stored.status).toBe(400);
    expect(Object.keys(stored.body.details)).toEqual(['1.to_id']);
    expect((await call('GET', `${table}edges/?from_id=6`)).body.total).toBe(0);
  });

  it('lists edges under every _count mode and refuses repeated parameters and nested ids', async () => {
    // Prepare
    const table = await hierarchyTable(
      'counted',
      hierarchySchema({ name: 'id', type: 'integer' }, [{ name: 'next', inverse: 'previous' }]),
      [1, 2, 3, 4].map((id) => ({ id })),
    );
    const created = await call('POST', `${table}edges/`, [
      { from_id: 1, to_id: 2, type: 'next' },
      { from_id: 2, to_id: 3, type: 'next' },
      { from_id: 3, to_id: 4, type: 'next' },
    ]);
    const list = `${table}edges/`;

    // Act
    const none = await call('GET', `${list}?_count=none&page_size=2`);
    const last = await call('GET', `${list}?_count=none&page_size=2&page=2`);
    const planned = await call('GET', `${list}?_count=planned&page_size=2`);
    const exact = await call('GET', `${list}?_count=exact&page_size=2`);
    const wrong = await call('GET', `${list}?_count=some`);
    const repeated = await call('GET', `${list}?from_id=1&from_id=2`);
    const nested = await call('DELETE', list, { ids: [[created.body.results[0].id]] });

    // Assess
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ total: null, page: 1, page_size: 2 });
    expect(none.body.results).toHaveLength(2);
    expect(none.body.next).toContain('page=2');
    expect(last.body).toMatchObject({ total: null, page: 2, next: null });
    expect(last.body.results).toHaveLength(1);
    expect(planned.status).toBe(200);
    expect(typeof planned.body.total_is_estimate).toBe('boolean');
    expect(planned.body.total).toBeGreaterThanOrEqual(3);
    expect(exact.body).toEqual({ total: 3, page: 1, page_size: 2, results: exact.body.results });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details).toHaveProperty(['_count']);
    expect(repeated.status).toBe(400);
    expect(repeated.body.details).toHaveProperty(['from_id']);
    expect(nested.status).toBe(400);
    expect(nested.body.details).toHaveProperty(['ids']);
    expect((await call('GET', list)).body.total).toBe(3);
  });
});
