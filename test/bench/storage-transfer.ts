// Streaming through the dev server: a 50 MB object uploaded (PUT, raw bytes) and downloaded (GET)
// through the dev server, which runs in a child process (storage-server.ts), against writing and
// reading the same bytes on disk directly in this process. Reported: throughput of each and their
// ratio (target ≥ 0.5), the server process's peak RSS growth during each transfer (target < 64 MB,
// sampled every few milliseconds from a mark taken just before it), and for reference a bare
// node:http server beside the platform that only pipes bodies to files and back.
import { createHash, randomBytes } from 'node:crypto';
import { execFile, fork, type ChildProcess } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { downloadWithLargeReads } from './large-read-client.ts';
import { fixed, heading, median, note, ratioAgainst, table } from './report.ts';
import { benchSettings } from './settings.ts';
import type { ServerAnswer, ServerReady, ServerRequest } from './storage-server.ts';

const OBJECT_BYTES = 50 * 1024 * 1024;
const MB = 1024 * 1024;
/** The chunk sizes of the file streams here, the same as the filesystem store's. */
const CHUNKS = { highWaterMark: MB };
const READ_CHUNKS = { highWaterMark: 4 * MB };
/** Rounds that warm up (JIT, page cache, first-request set-up), not counted. */
const WARM_UP_ROUNDS = 3;

interface Server {
  ready: ServerReady;
  ask(request: ServerRequest): Promise<ServerAnswer>;
  stop(): Promise<void>;
}

async function startServer(): Promise<Server> {
  const script = fileURLToPath(new URL('./storage-server.ts', import.meta.url));
  // The child runs under the same TypeScript loader as this process.
  const child: ChildProcess = fork(script, [], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise<ServerReady>((resolve, reject) => {
    child.once('message', (message) => resolve(message as ServerReady));
    child.once('exit', (code) => reject(new Error(`the storage server exited with ${code} before it was ready`)));
  });
  const ask = (message: ServerRequest) =>
    new Promise<ServerAnswer>((resolve) => {
      child.once('message', (answer) => resolve(answer as ServerAnswer));
      child.send(message);
    });
  return {
    ready,
    ask,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.send({ type: 'stop' } satisfies ServerRequest);
      }),
  };
}

async function timed(work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

/** Sends the file as the body of a PUT, streamed; resolves with the answer's status. */
function upload(url: string, headers: Record<string, string>, objectPath: string, file: string): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        hostname,
        port,
        path: objectPath,
        method: 'PUT',
        headers: { ...headers, 'content-type': 'application/octet-stream', 'content-length': String(OBJECT_BYTES) },
      },
      (incoming) => {
        incoming.resume();
        incoming.on('end', () => resolve(incoming.statusCode ?? 0));
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    createReadStream(file, CHUNKS).pipe(outgoing);
  });
}

/** Reads a file from disk as the download is read: counting its bytes. */
async function readFileBytes(file: string): Promise<number> {
  let bytes = 0;
  for await (const chunk of createReadStream(file, READ_CHUNKS)) bytes += (chunk as Buffer).length;
  return bytes;
}

/** Writes every dirty page to disk, so that later reads do not compete with write-back. */
async function flushToDisk(): Promise<void> {
  await promisify(execFile)('sync');
}

/** Flushes and drops the page cache, so that the next read comes from disk; false where not allowed. */
async function dropPageCache(): Promise<boolean> {
  await flushToDisk();
  try {
    await writeFile('/proc/sys/vm/drop_caches', '1');
    return true;
  } catch {
    return false;
  }
}

interface Samples {
  seconds: number[];
  rssGrowth: number[];
}

