// Deployed, the hosting API keeps the edge's host → build map current: with HOSTING_KVS_ARN set,
// every change to a worker's domain or active build writes the CloudFront KeyValueStore (its client
// stubbed by aws-sdk-client-mock, everything else real: API, services, database).
import {
  CloudFrontKeyValueStoreClient,
  DeleteKeyCommand,
  DescribeKeyValueStoreCommand,
  PutKeyCommand,
} from '@aws-sdk/client-cloudfront-keyvaluestore';
import { mockClient } from 'aws-sdk-client-mock';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPrefixOf } from '#shared/hosting/build-keys.ts';
import { zipArchive } from '#test/support/archives.ts';
import { WORKERS, createHostingSite, createWorker, postForm, type HostingSite } from '#test/support/hosting.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

const KVS_ARN = 'arn:aws:cloudfront::123456789012:key-value-store/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';

describe('the edge host map, written by the hosting API', () => {
  const kvs = mockClient(CloudFrontKeyValueStoreClient);
  const writes: string[] = [];
  let app: TestApp;
  let admin: string;
  let site: HostingSite;
  let siteUuid: string;
  const archive = (text: string) => ({ filename: 'build.zip', data: zipArchive([{ name: 'index.html', data: text }]) });
  const prefixOf = (buildUuid: string) => buildPrefixOf(siteUuid, buildUuid);

  beforeAll(async () => {
    let etag = 0;
    kvs.on(DescribeKeyValueStoreCommand).callsFake(() => ({ KvsARN: KVS_ARN, ETag: `etag-${etag}` }));
    kvs.on(PutKeyCommand).callsFake((input: { Key: string; Value: string; IfMatch: string }) => {
      writes.push(`put ${input.Key} ${input.Value} if ${input.IfMatch}`);
      etag += 1;
      return { ETag: `etag-${etag}` };
    });
    kvs.on(DeleteKeyCommand).callsFake((input: { Key: string; IfMatch: string }) => {
      writes.push(`delete ${input.Key} if ${input.IfMatch}`);
      etag += 1;
      return { ETag: `etag-${etag}` };
    });
    app = await startTestApp({ HOSTING_KVS_ARN: KVS_ARN });
    admin = await app.adminToken();
    site = await createHostingSite(app, admin, 'Edge Map Site');
    const [row] = await app.runtime.db.rows<{ uuid: string }>(sql`select uuid::text as uuid from platform.sites where slug = ${site.slug}`);
    siteUuid = row!.uuid;
  });
  afterAll(async () => {
    kvs.restore();
    await app?.close();
  });

  it('points the host at each build that becomes active, and moves or removes it with the worker', async () => {
    const created = await createWorker(app, admin, site, { name: 'Web', subdomain_input: 'web' }, archive('v1'));
    const first = created.json.data.active_build_uuid as string;
    const second = (await postForm(app, admin, site, `${WORKERS}web/builds/`, {}, archive('v2'))).json.data.uuid as string;
    const rolledBack = await app.request('POST', `${WORKERS}web/builds/${first}/activate/`, { token: admin, headers: site.tenant });
    const renamed = await app.request('PATCH', `${WORKERS}web/`, { token: admin, headers: site.tenant, body: { name: 'Web site' } });
    const moved = await app.request('PATCH', `${WORKERS}web/`, { token: admin, headers: site.tenant, body: { subdomain_input: 'moved' } });
    const deleted = await app.request('DELETE', `${WORKERS}web/`, { token: admin, headers: site.tenant });

    expect([created.status, rolledBack.status, renamed.status, moved.status, deleted.status]).toEqual([201, 200, 200, 200, 200]);
    expect(writes).toEqual([
      `put web.localhost ${prefixOf(first)} if etag-0`,
      `put web.localhost ${prefixOf(second)} if etag-1`,
      `put web.localhost ${prefixOf(first)} if etag-2`,
      `put web.localhost ${prefixOf(first)} if etag-3`,
      'delete web.localhost if etag-4',
      `put moved.localhost ${prefixOf(first)} if etag-5`,
      'delete moved.localhost if etag-6',
    ]);
    expect(kvs.commandCalls(DescribeKeyValueStoreCommand).every((call) => call.args[0].input.KvsARN === KVS_ARN)).toBe(true);
  });

  it('maps an external worker by its full domain, and follows it back to an internal subdomain', async () => {
    const before = writes.length;
    const created = await createWorker(
      app,
      admin,
      site,
      { name: 'Brand', subdomain_input: 'www', is_internal: 'false', domain: 'brand-example.com' },
      archive('brand'),
    );
    const build = prefixOf(created.json.data.active_build_uuid);
    const internal = await app.request('PATCH', `${WORKERS}${created.json.data.slug}/`, {
      token: admin,
      headers: site.tenant,
      body: { is_internal: true, subdomain_input: 'brand' },
    });

    expect(internal.status).toBe(200);
    expect(writes.slice(before).map((write) => write.replace(/ if etag-\d+$/, ''))).toEqual([
      `put www.brand-example.com ${build}`,
      'delete www.brand-example.com',
      `put brand.localhost ${build}`,
    ]);
  });

  it('writes nothing for a refused change', async () => {
    await createWorker(app, admin, site, { name: 'Other', subdomain_input: 'other' }, archive('o'));
    await createWorker(app, admin, site, { name: 'Taken', subdomain_input: 'taken' }, archive('t'));
    const before = writes.length;

    const refused = await app.request('PATCH', `${WORKERS}other/`, {
      token: admin,
      headers: site.tenant,
      body: { subdomain_input: 'taken' },
    });
    const missing = await app.request('POST', `${WORKERS}other/builds/00000000-0000-4000-8000-000000000000/activate/`, {
      token: admin,
      headers: site.tenant,
    });

    expect(refused.status).toBe(400);
    expect(missing.status).toBe(404);
    expect(writes).toHaveLength(before);
  });
});
