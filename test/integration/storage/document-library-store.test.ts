// The document-library adapter of the object-store port, against the loopback Graph stand-in.
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '#shared/config.ts';
import { BadRequestError } from '#shared/errors.ts';
import { DocumentLibrary, type SiteDocumentLibrary } from '#shared/storage/document-library/document-library.ts';
import { LibrarySiteNotReadyError, ProviderCommunicationError } from '#shared/storage/document-library/document-library-errors.ts';
import { ObjectMissingError, ObjectTooLargeError, StorageUnavailableError } from '#shared/storage/storage-errors.ts';
import { startGraphStandIn, type GraphStandIn } from '#test/support/graph-stand-in.ts';
import type { StandInSite } from '#test/support/graph-stand-in-state.ts';

const KIB = 1024;
const SIMPLE_LIMIT = 64 * KIB;

function bytes(size: number, seed = 7): Buffer {
  return Buffer.from(Array.from({ length: size }, (_, index) => (index * seed + 3) % 251));
}

/** A stream in uneven pieces, as a socket would deliver it. */
function streamOf(data: Buffer, piece = 50_000): Readable {
  const pieces: Buffer[] = [];
  for (let offset = 0; offset < data.length; offset += piece) pieces.push(data.subarray(offset, offset + piece));
  return Readable.from(pieces);
}

