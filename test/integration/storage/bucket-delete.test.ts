import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createBucket, createStorageSite, objectsRoot, type StorageSite, siteSender } from '#test/support/storage.ts';

describe('bucket delete', () => {
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  let schema: string;
  const send = siteSender(() => ({ app, site, token: admin }));
  const filesUnder = async (relative: string) =>
    (await readdir(path.join(objectsRoot(app), relative), { recursive: true, withFileTypes: true }).catch(() => []))
      .filter((entry) => entry.isFile())
      .map((entry) => path.join(entry.parentPath, entry.name));
  /** Where the filesystem store keeps a bucket's files: `<site uuid>/<bucket uuid>/` under its root. */
  const bucketDir = async (slug: string) => {
    const bucket = await app.request('GET', `${site.buckets}${slug}/`, { token: admin, headers: site.tenant });
    const [row] = await app.runtime.db.rows<{ uuid: string }>(sql`select uuid::text as uuid from platform.sites where slug = ${site.slug}`);
    return path.join(row!.uuid, bucket.body.uuid);
  };
  const recordCount = async (table: 'objects' | 'buckets') =>
    (await app.runtime.db.rows<{ n: number }>(sql.raw(`select count(*)::int as n from "${schema}".${table}`)))[0]!.n;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Delete Site');
    schema = (await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${site.slug}`))[0]!
      .schema_name;
  });
  afterAll(async () => {
    await app.close();
  });

  it('removes every file of the bucket from disk, then its records, then the bucket', async () => {
    const objects = await createBucket(app, admin, site, { name: 'Full' });
    const keep = await createBucket(app, admin, site, { name: 'Keep' });
    for (let i = 0; i < 5; i += 1) await send('PUT', `${objects}dir/file-${i}.txt`, { body: `content ${i}` });
    await send('PUT', `${objects}dir/file-0.txt`, { body: 'replaced' });
    await send('PUT', `${keep}kept.txt`, { body: 'kept' });
    const full = await bucketDir('full');
    expect(await filesUnder(full)).toHaveLength(5);

    const deleted = await send('DELETE', `${site.buckets}full/`);

    expect(deleted.status).toBe(204);
    expect(deleted.bytes.length).toBe(0);
    expect(await filesUnder(full)).toEqual([]);
    expect((await send('GET', `${site.buckets}full/`)).status).toBe(404);
    expect((await send('GET', `${keep}kept.txt`)).bytes.toString()).toBe('kept');
  });

  it('answers 500 in the success-flag envelope when storage fails, keeps the records, and a retry finishes', async () => {
    const objects = await createBucket(app, admin, site, { name: 'Stuck' });
    for (let i = 0; i < 3; i += 1) await send('PUT', `${objects}f${i}.txt`, { body: `f${i}` });
    const stuck = await bucketDir('stuck');
    const [blocked] = await filesUnder(stuck);
    // A folder where a file was: the filesystem refuses to remove it as a file.
    await rm(blocked!);
    await mkdir(blocked!);
    await writeFile(path.join(blocked!, 'inside'), 'x');
    const objectsBefore = await recordCount('objects');

    const failed = await send('DELETE', `${site.buckets}stuck/`);

    expect(failed.status).toBe(500);
    expect(failed.json).toMatchObject({ success: false, status_code: 500 });
    expect(failed.json.message).toMatch(/try again/);
    expect((await send('GET', `${site.buckets}stuck/`)).status).toBe(200);
    expect(await recordCount('objects')).toBe(objectsBefore);

    await rm(blocked!, { recursive: true });
    const retried = await send('DELETE', `${site.buckets}stuck/`);

    expect(retried.status).toBe(204);
    expect((await send('GET', `${site.buckets}stuck/`)).status).toBe(404);
    expect(await recordCount('objects')).toBe(objectsBefore - 3);
    expect(await filesUnder(stuck)).toEqual([]);
  });
});
