import { access, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';
import { tarArchive, zipArchive, type TarEntry, type ZipEntry } from '#test/support/archives.ts';
import {
  INDEX_HTML,
  buildsRoot,
  createHostingSite,
  createWorker,
  storedBuildFiles,
  type ArchiveUpload,
  type HostingSite,
} from '#test/support/hosting.ts';

const MAX_ENTRIES = 20;
const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** Files named `escaped-*` anywhere a traversal could have put them: above the builds root, in the temp folder. */
async function escapedFiles(app: TestApp): Promise<string[]> {
  const found: string[] = [];
  for (const folder of [path.dirname(buildsRoot(app)), path.dirname(path.dirname(buildsRoot(app))), tmpdir(), '/etc']) {
    const names = await readdir(folder).catch(() => [] as string[]);
    found.push(...names.filter((name) => name.startsWith('escaped-')).map((name) => path.join(folder, name)));
  }
  return found;
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

const index: TarEntry = { name: 'index.html', data: INDEX_HTML };
const zipIndex: ZipEntry = { name: 'index.html', data: INDEX_HTML };

describe('hostile build archives', () => {
  let app: TestApp;
  let admin: string;
  let site: HostingSite;
  let attempt = 0;

  /** Uploads the archive as a new worker; answers the response after checking nothing stayed behind. */
  async function refused(archive: ArchiveUpload) {
    attempt += 1;
    const response = await createWorker(app, admin, site, { name: 'Hostile', subdomain_input: `hostile-${attempt}` }, archive);
    return { response, stored: await storedBuildFiles(app), escaped: await escapedFiles(app) };
  }

  beforeAll(async () => {
    app = await startTestApp({ HOSTING_MAX_ENTRIES: String(MAX_ENTRIES), HOSTING_MAX_FILE_BYTES: String(MAX_FILE_BYTES) });
    admin = await app.adminToken();
    site = await createHostingSite(app, admin, 'Hostile Site');
  });
  afterAll(async () => {
    await app.close();
  });

  it.each([
    ['zip', '../escaped-zip.txt'],
    ['zip', 'assets/../../escaped-zip-deep.txt'],
    ['tar', '../../escaped-tar.txt'],
    ['tar', 'a/../../escaped-tar-deep.txt'],
  ])('refuses a %s entry leading outside the build (%s) with 400', async (format, name) => {
    const archive =
      format === 'zip'
        ? { filename: 'slip.zip', data: zipArchive([zipIndex, { name, data: 'pwned' }]) }
        : { filename: 'slip.tar', data: await tarArchive([index, { name, data: 'pwned' }]) };

    const { response, stored, escaped } = await refused(archive);

    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ success: false, status_code: 400, code: 'VALIDATION_ERROR' });
    expect(response.json.errors.file[0]).toMatch(/\.\.|relative path/);
    expect(stored).toEqual([]);
    expect(escaped).toEqual([]);
  });

  it.each([
    ['zip', '/tmp/escaped-abs-zip.txt'],
    ['tar', '/tmp/escaped-abs-tar.txt'],
    ['zip', 'C:/escaped-drive.txt'],
  ])('refuses a %s entry with an absolute path (%s) with 400', async (format, name) => {
    const archive =
      format === 'zip'
        ? { filename: 'abs.zip', data: zipArchive([zipIndex, { name, data: 'pwned' }]) }
        : { filename: 'abs.tar', data: await tarArchive([index, { name, data: 'pwned' }]) };

    const { response, stored } = await refused(archive);

    expect(response.status).toBe(400);
    expect(response.json.errors.file[0]).toMatch(/absolute/);
    expect(stored).toEqual([]);
    expect(await exists(name)).toBe(false);
  });

  it('refuses a tar symbolic link, even one pointing inside, with 400', async () => {
    const { response, stored } = await refused({
      filename: 'link.tar.gz',
      data: await tarArchive(
        [index, { name: 'passwd', type: 'symlink', linkname: '/etc/passwd' }, { name: 'ok', type: 'symlink', linkname: 'index.html' }],
        { gzip: true },
      ),
    });

    expect(response.status).toBe(400);
    expect(response.json.errors.file[0]).toContain('symbolic link');
    expect(stored).toEqual([]);
  });

  it('refuses a zip symbolic link with 400', async () => {
    const { response, stored } = await refused({
      filename: 'link.zip',
      data: zipArchive([zipIndex, { name: 'passwd', data: '/etc/passwd', mode: 0o120777 }]),
    });

    expect(response.status).toBe(400);
    expect(response.json.errors.file[0]).toContain('symbolic link');
    expect(stored).toEqual([]);
  });

  it('refuses a tar hard link with 400', async () => {
    const { response, stored } = await refused({
      filename: 'hard.tar',
      data: await tarArchive([index, { name: 'shadow', type: 'link', linkname: '../../../etc/shadow' }]),
    });

    expect(response.status).toBe(400);
    expect(response.json.errors.file[0]).toContain('hard link');
    expect(stored).toEqual([]);
  });

  it.each(['character-device', 'block-device', 'fifo'] as const)('refuses a tar %s entry with 400', async (type) => {
    const { response, stored } = await refused({ filename: 'dev.tar', data: await tarArchive([index, { name: 'dev', type }]) });

    expect(response.status).toBe(400);
    expect(response.json.errors.file[0]).toContain('only files and folders');
    expect(stored).toEqual([]);
  });

  it('refuses a zip device entry with 400', async () => {
    const { response, stored } = await refused({
      filename: 'dev.zip',
      data: zipArchive([zipIndex, { name: 'tty', data: '', mode: 0o020666 }]),
    });

    expect(response.status).toBe(400);
    expect(stored).toEqual([]);
  });

  it.each(['zip', 'tar'])('refuses a %s with more entries than allowed, removing the files already stored', async (format) => {
    const names = Array.from({ length: MAX_ENTRIES + 1 }, (_, n) => `f${n}.txt`);
    const archive =
      format === 'zip'
        ? { filename: 'many.zip', data: zipArchive([zipIndex, ...names.map((name) => ({ name, data: name }))]) }
        : { filename: 'many.tar', data: await tarArchive([index, ...names.map((name) => ({ name, data: name }))]) };

    const { response, stored } = await refused(archive);

    expect(response.status).toBe(400);
    expect(response.json.errors.file[0]).toBe(`The archive has more than ${MAX_ENTRIES} entries.`);
    expect(stored).toEqual([]);
  });

  it('refuses a zip decompression bomb before unpacking it', async () => {
    const zeros = Buffer.alloc(64 * 1024 * 1024);
    const { response, stored } = await refused({
      filename: 'bomb.zip',
      data: zipArchive([zipIndex, { name: 'zeros.bin', data: zeros, deflate: true }]),
    });

    expect(response.status).toBe(400);
    expect(response.json.errors.file[0]).toMatch(/unpacks to more than/);
    expect(stored).toEqual([]);
  });

  it('refuses a gzip decompression bomb while it streams', async () => {
    // 3 MB of zeros under the per-file limit, but about a thousand times smaller packed.
    const tarOfZeros = await tarArchive([index, { name: 'zeros.bin', data: Buffer.alloc(3 * 1024 * 1024) }]);
    const { response, stored } = await refused({ filename: 'bomb.tgz', data: gzipSync(tarOfZeros, { level: 9 }) });

    expect(response.status).toBe(400);
    expect(response.json.errors.file[0]).toMatch(/times its size/);
    expect(stored).toEqual([]);
  });

  it('refuses a file over the per-file limit', async () => {
    const big = Buffer.alloc(MAX_FILE_BYTES + 1, 'a');
    const { response, stored } = await refused({ filename: 'big.tar', data: await tarArchive([index, { name: 'big.txt', data: big }]) });

    expect(response.status).toBe(400);
    expect(response.json.errors.file[0]).toContain(`unpacks to more than ${MAX_FILE_BYTES} bytes`);
    expect(stored).toEqual([]);
  });

  it.each([
    ['site.rar', Buffer.from('Rar!'), 'Send the build as a .zip, .tar, .tar.gz or .tgz archive.'],
    ['site.zip', Buffer.from('this is not a zip file at all'), 'cannot be read'],
    ['site.tgz', Buffer.from('not gzip'), 'cannot be read'],
  ])('refuses %s that is not a readable archive with 400', async (filename, data, message) => {
    const { response, stored } = await refused({ filename, data });

    expect(response.status).toBe(400);
    expect(response.json.errors.file[0]).toContain(message);
    expect(stored).toEqual([]);
  });

  it('refuses an archive without index.html at its root, removing what it stored', async () => {
    const { response, stored } = await refused({
      filename: 'noindex.tar',
      data: await tarArchive([{ name: 'dist/index.html', data: INDEX_HTML }]),
    });

    expect(response.status).toBe(400);
    expect(response.json.errors.file).toEqual(['The archive has no index.html at its root.']);
    expect(stored).toEqual([]);
  });

  it('keeps prototype-like and unusual names inside the build as plain files', async () => {
    const created = await createWorker(
      app,
      admin,
      site,
      { name: 'Odd names', subdomain_input: 'odd-names', ['__proto__']: 'x' },
      {
        filename: 'odd.zip',
        data: zipArchive([
          zipIndex,
          { name: '__proto__/constructor.js', data: '1' },
          { name: '.well-known/security.txt', data: '2' },
          { name: 'ünï cødé.txt', data: '3' },
        ]),
      },
    );

    expect(created.status).toBe(201);
    const stored = await storedBuildFiles(app);
    expect(stored).toHaveLength(4);
    expect(stored.every((file) => !file.split(path.sep).includes('..'))).toBe(true);
  });
});
