// Deleted tenants leave nothing: deleting a site or an organization through the API queues the
// sites' bytes for removal in the same transaction, and the maintenance sweep (the one the dev
// server's timer and the deployed schedule run) removes the objects and hosted builds under each
// site's uuid, then the queue row. A store failure keeps the purge queued for the next run. The
// sweep also takes abandoned presigned uploads and bytes no record points at. Runs on the
// filesystem store and on S3 (s3rver on loopback).
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStorageMaintenance, type MaintenanceReport } from '#functions/storage/maintenance/storage-maintenance.ts';
import { ABANDONED_UPLOAD_GRACE_SECONDS } from '#functions/storage/objects/presigned-uploads.ts';
import { buildStoreFor } from '#shared/hosting/build-store.ts';
import { hostMappingsFor } from '#shared/hosting/host-mappings.ts';
import { systemLog } from '#shared/logger.ts';
import type { ObjectStore } from '#shared/storage/object-store.ts';
import { zipArchive } from '#test/support/archives.ts';
import { createWorker } from '#test/support/hosting.ts';
import { startS3Server, type S3TestServer } from '#test/support/s3-server.ts';
import { createBucket, createStorageSite, sendBinary, type StorageSite } from '#test/support/storage.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

const BUILD = {
  filename: 'build.zip',
  data: zipArchive([
    { name: 'index.html', data: '<p>hosted</p>' },
    { name: 'assets/app.js', data: '// app' },
  ]),
};

