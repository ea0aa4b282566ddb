// Bucket delete through the API on the S3 adapter, against s3rver on loopback behind the proxy of
// test/support/s3-server.ts, with S3 failing half-way through: the API answers the spec's 500, keeps
// every record a retry needs, and the retry leaves nothing behind, in S3 or in the database.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startS3Server, type S3TestServer } from '#test/support/s3-server.ts';
import { createBucket, createStorageSite, type StorageSite, siteSender } from '#test/support/storage.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

describe('bucket delete on S3', () => {
  let s3: S3TestServer;
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  let schema: string;
  let siteUuid: string;
  const send = siteSender(() => ({ app, site, token: admin }));
  const count = async (query: string) => (await app.runtime.db.rows<{ n: number }>(sql.raw(query)))[0]!.n;

  /** A bucket with three objects uploaded through the API and one presigned upload whose bytes arrived. */
  async function filledBucket(name: string): Promise<{ slug: string; id: number; prefix: string; keys: Record<string, string> }> {
    const objects = await createBucket(app, admin, site, { name });
    for (const file of ['a.txt', 'b.txt', 'nested/c.txt']) {
      const put = await send('PUT', `${objects}${file}`, { body: `bytes of ${file}`, headers: { 'content-type': 'text/plain' } });
      if (put.status !== 201) throw new Error(`upload: ${put.status} ${put.bytes.toString()}`);
    }
    const asked = await send('POST', `${objects}pending.txt/upload-url`, {
      body: JSON.stringify({ size: 7, content_type: 'text/plain' }),
      headers: { 'content-type': 'application/json' },
    });
    const upload = asked.json.data as { url: string; method: string; headers: Record<string, string> };
    expect((await fetch(upload.url, { method: upload.method, headers: upload.headers, body: 'pending' })).status).toBe(200);

    const slug = objects.split('/').at(-3)!;
    const [bucket] = await app.runtime.db.rows<{ id: number; uuid: string }>(
      sql.raw(`select id, uuid::text as uuid from "${schema}".buckets where slug = '${slug}'`),
    );
    const rows = await app.runtime.db.rows<{ file_path: string; storage_key: string }>(
      sql.raw(`select file_path, storage_key from "${schema}".objects where bucket_id = ${bucket!.id}`),
    );
    return {
      slug,
      id: bucket!.id,
      prefix: `${siteUuid}/${bucket!.uuid}/`,
      keys: Object.fromEntries(rows.map((row) => [row.file_path, row.storage_key])),
    };
  }
  const keysIn = async (prefix: string) => (await s3.keys()).filter((key) => key.startsWith(prefix));
  const recordsOf = (bucketId: number) => ({
    objects: () => count(`select count(*)::int as n from "${schema}".objects where bucket_id = ${bucketId}`),
    discards: () => count(`select count(*)::int as n from "${schema}".object_discards where bucket_id = ${bucketId}`),
    bucket: () => count(`select count(*)::int as n from "${schema}".buckets where id = ${bucketId}`),
  });

  beforeAll(async () => {
    s3 = await startS3Server();
    app = await startTestApp(s3.env);
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'S3 Delete Site');
    const [row] = await app.runtime.db.rows<{ schema_name: string; uuid: string }>(
      sql`select schema_name, uuid::text as uuid from platform.sites where slug = ${site.slug}`,
    );
    schema = row!.schema_name;
    siteUuid = row!.uuid;
  });
  afterAll(async () => {
    await app.close();
    await s3.close();
  });
  beforeEach(() => s3.heal());

  it('answers 500 when S3 deletes only some keys of a batch, keeps every record, and a retry removes all', async () => {
    // Prepare: four keys in S3 (one of a pending upload); S3 refuses to delete one of them
    const bucket = await filledBucket('Half Deleted');
    const records = recordsOf(bucket.id);
    expect(await keysIn(bucket.prefix)).toHaveLength(4);
    const stubborn = bucket.keys['b.txt']!;
    s3.failDeleteObjects({ keys: (key) => key === stubborn });

    // Act
    const failed = await send('DELETE', `${site.buckets}${bucket.slug}/`);

    // Assess: the spec's 500, S3 half emptied, every record still there
    expect(failed.status).toBe(500);
    expect(failed.json).toMatchObject({ success: false, message: expect.stringMatching(/try again/), status_code: 500 });
    expect(await keysIn(bucket.prefix)).toEqual([stubborn]);
    expect(await records.objects()).toBe(4);
    expect(await records.bucket()).toBe(1);
    expect((await send('GET', `${site.buckets}${bucket.slug}/`)).status).toBe(200);

    // Act: S3 recovers, the client retries
    s3.heal();
    const retried = await send('DELETE', `${site.buckets}${bucket.slug}/`);

    // Assess: nothing left anywhere
    expect(retried.status).toBe(204);
    expect(await keysIn(bucket.prefix)).toEqual([]);
    expect(await records.objects()).toBe(0);
    expect(await records.discards()).toBe(0);
    expect(await records.bucket()).toBe(0);
    expect((await send('GET', `${site.buckets}${bucket.slug}/`)).status).toBe(404);
  });

  it('answers 500 when every DeleteObjects call fails, changes nothing, and a retry removes all', async () => {
    // Prepare
    const bucket = await filledBucket('Outage');
    const records = recordsOf(bucket.id);
    s3.failDeleteObjects();

    // Act
    const failed = await send('DELETE', `${site.buckets}${bucket.slug}/`);
    const keysAfterFailure = await keysIn(bucket.prefix);
    s3.heal();
    const retried = await send('DELETE', `${site.buckets}${bucket.slug}/`);

    // Assess
    expect(failed.status).toBe(500);
    expect(failed.json).toMatchObject({ success: false, status_code: 500 });
    expect(keysAfterFailure).toHaveLength(4);
    expect(retried.status).toBe(204);
    expect(await keysIn(bucket.prefix)).toEqual([]);
    expect([await records.objects(), await records.discards(), await records.bucket()]).toEqual([0, 0, 0]);
  });
});
