// Defects a hostile probe of the relations API found, tested as the attacker sent them: a reference
// to another app's table led through its keys into that app (filters, sorts, groups, aggregates and
// populate all read its secrets); populate matched keys by text, so number, datetime and duration
// keys matched nothing; a relation named `__proto__` vanished from populate; and `format=graph`
// lists dropped the `_count` members (`total_is_estimate`, `next`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';
import { createSite } from '#test/support/sites.ts';

type Rec = Record<string, any>; // `any`: answers are read field by field

const SECRET = 'sk_live_SUPERSECRET';

/** An own member's value, read without the `__proto__` accessor. */
const own = (record: Rec, key: string) => Object.getOwnPropertyDescriptor(record, key)?.value;

describe('relation probe fixes', () => {
  let app: TestApp;
  let admin: string;
  let roleUser: string;
  let tenant: Record<string, string>;
  let organization: string;
  const call = (method: string, path: string, body?: unknown, token = admin) => app.request(method, path, { token, body, headers: tenant });
  const made = async (method: string, path: string, body?: unknown) => {
    const answer = await call(method, path, body);
    expect(answer.status, `${method} ${path} ${JSON.stringify(answer.body)}`).toBeLessThan(300);
    return answer;
  };
  /** An app with a flat datasource and the given tables, materialized in order. */
  const appWith = async (name: string, tables: Array<[string, unknown]>) => {
    await made('POST', '/api/apps/', { name });
    const slug = name.toLowerCase();
    await made('POST', `/api/apps/${slug}/datasources/`, { name: 'Main', provider_type: 'flat_table' });
    for (const [table, schema] of tables) {
      await made('POST', `/api/apps/${slug}/datasources/main/datatables/`, { name: table, json_schema: schema });
      await made('POST', `/api/apps/${slug}/datatables/${table}/materialize/`);
    }
  };

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    const site = await createSite(app, admin, 'Relation Probe');
    tenant = site.headers;
    organization = site.organization;
  });
  afterAll(async () => {
    await app.close();
  });

  describe('a reference to another app’s table', () => {
    const SESSIONS = '/api/apps/blog/datatables/sessions/data/';

    beforeAll(async () => {
      await appWith('Vault', [
        [
          'apikeys',
          {
            fields: [
              { name: 'id', type: 'integer' },
              { name: 'secret', type: 'string' },
            ],
            primaryKey: ['id'],
          },
        ],
        [
          'sessions',
          {
            fields: [
              { name: 'id', type: 'integer' },
              { name: 'label', type: 'string' },
              { name: 'apikey_id', type: 'integer' },
            ],
            primaryKey: ['id'],
            foreignKeys: [{ fields: ['apikey_id'], reference: { resource: 'apikeys', fields: ['id'] } }],
          },
        ],
        [
          'audits',
          {
            fields: [
              { name: 'id', type: 'integer' },
              { name: 'note', type: 'string' },
              { name: 'session_id', type: 'integer' },
            ],
            primaryKey: ['id'],
            foreignKeys: [{ fields: ['session_id'], reference: { resource: 'sessions', fields: ['id'] } }],
          },
        ],
      ]);
      await made('POST', '/api/apps/vault/datatables/apikeys/data/', { id: 1, secret: SECRET });
      await made('POST', '/api/apps/vault/datatables/sessions/data/', { id: 1, label: 'web', apikey_id: 1 });
      await made('POST', '/api/apps/vault/datatables/audits/data/', { id: 1, note: `audit ${SECRET}`, session_id: 1 });
      await appWith('Blog', []);
      const imported = await call('POST', '/api/apps/blog/datatables/import-reference/', {
        source_app_slug: 'vault',
        source_table_name: 'sessions',
      });
      expect(imported.status).toBe(201);
      // A member of the site's organization with no site permission: only an app role that views app blog.
      await app.createUser('roleuser');
      expect(
        (await app.request('POST', `/api/cloud/organizations/${organization}/members/`, { token: admin, body: { user_slug: 'roleuser' } }))
          .status,
      ).toBe(201);
      roleUser = (await app.login('roleuser', USER_PASSWORD)).access;
      await made('POST', '/api/app/blog/roles', { name: 'Viewer', permissions: ['view_site'] });
      await made('POST', '/api/assign/roles', { roles: ['blog-viewer'], usernames: ['roleuser'] });
    });

    it('refuses a role holder of the importing app the shared records and the source app’s tables alike', async () => {
      // Prepare: roleuser holds view on blog only. A reference opens nothing: reading through it needs
      // the right to read the source app (reference-service.ts), so it is refused as a direct read is.
      // Act
      const shared = await call('GET', SESSIONS, undefined, roleUser);
      const direct = await call('GET', '/api/apps/vault/datatables/apikeys/data/', undefined, roleUser);
      // Assess
      expect(shared.status).toBe(403);
      expect(JSON.stringify(shared.body)).not.toContain('web');
      expect(direct.status).toBe(403);
    });

    it('refuses every relational read through the reference with 400, leaking nothing (CVE-2023-22894, CVE-2025-30352)', async () => {
      // Prepare: what the probe sent, forward (apikey) and reverse (audits) alike.
      const attempts = [
        'populate=apikey',
        'populate=apikey_id',
        'populate=audits',
        'apikey.secret__startswith=sk_live_S',
        'apikey_id.secret=sk_live_SUPERSECRET',
        'apikey.id=1',
        'audits.note__contains=SUPER',
        '_aggregate=max(apikey.secret)',
        '_aggregate=count(*)&_group_by=apikey.secret',
        '_sort=apikey.secret',
        '_sort=-apikey.secret,id',
      ];
      // The role user does not reach the source app at all (403, reference-source-access.test.ts); the
      // admin does, and finds the reference has no relations (400).
      for (const [token, status] of [
        [roleUser, 403],
        [admin, 400],
      ] as const) {
        for (const query of attempts) {
          // Act
          const answer = await call('GET', `${SESSIONS}?${query}`, undefined, token);
          // Assess
          expect(answer.status, query).toBe(status);
          expect(JSON.stringify(answer.body), query).not.toContain('SUPERSECRET');
          if (status === 400) expect(answer.body.error, query).toContain('unknown relationship');
        }
        const one = await call('GET', `${SESSIONS}1/?populate=apikey`, undefined, token);
        expect(one.status).toBe(status);
        expect(JSON.stringify(one.body)).not.toContain('SUPERSECRET');
      }
    });

    it('answers populate=* on the reference with its own records only', async () => {
      // Prepare: the admin, who may read the source app (a blog-only role holder may not read through the reference).
      // Act
      const list = await call('GET', `${SESSIONS}?populate=*`);
      const one = await call('GET', `${SESSIONS}1/?populate=*`);
      // Assess
      expect(list.status).toBe(200);
      expect(list.body.data).toEqual([{ id: 1, label: 'web', apikey_id: 1 }]);
      expect(one.status).toBe(200);
      expect(one.body.data).toEqual({ id: 1, label: 'web', apikey_id: 1 });
    });

    it('gives no prefix oracle: a true and a false guess answer alike', async () => {
      // Act
      for (const [token, status] of [
        [roleUser, 403],
        [admin, 400],
      ] as const) {
        const right = await call('GET', `${SESSIONS}?apikey.secret__startswith=sk_live_S`, undefined, token);
        const wrong = await call('GET', `${SESSIONS}?apikey.secret__startswith=zz`, undefined, token);
        // Assess
        expect([right.status, wrong.status]).toEqual([status, status]);
        expect(JSON.stringify(right.body)).toBe(JSON.stringify(wrong.body).replaceAll('zz', 'sk_live_S'));
      }
    });

    it('keeps the source app’s own relations working there', async () => {
      // Act
      const answer = await call('GET', '/api/apps/vault/datatables/sessions/data/?populate=apikey&apikey.id=1');
      // Assess
      expect(answer.status).toBe(200);
      expect(answer.body.data[0].apikey_id).toEqual({ id: 1, secret: SECRET });
    });
  });

  describe('populate keys of number, datetime and duration type', () => {
    const KIDS = '/api/apps/typed/datatables/kids/data/';

    beforeAll(async () => {
      const parent = (key: string, type: string) => ({
        fields: [
          { name: key, type },
          { name: 'label', type: 'string' },
        ],
        primaryKey: [key],
      });
      await appWith('Typed', [
        ['nums', parent('nk', 'number')],
        ['moments', parent('dk', 'datetime')],
        ['spans', parent('uk', 'duration')],
        [
          'kids',
          {
            fields: [
              { name: 'id', type: 'integer' },
              { name: 'nk', type: 'number' },
              { name: 'dk', type: 'datetime' },
              { name: 'uk', type: 'duration' },
            ],
            primaryKey: ['id'],
            foreignKeys: [
              { fields: ['nk'], reference: { resource: 'nums', fields: ['nk'] } },
              { fields: ['dk'], reference: { resource: 'moments', fields: ['dk'] } },
              { fields: ['uk'], reference: { resource: 'spans', fields: ['uk'] } },
            ],
          },
        ],
        [
          'toys',
          {
            fields: [
              { name: 'id', type: 'integer' },
              { name: 'kid_id', type: 'integer' },
            ],
            primaryKey: ['id'],
            foreignKeys: [{ fields: ['kid_id'], reference: { resource: 'kids', fields: ['id'] } }],
          },
        ],
      ]);
      await made('POST', '/api/apps/typed/datatables/nums/data/', [
        { nk: 1e-7, label: 'tiny' },
        { nk: 12345678.5, label: 'big' },
      ]);
      await made('POST', '/api/apps/typed/datatables/moments/data/', [
        { dk: '2024-02-17T10:00:00.123Z', label: 'morning' },
        { dk: '2024-02-18T00:00:00Z', label: 'midnight' },
      ]);
      await made('POST', '/api/apps/typed/datatables/spans/data/', [
        { uk: 'P1DT2H', label: 'day' },
        { uk: 'PT45M', label: 'short' },
      ]);
      await made('POST', KIDS, [
        // The same instant written with another offset, and the same span in hours: the database's
        // comparison (and its foreign key) takes them as the parents' keys.
        { id: 1, nk: 1e-7, dk: '2024-02-17T12:00:00.123+02:00', uk: 'PT26H' },
        { id: 2, nk: 12345678.5, dk: '2024-02-18T00:00:00Z', uk: 'PT45M' },
        { id: 3, nk: null, dk: null, uk: null },
      ]);
      await made('POST', '/api/apps/typed/datatables/toys/data/', [
        { id: 1, kid_id: 1 },
        { id: 2, kid_id: 2 },
      ]);
    });

    it('replaces each typed key with its record, as the related filter finds it', async () => {
      // Act
      const filtered = await call('GET', `${KIDS}?nk.label=tiny&dk.label=morning&uk.label=day`);
      const answer = await call('GET', `${KIDS}?populate=nk,dk,uk&_sort=id`);
      // Assess
      expect(filtered.body.data.map((kid: Rec) => kid.id)).toEqual([1]);
      expect(answer.status).toBe(200);
      const [first, second, third] = answer.body.data;
      expect(first.nk).toEqual({ nk: 1e-7, label: 'tiny' });
      expect(first.dk).toEqual({ dk: '2024-02-17T10:00:00.123Z', label: 'morning' });
      expect(first.uk).toMatchObject({ label: 'day' });
      expect(second.nk).toEqual({ nk: 12345678.5, label: 'big' });
      expect(second.dk).toMatchObject({ label: 'midnight' });
      expect(second.uk).toEqual({ uk: 'PT45M', label: 'short' });
      expect(third).toMatchObject({ nk: null, dk: null, uk: null });
    });

    it('lists the children under each typed key in reverse', async () => {
      // Act
      const nums = await call('GET', '/api/apps/typed/datatables/nums/data/?populate=kids&_sort=nk');
      const moments = await call('GET', '/api/apps/typed/datatables/moments/data/?populate=kids&_sort=dk');
      const spans = await call('GET', '/api/apps/typed/datatables/spans/data/?populate=kids&_sort=uk');
      // Assess
      const kidsOf = (answer: { body: { data: Rec[] } }) => answer.body.data.map((record) => record.kids.map((kid: Rec) => kid.id));
      expect(kidsOf(nums)).toEqual([[1], [2]]);
      expect(kidsOf(moments)).toEqual([[1], [2]]);
      expect(kidsOf(spans)).toEqual([[2], [1]]);
    });

    it('matches typed keys on nested levels, sent in one batch below a forward relation', async () => {
      // Act
      const chain = await call('GET', '/api/apps/typed/datatables/toys/data/?populate=kid_id.dk.kids,kid_id.nk&_sort=id');
      const one = await call('GET', '/api/apps/typed/datatables/toys/data/1/?populate=kid_id.uk');
      const down = await call('GET', '/api/apps/typed/datatables/moments/data/?populate=kids.nk&_sort=dk');
      // Assess
      expect(chain.status).toBe(200);
      const [toy1, toy2] = chain.body.data;
      expect(toy1.kid_id.dk).toMatchObject({ label: 'morning' });
      expect(toy1.kid_id.dk.kids.map((kid: Rec) => kid.id)).toEqual([1]);
      expect(toy1.kid_id.nk).toEqual({ nk: 1e-7, label: 'tiny' });
      expect(toy2.kid_id.dk).toMatchObject({ label: 'midnight' });
      expect(toy2.kid_id.nk).toMatchObject({ label: 'big' });
      expect(one.body.data.kid_id.uk).toMatchObject({ label: 'day' });
      expect(down.body.data.map((moment: Rec) => moment.kids.map((kid: Rec) => kid.nk.label))).toEqual([['tiny'], ['big']]);
    });
  });

  describe('a relation named __proto__', () => {
    const ITEMS = '/api/apps/proto/datatables/items/data/';

    beforeAll(async () => {
      await appWith('Proto', [
        [
          'items',
          {
            fields: [
              { name: 'id', type: 'integer' },
              { name: 'name', type: 'string' },
            ],
            primaryKey: ['id'],
          },
        ],
        [
          '__proto__',
          {
            fields: [
              { name: 'id', type: 'integer' },
              { name: 'v', type: 'string' },
              { name: 'item_id', type: 'integer' },
            ],
            primaryKey: ['id'],
            foreignKeys: [{ fields: ['item_id'], reference: { resource: 'items', fields: ['id'] } }],
          },
        ],
      ]);
      await made('POST', ITEMS, [
        { id: 1, name: 'one' },
        { id: 2, name: 'two' },
      ]);
      await made('POST', '/api/apps/proto/datatables/__proto__/data/', { id: 1, v: 'x', item_id: 1 });
    });

    it('answers the populated list as a member named __proto__', async () => {
      for (const query of ['populate=__proto__', 'populate=*']) {
        // Act
        const answer = await call('GET', `${ITEMS}?${query}&_sort=id`);
        // Assess
        expect(answer.status, query).toBe(200);
        const [one, two] = answer.body.data;
        expect(Object.hasOwn(one, '__proto__'), query).toBe(true);
        expect(own(one, '__proto__'), query).toEqual([{ id: 1, v: 'x', item_id: 1 }]);
        expect(Object.hasOwn(two, '__proto__'), query).toBe(true);
        expect(own(two, '__proto__'), query).toEqual([]);
      }
      const filtered = await call('GET', `${ITEMS}?__proto__.v=x`);
      expect(filtered.body.data.map((item: Rec) => item.id)).toEqual([1]);
    });

    it('answers it on one record too', async () => {
      // Act
      const answer = await call('GET', `${ITEMS}1/?populate=__proto__`);
      // Assess
      expect(answer.status).toBe(200);
      expect(Object.hasOwn(answer.body.data, '__proto__')).toBe(true);
      expect(own(answer.body.data, '__proto__')).toEqual([{ id: 1, v: 'x', item_id: 1 }]);
    });
  });

  describe('format=graph under _count', () => {
    const PEOPLE = '/api/apps/org/datatables/people/data/';

    beforeAll(async () => {
      await appWith('Org', [
        [
          'people',
          {
            fields: [
              { name: 'id', type: 'integer' },
              { name: 'name', type: 'string' },
            ],
            primaryKey: ['id'],
            hierarchy: true,
            graph: { enabled: true, types: [{ name: 'manager', inverse: 'reports' }] },
          },
        ],
      ]);
      await made(
        'POST',
        PEOPLE,
        Array.from({ length: 30 }, (_, index) => ({ id: index + 1, name: `P${index + 1}` })),
      );
      await made('POST', '/api/apps/org/datatables/people/edges/', [{ from_id: 2, to_id: 1, type: 'manager' }]);
    });

    /** The members beside `data`, which the graph answer must share with the plain list's. */
    const membersOf = (body: Rec) => {
      const { data: _data, ...rest } = body;
      return rest;
    };

    it('carries total_is_estimate under _count=planned, as the plain list does', async () => {
      // Act
      const graph = await call('GET', `${PEOPLE}?format=graph&page_size=2&_sort=id&_count=planned`);
      const plain = await call('GET', `${PEOPLE}?page_size=2&_sort=id&_count=planned`);
      // Assess
      expect(graph.status).toBe(200);
      expect(typeof graph.body.total_is_estimate).toBe('boolean');
      expect(membersOf(graph.body)).toEqual(membersOf(plain.body));
      expect(graph.body.data.nodes.map((node: Rec) => node.id)).toEqual([1, 2]);
      expect(graph.body.data.edges.map((edge: Rec) => [edge.from, edge.to])).toEqual([[2, 1]]);
      // The last page shows where the matches end: exact, not an estimate.
      const last = await call('GET', `${PEOPLE}?format=graph&page_size=20&page=2&_sort=id&_count=planned`);
      expect(last.body).toMatchObject({ total: 30, total_is_estimate: false });
    });

    it('carries next under _count=none while a further row exists, and null at the end', async () => {
      // Act
      const first = await call('GET', `${PEOPLE}?format=graph&page_size=2&_sort=id&_count=none`);
      const last = await call('GET', `${PEOPLE}?format=graph&page_size=10&page=3&_sort=id&_count=none`);
      // Assess
      expect(first.status).toBe(200);
      expect(first.body.total).toBeNull();
      expect(first.body.next).toEqual(expect.stringContaining('page=2'));
      expect(first.body.next).toEqual(expect.stringContaining('format=graph'));
      const plain = await call('GET', `${PEOPLE}?page_size=2&_sort=id&_count=none`);
      expect(Object.keys(membersOf(first.body)).sort()).toEqual(Object.keys(membersOf(plain.body)).sort());
      expect(last.body.total).toBeNull();
      expect(last.body.next).toBeNull();
      const followed = await call('GET', new URL(first.body.next, 'http://x').pathname + new URL(first.body.next, 'http://x').search);
      expect(followed.body.data.nodes.map((node: Rec) => node.id)).toEqual([3, 4]);
    });

    it('keeps the exact total by default', async () => {
      const answer = await call('GET', `${PEOPLE}?format=graph&page_size=2`);
      expect(answer.body).toMatchObject({ total: 30, page: 1, page_size: 2 });
      expect(answer.body).not.toHaveProperty('next');
      expect(answer.body).not.toHaveProperty('total_is_estimate');
    });
  });
});
