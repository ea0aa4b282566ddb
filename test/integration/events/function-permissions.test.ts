// Who may change an app's functions and read their signing secrets: as for the site's other app
// content (apps, datatables, buckets), any user of the site reads functions, and only managers of
// its content (manage_site or admin_site, or an app role granting manage_site in the app) create,
// change, delete, subscribe and unsubscribe them and see the signing secret in clear. Everyone else
// reads the secret as null, through every route that answers a function.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorageSite, siteUser, type StorageSite } from '#test/support/storage.ts';
import { startTestApp, USER_PASSWORD, type TestApp } from '#test/support/test-app.ts';

const REFUSAL = {
  success: false,
  status_code: 403,
  code: 'PERMISSION_DENIED',
  message: 'Changing functions and their event subscriptions needs manage_site or admin_site on this site.',
};

describe('function permissions', () => {
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  let schema: string;
  let viewer: string;
  let manager: string;
  const call = (method: string, route: string, token: string, body?: unknown) =>
    app.request(method, route, { token, headers: site.tenant, body });
  const functions = () => `/api/apps/${site.app}/functions/`;

  // Each test makes the functions it works on, named with a number of its own, so the tests pass in
  // any order (--sequence.shuffle).
  let made = 0;
  async function newFunction(): Promise<{ id: number; slug: string; secret: string }> {
    const created = await call('POST', functions(), admin, { name: `Guarded ${++made}`, webhook_url: `https://hooks.example.com/${made}` });
    expect(created.status).toBe(201);
    return { id: created.body.data.id, slug: created.body.data.slug, secret: created.body.data.signing_secret };
  }

  /** The site's functions and subscriptions as stored, to show a refused call changed nothing. */
  async function stored(): Promise<unknown> {
    const table = (name: string) => sql`${sql.identifier(schema)}.${sql.identifier(name)}`;
    return {
      functions: await app.runtime.db.rows(
        sql`select id, name, slug, webhook_url, timeout_seconds, is_active, updated_at::text from ${table('functions')} order by id`,
      ),
      subscribers: await app.runtime.db.rows(sql`select id, event, function_id from ${table('event_subscribers')} order by id`),
    };
  }

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Function Permissions');
    const [row] = await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${site.slug}`);
    schema = row!.schema_name;
    viewer = await siteUser(app, admin, site, 'fn-viewer', ['view_site']);
    manager = await siteUser(app, admin, site, 'fn-manager', ['manage_site']);
  });
  afterAll(async () => {
    await app.close();
  });

  it('hides the signing secret from a view-only user in the list and the detail', async () => {
    // Prepare
    const fn = await newFunction();

    // Act
    const list = await call('GET', `${functions()}?page_size=100`, viewer);
    const detail = await call('GET', `${functions()}${fn.slug}/`, viewer);

    // Assess
    expect(list.status).toBe(200);
    expect(list.body.data.length).toBeGreaterThan(0);
    expect(list.body.data.map((item: { signing_secret: unknown }) => item.signing_secret)).toEqual(list.body.data.map(() => null));
    expect(list.body.data.find((item: { id: number }) => item.id === fn.id)).toMatchObject({ slug: fn.slug, signing_secret: null });
    expect(detail.status).toBe(200);
    expect(detail.body.data).toMatchObject({ id: fn.id, slug: fn.slug, signing_secret: null });
    expect(JSON.stringify([list.body, detail.body])).not.toContain('whsec_');
  });

  it('shows the signing secret to the site admin and to a manage_site user', async () => {
    // Prepare
    const fn = await newFunction();

    // Act
    const answers = [];
    for (const token of [admin, manager]) {
      answers.push(await call('GET', `${functions()}${fn.slug}/`, token), await call('GET', `${functions()}?page_size=100`, token));
    }

    // Assess
    expect(fn.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    for (const [detail, list] of [answers.slice(0, 2), answers.slice(2)]) {
      expect(detail!.body.data.signing_secret).toBe(fn.secret);
      expect(list!.body.data.find((item: { id: number }) => item.id === fn.id).signing_secret).toBe(fn.secret);
    }
  });

  it.each([['view_site'], ['access_site']])(
    'refuses create, update and delete to a %s user with 403 and changes nothing',
    async (permission) => {
      // Prepare
      const fn = await newFunction();
      const token = await siteUser(app, admin, site, `fn-${permission.replace('_', '-')}-writer`, [permission]);
      const before = await stored();

      // Act
      const created = await call('POST', functions(), token, { name: 'Sneaky', webhook_url: 'https://attacker.example.com/' });
      const patched = await call('PATCH', `${functions()}${fn.slug}/`, token, { webhook_url: 'https://attacker.example.com/' });
      const deleted = await call('DELETE', `${functions()}${fn.slug}/`, token);

      // Assess
      for (const answer of [created, patched, deleted]) {
        expect(answer.status).toBe(403);
        expect(answer.body).toEqual(REFUSAL);
      }
      expect(await stored()).toEqual(before);
    },
  );

  it('refuses subscribe and unsubscribe to a view-only user with 403 and changes nothing', async () => {
    // Prepare: one function subscribed by the admin, one not.
    const subscribed = await newFunction();
    const loose = await newFunction();
    expect((await call('POST', '/api/cloud/events/POST_USER_CREATE/subscribe/', admin, { function_id: subscribed.id })).status).toBe(200);
    const before = await stored();

    // Act: the console paths and their /api/events/ aliases.
    const answers = [
      await call('POST', '/api/cloud/events/POST_USER_CREATE/subscribe/', viewer, { function_id: loose.id }),
      await call('POST', '/api/events/PRE_USER_CREATE/subscribe/', viewer, { function_id: loose.id }),
      await call('POST', '/api/cloud/events/POST_USER_CREATE/unsubscribe/', viewer, { function_id: subscribed.id }),
      await call('POST', '/api/events/POST_USER_CREATE/unsubscribe/', viewer, { function_id: subscribed.id }),
    ];

    // Assess
    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual(REFUSAL);
    }
    expect(await stored()).toEqual(before);
    // Unsubscribed again, so no other test finds a subscriber it did not make.
    expect((await call('POST', '/api/cloud/events/POST_USER_CREATE/unsubscribe/', admin, { function_id: subscribed.id })).status).toBe(200);
  });

  it('lets a manage_site user create, change, subscribe, unsubscribe and delete a function', async () => {
    // Act
    const created = await call('POST', functions(), manager, { name: 'Managed hook', webhook_url: 'https://hooks.example.com/managed' });
    const slug = created.body.data.slug as string;
    const id = created.body.data.id as number;
    const patched = await call('PATCH', `${functions()}${slug}/`, manager, { timeout_seconds: 7 });
    const subscribed = await call('POST', '/api/cloud/events/POST_USER_CREATE/subscribe/', manager, { function_id: id });
    const unsubscribed = await call('POST', '/api/cloud/events/POST_USER_CREATE/unsubscribe/', manager, { function_id: id });
    const deleted = await call('DELETE', `${functions()}${slug}/`, manager);

    // Assess
    expect(created.status).toBe(201);
    expect(created.body.data.signing_secret).toMatch(/^whsec_/);
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ timeout_seconds: 7, signing_secret: created.body.data.signing_secret });
    expect(subscribed.status).toBe(200);
    expect(unsubscribed.status).toBe(200);
    expect(deleted.status).toBe(200);
    expect((await call('GET', `${functions()}${slug}/`, admin)).status).toBe(404);
  });

  it('gives a view-only user no route that answers a signing secret', async () => {
    // Prepare: a function with a subscription, so every read has something to show.
    const fn = await newFunction();
    expect((await call('POST', '/api/cloud/events/POST_USER_CREATE/subscribe/', admin, { function_id: fn.id })).status).toBe(200);
    const before = await stored();

    // Act: every route that answers a function or points at one, including the writes that would
    // answer the record (an empty PATCH changes nothing but would still return it) and the path
    // spellings the router accepts.
    const answers = [
      await call('GET', functions(), viewer),
      await call('GET', `/api/apps/${site.app}/functions`, viewer),
      await call('GET', `${functions()}${fn.slug}/`, viewer),
      await call('GET', `${functions()}${fn.slug}`, viewer),
      await call('GET', `${functions()}${fn.slug}/invocations/`, viewer),
      await call('GET', `/api/apps/${site.app}/events/POST_USER_CREATE/`, viewer),
      await call('PATCH', `${functions()}${fn.slug}/`, viewer, {}),
      await call('PATCH', `${functions()}${fn.slug}`, viewer, { name: 'Renamed' }),
      await call('POST', functions(), viewer, { name: 'Mine', webhook_url: 'https://attacker.example.com/' }),
      await call('POST', '/api/cloud/events/PRE_USER_CREATE/subscribe/', viewer, { function_id: fn.id }),
      await call('POST', '/api/events/POST_USER_CREATE/subscribe/', viewer, { function_id: fn.id }),
    ];

    // Assess: reads answer, writes are refused, and no answer carries the secret or any other.
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200, 403, 403, 403, 403, 403]);
    for (const answer of answers) expect(JSON.stringify(answer.body)).not.toContain('whsec_');
    expect(JSON.stringify(answers.map((answer) => answer.body))).not.toContain(fn.secret);
    expect(await stored()).toEqual(before);
    expect((await call('POST', '/api/cloud/events/POST_USER_CREATE/unsubscribe/', admin, { function_id: fn.id })).status).toBe(200);
  });

  it('counts app roles in their app: a manage_site role sees and changes functions, a view_site role neither', async () => {
    // Prepare: two members of the site's organization (roles go only to members) with no site
    // permission, each given an app role in the site's app.
    const fn = await newFunction();
    const roleSlugs: string[] = [];
    for (const [name, permissions] of [
      ['Hook Keeper', ['manage_site']],
      ['Hook Watcher', ['view_site']],
    ] as const) {
      const role = await call('POST', `/api/app/${site.app}/roles`, admin, { name, permissions });
      expect(role.status).toBe(201);
      roleSlugs.push(role.body.slug);
    }
    for (const [username, role] of [
      ['fn-role-keeper', roleSlugs[0]],
      ['fn-role-watcher', roleSlugs[1]],
    ]) {
      await app.createUser(username!);
      const member = await app.request('POST', `/api/cloud/organizations/${site.organization}/members/`, {
        token: admin,
        body: { user_slug: username },
      });
      expect(member.status).toBe(201);
      expect((await call('POST', '/api/assign/roles', admin, { roles: [role], usernames: [username] })).status).toBe(200);
    }
    const keeper = (await app.login('fn-role-keeper', USER_PASSWORD)).access;
    const watcher = (await app.login('fn-role-watcher', USER_PASSWORD)).access;

    // Act
    const keeperRead = await call('GET', `${functions()}${fn.slug}/`, keeper);
    const keeperPatch = await call('PATCH', `${functions()}${fn.slug}/`, keeper, { timeout_seconds: 9 });
    const watcherRead = await call('GET', `${functions()}${fn.slug}/`, watcher);
    const watcherPatch = await call('PATCH', `${functions()}${fn.slug}/`, watcher, { timeout_seconds: 11 });

    // Assess
    expect(keeperRead.body.data.signing_secret).toBe(fn.secret);
    expect(keeperPatch.status).toBe(200);
    expect(watcherRead.status).toBe(200);
    expect(watcherRead.body.data.signing_secret).toBeNull();
    expect(watcherPatch.status).toBe(403);
    expect(watcherPatch.body).toEqual(REFUSAL);
    expect((await call('GET', `${functions()}${fn.slug}/`, admin)).body.data.timeout_seconds).toBe(9);
  });
});