describe.each(['filesystem', 's3'])('tenant purge on the %s store', (backend) => {
  let s3: S3TestServer | undefined;
  let app: TestApp;
  let admin: string;
  let sites = 0;

  beforeAll(async () => {
    if (backend === 's3') s3 = await startS3Server();
    app = await startTestApp(s3?.env ?? {});
    admin = await app.adminToken();
  });
  afterAll(async () => {
    await app.close();
    await s3?.close();
  });

  /** A site with two objects (one replaced, so its old bytes went through the discard queue) and a hosted build. */
  async function populatedSite(): Promise<{ site: StorageSite; uuid: string }> {
    sites += 1;
    const site = await createStorageSite(app, admin, `Purged ${backend} ${sites}`);
    const objects = await createBucket(app, admin, site, { name: 'Files' });
    for (const [name, body] of [
      ['a.txt', 'first'],
      ['b.txt', 'second'],
      ['a.txt', 'first, replaced'],
    ]) {
      const put = await sendBinary(app.url, 'PUT', `${objects}${name}`, {
        token: admin,
        body: body!,
        headers: { ...site.tenant, 'content-type': 'text/plain' },
      });
      expect([200, 201]).toContain(put.status);
    }
    const worker = await createWorker(
      app,
      admin,
      { slug: site.slug, tenant: site.tenant },
      { name: 'Web', subdomain_input: `web-${backend}-${sites}` },
      BUILD,
    );
    expect(worker.status).toBe(201);
    const [row] = await app.runtime.db.rows<{ uuid: string }>(sql`select uuid::text as uuid from platform.sites where slug = ${site.slug}`);
    return { site, uuid: row!.uuid };
  }

  async function keysUnder(store: ObjectStore, prefix: string): Promise<string[]> {
    const keys: string[] = [];
    for await (const item of store.listKeys!(prefix)) keys.push(item.key);
    return keys;
  }

  const stores = async () => ({ objects: app.runtime.objectStore, builds: await buildStoreFor(app.runtime.config.hosting) });

  async function sweep(
    options: { graceSeconds?: number; presignedUrlTtlSeconds?: number; orphanKeysPerRun?: number } = {},
  ): Promise<MaintenanceReport> {
    const { objects, builds } = await stores();
    return runStorageMaintenance(
      {
        db: app.runtime.db,
        objectStore: objects,
        buildStore: builds,
        hostMappings: await hostMappingsFor(app.runtime.config.hosting),
        log: systemLog,
      },
      {
        graceSeconds: options.graceSeconds ?? 900,
        presignedUrlTtlSeconds: options.presignedUrlTtlSeconds ?? 900,
        orphanKeysPerRun: options.orphanKeysPerRun ?? app.runtime.config.maintenance.orphanKeysPerRun,
      },
    );
  }

  const queuedPurges = async (uuid: string) =>
    (await app.runtime.db.rows<{ n: number }>(sql`select count(*)::int as n from platform.tenant_purges where site_uuid = ${uuid}`))[0]!.n;

  it('removes a deleted site’s objects and hosted builds, and then its queued purge', async () => {
    // Prepare
    const { site, uuid } = await populatedSite();
    const { objects, builds } = await stores();
    expect(await keysUnder(objects, `${uuid}/`)).toHaveLength(2);
    expect((await keysUnder(builds, `${uuid}/`)).length).toBeGreaterThan(0);
    // Act
    const deleted = await app.request('DELETE', `/api/cloud/sites/${site.slug}/`, { token: admin });
    const queued = await queuedPurges(uuid);
    const report = await sweep();
    // Assess
    expect(deleted.status).toBe(204);
    expect(queued).toBe(1);
    expect(report.failures).toEqual([]);
    expect(report.purgedSites).toBeGreaterThanOrEqual(1);
    expect(await keysUnder(objects, `${uuid}/`)).toEqual([]);
    expect(await keysUnder(builds, `${uuid}/`)).toEqual([]);
    expect(await queuedPurges(uuid)).toBe(0);
  });

  it('purges every site of a deleted organization', async () => {
    // Prepare
    const first = await populatedSite();
    const { objects, builds } = await stores();
    // Act
    const deleted = await app.request('DELETE', `/api/cloud/organizations/${first.site.organization}/`, { token: admin });
    const queued = await queuedPurges(first.uuid);
    await sweep();
    // Assess
    expect(deleted.status).toBe(204);
    expect(queued).toBe(1);
    expect(await keysUnder(objects, `${first.uuid}/`)).toEqual([]);
    expect(await keysUnder(builds, `${first.uuid}/`)).toEqual([]);
    expect(await queuedPurges(first.uuid)).toBe(0);
  });

  // The fault is injected into the S3 server.
  it.skipIf(backend !== 's3')('keeps the purge queued when the store fails and finishes it on the next run', async () => {
    if (s3 === undefined) throw new Error('no S3 server');
    // Prepare
    const { site, uuid } = await populatedSite();
    expect((await app.request('DELETE', `/api/cloud/sites/${site.slug}/`, { token: admin })).status).toBe(204);
    s3.failDeleteObjects();
    // Act
    const failed = await sweep();
    const stillQueued = await app.runtime.db.rows<{ attempts: number; last_error: string }>(
      sql`select attempts, last_error from platform.tenant_purges where site_uuid = ${uuid}`,
    );
    s3.heal();
    const retried = await sweep();
    // Assess
    expect(failed.failures.join('\n')).toContain(uuid);
    expect(stillQueued).toEqual([{ attempts: 1, last_error: expect.any(String) }]);
    expect(retried.failures).toEqual([]);
    expect((await s3.keys()).filter((key) => key.startsWith(`${uuid}/`))).toEqual([]);
    expect(await queuedPurges(uuid)).toBe(0);
  });

  it('sweeps bytes no record points at once they are past the grace period, and keeps the others', async () => {
    // Prepare: bytes stored for an upload whose record never committed (a killed process)
    const { site, uuid } = await populatedSite();
    const { objects } = await stores();
    const before = await keysUnder(objects, `${uuid}/`);
    await objects.put(`${uuid}/${randomUUID()}/${randomUUID()}`, Buffer.from('never committed'), { contentType: 'text/plain' });
    // Not of the service's key shape: someone else's file in a shared bucket, never swept.
    await objects.put(`${uuid}/not-ours.txt`, Buffer.from('operator file'), { contentType: 'text/plain' });
    // Act
    const young = await sweep({ graceSeconds: 3600 });
    const keptWhileYoung = await keysUnder(objects, `${uuid}/`);
    const old = await sweep({ graceSeconds: 0 });
    // Assess
    expect(young.removedOrphans).toBe(0);
    expect(keptWhileYoung).toHaveLength(4);
    expect(old.removedOrphans).toBe(1);
    expect((await keysUnder(objects, `${uuid}/`)).sort()).toEqual([...before, `${uuid}/not-ours.txt`].sort());
    const stillServed = await sendBinary(app.url, 'GET', `/api/apps/${site.app}/storage/buckets/files/objects/b.txt`, {
      token: admin,
      headers: site.tenant,
    });
    expect(stillServed.bytes.toString()).toBe('second');
  });

  // Only S3 presigns uploads.
  it.skipIf(backend !== 's3')('sweeps presigned uploads never completed, record and bytes', async () => {
    // Prepare
    const { site, uuid } = await populatedSite();
    const route = `/api/apps/${site.app}/storage/buckets/files/objects/late.txt/upload-url`;
    const asked = await sendBinary(app.url, 'POST', route, {
      token: admin,
      body: JSON.stringify({ size: 5, content_type: 'text/plain' }),
      headers: { ...site.tenant, 'content-type': 'application/json' },
    });
    expect(asked.status).toBe(200);
    const upload = asked.json.data as { url: string; method: string; headers: Record<string, string> };
    expect((await fetch(upload.url, { method: upload.method, headers: upload.headers, body: 'bytes' })).status).toBe(200);
    const { objects } = await stores();
    const withPending = await keysUnder(objects, `${uuid}/`);
    // Act: a URL lifetime that makes the upload already abandoned
    const report = await sweep({ presignedUrlTtlSeconds: -ABANDONED_UPLOAD_GRACE_SECONDS });
    // Assess
    expect(report.sweptUploads).toBe(1);
    expect(withPending).toHaveLength(3);
    expect(await keysUnder(objects, `${uuid}/`)).toHaveLength(2);
  });

  // Last in the suite: it runs the sweep through the whole store, so the next run starts over.
  it('lists a bounded slice of the store per run, each run going on where the last one stopped', async () => {
    // Prepare: five orphans among the live keys of every site so far
    const { site, uuid } = await populatedSite();
    const { objects } = await stores();
    const orphans = Array.from({ length: 5 }, () => `${uuid}/${randomUUID()}/${randomUUID()}`);
    for (const key of orphans) await objects.put(key, Buffer.from('never committed'), { contentType: 'text/plain' });
    const storeKeys = (await keysUnder(objects, '')).length;
    // Act: small slices until a run reaches the end of the store
    const runs: MaintenanceReport[] = [];
    do {
      runs.push(await sweep({ graceSeconds: 0, orphanKeysPerRun: 3 }));
    } while (runs.at(-1)!.listedKeys === 3 && runs.length <= storeKeys);
    // Assess
    expect(runs.flatMap((run) => run.failures)).toEqual([]);
    expect(runs.every((run) => run.listedKeys <= 3)).toBe(true);
    // Each key listed once over the runs: every run took up where the one before stopped.
    expect(runs.reduce((total, run) => total + run.listedKeys, 0)).toBe(storeKeys);
    expect(runs.length).toBe(Math.floor(storeKeys / 3) + 1);
    expect(runs.reduce((total, run) => total + run.removedOrphans, 0)).toBe(5);
    const left = new Set(await keysUnder(objects, ''));
    expect(orphans.filter((key) => left.has(key))).toEqual([]);
    const stillServed = await sendBinary(app.url, 'GET', `/api/apps/${site.app}/storage/buckets/files/objects/b.txt`, {
      token: admin,
      headers: site.tenant,
    });
    expect(stillServed.bytes.toString()).toBe('second');
    // The pass is complete: the next run starts from the first key again.
    expect((await sweep({ graceSeconds: 0, orphanKeysPerRun: 3 })).listedKeys).toBe(3);
  });
});
