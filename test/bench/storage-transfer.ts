// Streaming through the dev server: a 50 MB object uploaded (PUT, raw bytes) and downloaded (GET)
// through the dev server, which runs in a child process (storage-server.ts), against writing and
// reading the same bytes on disk directly in this process. Reported: throughput of each and their
// ratio (target ≥ 0.5), the server process's peak RSS growth during each transfer (target < 64 MB,
// sampled every few milliseconds from a mark taken just before it), and for reference a bare
// node:http server beside the platform that only pipes bodies to files and back.
import { createHash, randomBytes } from 'node:crypto';
import { fork, type ChildProcess } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { fixed, heading, median, note, ratioAgainst, table } from './report.ts';
import { benchSettings } from './settings.ts';
import type { ServerAnswer, ServerReady, ServerRequest } from './storage-server.ts';

const OBJECT_BYTES = 50 * 1024 * 1024;
const MB = 1024 * 1024;
/** The chunk size of every file stream here, the same as the filesystem store's. */
const CHUNKS = { highWaterMark: MB };

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
      { hostname, port, path: objectPath, method: 'PUT', headers: { ...headers, 'content-type': 'application/octet-stream', 'content-length': String(OBJECT_BYTES) } },
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

/** Reads the whole answer of a GET; resolves with its status, size and (when asked) SHA-256. */
function download(url: string, headers: Record<string, string>, objectPath: string, hashed: boolean): Promise<{ status: number; bytes: number; digest?: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = request({ hostname, port, path: objectPath, method: 'GET', headers }, (incoming) => {
      const hash = hashed ? createHash('sha256') : undefined;
      let bytes = 0;
      incoming.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        hash?.update(chunk);
      });
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, bytes, digest: hash?.digest('hex') }));
      incoming.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** Reads a file from disk as the download is read: counting its bytes. */
async function readFileBytes(file: string): Promise<number> {
  let bytes = 0;
  for await (const chunk of createReadStream(file, CHUNKS)) bytes += (chunk as Buffer).length;
  return bytes;
}

interface Samples {
  seconds: number[];
  rssGrowth: number[];
}

export async function benchStorageTransfer(): Promise<void> {
  const rounds = benchSettings().rounds;
  heading(`storage-transfer: ${OBJECT_BYTES / MB} MB through the dev server (PUT and GET) vs the same bytes written and read on disk directly`);
  const work = await mkdtemp(path.join(tmpdir(), 'tessera-bench-storage-'));
  const server = await startServer();
  const { url, headers, objects, bareUrl } = server.ready;
  try {
    const source = path.join(work, 'source.bin');
    const content = randomBytes(OBJECT_BYTES);
    await writeFile(source, content);
    const expected = createHash('sha256').update(content).digest('hex');
    note(`database: ${server.ready.database}; dev server in a child process (pid ${server.ready.pid}), client and disk baseline in this one`);
    note(`object: ${OBJECT_BYTES} random bytes, 1 MiB file chunks everywhere; a warm-up round (whose download is checked by SHA-256), then ${rounds} rounds, medians`);

    const samples = () => ({ seconds: [] as number[], rssGrowth: [] as number[] });
    const results = { diskWrite: samples(), diskRead: samples(), upload: samples(), download: samples(), bareUpload: samples(), bareDownload: samples() };
    /** Times one transfer, with the server's RSS growth over a mark taken just before it. */
    const measure = async (into: Samples, counted: boolean, transfer: () => Promise<void>) => {
      const mark = await server.ask({ type: 'mark' });
      const seconds = await timed(transfer);
      const after = await server.ask({ type: 'peak' });
      if (mark.type !== 'marked' || after.type !== 'peak') throw new Error('the server answered out of turn');
      if (!counted) return;
      into.seconds.push(seconds);
      into.rssGrowth.push((after.peak - mark.rss) / MB);
    };
    // Round 0 warms up (JIT, page cache, first-request set-up) and is not counted.
    for (let round = 0; round <= rounds; round += 1) {
      const counted = round > 0;
      const copy = path.join(work, `copy-${round}.bin`);
      await measure(results.diskWrite, counted, () => pipeline(createReadStream(source, CHUNKS), createWriteStream(copy, CHUNKS)));
      await measure(results.diskRead, counted, async () => {
        if ((await readFileBytes(copy)) !== OBJECT_BYTES) throw new Error('the copy on disk is short');
      });
      await rm(copy);

      const objectPath = `${objects}round-${round}.bin`;
      await measure(results.upload, counted, async () => {
        const status = await upload(url, headers, objectPath, source);
        if (status !== 201) throw new Error(`upload answered ${status}`);
      });
      await measure(results.download, counted, async () => {
        const fetched = await download(url, headers, objectPath, !counted);
        if (fetched.status !== 200 || fetched.bytes !== OBJECT_BYTES) throw new Error(`download answered ${fetched.status} with ${fetched.bytes} bytes`);
        if (!counted && fetched.digest !== expected) throw new Error('the downloaded bytes differ from the uploaded ones');
      });

      await measure(results.bareUpload, counted, async () => void (await upload(bareUrl, {}, `/round-${round}`, source)));
      await measure(results.bareDownload, counted, async () => void (await download(bareUrl, {}, `/round-${round}`, false)));
    }
    const mbps = (of: Samples) => OBJECT_BYTES / MB / median(of.seconds);
    const growth = (of: Samples) => `${fixed(Math.max(...of.rssGrowth))} MB`;
    table(
      ['transfer', 'platform MB/s', 'disk MB/s', 'ratio', 'server peak RSS growth', 'bare node:http MB/s'],
      [
        ['upload (PUT)', fixed(mbps(results.upload)), fixed(mbps(results.diskWrite)), ratioAgainst(mbps(results.upload) / mbps(results.diskWrite), 0.5, true), growth(results.upload), fixed(mbps(results.bareUpload))],
        ['download (GET)', fixed(mbps(results.download)), fixed(mbps(results.diskRead)), ratioAgainst(mbps(results.download) / mbps(results.diskRead), 0.5, true), growth(results.download), fixed(mbps(results.bareDownload))],
      ],
    );
    note(`RSS growth target < 64 MB (largest of ${rounds} rounds); disk: a file-to-file stream copy and a stream read in this process`);
    note(`platform / bare node:http: upload ${fixed(mbps(results.upload) / mbps(results.bareUpload), 2)}, download ${fixed(mbps(results.download) / mbps(results.bareDownload), 2)}`);
  } finally {
    await server.stop();
    await rm(work, { recursive: true, force: true });
  }
}
