// The disk filling up in the middle of an upload: the client gets 507 in the storage envelope, the
// half-written file is removed, no object record is left, and once there is room again the same
// upload succeeds without a restart. The filesystem store runs as configured, on real files, with
// its file streams opened through a "disk" of limited room that fails a write with ENOSPC when the
// room is used up (the store's write-stream seam; its own logic is what is tested).
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilesystemObjectStore } from '#shared/storage/filesystem-object-store.ts';
import { createBucket, createStorageSite, siteSender, type StorageSite } from '#test/support/storage.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

/** A disk with `free` bytes of room: writes beyond it fail as the kernel's would (ENOSPC). */
class LimitedDisk {
  free = Number.POSITIVE_INFINITY;

  open = (file: string): Writable => {
    const target = createWriteStream(file);
    const disk = this;
    return new Writable({
      write(chunk: Buffer, _encoding, done) {
        const room = Math.max(0, Math.min(chunk.length, disk.free));
        disk.free -= room;
        // What fits is written; then the disk is full.
        target.write(chunk.subarray(0, room), (error) => {
          if (error) return done(error);
          if (room < chunk.length) return done(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
          done();
        });
      },
      final(done) {
        target.end(done);
      },
      destroy(error, done) {
        target.destroy();
        target.once('close', () => done(error));
      },
    });
  };
}

describe('disk full while uploading', () => {
  const disk = new LimitedDisk();
  let root: string;
  let app: TestApp;
  let admin: string;
  let site: StorageSite;
  let objects: string;
  const send = siteSender(() => ({ app, site, token: admin }));
  const filesOnDisk = async () =>
    (await readdir(root, { recursive: true, withFileTypes: true }).catch(() => [])).filter((entry) => entry.isFile()).length;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'tessera-full-disk-'));
    app = await startTestApp({}, { objectStore: new FilesystemObjectStore(root, disk.open) });
    admin = await app.adminToken();
    site = await createStorageSite(app, admin, 'Full Disk');
    objects = await createBucket(app, admin, site, { name: 'Files' });
  });
  afterAll(async () => {
    await app?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('answers 507, removes the partial file and keeps no record; with room again the upload succeeds', async () => {
    const bytes = randomBytes(256 * 1024);
    const filesBefore = await filesOnDisk();
    disk.free = 100 * 1024;

    const refused = await send('PUT', `${objects}big.bin`, { body: bytes, headers: { 'content-type': 'application/octet-stream' } });

    expect(refused.status).toBe(507);
    expect(refused.json).toMatchObject({ success: false, status_code: 507 });
    expect(refused.json.message).toMatch(/no room left/);
    expect(disk.free).toBe(0); // the write did fill the disk before it failed
    expect(await filesOnDisk()).toBe(filesBefore);
    expect((await send('GET', `${objects}big.bin`)).status).toBe(404);

    disk.free = Number.POSITIVE_INFINITY;
    const retried = await send('PUT', `${objects}big.bin`, { body: bytes, headers: { 'content-type': 'application/octet-stream' } });

    expect(retried.status).toBe(201);
    const downloaded = await send('GET', `${objects}big.bin`);
    expect(downloaded.status).toBe(200);
    expect(downloaded.bytes.equals(bytes)).toBe(true);
    expect(await filesOnDisk()).toBe(filesBefore + 1);
  });
});
