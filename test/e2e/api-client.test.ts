// The typed client (clients/typescript, generated from the OpenAPI document) against `npm start`:
// one flow per endpoint group, each call checked by the compiler against the document and answered
// by the running server as the document says. A path, parameter or body the document got wrong
// fails here (a 404, 405 or 400), so the document is proven against the server.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { authHeaders, createTesseraClient, type TesseraClient } from '@tessera/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, stopServer, type RunningServer } from '#test/support/dev-server-process.ts';

/** Fields of answers whose data the document leaves as any JSON value, read the way a client would. */
type Loose = Record<string, any>; // `any`: such answers are read field by field

describe('the typed client against the dev server, a flow per group', () => {
  let dataDir: string;
  let server: RunningServer;
  let api: TesseraClient;
  let access: string;
  let site: string;
  let app: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'tessera-client-'));
    server = await startServer(dataDir, 100_000);
    api = createTesseraClient(server.url);
  }, 120_000);
  afterAll(async () => {
    if (server) await stopServer(server);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('auth: signs in, verifies the access token and refreshes the pair', async () => {
    const password = (await readFile(path.join(dataDir, 'admin-password.txt'), 'utf8')).trim();
    // Act
    const signIn = await api.POST('/api/cloud/auth/jwt/token/', { body: { username: 'admin', password } });
    access = signIn.data!.access;
    const verified = await api.POST('/api/auth/jwt/token/verify/', { body: { token: access } });
    const refreshed = await api.POST('/api/auth/jwt/token/refresh/', { body: { refresh: signIn.data!.refresh } });
    const wrong = await api.POST('/api/auth/jwt/token/', { body: { username: 'admin', password: 'not-the-password' } });
    // Assess
    expect(signIn.response.status).toBe(200);
    expect(signIn.data!.user.username).toBe('admin');
    expect(verified.data).toMatchObject({ token_type: 'access' });
    expect(refreshed.data!.access).toEqual(expect.any(String));
    expect(wrong.response.status).toBe(401);
    expect(wrong.error).toMatchObject({ status: 'error', code: expect.any(String) });
  });

  it('docs: liveness, readiness and the document itself', async () => {
    const live = await api.GET('/api/health/');
    const ready = await api.GET('/api/health/ready/');
    const schema = await api.GET('/api/schema/', { params: { query: { format: 'json' } } });
    expect(live.data).toEqual({ status: 'ok' });
    expect(ready.data).toEqual({ status: 'ready', checks: { database: 'ok', object_store: 'ok' } });
    expect(schema.data!.openapi).toBe('3.1.0');
  });

  it('console: creates an organization and a site in it', async () => {
    const headers = authHeaders(access);
    // Act
    const organization = await api.POST('/api/cloud/organizations/', { headers, body: { name: 'Client Org' } });
    const orgSlug = (organization.data as Loose).data.slug as string;
    const created = await api.POST('/api/cloud/organizations/{org_slug}/sites/', {
      headers,
      params: { path: { org_slug: orgSlug } },
      body: { name: 'Client Site' },
    });
    site = (created.data as Loose).slug;
    // Assess
    expect(organization.response.status).toBe(201);
    expect(created.response.status).toBe(201);
    expect(site).toEqual(expect.any(String));
  });

  it('data: creates an app on the site and reads it back', async () => {
    const headers = authHeaders(access, site);
    const created = await api.POST('/api/apps/', { headers, body: { name: 'Client App' } });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    app = (created.data as Loose).slug;
    const read = await api.GET('/api/apps/{app_slug}/', { headers, params: { path: { app_slug: app } } });
    expect(read.data).toMatchObject({ slug: app, name: 'Client App' });
  });

  it('roles: creates an app role and lists it', async () => {
    const headers = authHeaders(access, site);
    const params = { path: { app_slug: app } };
    const created = await api.POST('/api/app/{app_slug}/roles', { headers, params, body: { name: 'Editors' } });
    const listed = await api.GET('/api/app/{app_slug}/roles', { headers, params });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    expect(JSON.stringify(listed.data)).toContain('Editors');
  });

  it('storage: creates a bucket in the app and lists it', async () => {
    const headers = authHeaders(access, site);
    const params = { path: { app_slug: app } };
    const created = await api.POST('/api/apps/{app_slug}/storage/buckets/', {
      headers,
      params,
      body: { name: 'Client Files', app_category: 'assets' },
    });
    const listed = await api.GET('/api/apps/{app_slug}/storage/buckets/', { headers, params });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    expect(JSON.stringify(listed.data)).toContain('Client Files');
  });

  it('events: lists the events a function may subscribe to, and the app’s functions', async () => {
    const events = await api.GET('/api/cloud/events/', { headers: authHeaders(access, site) });
    const functions = await api.GET('/api/apps/{app_slug}/functions/', {
      headers: authHeaders(access, site),
      params: { path: { app_slug: app } },
    });
    expect(events.response.status).toBe(200);
    expect((events.data as Loose).data.events.length).toBeGreaterThan(0);
    expect(functions.response.status).toBe(200);
  });

  it('hosting: checks that a subdomain is available', async () => {
    const answer = await api.GET('/api/frontend_workers/check-subdomain-availability/', {
      headers: authHeaders(access, site),
      params: { query: { subdomain: 'client-demo' } },
    });
    expect(answer.response.status).toBe(200);
    expect((answer.data as Loose).data).toMatchObject({ subdomain: 'client-demo', available: true });
  });

  it('social: lists the social apps, without a token', async () => {
    const answer = await api.GET('/api/auth/social-apps/');
    expect(answer.response.status).toBe(200);
  });
});
