// `include=descendants|ancestors|both` on hierarchy tables over the API: on dense graphs and long
// chains the walk's work (rows its statement's plan produced, from EXPLAIN ANALYZE, never a duration)
// stays within the graph's size whatever the depth, and on random graphs with soft-deleted records
// every list is what a breadth-first walk of a model gives: each record once at its smallest depth,
// never the base record, nothing soft-deleted answered or walked through. A record's walk keeps one
// generic plan once prepared, so reads are not planned anew each time.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSite } from '#test/support/sites.ts';
import { startTestApp, type AnyBody, type TestApp } from '#test/support/test-app.ts';
import { PgDialect } from 'drizzle-orm/pg-core';
import { renderStatement } from '#shared/db/render-sql.ts';
import { sql } from '#shared/db/sql.ts';
import { edgesRead, explainedWalk, recursiveWalks, rowsProduced } from '#test/support/query-plans.ts';
import { statementsDuring } from '#test/support/statement-capture.ts';

type Edge = { from_id: number; to_id: number; type: string };

const APP = '/api/apps/walks/';
const TYPES = [
  { name: 'manager', inverse: 'reports' },
  { name: 'mentor', inverse: 'mentees' },
];

function hierarchySchema(types: AnyBody[]): AnyBody {
  return {
    fields: [
      { name: 'id', type: 'integer' },
      { name: 'is_deleted', type: 'boolean', default: false },
    ],
    primaryKey: ['id'],
    hierarchy: true,
    graph: { enabled: true, types },
  };
}

/** Every ordered pair of `ids` linked by `type`. */
function complete(ids: number[], type: string): Edge[] {
  return ids.flatMap((from_id) => ids.filter((to_id) => to_id !== from_id).map((to_id) => ({ from_id, to_id, type })));
}

/**
 * The model's list: `[id, _depth, _relationship_type]` of what a breadth-first walk from `base` over
 * `type` reaches within `depth`, by depth then id. Descendants follow edges backwards.
 */
function modelList(edges: Edge[], deleted: Set<number>, base: number, type: string, descendants: boolean, depth: number) {
  const found: Array<[number, number, string]> = [];
  const seen = new Set([base]);
  let frontier = [base];
  for (let level = 1; level <= depth && frontier.length > 0; level += 1) {
    const next = new Set<number>();
    for (const edge of edges) {
      if (edge.type !== type) continue;
      const [near, far] = descendants ? [edge.to_id, edge.from_id] : [edge.from_id, edge.to_id];
      if (frontier.includes(near) && !seen.has(far) && !deleted.has(far)) next.add(far);
    }
    frontier = [...next].sort((a, b) => a - b);
    for (const id of frontier) {
      seen.add(id);
      found.push([id, level, type]);
    }
  }
  return found;
}