describe('document-library object store', () => {
  let standIn: GraphStandIn;
  let library: DocumentLibrary;
  let site: StandInSite;
  let acme: SiteDocumentLibrary;

  beforeAll(async () => {
    standIn = await startGraphStandIn();
    library = new DocumentLibrary(loadConfig(standIn.env()).documentLibrary!, {
      upload: { simpleUploadMaxBytes: SIMPLE_LIMIT, chunkBytes: 320 * KIB },
      copy: { timeoutMs: 2000, firstPollMs: 5 },
    });
    site = standIn.provisionSite('acme');
    acme = library.forSite('acme');
  });
  afterAll(async () => {
    await standIn.close();
  });

  it('stores a small file with one PUT to the item content and reads it back', async () => {
    const content = Buffer.from('quarterly figures');

    const info = await acme.store.put('b1/report.txt', content, { contentType: 'text/plain', contentLength: content.length });
    const download = await acme.store.get('b1/report.txt');

    expect(standIn.callsMatching('PUT', /\/root:\/b1\/report\.txt:\/content$/)).toHaveLength(1);
    expect(info).toMatchObject({ size: content.length, contentType: 'text/plain' });
    expect(info.etag).toMatch(/^".+"$/);
    expect(await buffer(download.body)).toEqual(content);
    expect(download.size).toBe(content.length);
    expect(standIn.file(site, 'b1/report.txt')?.bytes).toEqual(content);
  });

  it('uploads a large stream of known length through an upload session in 320 KiB chunks without our token', async () => {
    const content = bytes(700 * KIB);

    const info = await acme.store.put('b1/large.bin', streamOf(content), {
      contentType: 'application/octet-stream',
      contentLength: content.length,
    });

    const chunks = standIn.callsMatching('PUT', /^\/upload\//);
    expect(standIn.callsMatching('POST', /\/root:\/b1\/large\.bin:\/createUploadSession$/)).toHaveLength(1);
    expect(chunks).toHaveLength(3);
    expect(chunks.every((call) => !call.authorized)).toBe(true);
    expect(info.size).toBe(content.length);
    expect(standIn.file(site, 'b1/large.bin')?.bytes.equals(content)).toBe(true);
  });

  it('spools a large stream of unknown length and uploads it whole', async () => {
    const content = bytes(400 * KIB, 11);

    await acme.store.put('b1/unknown-length.bin', streamOf(content), { contentType: 'application/octet-stream' });

    expect(standIn.file(site, 'b1/unknown-length.bin')?.bytes.equals(content)).toBe(true);
  });

  it('stops an upload over the byte limit and leaves nothing stored', async () => {
    const small = acme.store.put('b1/too-big-small.txt', Buffer.from('0123456789'), { contentType: 'text/plain', maxBytes: 5 });
    const large = acme.store.put('b1/too-big-large.bin', streamOf(bytes(500 * KIB)), {
      contentType: 'application/octet-stream',
      contentLength: 500 * KIB,
      maxBytes: 400 * KIB,
    });

    await expect(small).rejects.toBeInstanceOf(ObjectTooLargeError);
    await expect(large).rejects.toBeInstanceOf(ObjectTooLargeError);
    expect(standIn.file(site, 'b1/too-big-small.txt')).toBeUndefined();
    expect(standIn.file(site, 'b1/too-big-large.bin')).toBeUndefined();
  });

  it('refuses a body whose length differs from Content-Length, cancelling the upload session', async () => {
    const cancelsBefore = standIn.callsMatching('DELETE', /^\/upload\//).length;

    const short = acme.store.put('b1/short.bin', streamOf(bytes(500 * KIB)), {
      contentType: 'application/octet-stream',
      contentLength: 600 * KIB,
    });
    const long = acme.store.put('b1/long.bin', streamOf(bytes(500 * KIB)), {
      contentType: 'application/octet-stream',
      contentLength: 400 * KIB,
    });

    await expect(short).rejects.toBeInstanceOf(BadRequestError);
    await expect(long).rejects.toBeInstanceOf(BadRequestError);
    expect(standIn.callsMatching('DELETE', /^\/upload\//).length - cancelsBefore).toBe(2);
    expect(standIn.file(site, 'b1/short.bin')).toBeUndefined();
    expect(standIn.file(site, 'b1/long.bin')).toBeUndefined();
  });

  it('reads a byte range through the pre-authenticated download URL', async () => {
    const content = bytes(5000);
    await acme.store.put('b1/ranged.bin', content, { contentType: 'application/octet-stream' });

    const download = await acme.store.get('b1/ranged.bin', { start: 100, end: 199 });

    expect(await buffer(download.body)).toEqual(content.subarray(100, 200));
    expect(download.range).toEqual({ start: 100, end: 199 });
    expect(standIn.callsMatching('GET', /^\/download\//).at(-1)?.authorized).toBe(false);
  });

  it('reports a missing key as absent on head and as ObjectMissingError on get and copy', async () => {
    expect(await acme.store.head('b1/nothing.txt')).toBeUndefined();
    await expect(acme.store.get('b1/nothing.txt')).rejects.toBeInstanceOf(ObjectMissingError);
    await expect(acme.store.copy('b1/nothing.txt', 'b2/nothing.txt')).rejects.toBeInstanceOf(ObjectMissingError);
  });

  it('copies on the server into folders it creates, waiting for the copy monitor', async () => {
    const content = Buffer.from('copy me');
    await acme.store.put('b1/source.txt', content, { contentType: 'text/plain' });

    const info = await acme.store.copy('b1/source.txt', 'b9/deep/copy.txt');

    expect(info.size).toBe(content.length);
    expect(standIn.file(site, 'b9/deep/copy.txt')?.bytes).toEqual(content);
    expect(standIn.file(site, 'b1/source.txt')?.bytes).toEqual(content);
    expect(standIn.callsMatching('POST', /\/items\/[^/]+\/children$/).map((call) => (call.body as { name: string }).name)).toEqual([
      'b9',
      'deep',
    ]);
    expect(standIn.callsMatching('GET', /^\/monitor\//).length).toBeGreaterThanOrEqual(2);
  });

  it('deletes keys in JSON batches of 20, a missing key included', async () => {
    const keys = Array.from({ length: 25 }, (_, index) => `b3/file-${index}.txt`);
    for (const key of keys) await acme.store.put(key, Buffer.from(key), { contentType: 'text/plain' });
    const batchesBefore = standIn.callsMatching('POST', /^\/v1\.0\/\$batch$/).length;

    await acme.store.deleteMany([...keys, 'b3/never-stored.txt']);

    expect(standIn.callsMatching('POST', /^\/v1\.0\/\$batch$/).length - batchesBefore).toBe(2);
    expect(keys.filter((key) => standIn.file(site, key) !== undefined)).toEqual([]);
  });

  it('reports a failed batch delete as storage unavailable after deleting the other batches', async () => {
    const keys = Array.from({ length: 21 }, (_, index) => `b4/file-${index}.txt`);
    for (const key of keys) await acme.store.put(key, Buffer.from(key), { contentType: 'text/plain' });
    standIn.failNext(/^POST \/v1\.0\/\$batch$/, 503, 1);

    const deleting = acme.store.deleteMany(keys);

    await expect(deleting).rejects.toBeInstanceOf(StorageUnavailableError);
    expect(keys.filter((key) => standIn.file(site, key) !== undefined)).toEqual(keys.slice(0, 20));
  });

  it('answers 409 library_site_not_ready until the site and its drive exist, then works', async () => {
    const pending = library.forSite('pending');

    const noSite = await pending.store.head('b1/x.txt').catch((error: unknown) => error);
    const pendingSite = standIn.provisionSite('pending', { drive: false });
    const noDrive = await pending.store.put('b1/x.txt', Buffer.from('x'), { contentType: 'text/plain' }).catch((error: unknown) => error);
    standIn.state.addDrive(pendingSite);
    const stored = await pending.store.put('b1/x.txt', Buffer.from('x'), { contentType: 'text/plain' });

    for (const error of [noSite, noDrive]) {
      expect(error).toBeInstanceOf(LibrarySiteNotReadyError);
      expect(error).toMatchObject({ status: 409, code: 'CONFLICT', extras: { provider_error_code: 'library_site_not_ready' } });
    }
    expect(stored.size).toBe(1);
  });

  it('keeps one app token across calls and takes a new one when Graph refuses it', async () => {
    const issued = standIn.tokensIssued;
    await acme.store.head('b1/report.txt');
    await acme.store.head('b1/report.txt');
    expect(standIn.tokensIssued).toBe(issued);

    standIn.revokeTokens();
    const info = await acme.store.head('b1/report.txt');

    expect(info?.size).toBeGreaterThan(0);
    expect(standIn.tokensIssued).toBe(issued + 1);
  });

  it('waits out one short throttling answer and gives up on a long one', async () => {
    standIn.failNext(/^GET \/v1\.0\/drives\/.+\/root:\/b1\/report\.txt$/, 429, 1, { 'retry-after': '0' });
    const retried = await acme.store.head('b1/report.txt');
    standIn.failNext(/^GET \/v1\.0\/drives\/.+\/root:\/b1\/report\.txt$/, 429, 1, { 'retry-after': '120' });
    const throttled = await acme.store.head('b1/report.txt').catch((error: unknown) => error);

    expect(retried?.size).toBeGreaterThan(0);
    expect(throttled).toMatchObject({ status: 502, code: 'BAD_REQUEST', graphStatus: 429 });
  });

  it('turns a Graph 5xx and an unreachable Graph into 502 BAD_REQUEST', async () => {
    standIn.failNext(/^GET \/v1\.0\/drives\/.+\/root:\/b1\/report\.txt$/, 500, 1);
    const failed = await acme.store.head('b1/report.txt').catch((error: unknown) => error);
    const unreachable = new DocumentLibrary(
      loadConfig(standIn.env({ GRAPH_API_URL: 'http://127.0.0.1:9/v1.0', GRAPH_TOKEN_URL: 'http://127.0.0.1:9/t/token' })).documentLibrary!,
    );
    const refused = await unreachable
      .forSite('acme')
      .store.head('b1/report.txt')
      .catch((error: unknown) => error);

    for (const error of [failed, refused]) {
      expect(error).toBeInstanceOf(ProviderCommunicationError);
      expect(error).toMatchObject({ status: 502, code: 'BAD_REQUEST', extras: { provider_error_code: 'provider_communication_failed' } });
    }
  });
});