export async function benchStorageTransfer(): Promise<void> {
  // A 50 MB transfer takes tens of milliseconds here, where the host's other tenants move it by half:
  // three times the usual rounds (9 by default) keep the medians steady, for about a second each.
  const rounds = 3 * benchSettings().rounds;
  heading(
    `storage-transfer: ${OBJECT_BYTES / MB} MB through the dev server (PUT and GET) vs the same bytes written and read on disk directly`,
  );
  const work = await mkdtemp(path.join(tmpdir(), 'tessera-bench-storage-'));
  const server = await startServer();
  const { url, headers, objects, bareUrl } = server.ready;
  try {
    const source = path.join(work, 'source.bin');
    const content = randomBytes(OBJECT_BYTES);
    await writeFile(source, content);
    const expected = createHash('sha256').update(content).digest('hex');
    const heapFlags = process.execArgv.filter((flag) => flag.includes('space-size')).join(' ') || 'none';
    note(
      `database: ${server.ready.database}; dev server in a child process (pid ${server.ready.pid}, V8 heap flags: ${heapFlags}, as \`npm start\` gives it), client and disk baseline in this one`,
    );
    note(
      `object: ${OBJECT_BYTES} random bytes, file chunks as the filesystem store's (1 MiB writes, 4 MiB reads); ${WARM_UP_ROUNDS} warm-up rounds (whose downloads are checked by SHA-256), then ${rounds} rounds, medians; downloads read by a client with 4 MiB socket reads (large-read-client.ts)`,
    );

    const samples = () => ({ seconds: [] as number[], rssGrowth: [] as number[] });
    const results = {
      diskWrite: samples(),
      upload: samples(),
      bareUpload: samples(),
      diskRead: samples(),
      download: samples(),
      bareDownload: samples(),
      coldDiskRead: samples(),
      coldDownload: samples(),
      coldBareDownload: samples(),
    };
    /** Times one transfer, with the server's RSS growth over a mark taken just before it. */
    let highestRss = server.ready.rss;
    const measure = async (into: Samples, counted: boolean, transfer: () => Promise<void>) => {
      const mark = await server.ask({ type: 'mark' });
      const seconds = await timed(transfer);
      const after = await server.ask({ type: 'peak' });
      if (mark.type !== 'marked' || after.type !== 'peak') throw new Error('the server answered out of turn');
      highestRss = after.highest;
      if (!counted) return;
      into.seconds.push(seconds);
      into.rssGrowth.push((after.peak - mark.rss) / MB);
    };
    const canDropCache = await dropPageCache();
    for (let round = 0; round < WARM_UP_ROUNDS + rounds; round += 1) {
      const counted = round >= WARM_UP_ROUNDS;
      const copy = path.join(work, `copy-${round}.bin`);
      const objectPath = `${objects}round-${round}.bin`;
      const barePath = `/round-${round}`;
      // Writes first, then every dirty page on disk, so that no read competes with write-back.
      await measure(results.diskWrite, counted, () => pipeline(createReadStream(source, CHUNKS), createWriteStream(copy, CHUNKS)));
      await measure(results.upload, counted, async () => {
        const status = await upload(url, headers, objectPath, source);
        if (status !== 201) throw new Error(`upload answered ${status}`);
      });
      await measure(results.bareUpload, counted, async () => void (await upload(bareUrl, {}, barePath, source)));
      await flushToDisk();

      const reads = async (from: { disk: Samples; platform: Samples; bare: Samples }, evict: () => Promise<unknown>) => {
        await evict();
        await measure(from.disk, counted, async () => {
          if ((await readFileBytes(copy)) !== OBJECT_BYTES) throw new Error('the copy on disk is short');
        });
        await evict();
        await measure(from.platform, counted, async () => {
          const fetched = await downloadWithLargeReads(url, headers, objectPath, !counted);
          if (fetched.status !== 200 || fetched.bytes !== OBJECT_BYTES)
            throw new Error(`download answered ${fetched.status} with ${fetched.bytes} bytes`);
          if (!counted && fetched.digest !== expected) throw new Error('the downloaded bytes differ from the uploaded ones');
        });
        await evict();
        await measure(from.bare, counted, async () => void (await downloadWithLargeReads(bareUrl, {}, barePath, false)));
      };
      await reads({ disk: results.diskRead, platform: results.download, bare: results.bareDownload }, async () => undefined);
      if (canDropCache)
        await reads({ disk: results.coldDiskRead, platform: results.coldDownload, bare: results.coldBareDownload }, dropPageCache);
      await rm(copy);
    }
    const mbps = (of: Samples) => OBJECT_BYTES / MB / median(of.seconds);
    const growth = (of: Samples) => `${fixed(Math.max(...of.rssGrowth))} MB`;
    const row = (transfer: string, platform: Samples, disk: Samples, bare: Samples) => [
      transfer,
      fixed(mbps(platform)),
      fixed(mbps(disk)),
      ratioAgainst(mbps(platform) / mbps(disk), 0.5, true),
      growth(platform),
      fixed(mbps(bare)),
      fixed(mbps(platform) / mbps(bare), 2),
    ];
    const rows = [
      row('upload (PUT)', results.upload, results.diskWrite, results.bareUpload),
      row('download (GET), from disk', results.coldDownload, results.coldDiskRead, results.coldBareDownload),
      row('download (GET), page cache', results.download, results.diskRead, results.bareDownload),
    ];
    table(
      ['transfer', 'platform MB/s', 'disk MB/s', 'ratio', 'server peak RSS growth', 'bare node:http MB/s', 'platform / bare'],
      canDropCache ? rows : [rows[0]!, rows[2]!],
    );
    note(`RSS growth target < 64 MB (largest of ${rounds} rounds); disk: a file-to-file stream copy and a stream read in this process`);
    note(
      `server RSS: ${fixed(server.ready.rss / MB)} MB when ready, ${fixed(highestRss / MB)} MB at most over the whole run (warm-ups included)`,
    );
    note(
      canDropCache
        ? 'from disk: the page cache dropped (sync; vm.drop_caches) before each read, on both sides; page cache: the same reads with the bytes in memory, where the disk read is a memory copy'
        : 'from disk: not measured (writing /proc/sys/vm/drop_caches needs root); page cache: reads with the bytes in memory, where the disk read is a memory copy',
    );
  } finally {
    await server.stop();
    await rm(work, { recursive: true, force: true });
  }
}
