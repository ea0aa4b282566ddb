// Test set-up for the hosting endpoints: a site addressed by X-Tenant, worker creation and build
// uploads as multipart forms, and what the builds store holds on disk.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { multipart, sendBinary, type BinaryResponse } from './storage.ts';
import type { TestApp } from './test-app.ts';

export const WORKERS = '/api/frontend_workers/';

export const INDEX_HTML =
  '<!doctype html><html><head><title>Hosted</title></head><body><div id="root">static</div><script src="/assets/app.js"></script></body></html>';

export interface HostingSite {
  slug: string;
  tenant: Record<string, string>;
}

/** A site in the given environment (production unless said), addressed by X-Tenant. */
export async function createHostingSite(app: TestApp, token: string, name: string, environment = 'production'): Promise<HostingSite> {
  const org = await app.request('POST', '/api/cloud/organizations/', { token, body: { name: `${name} org` } });
  if (org.status !== 201) throw new Error(`organization: ${org.status} ${JSON.stringify(org.body)}`);
  const site = await app.request('POST', `/api/cloud/organizations/${org.body.data.slug}/sites/`, { token, body: { name, environment } });
  if (site.status !== 201) throw new Error(`site: ${site.status} ${JSON.stringify(site.body)}`);
  return { slug: site.body.slug, tenant: { 'x-tenant': site.body.slug } };
}

export interface ArchiveUpload {
  filename: string;
  data: Buffer;
}

/** POSTs a multipart form with text fields and the archive as `file`. */
export function postForm(
  app: TestApp,
  token: string,
  site: HostingSite,
  route: string,
  fields: Record<string, string>,
  archive?: ArchiveUpload,
): Promise<BinaryResponse> {
  const form = multipart([
    ...Object.entries(fields).map(([name, data]) => ({ name, data })),
    ...(archive === undefined
      ? []
      : [{ name: 'file', filename: archive.filename, contentType: 'application/octet-stream', data: archive.data }]),
  ]);
  return sendBinary(app.url, 'POST', route, { token, body: form.body, headers: { ...site.tenant, 'content-type': form.contentType } });
}

export function createWorker(
  app: TestApp,
  token: string,
  site: HostingSite,
  fields: Record<string, string>,
  archive: ArchiveUpload,
): Promise<BinaryResponse> {
  return postForm(app, token, site, WORKERS, fields, archive);
}

/** The folder the test app's builds store writes to. */
export function buildsRoot(app: TestApp): string {
  const store = app.runtime.config.hosting.store;
  if (store.backend !== 'filesystem') throw new Error(`the test app keeps builds in ${store.backend}, not on disk`);
  return store.root;
}

/** Every file under the builds root (temporary writes included) and under the system's temp uploads of builds. */
export async function storedBuildFiles(app: TestApp): Promise<string[]> {
  const root = buildsRoot(app);
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => !entry.isDirectory()).map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}
