// Backups of the embedded mode: `npm run backup` writes the stopped server's DATA_DIR (database,
// objects, keys) to one .tar.gz, `npm run restore` brings a fresh DATA_DIR back to it, and a server
// started there answers with the same data: the object's bytes, the record, the secret (readable
// only with the restored secrets key), the admin's password. Restore refuses a non-empty DATA_DIR
// without --force, and a hostile archive without writing a byte outside it or changing DATA_DIR.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createGzip } from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import { createWriteStream } from 'node:fs';
import tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerClient, startServerProcess, stopServerProcess, type ServerProcess } from '#test/support/dev-server-process.ts';

const run = promisify(execFile);

interface CliOutcome {
  code: number;
  output: string;
}

/** `npm run backup` / `npm run restore` as an operator runs them, on the given DATA_DIR. */
async function cli(script: 'backup' | 'restore', dataDir: string, args: string[]): Promise<CliOutcome> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'WARN' };
  delete env.DATABASE_URL;
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', `infra/local/${script}.ts`, ...args], { env });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

async function hostileArchive(file: string): Promise<void> {
  const pack = tar.pack();
  const written = pipeline(pack, createGzip(), createWriteStream(file));
  pack.entry({ name: 'manifest.json' }, JSON.stringify({ format: 'tessera-embedded-backup', version: 1, createdAt: 'x', files: 1 }));
  pack.entry({ name: 'files/../../escaped.txt' }, 'planted');
  pack.finalize();
  await written;
}

describe('npm run backup and npm run restore', () => {
  let work: string;
  let original: string;
  let restored: string;
  let server: ServerProcess | undefined;
  let siteSlug: string;
  const backupFile = () => path.join(work, 'backup.tar.gz');
  const OBJECT = '/api/apps/kept/storage/buckets/files/objects/docs/kept.bin';
  const BYTES = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256));

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'tessera-backup-'));
    original = path.join(work, 'original');
    restored = path.join(work, 'restored');
    server = await startServerProcess({ dataDir: original });
    const client = new ServerClient(server.url);
    await client.signIn();
    const org = await client.expect(201, 'POST', '/api/cloud/organizations/', { name: 'Backup org' });
    const site = await client.expect(201, 'POST', `/api/cloud/organizations/${org.body.data.slug}/sites/`, { name: 'Kept site' });
    siteSlug = site.body.slug;
    client.tenant = { 'x-tenant': siteSlug };
    await client.expect(201, 'POST', '/api/apps/', { name: 'Kept' });
    await client.expect(201, 'POST', '/api/apps/kept/storage/buckets/', { name: 'Files', app_category: 'attachments' });
    await client.expect(201, 'PUT', OBJECT, BYTES);
    await client.expect(201, 'POST', '/api/apps/kept/datasources/', { name: 'Main', provider_type: 'jsonb' });
    const schema = {
      fields: [
        { name: 'id', type: 'integer' },
        { name: 'title', type: 'string' },
      ],
      primaryKey: ['id'],
    };
    await client.expect(201, 'POST', '/api/apps/kept/datasources/main/datatables/', { name: 'notes', json_schema: schema });
    await client.expect(200, 'POST', '/api/apps/kept/datatables/notes/materialize/');
    await client.expect(201, 'POST', '/api/apps/kept/datatables/notes/data/', { id: 1, title: 'kept note' });
    await client.expect(201, 'POST', '/api/secrets/', { key: 'KEPT', value: 'kept secret value' });
  }, 300_000);

  afterAll(async () => {
    if (server !== undefined) await stopServerProcess(server, 'SIGKILL');
    await rm(work, { recursive: true, force: true });
  });

  it('refuses to back up under a running server', async () => {
    const refused = await cli('backup', original, [backupFile()]);

    expect(refused.code).toBe(1);
    expect(refused.output).toContain('stop it first');
  }, 120_000);

  it('round-trips database, objects and keys into a fresh DATA_DIR', async () => {
    // Prepare
    await stopServerProcess(server!, 'SIGTERM');
    server = undefined;
    // Act
    const backedUp = await cli('backup', original, [backupFile()]);
    const restoredRun = await cli('restore', restored, [backupFile()]);
    server = await startServerProcess({ dataDir: restored });
    const client = new ServerClient(server.url);
    await client.signIn();
    client.tenant = { 'x-tenant': siteSlug };
    const object = await client.bytes(OBJECT);
    const note = await client.json('GET', '/api/apps/kept/datatables/notes/data/1/');
    const secret = await client.json('GET', '/api/secrets/KEPT/');
    // Assess
    expect(backedUp).toMatchObject({ code: 0 });
    expect(restoredRun).toMatchObject({ code: 0 });
    expect(object.status).toBe(200);
    expect(object.bytes.equals(BYTES)).toBe(true);
    expect(note.body.data).toMatchObject({ id: 1, title: 'kept note' });
    expect(secret.body.value).toBe('kept secret value');
  }, 300_000);

  it('refuses a non-empty DATA_DIR without --force, and replaces it with --force once stopped', async () => {
    // Prepare
    await stopServerProcess(server!, 'SIGTERM');
    server = undefined;
    // Act
    const refused = await cli('restore', restored, [backupFile()]);
    const forced = await cli('restore', restored, [backupFile(), '--force']);
    // Assess
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('not empty');
    expect(forced).toMatchObject({ code: 0 });
  }, 120_000);

  it('refuses a hostile archive and writes nothing outside or into DATA_DIR', async () => {
    // Prepare
    const hostile = path.join(work, 'hostile.tar.gz');
    await hostileArchive(hostile);
    const fresh = path.join(work, 'fresh', 'data');
    await mkdir(path.dirname(fresh));
    const before = (await readdir(work)).sort();
    // Act
    const refused = await cli('restore', fresh, [hostile]);
    // Assess
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('".."');
    expect((await readdir(work)).sort()).toEqual(before);
    expect(await readdir(path.join(work, 'fresh')).catch(() => [])).toEqual([]);
  }, 120_000);
});
