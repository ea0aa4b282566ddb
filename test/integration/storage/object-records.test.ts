import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { createBucket, createStorageSite, siteUser, type StorageSite, siteSender } from '#test/support/storage.ts';

interface Listed {
  uuid: string;
  file_path: string;
  size: number;
  created_at: string;
}

describe('object records: list filters, search, metadata, delete, copy and move', () => {
  let app: TestApp;
  let admin: string;
  let member: string;
  let site: StorageSite;
  let objects: string;
  const created: Record<string, Listed> = {};
  const send = siteSender(() => ({ app, site, token: admin }));
  const json = (method: string, route: string, body: unknown, token = admin) =>
    send(method, route, { token, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const paths = async (query: string, token = admin, bucket = objects): Promise<string[]> => {
    const answer = await send('GET', `${bucket}?page_size=100&ordering=path&${query}`, { token });
    if (answer.status !== 200) throw new Error(`${query}: ${answer.status} ${answer.bytes.toString()}`);
    return answer.json.data.map((object: Listed) => object.file_path);
  };

  // The Records bucket holds the six uploads below (and one later edit) and no test changes it, so the
  // counts and filters hold in any order (--sequence.shuffle); a test that uploads, edits, deletes,
  // copies into or moves out of a bucket makes a bucket of its own (bucketOf).
  /** A new public bucket of the site; answers its objects route. */
  const bucketOf = (name: string) => createBucket(app, admin, site, { name, visibility: 'public' });

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Records Site');
    objects = await createBucket(app, admin, site, { name: 'Records', visibility: 'public' });
    member = await siteUser(app, admin, site, 'record-member', ['access_site']);
    const uploads: Array<[string, string, number, string?, Record<string, string>?]> = [
      ['images/cat.png', 'image/png', 100],
      ['images/Dog.JPG', 'image/jpeg', 2000, undefined, { 'x-metadata-species': 'Canis familiaris' }],
      ['docs/guide.pdf', 'application/pdf', 5000],
      ['docs/notes.txt', 'text/plain', 10, member],
      ['videos/clip.mp4', 'video/mp4', 9000, member],
      ['audio/song.mp3', 'audio/mpeg', 700],
    ];
    for (const [path, type, size, token, headers] of uploads) {
      const answer = await send('PUT', `${objects}${path}`, {
        token: token ?? admin,
        body: Buffer.alloc(size, 1),
        headers: { 'content-type': type, ...headers },
      });
      if (answer.status !== 201) throw new Error(`upload ${path}: ${answer.status} ${answer.bytes.toString()}`);
      created[path] = answer.json.data;
    }
    // Edited by the admin after the member uploaded it: what modified_by_me answers.
    const edited = await json('PATCH', `${objects}docs/notes.txt`, { metadata: { edited: true } });
    if (edited.status !== 200) throw new Error(`edit docs/notes.txt: ${edited.status} ${edited.bytes.toString()}`);
  });
  afterAll(async () => {
    await app.close();
  });

  it('lists an Envelope B page with total, page, page_size and total_pages', async () => {
    const answer = await send('GET', `${objects}?page_size=4&page=2&ordering=path`);

    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ success: true, total: 6, page: 2, page_size: 4, total_pages: 2 });
    expect(answer.json.data.map((o: Listed) => o.file_path)).toEqual(['images/cat.png', 'videos/clip.mp4']);
  });

  it('filters by size', async () => {
    expect(await paths('size__gte=2000')).toEqual(['docs/guide.pdf', 'images/Dog.JPG', 'videos/clip.mp4']);
    expect(await paths('size__gt=2000')).toEqual(['docs/guide.pdf', 'videos/clip.mp4']);
    expect(await paths('size__lte=100')).toEqual(['docs/notes.txt', 'images/cat.png']);
    expect(await paths('size__lt=100')).toEqual(['docs/notes.txt']);
    expect(await paths('min_size=500&max_size=5000')).toEqual(['audio/song.mp3', 'docs/guide.pdf', 'images/Dog.JPG']);
  });

  it('filters by creation and update times', async () => {
    const third = created['docs/guide.pdf']!.created_at;
    const before = await paths(`created_at__lte=${encodeURIComponent(third)}`);
    const after = await paths(`created_after=${encodeURIComponent(third)}`);

    expect(before).toEqual(['docs/guide.pdf', 'images/Dog.JPG', 'images/cat.png']);
    expect(after).toEqual(['audio/song.mp3', 'docs/guide.pdf', 'docs/notes.txt', 'videos/clip.mp4']);
    expect(await paths(`created_before=${encodeURIComponent(third)}&created_at__gte=${encodeURIComponent(third)}`)).toEqual([
      'docs/guide.pdf',
    ]);
    expect(await paths('updated_at__gte=2999-01-01')).toEqual([]);
    expect(await paths('updated_at__lte=2999-01-01T00:00:00Z')).toHaveLength(6);
    expect((await send('GET', `${objects}?created_after=yesterday`)).status).toBe(400);
  });

  it('filters by text: search, filename, prefix, file and metadata', async () => {
    expect(await paths('search=DOG')).toEqual(['images/Dog.JPG']);
    expect(await paths('search=docs/')).toEqual(['docs/guide.pdf', 'docs/notes.txt']);
    expect(await paths('filename__icontains=o')).toEqual(['audio/song.mp3', 'docs/notes.txt', 'images/Dog.JPG']);
    expect(await paths('prefix=images/')).toEqual(['images/Dog.JPG', 'images/cat.png']);
    expect(await paths('prefix=Images/')).toEqual([]);
    expect(await paths('file=docs/notes.txt')).toEqual(['docs/notes.txt']);
    expect(await paths('file__icontains=CLIP')).toEqual(['videos/clip.mp4']);
    expect(await paths('file__startswith=vid')).toEqual(['videos/clip.mp4']);
    expect(await paths('file__startswith=VID')).toEqual([]);
    expect(await paths('file__istartswith=VID')).toEqual(['videos/clip.mp4']);
    expect(await paths('metadata_search=familiaris')).toEqual(['images/Dog.JPG']);
    expect(await paths('search=%25')).toEqual([]);
  });

  it('filters by MIME type, list and category', async () => {
    expect(await paths('mimetype=image/png')).toEqual(['images/cat.png']);
    expect(await paths('mimetype__in=image/jpeg,audio/mpeg')).toEqual(['audio/song.mp3', 'images/Dog.JPG']);
    expect(await paths('mimetype_category=image')).toEqual(['images/Dog.JPG', 'images/cat.png']);
    expect(await paths('mimetype_category=video')).toEqual(['videos/clip.mp4']);
    expect(await paths('mimetype_category=audio')).toEqual(['audio/song.mp3']);
    expect(await paths('mimetype_category=application')).toEqual(['docs/guide.pdf']);
    expect(await paths('mimetype_category=text')).toEqual(['docs/notes.txt']);
    expect((await send('GET', `${objects}?mimetype_category=font`)).status).toBe(400);
  });

  it('filters by ownership and visibility', async () => {
    expect(await paths('created_by_me=true', member)).toEqual(['docs/notes.txt', 'videos/clip.mp4']);
    expect(await paths('created_by_me=false', member)).toHaveLength(4);
    expect(await paths('created_by__username=record-member')).toEqual(['docs/notes.txt', 'videos/clip.mp4']);
    expect(await paths('created_by__username__icontains=MEMBER')).toEqual(['docs/notes.txt', 'videos/clip.mp4']);
    expect(await paths('visibility=public')).toHaveLength(6);
    expect(await paths('visibility=private')).toEqual([]);
    expect(await paths('modified_by_me=true')).toEqual(['docs/notes.txt']);
    expect(await paths('modified_by_me=true', member)).toEqual([]);
  });

  it('orders by size, filename, path and dates, descending with "-"', async () => {
    const bySize = await send('GET', `${objects}?ordering=-size`);
    const byName = await send('GET', `${objects}?ordering=filename`);
    const byCreated = await send('GET', `${objects}?ordering=created_at`);

    expect(bySize.json.data.map((o: Listed) => o.size)).toEqual([9000, 5000, 2000, 700, 100, 10]);
    expect(byName.json.data.map((o: { filename: string }) => o.filename)).toEqual([
      'Dog.JPG',
      'cat.png',
      'clip.mp4',
      'guide.pdf',
      'notes.txt',
      'song.mp3',
    ]);
    expect(byCreated.json.data.map((o: Listed) => o.file_path)).toEqual(Object.keys(created));
    expect((await send('GET', `${objects}?ordering=owner`)).status).toBe(400);
    expect((await send('GET', `${objects}?unknown=1`)).status).toBe(400);
  });

  it('searches (legacy POST) by prefix and name with sorting, limit and offset', async () => {
    const answer = await json('POST', `${objects}search/`, { prefix: 'images/', search: 'DO', sortBy: { column: 'size', order: 'desc' } });
    const paged = await json('POST', `${objects}search/`, { sortBy: { column: 'size' }, limit: 2, offset: 1 });
    const huge = await json('POST', `${objects}search/`, { limit: 5000 });
    const bad = await json('POST', `${objects}search/`, { sortBy: { column: 'owner' } });

    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ success: true, status_code: 200, data: { count: 1, bucket: 'records' } });
    expect(answer.json.data.objects).toEqual([
      expect.objectContaining({ file: 'images/Dog.JPG', filename: 'Dog.JPG', size: 2000, mimetype: 'image/jpeg' }),
    ]);
    expect(Object.keys(answer.json.data.objects[0]).sort()).toEqual([
      'created_at',
      'file',
      'filename',
      'id',
      'mimetype',
      'size',
      'updated_at',
      'uuid',
    ]);
    expect(paged.json.data.objects.map((o: { size: number }) => o.size)).toEqual([100, 700]);
    expect(paged.json.data.count).toBe(6);
    expect(huge.status).toBe(200);
    expect(bad.status).toBe(400);
  });

  it('merges metadata on PATCH, removes keys set to null, and changes visibility and file name', async () => {
    const objects = await bucketOf('Patches');
    await send('PUT', `${objects}patch/me.txt`, { body: 'x', headers: { 'x-metadata-a': '1', 'x-metadata-b': '2' } });

    const patched = await json('PATCH', `${objects}patch/me.txt`, {
      metadata: { b: null, c: { nested: true } },
      visibility: 'private',
      filename: 'Renamed.txt',
    });
    const inherit = await json('PATCH', `${objects}patch/me.txt/`, { visibility: null });
    const unknown = await json('PATCH', `${objects}patch/me.txt`, { size: 3 });

    expect(patched.status).toBe(200);
    expect(patched.json.data).toMatchObject({
      metadata: { a: '1', c: { nested: true } },
      visibility: 'private',
      filename: 'Renamed.txt',
      file_path: 'patch/me.txt',
    });
    expect(patched.json.data.metadata).not.toHaveProperty('b');
    expect(inherit.json.data.visibility).toBeNull();
    expect(unknown.status).toBe(400);
  });

  it('deletes an object, then answers 404 for it', async () => {
    const objects = await bucketOf('Deletions');
    await send('PUT', `${objects}gone/soon.txt`, { body: 'bye' });

    const deleted = await send('DELETE', `${objects}gone/soon.txt`);
    const again = await send('DELETE', `${objects}gone/soon.txt/`);
    const read = await send('GET', `${objects}gone/soon.txt`);

    expect(deleted.status).toBe(200);
    expect(deleted.json).toMatchObject({ success: true, data: { file_path: 'gone/soon.txt' } });
    expect(again.status).toBe(404);
    expect(read.status).toBe(404);
  });

  it('batch-deletes paths, reporting the ones not found', async () => {
    const objects = await bucketOf('Bulk');
    await send('PUT', `${objects}bulk/a.txt`, { body: 'a' });
    await send('PUT', `${objects}bulk/b.txt`, { body: 'b' });

    const answer = await json('POST', `${objects}batch-delete/`, { paths: ['bulk/a.txt', 'bulk//b.txt/', 'bulk/missing.txt'] });
    const empty = await json('POST', `${objects}batch-delete/`, { paths: [] });

    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      success: true,
      status_code: 200,
      data: { deleted: ['bulk/a.txt', 'bulk/b.txt'], not_found: ['bulk/missing.txt'] },
    });
    expect(await paths('prefix=bulk/', admin, objects)).toEqual([]);
    expect(empty.status).toBe(400);
  });

  it('copies an object to a new UUID with the same bytes and metadata, in the bucket or another', async () => {
    const other = await createBucket(app, admin, site, { name: 'Other Records' });
    // Copies within the bucket land in it: a bucket of its own holding the two sources.
    const objects = await bucketOf('Copies');
    const dog = await send('PUT', `${objects}images/Dog.JPG`, {
      body: Buffer.alloc(2000, 1),
      headers: { 'content-type': 'image/jpeg', 'x-metadata-species': 'Canis familiaris' },
    });
    await send('PUT', `${objects}images/cat.png`, { body: Buffer.alloc(100, 1), headers: { 'content-type': 'image/png' } });

    const copy = await json('POST', `${objects}copy/`, { source_path: 'images/Dog.JPG', destination_path: 'copies/dog.jpg' });
    const across = await json('POST', `${objects}copy/`, {
      source_path: 'images/cat.png',
      destination_bucket: 'other-records',
      destination_path: 'cat.png',
    });
    const taken = await json('POST', `${objects}copy/`, { source_path: 'images/cat.png', destination_path: 'images/Dog.JPG' });
    const missing = await json('POST', `${objects}copy/`, { source_path: 'nope.png', destination_path: 'x.png' });
    const noBucket = await json('POST', `${objects}copy/`, {
      source_path: 'images/cat.png',
      destination_bucket: 'nope',
      destination_path: 'x.png',
    });

    expect(copy.status).toBe(201);
    expect(copy.json.data).toMatchObject({
      file_path: 'copies/dog.jpg',
      filename: 'dog.jpg',
      size: 2000,
      mimetype: 'image/jpeg',
      metadata: { species: 'Canis familiaris' },
    });
    expect(copy.json.data.uuid).not.toBe(dog.json.data.uuid);
    const bytes = await send('GET', `${objects}copies/dog.jpg`);
    expect(bytes.bytes.equals(Buffer.alloc(2000, 1))).toBe(true);
    expect((await send('GET', `${objects}images/Dog.JPG`)).status).toBe(200);
    expect(across.status).toBe(201);
    expect(across.json.data.bucket_slug).toBe('other-records');
    expect((await send('GET', `${other}cat.png`)).bytes.length).toBe(100);
    expect(taken.status).toBe(409);
    expect(missing.status).toBe(404);
    expect(noBucket.status).toBe(404);
  });

  it('moves an object keeping its UUID and freeing the source path, across buckets too', async () => {
    await createBucket(app, admin, site, { name: 'Archive' });
    const objects = await bucketOf('Moves');
    await send('PUT', `${objects}move/me.txt`, { body: 'moving', headers: { 'x-metadata-k': 'v' } });
    const original = await send('GET', `${objects}move/me.txt?metadata=true`);

    const renamed = await json('POST', `${objects}move/`, { source_path: 'move/me.txt', destination_path: 'moved/you.txt' });
    const archived = await json('POST', `${objects}move/`, {
      source_path: 'moved/you.txt',
      destination_bucket: 'archive',
      destination_path: 'old/you.txt',
    });

    expect(renamed.status).toBe(200);
    expect(renamed.json.data).toMatchObject({
      uuid: original.json.data.uuid,
      file_path: 'moved/you.txt',
      filename: 'you.txt',
      metadata: { k: 'v' },
    });
    expect((await send('GET', `${objects}move/me.txt`)).status).toBe(404);
    expect(archived.status).toBe(200);
    expect(archived.json.data).toMatchObject({ uuid: original.json.data.uuid, bucket_slug: 'archive', file_path: 'old/you.txt' });
    expect((await send('GET', `${objects}moved/you.txt`)).status).toBe(404);
    expect((await send('GET', `${site.buckets}archive/objects/old/you.txt`)).bytes.toString()).toBe('moving');
  });

  it('refuses to copy into a bucket whose allow-list or size limit the object breaks', async () => {
    await createBucket(app, admin, site, { name: 'Tiny Images', allowed_mime_types: ['image/*'], file_size_limit: 500 });

    const wrongType = await json('POST', `${objects}copy/`, {
      source_path: 'docs/guide.pdf',
      destination_bucket: 'tiny-images',
      destination_path: 'g.pdf',
    });
    const tooBig = await json('POST', `${objects}copy/`, {
      source_path: 'images/Dog.JPG',
      destination_bucket: 'tiny-images',
      destination_path: 'd.jpg',
    });

    expect(wrongType.status).toBe(400);
    expect(wrongType.json.message).toMatch(/not allowed/);
    expect(tooBig.status).toBe(400);
    expect(tooBig.json.message).toMatch(/size exceeds bucket limit/i);
  });
});