describe('include= walks of hierarchy tables', () => {
  let app: TestApp;
  let admin: string;
  let tenant: Record<string, string>;
  let tables = 0;
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: admin, body, headers: tenant });
  const listed = (list: AnyBody[] | undefined) => (list ?? []).map((record) => [record.id, record._depth, record._relationship_type]);

  /** A new hierarchy table of `ids` (those in `deleted` soft-deleted after the edges are made). */
  async function graphTable(types: AnyBody[], ids: number[], edges: Edge[], deleted: Iterable<number> = []): Promise<string> {
    tables += 1;
    const name = `graph_${tables}`;
    const created = await call('POST', `${APP}datasources/main/datatables/`, { name, json_schema: hierarchySchema(types) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const table = `${APP}datatables/${name}/`;
    expect((await call('POST', `${table}materialize/`)).status).toBe(200);
    const records = ids.map((id) => ({ id }));
    expect((await call('POST', `${table}data/`, records)).status).toBe(201);
    if (edges.length > 0) expect((await call('POST', `${table}edges/`, edges)).status).toBe(201);
    for (const id of deleted) expect((await call('DELETE', `${table}data/${id}/`)).status).toBe(204);
    return table;
  }

  /** The answer to `path` and, per walk of its statement, the rows its plan produced and the edges it read. */
  async function walkWork(path: string): Promise<{ body: AnyBody; walks: Array<{ rows: number; edges: number }> }> {
    const { answer, plan } = await explainedWalk(app.runtime.db, () => call('GET', path));
    return { body: answer.body, walks: recursiveWalks(plan).map((walk) => ({ rows: rowsProduced(walk), edges: edgesRead(walk) })) };
  }

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    tenant = (await createSite(app, admin, 'Walks Site')).headers;
    await call('POST', '/api/apps/', { name: 'Walks' });
    await call('POST', `${APP}datasources/`, { name: 'Main', provider_type: 'flat_table' });
  });
  afterAll(async () => {
    await app.close();
  });

  it('walks a complete graph once per record, with work within its size whatever the depth', async () => {
    // Prepare: 60 records, each linked to every other (3,540 edges).
    const ids = Array.from({ length: 60 }, (_, index) => index + 1);
    const edges = complete(ids, 'manager');
    const table = await graphTable(TYPES, ids, edges);
    const others = ids.slice(1).map((id) => [id, 1, 'manager']);

    // Act
    const shallow = await walkWork(`${table}data/1/?include=both&graph_types=manager&depth=2`);
    const deep = await walkWork(`${table}data/1/?include=both&graph_types=manager&depth=100`);

    // Assess: every other record once, at depth 1, in both directions. Each walk reads each edge
    // about once and does as much at depth 2 as at 100 (one row per record and depth read every edge
    // at every level: 350,000 edges at depth 100).
    for (const { body } of [shallow, deep]) {
      expect(body.data).toEqual({ id: 1, is_deleted: false });
      expect(listed(body.reports)).toEqual(others);
      expect(listed(body.manager)).toEqual(others);
      expect(body.mentees).toBeUndefined();
    }
    expect(deep.walks).toHaveLength(2);
    expect(deep.walks).toEqual(shallow.walks);
    for (const walk of deep.walks) {
      expect(walk.edges).toBeLessThan(1.5 * edges.length);
      expect(walk.rows).toBeLessThan(2 * (ids.length + edges.length));
    }
  });

  it("keeps one generic plan for a record's walk, so a read is not planned anew every time", async () => {
    // Prepare: a chain 1 ← 2 ← 3, and the statement a record's include= sends.
    const table = await graphTable(
      TYPES,
      [1, 2, 3],
      [
        { from_id: 2, to_id: 1, type: 'manager' },
        { from_id: 3, to_id: 2, type: 'manager' },
      ],
    );
    const db = app.runtime.db;
    const { result: answer, statements } = await statementsDuring(db, () =>
      call('GET', `${table}data/1/?include=descendants&graph_types=manager&depth=10`),
    );
    expect(listed(answer.body.reports)).toEqual([
      [2, 1, 'manager'],
      [3, 2, 'manager'],
    ]);
    const walk = statements
      .map((statement) => renderStatement(statement, new PgDialect()))
      .find((query) => /\bwith recursive\b/i.test(query.sql))!;
    const literal = (value: unknown) => (value === null ? 'null' : `'${String(value).replaceAll("'", "''")}'`);

    // Act: prepared as the driver prepares it, and run past the five custom plans PostgreSQL makes first.
    const plans = await db.transaction(async (tx) => {
      await tx.run(sql.raw(`prepare include_walk as ${walk.sql}`));
      for (let run = 0; run < 8; run += 1) await tx.rows(sql.raw(`execute include_walk(${walk.params.map(literal).join(', ')})`));
      const [row] = await tx.rows<{ generic_plans: string | number }>(
        sql.raw(`select generic_plans from pg_prepared_statements where name = 'include_walk'`),
      );
      await tx.run(sql.raw('deallocate include_walk'));
      return row!;
    });

    // Assess: the generic plan is kept. With the one root and the one type sent as one-element
    // arrays, the generic plan was costed at ten times the custom one and never chosen.
    expect(Number(plans.generic_plans)).toBeGreaterThan(0);
  });

  it('walks a long chain into a dense knot with work within the graph size, not edges × levels', async () => {
    // Prepare: 1 ← 2 ← … ← 40 (each reports to the one before), and 40 ← every record of a knot of
    // 41…80 linked to each other: descendants of 1 run 40 levels deep before the knot.
    const chain = Array.from({ length: 40 }, (_, index) => index + 1);
    const knot = Array.from({ length: 40 }, (_, index) => index + 41);
    const edges = [
      ...chain.slice(1).map((id) => ({ from_id: id, to_id: id - 1, type: 'manager' })),
      ...knot.map((id) => ({ from_id: id, to_id: 40, type: 'manager' })),
      ...complete(knot, 'manager'),
    ];
    const table = await graphTable(TYPES, [...chain, ...knot], edges);
    const records = chain.length + knot.length;

    // Act
    const down = await walkWork(`${table}data/1/?include=descendants&graph_types=manager&depth=100`);
    const up = await walkWork(`${table}data/41/?include=ancestors&graph_types=manager&depth=100`);

    // Assess: the knot once, one level below 40, and the chain once, from 40 up. Each walk reads each
    // edge about once (one row per record and depth read 94,000 and 162,000 of them; a plan scanning
    // every edge at each of the 41 levels would read 67,000), and its rows stay within the edges and
    // one pass over the records seen per level.
    expect(listed(down.body.reports)).toEqual([
      ...chain.slice(1).map((id) => [id, id - 1, 'manager']),
      ...knot.map((id) => [id, 40, 'manager']),
    ]);
    const upward = [...knot.filter((id) => id !== 41).map((id) => [id, 1]), ...chain.map((id) => [id, 41 - id])];
    expect(listed(up.body.manager)).toEqual(
      upward.sort(([a, da], [b, db]) => da! - db! || a! - b!).map(([id, depth]) => [id, depth, 'manager']),
    );
    for (const { walks } of [down, up]) {
      expect(walks).toHaveLength(1);
      expect(walks[0]!.edges).toBeLessThan(1.5 * edges.length);
      expect(walks[0]!.rows).toBeLessThan(2 * (edges.length + 41 * records));
    }
  });

  it('answers every list as a breadth-first walk of the model does, over random graphs', async () => {
    const ids = Array.from({ length: 12 }, (_, index) => index + 1);
    const bases = [1, 2, 3];
    const id = fc.constantFrom(...ids);
    const edge = fc.record({ from_id: id, to_id: id, type: fc.constantFrom('manager', 'mentor') });
    const depth = fc.constantFrom(0, 1, 2, 3, 100);
    const graph = fc.record({
      edges: fc.uniqueArray(edge, { minLength: 10, maxLength: 50, selector: (e) => `${e.from_id} ${e.to_id} ${e.type}` }),
      deleted: fc.uniqueArray(fc.integer({ min: 4, max: 12 }), { maxLength: 3 }),
      depths: fc.tuple(depth, depth, depth),
    });
    await fc.assert(
      fc.asyncProperty(graph, async ({ edges: drawn, deleted, depths }) => {
        // Prepare: the bases 1, 2 and 3 stay visible; the records in `deleted` are soft-deleted.
        const edges = drawn.filter((e) => e.from_id !== e.to_id);
        const table = await graphTable(TYPES, ids, edges, deleted);
        const gone = new Set(deleted);

        for (const [index, base] of bases.entries()) {
          const depth = depths[index]!;

          // Act
          const all = await call('GET', `${table}data/${base}/?include=both&depth=${depth}`);
          const one = await call('GET', `${table}data/${base}/?include=descendants&graph_types=mentor&depth=${depth}`);

          // Assess
          expect(all.status).toBe(200);
          for (const type of TYPES) {
            expect(listed(all.body[type.inverse])).toEqual(modelList(edges, gone, base, type.name, true, depth));
            expect(listed(all.body[type.name])).toEqual(modelList(edges, gone, base, type.name, false, depth));
          }
          expect(Object.keys(one.body).sort()).toEqual(['data', 'mentees']);
          expect(listed(one.body.mentees)).toEqual(modelList(edges, gone, base, 'mentor', true, depth));
        }
      }),
      { numRuns: 12 },
    );
  }, 120_000);
});
