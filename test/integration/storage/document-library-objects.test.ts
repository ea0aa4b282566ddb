// The ordinary object endpoints on a document-library bucket: the bucket's `storage_provider` picks
// the store, so uploads, downloads, copies, moves and deletes reach the site's library (the Graph
// stand-in), and objects never cross between providers.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGraphStandIn, type GraphStandIn } from '#test/support/graph-stand-in.ts';
import type { StandInSite } from '#test/support/graph-stand-in-state.ts';
import { createBucket, createStorageSite, multipart, sendBinary, type StorageSite, siteSender } from '#test/support/storage.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

async function schemaOf(app: TestApp, siteSlug: string): Promise<string> {
  const [row] = await app.runtime.db.rows<{ schema_name: string }>(sql`select schema_name from platform.sites where slug = ${siteSlug}`);
  return row!.schema_name;
}

describe('object endpoints on document-library buckets', () => {
  let standIn: GraphStandIn;
  let library: StandInSite;
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  let documents: string;
  let plain: string;
  const send = siteSender(() => ({ app, site, token: admin }));
  const json = (method: string, route: string, body: unknown) =>
    send(method, route, { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const storageKey = async (path: string) => {
    const schema = await schemaOf(app, site.slug);
    const [row] = await app.runtime.db.rows<{ storage_key: string }>(
      sql`select o.storage_key from ${sql.identifier(schema)}.objects o where o.file_path = ${path}`,
    );
    return row?.storage_key;
  };

  beforeAll(async () => {
    standIn = await startGraphStandIn();
    app = await startTestApp(standIn.env());
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Library Objects');
    library = standIn.provisionSite(site.slug);
    documents = await createBucket(app, admin, site, { name: 'Documents', storage_provider: 'document_library' });
    plain = await createBucket(app, admin, site, { name: 'Plain' });
  });
  afterAll(async () => {
    await app.close();
    await standIn.close();
  });

  it('uploads into the library under a key ending with the file name, and downloads from it', async () => {
    const created = await send('PUT', `${documents}contracts/offer.docx`, {
      body: Buffer.from('docx bytes'),
      headers: { 'content-type': DOCX },
    });
    const download = await send('GET', `${documents}contracts/offer.docx`);
    const range = await send('GET', `${documents}contracts/offer.docx`, { headers: { range: 'bytes=0-3' } });

    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({ file_path: 'contracts/offer.docx', size: 10, is_office_editable: true });
    const key = (await storageKey('contracts/offer.docx'))!;
    expect(key).toMatch(/\/offer\.docx$/);
    expect(standIn.file(library, key)?.bytes.toString()).toBe('docx bytes');
    expect(download.status).toBe(200);
    expect(download.bytes.toString()).toBe('docx bytes');
    expect(range.status).toBe(206);
    expect(range.bytes.toString()).toBe('docx');
  });

  it('takes multipart uploads and copies and moves inside the library', async () => {
    const form = multipart([
      { name: 'file', filename: 'notes.txt', contentType: 'text/plain', data: 'library notes' },
      { name: 'path', data: 'notes/notes.txt' },
    ]);
    await send('POST', documents, { body: form.body, headers: { 'content-type': form.contentType } });

    const copy = await json('POST', `${documents}copy/`, { source_path: 'notes/notes.txt', destination_path: 'notes/copy.txt' });
    const move = await json('POST', `${documents}move/`, { source_path: 'notes/copy.txt', destination_path: 'archive/moved.txt' });

    expect(copy.status).toBe(201);
    expect(move.status).toBe(200);
    expect((await send('GET', `${documents}archive/moved.txt`)).bytes.toString()).toBe('library notes');
    expect(standIn.file(library, (await storageKey('archive/moved.txt'))!)?.bytes.toString()).toBe('library notes');
  });

  it('refuses to copy or move between a library bucket and an object-store bucket', async () => {
    await send('PUT', `${plain}local.txt`, { body: 'local', headers: { 'content-type': 'text/plain' } });

    const toStore = await json('POST', `${documents}copy/`, {
      source_path: 'contracts/offer.docx',
      destination_bucket: 'plain',
      destination_path: 'x.docx',
    });
    const toLibrary = await json('POST', `${plain}move/`, {
      source_path: 'local.txt',
      destination_bucket: 'documents',
      destination_path: 'local.txt',
    });

    for (const answer of [toStore, toLibrary]) {
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
      expect(answer.json.message).toMatch(/Cross-provider/);
    }
  });

  it('deletes objects from the library, and the bucket with what is left', async () => {
    await send('PUT', `${documents}temp/drop.txt`, { body: 'drop', headers: { 'content-type': 'text/plain' } });
    const dropped = (await storageKey('temp/drop.txt'))!;
    const kept = (await storageKey('contracts/offer.docx'))!;

    const deleted = await send('DELETE', `${documents}temp/drop.txt`);
    expect(deleted.status).toBe(200);
    expect(standIn.file(library, dropped)).toBeUndefined();

    const bucketDeleted = await send('DELETE', `${site.buckets}documents/`);
    expect(bucketDeleted.status).toBe(204);
    expect(standIn.file(library, kept)).toBeUndefined();
  });
});

describe('object endpoints on a document-library bucket without a configured library', () => {
  it('answers 400 document_library_not_configured instead of storing anywhere', async () => {
    const app = await startTestApp();
    try {
      const admin = await app.adminToken();
      const site = await createStorageSite(app, admin, 'No Library');
      const objects = await createBucket(app, admin, site, { name: 'Plain' });
      // A library bucket left behind by a platform whose library was configured before.
      const schema = await schemaOf(app, site.slug);
      await app.runtime.db.run(sql`update ${sql.identifier(schema)}.buckets set storage_provider = 'document_library'`);

      const upload = await sendBinary(app.url, 'PUT', `${objects}a.txt`, {
        token: admin,
        body: 'a',
        headers: { ...site.tenant, 'content-type': 'text/plain' },
      });

      expect(upload.status).toBe(400);
      expect(upload.json).toMatchObject({ success: false, provider_error_code: 'document_library_not_configured' });
    } finally {
      await app.close();
    }
  });
});
