// Builds uploaded to an S3 builds bucket (s3rver on loopback) carry on each object the
// Content-Type and Cache-Control the dev server sends for that file, so CloudFront answers with
// the same headers deployed: immutable for hashed assets, no-cache for index.html.
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFileKey, buildPrefixOf } from '#shared/hosting/build-keys.ts';
import { sql } from '#shared/db/sql.ts';
import { zipArchive } from '#test/support/archives.ts';
import { INDEX_HTML, createHostingSite, createWorker, type HostingSite } from '#test/support/hosting.ts';
import { startS3Server, type S3TestServer } from '#test/support/s3-server.ts';
import { sendBinary } from '#test/support/storage.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

const FILES = ['index.html', 'assets/app.3f9a1c2e.js', 'assets/index-B4x_2aQ9.css', 'assets/style.css', 'logo.svg'];

describe('build files in the S3 builds bucket', () => {
  let s3: S3TestServer;
  let app: TestApp;
  let site: HostingSite;
  let buildPrefix: string;

  beforeAll(async () => {
    s3 = await startS3Server();
    app = await startTestApp({ ...s3.env, HOSTING_BUCKET: s3.bucket });
    const admin = await app.adminToken();
    site = await createHostingSite(app, admin, 'Deployed Headers Site');
    const created = await createWorker(
      app,
      admin,
      site,
      { name: 'Web', subdomain_input: 'web' },
      {
        filename: 'web.zip',
        data: zipArchive(FILES.map((name) => ({ name, data: name === 'index.html' ? INDEX_HTML : `/* ${name} */` }))),
      },
    );
    if (created.status !== 201) throw new Error(created.bytes.toString());
    const [row] = await app.runtime.db.rows<{ uuid: string }>(sql`select uuid::text as uuid from platform.sites where slug = ${site.slug}`);
    buildPrefix = buildPrefixOf(row!.uuid, created.json.data.active_build_uuid);
  });
  afterAll(async () => {
    await app?.close();
    await s3?.close();
  });

  it('stores each file with the headers the dev server sends for it', async () => {
    const port = new URL(app.url).port;
    for (const file of FILES) {
      const stored = await s3.client().send(new HeadObjectCommand({ Bucket: s3.bucket, Key: buildFileKey(buildPrefix, file.split('/')) }));
      const served = await sendBinary(app.url, 'GET', `/${file}`, { headers: { host: `web.localhost:${port}` } });

      expect(served.status, file).toBe(200);
      expect(stored.CacheControl, file).toBe(served.headers.get('cache-control'));
      expect(stored.ContentType, file).toBe(served.headers.get('content-type'));
    }
  });

  it('marks hashed assets immutable and index.html and unhashed files no-cache', async () => {
    const cacheControlOf = async (file: string) =>
      (await s3.client().send(new HeadObjectCommand({ Bucket: s3.bucket, Key: buildFileKey(buildPrefix, file.split('/')) }))).CacheControl;

    expect(await cacheControlOf('index.html')).toBe('no-cache');
    expect(await cacheControlOf('assets/app.3f9a1c2e.js')).toBe('public, max-age=31536000, immutable');
    expect(await cacheControlOf('assets/index-B4x_2aQ9.css')).toBe('public, max-age=31536000, immutable');
    expect(await cacheControlOf('assets/style.css')).toBe('no-cache');
  });
});
