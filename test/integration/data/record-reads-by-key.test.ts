// A record read by its key through a remembered table sends a statement made once per table and read
// shape and filled in with each request's key (fused-read-sql.ts's guardedReadByKeySql). Each key
// must get its own record, whatever it holds (quotes, `$1`, characters outside ASCII, a text that
// reads as a number), however reads of other keys interleave with it, with or without `include=`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSite } from '#test/support/sites.ts';
import { startTestApp, type AnyBody, type TestApp } from '#test/support/test-app.ts';

const APP = '/api/apps/keyed/';
const CODES = ['a', 'B', '$1', "o'neil", 'ü-straße', '1', '01', ' spaced '];

describe('records read by key through a remembered table', () => {
  let app: TestApp;
  let call: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: AnyBody }>;

  beforeAll(async () => {
    app = await startTestApp();
    const admin = await app.adminToken();
    const site = await createSite(app, admin, 'Keyed Reads');
    call = (method, path, body) => app.request(method, path, { token: admin, body, headers: site.headers });
    expect((await call('POST', '/api/apps/', { name: 'Keyed' })).status).toBe(201);
    expect((await call('POST', `${APP}datasources/`, { name: 'Main', provider_type: 'flat_table' })).status).toBe(201);
    const define = async (name: string, json_schema: AnyBody) => {
      expect((await call('POST', `${APP}datasources/main/datatables/`, { name, json_schema })).status).toBe(201);
      expect((await call('POST', `${APP}datatables/${name}/materialize/`)).status).toBe(200);
    };
    await define('codes', {
      fields: [
        { name: 'code', type: 'string' },
        { name: 'label', type: 'string' },
      ],
      primaryKey: ['code'],
    });
    await define('nodes', {
      fields: [
        { name: 'id', type: 'integer' },
        { name: 'name', type: 'string' },
      ],
      primaryKey: ['id'],
      hierarchy: true,
      graph: { enabled: true, types: [{ name: 'parent', inverse: 'children' }] },
    });
    const codes = await call(
      'POST',
      `${APP}datatables/codes/data/`,
      CODES.map((code) => ({ code, label: `label of ${code}` })),
    );
    expect(codes.status, JSON.stringify(codes.body)).toBe(201);
    const nodes = await call(
      'POST',
      `${APP}datatables/nodes/data/`,
      Array.from({ length: 7 }, (_, index) => ({ id: index + 1, name: `node ${index + 1}` })),
    );
    expect(nodes.status).toBe(201);
    // A binary tree: 2 and 3 report to 1, 4 and 5 to 2, 6 and 7 to 3.
    const edges = await call(
      'POST',
      `${APP}datatables/nodes/edges/`,
      [2, 3, 4, 5, 6, 7].map((id) => ({ from_id: id, to_id: Math.floor(id / 2), type: 'parent' })),
    );
    expect(edges.status, JSON.stringify(edges.body)).toBe(201);
  });
  afterAll(async () => {
    await app.close();
  });

  const codePath = (code: string) => `${APP}datatables/codes/data/${encodeURIComponent(code)}/`;

  it('answers each key its own record, in turn and all at once', async () => {
    // The first read finds the table the ordinary way; every later one goes the remembered way.
    for (const code of [...CODES, ...[...CODES].reverse()]) {
      const read = await call('GET', codePath(code));
      expect(read.status, code).toBe(200);
      expect(read.body.data).toEqual({ code, label: `label of ${code}` });
    }
    const together = await Promise.all(CODES.map((code) => call('GET', codePath(code))));
    expect(together.map((read) => read.body.data.code)).toEqual(CODES);
  });

  it('answers 404 for a key no record has, and never a 500 for a hostile one', async () => {
    expect((await call('GET', codePath('a'))).status).toBe(200);
    for (const code of ['A', 'missing', '$2', "'", '1 ', '\u0000', 'a\u0000b', 'x'.repeat(5000)]) {
      const read = await call('GET', codePath(code));
      expect([400, 404], `${JSON.stringify(code.slice(0, 20))}: ${read.status}`).toContain(read.status);
      expect(read.body.data).toBeUndefined();
    }
    expect((await call('GET', codePath('B'))).body.data.code).toBe('B');
  });

  it("walks each record's own descendants and ancestors, keys read as the integers they are", async () => {
    const walk = async (id: string, include: string) => {
      const read = await call('GET', `${APP}datatables/nodes/data/${id}/?include=${include}&depth=10`);
      expect(read.status, `${id} ${include}: ${JSON.stringify(read.body)}`).toBe(200);
      return read.body;
    };
    for (let round = 0; round < 2; round += 1) {
      const root = await walk('1', 'descendants');
      expect(root.data.id).toBe(1);
      expect(root.children.map((record: AnyBody) => record.id)).toEqual([2, 3, 4, 5, 6, 7]);
      const left = await walk('2', 'descendants');
      expect(left.children.map((record: AnyBody) => record.id)).toEqual([4, 5]);
      const leaf = await walk('7', 'ancestors');
      expect(leaf.parent.map((record: AnyBody) => [record.id, record._depth])).toEqual([
        [3, 1],
        [1, 2],
      ]);
      // A key written another way reads as the same integer, or not at all, as on the ordinary way.
      const padded = await call('GET', `${APP}datatables/nodes/data/03/?include=ancestors&depth=10`);
      if (padded.status === 200) expect(padded.body.parent.map((record: AnyBody) => record.id)).toEqual([1]);
      else expect(padded.status).toBe(404);
      expect((await call('GET', `${APP}datatables/nodes/data/99/?include=descendants`)).status).toBe(404);
      expect((await call('GET', `${APP}datatables/nodes/data/x1/?include=descendants`)).status).toBe(404);
    }
  });
});
