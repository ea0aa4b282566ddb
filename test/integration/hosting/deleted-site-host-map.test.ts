// Deployed, a deleted site's hosts leave the edge's host → build map: deleting a site (or its
// organization) queues its claimed hosts with the purge, and the maintenance sweep removes their
// CloudFront KeyValueStore keys, retried until done. The KeyValueStore client is stubbed by
// aws-sdk-client-mock as an in-memory map with an ETag; API, services, database and stores are real.
import {
  CloudFrontKeyValueStoreClient,
  DeleteKeyCommand,
  DescribeKeyValueStoreCommand,
  PutKeyCommand,
  ResourceNotFoundException,
  ValidationException,
} from '@aws-sdk/client-cloudfront-keyvaluestore';
import { mockClient } from 'aws-sdk-client-mock';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStorageMaintenance, type MaintenanceReport } from '#functions/storage/maintenance/storage-maintenance.ts';
import { buildStoreFor } from '#shared/hosting/build-store.ts';
import { hostMappingsFor } from '#shared/hosting/host-mappings.ts';
import { systemLog } from '#shared/logger.ts';
import { zipArchive } from '#test/support/archives.ts';
import { createHostingSite, createWorker, type HostingSite } from '#test/support/hosting.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

const KVS_ARN = 'arn:aws:cloudfront::123456789012:key-value-store/1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';

describe('a deleted site on the edge host map', () => {
  const kvs = mockClient(CloudFrontKeyValueStoreClient);
  /** What the KeyValueStore holds: host → build prefix. */
  const edge = new Map<string, string>();
  let etag = 0;
  let failWrites = false;
  let app: TestApp;
  let admin: string;
  let sites = 0;
  const archive = (text: string) => ({ filename: 'build.zip', data: zipArchive([{ name: 'index.html', data: text }]) });

  beforeAll(async () => {
    kvs.on(DescribeKeyValueStoreCommand).callsFake(() => ({ KvsARN: KVS_ARN, ETag: `etag-${etag}` }));
    kvs.on(PutKeyCommand).callsFake((input: { Key: string; Value: string }) => {
      edge.set(input.Key, input.Value);
      etag += 1;
      return { ETag: `etag-${etag}` };
    });
    kvs.on(DeleteKeyCommand).callsFake((input: { Key: string }) => {
      if (failWrites) throw new ValidationException({ message: 'the store is being updated', $metadata: {} });
      if (!edge.delete(input.Key)) throw new ResourceNotFoundException({ message: 'no such key', $metadata: {} });
      etag += 1;
      return { ETag: `etag-${etag}` };
    });
    app = await startTestApp({ HOSTING_KVS_ARN: KVS_ARN });
    admin = await app.adminToken();
  });
  afterAll(async () => {
    kvs.restore();
    await app?.close();
  });

  async function sweep(): Promise<MaintenanceReport> {
    return runStorageMaintenance(
      {
        db: app.runtime.db,
        objectStore: app.runtime.objectStore,
        buildStore: await buildStoreFor(app.runtime.config.hosting),
        hostMappings: await hostMappingsFor(app.runtime.config.hosting),
        log: systemLog,
      },
      { graceSeconds: 900, presignedUrlTtlSeconds: 900, orphanKeysPerRun: app.runtime.config.maintenance.orphanKeysPerRun },
    );
  }

  /** A site with a worker on `<name>.localhost` for each name, each serving a build. */
  async function siteServing(...subdomains: string[]): Promise<HostingSite> {
    sites += 1;
    const site = await createHostingSite(app, admin, `Edge purge ${sites}`);
    for (const subdomain of subdomains) {
      const created = await createWorker(app, admin, site, { name: subdomain, subdomain_input: subdomain }, archive(subdomain));
      expect(created.status).toBe(201);
    }
    return site;
  }

  const organizationOf = async (site: HostingSite) =>
    (
      await app.runtime.db.rows<{ slug: string }>(
        sql`select o.slug from platform.organizations o join platform.sites s on s.organization_id = o.id where s.slug = ${site.slug}`,
      )
    )[0]!.slug;

  const queuedPurges = async () =>
    app.runtime.db.rows<{ hosts: string[]; attempts: number }>(sql`select hosts, attempts from platform.tenant_purges order by id`);

  it("removes a deleted site's hosts from the edge when the sweep purges it, and then the purge", async () => {
    // Prepare
    await siteServing('kept');
    const doomed = await siteServing('shop', 'journal');
    // Act
    const deleted = await app.request('DELETE', `/api/cloud/sites/${doomed.slug}/`, { token: admin });
    const queued = await queuedPurges();
    const onEdgeBeforeSweep = [...edge.keys()].sort();
    const report = await sweep();
    // Assess
    expect(deleted.status).toBe(204);
    expect(queued.map((purge) => [...purge.hosts].sort())).toEqual([['journal.localhost', 'shop.localhost']]);
    expect(onEdgeBeforeSweep).toEqual(['journal.localhost', 'kept.localhost', 'shop.localhost']);
    expect(report.failures).toEqual([]);
    expect([...edge.keys()]).toEqual(['kept.localhost']);
    expect(await queuedPurges()).toEqual([]);
  });

  it('removes the hosts of every site of a deleted organization', async () => {
    // Prepare
    const doomed = await siteServing('manuals');
    // Act
    const deleted = await app.request('DELETE', `/api/cloud/organizations/${await organizationOf(doomed)}/`, { token: admin });
    const report = await sweep();
    // Assess
    expect(deleted.status).toBe(204);
    expect(report.failures).toEqual([]);
    expect(edge.has('manuals.localhost')).toBe(false);
    expect(await queuedPurges()).toEqual([]);
  });

  it('leaves a host that another site claimed after the delete pointing at that site’s build', async () => {
    // Prepare: the deleted site's host taken by another site before the sweep ran
    const doomed = await siteServing('landing');
    const oldPrefix = edge.get('landing.localhost');
    expect((await app.request('DELETE', `/api/cloud/sites/${doomed.slug}/`, { token: admin })).status).toBe(204);
    await siteServing('landing');
    const newPrefix = edge.get('landing.localhost');
    // Act
    const report = await sweep();
    // Assess
    expect(report.failures).toEqual([]);
    expect(newPrefix).not.toBe(oldPrefix);
    expect(edge.get('landing.localhost')).toBe(newPrefix);
    expect(await queuedPurges()).toEqual([]);
  });

  it('keeps the purge queued while the edge refuses the delete, and finishes it on the next run', async () => {
    // Prepare
    const doomed = await siteServing('flaky');
    expect((await app.request('DELETE', `/api/cloud/sites/${doomed.slug}/`, { token: admin })).status).toBe(204);
    failWrites = true;
    // Act
    const failed = await sweep();
    const stillQueued = await queuedPurges();
    const onEdgeAfterFailure = edge.has('flaky.localhost');
    failWrites = false;
    const retried = await sweep();
    // Assess
    expect(failed.failures).toHaveLength(1);
    expect(stillQueued).toEqual([{ hosts: ['flaky.localhost'], attempts: 1 }]);
    expect(onEdgeAfterFailure).toBe(true);
    expect(retried.failures).toEqual([]);
    expect(edge.has('flaky.localhost')).toBe(false);
    expect(await queuedPurges()).toEqual([]);
  });
});
